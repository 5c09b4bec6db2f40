// SPDX-License-Identifier: MIT
/*
 * rdmactl doctor [--peer HOST [--token SECRET]] [--for nccl|ucx|perftest] [--only ID,...]
 *                [--skip ID,...] [--list]
 * rdmactl doctor --gathered FILE|-|DIR
 * One line per check (lib/doctor.c), each not-ok line with its fix, and a
 * summary; exit 1 when a check failed.  --gathered: the report of many
 * nodes' documents (lib/cluster/report.c); exit 1 when a node failed or
 * could not run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "base/sysfs.h"
#include "cluster/gather.h"
#include "cluster/report.h"
#include "cmds.h"
#include "doctor/doctor.h"
#include "node/nodeinfo.h"
#include "node/rdma_load.h"
#include "probe/probe_auth.h"
#include "probe/probe_proto.h"

enum {
	OPT_PEER = OPT_LONG_BASE,
	OPT_FOR,
	OPT_ONLY,
	OPT_SKIP,
	OPT_LIST,
	OPT_PORT,
	OPT_TOKEN,
	OPT_GATHERED,
};

const struct opt doctor_opts[] = {
	{ "peer", OPT_PEER, ARG_HOST, "HOST", "also check the path to HOST (runs rdmactl probe --server)" },
	{ "port", OPT_PORT, ARG_INT, "PORT", "the peer's probe control port (default 18600)" },
	{ "token", OPT_TOKEN, ARG_STR, "SECRET", "the peer's probe token (prefer RDMACTL_TOKEN)" },
	{ "for", OPT_FOR, ARG_CHOICE, "JOB", "check for this kind of job", "nccl ucx perftest" },
	{ "only", OPT_ONLY, ARG_STR, "ID,...", "run only these checks" },
	{ "skip", OPT_SKIP, ARG_STR, "ID,...", "leave these checks out" },
	{ "list", OPT_LIST, ARG_NONE, NULL, "list the checks and what each looks at" },
	{ "gathered", OPT_GATHERED, ARG_FILE, "FILE|-|DIR",
	  "report on documents gathered from many nodes (pdsh, clush, srun -l, HOST.json)" },
	{ 0 }
};

static enum color status_color(const char *text)
{
	if (!strcmp(text, "ok"))
		return COLOR_GREEN;
	if (!strcmp(text, "warn"))
		return COLOR_YELLOW;
	if (!strcmp(text, "FAIL"))
		return COLOR_RED;
	return COLOR_DIM;
}

static const struct column doctor_cols[] = {
	{ "status", "STATUS", 0, status_color },
	{ "id", "CHECK", 0, NULL },
	{ "found", "FOUND", 0, NULL },
	{ "fix", "FIX", COL_BELOW, NULL },
	{ 0 }
};

static const struct column list_cols[] = {
	{ "id", "CHECK", 0, NULL },
	{ "description", "DESCRIPTION", 0, NULL },
	{ 0 }
};

struct doctor_args {
	const char *peer;
	const char *only, *skip;
	const char *gathered;
	enum doctor_for target;
	long port;
	bool port_given;
	bool list;
	bool have_token;
	char token[PROBE_TOKEN_MAX + 1];
};

static int list_checks(struct ctx *ctx)
{
	struct table *t = table_new(list_cols);
	size_t i;

	if (!t)
		return RC_PROBLEM;
	for (i = 0; doctor_checks[i].id; i++) {
		struct json_object *row = table_row(t);

		row_str(row, "id", doctor_checks[i].id);
		row_str(row, "description", doctor_checks[i].desc);
	}
	table_emit(ctx, t, "checks");
	return RC_OK;
}

static int parse_for(const struct ctx *ctx, const char *s, enum doctor_for *out)
{
	if (!strcmp(s, "nccl"))
		*out = FOR_NCCL;
	else if (!strcmp(s, "ucx"))
		*out = FOR_UCX;
	else if (!strcmp(s, "perftest"))
		*out = FOR_PERFTEST;
	else {
		log_err(ctx, "Failed to read --for '%s': choose nccl, ucx or perftest", s);
		return -EINVAL;
	}
	return 0;
}

/* The options of a local doctor mean nothing to documents made elsewhere. */
static int gathered_alone(const struct ctx *ctx, const struct doctor_args *a)
{
	const char *other = a->peer	    ? "--peer"
			    : a->only	    ? "--only"
			    : a->skip	    ? "--skip"
			    : a->list	    ? "--list"
			    : a->target	    ? "--for"
			    : a->have_token ? "--token"
			    : a->port_given ? "--port"
					    : NULL;

	if (!other)
		return 0;
	log_err(ctx, "Failed to use %s with --gathered: the documents were made with the options "
		"their nodes ran; give %s to rdmactl doctor there", other, other);
	return -EINVAL;
}

