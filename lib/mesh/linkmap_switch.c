// SPDX-License-Identifier: MIT
/*
 * The switch findings of a link map with a topology (linkmap.h, topology.h):
 * a leaf switch or a switch's uplink that explains slow and failed links
 * better than the nodes do.  Each rail on its own (a rail-optimised
 * fabric has a tree per rail); a finding on every rail is one finding.
 *
 * A bad uplink of switch X slows the links with one end below X and
 * leaves those inside alone; with ECMP over several spines only the flows
 * hashed onto the bad cable, so a fraction of them.  So an uplink is
 * judged by the share of bad links crossing it against the share among
 * links inside leaves (which cross no uplink: the background of noise;
 * a node bad toward every partner is no noise, its links left out),
 * and the badness must be spread over two nodes below X or more: one node
 * alone could be that node.  In order, per rail:
 *
 *  0. a leaf switch whose nodes are slow among themselves, three nodes or
 *     more and two in three of those measured inside it: slow_switch, and
 *     every bad link of its nodes is its;
 *  1. the uplinks that stand out over all links: suspects;
 *  2. the nodes slow on the links that cross no suspect (two partners or
 *     more): their links are left to the node findings, never a switch's;
 *  3. then, greedily, the uplink that explains the most bad links left
 *     (the fewest elements): slow_uplink or failed_uplink, its bad links
 *     its own; again until none stands out;
 *  4. a node beside a slow uplink that is slow too: its links across are
 *     slow for the uplink already, so their rate tells it, not whether
 *     they are slow (step_beyond() below).
 *
 * The links a switch finding explains are left out of every node and link
 * verdict (linkmap_state.c): a node under a bad uplink is not a slow node.
 * Uplinks that cut the measured nodes in the same two parts (two leaves
 * under one spine) explain the same links: the finding lists them all as
 * candidates and names none before the others.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/linkmap.h"
#include "mesh/linkmap_state.h"
#include "mesh/topology.h"

/* An uplink stands out at this share of bad links over the background, or 4 sigma. */
#define UPLINK_MARGIN 0.10

struct swrun {
	struct lm_state *st;
	const struct topology *t;
	uint32_t rail;
	uint32_t nodes, nsw, depth;	/* depth: the deepest switch + 1 */
	bool *leaf_slow;		/* [nsw] */
	bool *suspect;			/* [nsw] uplinks (step 1) */
	bool *node_slow;		/* [nodes] step 2 */
	bool *measured;			/* [nodes] a link on this rail */
	size_t *tot, *bad, *failed;	/* [nsw] links crossing the uplink */
	uint32_t *spread;		/* [nsw] nodes below with a bad crossing link */
	uint32_t *nbad;			/* [nodes * depth] a node's bad links through its ancestor at a depth */
	uint32_t *far;			/* [nsw] the far end most bad crossing links share (where nfar) */
	size_t *nfar;			/* [nsw] the bad crossing links of far[] */
	size_t *nbadv;			/* [nodes] a node's bad links, all counted */
	double p0;			/* the background: bad share of links inside leaves */
	struct finding *f;		/* found, all rails */
	size_t nf, cap;
	struct lm_beyond *beyond;	/* step 4, all rails */
	size_t nbeyond;
};

static bool bad_link(const struct lm_state *st, const struct link_result *r)
{
	return !r->ok || lm_slow(st, r);
}

static uint32_t leaf_of(const struct swrun *w, uint32_t v)
{
	return w->t->leaf[v];
}

static bool on_rail(const struct swrun *w, size_t i)
{
	return lm_eff(w->st, i)->rail == w->rail;
}

/* ---- nodes bad toward their partners (step 0's background, step 2) ---- */

