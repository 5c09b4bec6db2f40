// SPDX-License-Identifier: MIT
/*
 * rdmactl doctor --metrics [-o FILE]: this node's checks as Prometheus
 * metrics (lib/doctor/metrics.c), for node_exporter's textfile collector.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/output.h"
#include "cmds.h"
#include "doctor_mode.h"
#include "doctor/metrics.h"

int doctor_metrics_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val)
{
	(void)ctx;
	switch (opt) {
	case OPT_METRICS: return 0;
	case 'o': a->output = val; return 0;
	}
	return -ENOENT;
}

/*
 * The metrics on standard output, or into @path through outfile.h: a
 * temporary file beside it renamed over it, so node_exporter's textfile
 * collector never reads half a file (it reads only names ending in .prom,
 * and the temporary name does not).  An exit code.
 */
static int write_metrics(struct ctx *ctx, struct node_facts *d, const struct table *t,
			 const char *path)
{
	struct outfile of;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		return RC_PROBLEM;
	ret = doctor_metrics(d, t, f);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (ret) {
		log_err_errno(ctx, ret, "Failed to make the metrics: %s", strerror(-ret));
		goto err_buf;
	}
	if (outfile_open(ctx, &of, path ? path : "-", "metrics", OUTFILE_FORCE)) {
		free(buf);
		return of.refused ? RC_USAGE : RC_PROBLEM;
	}
	if ((ret = outfile_write(&of, buf, len)))
		outfile_fail(ctx, &of, ret);
	else
		ret = outfile_commit(ctx, &of);
err_buf:
	free(buf);
	return ret ? RC_PROBLEM : RC_OK;
}

/* The metrics of this node's checks, the table used up; an exit code. */
static int metrics_done(struct ctx *ctx, const struct doctor_args *a, struct node_facts *d,
			struct table *t, const struct doctor_counts *counts)
{
	int ret = write_metrics(ctx, d, t, a->output);

	table_free(t);
	return ret ? ret : counts->n[CHECK_FAIL] ? RC_PROBLEM : RC_OK;
}

int doctor_metrics_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel)
{
	/* Metrics are the document: nothing else may shape the output. */
	if (ctx->json) {
		log_err(ctx, "Failed to use --metrics with -j: choose the metrics or the JSON document");
		return RC_USAGE;
	}
	return doctor_here(ctx, a, sel, metrics_done);
}
