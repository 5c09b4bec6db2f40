// SPDX-License-Identifier: MIT
/*
 * rdmactl probe: RDMA WRITE (or TCP) bandwidth and latency between two
 * nodes, or between every pair of many (-w).  This file parses the line
 * and picks the mode; each mode runs in a file of its own (probe_mode.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/text.h"
#include "cmds.h"
#include "launch/nodes.h"
#include "probe_mode.h"

/* The test itself: the client runs it, -w hands it to every agent, which runs it. */
#define M_TEST (M_CLIENT | M_FLEET | M_AGENT)

/* In the order of the usage; .modes says which modes take each (0: all). */
const struct opt probe_opts[] = {
	{ "server", OPT_SERVER, ARG_NONE, NULL, "wait for clients instead of connecting to PEER", NULL, M_SERVER },
	{ "bind", OPT_BIND, ARG_HOST, "ADDR", "server: listen on ADDR only", NULL, M_SERVER },
	{ "port", OPT_PORT, ARG_INT, "PORT", "control TCP port (default 18600)" },
	{ "once", OPT_ONCE, ARG_NONE, NULL, "server: serve one client, then exit", NULL, M_SERVER },
	{ "device", 'd', ARG_DEVPORT, "DEV[/PORT]", "RDMA device and port (default: the one routing to PEER)",
	  NULL, M_CLIENT | M_SERVER },
	{ "gid-index", 'x', ARG_GID, "INDEX", "GID index (default: as `rdmactl gids --recommend`)" },
	{ "size", 's', ARG_STR, "SIZE", "message size, K/M/G suffixes (default 64K)", NULL, M_TEST },
	{ "sweep", OPT_SWEEP, ARG_NONE, NULL, "every power of two from 2 B to 8 MiB", NULL, M_TEST },
	{ "sweep-max", OPT_SWEEP_MAX, ARG_STR, "SIZE", "largest size of --sweep", NULL, M_TEST },
	{ "iters", 'n', ARG_INT, "N", "writes per QP and size (default 5000)", NULL, M_TEST },
	{ "duration", 'D', ARG_INT, "SECONDS", "run each size this long instead of -n", NULL, M_TEST },
	{ "qps", OPT_QPS, ARG_INT, "N", "queue pairs (TCP: streams), default 1", NULL, M_TEST },
	{ "depth", OPT_DEPTH, ARG_INT, "N", "outstanding writes per QP (default 128)", NULL, M_TEST },
	{ "bidir", OPT_BIDIR, ARG_NONE, NULL, "both ends write at once", NULL, M_TEST },
	{ "verify", OPT_VERIFY, ARG_NONE, NULL, "receivers check the data against a pattern", NULL, M_TEST },
	{ "rdma-cm", OPT_RDMA_CM, ARG_NONE, NULL, "connect the QPs through rdma_cm by IP address", NULL, M_TEST },
	{ "transport", OPT_TRANSPORT, ARG_CHOICE, "rdma|tcp", "what moves the data (default rdma)", "rdma tcp",
	  M_TEST },
	{ "expect", OPT_EXPECT, ARG_STR, "GBPS", "fail (exit 1) when the best average is below GBPS Gb/s",
	  NULL, M_CLIENT },
	{ "timeout", OPT_TIMEOUT, ARG_STR, "SECONDS", "give up any wait after this long (default 10)" },
	/* An agent serves too, as the schedule says. */
	{ "max-size", OPT_MAX_SIZE, ARG_STR, "SIZE", "server: refuse tests whose buffers exceed SIZE (default 1G)",
	  NULL, M_SERVER | M_AGENT },
	{ "lat-iters", OPT_LAT_ITERS, ARG_INT, "N", "ping-pong round trips per size (0: no latency)", NULL, M_TEST },
	/* -w's own check refuses it, from the line or RDMACTL_TOKEN alike (probe_fleet.c). */
	{ "token", OPT_TOKEN, ARG_STR, "SECRET", "shared secret both ends must hold (prefer RDMACTL_TOKEN)",
	  NULL, M_CLIENT | M_SERVER | M_FLEET },
	{ "nodes", LAUNCH_OPT_NODES, ARG_HOSTLIST, "HOSTLIST", "measure every pair of these nodes (node[01-64], @FILE)",
	  NULL, M_FLEET },
	{ "exclude", LAUNCH_OPT_EXCLUDE, ARG_HOSTLIST, "HOSTLIST", "with -w: leave these nodes out", NULL, M_FLEET },
	{ "launcher", LAUNCH_OPT_LAUNCHER, ARG_CHOICE, "NAME", "with -w: how to start the nodes' agents",
	  "srun pdsh clush ssh local", M_FLEET },
	{ "node-timeout", LAUNCH_OPT_NODE_TIMEOUT, ARG_INT, "SECONDS", "with -w: time every node's agent has to join (default 60)",
	  NULL, M_FLEET },
	{ "rdmactl", LAUNCH_OPT_RDMACTL, ARG_STR, "PATH", "with -w: rdmactl on the nodes (default: their PATH's; local: this one)",
	  NULL, M_FLEET },
	{ "pattern", OPT_PATTERN, ARG_CHOICE, "NAME", "with -w: which pairs, when (default pairs)",
	  "pairs ring quick triage", M_FLEET },
	{ "pairs", OPT_PAIRS, ARG_FILE, "FILE", "with -w: the schedule, one 'ROUND NODE_A NODE_B' a line",
	  NULL, M_FLEET },
	{ "slow", OPT_SLOW, ARG_STR, "FRACTION", "with -w: a link below this part of the median is slow (default 0.8)",
	  NULL, M_FLEET },
	{ "rails", OPT_RAILS, ARG_INT, "N", "with -w: rails probed at once (default: every active port)",
	  NULL, M_FLEET },
	{ "rendezvous", OPT_RENDEZVOUS, ARG_STR, "ADDR[:PORT]", "with -w: this host's address the agents connect to",
	  NULL, M_FLEET },
	{ "html", OPT_HTML, ARG_FILE, "FILE", "with -w: also write the report as one HTML page (rdmactl-report(8))",
	  NULL, M_FLEET },
	{ "save", OPT_SAVE, ARG_FILE, "FILE", "with -w: write the -j document to FILE as the run goes (kept if it is cut short)",
	  NULL, M_FLEET },
	{ "topology", OPT_TOPOLOGY, ARG_FILE, "FILE|slurm",
	  "with -w: the switch tree (Slurm's topology.conf, or 'slurm': scontrol show topology)", NULL, M_FLEET },
	{ "from", OPT_FROM, ARG_FILE, "FILE", "with -w: resume a saved run: test only what FILE left open or suspect",
	  NULL, M_FLEET },
	{ "force", 'f', ARG_NONE, NULL, "with -w: replace an existing --save or --html FILE (only ever a regular file)",
	  NULL, M_FLEET },
	{ "no-retest", OPT_NO_RETEST, ARG_NONE, NULL, "with -w: no retests of a slow link's ends, nor of the link",
	  NULL, M_FLEET },
	/* Internal: what -w starts on every node (probe_agent.c); not for the user's eye. */
	{ "agent", OPT_AGENT, ARG_STR, "HOST:PORT", "what -w runs on each node: meet the coordinator there",
	  NULL, M_AGENT, OPT_HIDDEN },
	{ 0 }
};

