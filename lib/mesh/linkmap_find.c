// SPDX-License-Identifier: MIT
/*
 * The findings of a link map (linkmap_analyse(), see linkmap.h), named
 * from the largest thing that explains them: a down node, then a slow or
 * blocked node, then one rail of a node, and only then a link.  A link
 * whose end is already named is not reported again.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/linkmap.h"
#include "mesh/linkmap_state.h"
#include "mesh/topology.h"

/* A latency above this many times the median is worth a warning. */
#define LAT_FACTOR 2.0

struct fvec {
	struct finding *f;
	size_t n, cap;
	int err;
};

static struct finding *find_add(struct fvec *v, enum finding_kind k, uint32_t node, uint32_t peer,
				uint32_t rail)
{
	struct finding *f;

	if (v->n == v->cap) {
		size_t cap = v->cap * 2 + 16;
		struct finding *nf = realloc(v->f, cap * sizeof(*nf));

		if (!nf) {
			v->err = -ENOMEM;
			return NULL;
		}
		v->f = nf;
		v->cap = cap;
	}
	f = &v->f[v->n++];
	memset(f, 0, sizeof(*f));
	f->kind = k;
	f->failure = k != FIND_HIGH_LATENCY;
	f->node = node;
	f->peer = peer;
	f->rail = rail;
	f->sw = f->parent = TOPO_NONE;
	return f;
}

static void text_add(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_add(struct finding *f, const char *fmt, ...)
{
	size_t len = strlen(f->text);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->text + len, sizeof(f->text) - len, fmt, ap);
	va_end(ap);
}

static const char *cause_text(enum link_cause c)
{
	switch (c) {
	case CAUSE_ROCE_BLOCKED:
		return "RoCE blocked (TCP passes, RDMA traffic lost: UDP 4791 filtered?)";
	case CAUSE_MTU:
		return "MTU mismatch";
	case CAUSE_TIMEOUT:
		return "timeout";
	case CAUSE_UNREACHABLE:
		return "unreachable";
	case CAUSE_NODE_DOWN:
		return "node down";
	default:
		return NULL;	/* no name of its own: the probe's line says it */
	}
}

/*
 * @sep, then "CAUSE: WHY", or the probe's own line alone when the cause
 * has no name of its own ("failed: Failed to RDMA WRITE ...", not
 * "failed: failed: Failed ..."); nothing when there is neither.
 */
static void cause_why_text(struct finding *f, const char *sep, enum link_cause c, const char *why)
{
	const char *cause = cause_text(c);
	bool said = why && why[0];

	if (cause)
		text_add(f, "%s%s%s%s", sep, cause, said ? ": " : "", said ? why : "");
	else if (said)
		text_add(f, "%s%s", sep, why);
}

static const char *name(const struct linkmap *m, uint32_t i)
{
	return m->names && m->names[i] ? m->names[i] : "?";
}

/* " on rail 1" when there are rails to tell apart. */
static void rail_text(const struct linkmap *m, struct finding *f, uint32_t rail)
{
	if (m->rails > 1)
		text_add(f, " on rail %" PRIu32, rail);
}

static void ratio_text(const struct lm_state *st, struct finding *f)
{
	text_add(f, ", %.0f%% of the median %s Gb/s", f->ratio * 100, lm_gbps(st->median));
}

/* " (rxe0/1 counted 12 retransmissions, 3 CNPs)": the port counters that grew on @r. */
static void counters_text(const struct linkmap *m, struct finding *f, const struct link_result *r)
{
	const uint64_t val[] = { r->retrans, r->seq_err, r->cnp };
	static const char *const what[] = { "retransmission", "sequence error", "CNP" };
	const char *sep = " ";
	size_t i;

	if (!r->retrans && !r->seq_err && !r->cnp)
		return;
	text_add(f, " (%s counted", r->dev[0] ? r->dev : name(m, r->client));
	for (i = 0; i < 3; i++) {
		if (!val[i])
			continue;
		text_add(f, "%s%" PRIu64 " %s%s", sep, val[i], what[i], val[i] == 1 ? "" : "s");
		sep = ", ";
	}
	text_add(f, ")");
}

