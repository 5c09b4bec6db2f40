/* SPDX-License-Identifier: MIT */
/*
 * A model of a fabric for the cluster probe's run (stepper.h): the same
 * schedule, steps, findings and retests as `probe -w`, with each test's
 * result computed instead of measured, so what a pattern finds can be
 * measured at sizes no lab has (bench/triage-sim, tests/unit/test_triage).
 *
 * Every node has a rate on each rail; a test measures the smaller rate of
 * its two ends times the faults on its way, less the noise: a fraction of
 * the rate, drawn at random up to the run's noise (10 to 25%), the spread
 * of the lab's emulated links.  The faults, drawn from a seed: slow nodes
 * (a fifth to a half of the rate), nodes slow one way only, blocked nodes
 * (every test fails, RoCE blocked), slow rails of a node, slow links (one
 * pair on one rail), and one node that dies during the run.
 */
#ifndef RDMACTL_SIMFABRIC_H
#define RDMACTL_SIMFABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mesh/linkmap.h"
#include "mesh/topology.h"

/*
 * A two-tier Clos: leaves of @per_leaf nodes (node i under leaf i /
 * per_leaf, as racks are numbered), each joined to every one of @spines
 * spines on each rail; a flow's @qps queue pairs hashed over the spines,
 * each on one path, as RoCE v2's UDP source ports are hashed by ECMP; a
 * pair's rate the mean of its paths'.  The topology handed to the link
 * map is Slurm's tree of it: the leaves under one switch "spine".
 */
struct sim_clos {
	uint32_t per_leaf, spines, qps;
	bool mixed;	/* a slow node under each slow uplink's leaf too: both at once */
};

enum sim_kind {
	SIM_SLOW,		/* the node, both ways */
	SIM_SLOW_OUT,		/* the node, writing only */
	SIM_SLOW_IN,		/* the node, receiving only */
	SIM_BLOCKED,
	SIM_DIES,		/* during the run's main steps */
	SIM_SLOW_RAIL,
	SIM_SLOW_LINK,		/* node -> peer and back, on rail */
	/* A two-tier Clos (sim_init_clos()): node is the leaf, peer the spine */
	SIM_SLOW_UPLINK,	/* the leaf's cable to one spine, on rail */
	SIM_FAILED_UPLINK,	/* cut: the flows hashed onto it fail */
	SIM_SLOW_LEAF,		/* the leaf switch on rail: every flow through it */
	SIM_KINDS,
};

struct sim_fault {
	enum sim_kind kind;
	uint32_t node, peer, rail;	/* peer: SIM_SLOW_LINK only; rail: rail and link faults */
	double factor;			/* of the rate; slow faults only */
	uint32_t at;			/* SIM_DIES: the step (1-based) it dies in */
	/* scored by sim_score() */
	bool found, untested;		/* untested: a slow link no test crossed */
};

struct simfabric {
	uint32_t nodes, rails;
	double noise;			/* the run's: each test loses up to this fraction */
	double *rate;			/* [nodes * rails] Gb/s */
	struct sim_fault *fault;
	size_t nfault;
	int32_t *of;			/* [nodes]: the node's fault, -1 none */
	bool *gone;			/* [nodes]: died */
	uint32_t steps;			/* steps run */
	uint64_t rng;
	struct linkmap *map;
	/* A Clos (sim_init_clos()), else clos.per_leaf 0 */
	struct sim_clos clos;
	uint32_t leaves;
	double *up;			/* [(leaf * spines + spine) * rails + rail]: 1, a factor, 0 cut */
	double *leaf;			/* [leaf * rails + rail] */
	struct topology topo;		/* Slurm's tree of it, for the link map */
};

/*
 * A fabric of @nodes nodes and @rails rails, faults and noise drawn from
 * @seed (@noise > 0: that noise instead of one drawn from 10 to 25%); the
 * dying node dies in step 1 + (its draw) * @main_steps.  0 or -ENOMEM.
 */
int sim_init(struct simfabric *f, uint32_t nodes, uint32_t rails, uint64_t seed, double noise,
	     size_t main_steps);
/*
 * The same over a Clos of @c (@nodes a multiple of c->per_leaf, 2 to 64
 * spines, 1 to 16 QPs): the same node faults, then one or two slow
 * uplinks, a cut one and a slow leaf, each on one rail of its own leaf (the
 * slow leaf's nodes have no fault of their own); with c->mixed, a slow node
 * under each slow uplink's leaf as well.  -EINVAL, -ENOMEM.
 */
int sim_init_clos(struct simfabric *f, uint32_t nodes, uint32_t rails, uint64_t seed, double noise,
		  size_t main_steps, const struct sim_clos *c);
void sim_free(struct simfabric *f);

/*
 * A run on the fabric into @map, which may follow another (probe -w
 * --from): a node that died before does not join, and is down in @map.
 * 0 or -ENOMEM.
 */
int sim_start(struct simfabric *f, struct linkmap *map);

/* The stepper's step (stepper.h), @arg a struct simfabric whose map is set. */
int sim_step(void *arg, const struct sched_step *st, uint32_t round);

struct sim_score {
	size_t faults, found, missed, untested;	/* missed counts untested too */
	size_t node_faults, node_found;		/* slow, one-way, blocked, dying, slow rail */
	size_t false_nodes, false_links;	/* findings naming what is healthy */
	size_t false_switches;			/* switch findings naming a healthy switch */
	size_t kind_faults[SIM_KINDS], kind_found[SIM_KINDS];	/* recall per fault kind */
	size_t find_total[FIND_KINDS], find_true[FIND_KINDS];	/* precision per finding kind */
};

/*
 * Compare the map's findings (linkmap_analyse() first) with the faults:
 * each fault found or not (f->fault[i].found), and the findings that name
 * a node, rail or link without a fault; each of those is told to @say
 * (may be NULL) as the finding's text.
 */
void sim_score(struct simfabric *f, const struct linkmap *m, struct sim_score *sc,
	       void (*say)(void *arg, const char *what, const char *text), void *arg);

const char *sim_kind_name(enum sim_kind k);

#endif
