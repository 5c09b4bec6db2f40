/* SPDX-License-Identifier: MIT */
/*
 * What the link map's verdicts (linkmap_find.c), retests (linkmap_retest.c)
 * and report (linkmap_print.c) share: the links that count, the median
 * they are compared to, and what each node's links say.  Not for use
 * outside lib/mesh/linkmap*.c.
 */
#ifndef RDMACTL_LINKMAP_STATE_H
#define RDMACTL_LINKMAP_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mesh/linkmap.h"

#define NCAUSES (CAUSE_OTHER + 1)

/* One node's links (or one rail's of a node), both directions. */
struct nstat {
	uint32_t ok, slow, failed;	/* directed links */
	uint32_t okpart, failpart;	/* partners with an ok / a failed link */
	double sum;			/* Gb/s of the ok links */
	uint32_t cause[NCAUSES];	/* failed links by cause */
	uint32_t out_ok, out_slow;	/* ok links it wrote, and the slow ones of them */
	uint32_t in_ok, in_slow;	/* ok links it received */
	bool named;			/* slow node (node) or slow rail (rail) */
	enum nstat_dir { DIR_BOTH, DIR_OUT, DIR_IN } dir;	/* named: which of its links are slow */
	bool blocked;			/* every link failed, two partners or more */
	bool good;			/* measured, nothing failed, (almost) nothing slow, not down */
};

/*
 * A node slower than the uplink that explains its links across
 * (linkmap_switch.c): its links across the uplink of @sw (to @parent) on
 * @rail, @n of them, average @gbps, under --slow of @typical, the rate
 * the uplink's other slow links have.  The node is named all the same,
 * those links its own.
 */
struct lm_beyond {
	uint32_t node, rail, sw, parent;
	size_t n;
	double gbps, typical;
};

struct lm_state {
	const struct linkmap *m;
	/*
	 * Indexes into m->res of the results that count (the last of each
	 * directed link, no down node), sorted by pair, rail, then client.
	 */
	size_t *eff, neff;
	struct nstat *node;		/* [nodes] */
	struct nstat *rail;		/* [nodes * rails] */
	double median, median_lat;	/* median_lat < 0: no latency measured */
	/*
	 * With a topology: [neff] 1 + the index in swf of the switch finding
	 * that explains the link, 0 none (then NULL without one); the switch
	 * findings (lm_switches()), until linkmap_analyse() takes them.
	 */
	uint32_t *expl;
	struct finding *swf;
	size_t nswf;
	struct lm_beyond *beyond;	/* [nbeyond] */
	size_t nbeyond;
};

/* The link st->eff[@i] is explained by a switch finding. */
static inline bool lm_explained(const struct lm_state *st, size_t i)
{
	return st->expl && st->expl[i];
}

/*
 * The state of @m: the links that count, the medians, then (with a
 * topology) @switches' switch findings, whose links every node verdict
 * leaves out, then each node's counts.  0 or -ENOMEM.  lm_state_make()
 * (linkmap_switch.c) is it with the switch findings of linkmap_switch.c,
 * which in turn uses this file's helpers.
 */
int lm_state_build(const struct linkmap *m, struct lm_state *st, int (*switches)(struct lm_state *st));
int lm_state_make(const struct linkmap *m, struct lm_state *st);

/*
 * @gbps for a line of text: one decimal from 10 Gb/s up (a fabric's
 * rates), three significant digits below (an emulated or throttled link
 * at 0.0523 Gb/s must not read 0.1).  One of eight rotating buffers: at
 * most eight in one printf.
 */
const char *lm_gbps(double gbps);
void lm_state_free(struct lm_state *st);

static inline const struct link_result *lm_eff(const struct lm_state *st, size_t i)
{
	return &st->m->res[st->eff[i]];
}

bool lm_node_down(const struct linkmap *m, uint32_t node);
bool lm_slow(const struct lm_state *st, const struct link_result *r);
/*
 * A node's links say it is slow: every one of @ok links slow, or, against
 * four @partners or more, three in four (linkmap_state.c says why).
 */
bool lm_mostly_slow(uint32_t slow, uint32_t ok, uint32_t partners);
/* The median of @v (@n values, sorted here); @none when there is none. */
double lm_median(double *v, size_t n, double none);
/* The entry of @node in st->beyond, or NULL. */
const struct lm_beyond *lm_beyond_of(const struct lm_state *st, uint32_t node);
/* First index of st->eff past the group at @i: one pair, or (@by_rail) one pair's rail. */
size_t lm_group_end(const struct lm_state *st, size_t i, bool by_rail);

#endif
