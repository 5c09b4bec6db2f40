// SPDX-License-Identifier: MIT
/* `rdmactl doctor -w`: the launcher's lines into a fleet, then the report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "base/progress.h"
#include "fleet/fanout.h"
#include "fleet/fleet.h"
#include "fleet/summary.h"

/* The run as the launcher's lines fill it. */
struct fan {
	struct fleet fleet;
	struct progress pr;
	unsigned long done;	/* nodes with a whole document or a failure */
};

/* A node is done once its document has ended or it has failed. */
static bool node_done(const struct fleet_node *nd)
{
	return nd && (nd->ended || nd->error);
}

static void count(struct fan *f, const char *node, bool before)
{
	if (before || !node_done(fleet_find(&f->fleet, node)))
		return;
	f->done++;
	progress_show(&f->pr, f->done, "doctor: %lu of %lu nodes done", f->done, f->pr.total);
}

static void on_line(void *arg, const char *node, const char *line)
{
	struct fan *f = arg;
	bool before = node_done(fleet_find(&f->fleet, node));

	fleet_feed_line(&f->fleet, node, line);
	count(f, node, before);
}

static void on_fail(void *arg, const char *node, const char *why)
{
	struct fan *f = arg;
	bool before = node_done(fleet_find(&f->fleet, node));

	fleet_node_fail(&f->fleet, node, "%s", why);
	count(f, node, before);
}

/*
 * --fanout within the limit of open files (raised first as far as it
 * needs): 1500 ssh at once under 1024 failed most of them "Too many open
 * files".  Said once.
 */
static void fit_fanout(const struct ctx *ctx, struct launch *l, size_t n)
{
	size_t want = l->fanout && l->fanout < n ? l->fanout : n, room;
	unsigned long allowed;

	if (l->launcher == LAUNCHER_SRUN)
		return;
	room = launch_room(l, want, 0, &allowed);
	if (room >= want)
		return;
	log_warn(ctx, "only %lu open files are allowed (ulimit -Hn): %zu nodes at once instead of "
		 "%zu; raise the hard limit (limits.conf nofile) for more", allowed, room, want);
	l->fanout = (unsigned int)room;
}

/*
 * The run's own facts, "run" of the -j document: the nodes asked (as a
 * hostlist), through what, when it started and ended, by which rdmactl;
 * a report names each run by them.  NULL when out of memory.
 */
static struct json_object *run_facts(const struct hostlist *nodes, const struct launch *l,
				     time_t started)
{
	struct json_object *o = json_object_new_object();
	char *list = NULL;

	if (!o)
		return NULL;
	if (hostlist_fold((const char *const *)nodes->names, nodes->n, &list))
		list = NULL;
	row_str(o, "hostlist", list);
	row_int(o, "nodes", (int64_t)nodes->n);
	row_str(o, "launcher", launcher_name(l->launcher));
	row_time(o, "started", started);
	row_time(o, "ended", time(NULL));
	row_str(o, "version", RDMACTL_VERSION);
	free(list);
	return o;
}

int fanout_doctor(struct ctx *ctx, const struct hostlist *nodes, const struct launch *l,
		  struct fleet_counts *counts, struct json_object **doc)
{
	time_t started = time(NULL);
	struct json_object *run;
	struct launch_sink sink = { .line = on_line, .fail = on_fail };
	struct launch fit = *l;
	struct fan f = { 0 };
	struct timespec t0, t1;
	char err[512];
	size_t i;
	int ret = 0;

	fleet_init(&f.fleet);
	sink.arg = &f;
	/* Every node first: one that never answers is still in the report. */
	for (i = 0; !ret && i < nodes->n; i++)
		ret = fleet_add(&f.fleet, nodes->names[i], NULL);
	if (ret)
		goto out;
	fit_fanout(ctx, &fit, nodes->n);
	progress_init(&f.pr, nodes->n);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = launch_run(ctx, &fit, nodes->names, nodes->n, &sink);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	progress_end(&f.pr);
	if (ret)
		log_err(ctx, "Failed to run %s: %s", launcher_name(l->launcher), strerror(-ret));
	log_info(ctx, "%zu nodes through %s in %.1f s", nodes->n, launcher_name(l->launcher),
		 (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	ret = fleet_finish(&f.fleet, err, sizeof(err));
	if (ret) {
		log_err(ctx, "Failed to read the nodes' documents: %s", ret == -ENOMEM ? strerror(ENOMEM) : err);
		goto out;
	}
	run = run_facts(nodes, l, started);
	if (ctx->json && run)
		json_attach(ctx, "run", json_object_get(run));
	ret = fleet_summary(ctx, &f.fleet, counts);
	if (!ret && doc)
		*doc = fleet_summary_doc(ctx, &f.fleet);
	if (!ret && doc && *doc && run)
		json_object_object_add(*doc, "run", json_object_get(run));
	json_object_put(run);
out:
	fleet_free(&f.fleet);
	return ret;
}
