// SPDX-License-Identifier: MIT
/*
 * rdmactl doctor [--peer HOST [--token SECRET]] [--for nccl|ucx|mpi|perftest] [--only ID,...]
 *                [--skip ID,...] [--list]
 * One line per check (lib/doctor/), each not-ok line with its fix, and a
 * summary; exit 1 when a check failed.  This file parses the line, picks
 * the mode and calls it; each mode runs in a file of its own
 * (doctor_mode.h): this node's checks and --list, -w, --gathered,
 * --metrics and --slurm-health.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "cmds.h"
#include "doctor_mode.h"
#include "launch/nodes.h"
#include "probe/probe_proto.h"

/* What picks and shapes this node's checks: the node runs them, -w hands them to every node. */
#define M_CHECKS (M_NODE | M_CLUSTER | M_METRICS | M_HEALTH)
/* Modes that run this node's checks. */
#define M_LOCAL (M_NODE | M_METRICS | M_HEALTH)
#define M_ALL (M_NODE | M_CLUSTER | M_LIST | M_GATHERED | M_METRICS | M_HEALTH)

/* In the order of the usage; .modes says which modes take each. */
const struct opt doctor_opts[] = {
	{ "peer", OPT_PEER, ARG_HOST, "HOST", "also check the path to HOST (runs rdmactl probe --server)",
	  NULL, M_NODE | M_CLUSTER | M_METRICS },
	{ "port", OPT_PORT, ARG_INT, "PORT", "the peer's probe control port (default 18600)", NULL, M_CHECKS },
	{ "token", OPT_TOKEN, ARG_STR, "SECRET", "the peer's probe token (prefer RDMACTL_TOKEN)",
	  NULL, M_NODE | M_METRICS },
	{ "for", OPT_FOR, ARG_CHOICE, "JOB", "check for this kind of job (mpi: Open MPI over UCX)",
	  NULL, M_CHECKS, 0, &job_kinds_doctor },
	{ "user", OPT_USER, ARG_STR, "NAME", "the user whose login limit memlock.login checks (default: you)",
	  NULL, M_CHECKS },
	{ "only", OPT_ONLY, ARG_CHECKS, "ID,...", "run only these checks", NULL, M_CHECKS },
	{ "skip", OPT_SKIP, ARG_CHECKS, "ID,...", "leave these checks out", NULL, M_CHECKS },
	{ "list", OPT_LIST, ARG_NONE, NULL, "list the checks and what each looks at", NULL, M_LIST },
	{ "nodes", 'w', ARG_HOSTLIST, "HOSTLIST", "check these nodes (node[01-64], @FILE) and report on all",
	  NULL, M_CLUSTER },
	/* No -x: it is the GID index in probe, as in perftest (rdmactl gids --recommend prints it). */
	{ "exclude", OPT_EXCLUDE, ARG_HOSTLIST, "HOSTLIST", "with -w: leave these nodes out", NULL, M_CLUSTER },
	{ "launcher", OPT_LAUNCHER, ARG_CHOICE, "NAME", "with -w: how to reach the nodes",
	  "srun pdsh clush ssh local", M_CLUSTER },
	{ "fanout", OPT_FANOUT, ARG_INT, "N", "with -w: nodes at once (default 32)", NULL, M_CLUSTER },
	{ "node-timeout", OPT_NODE_TIMEOUT, ARG_INT, "SECONDS", "with -w: time one node may take (default 60)",
	  NULL, M_CLUSTER },
	{ "rdmactl", OPT_RDMACTL, ARG_STR, "PATH", "with -w: rdmactl on the nodes (default: their PATH's; local: this one)",
	  NULL, M_CLUSTER },
	{ "html", OPT_HTML, ARG_FILE, "FILE", "with -w: also write the report as one HTML page (rdmactl-report(8))",
	  NULL, M_CLUSTER },
	{ "force", 'f', ARG_NONE, NULL, "with -w: replace an existing --html FILE (only ever a regular file)",
	  NULL, M_CLUSTER },
	{ "local", OPT_LOCAL, ARG_NONE, NULL, "this node only, even inside a Slurm allocation", NULL, M_LOCAL },
	{ "slurm-health", OPT_SLURM_HEALTH, ARG_NONE, NULL,
	  "Slurm HealthCheckProgram/prolog mode: local checks, one line, the drain command", NULL, M_HEALTH },
	{ "drain", OPT_DRAIN, ARG_NONE, NULL,
	  "with --slurm-health: drain when a check fails, resume rdmactl's drain when all pass",
	  NULL, M_HEALTH },
	{ "dry-run", OPT_DRY_RUN, ARG_NONE, NULL,
	  "with --slurm-health: say what --drain would do, do nothing", NULL, M_HEALTH },
	{ "metrics", OPT_METRICS, ARG_NONE, NULL,
	  "print Prometheus metrics (node_exporter's textfile collector) instead of the table", NULL, M_METRICS },
	{ "output", 'o', ARG_FILE, "FILE", "with --metrics: write them to FILE, replacing it whole",
	  NULL, M_METRICS },
	{ "gathered", OPT_GATHERED, ARG_FILE, "FILE|-|DIR",
	  "report on documents gathered from many nodes (pdsh, clush, srun -l, HOST.json)", NULL, M_GATHERED },
	{ 0 }
};

