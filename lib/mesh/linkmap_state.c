// SPDX-License-Identifier: MIT
/*
 * What a link map's results say about each node (see linkmap_state.h).
 *
 * Every rule compares against a median of the links measured, not the
 * best one: a median does not move when a few links are slow or one is
 * unusually fast, so "below 0.8 of the median" names the same links
 * however lucky the best pair was.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/linkmap.h"
#include "mesh/linkmap_state.h"
#include "mesh/topology.h"

/* ---- the links that count: the last result of each directed link ---- */

static uint32_t lo_of(const struct link_result *r)
{
	return r->client < r->server ? r->client : r->server;
}

static uint32_t hi_of(const struct link_result *r)
{
	return r->client < r->server ? r->server : r->client;
}

#define CMP(a, b)                                   \
	do {                                        \
		if ((a) != (b))                     \
			return (a) < (b) ? -1 : 1;  \
	} while (0)

/* By pair, rail, direction, then the order they were added. */
static int by_link(const void *x, const void *y, void *arg)
{
	const struct link_result *res = arg, *a = &res[*(const size_t *)x], *b = &res[*(const size_t *)y];

	CMP(lo_of(a), lo_of(b));
	CMP(hi_of(a), hi_of(b));
	CMP(a->rail, b->rail);
	CMP(a->client, b->client);
	CMP(*(const size_t *)x, *(const size_t *)y);
	return 0;
}

bool lm_node_down(const struct linkmap *m, uint32_t i)
{
	return m->down && m->down[i];
}

static bool same_link(const struct link_result *a, const struct link_result *b)
{
	return a->client == b->client && a->server == b->server && a->rail == b->rail;
}

/*
 * st->eff: the results that count, grouped by pair.  A link measured
 * again (a retest of the same two ports) counts with its last result;
 * links of a node that is down are left out, its DOWN finding says all,
 * but for those a saved run measured (m->held; not those it lost to a
 * node going down then, which measured nothing).
 */
static int effective(struct lm_state *st)
{
	const struct linkmap *m = st->m;
	size_t i, n = 0;

	st->eff = malloc((m->n + 1) * sizeof(*st->eff));
	if (!st->eff)
		return -ENOMEM;
	for (i = 0; i < m->n; i++)
		if ((i < m->held && m->res[i].cause != CAUSE_NODE_DOWN) ||
		    (!lm_node_down(m, m->res[i].client) && !lm_node_down(m, m->res[i].server)))
			st->eff[n++] = i;
	qsort_r(st->eff, n, sizeof(*st->eff), by_link, m->res);
	st->neff = 0;
	for (i = 0; i < n; i++) {
		if (i + 1 < n && same_link(&m->res[st->eff[i]], &m->res[st->eff[i + 1]]))
			continue;
		st->eff[st->neff++] = st->eff[i];
	}
	return 0;
}

static int by_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

