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
#include "doctor/doc.h"
#include "doctor_mode.h"

int doctor_health_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val)
{
	(void)ctx, (void)val;
	switch (opt) {
	case OPT_SLURM_HEALTH: return 0;
	case OPT_DRAIN: a->drain = true; return 0;
	case OPT_DRY_RUN: a->dry_run = true; return 0;
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

/*
 * What the health mode does to the node in Slurm, as NHC does: drain it
 * when a check fails, give a drain of its own the reason of the check
 * that fails now, resume a drain of its own once every check passes, and
 * keep every other drain (an admin's, or its own for a check still
 * failing).  The words are -j's "action".
 */
enum health_action { ACT_NONE, ACT_DRAIN, ACT_UPDATE, ACT_RESUME, ACT_KEEP };

static const char *const action_names[] = {
	[ACT_NONE] = "none", [ACT_DRAIN] = "drain", [ACT_UPDATE] = "update",
	[ACT_RESUME] = "resume", [ACT_KEEP] = "keep",
};

/* The words before the command: done, and with --dry-run. */
static const char *const action_done[] = {
	[ACT_DRAIN] = "drained: ", [ACT_UPDATE] = "reason updated: ", [ACT_RESUME] = "resumed: ",
};
static const char *const action_would[] = {
	[ACT_DRAIN] = "would drain: ", [ACT_UPDATE] = "would update the reason: ",
	[ACT_RESUME] = "would resume: ",
};

struct health {
	char node[256];
	char reason[DOC_DRAIN_REASON_MAX];	/* the first failed check's, when failed */
	bool failed;
	bool read;		/* Slurm told the node's state (asked with --drain, --dry-run) */
	char state[64];		/* sinfo's %T: "idle", "drained", "draining", "mixed" ... */
	char slurm_reason[512];	/* sinfo's %E: "none", or the reason the node is drained with */
	enum health_action act;
	char cmd[700];		/* the scontrol line of act; the drain's when not asked */
	int ret;		/* of asking Slurm or of the scontrol run */
	bool done;		/* the scontrol line was run and did it */
	char error[600];	/* why Slurm could not be read or told, as said */
};

/* The first failed check's reason (doc_drain_reason()) in @h; whether one failed. */
static bool health_reason(struct table *t, struct health *h)
{
	size_t i;

	for (i = 0; i < table_rows(t); i++)
		if (doc_drain_reason(table_get_row(t, i), h->reason, sizeof(h->reason)))
			return true;
	return false;
}

/*
 * "Failed to drain gpu017: ..." from a scontrol or sinfo run's -errno and
 * last line, said and kept in h->error for -j.
 */
static void slurm_error(const struct ctx *ctx, struct health *h, const char *what,
			const char *tool, int ret, const char *msg, const char *then)
{
	char *e = h->error;
	size_t len = sizeof(h->error);

	if (ret == -ENOENT)
		snprintf(e, len, "Failed to %s: %s is not on PATH (Debian package slurm-client)%s",
			 what, tool, then);
	else if (ret == -EIO && msg[0])
		snprintf(e, len, "Failed to %s: %s: %s%s", what, tool, msg, then);
	else if (ret == -EIO)
		snprintf(e, len, "Failed to %s: %s failed and said nothing%s", what, tool, then);
	else
		snprintf(e, len, "Failed to %s: %s: %s%s", what, tool, strerror(-ret), then);
	log_err(ctx, "%s", e);
}

/*
 * The node's state and reason as slurmctld holds them, in @h:
 *   $ sinfo -h -N -n gpu017 -o '%T|%E'
 *   drained|rdmactl: mtu: eth0 MTU 1500 ...
 * one line a partition the node is in, all alike (the first is read).
 * A controller that cannot be reached (sinfo's "Unable to contact slurm
 * controller") or a node it does not know: the error, said; the node is
 * then left as it is.
 */
static int slurm_read(const struct ctx *ctx, struct health *h)
{
	char n[300], msg[256], what[300], *out, *bar;
	char *argv[] = { "sinfo", "-h", "-N", "-n", n, "-o", "%T|%E", NULL };
	int ret;

	snprintf(n, sizeof(n), "%s", h->node);
	snprintf(what, sizeof(what), "read the Slurm state of %s", h->node);
	ret = run_query(argv, &out, msg, sizeof(msg));
	if (ret) {
		slurm_error(ctx, h, what, "sinfo", ret, msg, "; the node is left as it was");
		return ret;
	}
	out[strcspn(out, "\n")] = '\0';
	bar = strchr(out, '|');
	if (!bar) {
		snprintf(h->error, sizeof(h->error), "Failed to %s: sinfo does not list it (is it a "
			 "node of this Slurm cluster? SLURMD_NODENAME names it); the node is left as "
			 "it was", what);
		log_err(ctx, "%s", h->error);
		free(out);
		return -ENODATA;
	}
	*bar = '\0';
	snprintf(h->state, sizeof(h->state), "%s", out);
	snprintf(h->slurm_reason, sizeof(h->slurm_reason), "%s", bar + 1);
	h->read = true;
	free(out);
	return 0;
}

/* Drained or draining, whatever else the state says ("drained*", "idle+drain"). */
static bool slurm_drained(const struct health *h)
{
	return strstr(h->state, "drain") != NULL;
}

/* Drained with a reason rdmactl wrote: a drain of its own, its to lift. */
static bool slurm_ours(const struct health *h)
{
	return slurm_drained(h) &&
	       !strncmp(h->slurm_reason, DOC_DRAIN_PREFIX, strlen(DOC_DRAIN_PREFIX));
}

/* The action for the checks' verdict and Slurm's state, and its scontrol line. */
static void health_decide(struct health *h)
{
	if (h->failed)
		h->act = !slurm_drained(h)			  ? ACT_DRAIN
			 : slurm_ours(h) && strcmp(h->slurm_reason, h->reason) ? ACT_UPDATE
									     : ACT_KEEP;
	else
		h->act = slurm_ours(h) ? ACT_RESUME : slurm_drained(h) ? ACT_KEEP : ACT_NONE;
	if (h->act == ACT_RESUME)
		snprintf(h->cmd, sizeof(h->cmd), "scontrol update nodename=%s state=resume", h->node);
	else if (h->act == ACT_KEEP || h->act == ACT_NONE)
		h->cmd[0] = '\0';
}

/* scontrol update nodename=NODE state=drain|resume [reason=...]: 0 or -errno (said). */
static int slurm_update(const struct ctx *ctx, struct health *h)
{
	char n[300], r[300], msg[256], what[300];
	bool resume = h->act == ACT_RESUME;
	char *argv[] = { "scontrol", "update", n, resume ? "state=resume" : "state=drain",
			 resume ? NULL : r, NULL };
	int ret;

	snprintf(n, sizeof(n), "nodename=%s", h->node);
	snprintf(r, sizeof(r), "reason=%s", h->reason);
	snprintf(what, sizeof(what), "%s %s", resume ? "resume" : "drain", h->node);
	ret = run_action(argv, msg, sizeof(msg));
	if (ret)
		slurm_error(ctx, h, what, "scontrol update", ret, msg, "");
	return ret;
}

/* Ask Slurm, choose, and act unless @dry_run; h->ret and h->done say how it went. */
static void health_act(const struct ctx *ctx, struct health *h, bool dry_run)
{
	h->ret = slurm_read(ctx, h);
	if (h->ret)
		return;
	health_decide(h);
	if (dry_run || h->act == ACT_KEEP || h->act == ACT_NONE)
		return;
	h->ret = slurm_update(ctx, h);
	h->done = !h->ret;
}

/*
 * The one line after the verdict: what was done to the node in Slurm, or
 * with --dry-run what would be; a command not run (no --drain, or Slurm
 * not reached) shown bare.
 */
static void health_line(struct ctx *ctx, const struct health *h, bool dry_run)
{
	const char *const *words = dry_run ? action_would : action_done;
	const char *word = h->done || (dry_run && h->read) ? words[h->act] : "";

	if (h->act == ACT_KEEP && h->failed && slurm_ours(h))
		print_verbatim(ctx, "kept drained: Slurm's reason is already this check's\n");
	else if (h->act == ACT_KEEP)
		print_verbatim(ctx, "left drained: its reason '%s' is not rdmactl's\n", h->slurm_reason);
	else if (h->act == ACT_RESUME)
		print_verbatim(ctx, "%s%s (drained by rdmactl: '%s')\n", word, h->cmd, h->slurm_reason);
	else if (h->failed)
		print_verbatim(ctx, "%s%s\n", word, h->cmd);
}

static struct json_object *health_json(const struct health *h, bool dry_run)
{
	struct json_object *o = json_object_new_object(), *sl = NULL;
	char drain[700];

	snprintf(drain, sizeof(drain), "scontrol update nodename=%s state=drain reason=\"%s\"",
		 h->node, h->reason);
	json_object_object_add(o, "ok", json_object_new_boolean(!h->failed));
	json_object_object_add(o, "node", json_object_new_string(h->node));
	json_object_object_add(o, "reason", h->failed ? json_object_new_string(h->reason) : NULL);
	json_object_object_add(o, "drain", h->failed ? json_object_new_string(drain) : NULL);
	json_object_object_add(o, "drained", json_object_new_boolean(
						     h->done && h->act != ACT_RESUME));
	json_object_object_add(o, "resumed", json_object_new_boolean(
						     h->done && h->act == ACT_RESUME));
	json_object_object_add(o, "dry_run", json_object_new_boolean(dry_run));
	if (h->read) {
		sl = json_object_new_object();
		json_object_object_add(sl, "state", json_object_new_string(h->state));
		json_object_object_add(sl, "reason", json_object_new_string(h->slurm_reason));
	}
	json_object_object_add(o, "slurm", sl);
	json_object_object_add(o, "action",
			       h->read ? json_object_new_string(action_names[h->act]) : NULL);
	json_object_object_add(o, "command",
			       h->read && h->cmd[0] ? json_object_new_string(h->cmd) : NULL);
	json_object_object_add(o, "error", h->error[0] ? json_object_new_string(h->error) : NULL);
	return o;
}

static int health_report(struct ctx *ctx, struct table *t, const struct doctor_args *a)
{
	struct health h = { .act = ACT_NONE };
	bool dry_run = a->dry_run;

	health_node(h.node, sizeof(h.node));
	h.failed = health_reason(t, &h);
	if (h.failed) {
		h.act = ACT_DRAIN;
		snprintf(h.cmd, sizeof(h.cmd), "scontrol update nodename=%s state=drain reason=\"%s\"",
			 h.node, h.reason);
	}
	if (a->drain || dry_run)
		health_act(ctx, &h, dry_run);
	if (ctx->json) {
		json_attach(ctx, "health", health_json(&h, dry_run));
	} else {
		if (h.failed)
			print_verbatim(ctx, "ERROR: %s\n", h.reason);
		health_line(ctx, &h, dry_run);
	}
	return h.failed || h.ret ? RC_PROBLEM : RC_OK;
}

/* ---- metrics for Prometheus ---- */

/* The verdict, and with -j the node's whole report beside it; an exit code. */
static int health_done(struct ctx *ctx, const struct doctor_args *a, struct node_facts *d,
		       struct table *t, const struct doctor_counts *counts)
{
	int rc = health_report(ctx, t, a);

	if (!ctx->json) {
		table_free(t);
		return rc;
	}
	doctor_node_report(ctx, a, d, t, counts);
	return rc;
}

int doctor_health_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel)
{
	if ((a->drain || a->dry_run) && ctx->root[0]) {
		log_err(ctx, "Failed to use %s with --root: the checks read a copy, and would drain "
			"this node", a->drain ? "--drain" : "--dry-run");
		return RC_USAGE;
	}
	return doctor_here(ctx, a, sel, health_done);
}