static bool crosses_suspect(const struct swrun *w, const struct link_result *r)
{
	uint32_t top = topology_common(w->t, leaf_of(w, r->client), leaf_of(w, r->server)), s;

	for (s = leaf_of(w, r->client); s != top; s = w->t->sw[s].parent)
		if (w->suspect[s])
			return true;
	for (s = leaf_of(w, r->server); s != top; s = w->t->sw[s].parent)
		if (w->suspect[s])
			return true;
	return false;
}

/*
 * The two ways a node's partners are judged: for the leaves' background,
 * bad toward every partner, over all its pairs; for step 2, mostly bad
 * (lm_mostly_slow()), over the pairs that cross no suspect uplink.
 */
enum partners_rule {
	PARTNERS_EVERY_BAD,
	PARTNERS_MOSTLY_BAD_PAST_SUSPECTS,
};

/*
 * Per pair (both directions one partner, as linkmap_state.c counts
 * partners) on this rail, a pair bad when a link of it is: into @out, the
 * nodes of two partners or more that @rule calls bad.  0 or -ENOMEM.
 */
static int partners_judge(const struct swrun *w, enum partners_rule rule, bool *out)
{
	uint32_t *part = calloc(w->nodes + 1, sizeof(*part)), *bpart = calloc(w->nodes + 1, sizeof(*bpart));
	size_t i, j, end;
	uint32_t v;

	if (!part || !bpart) {
		free(part);
		free(bpart);
		return -ENOMEM;
	}
	for (i = 0; i < w->st->neff; i = end) {
		const struct link_result *r = lm_eff(w->st, i);
		bool bad = false;

		end = lm_group_end(w->st, i, true);
		if (r->rail != w->rail || (rule == PARTNERS_MOSTLY_BAD_PAST_SUSPECTS && crosses_suspect(w, r)))
			continue;
		for (j = i; j < end; j++)
			bad |= bad_link(w->st, lm_eff(w->st, j));
		part[r->client]++, part[r->server]++;
		bpart[r->client] += bad, bpart[r->server] += bad;
	}
	for (v = 0; v < w->nodes; v++)
		out[v] = part[v] >= 2 &&
			 (rule == PARTNERS_EVERY_BAD ? bpart[v] == part[v]
						       : lm_mostly_slow(bpart[v], part[v], part[v]));
	free(part);
	free(bpart);
	return 0;
}

/* ---- step 0: leaf switches ---- */

/*
 * The slow leaf switches, the nodes measured on the rail, the background
 * p0: the bad share of the links inside leaves, but a slow leaf's and
 * those of a node bad toward every partner (one slow node of a leaf of
 * two would make the background its one link: half the links inside two
 * such leaves, and no uplink would stand out over it).  0 or -ENOMEM.
 */
static int leaves_judge(struct swrun *w)
{
	uint32_t *tot = calloc(w->nodes + 1, sizeof(*tot)), *bad = calloc(w->nodes + 1, sizeof(*bad));
	uint32_t *meas = calloc(w->nsw + 1, sizeof(*meas)), *slow = calloc(w->nsw + 1, sizeof(*slow));
	bool *own = calloc(w->nodes + 1, sizeof(*own));
	size_t i, in_tot = 0, in_bad = 0;
	uint32_t v, s;
	int ret = -ENOMEM;

	if (!tot || !bad || !meas || !slow || !own || partners_judge(w, PARTNERS_EVERY_BAD, own))
		goto out;
	ret = 0;
	for (i = 0; i < w->st->neff; i++) {
		const struct link_result *r = lm_eff(w->st, i);

		w->measured[r->client] |= r->rail == w->rail;
		w->measured[r->server] |= r->rail == w->rail;
		if (r->rail != w->rail || leaf_of(w, r->client) != leaf_of(w, r->server))
			continue;
		tot[r->client]++, tot[r->server]++;
		bad[r->client] += bad_link(w->st, r);
		bad[r->server] += bad_link(w->st, r);
	}
	for (v = 0; v < w->nodes; v++) {
		meas[leaf_of(w, v)] += tot[v] >= 2;
		slow[leaf_of(w, v)] += tot[v] >= 2 && bad[v] * 4 >= tot[v] * 3;
	}
	for (s = 0; s < w->nsw; s++)
		w->leaf_slow[s] = slow[s] >= 3 && slow[s] * 3 >= meas[s] * 2;
	for (i = 0; i < w->st->neff; i++) {
		const struct link_result *r = lm_eff(w->st, i);

		if (r->rail != w->rail || leaf_of(w, r->client) != leaf_of(w, r->server) ||
		    w->leaf_slow[leaf_of(w, r->client)] || own[r->client] || own[r->server])
			continue;
		in_tot++;
		in_bad += bad_link(w->st, r);
	}
	w->p0 = in_tot ? (double)in_bad / (double)in_tot : 0;
out:
	free(tot);
	free(bad);
	free(meas);
	free(slow);
	free(own);
	return ret;
}