static const char *const doctor_mode_names[] = {
	[DOCTOR_NODE] = "doctor",
	[DOCTOR_CLUSTER] = "doctor -w",
	[DOCTOR_LIST] = "doctor --list",
	[DOCTOR_GATHERED] = "doctor --gathered",
	[DOCTOR_METRICS] = "doctor --metrics",
	[DOCTOR_HEALTH] = "doctor --slurm-health",
	NULL
};

/*
 * The words of a refusal, where the mode gives a reason (the first that
 * fits); other pairs get opt_mode_check()'s own line.
 */
static const struct opt_refusal doctor_refusals[] = {
	{ M_CLUSTER, M_GATHERED, "Failed to use {opt} with --gathered: one runs the nodes, the other reads "
				 "what they printed" },
	{ M_ALL, M_GATHERED, "Failed to use {opt} with --gathered: the documents were made with the options "
			     "their nodes ran; give {opt} to rdmactl doctor there" },
	{ M_ALL, M_LIST, "Failed to list the checks: --list runs none, so {opt} would do nothing; leave one "
			 "of them out" },
	{ M_CLUSTER | M_HEALTH, M_METRICS, "Failed to use --metrics with --slurm-health, -w, --gathered or "
					   "--list: it reports this node's checks" },
	{ M_METRICS, M_NODE | M_CLUSTER | M_HEALTH, "Failed to use {opt} without --metrics: the table and "
						    "JSON go to standard output" },
	{ M_CLUSTER, M_HEALTH, "Failed to use --slurm-health with {opt}: it checks this node alone" },
	{ M_NODE | M_CLUSTER | M_METRICS, M_HEALTH, "Failed to use --slurm-health with {opt}: it runs the "
						    "local checks" },
	{ M_HEALTH, M_NODE | M_CLUSTER, "Failed to use {opt} without --slurm-health, which decides when "
					"to drain" },
	{ M_CLUSTER, M_NODE, "Failed to use {opt}: it is for a run on many nodes; give -w HOSTLIST too" },
	/* --token alone: the nodes' command lines are anyone's to read. */
	{ M_NODE | M_METRICS, M_CLUSTER, "Failed to use {opt} with -w: it would show in every node's "
					 "process list; give the nodes RDMACTL_TOKEN in their environment" },
	{ 0 }
};

const struct opt_modes doctor_modes = { doctor_mode_names, doctor_refusals };

/* What to check and against which peer; -ENOENT when @opt is none of them. */
static int check_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val)
{
	switch (opt) {
	case OPT_PEER: a->peer = val; return 0;
	case OPT_ONLY: a->only = val; return 0;
	case OPT_SKIP: a->skip = val; return 0;
	case OPT_LOCAL: a->local = true; return 0;
	case OPT_USER:
		if (*val && strlen(val) < 64 && !strchr(val, '/') && !strpbrk(val, " \t\n:")) {
			a->user = val;
			return 0;
		}
		log_err(ctx, "Failed to read --user '%s': not a user name", val);
		return -EINVAL;
	case OPT_PORT:
		a->port_given = true;
		if (!parse_long(val, 1, 65535, &a->port))
			return 0;
		log_err(ctx, "Failed to read --port '%s': not a port number (1-65535)", val);
		return -EINVAL;
	case OPT_FOR:	/* opt_next() let only the doctor's kinds through */
		return job_kind_parse(val, JOB_IN_DOCTOR, &a->target) ? -EINVAL : 0;
	case OPT_TOKEN:
		if (probe_token_from_arg(ctx, val, a->token))
			return -EINVAL;
		a->have_token = true;
		return 0;
	}
	return -ENOENT;
}

/* The modes that are one option each; -ENOENT when @opt is none of them. */
static int mode_opt(struct doctor_args *a, int opt, const char *val)
{
	switch (opt) {
	case OPT_LIST: a->list = true; return 0;
	case OPT_GATHERED: a->gathered = val; return 0;
	}
	return -ENOENT;
}

/* One option, whatever its mode (opt_mode_check() judges that later); 0 or -EINVAL (said). */
static int doctor_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val)
{
	int ret = doctor_cluster_opt(ctx, a, opt, val);

	if (ret == -ENOENT)
		ret = doctor_metrics_opt(a, opt, val);
	if (ret == -ENOENT)
		ret = doctor_health_opt(a, opt, val);
	if (ret == -ENOENT)
		ret = mode_opt(a, opt, val);
	if (ret == -ENOENT)
		ret = check_opt(ctx, a, opt, val);
	return ret == -ENOENT ? -EINVAL : ret;
}

/* The whole line into @a; 0, or -rc: 0 after --help, -RC_USAGE (message printed). */
static int parse_args(struct ctx *ctx, struct optparser *p, int argc, char **argv,
		      struct doctor_args *a)
{
	int c;

