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
#include "base/text.h"
#include "cmds.h"
#include "doctor_mode.h"
#include "launch/nodes.h"
#include "probe/probe.h"
#include "probe/probe_proto.h"

/*
 * The modes, as doctor_mode_table[] below is indexed: bit i of struct
 * opt.modes is mode i.  The order is the line's judge: the first mode after
 * DOCTOR_NODE whose option is given is the mode (--gathered over --list,
 * --metrics over --slurm-health); none given, this node's checks, or -w's
 * run on a Slurm allocation's nodes.  It also orders the modes an option
 * belongs to in a refusal ("an option of doctor, doctor --metrics or ...").
 */
enum doctor_mode { DOCTOR_NODE, DOCTOR_GATHERED, DOCTOR_LIST, DOCTOR_METRICS, DOCTOR_HEALTH,
		   DOCTOR_FLEET, DOCTOR_MODES };
#define M(mode) (1u << DOCTOR_##mode)
#define M_ALL ((1u << DOCTOR_MODES) - 1)
/* What picks and shapes this node's checks: the node runs them, -w hands them to every node. */
#define M_CHECKS (M(NODE) | M(FLEET) | M(METRICS) | M(HEALTH))
/* Modes that run this node's checks. */
#define M_LOCAL (M(NODE) | M(METRICS) | M(HEALTH))

/* In the order of the usage; .modes says which modes take each. */
const struct opt doctor_opts[] = {
	{ "peer", OPT_PEER, ARG_HOST, "HOST", "also check the path to HOST (runs rdmactl probe --server)",
	  NULL, M(NODE) | M(FLEET) | M(METRICS) },
	{ "port", OPT_PORT, ARG_INT, "PORT", "the peer's probe control port (default 18600)", NULL, M_CHECKS },
	{ "token", OPT_TOKEN, ARG_STR, "SECRET", "the peer's probe token (prefer RDMACTL_TOKEN)",
	  NULL, M(NODE) | M(METRICS) },
	{ "for", OPT_FOR, ARG_CHOICE, "JOB", "check for this kind of job (mpi: Open MPI over UCX)",
	  NULL, M_CHECKS, 0, &job_kinds_doctor },
	{ "user", OPT_USER, ARG_STR, "NAME", "the user whose login limit memlock.login checks (default: you)",
	  NULL, M_CHECKS },
	{ "only", OPT_ONLY, ARG_CHECKS, "ID,...", "run only these checks", NULL, M_CHECKS },
	{ "skip", OPT_SKIP, ARG_CHECKS, "ID,...", "leave these checks out", NULL, M_CHECKS },
	{ "list", OPT_LIST, ARG_NONE, NULL, "list the checks and what each looks at", NULL, M(LIST) },
	{ "nodes", LAUNCH_OPT_NODES, ARG_HOSTLIST, "HOSTLIST", "check these nodes (node[01-64], @FILE) and report on all",
	  NULL, M(FLEET) },
	/* No -x: it is the GID index in probe, as in perftest (rdmactl gids --recommend prints it). */
	{ "exclude", LAUNCH_OPT_EXCLUDE, ARG_HOSTLIST, "HOSTLIST", "with -w: leave these nodes out", NULL, M(FLEET) },
	{ "launcher", LAUNCH_OPT_LAUNCHER, ARG_CHOICE, "NAME", "with -w: how to reach the nodes",
	  "srun pdsh clush ssh local", M(FLEET) },
	{ "fanout", LAUNCH_OPT_FANOUT, ARG_INT, "N", "with -w: nodes at once (default 32)", NULL, M(FLEET) },
	{ "node-timeout", LAUNCH_OPT_NODE_TIMEOUT, ARG_INT, "SECONDS", "with -w: time one node may take (default 60)",
	  NULL, M(FLEET) },
	{ "rdmactl", LAUNCH_OPT_RDMACTL, ARG_STR, "PATH", "with -w: rdmactl on the nodes (default: their PATH's; local: this one)",
	  NULL, M(FLEET) },
	{ "html", OPT_HTML, ARG_FILE, "FILE", "with -w: also write the report as one HTML page (rdmactl-report(8))",
	  NULL, M(FLEET) },
	{ "force", 'f', ARG_NONE, NULL, "with -w: replace an existing --html FILE (only ever a regular file)",
	  NULL, M(FLEET) },
	{ "local", OPT_LOCAL, ARG_NONE, NULL, "this node only, even inside a Slurm allocation", NULL, M_LOCAL },
	{ "slurm-health", OPT_SLURM_HEALTH, ARG_NONE, NULL,
	  "Slurm HealthCheckProgram/prolog mode: local checks, one line, the drain command", NULL, M(HEALTH) },
	{ "drain", OPT_DRAIN, ARG_NONE, NULL,
	  "with --slurm-health: drain when a check fails, resume rdmactl's drain when all pass",
	  NULL, M(HEALTH) },
	{ "dry-run", OPT_DRY_RUN, ARG_NONE, NULL,
	  "with --slurm-health: say what --drain would do, do nothing", NULL, M(HEALTH) },
	{ "metrics", OPT_METRICS, ARG_NONE, NULL,
	  "print Prometheus metrics (node_exporter's textfile collector) instead of the table", NULL, M(METRICS) },
	{ "output", 'o', ARG_FILE, "FILE", "with --metrics: write them to FILE, replacing it whole",
	  NULL, M(METRICS) },
	{ "gathered", OPT_GATHERED, ARG_FILE, "FILE|-|DIR",
	  "report on documents gathered from many nodes (pdsh, clush, srun -l, HOST.json)", NULL, M(GATHERED) },
	{ 0 }
};

