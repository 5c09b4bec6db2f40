/* SPDX-License-Identifier: MIT */
/*
 * The nodes a fleet run (doctor -w, probe -w) reaches, as Slurm's and pdsh's users name them:
 * -w HOSTLIST (or @FILE), else the allocation's SLURM_JOB_NODELIST, less
 * --exclude.  Both `doctor -w` and `probe -w` choose their nodes here.
 */
#ifndef RDMACTL_LAUNCH_NODES_H
#define RDMACTL_LAUNCH_NODES_H

#include "base/opt.h"
#include "launch/hostlist.h"

struct ctx;

/*
 * The options that reach the nodes, as doctor -w and probe -w both take
 * them: each command lists them in its own option table (with its own
 * help) under these values, and launch_opt() reads them.
 */
enum launch_opt {
	LAUNCH_OPT_NODES = 'w',
	LAUNCH_OPT_EXCLUDE = OPT_LONG_BASE + 0x80,	/* above every command's own long options */
	LAUNCH_OPT_LAUNCHER,
	LAUNCH_OPT_FANOUT,
	LAUNCH_OPT_NODE_TIMEOUT,
	LAUNCH_OPT_RDMACTL,
};

/* What those options said; launch_args_init() gives the defaults. */
struct launch_args {
	const char *w, *x;	/* -w HOSTLIST, --exclude HOSTLIST */
	const char *launcher;	/* --launcher, NULL: launch_pick()'s default */
	const char *rdmactl;	/* --rdmactl: the nodes' rdmactl */
	long fanout;		/* nodes at once (default 32) */
	long node_timeout;	/* seconds a node has (default 60) */
};

void launch_args_init(struct launch_args *l);
/*
 * Option @opt (an enum launch_opt) with value @val into @l: 0, -EINVAL
 * (message printed), or -ENOENT when @opt is none of them.
 */
int launch_opt(const struct ctx *ctx, struct launch_args *l, int opt, const char *val);

/*
 * What a command says when it reaches a Slurm allocation's nodes without
 * being given -w: "no @missing inside Slurm allocation JOB: @doing its
 * nodes (@mode LIST)@more".
 */
struct launch_allocation_note {
	const char *missing;	/* what was not given: "-w", "PEER" */
	const char *doing;	/* "checking", "measuring" */
	const char *mode;	/* the mode it becomes: "doctor -w" */
	const char *more;	/* the rest of the line: "; --local checks ...", or "" */
};

/*
 * Inside a Slurm allocation, for a command that was given no nodes: the
 * allocation's nodes less @x (--exclude) in @nodes, said on the first
 * line as @note words it.  1 with @nodes, 0 when there is no allocation,
 * -EINVAL (message printed) for a bad list or one left empty.
 */
int launch_allocation(const struct ctx *ctx, const char *x, const struct launch_allocation_note *note,
		      struct hostlist *nodes);

/*
 * The nodes of a fleet run: @w (-w, "@FILE" too) or, when NULL, the
 * allocation's SLURM_JOB_NODELIST (not inside a job step: srun's tasks see
 * it too); less @x (-x).  0 with @nodes empty when there is no cluster;
 * -EINVAL (message printed) for a bad list or one left empty.
 */
int launch_nodes(const struct ctx *ctx, const char *w, const char *x, struct hostlist *nodes);

#endif
