// SPDX-License-Identifier: MIT
/* `rdmactl doctor -w`: the launcher's lines into a cluster, then the report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/ctx.h"
#include "base/log.h"
#include "cluster/fanout.h"
#include "cluster/gather.h"
#include "cluster/report.h"

static void on_line(void *arg, const char *node, const char *line)
{
	cluster_feed_line(arg, node, line);
}

static void on_fail(void *arg, const char *node, const char *why)
{
	cluster_node_fail(arg, node, "%s", why);
}

static int parse_list(const struct ctx *ctx, const char *what, const char *arg,
		      struct hostlist *hl)
{
	char err[512];

	if (!hostlist_parse_arg(hl, arg, err, sizeof(err)))
		return 0;
	log_err(ctx, "Failed to read %s: %s", what, err);
	return -EINVAL;
}

int fanout_nodes(const struct ctx *ctx, const char *w, const char *x, struct hostlist *nodes)
{
	const char *slurm = getenv("SLURM_JOB_NODELIST");
	struct hostlist ex;
	int ret;

	hostlist_init(nodes);
	if (!w && slurm && *slurm && !getenv("SLURM_STEP_ID"))
		w = slurm;
	if (!w)
		return 0;
	ret = parse_list(ctx, w == slurm ? "SLURM_JOB_NODELIST" : "-w", w, nodes);
	if (ret || !x)
		return ret;
	hostlist_init(&ex);
	/* --exclude: probe's -x is --gid-index, as in perftest. */
	ret = parse_list(ctx, "--exclude", x, &ex);
	if (!ret && hostlist_exclude(nodes, &ex))
		ret = -ENOMEM;
	hostlist_free(&ex);
	if (!ret && !nodes->n) {
		log_err(ctx, "Failed to choose nodes: --exclude '%s' leaves none of -w '%s'; leave some in", x, w);
		ret = -EINVAL;
	}
	return ret;
}

int fanout_doctor(struct ctx *ctx, const struct hostlist *nodes, const struct launch *l,
		  struct report_counts *counts, struct json_object **doc)
{
	struct launch_sink sink = { .line = on_line, .fail = on_fail };
	struct cluster cl;
	struct timespec t0, t1;
	char err[512];
	size_t i;
	int ret = 0;

	cluster_init(&cl);
	sink.arg = &cl;
	/* Every node first: one that never answers is still in the report. */
	for (i = 0; !ret && i < nodes->n; i++)
		ret = cluster_add(&cl, nodes->names[i], NULL);
	if (ret)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = launch_run(ctx, l, nodes->names, nodes->n, &sink);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret)
		log_err(ctx, "Failed to run %s: %s", launcher_name(l->launcher), strerror(-ret));
	log_info(ctx, "%zu nodes through %s in %.1f s", nodes->n, launcher_name(l->launcher),
		 (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	ret = cluster_finish(&cl, err, sizeof(err));
	if (ret) {
		log_err(ctx, "Failed to read the nodes' documents: %s", ret == -ENOMEM ? strerror(ENOMEM) : err);
		goto out;
	}
	ret = cluster_report(ctx, &cl, counts);
	if (!ret && doc)
		*doc = cluster_report_doc(ctx, &cl);
out:
	cluster_free(&cl);
	return ret;
}
