// SPDX-License-Identifier: MIT
/*
 * The triage pattern (--pattern triage, see schedule.h): a few steps in
 * which every node writes to one partner and is written to by another at
 * the same time, so that each node is measured against many partners in
 * a number of steps that grows with log2 N, not N.
 *
 * Step j is a ring of stride s_j over the nodes in a shuffled order: the
 * node at place k writes to the node at place k + s_j (mod N).  Any
 * stride is a permutation, so every node is once a client and once a
 * server in the step.  Strides are distinct and no two add up to N, so a
 * node's K writes and K receptions go to 2K different partners and no
 * link is measured twice.  The order is shuffled (the hostlist's order is
 * often the racks' order) with a fixed seed: the same N gives the same
 * schedule every run, and a run can be compared with the last.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/schedule.h"

/* splitmix64: small, and the same numbers on every platform. */
static uint64_t next_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t ceil_log2(uint32_t n)
{
	uint32_t k = 0;

	while (k < 32 && (1ULL << k) < n)
		k++;
	return k;
}

uint32_t triage_steps(uint32_t nodes)
{
	uint32_t k = 2 * ceil_log2(nodes);

	return nodes < 2 ? 0 : k < nodes - 1 ? k : nodes - 1;
}

/*
 * @k distinct strides: first from 1..(N-1)/2 (no two add up to N), drawn
 * at random; a small N that needs more takes N/2 (a partner not met yet,
 * both ways at once), then the complements N - s (the other direction of
 * links measured one way).
 */
static int strides(uint32_t nodes, uint32_t k, uint64_t *seed, uint32_t *out)
{
	uint32_t half = (nodes - 1) / 2, i, n = 0;
	uint32_t *pool = malloc(((size_t)half + 1) * sizeof(*pool));

	if (!pool)
		return -ENOMEM;
	for (i = 0; i < half; i++)
		pool[i] = i + 1;
	for (i = 0; i < half && n < k; i++) {
		uint32_t j = i + (uint32_t)(next_rand(seed) % (half - i)), t = pool[i];

		pool[i] = pool[j];
		pool[j] = t;
		out[n++] = pool[i];
	}
	if (n < k && nodes % 2 == 0)
		out[n++] = nodes / 2;
	for (i = 0; i < half && n < k; i++)
		out[n++] = nodes - out[i];
	free(pool);
	return 0;
}

static void shuffle(uint32_t *v, uint32_t n, uint64_t *seed)
{
	uint32_t i, j, t;

	for (i = 0; i < n; i++)
		v[i] = i;
	for (i = n; i > 1; i--) {
		j = (uint32_t)(next_rand(seed) % i);
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

int triage_make(uint32_t nodes, struct schedule *s)
{
	uint32_t k = triage_steps(nodes), *order, *stride, j, p;
	uint64_t seed = 0x7269616765ULL ^ nodes;	/* fixed: one schedule for each N */
	int ret;

	order = malloc(((size_t)nodes + 1) * sizeof(*order));
	stride = malloc(((size_t)k + 1) * sizeof(*stride));
	s->steps = calloc((size_t)k + 1, sizeof(*s->steps));
	ret = order && stride && s->steps ? 0 : -ENOMEM;
	if (!ret) {
		shuffle(order, nodes, &seed);
		ret = strides(nodes, k, &seed, stride);
	}
	for (j = 0; !ret && j < k; j++) {
		struct sched_step *st = &s->steps[s->n];

		st->pairs = calloc(nodes, sizeof(*st->pairs));
		if (!st->pairs) {
			ret = -ENOMEM;
			break;
		}
		st->round = j + 1;
		st->n = nodes;
		s->n++;
		for (p = 0; p < nodes; p++) {
			st->pairs[p].client = order[p];
			st->pairs[p].server = order[(p + stride[j]) % nodes];
		}
	}
	s->rounds = k;
	free(order);
	free(stride);
	return ret;
}