/*
 * The words of a refusal, where the mode gives a reason; other pairs get
 * opt_mode_check()'s own line ("... it is an option of probe -w").
 */
static const struct opt_refusal probe_refusals[] = {
	{ M_FLEET, M_CLIENT | M_SERVER, "Failed to use {opt}: it is for a run on many nodes; give -w "
					  "HOSTLIST too" },
	{ M_TEST, M_SERVER, "Failed to start the server: {opt} is a client option (the client chooses "
			    "the test); give it to the client, not with --server" },
	{ M_SERVER | M_AGENT, M_CLIENT, "Failed to start the client: {opt} is a server option; give it with "
					"--server on the other node" },
	{ M_SERVER | M_AGENT, M_FLEET, "Failed to use {opt} with -w: the nodes' agents serve as the "
					 "schedule says" },
	{ 0 }
};

static int opt_token(struct ctx *ctx, struct probe_args *a, const char *val)
{
	if (probe_token_from_arg(ctx, val, a->token))
		return -EINVAL;
	a->cfg.token = a->token;
	return 0;
}

/* RDMACTL_TOKEN when --token is not given; an empty one is no token. */
static int env_token(struct ctx *ctx, struct probe_args *a)
{
	int ret;

	if (a->cfg.token)
		return 0;
	ret = probe_token_from_env(ctx, a->token);
	if (ret > 0)
		a->cfg.token = a->token;
	return ret < 0 ? ret : 0;
}