/* ---- what crosses each uplink ---- */

/* The link counts for uplinks when it is not explained and no end is left to the nodes. */
static bool counts(const struct swrun *w, size_t i)
{
	const struct link_result *r = lm_eff(w->st, i);

	return on_rail(w, i) && !w->st->expl[i] && !w->node_slow[r->client] && !w->node_slow[r->server] &&
	       !w->leaf_slow[leaf_of(w, r->client)] && !w->leaf_slow[leaf_of(w, r->server)];
}

/* Vote (Boyer-Moore: the one with most of them, if any) or count far end @f of a bad link crossing @s. */
static void far_add(struct swrun *w, uint32_t s, uint32_t f, bool vote)
{
	if (!vote)
		w->nfar[s] += w->far[s] == f;
	else if (w->nfar[s] == 0)
		w->far[s] = f, w->nfar[s] = 1;
	else if (w->far[s] == f)
		w->nfar[s]++;
	else
		w->nfar[s]--;
}

/*
 * far[s]: the node beyond uplink s that most of its bad crossing links
 * share, nfar[s] how many; nbadv: each node's bad links. Two passes over
 * the links, a vote then a count.
 */
static void far_ends(struct swrun *w)
{
	size_t i;
	int pass;
	uint32_t s, top;

	memset(w->nfar, 0, w->nsw * sizeof(*w->nfar));
	memset(w->nbadv, 0, w->nodes * sizeof(*w->nbadv));
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < w->st->neff; i++) {
			const struct link_result *r = lm_eff(w->st, i);

			if (!counts(w, i) || !bad_link(w->st, r))
				continue;
			top = topology_common(w->t, leaf_of(w, r->client), leaf_of(w, r->server));
			for (s = leaf_of(w, r->client); s != top; s = w->t->sw[s].parent)
				far_add(w, s, r->server, pass == 0);
			for (s = leaf_of(w, r->server); s != top; s = w->t->sw[s].parent)
				far_add(w, s, r->client, pass == 0);
			if (pass == 1)
				w->nbadv[r->client]++, w->nbadv[r->server]++;
		}
		if (pass == 0)
			memset(w->nfar, 0, w->nsw * sizeof(*w->nfar));
	}
}

/* Add link @i to the uplinks from @v's leaf up to (not with) @top. */
static void climb(struct swrun *w, uint32_t v, uint32_t top, bool bad, bool failed)
{
	uint32_t s;

	for (s = leaf_of(w, v); s != top; s = w->t->sw[s].parent) {
		w->tot[s]++;
		w->bad[s] += bad;
		w->failed[s] += failed;
		w->nbad[(size_t)v * w->depth + w->t->sw[s].depth] += bad;
	}
}

