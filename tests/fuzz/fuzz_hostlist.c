// SPDX-License-Identifier: MIT
/*
 * Hostlists (lib/launch/hostlist.c): a -w argument, a -w/-x pair, an
 * @FILE, and names to fold.  Input: one selector byte, then the text.
 *
 * Besides not crashing: an error is one printable line; a list holds
 * distinct host names, at most HOSTLIST_MAX; excluded names are gone; and
 * a fold expands back to the names it was given.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "launch/hostlist.h"

/* Folding a list and reading it back is checked up to this many names. */
#define ROUND_TRIP_MAX 4096

static char err[1024];

static void check_err(int ret, const char *what)
{
	size_t i;

	if (ret != -EINVAL && ret != -E2BIG && ret != -ENOMEM && ret != -EFBIG)
		fuzz_fail("%s gave %d", what, ret);
	if (!err[0])
		fuzz_fail("%s gave %d and no message", what, ret);
	for (i = 0; err[i]; i++)
		if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] >= 0x7f)
			fuzz_fail("%s: byte 0x%02x in the message", what, (unsigned char)err[i]);
}

static void check_list(const struct hostlist *hl)
{
	size_t i;

	if (hl->n > HOSTLIST_MAX || hl->n > hl->written)
		fuzz_fail("%zu names, %zu written", hl->n, hl->written);
	for (i = 0; i < hl->n; i++) {
		const char *s = hl->names[i];

		if (!s[0] || strlen(s) > HOSTLIST_NAME_MAX || s[0] == '-' ||
		    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") != strlen(s))
			fuzz_fail("'%s' is no host name", s);
		if (!hostlist_has(hl, s))
			fuzz_fail("'%s' is listed but not found", s);
	}
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The fold of @hl reads back as the same names. */
static void round_trip(const struct hostlist *hl)
{
	struct hostlist back;
	char *s, **a, **b;
	size_t i;

	if (hl->n > ROUND_TRIP_MAX)
		return;
	if (hostlist_str(hl, &s))
		fuzz_fail("folding %zu parsed names failed", hl->n);
	if (!hl->n) {
		if (s[0])
			fuzz_fail("no names fold to '%.200s'", s);
		free(s);
		return;
	}
	hostlist_init(&back);
	if (hostlist_parse(&back, s, err, sizeof(err)))
		fuzz_fail("the fold '%.200s' does not parse: %s", s, err);
	if (back.n != hl->n)
		fuzz_fail("the fold '%.200s' gives %zu names, not %zu", s, back.n, hl->n);
	a = malloc((hl->n + 1) * sizeof(*a));
	b = malloc((hl->n + 1) * sizeof(*b));
	if (!a || !b)
		abort();
	memcpy(a, hl->names, hl->n * sizeof(*a));
	memcpy(b, back.names, hl->n * sizeof(*b));
	qsort(a, hl->n, sizeof(*a), name_cmp);
	qsort(b, hl->n, sizeof(*b), name_cmp);
	for (i = 0; i < hl->n; i++)
		if (strcmp(a[i], b[i]))
			fuzz_fail("the fold '%.200s' gives '%s' for '%s'", s, b[i], a[i]);
	free(a);
	free(b);
	free(s);
	hostlist_free(&back);
}

static void parse(const char *s)
{
	struct hostlist hl;
	int ret;

	hostlist_init(&hl);
	err[0] = '\0';
	ret = hostlist_parse(&hl, s, err, sizeof(err));
	if (ret) {
		check_err(ret, "hostlist_parse");
		if (hl.n)
			fuzz_fail("a failed parse left %zu names", hl.n);
	}
	check_list(&hl);
	round_trip(&hl);
	hostlist_free(&hl);
}

/* "LIST\nXLIST": -w LIST -x XLIST. */
static void exclude(char *s)
{
	char *nl = strchr(s, '\n');
	struct hostlist hl, x;
	size_t i, before;

	if (!nl)
		return;
	*nl = '\0';
	hostlist_init(&hl);
	hostlist_init(&x);
	if (!hostlist_parse(&hl, s, err, sizeof(err)) && !hostlist_parse(&x, nl + 1, err, sizeof(err))) {
		before = hl.n;
		hostlist_exclude(&hl, &x);
		check_list(&hl);
		for (i = 0; i < hl.n; i++)
			if (hostlist_has(&x, hl.names[i]))
				fuzz_fail("'%s' excluded but still listed", hl.names[i]);
		for (i = 0; i < x.n && hl.n == before; i++)
			if (hostlist_has(&hl, x.names[i]))
				fuzz_fail("'%s' both listed and excluded", x.names[i]);
	}
	hostlist_free(&hl);
	hostlist_free(&x);
}

static void file(const uint8_t *data, size_t size)
{
	char path[512];
	struct hostlist hl;
	int ret;

	fuzz_root_init();
	if (fuzz_write("hosts", data, size))
		return;
	snprintf(path, sizeof(path), "@%s/hosts", fuzz_root);
	hostlist_init(&hl);
	err[0] = '\0';
	ret = hostlist_parse_arg(&hl, path, err, sizeof(err));
	if (ret)
		check_err(ret, "hostlist_read_file");
	check_list(&hl);
	hostlist_free(&hl);
}

/* Names one a line: the fold gives each valid name once, nothing else. */
static void fold(char *s)
{
	const char *names[1024];
	struct hostlist want, got;
	char *line, *save, *out;
	size_t n = 0;
	int ret, bad = 0;

	hostlist_init(&want);
	for (line = strtok_r(s, "\n", &save); line && n < 1024; line = strtok_r(NULL, "\n", &save)) {
		names[n++] = line;
		bad |= hostlist_add(&want, line, err, sizeof(err)) != 0;
	}
	ret = hostlist_fold(names, n, &out);
	if (ret && (ret != -EINVAL || !bad))
		fuzz_fail("hostlist_fold gave %d", ret);
	if (!ret && bad)
		fuzz_fail("hostlist_fold took a name hostlist_add refused");
	if (!ret) {
		hostlist_init(&got);
		if (n && hostlist_parse(&got, out, err, sizeof(err)))
			fuzz_fail("the fold '%.200s' does not parse: %s", out, err);
		if (got.n != want.n)
			fuzz_fail("the fold '%.200s' gives %zu names, not %zu", out, got.n, want.n);
		for (size_t i = 0; i < got.n; i++)
			if (!hostlist_has(&want, got.names[i]))
				fuzz_fail("the fold '%.200s' gives '%s', not given", out, got.names[i]);
		hostlist_free(&got);
		free(out);
	}
	hostlist_free(&want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1 || size > 16384)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	switch (data[0] % 4) {
	case 0:
		parse(s);
		break;
	case 1:
		exclude(s);
		break;
	case 2:
		file(data + 1, size - 1);
		break;
	case 3:
		fold(s);
		break;
	}
	free(s);
	return 0;
}