/*
 * RDMACTL_PROBE_TCP_PACE=MBPS, a test aid (rdmactl-probe(8)): each TCP
 * stream this end sends on is paced to MBPS Mb/s.  Unset or empty: none.
 * The cap keeps the rate in SO_MAX_PACING_RATE's 32 bits of bytes/s.
 *
 * RDMACTL_PROBE_ACK_TIMEOUT=T, a test aid: this end's QPs wait 4.096 us
 * x 2^T for an ACK before they send again, not 2^14 (67 ms): the lab's
 * emulated guests at half pace answered in up to 90 ms, and the writes
 * they sent again hit Soft-RoCE's handling of duplicates.  1 to 31, the
 * 5 bits of the verbs attribute (0 would be no timeout at all).
 *
 * RDMACTL_PROBE_BUSY_POLL=1, a test aid: the writer polls its CQ flat out
 * until completions stop for 100 ms, as ib_write_bw does, rather than
 * sleep on it between completions more than 0.2 ms apart; the lab
 * compares like with like (tests/lab/t-probe-perf.sh).  0 or unset: the
 * default.
 *
 * RDMACTL_PROBE_GREET_MS=MS, a test aid: a server gives each message of a
 * client's handshake MS, not 3 s (--timeout still when shorter): a client
 * under valgrind on an emulated guest at half pace took longer than 3 s
 * between the server's answer and its request.  100 ms to 10 minutes.
 */
#define PROBE_PACE_MAX_MBPS 30000
#define PROBE_GREET_MIN_MS 100
#define PROBE_GREET_MAX_MS 600000

static int env_probe_aids(struct ctx *ctx, struct probe_args *a)
{
	long l = 0;

	if (env_long(ctx, "RDMACTL_PROBE_TCP_PACE", 1, PROBE_PACE_MAX_MBPS, "Mb/s", &l))
		return -EINVAL;
	a->cfg.tcp_pace_mbps = (uint32_t)l;
	l = 0;
	if (probe_ack_timeout_from_env(ctx, &a->cfg.ack_timeout))
		return -EINVAL;
	if (env_long(ctx, "RDMACTL_PROBE_BUSY_POLL", 0, 1, "a switch", &l))
		return -EINVAL;
	a->cfg.busy_poll = l == 1;
	l = 0;
	if (env_long(ctx, "RDMACTL_PROBE_GREET_MS", PROBE_GREET_MIN_MS, PROBE_GREET_MAX_MS,
		     "milliseconds", &l))
		return -EINVAL;
	a->cfg.greet_ms = (int)l;
	return 0;
}

/* ---- the options several modes share; -ENOENT when @c is none of them ---- */

/* Where the control connection goes, how long a wait may be, the run's secret. */
static int opt_link(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	struct probe_cfg *cfg = &a->cfg;
	double d;
	long l;

	switch (c) {
	case OPT_PORT:
		if (opt_long(ctx, "--port", val, 1, 65535, &l))
			return -EINVAL;
		cfg->port = (uint16_t)l;
		return 0;
	case OPT_TOKEN: return opt_token(ctx, a, val);
	case OPT_TIMEOUT:
		if (probe_parse_number(val, 0.05, 3600, &d))
			return probe_bad_value(ctx, "--timeout", val, "expected seconds from 0.05 to 3600");
		cfg->timeout_ms = (int)(d * 1000);
		return 0;
	}
	return -ENOENT;
}

/* One mode of probe: a row of probe_mode_table[]. */
struct probe_mode_row {
	const char *name;	/* as the user knows it, in messages: "probe -w" */
	int picked_by;		/* the option that picks it (enum probe_mode says in which order) */
	/* Its options: 0, -EINVAL (said), or -ENOENT when @c is another mode's. */
	int (*opt)(struct ctx *ctx, struct probe_args *a, int c, const char *val);
	/* The mode, chosen and its options checked: an exit code. */
	int (*run)(struct ctx *ctx, struct probe_args *a, const char *peer);
};

/*
 * Every mode of probe, each in a file of its own (probe_mode.h): a new
 * mode is a row here, its name in enum probe_mode and its bit on its
 * options in probe_opts[].  The client's options are the test's, which
 * -w and --agent take too.
 */
static const struct probe_mode_row probe_mode_table[PROBE_MODES] = {
	[PROBE_CLIENT] = { "probe PEER", 0, probe_test_opt, probe_client_run },
	[PROBE_SERVER] = { "probe --server", OPT_SERVER, probe_server_opt, probe_server_run },
	[PROBE_FLEET] = { "probe -w", LAUNCH_OPT_NODES, probe_fleet_opt, probe_fleet_run },
	[PROBE_AGENT] = { "probe --agent", OPT_AGENT, probe_agent_opt, probe_agent_run },
};

static const char *probe_mode_name(unsigned int mode)
{
	return mode < PROBE_MODES ? probe_mode_table[mode].name : NULL;
}