static void tally(struct swrun *w)
{
	size_t i;
	uint32_t v, s;

	memset(w->tot, 0, w->nsw * sizeof(*w->tot));
	memset(w->bad, 0, w->nsw * sizeof(*w->bad));
	memset(w->failed, 0, w->nsw * sizeof(*w->failed));
	memset(w->spread, 0, w->nsw * sizeof(*w->spread));
	memset(w->nbad, 0, (size_t)w->nodes * w->depth * sizeof(*w->nbad));
	for (i = 0; i < w->st->neff; i++) {
		const struct link_result *r = lm_eff(w->st, i);
		uint32_t top;
		bool bad;

		if (!counts(w, i))
			continue;
		top = topology_common(w->t, leaf_of(w, r->client), leaf_of(w, r->server));
		bad = bad_link(w->st, r);
		climb(w, r->client, top, bad, !r->ok);
		climb(w, r->server, top, bad, !r->ok);
	}
	for (v = 0; v < w->nodes; v++)
		for (s = leaf_of(w, v); s != w->t->root; s = w->t->sw[s].parent)
			w->spread[s] += w->nbad[(size_t)v * w->depth + w->t->sw[s].depth] > 0;
	far_ends(w);
}

/*
 * The uplink of @s stands out over the background, spread over two nodes
 * or more below it, and not one node's beyond it: a node that three in
 * four of its bad links share and that is bad on a link not crossing it
 * too explains them (a slow node alone under its leaf is slow toward
 * every other leaf; the node is named).
 */
static bool stands_out(const struct swrun *w, uint32_t s)
{
	double p, sigma;

	if (s == w->t->root || w->bad[s] < 2 || w->spread[s] < 2)
		return false;
	if (w->nfar[s] * 4 >= w->bad[s] * 3 && w->nbadv[w->far[s]] > w->nfar[s])
		return false;
	p = (double)w->bad[s] / (double)w->tot[s];
	sigma = sqrt(w->p0 * (1 - w->p0) / (double)w->tot[s]);
	return p >= w->p0 + (4 * sigma > UPLINK_MARGIN ? 4 * sigma : UPLINK_MARGIN);
}

/* ---- the findings ---- */

static struct finding *swf_add(struct swrun *w, enum finding_kind k, uint32_t s)
{
	struct finding *f;

	if (w->nf == w->cap) {
		size_t cap = w->cap * 2 + 8;
		struct finding *nf = realloc(w->f, cap * sizeof(*nf));

		if (!nf)
			return NULL;
		w->f = nf;
		w->cap = cap;
	}
	f = &w->f[w->nf++];
	memset(f, 0, sizeof(*f));
	f->kind = k;
	f->failure = true;
	f->node = f->peer = UINT32_MAX;
	f->rail = w->rail;
	f->sw = s;
	f->parent = TOPO_NONE;
	return f;
}

static int pair_add(struct finding *f, size_t res)
{
	if (!(f->npairs & (f->npairs + 1)) || !f->pairs) {
		size_t *np = realloc(f->pairs, (f->npairs * 2 + 2) * sizeof(*np));

		if (!np)
			return -ENOMEM;
		f->pairs = np;
	}
	f->pairs[f->npairs++] = res;
	return 0;
}

/* Average Gb/s of the slow links of @f, and its ratio to the median. */
static void rate_of(const struct lm_state *st, struct finding *f)
{
	double sum = 0;
	size_t i, n = 0;

	for (i = 0; i < f->npairs; i++)
		if (st->m->res[f->pairs[i]].ok)
			sum += st->m->res[f->pairs[i]].gbps, n++;
	f->gbps = n ? sum / (double)n : 0;
	f->ratio = n && st->median > 0 ? f->gbps / st->median : 0;
}

/* Every measured node is below @a exactly when it is below @b, or exactly when it is not. */
static bool same_cut(const struct swrun *w, uint32_t a, uint32_t b)
{
	bool same = true, other = true;
	uint32_t v;

	for (v = 0; v < w->nodes && (same || other); v++) {
		bool x, y;

		if (!w->measured[v])
			continue;
		x = topology_under(w->t, leaf_of(w, v), a);
		y = topology_under(w->t, leaf_of(w, v), b);
		same &= x == y;
		other &= x != y;
	}
	return same || other;
}