double lm_median(double *v, size_t n, double none)
{
	if (!n)
		return none;
	qsort(v, n, sizeof(*v), by_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Each node's typical link (the median of its ok links, both directions,
 * the faster middle one for bandwidth, the lower one for latency when the
 * count is even), into @out; how many nodes have one.
 */
static bool counts_for(const struct lm_state *st, const struct link_result *r, bool lat, bool intra)
{
	const struct topology *t = st->m->topo;

	return r->ok && (!lat || r->lat_us >= 0) && (!intra || t->leaf[r->client] == t->leaf[r->server]);
}

/* (@intra: of the links inside the node's leaf only.) */
static size_t node_typical(const struct lm_state *st, bool lat, bool intra, double *vals, size_t *off,
			   double *out)
{
	uint32_t v, nodes = st->m->nodes;
	size_t i, n = 0, *fill = off + nodes + 1;

	memset(off, 0, (2 * (size_t)nodes + 2) * sizeof(*off));
	for (i = 0; i < st->neff; i++) {
		const struct link_result *r = lm_eff(st, i);

		if (counts_for(st, r, lat, intra)) {
			off[r->client + 1]++;
			off[r->server + 1]++;
		}
	}
	for (v = 0; v < nodes; v++)
		off[v + 1] += off[v];
	memcpy(fill, off, ((size_t)nodes + 1) * sizeof(*off));
	for (i = 0; i < st->neff; i++) {
		const struct link_result *r = lm_eff(st, i);

		if (counts_for(st, r, lat, intra)) {
			vals[fill[r->client]++] = lat ? r->lat_us : r->gbps;
			vals[fill[r->server]++] = lat ? r->lat_us : r->gbps;
		}
	}
	for (v = 0; v < nodes; v++) {
		size_t k = off[v + 1] - off[v];

		if (!k)
			continue;
		qsort(vals + off[v], k, sizeof(*vals), by_double);
		out[n++] = vals[off[v] + (lat ? (k - 1) / 2 : k / 2)];
	}
	return n;
}

/*
 * The reference a link is compared to: the median over nodes of each
 * node's typical link, not the median of all links.  One slow node
 * touches 2/N of the pairs; in a small cluster with a node also blocked
 * (4 nodes: 2 of the 3 pairs left) that is most links, and their median
 * would be the slow node's rate.  Here the slow node moves only its own
 * value; with many nodes the two medians agree.
 */
static int medians(struct lm_state *st)
{
	size_t nodes = st->m->nodes, n;
	double *vals = malloc((2 * st->neff + 1) * sizeof(*vals));
	double *typ = malloc((nodes + 1) * sizeof(*typ));
	size_t *off = malloc((2 * nodes + 2) * sizeof(*off));

	if (!vals || !typ || !off) {
		free(vals);
		free(typ);
		free(off);
		return -ENOMEM;
	}
	n = node_typical(st, false, false, vals, off, typ);
	st->median = lm_median(typ, n, 0);
	/*
	 * With a tree, the links inside leaves cross no uplink: where a bad
	 * uplink slows most links (four nodes, two of them under it: 8 of 12),
	 * theirs is the rate the fabric has.  Only up, never down: a slow node
	 * inside a small leaf must not lower it.
	 */
	if (st->m->topo && (n = node_typical(st, false, true, vals, off, typ)) >= 2 &&
	    lm_median(typ, n, 0) > st->median)
		st->median = lm_median(typ, n, 0);
	n = node_typical(st, true, false, vals, off, typ);
	st->median_lat = lm_median(typ, n, -1);
	free(vals);
	free(typ);
	free(off);
	return 0;
}

bool lm_slow(const struct lm_state *st, const struct link_result *r)
{
	return r->ok && r->gbps < st->m->slow * st->median;
}

/* First index past the group that starts at @i: one pair, or one pair's one rail. */
size_t lm_group_end(const struct lm_state *st, size_t i, bool by_rail)
{
	const struct link_result *a = lm_eff(st, i);
	size_t j;

	for (j = i + 1; j < st->neff; j++) {
		const struct link_result *b = lm_eff(st, j);

		if (lo_of(a) != lo_of(b) || hi_of(a) != hi_of(b) || (by_rail && a->rail != b->rail))
			break;
	}
	return j;
}

/* The counts of one end of @r (@writer: the end that wrote). */
static void count(const struct lm_state *st, struct nstat *ns, const struct link_result *r,
		  bool writer)
{
	if (r->ok) {
		bool slow = lm_slow(st, r);

		ns->ok++;
		ns->slow += slow;
		ns->sum += r->gbps;
		*(writer ? &ns->out_ok : &ns->in_ok) += 1;
		*(writer ? &ns->out_slow : &ns->in_slow) += slow;
	} else {
		ns->failed++;
		ns->cause[(unsigned int)r->cause < NCAUSES ? r->cause : CAUSE_OTHER]++;
	}
}

/* Partners are counted once per pair (or pair and rail), links once per direction. */
static void count_group(struct lm_state *st, size_t i, size_t end, struct nstat *lo,
			struct nstat *hi)
{
	bool ok = false, failed = false;

	for (; i < end; i++) {
		const struct link_result *r = lm_eff(st, i);

		/* A switch finding's link says nothing of its ends. */
		if (lm_explained(st, i))
			continue;
		count(st, lo, r, lo_of(r) == r->client);
		count(st, hi, r, hi_of(r) == r->client);
		ok |= r->ok;
		failed |= !r->ok;
	}
	lo->okpart += ok;
	hi->okpart += ok;
	lo->failpart += failed;
	hi->failpart += failed;
}

static void count_all(struct lm_state *st)
{
	uint32_t rails = st->m->rails;
	size_t i, j;

	for (i = 0; i < st->neff; i = lm_group_end(st, i, false)) {
		const struct link_result *r = lm_eff(st, i);

		count_group(st, i, lm_group_end(st, i, false), &st->node[lo_of(r)], &st->node[hi_of(r)]);
	}
	for (j = 0; j < st->neff; j = lm_group_end(st, j, true)) {
		const struct link_result *r = lm_eff(st, j);

		count_group(st, j, lm_group_end(st, j, true), &st->rail[lo_of(r) * rails + r->rail],
			    &st->rail[hi_of(r) * rails + r->rail]);
	}
}

/*
 * lm_mostly_slow(): every link measured is slow, against at least two
 * partners; or, against four partners or more, three links in four.  One
 * partner cannot tell which end is slow (two nodes, or the quick pattern
 * before its retests), so that stays a slow link.  With many partners a node's
 * verdict is a vote: noise of a quarter lifts a link of a node at half
 * the rate over the line now and then, and one such link must not clear
 * it, while a healthy node has a slow link only to a slow partner, and
 * slow partners are few.
 */
bool lm_mostly_slow(uint32_t slow, uint32_t ok, uint32_t partners)
{
	return ok && (slow == ok || (partners >= 4 && slow * 4 >= ok * 3));
}

/*
 * A NIC or a cable may be slow one way only (a bad transmit lane, a
 * shaper on egress): every write from the node slow (or three in four, as
 * above), or every write to it, to two partners or more, names the node
 * as well; its partners each have one slow link of many and are not
 * named.  Sets ns->dir.
 */
static bool slow_node(struct nstat *ns)
{
	bool out, in;

	ns->dir = DIR_BOTH;
	if (ns->okpart < 2)
		return false;
	if (ns->slow == ns->ok)
		return true;
	/* Both ways slow only when each way is: a node slow writing also meets slow writers. */
	out = ns->out_ok >= 2 && lm_mostly_slow(ns->out_slow, ns->out_ok, ns->okpart);
	in = ns->in_ok >= 2 && lm_mostly_slow(ns->in_slow, ns->in_ok, ns->okpart);
	if (out && in)
		return true;
	ns->dir = out ? DIR_OUT : DIR_IN;
	return out || in;
}

/*
 * Known good, to retest others against: no slow link at all, or, with
 * four partners or more (the triage pattern gives each node many), at
 * most a quarter of its links slow.  Noise of a quarter of the rate makes
 * some healthy links slow now and then; with the strict rule no node of
 * many partners would stay good, and every noisy link would be retested.
 */
static bool good_enough(const struct nstat *ns)
{
	return !ns->slow || (ns->okpart >= 4 && ns->slow * 4 <= ns->ok);
}

static void classify(struct lm_state *st)
{
	const struct linkmap *m = st->m;
	uint32_t v, r, nr;

	for (v = 0; v < m->nodes; v++) {
		struct nstat *ns = &st->node[v];

		ns->named = slow_node(ns);
		ns->blocked = !ns->ok && ns->failed && ns->failpart >= 2;
		/* One rail slow (not all: then the node is named) names the rail. */
		for (r = 0, nr = 0; m->rails > 1 && r < m->rails; r++)
			nr += st->rail[v * m->rails + r].named = slow_node(&st->rail[v * m->rails + r]);
		/*
		 * Some rails slow and not the others: the rails say it, even when
		 * most of the node's links are slow (its slow rail's links, and
		 * on the others those to slow partners).
		 */
		if (nr && nr < m->rails && !(ns->named && ns->slow == ns->ok))
			ns->named = false;
		/* Slower than its uplink explains (linkmap_switch.c): named, whatever else its links say. */
		if (lm_beyond_of(st, v) && !ns->named) {
			ns->named = true;
			ns->dir = DIR_BOTH;
		}
		for (r = 0; ns->named && r < m->rails; r++)
			st->rail[v * m->rails + r].named = false;
		ns->good = !lm_node_down(m, v) && ns->ok && !ns->failed && !ns->named && !nr &&
			   good_enough(ns);
	}
}

const struct lm_beyond *lm_beyond_of(const struct lm_state *st, uint32_t node)
{
	size_t i;

	for (i = 0; i < st->nbeyond; i++)
		if (st->beyond[i].node == node)
			return &st->beyond[i];
	return NULL;
}

const char *lm_gbps(double gbps)
{
	static char buf[8][32];
	static unsigned int next;
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), gbps >= 10 || gbps == 0 ? "%.1f" : gbps >= 1 ? "%.2f" : "%.3g", gbps);
	return b;
}

void lm_state_free(struct lm_state *st)
{
	size_t i;

	for (i = 0; i < st->nswf; i++)
		linkmap_finding_release(&st->swf[i]);
	free(st->swf);
	free(st->beyond);
	free(st->expl);
	free(st->eff);
	free(st->node);
	free(st->rail);
	memset(st, 0, sizeof(*st));
}

int lm_state_build(const struct linkmap *m, struct lm_state *st, int (*switches)(struct lm_state *st))
{
	int ret;

	memset(st, 0, sizeof(*st));
	st->m = m;
	st->node = calloc(m->nodes + 1, sizeof(*st->node));
	st->rail = calloc((size_t)m->nodes * m->rails + 1, sizeof(*st->rail));
	ret = st->node && st->rail ? effective(st) : -ENOMEM;
	if (!ret)
		ret = medians(st);
	if (!ret && m->topo && switches)
		ret = switches(st);
	if (ret) {
		lm_state_free(st);
		return ret;
	}
	count_all(st);
	classify(st);
	return 0;
}