/*
 * The words of a refusal, where the mode gives a reason (the first that
 * fits); other pairs get opt_mode_check()'s own line.
 */
static const struct opt_refusal doctor_refusals[] = {
	{ M(FLEET), M(GATHERED), "Failed to use {opt} with --gathered: one runs the nodes, the other reads "
				 "what they printed" },
	{ M_ALL, M(GATHERED), "Failed to use {opt} with --gathered: the documents were made with the options "
			     "their nodes ran; give {opt} to rdmactl doctor there" },
	{ M_ALL, M(LIST), "Failed to list the checks: --list runs none, so {opt} would do nothing; leave one "
			 "of them out" },
	{ M(FLEET) | M(HEALTH), M(METRICS), "Failed to use --metrics with --slurm-health, -w, --gathered or "
					   "--list: it reports this node's checks" },
	{ M(METRICS), M(NODE) | M(FLEET) | M(HEALTH), "Failed to use {opt} without --metrics: the table and "
						    "JSON go to standard output" },
	{ M(FLEET), M(HEALTH), "Failed to use --slurm-health with {opt}: it checks this node alone" },
	{ M(NODE) | M(FLEET) | M(METRICS), M(HEALTH), "Failed to use --slurm-health with {opt}: it runs the "
						    "local checks" },
	{ M(HEALTH), M(NODE) | M(FLEET), "Failed to use {opt} without --slurm-health, which decides when "
					"to drain" },
	{ M(FLEET), M(NODE), "Failed to use {opt}: it is for a run on many nodes; give -w HOSTLIST too" },
	/* --token alone: the nodes' command lines are anyone's to read. */
	{ M(NODE) | M(METRICS), M(FLEET), "Failed to use {opt} with -w: it would show in every node's "
					 "process list; give the nodes RDMACTL_TOKEN in their environment" },
	{ 0 }
};

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

/* --list and --gathered, the modes that are one option each; -ENOENT for another. */
static int list_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val)
{
	(void)ctx, (void)a, (void)val;
	return opt == OPT_LIST ? 0 : -ENOENT;
}

static int gathered_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val)
{
	(void)ctx;
	if (opt != OPT_GATHERED)
		return -ENOENT;
	a->gathered = val;
	return 0;
}

/* One mode of doctor: a row of doctor_mode_table[]. */
struct doctor_mode_row {
	const char *name;	/* as the user knows it, in messages: "doctor -w" */
	int picked_by;		/* the option that picks it (enum doctor_mode says in which order) */
	/* Its options: 0, -EINVAL (said), or -ENOENT when @opt is another mode's. */
	int (*opt)(struct ctx *ctx, struct doctor_args *a, int opt, const char *val);
	/* The mode, chosen and its options checked: an exit code. */
	int (*run)(struct ctx *ctx, const struct doctor_args *a, const bool *sel);
	bool checks;		/* it runs checks: --only and --skip read, --peer's token found first */
};

/*
 * Every mode of doctor, each in a file of its own (doctor_mode.h): a new
 * mode is a row here, its name in enum doctor_mode and its options'
 * M(NAME) in doctor_opts[].
 */