static int candidates(struct swrun *w, struct finding *f)
{
	uint32_t s;

	for (s = 0; s < w->nsw; s++) {
		uint32_t *nc;

		if (s == w->t->root || (s != f->sw && !same_cut(w, f->sw, s)))
			continue;
		nc = realloc(f->cand, (f->ncand + 1) * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		f->cand = nc;
		f->cand[f->ncand++] = s;
	}
	return 0;
}

/* The bad links that count and cross the uplink of @s: explained by finding @idx. */
static int explain_uplink(struct swrun *w, struct finding *f, size_t idx)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < w->st->neff; i++) {
		const struct link_result *r = lm_eff(w->st, i);
		bool ca, cb;

		if (!counts(w, i) || !bad_link(w->st, r))
			continue;
		ca = topology_under(w->t, leaf_of(w, r->client), f->sw);
		cb = topology_under(w->t, leaf_of(w, r->server), f->sw);
		if (ca == cb)
			continue;
		w->st->expl[i] = (uint32_t)idx + 1;
		ret = pair_add(f, w->st->eff[i]);
	}
	return ret;
}

static int explain_leaf(struct swrun *w, struct finding *f, size_t idx)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < w->st->neff; i++) {
		const struct link_result *r = lm_eff(w->st, i);

		if (!on_rail(w, i) || w->st->expl[i] || !bad_link(w->st, r) ||
		    (leaf_of(w, r->client) != f->sw && leaf_of(w, r->server) != f->sw))
			continue;
		w->st->expl[i] = (uint32_t)idx + 1;
		ret = pair_add(f, w->st->eff[i]);
	}
	return ret;
}

static int leaf_findings(struct swrun *w)
{
	uint32_t s;
	int ret = 0;

	for (s = 0; !ret && s < w->nsw; s++) {
		struct finding *f;

		if (!w->leaf_slow[s])
			continue;
		if (!(f = swf_add(w, FIND_SLOW_SWITCH, s)))
			return -ENOMEM;
		ret = explain_leaf(w, f, w->nf - 1);
		rate_of(w->st, f);
	}
	return ret;
}

/* The uplink that explains the most bad links left (then the purest), or TOPO_NONE. */
static uint32_t best_uplink(const struct swrun *w)
{
	uint32_t s, best = TOPO_NONE;

	for (s = 0; s < w->nsw; s++) {
		if (!stands_out(w, s))
			continue;
		if (best == TOPO_NONE || w->bad[s] > w->bad[best] ||
		    (w->bad[s] == w->bad[best] && w->bad[s] * w->tot[best] > w->bad[best] * w->tot[s]))
			best = s;
	}
	return best;
}

static int uplink_findings(struct swrun *w)
{
	uint32_t s, n;
	int ret = 0;

	for (n = 0; !ret && n < w->nsw; n++) {
		struct finding *f;

		tally(w);
		if ((s = best_uplink(w)) == TOPO_NONE)
			break;
		if (!(f = swf_add(w, w->failed[s] * 2 >= w->bad[s] ? FIND_FAILED_UPLINK : FIND_SLOW_UPLINK, s)))
			return -ENOMEM;
		f->parent = w->t->sw[s].parent;
		ret = candidates(w, f) ?: explain_uplink(w, f, w->nf - 1);
		rate_of(w->st, f);
		if (f->kind == FIND_FAILED_UPLINK)
			f->cause = CAUSE_TIMEOUT;
	}
	return ret;
}

/* ---- step 4: a node slower than the uplink explains ---- */

/*
 * The suspects: nodes whose links no switch finding explains are mostly
 * slow (lm_mostly_slow(); one partner is enough here: the links across
 * the uplink say the rest).  A healthy node beside a slow uplink is fine
 * on its other links, however slow its links across are.
 */
