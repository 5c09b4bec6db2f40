// SPDX-License-Identifier: MIT
/*
 * A schedule chosen by the user (--pairs FILE), one pair a line, the
 * layout ClusterKit's custom mode reads:
 *
 *   # round  node_a  node_b
 *   1 node01 node02
 *   1 node03 node04
 *   2 node01 node03
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/schedule.h"

/* A value quoted in a message is cut to this many bytes. */
#define QUOTE_MAX 40

struct entry {
	uint32_t round, a, b;
	size_t line;
};

struct pfile {
	const char *file;
	char *const *names;
	size_t n;
	uint32_t *byname;	/* indexes of @names sorted by name, for bsearch */
	struct entry *e;
	size_t ne, cap;
	char *err;
	size_t errlen;
};

/* @s (@len bytes) for a message: printable ASCII, anything else as \xHH, cut to QUOTE_MAX. */
static const char *quote(const char *s, size_t len, char *buf, size_t size)
{
	size_t i, o = 0;

	for (i = 0; i < len && i < QUOTE_MAX && o + 5 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
	}
	snprintf(buf + o, size - o, "%s", i < len ? "..." : "");
	return buf;
}

static int fail(struct pfile *pf, size_t line, const char *what, const char *val, size_t len)
{
	char q[QUOTE_MAX * 4 + 8];

	snprintf(pf->err, pf->errlen, "%s:%zu: %s '%s'", pf->file, line, what,
		 quote(val, len, q, sizeof(q)));
	return -EINVAL;
}

static int by_name(const void *x, const void *y, void *names)
{
	char *const *nm = names;

	return strcmp(nm[*(const uint32_t *)x], nm[*(const uint32_t *)y]);
}

