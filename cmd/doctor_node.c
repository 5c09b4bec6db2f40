// SPDX-License-Identifier: MIT
/*
 * rdmactl doctor on this node: its checks (lib/doctor/) run once, one line
 * each, each not-ok line with its fix, and a summary; exit 1 when a check
 * failed.  Also --list, the checks it could run.  --metrics and
 * --slurm-health run the same checks and report them their own way
 * (doctor_here()), the node's report kept beside theirs with -j.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "base/output.h"
#include "doctor_mode.h"
#include "node/limits.h"
#include "node/nodeinfo.h"

/* What each reads, fails it and fixes it: -j only (doc/checks.md is made from it). */
static const struct column list_cols[] = {
	{ DOC_ID, "CHECK", 0, NULL },
	{ DOC_DESCRIPTION, "DESCRIPTION", 0, NULL },
	{ DOC_READS, NULL, COL_NOTEXT, NULL },
	{ DOC_FAILS, NULL, COL_NOTEXT, NULL },
	{ DOC_FIX, NULL, COL_NOTEXT, NULL },
	{ 0 }
};

int doctor_list_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel)
{
	struct table *t = table_new(list_cols);
	size_t i;

	(void)a, (void)sel;
	if (!t)
		return RC_PROBLEM;
	for (i = 0; doctor_checks[i].id; i++) {
		struct json_object *row = table_row(t);

		row_str(row, DOC_ID, doctor_checks[i].id);
		row_str(row, DOC_DESCRIPTION, doctor_checks[i].desc);
		row_str(row, DOC_READS, doctor_checks[i].reads);
		row_str(row, DOC_FAILS, doctor_checks[i].fails);
		row_str(row, DOC_FIX, doctor_checks[i].fix);
	}
	table_emit(ctx, t, DOC_CHECKS);
	return RC_OK;
}

static void print_summary(struct ctx *ctx, const struct doctor_counts *c)
{
	struct json_object *s;
	int fail = c->n[CHECK_FAIL], warn = c->n[CHECK_WARN];
	char line[1024];

	if (ctx->json) {
		s = doc_summary_json(c->n, c->problems);
		if (s)
			json_attach(ctx, DOC_SUMMARY, s);
		return;
	}
	/* Folded to the terminal as the table is: the list of checks can be long. */
	if (!fail && !warn)
		snprintf(line, sizeof(line), "%d ok, %d skipped: nothing to fix", c->n[CHECK_OK],
			 c->n[CHECK_SKIP]);
	else
		snprintf(line, sizeof(line), "%d failed, %d warning%s: %s", fail, warn,
			 warn == 1 ? "" : "s", c->problems);
	putchar('\n');
	print_folded(ctx, !fail && !warn ? COLOR_GREEN : fail ? COLOR_RED : COLOR_YELLOW, 2, line);
}

int doctor_node_report(struct ctx *ctx, const struct doctor_args *a, struct node_facts *d,
		       struct table *t, const struct doctor_counts *counts)
{
	(void)a;
	table_emit(ctx, t, DOC_CHECKS);
	print_summary(ctx, counts);
	/* What the fleet report compares across nodes (doctor -w). */
	if (ctx->json)
		json_attach(ctx, DOC_NODE, node_facts_json(ctx, d->node_err ? NULL : &d->node,
							 NODE_FACTS_FULL));
	return counts->n[CHECK_FAIL] ? RC_PROBLEM : RC_OK;
}

int doctor_here(struct ctx *ctx, const struct doctor_args *a, const bool *sel,
		doctor_report_fn report)
{
	struct doctor_counts counts;
	struct node_facts d;
	struct table *t;
	int ret = RC_PROBLEM;

	/* An unknown --user is a bad word on the line, as for rdmactl limits: no check runs. */
	if (a->user && (ret = limits_user_known(ctx, a->user)))
		return ret == -ENOENT ? RC_USAGE : RC_PROBLEM;
	ret = RC_PROBLEM;
	doctor_load(&d, ctx, a->target, NULL);
	d.user = a->user;
	d.peer = a->peer;
	d.peer_port = (unsigned int)a->port;
	d.token = a->have_token ? a->token : NULL;
	d.peer_ack_timeout = a->ack_timeout;
	t = table_new(doc_check_cols);
	if (t) {
		doctor_run(&d, sel, t, &counts);
		ret = report(ctx, a, &d, t, &counts);
	}
	doctor_peer_free(&d);
	doctor_free(&d);
	return ret;
}

int doctor_node_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel)
{
	return doctor_here(ctx, a, sel, doctor_node_report);
}
