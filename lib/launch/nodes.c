// SPDX-License-Identifier: MIT
/* The nodes of a cluster run: -w, SLURM_JOB_NODELIST, --exclude (nodes.h). */
#include <errno.h>
#include <stdlib.h>

#include "base/ctx.h"
#include "base/log.h"
#include "launch/nodes.h"

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
