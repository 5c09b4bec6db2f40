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
#include "mesh/topology.h"

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

/* @k rings of distinct strides over the shuffled order, appended to @s. */
static int triage_rings(uint32_t nodes, uint32_t k, struct schedule *s)
{
	uint32_t *order, *stride, j, p;
	uint64_t seed = 0x7269616765ULL ^ nodes;	/* fixed: one schedule for each N */
	int ret;

	order = malloc(((size_t)nodes + 1) * sizeof(*order));
	stride = malloc(((size_t)k + 1) * sizeof(*stride));
	ret = order && stride ? 0 : -ENOMEM;
	if (!ret) {
		shuffle(order, nodes, &seed);
		ret = strides(nodes, k, &seed, stride);
	}
	for (j = 0; !ret && j < k; j++) {
		struct sched_step *st = schedule_step_add(s, (uint32_t)s->n + 1, nodes);

		if (!st) {
			ret = -ENOMEM;
			break;
		}
		for (p = 0; p < nodes; p++)
			schedule_pair_add(st, order[p], order[(p + stride[j]) % nodes]);
	}
	s->rounds = (uint32_t)s->n;
	free(order);
	free(stride);
	return ret;
}

int triage_make(uint32_t nodes, struct schedule *s)
{
	return triage_rings(nodes, triage_steps(nodes), s);
}

/* Steps inside every leaf of a tree: each node meets twice this many of its leaf. */
#define TRIAGE_INSIDE 4

/* Step @j inside the leaves: each leaf's ring of stride 1 + j, a leaf too small for it out. */
static int inside_step(struct schedule *s, const uint32_t *by_leaf, const uint32_t *start,
		       uint32_t nsw, uint32_t nodes, uint32_t j)
{
	struct sched_step *st = schedule_step_add(s, s->n + 1, nodes);
	uint32_t l, p;

	if (!st)
		return -ENOMEM;
	for (l = 0; l < nsw; l++) {
		uint32_t size = start[l + 1] - start[l];

		if (size < 2 || j + 1 >= size)
			continue;
		for (p = 0; p < size; p++)
			schedule_pair_add(st, by_leaf[start[l] + p], by_leaf[start[l] + (p + j + 1) % size]);
	}
	return 0;
}

/* The shuffled @order grouped by leaf (each leaf's nodes in @order's order); start[nsw + 1]. */
static int group_by_leaf(const struct topology *t, const uint32_t *order, uint32_t nodes,
			 uint32_t *by_leaf, uint32_t *start)
{
	uint32_t *fill = calloc((size_t)t->nsw + 1, sizeof(*fill)), l, p;

	if (!fill)
		return -ENOMEM;
	memset(start, 0, ((size_t)t->nsw + 1) * sizeof(*start));
	for (p = 0; p < nodes; p++)
		start[t->leaf[p] + 1]++;
	for (l = 0; l < t->nsw; l++)
		start[l + 1] += start[l];
	memcpy(fill, start, (size_t)t->nsw * sizeof(*fill));
	for (p = 0; p < nodes; p++)
		by_leaf[fill[t->leaf[order[p]]]++] = order[p];
	free(fill);
	return 0;
}

uint32_t triage_inside_steps(uint32_t nodes, const struct topology *t)
{
	uint32_t *size = calloc((size_t)t->nsw + 1, sizeof(*size)), v, big = 0;

	if (!size)
		return 0;
	for (v = 0; v < nodes; v++)
		if (++size[t->leaf[v]] > big)
			big = size[t->leaf[v]];
	free(size);
	if (triage_steps(nodes) >= nodes - 1 || big < 2)
		return 0;
	return big - 1 < TRIAGE_INSIDE ? big - 1 : TRIAGE_INSIDE;
}

int triage_topo_make(uint32_t nodes, const struct topology *t, struct schedule *s)
{
	uint32_t k = triage_steps(nodes), kin = triage_inside_steps(nodes, t), *order, *by_leaf, *start, j;
	uint64_t seed = 0x7269616765ULL ^ nodes;
	int ret;

	memset(s, 0, sizeof(*s));
	if (nodes < 2)
		return -EINVAL;
	s->nodes = nodes;
	if (!kin)
		return triage_make(nodes, s);
	/* The rings across the tree first: the triage's own, fewer of them. */
	ret = triage_rings(nodes, k - kin, s);
	order = malloc(((size_t)nodes + 1) * sizeof(*order));
	by_leaf = malloc(((size_t)nodes + 1) * sizeof(*by_leaf));
	start = malloc(((size_t)t->nsw + 2) * sizeof(*start));
	if (!ret && (!order || !by_leaf || !start))
		ret = -ENOMEM;
	if (!ret) {
		shuffle(order, nodes, &seed);
		ret = group_by_leaf(t, order, nodes, by_leaf, start);
	}
	for (j = 0; !ret && j < kin; j++)
		ret = inside_step(s, by_leaf, start, t->nsw, nodes, j);
	s->rounds = (uint32_t)s->n;
	free(order);
	free(by_leaf);
	free(start);
	if (ret)
		schedule_free(s);
	return ret;
}
