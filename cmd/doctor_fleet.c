// SPDX-License-Identifier: MIT
/*
 * rdmactl doctor -w HOSTLIST (or inside a Slurm allocation): every node
 * runs its own doctor with the checks asked for here, and one report
 * folds their answers (lib/fleet/).
 */
#include <errno.h>
#include <stdio.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/outfile.h"
#include "cmds.h"
#include "doctor_mode.h"
#include "fleet/fanout.h"
#include "fleet/summary.h"
#include "report/html.h"

int doctor_fleet_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val)
{
	struct fleet_args *fleet = &a->fleet;

	switch (opt) {
	case OPT_HTML: fleet->html = val; return 0;
	case 'f': fleet->force = true; return 0;
	}
	return launch_opt(ctx, &fleet->launch, opt, val);
}


/*
 * The command every node runs: its own doctor, as JSON, with the same
 * checks.  Under srun, indented: srun -l cuts a long line into labelled
 * pieces, and a document on one line can be several KiB.
 */
static void remote_argv(const struct doctor_args *a, enum launcher l, char **argv, char *port,
			size_t plen)
{
	size_t k = 0;

	argv[k++] = (char *)launch_rdmactl(l, a->fleet.launch.rdmactl);
	argv[k++] = "-j";
	if (l == LAUNCHER_SRUN)
		argv[k++] = "-p";
	argv[k++] = "doctor";
	argv[k++] = "--local";
	if (a->target != JOB_ANY)
		argv[k++] = "--for", argv[k++] = (char *)job_kind_name(a->target);
	if (a->user)
		argv[k++] = "--user", argv[k++] = (char *)a->user;
	if (a->only)
		argv[k++] = "--only", argv[k++] = (char *)a->only;
	if (a->skip)
		argv[k++] = "--skip", argv[k++] = (char *)a->skip;
	if (a->peer)
		argv[k++] = "--peer", argv[k++] = (char *)a->peer;
	if (a->port_given) {
		snprintf(port, plen, "%ld", a->port);
		argv[k++] = "--port", argv[k++] = port;
	}
	argv[k] = NULL;
}

int doctor_fleet_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel)
{
	struct launch l = { .fanout = (unsigned int)a->fleet.launch.fanout,
			    .node_timeout = (unsigned int)a->fleet.launch.node_timeout };
	struct fleet_counts counts;
	struct json_object *doc = NULL;
	char *argv[24], port[16];
	struct outfile of;
	int ret;

	(void)sel;	/* each node selects its own, from --only and --skip passed on */
	if (launch_pick(ctx, a->fleet.launch.launcher, &l.launcher))
		return RC_USAGE;
	remote_argv(a, l.launcher, argv, port, sizeof(port));
	l.argv = argv;
	/* The page's file is checked before any node is asked, and written at the end. */
	if (a->fleet.html && outfile_open(ctx, &of, a->fleet.html, "report", a->fleet.force ? OUTFILE_FORCE : 0))
		return of.refused ? RC_USAGE : RC_PROBLEM;
	ret = fanout_doctor(ctx, &a->nodes, &l, &counts, a->fleet.html ? &doc : NULL);
	if (a->fleet.html && ret)
		outfile_discard(&of);
	else if (a->fleet.html)
		ret = html_write_doctor(ctx, &of, doc);
	json_object_put(doc);
	return ret ? RC_PROBLEM : fleet_rc(&counts);
}