static int suspects_judge(struct swrun *w, bool *sus)
{
	uint32_t *ok = calloc(w->nodes + 1, sizeof(*ok)), *slow = calloc(w->nodes + 1, sizeof(*slow));
	uint32_t *part = calloc(w->nodes + 1, sizeof(*part)), v;
	size_t i, j, end;

	if (!ok || !slow || !part) {
		free(ok);
		free(slow);
		free(part);
		return -ENOMEM;
	}
	for (i = 0; i < w->st->neff; i = end) {
		const struct link_result *r = lm_eff(w->st, i);
		bool any = false;

		end = lm_group_end(w->st, i, true);
		if (r->rail != w->rail)
			continue;
		for (j = i; j < end; j++) {
			r = lm_eff(w->st, j);
			if (w->st->expl[j] || !r->ok)
				continue;
			any = true;
			ok[r->client]++, ok[r->server]++;
			slow[r->client] += lm_slow(w->st, r);
			slow[r->server] += lm_slow(w->st, r);
		}
		part[r->client] += any, part[r->server] += any;
	}
	for (v = 0; v < w->nodes; v++)
		sus[v] = lm_mostly_slow(slow[v], ok[v], part[v]);
	free(ok);
	free(slow);
	free(part);
	return 0;
}

static bool touches(const struct link_result *r, uint32_t v)
{
	return r->client == v || r->server == v;
}

/*
 * The median Gb/s of the ok links finding @idx explains that touch
 * neither @v (UINT32_MAX: none) nor, with @sus, a suspect; -1 when
 * there is none.  @vals: room for them all.
 */
static double typical_rate(const struct swrun *w, size_t idx, uint32_t v, const bool *sus, double *vals)
{
	size_t i, n = 0;

	for (i = 0; i < w->st->neff; i++) {
		const struct link_result *r = lm_eff(w->st, i);

		if (w->st->expl[i] != idx + 1 || !r->ok || touches(r, v) ||
		    (sus && (sus[r->client] || sus[r->server])))
			continue;
		vals[n++] = r->gbps;
	}
	return n ? lm_median(vals, n, 0) : -1;
}

/*
 * Suspect @v's links explained by uplink finding @idx against the rate
 * the uplink alone gives: @typical, the median of its links touching no
 * suspect (typical_rate()), or, when it is -1 (each touches one: two
 * suspects, one of them slow on its link to the other only), the median
 * of all but @v's.  Beyond when they are mostly under --slow of that, two
 * partners across or more; into @b.
 */
static bool beyond_judge(const struct swrun *w, size_t idx, uint32_t v, double typical, double *vals,
			 struct lm_beyond *b)
{
	const struct finding *f = &w->f[idx];
	size_t i, j, end;
	uint32_t ok = 0, slow = 0, part = 0;
	double sum = 0;

	if (typical < 0 && (typical = typical_rate(w, idx, v, NULL, vals)) < 0)
		return false;
	*b = (struct lm_beyond){ .node = v, .rail = w->rail, .sw = f->sw, .parent = f->parent,
				 .typical = typical };
	for (i = 0; i < w->st->neff; i = end) {
		bool any = false;

		end = lm_group_end(w->st, i, true);
		for (j = i; j < end; j++) {
			const struct link_result *r = lm_eff(w->st, j);

			if (w->st->expl[j] != idx + 1 || !r->ok || !touches(r, v))
				continue;
			any = true;
			ok++;
			slow += r->gbps < w->st->m->slow * b->typical;
			sum += r->gbps;
		}
		part += any;
	}
	b->n = ok;
	b->gbps = ok ? sum / ok : 0;
	return part >= 2 && lm_mostly_slow(slow, ok, part);
}

static int beyond_add(struct swrun *w, const struct lm_beyond *b)
{
	struct lm_beyond *nb = realloc(w->beyond, (w->nbeyond + 1) * sizeof(*nb));

	if (!nb)
		return -ENOMEM;
	w->beyond = nb;
	w->beyond[w->nbeyond++] = *b;
	return 0;
}

