// SPDX-License-Identifier: MIT
/*
 * Retests (linkmap_retests(), see linkmap.h): a slow or failed link
 * between A and B says one of A, B or the wire between them is bad, not
 * which.  Measuring A and B each against a node already known good tells
 * them apart; without it one slow node would make its partner look slow
 * too (the quick pattern gives every node one partner only).  A slow
 * direction whose ends are not retested so (each met a good node, or
 * there is none) is the link's own, or one step's noise: it is
 * measured again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/linkmap.h"
#include "mesh/linkmap_state.h"

/* @v has a result, ok or not, against a node known good. */
static void mark_vs_good(const struct lm_state *st, bool *vs_good)
{
	size_t i;

	for (i = 0; i < st->neff; i++) {
		const struct link_result *r = lm_eff(st, i);

		vs_good[r->client] |= st->node[r->server].good;
		vs_good[r->server] |= st->node[r->client].good;
	}
}

static bool explained(const struct lm_state *st, const struct link_result *r, uint32_t n)
{
	return st->node[n].named || st->node[n].blocked || st->rail[n * st->m->rails + r->rail].named;
}

/*
 * The ends to retest: those of a slow or failed link that no named node
 * explains, and that have not met a good node yet (one that has is fine,
 * or its own links would say otherwise).
 */
static void open_ends(const struct lm_state *st, const bool *vs_good, bool *retest)
{
	size_t i;

	for (i = 0; i < st->neff; i++) {
		const struct link_result *r = lm_eff(st, i);

		if ((r->ok && !lm_slow(st, r)) || lm_explained(st, i) || explained(st, r, r->client) ||
		    explained(st, r, r->server))
			continue;
		retest[r->client] |= !vs_good[r->client];
		retest[r->server] |= !vs_good[r->server];
	}
}

/*
 * End i against good node i mod G; each batch of G ends is two steps, the
 * ends writing to their good nodes, then the other way: one direction at
 * a time, as the pairs pattern measured the links they are compared to.
 */
static int pack(struct schedule *s, const uint32_t *ends, size_t ne, const uint32_t *good,
		size_t ng)
{
	size_t b, i, k, batches = (ne + ng - 1) / ng;

	s->steps = calloc(2 * batches, sizeof(*s->steps));
	if (!s->steps)
		return -ENOMEM;
	for (b = 0; b < batches; b++) {
		size_t n = ne - b * ng < ng ? ne - b * ng : ng;

		for (k = 0; k < 2; k++) {
			struct sched_step *st = &s->steps[s->n++];

			st->round = (uint32_t)b + 1;
			st->pairs = calloc(n, sizeof(*st->pairs));
			if (!st->pairs)
				return -ENOMEM;
			for (i = 0; i < n; i++) {
				st->pairs[i].client = k ? good[i] : ends[b * ng + i];
				st->pairs[i].server = k ? ends[b * ng + i] : good[i];
			}
			st->n = n;
		}
	}
	s->rounds = (uint32_t)batches;
	return 0;
}

/*
 * @a -> @b is among the @n directions of @dir (client, server pairs).
 * The links that count are sorted by pair: those of the pair {a, b}
 * already listed are the last ones, so the look ends at another pair's.
 */
static bool listed(const uint32_t *dir, size_t n, uint32_t a, uint32_t b)
{
	while (n--) {
		uint32_t c = dir[2 * n], v = dir[2 * n + 1];

		if (c == a && v == b)
			return true;
		if (!(c == b && v == a))
			return false;
	}
	return false;
}

/*
 * The slow directions to measure again (client, server pairs in @dir,
 * room for every link that counts; their number): each that no named
 * node or rail and no switch finding explains, neither end of which is
 * retested against a good node (@retest; NULL: none is, as when no node
 * is known good).  One step's rate is one look: on a busy
 * host a healthy direction can fall under --slow once (seen: a lab link
 * at 23% of the other way in one step, an asymmetric finding), and a
 * link is named only if a second look says it too.
 */
static size_t slow_again(const struct lm_state *st, const bool *retest, uint32_t *dir)
{
	size_t i, n = 0;

	for (i = 0; i < st->neff; i++) {
		const struct link_result *r = lm_eff(st, i);

		if (!lm_slow(st, r) || lm_explained(st, i) || explained(st, r, r->client) ||
		    explained(st, r, r->server) || (retest && (retest[r->client] || retest[r->server])) ||
		    listed(dir, n, r->client, r->server))
			continue;
		dir[2 * n] = r->client;
		dir[2 * n + 1] = r->server;
		n++;
	}
	return n;
}

/*
 * The directions of @dir (@n) measured again, after @s's steps: one step
 * more, one round more, every node in it at most once a writer and once
 * a reader (as in a step of the pattern), the directions in @dir's order
 * as they fit; those that do not keep their one look (under heavy
 * noise a fabric has more than a step's worth: the retests are bounded,
 * bench/triage-sim.sh).  0 or -ENOMEM.
 */
static int pack_again(struct schedule *s, const uint32_t *dir, size_t n)
{
	unsigned char *role = calloc(s->nodes + 1, 1);
	struct sched_step *st = role && n ? schedule_step_add(s, s->rounds + 1, n) : NULL;
	size_t i;

	if (!role || (n && !st)) {
		free(role);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		uint32_t c = dir[2 * i], v = dir[2 * i + 1];

		if ((role[c] & 1) || (role[v] & 2))
			continue;
		schedule_pair_add(st, c, v);
		role[c] |= 1;
		role[v] |= 2;
	}
	s->rounds += n > 0;
	free(role);
	return 0;
}

static int plan(const struct lm_state *st, const bool *retest, struct schedule *s)
{
	uint32_t nodes = st->m->nodes, v, *ends = malloc((nodes + 1) * sizeof(*ends)),
		 *good = malloc((nodes + 1) * sizeof(*good));
	size_t ne = 0, ng = 0;
	int ret = ends && good ? 0 : -ENOMEM;

	for (v = 0; !ret && v < nodes; v++) {
		if (retest[v])
			ends[ne++] = v;
		else if (st->node[v].good)
			good[ng++] = v;
	}
	if (!ret && ne && ng)
		ret = pack(s, ends, ne, good, ng);
	free(ends);
	free(good);
	return ret;
}

static int plan_again(const struct lm_state *st, const bool *retest, struct schedule *s)
{
	uint32_t *dir = malloc((st->neff + 1) * 2 * sizeof(*dir));
	int ret = dir ? pack_again(s, dir, slow_again(st, retest, dir)) : -ENOMEM;

	free(dir);
	return ret;
}

int linkmap_retests(const struct linkmap *m, struct schedule *s)
{
	struct lm_state st;
	bool *vs_good = NULL, *retest = NULL;
	int ret;

	memset(s, 0, sizeof(*s));
	s->nodes = m->nodes;
	ret = lm_state_make(m, &st);
	if (ret)
		return ret;
	vs_good = calloc(m->nodes + 1, sizeof(*vs_good));
	retest = calloc(m->nodes + 1, sizeof(*retest));
	if (vs_good && retest) {
		mark_vs_good(&st, vs_good);
		open_ends(&st, vs_good, retest);
		/* Ends retested only where a good node was there to pair them with. */
		ret = plan(&st, retest, s) ?: plan_again(&st, s->n ? retest : NULL, s);
	} else {
		ret = -ENOMEM;
	}
	free(vs_good);
	free(retest);
	lm_state_free(&st);
	if (ret)
		schedule_free(s);
	return ret;
}
