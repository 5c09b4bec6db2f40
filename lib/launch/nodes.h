/* SPDX-License-Identifier: MIT */
/*
 * The nodes a cluster run reaches, as Slurm's and pdsh's users name them:
 * -w HOSTLIST (or @FILE), else the allocation's SLURM_JOB_NODELIST, less
 * --exclude.  Both `doctor -w` and `probe -w` choose their nodes here.
 */
#ifndef RDMACTL_LAUNCH_NODES_H
#define RDMACTL_LAUNCH_NODES_H

#include "launch/hostlist.h"

struct ctx;

/*
 * The nodes of a cluster run: @w (-w, "@FILE" too) or, when NULL, the
 * allocation's SLURM_JOB_NODELIST (not inside a job step: srun's tasks see
 * it too); less @x (-x).  0 with @nodes empty when there is no cluster;
 * -EINVAL (message printed) for a bad list or one left empty.
 */
int launch_nodes(const struct ctx *ctx, const char *w, const char *x, struct hostlist *nodes);

#endif