static const char *sw_name(const struct linkmap *m, uint32_t s)
{
	return s < m->topo->nsw ? m->topo->sw[s].name : "?";
}

/* ---- what names a node ---- */

static enum link_cause common_cause(const struct nstat *ns)
{
	enum link_cause c, best = CAUSE_OTHER;

	for (c = CAUSE_NONE; c < NCAUSES; c++)
		if (ns->cause[c] > ns->cause[best])
			best = c;
	return best;
}

/* The probe's line for one of @v's links that failed with @c. */
static const char *why_of(const struct lm_state *st, uint32_t v, enum link_cause c)
{
	size_t i;

	for (i = 0; i < st->neff; i++) {
		const struct link_result *r = lm_eff(st, i);

		if (!r->ok && r->cause == c && (r->client == v || r->server == v) && r->why[0])
			return r->why;
	}
	return NULL;
}

/* The device of @v on @rail as its links name it, or NULL. */
static const char *dev_of(const struct linkmap *m, uint32_t v, uint32_t rail)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->res[i].client == v && m->res[i].rail == rail && m->res[i].dev[0])
			return m->res[i].dev;
	return NULL;
}

/* Gb/s of the ok links @node wrote (@out) or received on @rail (UINT32_MAX: all rails). */
static double slow_sum(const struct lm_state *st, uint32_t node, uint32_t rail, bool out)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < st->neff; i++) {
		const struct link_result *r = lm_eff(st, i);

		if (r->ok && (out ? r->client : r->server) == node && (rail == UINT32_MAX || r->rail == rail))
			sum += r->gbps;
	}
	return sum;
}

/*
 * "; its 4 links across the slow uplink leaf1 -> spine average 0.0004
 * Gb/s, 25% of the 0.0016 Gb/s of the uplink's other slow links: slower
 * than the uplink explains (--slow 0.3)": why a node beside a slow uplink
 * is named.
 */
static void beyond_text(const struct lm_state *st, struct finding *f, uint32_t node)
{
	const struct lm_beyond *b = lm_beyond_of(st, node);

	if (!b)
		return;
	text_add(f, "; its %zu links across the slow uplink %s -> %s", b->n, sw_name(st->m, b->sw),
		 sw_name(st->m, b->parent));
	rail_text(st->m, f, b->rail);
	text_add(f, " average %s Gb/s, %.0f%% of the %s Gb/s of the uplink's other slow links: slower "
		 "than the uplink explains (--slow %.2g)", lm_gbps(b->gbps), b->typical > 0 ? b->gbps / b->typical * 100 : 0,
		 lm_gbps(b->typical), st->m->slow);
}

static void slow_finding(const struct lm_state *st, struct fvec *v, uint32_t node, uint32_t rail)
{
	const struct linkmap *m = st->m;
	const struct nstat *ns = rail == UINT32_MAX ? &st->node[node] : &st->rail[node * m->rails + rail];
	struct finding *f = find_add(v, rail == UINT32_MAX ? FIND_SLOW_NODE : FIND_SLOW_RAIL, node,
				     UINT32_MAX, rail);
	const char *dev = rail == UINT32_MAX ? NULL : dev_of(m, node, rail);

	if (!f)
		return;
	f->gbps = ns->sum / ns->ok;
	f->ratio = st->median > 0 ? f->gbps / st->median : 0;
	text_add(f, "%s", name(m, node));
	if (rail != UINT32_MAX)
		text_add(f, " rail %" PRIu32 "%s%s%s", rail, dev ? " (" : "", dev ? dev : "", dev ? ")" : "");
	if (ns->dir == DIR_OUT)
		f->gbps = ns->out_slow ? slow_sum(st, node, rail, true) / ns->out_ok : 0;
	else if (ns->dir == DIR_IN)
		f->gbps = ns->in_slow ? slow_sum(st, node, rail, false) / ns->in_ok : 0;
	f->ratio = st->median > 0 ? f->gbps / st->median : 0;
	text_add(f, " is slow%s: its %" PRIu32 " %s %" PRIu32 " partners average %s Gb/s",
		 ns->dir == DIR_OUT ? " writing" : ns->dir == DIR_IN ? " receiving" : "",
		 ns->dir == DIR_OUT ? ns->out_ok : ns->dir == DIR_IN ? ns->in_ok : ns->ok,
		 ns->dir == DIR_OUT ? "writes to" : ns->dir == DIR_IN ? "writes from" : "links to",
		 ns->okpart, lm_gbps(f->gbps));
	ratio_text(st, f);
	if (rail == UINT32_MAX)
		beyond_text(st, f, node);
}