	memset(a, 0, sizeof(*a));
	a->port = PROBE_DEFAULT_PORT;
	a->c.fanout = 32;
	a->c.node_timeout = 60;
	if (opt_init(p, ctx, command_find("doctor"), argc, argv))
		return -RC_USAGE;
	while ((c = opt_next(p)) != OPT_END) {
		/* main() shows the help before any command runs; never run the checks after it. */
		if (c < 0)
			return c == OPT_HELP ? -RC_OK : -RC_USAGE;
		if (doctor_opt(ctx, a, c, p->optarg))
			return -RC_USAGE;
	}
	return opt_check_args(p) ? -RC_USAGE : 1;
}

/*
 * --token is for --peer's probe server alone: without --peer it would be
 * ignored without a word.  Only --peer reads RDMACTL_TOKEN, so a bad one
 * does not stop a run without it.  0 or -EINVAL (said).
 */
static int token_check(struct ctx *ctx, struct doctor_args *a)
{
	int ret;

	if (!a->peer && a->have_token) {
		log_err(ctx, "Failed to use --token: it is for the peer's probe server; give --peer HOST "
			"too, or leave --token out");
		return -EINVAL;
	}
	if (!a->peer || a->have_token)
		return 0;
	ret = probe_token_from_env(ctx, a->token);
	if (ret < 0)
		return -EINVAL;
	a->have_token = ret > 0;
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

/* Which rows run: --only's (or all), less --skip's; 0 or -rc. */
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

/*
 * No -w inside a Slurm allocation, and no mode of this node alone: the
 * allocation's nodes, said on the first line, for a doctor that turns into
 * -w without being asked.  1 with @nodes, 0 when it is not that, -EINVAL (said).
 */
static int slurm_cluster(struct ctx *ctx, const struct doctor_args *a, struct hostlist *nodes)
{
	const char *job = getenv("SLURM_JOB_ID");

	if (launch_nodes(ctx, NULL, a->c.x, nodes))
		return -EINVAL;
	if (!nodes->n)
		return 0;
	log_note(ctx, "no -w inside Slurm allocation%s%s: checking its nodes (doctor -w %s); --local "
		 "checks this node alone", job && *job ? " " : "", job && *job ? job : "",
		 getenv("SLURM_JOB_NODELIST"));
	return 1;
}

/* The mode the line asks for (@nodes filled for -w); -rc when it cannot be told. */
static int choose_mode(struct ctx *ctx, const struct doctor_args *a, struct hostlist *nodes)
{
	int ret;

	if (a->gathered)
		return DOCTOR_GATHERED;
	if (a->list)
		return DOCTOR_LIST;
	if (a->metrics)
		return DOCTOR_METRICS;
	if (a->health)
		return DOCTOR_HEALTH;
	if (a->c.w)
		return launch_nodes(ctx, a->c.w, a->c.x, nodes) ? -RC_USAGE : DOCTOR_CLUSTER;
	if (a->local)
		return DOCTOR_NODE;
	ret = slurm_cluster(ctx, a, nodes);
	if (ret < 0)
		return -RC_USAGE;
	return ret ? DOCTOR_CLUSTER : DOCTOR_NODE;
}

/* The mode's run, its options checked; an exit code. */
static int run_mode(struct ctx *ctx, struct doctor_args *a, int mode, const struct hostlist *nodes)
{
	size_t n = doctor_count();
	bool *sel;
	int ret;

	if (mode == DOCTOR_GATHERED)
		return doctor_gathered_run(ctx, a->gathered);
	if (mode == DOCTOR_LIST)
		return doctor_list_run(ctx);
	if (token_check(ctx, a))
		return RC_USAGE;
	sel = calloc(n, sizeof(*sel));
	if (!sel)
		return RC_PROBLEM;
	/*
	 * --only and --skip checked here, before -w starts a node: each node
	 * would refuse them too, and a typo became one error row per node.
	 */
	ret = -selection(ctx, a, sel, n);
	if (!ret && mode == DOCTOR_CLUSTER)
		ret = doctor_cluster_run(ctx, a, nodes);
	else if (!ret && mode == DOCTOR_METRICS)
		ret = doctor_metrics_run(ctx, a, sel);
	else if (!ret && mode == DOCTOR_HEALTH)
		ret = doctor_health_run(ctx, a, sel);
	else if (!ret)
		ret = doctor_node_run(ctx, a, sel);
	free(sel);
	return ret;
}

int cmd_doctor(struct ctx *ctx, int argc, char **argv)
{
	struct doctor_args a;
	struct optparser p;
	struct hostlist nodes;
	int mode, ret;

	ret = parse_args(ctx, &p, argc, argv, &a);
	if (ret <= 0)
		return -ret;
	hostlist_init(&nodes);
	mode = choose_mode(ctx, &a, &nodes);
	if (mode < 0)
		ret = -mode;
	else if (opt_mode_check(&p, (unsigned int)mode))
		ret = RC_USAGE;
	else
		ret = run_mode(ctx, &a, mode, &nodes);
	hostlist_free(&nodes);
	return ret;
}
