/* SPDX-License-Identifier: MIT */
/*
 * `rdmactl doctor -w HOSTLIST`: every node runs its own
 * `rdmactl -j doctor --local ...` through a launcher (launch.h); their
 * documents, or the causes of their silence, go into one fleet
 * (fleet.h) and one summary (summary.h).
 */
#ifndef RDMACTL_FANOUT_H
#define RDMACTL_FANOUT_H

#include <stddef.h>

#include "launch/hostlist.h"
#include "launch/launch.h"

struct ctx;
struct json_object;
struct fleet_counts;

/*
 * Run the doctor (@l->argv) on every node and print the report; with
 * @doc, its -j document too (fleet_summary_doc(), NULL when out of
 * memory) for the HTML page.  0 or -errno.
 */
int fanout_doctor(struct ctx *ctx, const struct hostlist *nodes, const struct launch *l,
		  struct fleet_counts *counts, struct json_object **doc);

#endif