static void blocked_finding(const struct lm_state *st, struct fvec *v, uint32_t node)
{
	const struct nstat *ns = &st->node[node];
	struct finding *f = find_add(v, FIND_BLOCKED_NODE, node, UINT32_MAX, UINT32_MAX);
	const char *why;

	if (!f)
		return;
	f->cause = common_cause(ns);
	why = why_of(st, node, f->cause);
	text_add(f, "%s: every link to or from it failed (%" PRIu32 " partners)", name(st->m, node),
		 ns->failpart);
	cause_why_text(f, ", ", f->cause, why);
}

static void node_findings(const struct lm_state *st, struct fvec *v)
{
	const struct linkmap *m = st->m;
	uint32_t n, r;

	for (n = 0; n < m->nodes; n++) {
		if (lm_node_down(m, n)) {
			struct finding *f = find_add(v, FIND_DOWN_NODE, n, UINT32_MAX, UINT32_MAX);

			if (f) {
				f->cause = CAUSE_NODE_DOWN;
				text_add(f, "%s did not take part: %s", name(m, n),
					 m->down[n][0] ? m->down[n] : "no reason given");
			}
			/* What a saved run measured of it still says what it says (m->held). */
		}
		if (st->node[n].named)
			slow_finding(st, v, n, UINT32_MAX);
		if (st->node[n].blocked)
			blocked_finding(st, v, n);
		for (r = 0; r < m->rails; r++)
			if (st->rail[n * m->rails + r].named)
				slow_finding(st, v, n, r);
	}
}

/* ---- what names a link ---- */

/* A link of one pair and rail: its one or two directions. */
struct pairlink {
	const struct link_result *d[2];
	size_t n;
	uint32_t lo, hi, rail;
};

/* The node or rail of @n on the link's rail is slow: that explains the link. */
static bool slow_end(const struct lm_state *st, uint32_t n, uint32_t rail)
{
	return st->node[n].named || st->rail[n * st->m->rails + rail].named;
}

static bool end_named(const struct lm_state *st, uint32_t n, uint32_t rail)
{
	return slow_end(st, n, rail) || st->node[n].blocked;
}

/* A link finding over the directions in @d (@n: 1 or 2), "a -> b" or "a <-> b". */
static struct finding *link_add(const struct lm_state *st, struct fvec *v, enum finding_kind k,
				const struct pairlink *pl, const struct link_result **d, size_t n)
{
	struct finding *f = n == 2 ? find_add(v, k, pl->lo, pl->hi, pl->rail)
				   : find_add(v, k, d[0]->client, d[0]->server, pl->rail);

	if (f)
		text_add(f, "%s %s %s", name(st->m, f->node), n == 2 ? "<->" : "->", name(st->m, f->peer));
	return f;
}

static void link_counters(const struct lm_state *st, struct finding *f,
			  const struct link_result **d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		counters_text(st->m, f, d[i]);
}

static void failed_link(const struct lm_state *st, struct fvec *v, const struct pairlink *pl)
{
	const struct link_result *d[2];
	struct finding *f;
	size_t i, n = 0;

	for (i = 0; i < pl->n; i++)
		if (!pl->d[i]->ok)
			d[n++] = pl->d[i];
	if (!n || st->node[pl->lo].blocked || st->node[pl->hi].blocked)
		return;
	f = link_add(st, v, FIND_FAILED_LINK, pl, d, n);
	if (!f)
		return;
	f->cause = d[0]->cause;
	rail_text(st->m, f, pl->rail);
	text_add(f, " failed%s", n == 2 ? " both ways" : "");
	cause_why_text(f, ": ", f->cause, d[0]->why);
	link_counters(st, f, d, n);
}

