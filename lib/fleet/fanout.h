/* SPDX-License-Identifier: MIT */
/*
 * `rdmactl doctor -w HOSTLIST`: every node runs its own
 * `rdmactl -j doctor --local ...` through a launcher (launch.h); their
 * documents, or the causes of their silence, go into one cluster
 * (gather.h) and one report (report.h).
 */
#ifndef RDMACTL_FANOUT_H
#define RDMACTL_FANOUT_H

#include <stddef.h>

#include "launch/hostlist.h"
#include "launch/launch.h"

struct ctx;
struct json_object;
struct report_counts;

/*
 * The nodes of a cluster run: @w (-w, "@FILE" too) or, when NULL, the
 * allocation's SLURM_JOB_NODELIST (not inside a job step: srun's tasks see
 * it too); less @x (-x).  0 with @nodes empty when there is no cluster;
 * -EINVAL (message printed) for a bad list or one left empty.
 */
int fanout_nodes(const struct ctx *ctx, const char *w, const char *x, struct hostlist *nodes);

/*
 * Run the doctor (@l->argv) on every node and print the report; with
 * @doc, its -j document too (cluster_report_doc(), NULL when out of
 * memory) for the HTML page.  0 or -errno.
 */
int fanout_doctor(struct ctx *ctx, const struct hostlist *nodes, const struct launch *l,
		  struct report_counts *counts, struct json_object **doc);

#endif