/*
 * Options that would be ignored without a word: --token, which only
 * --peer uses (--port is also the port the firewall check looks at), and
 * everything that picks or shapes checks when --list runs none.
 * 0 or -EINVAL.
 */
static int unused_options(const struct ctx *ctx, const struct doctor_args *a)
{
	const char *peer_only = a->have_token ? "--token" : NULL;
	const char *run_only = a->peer ? "--peer" : a->only ? "--only" : a->skip ? "--skip" :
			       a->target ? "--for" : a->port_given ? "--port" : peer_only;

	if (a->gathered)
		return gathered_alone(ctx, a);
	if (a->list && run_only) {
		log_err(ctx, "Failed to list the checks: --list runs none, so %s would do nothing; "
			"leave one of them out", run_only);
		return -EINVAL;
	}
	if (!a->peer && peer_only) {
		log_err(ctx, "Failed to use %s: it is for the peer's probe server; give --peer HOST "
			"too, or leave %s out", peer_only, peer_only);
		return -EINVAL;
	}
	return 0;
}

static int parse_args(struct ctx *ctx, int argc, char **argv, struct doctor_args *a)
{
	struct optparser p;
	int c, ret = 0;

	memset(a, 0, sizeof(*a));
	a->port = PROBE_DEFAULT_PORT;
	if (opt_init(&p, ctx, command_find("doctor"), argc, argv))
		return -RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case OPT_PEER:
			a->peer = p.optarg;
			break;
		case OPT_PORT:
			a->port_given = true;
			if (parse_long(p.optarg, 1, 65535, &a->port)) {
				log_err(ctx, "Failed to read --port '%s': not a port number (1-65535)",
					p.optarg);
				return -RC_USAGE;
			}
			break;
		case OPT_FOR:
			if (parse_for(ctx, p.optarg, &a->target))
				return -RC_USAGE;
			break;
		case OPT_ONLY:
			a->only = p.optarg;
			break;
		case OPT_SKIP:
			a->skip = p.optarg;
			break;
		case OPT_LIST:
			a->list = true;
			break;
		case OPT_TOKEN:
			if (probe_token_from_arg(ctx, p.optarg, a->token))
				return -RC_USAGE;
			a->have_token = true;
			break;
		case OPT_GATHERED:
			a->gathered = p.optarg;
			break;
		case OPT_HELP:
			/* main() shows the help before any command runs; never run the checks after it. */
			return 1;
		default:
			return -RC_USAGE;
		}
	}
	if (opt_check_args(&p) || unused_options(ctx, a))
		return -RC_USAGE;
	/* Only --peer uses the token: a bad RDMACTL_TOKEN does not stop a local doctor. */
	if (a->peer && !a->have_token && (ret = probe_token_from_env(ctx, a->token)) < 0)
		return -RC_USAGE;
	a->have_token = a->have_token || ret > 0;
	return 0;
}

/*
 * "--only X --skip X" checked nothing and said "nothing to fix": a clean
 * bill of health for a node nobody looked at.  True (message printed) when
 * --skip leaves no check to run.
 */
static bool nothing_selected(const struct ctx *ctx, const struct doctor_args *a, const bool *sel,
			     size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (sel[i])
			return false;
	if (a->only)
		log_err(ctx, "Failed to select checks: --skip '%s' removes every check --only '%s' "
			"picks; leave one of them out", a->skip, a->only);
	else
		log_err(ctx, "Failed to select checks: --skip '%s' leaves no check to run", a->skip);
	return true;
}

/* Which rows run: --only's (or all), less --skip's. */
static int selection(struct ctx *ctx, const struct doctor_args *a, bool *sel, size_t n)
{
	bool *skip = calloc(n, sizeof(*skip));
	size_t i;
	int ret = 0;

	if (!skip)
		return -RC_PROBLEM;
	for (i = 0; i < n; i++)
		sel[i] = !a->only;
	if (a->only && doctor_select(ctx, a->only, "only", sel))
		ret = -RC_USAGE;
	if (!ret && a->skip && doctor_select(ctx, a->skip, "skip", skip))
		ret = -RC_USAGE;
	for (i = 0; !ret && i < n; i++)
		sel[i] = sel[i] && !skip[i];
	free(skip);
	if (!ret && nothing_selected(ctx, a, sel, n))
		ret = -RC_USAGE;
	return ret;
}