/* One direction slow, the other not, and far apart: a cable or port that fails one way. */
static bool asymmetric(const struct lm_state *st, const struct pairlink *pl)
{
	const struct link_result *a = pl->d[0], *b = pl->d[1];

	if (pl->n != 2 || !a->ok || !b->ok || lm_slow(st, a) == lm_slow(st, b))
		return false;
	return (a->gbps < b->gbps ? a->gbps / b->gbps : b->gbps / a->gbps) < st->m->slow;
}

static void asymmetric_link(const struct lm_state *st, struct fvec *v, const struct pairlink *pl)
{
	const struct link_result *d[2] = { pl->d[0], pl->d[1] };
	const struct link_result *slow = lm_slow(st, d[0]) ? d[0] : d[1];
	const struct link_result *fast = slow == d[0] ? d[1] : d[0];
	struct finding *f = find_add(v, FIND_ASYMMETRIC, slow->client, slow->server, pl->rail);

	if (!f)
		return;
	f->gbps = slow->gbps;
	f->ratio = slow->gbps / fast->gbps;
	text_add(f, "%s -> %s %s Gb/s but %s -> %s %s Gb/s", name(st->m, slow->client),
		 name(st->m, slow->server), lm_gbps(slow->gbps), name(st->m, fast->client),
		 name(st->m, fast->server), lm_gbps(fast->gbps));
	rail_text(st->m, f, pl->rail);
	text_add(f, ": %.0f%% of the other direction", f->ratio * 100);
	link_counters(st, f, d, 2);
}

static void slow_link(const struct lm_state *st, struct fvec *v, const struct pairlink *pl)
{
	const struct link_result *d[2];
	struct finding *f;
	size_t i, n = 0;

	if (slow_end(st, pl->lo, pl->rail) || slow_end(st, pl->hi, pl->rail))
		return;
	if (asymmetric(st, pl)) {
		asymmetric_link(st, v, pl);
		return;
	}
	for (i = 0; i < pl->n; i++)
		if (lm_slow(st, pl->d[i]))
			d[n++] = pl->d[i];
	if (!n || !(f = link_add(st, v, FIND_SLOW_LINK, pl, d, n)))
		return;
	f->gbps = n == 2 && d[1]->gbps < d[0]->gbps ? d[1]->gbps : d[0]->gbps;
	f->ratio = f->gbps / st->median;
	rail_text(st->m, f, pl->rail);
	if (n == 2)
		text_add(f, " is slow both ways: %s and %s Gb/s", lm_gbps(d[0]->gbps), lm_gbps(d[1]->gbps));
	else
		text_add(f, " is slow: %s Gb/s", lm_gbps(d[0]->gbps));
	ratio_text(st, f);
	link_counters(st, f, d, n);
}

/* A warning only: latency matters to small messages, not to the bandwidth measured. */
static void latency_link(const struct lm_state *st, struct fvec *v, const struct pairlink *pl)
{
	const struct link_result *worst = NULL;
	struct finding *f;
	size_t i;

	if (st->median_lat <= 0 || end_named(st, pl->lo, pl->rail) || end_named(st, pl->hi, pl->rail))
		return;
	for (i = 0; i < pl->n; i++)
		if (pl->d[i]->ok && pl->d[i]->lat_us > LAT_FACTOR * st->median_lat &&
		    (!worst || pl->d[i]->lat_us > worst->lat_us))
			worst = pl->d[i];
	if (!worst || !(f = link_add(st, v, FIND_HIGH_LATENCY, pl, &worst, 1)))
		return;
	f->gbps = worst->gbps;
	f->ratio = worst->lat_us / st->median_lat;
	rail_text(st->m, f, pl->rail);
	text_add(f, " latency %.1f us, %.1f times the median %.1f us", worst->lat_us, f->ratio,
		 st->median_lat);
	counters_text(st->m, f, worst);
}