const struct opt_modes probe_modes = { probe_mode_name, probe_refusals };

/* One option, whatever its mode (opt_mode_check() judges that later); 0 or -EINVAL (said). */
static int probe_opt(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	unsigned int m;
	int ret = opt_link(ctx, a, c, val);

	for (m = 0; m < PROBE_MODES && ret == -ENOENT; m++)
		ret = probe_mode_table[m].opt(ctx, a, c, val);
	return ret == -ENOENT ? -EINVAL : ret;
}

static void args_defaults(struct probe_args *a)
{
	memset(a, 0, sizeof(*a));
	hostlist_init(&a->nodes);
	a->cfg.port = PROBE_DEFAULT_PORT;
	a->cfg.max_size = PROBE_DEFAULT_MAX_SIZE;
	a->cfg.timeout_ms = PROBE_DEFAULT_TIMEOUT_MS;
	a->cfg.gid_index = -1;
	a->cfg.req.qps = 1;
	a->cfg.req.depth = PROBE_DEFAULT_DEPTH;
	a->size = PROBE_DEFAULT_SIZE;
	a->sweep_max = 8u << 20;
	a->coord.slow = 0.8;
	a->coord.retest = true;
	launch_args_init(&a->launch);
}

/*
 * The whole line into @a: the first positional's index (at least 1: argv[0]
 * is "probe"), or -rc: 0 after --help, -RC_USAGE (message printed).
 */
static int parse_line(struct ctx *ctx, struct probe_args *a, struct optparser *p, int argc,
		      char **argv)
{
	int c;

	if (opt_init(p, ctx, command_find("probe"), argc, argv))
		return -RC_USAGE;
	while ((c = opt_next(p)) != OPT_END) {
		if (c < 0)
			return c == OPT_HELP ? -RC_OK : -RC_USAGE;
		if (probe_opt(ctx, a, c, p->optarg))
			return -RC_USAGE;
		/* -s with --sweep or --sweep-max: the message names the one given first. */
		if ((c == OPT_SWEEP || c == OPT_SWEEP_MAX) && !a->sweep_opt[0])
			opt_typed(p, c, a->sweep_opt, sizeof(a->sweep_opt));
		if (probe_forward(a, probe_opts, c, p->optarg)) {
			log_err(ctx, "Failed to keep the test's options for -w's agents: %zu of them is "
				"too many; give each once", a->nfwd);
			return -RC_USAGE;
		}
	}
	if (opt_check_args(p))
		return -RC_USAGE;
	return p->optind;
}

/*
 * No PEER, no --server, and inside a Slurm allocation: the allocation's
 * nodes, said on the first line, for a probe that turns into -w without
 * being asked.
 */
static const struct launch_allocation_note allocation_note = { "PEER", "measuring", "probe -w", "" };

/*
 * The mode the line asks for (enum probe_mode: the last picked; a->nodes
 * filled for an implicit -w); -rc when it cannot be told.
 */
static int choose_mode(struct ctx *ctx, const struct optparser *p, struct probe_args *a,
		       const char *peer)
{
	unsigned int m;
	int ret;

	for (m = PROBE_MODES - 1; m > PROBE_CLIENT; m--)
		if (opt_given(p, probe_mode_table[m].picked_by))
			return (int)m;
	if (peer)
		return PROBE_CLIENT;
	ret = launch_allocation(ctx, a->launch.x, &allocation_note, &a->nodes);
	if (ret < 0)
		return -RC_USAGE;
	return ret ? PROBE_FLEET : PROBE_CLIENT;
}

static int run_mode(struct ctx *ctx, struct probe_args *a, const struct optparser *p,
		    const char *peer)
{
	int mode, rc;

	mode = choose_mode(ctx, p, a, peer);
	if (mode < 0)
		rc = -mode;
	else if (opt_mode_check(p, (unsigned int)mode))
		rc = RC_USAGE;
	else
		rc = probe_mode_table[mode].run(ctx, a, peer);
	hostlist_free(&a->nodes);
	return rc;
}

int cmd_probe(struct ctx *ctx, int argc, char **argv)
{
	struct probe_args a;
	struct optparser p;
	int idx;

	args_defaults(&a);
	idx = parse_line(ctx, &a, &p, argc, argv);
	if (idx <= 0)
		return probe_forward_done(&a, -idx);
	if (env_token(ctx, &a) || env_probe_aids(ctx, &a))
		return probe_forward_done(&a, RC_USAGE);
	return probe_forward_done(&a, run_mode(ctx, &a, &p, idx < argc ? argv[idx] : NULL));
}
