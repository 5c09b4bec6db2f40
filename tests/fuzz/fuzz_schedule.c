// SPDX-License-Identifier: MIT
/*
 * The cluster probe's schedules (lib/mesh/schedule*.c): the string an
 * agent decodes from its command line, and a --pairs file.  Input: one
 * selector byte, then the text.
 *
 * Besides not crashing: what decodes keeps every rule an agent relies on
 * and encodes back to the same text; a --pairs error is one printable
 * line naming the file; a parsed file gives each pair both ways.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mesh/schedule.h"

#define NODES 8

static char *names[NODES] = { "n0", "n1", "n2", "n3", "node-4", "node-5", "a", "b" };

/* Each node once a client and once a server per step, indexes in range. */
static void check_steps(const struct schedule *s)
{
	size_t i, j;

	for (i = 0; i < s->n; i++) {
		unsigned char role[NODES] = { 0 };

		for (j = 0; j < s->steps[i].n; j++) {
			const struct sched_pair *p = &s->steps[i].pairs[j];

			if (p->client >= NODES || p->server >= NODES || p->client == p->server ||
			    (role[p->client] & 1) || (role[p->server] & 2))
				fuzz_fail("step %zu breaks the rules at pair %zu", i, j);
			role[p->client] |= 1;
			role[p->server] |= 2;
		}
	}
}

static void decode(const char *s)
{
	struct schedule sc;
	char *back;
	int ret = schedule_decode(s, NODES, &sc);

	if (ret) {
		if (ret != -EINVAL || sc.n)
			fuzz_fail("decode gave %d with %zu steps", ret, sc.n);
		return;
	}
	check_steps(&sc);
	back = schedule_encode(&sc);
	if (!back || strcmp(back, s))
		fuzz_fail("'%.200s' encodes back as '%.200s'", s, back ? back : "(null)");
	free(back);
	schedule_free(&sc);
}

static void parse(const char *s)
{
	struct schedule sc;
	char err[512] = "";
	size_t i;
	int ret = schedule_parse(s, "f", names, NODES, &sc, err, sizeof(err));

	if (ret) {
		if (ret != -EINVAL || sc.n || strncmp(err, "f:", 2))
			fuzz_fail("parse gave %d, %zu steps, '%s'", ret, sc.n, err);
		for (i = 0; err[i]; i++)
			if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] >= 0x7f)
				fuzz_fail("byte 0x%02x in the message", (unsigned char)err[i]);
		return;
	}
	check_steps(&sc);
	if (!sc.n || sc.n % 2)
		fuzz_fail("%zu steps, not two a round", sc.n);
	for (i = 0; i < sc.n; i += 2)
		if (sc.steps[i].n != sc.steps[i + 1].n || sc.steps[i].round != sc.steps[i + 1].round)
			fuzz_fail("round %u is not both ways", sc.steps[i].round);
	schedule_free(&sc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1 || size > 16384)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	if (data[0] % 2)
		parse(s);
	else
		decode(s);
	free(s);
	return 0;
}