/* The index of the node named by @tok (@len bytes), or -1. */
static int64_t lookup(const struct pfile *pf, const char *tok, size_t len)
{
	size_t lo = 0, hi = pf->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *name = pf->names[pf->byname[mid]];
		int c = strncmp(name, tok, len);

		if (!c && name[len])
			c = 1;
		if (!c)
			return pf->byname[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The next blank-separated word of @p: its start and length; @p moved past it. */
static size_t word(const char **p, const char **start)
{
	const char *s = *p + strspn(*p, " \t\r");
	size_t len = strcspn(s, " \t\r\n#");

	*start = s;
	*p = s + len;
	return len;
}

static int parse_node(struct pfile *pf, size_t line, const char **p, uint32_t *out)
{
	const char *tok;
	size_t len = word(p, &tok);
	int64_t i;

	if (!len)
		return fail(pf, line, "expected", "ROUND NODE_A NODE_B", 19);
	i = lookup(pf, tok, len);
	if (i < 0)
		return fail(pf, line, "unknown node", tok, len);
	*out = (uint32_t)i;
	return 0;
}

static int parse_round(struct pfile *pf, size_t line, const char **p, uint32_t *out)
{
	const char *tok;
	size_t len = word(p, &tok), i;
	uint64_t v = 0;

	for (i = 0; i < len && tok[i] >= '0' && tok[i] <= '9' && v <= UINT32_MAX; i++)
		v = v * 10 + (uint64_t)(tok[i] - '0');
	if (!len || i < len || !v || v > UINT32_MAX)
		return fail(pf, line, "bad round (a positive integer)", tok, len);
	*out = (uint32_t)v;
	return 0;
}

/* One line, up to its '\n': nothing, a comment, or ROUND NODE_A NODE_B. */
static int parse_line(struct pfile *pf, size_t line, const char *p)
{
	struct entry e = { .line = line };
	const char *tok;
	size_t len;
	int ret;

	if (!p[strspn(p, " \t\r")] || strchr("#\n", p[strspn(p, " \t\r")]))
		return 0;
	ret = parse_round(pf, line, &p, &e.round);
	if (!ret)
		ret = parse_node(pf, line, &p, &e.a);
	if (!ret)
		ret = parse_node(pf, line, &p, &e.b);
	if (ret)
		return ret;
	if (e.a == e.b)
		return fail(pf, line, "a node paired with itself:", pf->names[e.a], strlen(pf->names[e.a]));
	if ((len = word(&p, &tok)))
		return fail(pf, line, "unexpected text after the pair", tok, len);
	if (pf->ne == pf->cap) {
		struct entry *ne = realloc(pf->e, (pf->cap * 2 + 16) * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		pf->e = ne;
		pf->cap = pf->cap * 2 + 16;
	}
	pf->e[pf->ne++] = e;
	return 0;
}

/* Rounds in order; a round's pairs in the file's order. */
static int by_round(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;

	if (a->round != b->round)
		return a->round < b->round ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* The steps allocated for @n of them: a power of two, so that 400 000 rounds are not quadratic. */
static size_t steps_room(size_t n)
{
	size_t room = 16;

	while (room < n)
		room *= 2;
	return room;
}

/* Room for a round's A->B and B->A steps of @n pairs each (@s is built here alone). */
static int round_add(struct schedule *s, uint32_t round, size_t n)
{
	struct sched_step *steps = s->steps;
	size_t i;

	if (!steps || steps_room(s->n + 2) > steps_room(s->n)) {
		steps = realloc(s->steps, steps_room(s->n + 2) * sizeof(*steps));
		if (!steps)
			return -ENOMEM;
		s->steps = steps;
	}
	for (i = 0; i < 2; i++) {
		steps[s->n] = (struct sched_step){ .round = round };
		steps[s->n].pairs = calloc(n, sizeof(struct sched_pair));
		if (!steps[s->n].pairs)
			return -ENOMEM;
		s->n++;
	}
	s->rounds++;
	return 0;
}

static void both_ways(struct schedule *s, uint32_t a, uint32_t b)
{
	struct sched_step *fwd = &s->steps[s->n - 2], *rev = &s->steps[s->n - 1];

	fwd->pairs[fwd->n++] = (struct sched_pair){ .client = a, .server = b };
	rev->pairs[rev->n++] = (struct sched_pair){ .client = b, .server = a };
}

/* Each round's A->B step, then its B->A step; a node at most once a round. */
static int build(struct pfile *pf, struct schedule *s)
{
	size_t *seen = calloc(pf->n + 1, sizeof(*seen)), i, j, k;
	int ret = seen ? 0 : -ENOMEM;

	qsort(pf->e, pf->ne, sizeof(*pf->e), by_round);
	for (i = 0; !ret && i < pf->ne; i = j) {
		for (j = i; j < pf->ne && pf->e[j].round == pf->e[i].round; j++)
			;
		ret = round_add(s, pf->e[i].round, j - i);
		for (k = i; !ret && k < j; k++) {
			const struct entry *e = &pf->e[k];
			uint32_t twice = seen[e->a] == i + 1 ? e->a : e->b;

			if (seen[e->a] == i + 1 || seen[e->b] == i + 1)
				ret = fail(pf, e->line, "node twice in one round:", pf->names[twice],
					   strlen(pf->names[twice]));
			seen[e->a] = seen[e->b] = i + 1;
			if (!ret)
				both_ways(s, e->a, e->b);
		}
	}
	free(seen);
	return ret;
}

/* Every line of @text into @pf->e. */
static int parse_lines(struct pfile *pf, const char *text)
{
	const char *p = text;
	size_t line = 1;
	int ret = 0;

	while (*p && !ret) {
		ret = parse_line(pf, line++, p);
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	if (!ret && !pf->ne) {
		snprintf(pf->err, pf->errlen, "%s: no pair (lines of ROUND NODE_A NODE_B)", pf->file);
		ret = -EINVAL;
	}
	return ret;
}

int schedule_parse(const char *text, const char *file, char *const *names, size_t n,
		   struct schedule *s, char *err, size_t errlen)
{
	struct pfile pf = { .file = file, .names = names, .n = n, .err = err, .errlen = errlen };
	size_t i;
	int ret;

	memset(s, 0, sizeof(*s));
	s->nodes = (uint32_t)n;
	if (errlen)
		err[0] = '\0';
	pf.byname = malloc((n + 1) * sizeof(*pf.byname));
	if (!pf.byname)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		pf.byname[i] = (uint32_t)i;
	qsort_r(pf.byname, n, sizeof(*pf.byname), by_name, (void *)names);
	ret = parse_lines(&pf, text);
	if (!ret)
		ret = build(&pf, s);
	if (ret)
		schedule_free(s);
	free(pf.byname);
	free(pf.e);
	return ret;
}
