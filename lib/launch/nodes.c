// SPDX-License-Identifier: MIT
/* The nodes of a fleet run: -w, SLURM_JOB_NODELIST, --exclude, and their options (nodes.h). */
#include <errno.h>
#include <stdlib.h>

#include "base/ctx.h"
#include "base/log.h"
#include "launch/nodes.h"

void launch_args_init(struct launch_args *l)
{
	*l = (struct launch_args){ .fanout = 32, .node_timeout = 60 };
}

int launch_opt(const struct ctx *ctx, struct launch_args *l, int opt, const char *val)
{
	switch (opt) {
	case LAUNCH_OPT_NODES: l->w = val; return 0;
	case LAUNCH_OPT_EXCLUDE: l->x = val; return 0;
	case LAUNCH_OPT_LAUNCHER: l->launcher = val; return 0;
	case LAUNCH_OPT_RDMACTL: l->rdmactl = val; return 0;
	case LAUNCH_OPT_FANOUT: return opt_long(ctx, "--fanout", val, 1, 4096, &l->fanout);
	case LAUNCH_OPT_NODE_TIMEOUT: return opt_long(ctx, "--node-timeout", val, 1, 3600, &l->node_timeout);
	}
	return -ENOENT;
}

/* @arg into @hl, or the reason printed naming @what (-w, --exclude ...): 0 or -EINVAL. */
static int parse_list(const struct ctx *ctx, const char *what, const char *arg,
		      struct hostlist *hl)
{
	char err[512];

	if (!hostlist_parse_arg(hl, arg, err, sizeof(err)))
		return 0;
	log_err(ctx, "Failed to read %s: %s", what, err);
	return -EINVAL;
}

int launch_nodes(const struct ctx *ctx, const char *w, const char *x, struct hostlist *nodes)
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

int launch_allocation(const struct ctx *ctx, const char *x, const struct launch_allocation_note *note,
		      struct hostlist *nodes)
{
	const char *job = getenv("SLURM_JOB_ID");

	if (launch_nodes(ctx, NULL, x, nodes))
		return -EINVAL;
	if (!nodes->n)
		return 0;
	log_note(ctx, "no %s inside Slurm allocation%s%s: %s its nodes (%s %s)%s", note->missing,
		 job && *job ? " " : "", job && *job ? job : "", note->doing, note->mode,
		 getenv("SLURM_JOB_NODELIST"), note->more);
	return 1;
}