static const struct doctor_mode_row doctor_mode_table[DOCTOR_MODES] = {
	[DOCTOR_NODE] = { "doctor", 0, check_opt, doctor_node_run, true },
	[DOCTOR_GATHERED] = { "doctor --gathered", OPT_GATHERED, gathered_opt, doctor_gathered_run, false },
	[DOCTOR_LIST] = { "doctor --list", OPT_LIST, list_opt, doctor_list_run, false },
	[DOCTOR_METRICS] = { "doctor --metrics", OPT_METRICS, doctor_metrics_opt, doctor_metrics_run, true },
	[DOCTOR_HEALTH] = { "doctor --slurm-health", OPT_SLURM_HEALTH, doctor_health_opt,
			    doctor_health_run, true },
	[DOCTOR_FLEET] = { "doctor -w", LAUNCH_OPT_NODES, doctor_fleet_opt, doctor_fleet_run, true },
};

static const char *doctor_mode_name(unsigned int mode)
{
	return mode < DOCTOR_MODES ? doctor_mode_table[mode].name : NULL;
}

const struct opt_modes doctor_modes = { doctor_mode_name, doctor_refusals };

/* One option, whatever its mode (opt_mode_check() judges that later); 0 or -EINVAL (said). */
static int doctor_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val)
{
	unsigned int m;
	int ret = -ENOENT;

	for (m = 0; m < DOCTOR_MODES && ret == -ENOENT; m++)
		ret = doctor_mode_table[m].opt(ctx, a, opt, val);
	return ret == -ENOENT ? -EINVAL : ret;
}

/* The whole line into @a; 0, or -rc: 0 after --help, -RC_USAGE (message printed). */
static int parse_args(struct ctx *ctx, struct optparser *p, int argc, char **argv,
		      struct doctor_args *a)
{
	int c;

	memset(a, 0, sizeof(*a));
	hostlist_init(&a->nodes);
	a->port = PROBE_DEFAULT_PORT;
	launch_args_init(&a->fleet.launch);
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
 * -w without being asked.
 */
static const struct launch_allocation_note allocation_note = {
	"-w", "checking", "doctor -w", "; --local checks this node alone"
};

/*
 * The mode the line asks for (enum doctor_mode: the first picked; a->nodes
 * filled for -w); -rc when it cannot be told.
 */
static int choose_mode(struct ctx *ctx, const struct optparser *p, struct doctor_args *a)
{
	unsigned int m;
	int ret;

	for (m = DOCTOR_NODE + 1; m < DOCTOR_MODES; m++)
		if (opt_given(p, doctor_mode_table[m].picked_by))
			break;
	if (m == DOCTOR_FLEET)
		return launch_nodes(ctx, a->fleet.launch.w, a->fleet.launch.x, &a->nodes) ? -RC_USAGE : DOCTOR_FLEET;
	if (m < DOCTOR_MODES)
		return (int)m;
	if (a->local)
		return DOCTOR_NODE;
	ret = launch_allocation(ctx, a->fleet.launch.x, &allocation_note, &a->nodes);
	if (ret < 0)
		return -RC_USAGE;
	return ret ? DOCTOR_FLEET : DOCTOR_NODE;
}

/* The mode's run, its options checked; an exit code. */
static int run_mode(struct ctx *ctx, struct doctor_args *a, unsigned int mode)
{
	const struct doctor_mode_row *row = &doctor_mode_table[mode];
	size_t n = doctor_count();
	bool *sel;
	int ret;

	if (!row->checks)
		return row->run(ctx, a, NULL);
	if (token_check(ctx, a))
		return RC_USAGE;
	/* As for the token: only --peer's probe reads it. */
	if (a->peer && probe_ack_timeout_from_env(ctx, &a->ack_timeout))
		return RC_USAGE;
	sel = calloc(n, sizeof(*sel));
	if (!sel)
		return RC_PROBLEM;
	/*
	 * --only and --skip checked here, before -w starts a node: each node
	 * would refuse them too, and a typo became one error row per node.
	 */
	ret = -selection(ctx, a, sel, n);
	if (!ret)
		ret = row->run(ctx, a, sel);
	free(sel);
	return ret;
}

int cmd_doctor(struct ctx *ctx, int argc, char **argv)
{
	struct doctor_args a;
	struct optparser p;
	int mode, ret;

	ret = parse_args(ctx, &p, argc, argv, &a);
	if (ret <= 0)
		return -ret;
	mode = choose_mode(ctx, &p, &a);
	if (mode < 0)
		ret = -mode;
	else if (opt_mode_check(&p, (unsigned int)mode))
		ret = RC_USAGE;
	else
		ret = run_mode(ctx, &a, (unsigned int)mode);
	hostlist_free(&a.nodes);
	return ret;
}