/*
 * The links of the nodes @hit of uplink finding @idx are theirs, not the
 * uplink's: no longer explained, out of its pairs (and its rate).  0,
 * -ENOMEM, or 1 with nothing done when that would leave it none.
 */
static int beyond_take(struct swrun *w, size_t idx, const bool *hit)
{
	struct finding *f = &w->f[idx];
	size_t i, left = 0;
	int ret = 0;

	for (i = 0; i < w->st->neff; i++)
		left += w->st->expl[i] == idx + 1 && !hit[lm_eff(w->st, i)->client] &&
			!hit[lm_eff(w->st, i)->server];
	if (!left)
		return 1;
	f->npairs = 0;
	for (i = 0; !ret && i < w->st->neff; i++) {
		const struct link_result *r = lm_eff(w->st, i);

		if (w->st->expl[i] != idx + 1)
			continue;
		if (hit[r->client] || hit[r->server])
			w->st->expl[i] = 0;
		else
			ret = pair_add(f, w->st->eff[i]);
	}
	rate_of(w->st, f);
	return ret;
}

/*
 * Step 4, for the slow uplinks found on this rail from finding @first: a
 * node slow on its other links whose links across one of them are slower
 * than the uplink explains (under --slow of its typical rate) is a slow
 * node as well, those links its.  A node no slower than the uplink
 * explains is never named; a node slow on its links toward the one other
 * suspect alone still cannot be told from it (a slow link, both ends).
 */
static int step_beyond(struct swrun *w, size_t first)
{
	bool *sus = calloc(w->nodes + 1, sizeof(*sus)), *hit = calloc(w->nodes + 1, sizeof(*hit));
	double *vals = malloc((w->st->neff + 1) * sizeof(*vals));
	size_t k, nb0;
	uint32_t v;
	int ret = -ENOMEM;

	if (!sus || !hit || !vals || (ret = suspects_judge(w, sus)))
		goto out;
	for (k = first; !ret && k < w->nf; k++) {
		struct lm_beyond b;
		bool any = false, have = false;
		double typical = -1;

		if (w->f[k].kind != FIND_SLOW_UPLINK)
			continue;
		nb0 = w->nbeyond;
		memset(hit, 0, w->nodes * sizeof(*hit));
		for (v = 0; !ret && v < w->nodes; v++) {
			if (!sus[v])
				continue;
			/* The same for every suspect (its links touch one): once, at the first. */
			if (!have)
				typical = typical_rate(w, k, UINT32_MAX, sus, vals), have = true;
			if (beyond_judge(w, k, v, typical, vals, &b)) {
				hit[v] = any = true;
				ret = beyond_add(w, &b);
			}
		}
		if (!ret && any && (ret = beyond_take(w, k, hit)) > 0) {
			w->nbeyond = nb0;	/* every link its nodes': the uplink's finding stands */
			ret = 0;
		}
	}
out:
	free(sus);
	free(hit);
	free(vals);
	return ret;
}

static int rail_run(struct swrun *w)
{
	size_t first;
	uint32_t s;
	int ret;

	memset(w->leaf_slow, 0, w->nsw * sizeof(*w->leaf_slow));
	memset(w->node_slow, 0, w->nodes * sizeof(*w->node_slow));
	memset(w->measured, 0, w->nodes * sizeof(*w->measured));
	ret = leaves_judge(w) ?: leaf_findings(w);
	if (ret)
		return ret;
	tally(w);
	for (s = 0; s < w->nsw; s++)
		w->suspect[s] = stands_out(w, s);
	first = w->nf;
	/* Step 2: the nodes slow on the links that cross no suspect. */
	ret = partners_judge(w, PARTNERS_MOSTLY_BAD_PAST_SUSPECTS, w->node_slow);
	return ret ?: uplink_findings(w) ?: step_beyond(w, first);
}

