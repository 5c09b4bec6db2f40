/* SPDX-License-Identifier: MIT */
/*
 * `rdmactl probe -w HOSTLIST`: the coordinator.  It listens for the
 * nodes' agents (agent.h), starts `rdmactl probe --agent` on every node in
 * one launcher run (launch.h) with the run's token on their stdin, then
 * drives the schedule (schedule.h) step by step over the agents'
 * connections: the servers of a step first, their clients once all listen,
 * every pair of a step and all its rails at the same time.  Links whose
 * blame is open are retested against a node known good; then the link map
 * is printed.
 */
#ifndef RDMACTL_COORD_H
#define RDMACTL_COORD_H

#include <stdbool.h>

#include "launch/hostlist.h"
#include "launch/launch.h"
#include "mesh/linkmap.h"
#include "probe/probe.h"

struct ctx;
struct json_object;
struct resume;
struct topology;

struct coord_cfg {
	struct probe_cfg probe;		/* the test of every pair (port: the first rail's) */
	char *const *test_args;		/* those options again, as every agent gets them */
	double test_s;			/* one test's expected length (estimate), s */
	bool timed;			/* -D: the test's length is known */
	enum pattern pattern;
	const char *pairs_file;		/* --pairs FILE, or NULL */
	double slow;			/* --slow */
	unsigned int rails;		/* --rails; 0: every active port all nodes have */
	const char *rendezvous;		/* --rendezvous ADDR[:PORT], or NULL */
	bool retest;			/* retest open blame against a good node */
	const char *rdmactl;		/* rdmactl on the nodes (--rdmactl) */
	struct launch launch;		/* launcher; node_timeout: time to join (argv set here) */
	/*
	 * --save FILE: the -j document written to FILE as the run goes
	 * (runsave.h), marked incomplete until the run ends; or NULL.
	 */
	const char *save;
	/* --topology: the switch tree (topology.h), or NULL. */
	const struct topology *topo;
	/* --from FILE: what a saved run carries over (resume.h), or NULL. */
	struct resume *from;
	/*
	 * After the report, with the analysed link map and the run's facts
	 * as -j has them (probe -w --html), or NULL: 0 or -errno (said).
	 */
	int (*done)(void *arg, const struct linkmap *m, struct json_object *run);
	void *done_arg;
};

/*
 * Run it on @nodes and print the report: 0 or 1 (a finding failed), or
 * -errno (said).  -EINTR: SIGINT, SIGTERM or SIGHUP stopped the run
 * before its report (launch_stopped() says which); the agents are ended,
 * the steps done saved (--save), nothing printed: the caller ends of that
 * signal.  The caller holds the signals (launch_hold_signals()) for as
 * long as the run has files to finish, so that one coming after the
 * agents have ended is seen too.
 */
int coord_run(struct ctx *ctx, const struct hostlist *nodes, struct coord_cfg *cfg);

#endif
