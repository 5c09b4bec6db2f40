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

static int set_num(const struct ctx *ctx, const char *name, const char *val, long lo, long hi,
		   long *out)
{
	if (!parse_long(val, lo, hi, out))
		return 0;
	log_err(ctx, "Failed to read %s '%s': expected a whole number from %ld to %ld", name, val, lo,
		hi);
	return -EINVAL;
}

int doctor_cluster_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val)
{
	struct cluster_args *c = &a->c;

	switch (opt) {
	case 'w': c->w = val; return 0;
	case OPT_EXCLUDE: c->x = val; return 0;
	case OPT_LAUNCHER: c->launcher = val; return 0;
	case OPT_RDMACTL: c->rdmactl = val; return 0;
	case OPT_HTML: c->html = val; return 0;
	case 'f': c->force = true; return 0;
	case OPT_FANOUT: return set_num(ctx, "--fanout", val, 1, 4096, &c->fanout);
	case OPT_NODE_TIMEOUT: return set_num(ctx, "--node-timeout", val, 1, 3600, &c->node_timeout);
	}
	return -ENOENT;
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

	argv[k++] = (char *)launch_rdmactl(l, a->c.rdmactl);
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

int doctor_cluster_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel)
{
	struct launch l = { .fanout = (unsigned int)a->c.fanout,
			    .node_timeout = (unsigned int)a->c.node_timeout };
	struct fleet_counts counts;
	struct json_object *doc = NULL;
	char *argv[24], port[16];
	struct outfile of;
	int ret;

	(void)sel;	/* each node selects its own, from --only and --skip passed on */
	if (launch_pick(ctx, a->c.launcher, &l.launcher))
		return RC_USAGE;
	remote_argv(a, l.launcher, argv, port, sizeof(port));
	l.argv = argv;
	/* The page's file is checked before any node is asked, and written at the end. */
	if (a->c.html && outfile_open(ctx, &of, a->c.html, "report", a->c.force ? OUTFILE_FORCE : 0))
		return of.refused ? RC_USAGE : RC_PROBLEM;
	ret = fanout_doctor(ctx, &a->nodes, &l, &counts, a->c.html ? &doc : NULL);
	if (a->c.html && ret)
		outfile_discard(&of);
	else if (a->c.html)
		ret = html_write_doctor(ctx, &of, doc);
	json_object_put(doc);
	return ret ? RC_PROBLEM : fleet_rc(&counts);
}
