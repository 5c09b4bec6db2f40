// SPDX-License-Identifier: MIT
/*
 * rdmactl doctor [--peer HOST [--token SECRET]] [--for nccl|ucx|mpi|perftest] [--only ID,...]
 *                [--skip ID,...] [--list]
 * rdmactl doctor --gathered FILE|-|DIR
 * rdmactl doctor --metrics [-o FILE]
 * One line per check (lib/doctor.c), each not-ok line with its fix, and a
 * summary; exit 1 when a check failed.  --gathered: the report of many
 * nodes' documents (lib/fleet/summary.c); exit 1 when a node failed or
 * could not run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/output.h"
#include "base/run.h"
#include "base/sysfs.h"
#include "cmds.h"
#include "doctor/doctor.h"
#include "doctor/metrics.h"
#include "fleet/fanout.h"
#include "fleet/gather.h"
#include "fleet/summary.h"
#include "launch/nodes.h"
#include "node/limits.h"
#include "node/nodeinfo.h"
#include "node/rdma_load.h"
#include "probe/probe_auth.h"
#include "probe/probe_proto.h"
#include "report/html.h"

enum {
	OPT_PEER = OPT_LONG_BASE,
	OPT_FOR,
	OPT_ONLY,
	OPT_SKIP,
	OPT_LIST,
	OPT_PORT,
	OPT_TOKEN,
	OPT_GATHERED,
	OPT_LAUNCHER,
	OPT_FANOUT,
	OPT_NODE_TIMEOUT,
	OPT_RDMACTL,
	OPT_LOCAL,
	OPT_SLURM_HEALTH,
	OPT_DRAIN,
	OPT_METRICS,
	OPT_HTML,
	OPT_USER,
};

const struct opt doctor_opts[] = {
	{ "peer", OPT_PEER, ARG_HOST, "HOST", "also check the path to HOST (runs rdmactl probe --server)" },
	{ "port", OPT_PORT, ARG_INT, "PORT", "the peer's probe control port (default 18600)" },
	{ "token", OPT_TOKEN, ARG_STR, "SECRET", "the peer's probe token (prefer RDMACTL_TOKEN)" },
	{ "for", OPT_FOR, ARG_CHOICE, "JOB", "check for this kind of job (mpi: Open MPI over UCX)",
	  "nccl ucx mpi perftest" },
	{ "user", OPT_USER, ARG_STR, "NAME", "the user whose login limit memlock.login checks (default: you)" },
	{ "only", OPT_ONLY, ARG_CHECKS, "ID,...", "run only these checks" },
	{ "skip", OPT_SKIP, ARG_CHECKS, "ID,...", "leave these checks out" },
	{ "list", OPT_LIST, ARG_NONE, NULL, "list the checks and what each looks at" },
	{ "nodes", 'w', ARG_HOSTLIST, "HOSTLIST", "check these nodes (node[01-64], @FILE) and report on all" },
	{ "exclude", 'x', ARG_HOSTLIST, "HOSTLIST", "with -w: leave these nodes out" },
	{ "launcher", OPT_LAUNCHER, ARG_CHOICE, "NAME", "with -w: how to reach the nodes",
	  "srun pdsh clush ssh local" },
	{ "fanout", OPT_FANOUT, ARG_INT, "N", "with -w: nodes at once (default 32)" },
	{ "node-timeout", OPT_NODE_TIMEOUT, ARG_INT, "SECONDS", "with -w: time one node may take (default 60)" },
	{ "rdmactl", OPT_RDMACTL, ARG_STR, "PATH", "with -w: rdmactl on the nodes (default: their PATH's; local: this one)" },
	{ "html", OPT_HTML, ARG_FILE, "FILE", "with -w: also write the report as one HTML page (rdmactl-report(8))" },
	{ "force", 'f', ARG_NONE, NULL, "with -w: replace an existing --html FILE (only ever a regular file)" },
	{ "local", OPT_LOCAL, ARG_NONE, NULL, "this node only, even inside a Slurm allocation" },
	{ "slurm-health", OPT_SLURM_HEALTH, ARG_NONE, NULL,
	  "Slurm HealthCheckProgram/prolog mode: local checks, one line, the drain command" },
	{ "drain", OPT_DRAIN, ARG_NONE, NULL, "with --slurm-health: drain this node when a check fails" },
	{ "metrics", OPT_METRICS, ARG_NONE, NULL,
	  "print Prometheus metrics (node_exporter's textfile collector) instead of the table" },
	{ "output", 'o', ARG_FILE, "FILE", "with --metrics: write them to FILE, replacing it whole" },
	{ "gathered", OPT_GATHERED, ARG_FILE, "FILE|-|DIR",
	  "report on documents gathered from many nodes (pdsh, clush, srun -l, HOST.json)" },
	{ 0 }
};

static const struct column doctor_cols[] = {
	{ "status", "STATUS", 0, check_status_color, check_status_cell },
	{ "id", "CHECK", 0, NULL },
	{ "found", "FOUND", COL_WRAP, NULL },
	{ "fix", "FIX", COL_BELOW, NULL },
	{ 0 }
};

static const struct column list_cols[] = {
	{ "id", "CHECK", 0, NULL },
	{ "description", "DESCRIPTION", 0, NULL },
	{ 0 }
};

/* The cluster run's options (-w); see lib/fleet/fanout.h. */
struct cluster_args {
	const char *w, *x, *launcher, *rdmactl, *html;
	long fanout, node_timeout;
	bool local, health, drain;
	bool force;		/* -f: --html may replace a regular file */
	const char *given;	/* the first cluster-only option given, for messages */
};