static void swrun_free(struct swrun *w)
{
	free(w->leaf_slow);
	free(w->suspect);
	free(w->node_slow);
	free(w->measured);
	free(w->tot);
	free(w->bad);
	free(w->failed);
	free(w->spread);
	free(w->nbad);
	free(w->far);
	free(w->nfar);
	free(w->nbadv);
}

/*
 * One finding of @k and switch @s on every rail: merged into one, its
 * rail UINT32_MAX (every rail) and the pairs of all of them.
 */
static void rails_merge(struct lm_state *st, struct swrun *w)
{
	size_t i, j, k;
	uint32_t rails = st->m->rails;

	for (i = 0; i < w->nf; i++) {
		size_t same = 1;

		for (j = i + 1; j < w->nf; j++)
			same += w->f[j].kind == w->f[i].kind && w->f[j].sw == w->f[i].sw;
		if (same != rails)
			continue;
		for (j = i + 1; j < w->nf;) {
			if (w->f[j].kind != w->f[i].kind || w->f[j].sw != w->f[i].sw) {
				j++;
				continue;
			}
			for (k = 0; k < w->f[j].npairs; k++)
				if (pair_add(&w->f[i], w->f[j].pairs[k]))
					break;
			for (k = 0; k < st->neff; k++)
				if (st->expl[k] == j + 1)
					st->expl[k] = (uint32_t)i + 1;
				else if (st->expl[k] > j + 1)
					st->expl[k]--;
			linkmap_finding_release(&w->f[j]);
			memmove(&w->f[j], &w->f[j + 1], (w->nf - j - 1) * sizeof(*w->f));
			w->nf--;
		}
		w->f[i].rail = UINT32_MAX;
		rate_of(st, &w->f[i]);
	}
}

/* The switch findings of st->m->topo: 0 or -ENOMEM. */
static int lm_switches(struct lm_state *st)
{
	const struct topology *t = st->m->topo;
	struct swrun w = { .st = st, .t = t, .nodes = st->m->nodes, .nsw = t->nsw };
	uint32_t s;
	int ret;

	for (s = 0; s < t->nsw; s++)
		if (t->sw[s].depth + 1 > w.depth)
			w.depth = t->sw[s].depth + 1;
	st->expl = calloc(st->neff + 1, sizeof(*st->expl));
	w.leaf_slow = calloc(w.nsw + 1, sizeof(bool));
	w.suspect = calloc(w.nsw + 1, sizeof(bool));
	w.node_slow = calloc(w.nodes + 1, sizeof(bool));
	w.measured = calloc(w.nodes + 1, sizeof(bool));
	w.tot = calloc(w.nsw + 1, sizeof(size_t));
	w.bad = calloc(w.nsw + 1, sizeof(size_t));
	w.failed = calloc(w.nsw + 1, sizeof(size_t));
	w.spread = calloc(w.nsw + 1, sizeof(uint32_t));
	w.nbad = calloc((size_t)w.nodes * w.depth + 1, sizeof(uint32_t));
	w.far = calloc(w.nsw + 1, sizeof(uint32_t));
	w.nfar = calloc(w.nsw + 1, sizeof(size_t));
	w.nbadv = calloc(w.nodes + 1, sizeof(size_t));
	ret = st->expl && w.leaf_slow && w.suspect && w.node_slow && w.measured && w.tot && w.bad &&
	      w.failed && w.spread && w.nbad && w.far && w.nfar && w.nbadv ? 0 : -ENOMEM;
	for (w.rail = 0; !ret && w.rail < st->m->rails; w.rail++)
		ret = rail_run(&w);
	if (!ret)
		rails_merge(st, &w);
	swrun_free(&w);
	st->swf = w.f;
	st->nswf = w.nf;
	st->beyond = w.beyond;
	st->nbeyond = w.nbeyond;
	return ret;
}

int lm_state_make(const struct linkmap *m, struct lm_state *st)
{
	return lm_state_build(m, st, lm_switches);
}
