// SPDX-License-Identifier: MIT
/*
 * The schedules of the patterns (see schedule.h): pairs, ring and quick
 * made here, triage's rings by triage.c.  Apart from schedule.c, which only
 * names, frees and encodes a schedule, so that the triage's maker (which
 * fills a struct schedule) and the dispatch that calls it are not each
 * other's callers.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/schedule.h"

/* The B->A step of a round whose A->B step is @fwd. */
static int reverse_step(struct schedule *s, size_t fwd)
{
	struct sched_step *rev = schedule_step_add(s, s->steps[fwd].round, s->steps[fwd].n);
	size_t i;

	if (!rev)
		return -ENOMEM;
	for (i = 0; i < s->steps[fwd].n; i++)
		schedule_pair_add(rev, s->steps[fwd].pairs[i].server, s->steps[fwd].pairs[i].client);
	return 0;
}

/*
 * The circle method: node 0 stays, the others turn one place a round, and
 * position k meets position m-1-k.  With N odd a phantom node N makes m
 * even; whoever meets it sits the round out (a bye), so there are N
 * rounds instead of N-1.
 */
static int make_pairs(uint32_t nodes, struct schedule *s)
{
	uint32_t m = nodes + (nodes & 1), r, k;

	for (r = 0; r + 1 < m; r++) {
		struct sched_step *st = schedule_step_add(s, r + 1, m / 2);

		if (!st)
			return -ENOMEM;
		for (k = 0; k < m / 2; k++) {
			uint32_t a = k ? 1 + (k - 1 + r) % (m - 1) : 0;
			uint32_t b = 1 + (m - 2 - k + r) % (m - 1);

			if (a < nodes && b < nodes)
				schedule_pair_add(st, a, b);
		}
		if (reverse_step(s, s->n - 1))
			return -ENOMEM;
	}
	s->rounds = m - 1;
	return 0;
}

/* Every node writes to the next at once: a ring all-reduce's traffic. */
static int make_ring(uint32_t nodes, struct schedule *s)
{
	struct sched_step *st = schedule_step_add(s, 1, nodes);
	uint32_t i;

	if (!st)
		return -ENOMEM;
	/* Two nodes: 0->1 and 1->0, each node once a client and once a server. */
	for (i = 0; i < nodes; i++)
		schedule_pair_add(st, i, (i + 1) % nodes);
	s->rounds = 1;
	return 0;
}

/*
 * Node i of the first half with node i + ceil(N/2): one round, both ways.
 * With N odd the middle node, N/2, has no partner and sits out.
 */
static int make_quick(uint32_t nodes, struct schedule *s)
{
	struct sched_step *st = schedule_step_add(s, 1, nodes / 2);
	uint32_t i;

	if (!st)
		return -ENOMEM;
	for (i = 0; i < nodes / 2; i++)
		schedule_pair_add(st, i, i + (nodes + 1) / 2);
	s->rounds = 1;
	return reverse_step(s, 0);
}

int schedule_make(enum pattern p, uint32_t nodes, struct schedule *s)
{
	int ret;

	memset(s, 0, sizeof(*s));
	if (nodes < 2)
		return -EINVAL;
	s->nodes = nodes;
	switch (p) {
	case PATTERN_PAIRS:
		ret = make_pairs(nodes, s);
		break;
	case PATTERN_RING:
		ret = make_ring(nodes, s);
		break;
	case PATTERN_QUICK:
		ret = make_quick(nodes, s);
		break;
	case PATTERN_TRIAGE:
		ret = triage_make(nodes, s);
		break;
	default:
		ret = -EINVAL;
	}
	if (ret)
		schedule_free(s);
	return ret;
}