struct doctor_args {
	struct cluster_args c;
	const char *peer;
	const char *for_arg;
	const char *user;	/* --user: the job's user, for memlock.login */
	const char *only, *skip;
	const char *gathered;
	enum doctor_for target;
	long port;
	bool port_given;
	bool list;
	bool metrics;
	const char *output;	/* -o, with --metrics */
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
	else if (!strcmp(s, "mpi"))
		*out = FOR_MPI;
	else {
		log_err(ctx, "Failed to read --for '%s': choose nccl, ucx, mpi or perftest", s);
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
			    : a->user	    ? "--user"
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

static int set_num(const struct ctx *ctx, const char *name, const char *val, long lo, long hi,
		   long *out)
{
	if (!parse_long(val, lo, hi, out))
		return 0;
	log_err(ctx, "Failed to read %s '%s': expected a whole number from %ld to %ld", name, val, lo,
		hi);
	return -EINVAL;
}

/* The cluster options; -ENOENT when @c is none of them. */
static int cluster_opt(const struct ctx *ctx, struct cluster_args *c, int opt, const char *val)
{
	switch (opt) {
	case 'w': c->w = val; return 0;
	case 'x': c->x = val; c->given = "-x"; return 0;
	case OPT_LAUNCHER: c->launcher = val; c->given = "--launcher"; return 0;
	case OPT_RDMACTL: c->rdmactl = val; c->given = "--rdmactl"; return 0;
	case OPT_HTML: c->html = val; c->given = "--html"; return 0;
	case 'f': c->force = true; c->given = "--force"; return 0;
	case OPT_FANOUT:
		c->given = "--fanout";
		return set_num(ctx, "--fanout", val, 1, 4096, &c->fanout);
	case OPT_NODE_TIMEOUT:
		c->given = "--node-timeout";
		return set_num(ctx, "--node-timeout", val, 1, 3600, &c->node_timeout);
	case OPT_LOCAL: c->local = true; return 0;
	case OPT_SLURM_HEALTH: c->health = true; return 0;
	case OPT_DRAIN: c->drain = true; return 0;
	}
	return -ENOENT;
}

/* The metrics options; -ENOENT when @opt is none of them. */
static int metrics_opt(struct doctor_args *a, int opt, const char *val)
{
	switch (opt) {
	case OPT_METRICS: a->metrics = true; return 0;
	case 'o': a->output = val; return 0;
	}
	return -ENOENT;
}

/* What to check and against which peer; -ENOENT when @opt is none of them. */
static int check_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val)
{
	switch (opt) {
	case OPT_PEER: a->peer = val; return 0;
	case OPT_ONLY: a->only = val; return 0;
	case OPT_SKIP: a->skip = val; return 0;
	case OPT_USER:
		if (*val && strlen(val) < 64 && !strchr(val, '/') && !strpbrk(val, " \t\n:")) {
			a->user = val;
			return 0;
		}
		log_err(ctx, "Failed to read --user '%s': not a user name", val);
		return -EINVAL;
	case OPT_LIST: a->list = true; return 0;
	case OPT_GATHERED: a->gathered = val; return 0;
	case OPT_PORT:
		a->port_given = true;
		if (!parse_long(val, 1, 65535, &a->port))
			return 0;
		log_err(ctx, "Failed to read --port '%s': not a port number (1-65535)", val);
		return -EINVAL;
	case OPT_FOR:
		a->for_arg = val;
		return parse_for(ctx, val, &a->target) ? -EINVAL : 0;
	case OPT_TOKEN:
		if (probe_token_from_arg(ctx, val, a->token))
			return -EINVAL;
		a->have_token = true;
		return 0;
	}
	return -ENOENT;
}

/* One option: 0, 1 for --help, or -EINVAL (said). */
static int doctor_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val)
{
	int ret = cluster_opt(ctx, &a->c, opt, val);

	if (ret == -ENOENT)
		ret = metrics_opt(a, opt, val);
	if (ret == -ENOENT)
		ret = check_opt(ctx, a, opt, val);
	/* main() shows the help before any command runs; never run the checks after it. */
	if (ret == -ENOENT)
		return opt == OPT_HELP ? 1 : -EINVAL;
	return ret;
}

