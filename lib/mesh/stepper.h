/* SPDX-License-Identifier: MIT */
/*
 * The cluster probe's run, whoever carries out its tests: the schedule's
 * steps one after the other, then the retests their results call for
 * (linkmap_retests()).  The coordinator (coord.c) carries out a step
 * through the nodes' agents; a model of a fabric (simfabric.h) carries it
 * out in memory, so what a run decides can be measured at any size with
 * the same code.
 */
#ifndef RDMACTL_STEPPER_H
#define RDMACTL_STEPPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mesh/linkmap.h"

struct stepper {
	/*
	 * Run every pair of @st on every rail at the same time and add each
	 * result to map with @round (0: a retest); every node gone so far
	 * into map as well (linkmap_node_down()), and none of its pairs run
	 * after that.  0 or -errno.
	 */
	int (*step)(void *arg, const struct sched_step *st, uint32_t round);
	/* @n more steps follow: the retests (may be NULL). */
	void (*more)(void *arg, size_t n);
	void *arg;
	struct linkmap *map;
};

/*
 * Run @s, then (@retest) the retests of what its results leave open;
 * their steps in @retest_steps.  0 or -errno.
 */
int stepper_run(const struct stepper *sp, const struct schedule *s, bool retest,
		size_t *retest_steps);

#endif
