// SPDX-License-Identifier: MIT
/* The cluster probe's schedule: its patterns' names, the agents' string (see schedule.h). */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/schedule.h"

static const char *const pattern_names[] = {
	[PATTERN_PAIRS] = "pairs",
	[PATTERN_RING] = "ring",
	[PATTERN_QUICK] = "quick",
	[PATTERN_TRIAGE] = "triage",
};

int pattern_parse(const char *s, enum pattern *out)
{
	size_t i;

	for (i = 0; i < sizeof(pattern_names) / sizeof(pattern_names[0]); i++)
		if (!strcmp(s, pattern_names[i])) {
			*out = (enum pattern)i;
			return 0;
		}
	return -EINVAL;
}

const char *pattern_name(enum pattern p)
{
	return (unsigned int)p < sizeof(pattern_names) / sizeof(pattern_names[0]) ? pattern_names[p]
										   : "unknown";
}

void schedule_free(struct schedule *s)
{
	size_t i;

	for (i = 0; s->steps && i < s->n; i++)
		free(s->steps[i].pairs);
	free(s->steps);
	memset(s, 0, sizeof(*s));
}

struct sched_step *schedule_step_add(struct schedule *s, uint32_t round, size_t cap)
{
	struct sched_step *st, *steps = realloc(s->steps, (s->n + 1) * sizeof(*steps));

	if (!steps)
		return NULL;
	s->steps = steps;
	st = &steps[s->n];
	memset(st, 0, sizeof(*st));
	st->round = round;
	st->pairs = calloc(cap ? cap : 1, sizeof(*st->pairs));
	if (!st->pairs)
		return NULL;
	s->n++;
	return st;
}

void schedule_pair_add(struct sched_step *st, uint32_t client, uint32_t server)
{
	st->pairs[st->n].client = client;
	st->pairs[st->n].server = server;
	st->pairs[st->n].rail = 0;
	st->n++;
}

/* ---- the agents' string: "R:C>S,C>S;R:C>S" ---- */

char *schedule_encode(const struct schedule *s)
{
	char *buf = NULL;
	size_t len = 0, i, j;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (i = 0; i < s->n; i++) {
		fprintf(f, "%s%" PRIu32 ":", i ? ";" : "", s->steps[i].round);
		for (j = 0; j < s->steps[i].n; j++)
			fprintf(f, "%s%" PRIu32 ">%" PRIu32, j ? "," : "", s->steps[i].pairs[j].client,
				s->steps[i].pairs[j].server);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * Decimal digits only (no sign, no blank, no leading zero: one text per
 * schedule), at most UINT32_MAX; the text after them in @end.
 */
static int parse_u32(const char *s, const char **end, uint32_t *out)
{
	uint64_t v = 0;
	const char *p;

	for (p = s; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return -EINVAL;
	}
	if (p == s || (s[0] == '0' && p - s > 1))
		return -EINVAL;
	*end = p;
	*out = (uint32_t)v;
	return 0;
}

/*
 * Whether @st keeps the rules every agent relies on: indexes below
 * @nodes, no node writing to itself, each node once a client and once a
 * server.  @seen (2 x @nodes) holds the step number that last used a node.
 */
static bool step_valid(const struct sched_step *st, uint32_t nodes, size_t *seen, size_t stamp)
{
	size_t i;

	for (i = 0; i < st->n; i++) {
		const struct sched_pair *p = &st->pairs[i];

		if (p->client >= nodes || p->server >= nodes || p->client == p->server ||
		    seen[p->client] == stamp || seen[nodes + p->server] == stamp)
			return false;
		seen[p->client] = stamp;
		seen[nodes + p->server] = stamp;
	}
	return true;
}

/* One step "R:C>S,C>S" from @p, up to ';' or the end; @p moved past it. */
static int decode_step(const char **p, struct schedule *s)
{
	const char *q = *p;
	struct sched_step *st;
	uint32_t round, c, v;
	size_t cap = 1;

	if (parse_u32(q, &q, &round) || !round || *q++ != ':')
		return -EINVAL;
	for (const char *t = q; *t && *t != ';'; t++)
		cap += *t == ',';
	st = schedule_step_add(s, round, cap);
	if (!st)
		return -ENOMEM;
	do {
		if (parse_u32(q, &q, &c) || *q++ != '>' || parse_u32(q, &q, &v))
			return -EINVAL;
		schedule_pair_add(st, c, v);
	} while (*q == ',' && q++);
	if (*q && *q != ';')
		return -EINVAL;
	if (round > s->rounds)
		s->rounds = round;
	*p = *q ? q + 1 : q;
	return 0;
}

int schedule_decode(const char *text, uint32_t nodes, struct schedule *s)
{
	const char *p = text;
	size_t *seen;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->nodes = nodes;
	if (!*p || nodes < 2)
		return -EINVAL;
	while (*p && !ret)
		ret = decode_step(&p, s);
	/* A trailing ';' would promise a step that is not there. */
	if (!ret && p[-1] == ';')
		ret = -EINVAL;
	seen = ret ? NULL : calloc(2 * (size_t)nodes, sizeof(*seen));
	if (!ret && !seen)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < s->n; i++)
		if (!step_valid(&s->steps[i], nodes, seen, i + 1))
			ret = -EINVAL;
	free(seen);
	if (ret)
		schedule_free(s);
	return ret;
}