static int parse_args(struct ctx *ctx, int argc, char **argv, struct doctor_args *a)
{
	struct optparser p;
	int c, ret = 0;

	memset(a, 0, sizeof(*a));
	a->port = PROBE_DEFAULT_PORT;
	a->c.fanout = 32;
	a->c.node_timeout = 60;
	if (opt_init(&p, ctx, command_find("doctor"), argc, argv))
		return -RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END) {
		ret = doctor_opt(ctx, a, c, p.optarg);
		if (ret)
			return ret > 0 ? 1 : -RC_USAGE;
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
	struct fleet_counts counts;
	struct fleet cl;
	char err[512];
	int ret;

	fleet_init(&cl);
	ret = fleet_read_gathered(&cl, path, err, sizeof(err));
	if (!ret)
		ret = fleet_finish(&cl, err, sizeof(err));
	if (ret) {
		log_err_errno(ctx, ret, "Failed to read gathered output '%s': %s", path,
			      ret == -ENOMEM ? strerror(ENOMEM) : err);
		fleet_free(&cl);
		return ret == -ENOMEM ? RC_PROBLEM : RC_USAGE;
	}
	ret = fleet_summary(ctx, &cl, &counts);
	fleet_free(&cl);
	if (ret) {
		log_err_errno(ctx, ret, "Failed to make the report: %s", strerror(-ret));
		return RC_PROBLEM;
	}
	return fleet_rc(&counts);
}

/* ---- many nodes: -w, and Slurm's health checks ---- */

