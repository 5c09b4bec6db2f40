// SPDX-License-Identifier: MIT
/*
 * rdmactl doctor --slurm-health [--drain]: this node's checks for Slurm's
 * HealthCheckProgram and prologs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/json.h"
#include "base/log.h"
#include "base/output.h"
#include "base/run.h"
#include "cmds.h"
#include "doctor_mode.h"

int doctor_health_opt(struct doctor_args *a, int opt, const char *val)
{
	(void)val;
	switch (opt) {
	case OPT_SLURM_HEALTH: a->health = true; return 0;
	case OPT_DRAIN: a->drain = true; return 0;
	}
	return -ENOENT;
}

/*
 * Slurm's HealthCheckProgram and prologs want a verdict, not a table: one
 * line in NHC's manner for the first failed check, and the command that
 * drains the node, run with --drain.  Slurm gives a health check 60 s;
 * the local checks take a second or two (commands they run are cut at
 * 10 s each).
 */
static void health_node(char *name, size_t len)
{
	const char *env = getenv("SLURMD_NODENAME");

	if (env && *env) {
		snprintf(name, len, "%s", env);
		return;
	}
	if (gethostname(name, len - 1))
		snprintf(name, len, "localhost");
	name[len - 1] = '\0';
	name[strcspn(name, ".")] = '\0';
}

/* "rdmactl: mtu: eth0 MTU 1500 ...": the reason, quotes made safe for scontrol. */
static bool health_reason(struct table *t, char *reason, size_t len)
{
	size_t i;

	for (i = 0; i < table_rows(t); i++) {
		struct json_object *row = table_get_row(t, i);
		const char *st = jtext(row, DOC_STATUS), *id = jtext(row, DOC_ID),
			   *found = jtext(row, DOC_FOUND);

		if (!st || !id || !found || check_status_parse(st) != CHECK_FAIL)
			continue;
		snprintf(reason, len, "rdmactl: %s: %.180s", id, found);
		for (char *q = reason; *q; q++)
			if (*q == '"' || *q == '\n')
				*q = '\'';
		return true;
	}
	return false;
}

/* scontrol's own words when it fails ("Unable to contact slurm controller"), not an errno. */
static int health_drain(const struct ctx *ctx, const char *node, const char *reason)
{
	char n[300], r[300], msg[256];
	char *argv[] = { "scontrol", "update", n, "state=drain", r, NULL };
	int ret;

	snprintf(n, sizeof(n), "nodename=%s", node);
	snprintf(r, sizeof(r), "reason=%s", reason);
	ret = run_action(argv, msg, sizeof(msg));
	if (ret == -ENOENT)
		log_err(ctx, "Failed to drain %s: scontrol is not on PATH (Debian package slurm-client)",
			node);
	else if (ret == -EIO && msg[0])
		log_err(ctx, "Failed to drain %s: scontrol update: %s", node, msg);
	else if (ret == -EIO)
		log_err(ctx, "Failed to drain %s: scontrol update failed and said nothing", node);
	else if (ret)
		log_err(ctx, "Failed to drain %s: scontrol update: %s", node, strerror(-ret));
	return ret;
}

static int health_report(struct ctx *ctx, struct table *t, bool drain)
{
	struct json_object *h = json_object_new_object();
	char node[256], reason[256], cmd[700];
	bool failed = health_reason(t, reason, sizeof(reason));
	int ret = 0;

	health_node(node, sizeof(node));
	snprintf(cmd, sizeof(cmd), "scontrol update nodename=%s state=drain reason=\"%s\"", node,
		 reason);
	if (failed && drain)
		ret = health_drain(ctx, node, reason);
	json_object_object_add(h, "ok", json_object_new_boolean(!failed));
	json_object_object_add(h, "node", json_object_new_string(node));
	json_object_object_add(h, "reason", failed ? json_object_new_string(reason) : NULL);
	json_object_object_add(h, "drain", failed ? json_object_new_string(cmd) : NULL);
	json_object_object_add(h, "drained", json_object_new_boolean(failed && drain && !ret));
	if (ctx->json) {
		json_attach(ctx, "health", h);
	} else {
		json_object_put(h);
		if (failed)
			print_text(ctx, "ERROR: %s\n%s%s\n", reason, drain && !ret ? "drained: " : "",
				   cmd);
	}
	return failed ? RC_PROBLEM : RC_OK;
}

/* ---- metrics for Prometheus ---- */

/* The verdict, and with -j the node's whole report beside it; an exit code. */
static int health_done(struct ctx *ctx, const struct doctor_args *a, struct doctor *d,
		       struct table *t, const struct doctor_counts *counts)
{
	int rc = health_report(ctx, t, a->drain);

	if (!ctx->json) {
		table_free(t);
		return rc;
	}
	doctor_node_report(ctx, a, d, t, counts);
	return rc;
}

int doctor_health_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel)
{
	if (a->drain && ctx->root[0]) {
		log_err(ctx, "Failed to use --drain with --root: the checks read a copy, and would drain "
			"this node");
		return RC_USAGE;
	}
	return doctor_here(ctx, a, sel, health_done);
}