static void print_summary(struct ctx *ctx, const struct doctor_counts *c)
{
	struct json_object *s = json_object_new_object(), *probs = json_object_new_array();
	char *save = NULL, *id, buf[sizeof(c->problems)];
	int fail = c->n[CHECK_FAIL], warn = c->n[CHECK_WARN];

	json_object_object_add(s, "failed", json_object_new_int(fail));
	json_object_object_add(s, "warnings", json_object_new_int(warn));
	json_object_object_add(s, "ok", json_object_new_int(c->n[CHECK_OK]));
	json_object_object_add(s, "skipped", json_object_new_int(c->n[CHECK_SKIP]));
	snprintf(buf, sizeof(buf), "%s", c->problems);
	for (id = strtok_r(buf, ", ", &save); id; id = strtok_r(NULL, ", ", &save))
		json_object_array_add(probs, json_object_new_string(id));
	json_object_object_add(s, "problems", probs);
	if (ctx->json) {
		json_attach(ctx, "summary", s);
		return;
	}
	json_object_put(s);
	if (!fail && !warn)
		printf("\n%s%d ok, %d skipped: nothing to fix%s\n", color_on(ctx, COLOR_GREEN),
		       c->n[CHECK_OK], c->n[CHECK_SKIP], color_off(ctx));
	else
		printf("\n%s%d failed, %d warning%s: %s%s\n",
		       color_on(ctx, fail ? COLOR_RED : COLOR_YELLOW), fail, warn,
		       warn == 1 ? "" : "s", c->problems, color_off(ctx));
}

/* The report of the documents in @path (a file, "-" or a directory). */
static int doctor_gathered(struct ctx *ctx, const char *path)
{
	struct report_counts counts;
	struct cluster cl;
	char err[512];
	int ret;

	cluster_init(&cl);
	ret = cluster_read_gathered(&cl, path, err, sizeof(err));
	if (!ret)
		ret = cluster_finish(&cl, err, sizeof(err));
	if (ret) {
		log_err_errno(ctx, ret, "Failed to read gathered output '%s': %s", path,
			      ret == -ENOMEM ? strerror(ENOMEM) : err);
		cluster_free(&cl);
		return ret == -ENOMEM ? RC_PROBLEM : RC_USAGE;
	}
	ret = cluster_report(ctx, &cl, &counts);
	cluster_free(&cl);
	if (ret) {
		log_err_errno(ctx, ret, "Failed to make the report: %s", strerror(-ret));
		return RC_PROBLEM;
	}
	return report_rc(&counts);
}

int cmd_doctor(struct ctx *ctx, int argc, char **argv)
{
	struct doctor_args a;
	struct doctor_counts counts;
	struct doctor d;
	struct table *t;
	size_t n = doctor_count();
	bool *sel;
	int ret;

	ret = parse_args(ctx, argc, argv, &a);
	if (ret)
		return ret > 0 ? RC_OK : -ret;
	if (a.gathered)
		return doctor_gathered(ctx, a.gathered);
	if (a.list)
		return list_checks(ctx);
	sel = calloc(n, sizeof(*sel));
	if (!sel)
		return RC_PROBLEM;
	ret = selection(ctx, &a, sel, n);
	if (ret) {
		free(sel);
		return -ret;
	}
	memset(&d, 0, sizeof(d));
	d.ctx = ctx;
	d.target = a.target;
	d.peer = a.peer;
	d.peer_port = (unsigned int)a.port;
	d.token = a.have_token ? a.token : NULL;
	d.node_err = rdma_node_load(ctx, &d.node, RDMA_LOAD_GIDS);
	d.node_warnings = read_warnings(ctx);
	t = table_new(doctor_cols);
	if (t) {
		doctor_run(&d, sel, t, &counts);
		table_emit(ctx, t, "checks");
		print_summary(ctx, &counts);
		/* What a cluster report compares across nodes (doctor -w). */
		if (ctx->json)
			json_attach(ctx, "node", node_facts_json(ctx, d.node_err ? NULL : &d.node,
								 NODE_FACTS_FULL));
	}
	doctor_peer_free(&d);
	doctor_free(&d);
	if (!d.node_err)
		rdma_node_free(&d.node);
	free(sel);
	if (!t)
		return RC_PROBLEM;
	return counts.n[CHECK_FAIL] ? RC_PROBLEM : RC_OK;
}