/* Cluster and health options against the rest; 0 or -EINVAL (message printed). */
static int cluster_alone(const struct ctx *ctx, const struct doctor_args *a)
{
	const struct cluster_args *c = &a->c;
	const char *bad = NULL, *why = "";

	if (c->local && c->w)
		bad = "--local", why = " with -w: one checks this node only, the other many";
	else if (c->drain && !c->health)
		bad = "--drain", why = " without --slurm-health, which decides when to drain";
	else if (c->drain && ctx->root[0])
		bad = "--drain", why = " with --root: the checks read a copy, and would drain this node";
	else if (c->health && (c->w || a->peer || a->gathered || a->list))
		bad = "--slurm-health", why = c->w ? " with -w: it checks this node alone"
					   : " with --peer, --gathered or --list: it runs the local checks";
	else if (c->w && a->gathered)
		bad = "-w", why = " with --gathered: one runs the nodes, the other reads what they printed";
	else if (c->w && a->list)
		bad = "-w", why = " with --list, which runs no check";
	else if (c->w && a->have_token)
		bad = "--token", why = " with -w: it would show in every node's process list; "
				       "give the nodes RDMACTL_TOKEN in their environment";
	if (!bad)
		return 0;
	log_err(ctx, "Failed to use %s%s", bad, why);
	return -EINVAL;
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
	if (a->for_arg)
		argv[k++] = "--for", argv[k++] = (char *)a->for_arg;
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

static int doctor_cluster(struct ctx *ctx, const struct doctor_args *a, const struct hostlist *nodes)
{
	struct launch l = { .fanout = (unsigned int)a->c.fanout,
			    .node_timeout = (unsigned int)a->c.node_timeout };
	struct fleet_counts counts;
	struct json_object *doc = NULL;
	char *argv[24], port[16];
	struct outfile of;
	int ret;

	if (launch_pick(ctx, a->c.launcher, &l.launcher))
		return RC_USAGE;
	remote_argv(a, l.launcher, argv, port, sizeof(port));
	l.argv = argv;
	/* The page's file is checked before any node is asked, and written at the end. */
	if (a->c.html && outfile_open(ctx, &of, a->c.html, "report", a->c.force ? OUTFILE_FORCE : 0))
		return of.refused ? RC_USAGE : RC_PROBLEM;
	ret = fanout_doctor(ctx, nodes, &l, &counts, a->c.html ? &doc : NULL);
	if (a->c.html && ret)
		outfile_discard(&of);
	else if (a->c.html)
		ret = html_write_doctor(ctx, &of, doc);
	json_object_put(doc);
	return ret ? RC_PROBLEM : fleet_rc(&counts);
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
		struct json_object *row = table_get_row(t, i), *st, *id, *found;

		if (!json_object_object_get_ex(row, "status", &st) ||
		    check_status_parse(json_object_get_string(st)) != CHECK_FAIL ||
		    !json_object_object_get_ex(row, "id", &id) ||
		    !json_object_object_get_ex(row, "found", &found))
			continue;
		snprintf(reason, len, "rdmactl: %s: %.180s", json_object_get_string(id),
			 json_object_get_string(found));
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

/*
 * --metrics reports this node's checks in another format: nothing else may
 * shape the output.  0 or -EINVAL (message printed).
 */
static int metrics_alone(const struct ctx *ctx, const struct doctor_args *a)
{
	const char *bad = "--metrics", *why = NULL;

	if (a->output && !a->metrics)
		bad = "-o", why = " without --metrics: the table and JSON go to standard output";
	else if (a->metrics && ctx->json)
		why = " with -j: choose the metrics or the JSON document";
	else if (a->metrics && (a->c.health || a->c.w || a->gathered || a->list))
		why = " with --slurm-health, -w, --gathered or --list: it reports this node's checks";
	if (!why)
		return 0;
	log_err(ctx, "Failed to use %s%s", bad, why);
	return -EINVAL;
}

/*
 * The metrics on standard output, or into @path through outfile.h: a
 * temporary file beside it renamed over it, so node_exporter's textfile
 * collector never reads half a file (it reads only names ending in .prom,
 * and the temporary name does not).  An exit code.
 */
static int write_metrics(struct ctx *ctx, struct doctor *d, const struct table *t,
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

/* The local run's results in the form asked for (the table is used up); an exit code. */
static int local_report(struct ctx *ctx, const struct doctor_args *a, struct doctor *d,
			struct table *t, const struct doctor_counts *counts)
{
	int rc = counts->n[CHECK_FAIL] ? RC_PROBLEM : RC_OK, ret;

	if (a->metrics) {
		ret = write_metrics(ctx, d, t, a->output);
		table_free(t);
		return ret ? ret : rc;
	}
	if (a->c.health)
		rc = health_report(ctx, t, a->c.drain);
	if (!a->c.health || ctx->json) {
		table_emit(ctx, t, "checks");
		print_summary(ctx, counts);
	} else {
		table_free(t);
	}
	/* What a cluster report compares across nodes (doctor -w). */
	if (ctx->json)
		json_attach(ctx, "node", node_facts_json(ctx, d->node_err ? NULL : &d->node,
							 NODE_FACTS_FULL));
	return rc;
}

/* This node's checks (@sel of them) and their report. */
static int doctor_here(struct ctx *ctx, const struct doctor_args *a, const bool *sel)
{
	struct doctor_counts counts;
	struct doctor d;
	struct table *t;
	int ret = RC_PROBLEM;

	/* An unknown --user is a bad word on the line, as for rdmactl limits: no check runs. */
	if (a->user && (ret = limits_user_known(ctx, a->user)))
		return ret == -ENOENT ? RC_USAGE : RC_PROBLEM;
	ret = RC_PROBLEM;
	memset(&d, 0, sizeof(d));
	d.ctx = ctx;
	d.target = a->target;
	d.user = a->user;
	d.peer = a->peer;
	d.peer_port = (unsigned int)a->port;
	d.token = a->have_token ? a->token : NULL;
	d.node_err = rdma_node_load(ctx, &d.node, RDMA_LOAD_GIDS);
	d.node_warnings = read_warnings(ctx);
	t = table_new(doctor_cols);
	if (t) {
		/* A long FOUND folds under itself, within the terminal. */
		table_fit(t, output_width());
		doctor_run(&d, sel, t, &counts);
		ret = local_report(ctx, a, &d, t, &counts);
	}
	doctor_peer_free(&d);
	doctor_free(&d);
	if (!d.node_err)
		rdma_node_free(&d.node);
	return ret;
}

/* -w, or inside an allocation: the cluster's report; -1 when it is not that. */
static int maybe_cluster(struct ctx *ctx, const struct doctor_args *a)
{
	struct hostlist nodes;
	int ret = -1;

	if (a->c.local || a->c.health || a->gathered || a->list || a->metrics)
		return -1;
	if (launch_nodes(ctx, a->c.w, a->c.x, &nodes))
		ret = RC_USAGE;
	else if (nodes.n)
		ret = doctor_cluster(ctx, a, &nodes);
	hostlist_free(&nodes);
	return ret;
}

/* The run the options ask for, its checks (@sel) already chosen; an exit code. */
static int doctor_run_as_asked(struct ctx *ctx, const struct doctor_args *a, const bool *sel)
{
	int ret = maybe_cluster(ctx, a);

	if (ret >= 0)
		return ret;
	if (a->c.given) {
		log_err(ctx, "Failed to use %s: it is for a run on many nodes; give -w HOSTLIST too",
			a->c.given);
		return RC_USAGE;
	}
	if (a->gathered)
		return doctor_gathered(ctx, a->gathered);
	if (a->list)
		return list_checks(ctx);
	return doctor_here(ctx, a, sel);
}

int cmd_doctor(struct ctx *ctx, int argc, char **argv)
{
	struct doctor_args a;
	size_t n = doctor_count();
	bool *sel;
	int ret;

	ret = parse_args(ctx, argc, argv, &a);
	if (ret)
		return ret > 0 ? RC_OK : -ret;
	if (cluster_alone(ctx, &a) || metrics_alone(ctx, &a))
		return RC_USAGE;
	sel = calloc(n, sizeof(*sel));
	if (!sel)
		return RC_PROBLEM;
	/*
	 * --only and --skip checked here, before -w starts a node: each node
	 * would refuse them too, and a typo became one error row per node.
	 */
	ret = a.gathered || a.list ? 0 : selection(ctx, &a, sel, n);
	ret = ret ? -ret : doctor_run_as_asked(ctx, &a, sel);
	free(sel);
	return ret;
}