static void link_findings(const struct lm_state *st, struct fvec *v)
{
	size_t i, j, end;

	for (i = 0; i < st->neff; i = end) {
		struct pairlink pl = { .n = 0 };

		end = lm_group_end(st, i, true);
		for (j = i; j < end && pl.n < 2; j++)
			if (!lm_explained(st, j))
				pl.d[pl.n++] = lm_eff(st, j);
		if (!pl.n)
			continue;
		pl.lo = pl.d[0]->client < pl.d[0]->server ? pl.d[0]->client : pl.d[0]->server;
		pl.hi = pl.d[0]->client ^ pl.d[0]->server ^ pl.lo;
		pl.rail = pl.d[0]->rail;
		failed_link(st, v, &pl);
		slow_link(st, v, &pl);
		latency_link(st, v, &pl);
	}
}

#define CMP(a, b)                                   \
	do {                                        \
		if ((a) != (b))                     \
			return (a) < (b) ? -1 : 1;  \
	} while (0)

static int by_finding(const void *x, const void *y)
{
	const struct finding *a = x, *b = y;

	CMP(a->kind, b->kind);
	CMP(a->node, b->node);
	CMP(a->peer, b->peer);
	CMP(a->rail, b->rail);
	CMP(a->sw, b->sw);
	return 0;
}

/* ---- what names a switch (linkmap_switch.c found them) ---- */

/* "; the topology cannot tell it from the uplink of b -> spine: the same links cross both" */
static void candidates_text(const struct linkmap *m, struct finding *f)
{
	size_t i;
	const char *sep = "";

	if (f->ncand < 2)
		return;
	text_add(f, "; the topology cannot tell it from the uplink%s of ", f->ncand > 2 ? "s" : "");
	for (i = 0; i < f->ncand; i++) {
		if (f->cand[i] == f->sw)
			continue;
		text_add(f, "%s%s -> %s", sep, sw_name(m, f->cand[i]), sw_name(m, m->topo->sw[f->cand[i]].parent));
		sep = ", ";
	}
	text_add(f, ": the same links cross %s", f->ncand > 2 ? "all of them" : "both");
}

static void switch_text(const struct lm_state *st, struct finding *f)
{
	const struct linkmap *m = st->m;

	if (f->kind == FIND_SLOW_SWITCH)
		text_add(f, "leaf switch %s is slow: %zu links of its nodes are slow, among themselves too",
			 sw_name(m, f->sw), f->npairs);
	else
		text_add(f, "uplink %s -> %s %s: %zu links crossing it %s, its nodes fine among themselves",
			 sw_name(m, f->sw), sw_name(m, f->parent),
			 f->kind == FIND_FAILED_UPLINK ? "fails" : "is slow", f->npairs,
			 f->kind == FIND_FAILED_UPLINK ? "failed or slow" : "slow");
	if (f->rail != UINT32_MAX)
		rail_text(m, f, f->rail);
	if (f->gbps > 0)
		text_add(f, ", the slow ones average %s Gb/s, %.0f%% of the median %s Gb/s", lm_gbps(f->gbps),
			 f->ratio * 100, lm_gbps(st->median));
	candidates_text(m, f);
}

/* The switch findings into @v, theirs to own now. */
static void switch_findings(struct lm_state *st, struct fvec *v)
{
	size_t i;

	for (i = 0; i < st->nswf; i++) {
		struct finding *f = find_add(v, st->swf[i].kind, UINT32_MAX, UINT32_MAX, st->swf[i].rail);

		if (!f)
			return;
		*f = st->swf[i];
		memset(&st->swf[i], 0, sizeof(st->swf[i]));
		switch_text(st, f);
	}
}

int linkmap_analyse(struct linkmap *m)
{
	struct lm_state st;
	struct fvec v = { 0 };
	int ret = lm_state_make(m, &st);

	if (ret)
		return ret;
	m->median_gbps = st.median;
	m->median_lat_us = st.median_lat;
	node_findings(&st, &v);
	link_findings(&st, &v);
	switch_findings(&st, &v);
	lm_state_free(&st);
	if (v.err) {
		while (v.n)
			linkmap_finding_release(&v.f[--v.n]);
		free(v.f);
		return v.err;
	}
	if (v.n)
		qsort(v.f, v.n, sizeof(*v.f), by_finding);
	while (m->nfind)
		linkmap_finding_release(&m->find[--m->nfind]);
	free(m->find);
	m->find = v.f;
	m->nfind = v.n;
	return 0;
}
