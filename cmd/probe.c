// SPDX-License-Identifier: MIT
/*
 * rdmactl probe: RDMA WRITE (or TCP) bandwidth and latency between two
 * nodes.  `rdmactl probe --server` on one, `rdmactl probe PEER` on the
 * other; both print the same table.  The session is lib/probe/probe.c.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/output.h"
#include "base/text.h"
#include "cmds.h"
#include "launch/nodes.h"
#include "mesh/agent.h"
#include "mesh/coord.h"
#include "mesh/resume.h"
#include "mesh/runsave.h"
#include "node/hwcnt.h"
#include "node/rdma.h"
#include "probe/probe.h"
#include "probe/probe_auth.h"
#include "probe/probe_ctl.h"
#include "report/html.h"

enum {
	OPT_SERVER = OPT_LONG_BASE,
	OPT_BIND,
	OPT_PORT,
	OPT_ONCE,
	OPT_SWEEP,
	OPT_SWEEP_MAX,
	OPT_QPS,
	OPT_DEPTH,
	OPT_BIDIR,
	OPT_VERIFY,
	OPT_RDMA_CM,
	OPT_TRANSPORT,
	OPT_EXPECT,
	OPT_TIMEOUT,
	OPT_MAX_SIZE,
	OPT_LAT_ITERS,
	OPT_TOKEN,
	OPT_EXCLUDE,
	OPT_LAUNCHER,
	OPT_NODE_TIMEOUT,
	OPT_RDMACTL,
	OPT_PATTERN,
	OPT_PAIRS,
	OPT_SLOW,
	OPT_RAILS,
	OPT_RENDEZVOUS,
	OPT_NO_RETEST,
	OPT_AGENT,
	OPT_HTML,
	OPT_SAVE,
	OPT_FROM,
	OPT_FORCE,
};

const struct opt probe_opts[] = {
	{ "server", OPT_SERVER, ARG_NONE, NULL, "wait for clients instead of connecting to PEER" },
	{ "bind", OPT_BIND, ARG_HOST, "ADDR", "server: listen on ADDR only" },
	{ "port", OPT_PORT, ARG_INT, "PORT", "control TCP port (default 18600)" },
	{ "once", OPT_ONCE, ARG_NONE, NULL, "server: serve one client, then exit" },
	{ "device", 'd', ARG_DEVPORT, "DEV[/PORT]", "RDMA device and port (default: the one routing to PEER)" },
	{ "gid-index", 'x', ARG_GID, "INDEX", "GID index (default: as `rdmactl gids --recommend`)" },
	{ "size", 's', ARG_STR, "SIZE", "message size, K/M/G suffixes (default 64K)" },
	{ "sweep", OPT_SWEEP, ARG_NONE, NULL, "every power of two from 2 B to 8 MiB" },
	{ "sweep-max", OPT_SWEEP_MAX, ARG_STR, "SIZE", "largest size of --sweep" },
	{ "iters", 'n', ARG_INT, "N", "writes per QP and size (default 5000)" },
	{ "duration", 'D', ARG_INT, "SECONDS", "run each size this long instead of -n" },
	{ "qps", OPT_QPS, ARG_INT, "N", "queue pairs (TCP: streams), default 1" },
	{ "depth", OPT_DEPTH, ARG_INT, "N", "outstanding writes per QP (default 128)" },
	{ "bidir", OPT_BIDIR, ARG_NONE, NULL, "both ends write at once" },
	{ "verify", OPT_VERIFY, ARG_NONE, NULL, "receivers check the data against a pattern" },
	{ "rdma-cm", OPT_RDMA_CM, ARG_NONE, NULL, "connect the QPs through rdma_cm by IP address" },
	{ "transport", OPT_TRANSPORT, ARG_CHOICE, "rdma|tcp", "what moves the data (default rdma)", "rdma tcp" },
	{ "expect", OPT_EXPECT, ARG_STR, "GBPS", "fail (exit 1) when the best average is below GBPS Gb/s" },
	{ "timeout", OPT_TIMEOUT, ARG_STR, "SECONDS", "give up any wait after this long (default 10)" },
	{ "max-size", OPT_MAX_SIZE, ARG_STR, "SIZE", "server: refuse tests whose buffers exceed SIZE (default 1G)" },
	{ "lat-iters", OPT_LAT_ITERS, ARG_INT, "N", "ping-pong round trips per size (0: no latency)" },
	{ "token", OPT_TOKEN, ARG_STR, "SECRET", "shared secret both ends must hold (prefer RDMACTL_TOKEN)" },
	{ "nodes", 'w', ARG_HOSTLIST, "HOSTLIST", "measure every pair of these nodes (node[01-64], @FILE)" },
	{ "exclude", OPT_EXCLUDE, ARG_HOSTLIST, "HOSTLIST", "with -w: leave these nodes out" },
	{ "launcher", OPT_LAUNCHER, ARG_CHOICE, "NAME", "with -w: how to start the nodes' agents",
	  "srun pdsh clush ssh local" },
	{ "node-timeout", OPT_NODE_TIMEOUT, ARG_INT, "SECONDS", "with -w: time every node's agent has to join (default 60)" },
	{ "rdmactl", OPT_RDMACTL, ARG_STR, "PATH", "with -w: rdmactl on the nodes (default: their PATH's; local: this one)" },
	{ "pattern", OPT_PATTERN, ARG_CHOICE, "NAME", "with -w: which pairs, when (default pairs)",
	  "pairs ring quick triage" },
	{ "pairs", OPT_PAIRS, ARG_FILE, "FILE", "with -w: the schedule, one 'ROUND NODE_A NODE_B' a line" },
	{ "slow", OPT_SLOW, ARG_STR, "FRACTION", "with -w: a link below this part of the median is slow (default 0.8)" },
	{ "rails", OPT_RAILS, ARG_INT, "N", "with -w: rails probed at once (default: every active port)" },
	{ "rendezvous", OPT_RENDEZVOUS, ARG_STR, "ADDR[:PORT]", "with -w: this host's address the agents connect to" },
	{ "html", OPT_HTML, ARG_FILE, "FILE", "with -w: also write the report as one HTML page (rdmactl-report(8))" },
	{ "save", OPT_SAVE, ARG_FILE, "FILE", "with -w: write the -j document to FILE as the run goes (kept if it is cut short)" },
	{ "from", OPT_FROM, ARG_FILE, "FILE", "with -w: resume a saved run: test only what FILE left open or suspect" },
	{ "force", 'f', ARG_NONE, NULL, "with -w: replace an existing --save or --html FILE (only ever a regular file)" },
	{ "no-retest", OPT_NO_RETEST, ARG_NONE, NULL, "with -w: do not retest a slow link's ends against a good node" },
	{ "agent", OPT_AGENT, ARG_STR, "HOST:PORT", "what -w runs on each node: meet the coordinator there" },
	{ 0 }
};

static const struct column probe_cols[] = {
	{ "bytes", "BYTES", COL_RIGHT, NULL },
	{ "msgs", "MSGS", COL_RIGHT, NULL },
	{ "bw_peak_gbps", "PEAK_Gb/s", COL_RIGHT, NULL },
	{ "bw_avg_gbps", "AVG_Gb/s", COL_RIGHT, NULL },
	{ "bw_peak_MBps", "PEAK_MB/s", COL_RIGHT, NULL },
	{ "bw_avg_MBps", "AVG_MB/s", COL_RIGHT, NULL },
	{ "msg_rate_mpps", "MRATE_Mpps", COL_RIGHT, NULL },
	{ "lat_min_us", "LAT_MIN_us", COL_RIGHT, NULL },
	{ "lat_median_us", "LAT_MED_us", COL_RIGHT, NULL },
	{ "lat_p99_us", "LAT_P99_us", COL_RIGHT, NULL },
	{ "verify_errors", "VERIFY_ERR", COL_RIGHT | COL_WIDE, NULL },
	{ 0 }
};

struct probe_out {
	struct ctx *ctx;
	struct probe_report rep;
	struct table *t;
	struct json_object *info;
	bool server, once, verify;
	double best_gbps;
	uint64_t verify_errors;
	int err;
	/* The port counters that grew during the session (RDMA, when readable). */
	bool counted;
	char counted_port[80];
	struct hwcnt grew;
};

/* "64K", "1M", "2GiB", "4096": bytes in [1, 2^31]; 0 or -EINVAL. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	}
	if (shift && (!strcasecmp(end, "iB") || !strcasecmp(end, "B")))
		end += strlen(end);
	if (errno || *end || !v || v > (PROBE_MAX_MSG_SIZE >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_seconds(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

struct probe_args {
	struct probe_cfg cfg;
	bool server, sweep, have_n, have_D, have_s, have_lat;
	uint64_t size, sweep_max;
	char token[PROBE_TOKEN_MAX + 1];
	/* The first server-only and client-only option given, as written ("" when none). */
	char server_opt[32], client_opt[32];
	char sweep_opt[32];	/* "--sweep" or "--sweep-max", as given first */
	/* The cluster probe (-w) and its agents (--agent). */
	struct coord_cfg cl;
	const char *w, *x, *launcher, *agent, *html, *from;
	bool force;		/* -f: --save and --html may replace a regular file */
	char cluster_opt[32];	/* the first option of -w's, as given */
	char *fwd[40];		/* the test's options, for every agent */
	size_t nfwd;
};

/*
 * Options of one role.  Given to the other they would be ignored without a
 * word (a server's -s, a client's --once), so they are refused instead.
 * The rest (--port, -d, -x, --timeout, --token) serve both ends.
 */
static const int server_only[] = { OPT_BIND, OPT_ONCE, OPT_MAX_SIZE };
static const int client_only[] = {
	's', OPT_SWEEP, OPT_SWEEP_MAX, 'n', 'D', OPT_QPS, OPT_DEPTH, OPT_BIDIR, OPT_VERIFY,
	OPT_RDMA_CM, OPT_TRANSPORT, OPT_EXPECT, OPT_LAT_ITERS,
};

static bool in_list(const int *list, size_t n, int c)
{
	while (n--)
		if (list[n] == c)
			return true;
	return false;
}

/* Note @c's role (and --sweep's spelling) for args_finish(), as the user wrote it. */
static void note_role(struct probe_args *a, const struct optparser *p, int c)
{
	char name[32];

	if (!in_list(server_only, sizeof(server_only) / sizeof(*server_only), c) &&
	    !in_list(client_only, sizeof(client_only) / sizeof(*client_only), c))
		return;
	opt_typed(p, c, name, sizeof(name));
	if (in_list(server_only, sizeof(server_only) / sizeof(*server_only), c) && !a->server_opt[0])
		snprintf(a->server_opt, sizeof(a->server_opt), "%s", name);
	if (in_list(client_only, sizeof(client_only) / sizeof(*client_only), c) && !a->client_opt[0])
		snprintf(a->client_opt, sizeof(a->client_opt), "%s", name);
	if ((c == OPT_SWEEP || c == OPT_SWEEP_MAX) && !a->sweep_opt[0])
		snprintf(a->sweep_opt, sizeof(a->sweep_opt), "%s", name);
}

static int bad_value(struct ctx *ctx, const char *opt, const char *val, const char *what)
{
	log_err(ctx, "Failed to parse %s '%s': %s", opt, val, what);
	return -EINVAL;
}

static int set_long(struct ctx *ctx, const char *opt, const char *val, long min, long max, long *out)
{
	char what[64];

	if (!parse_long(val, min, max, out))
		return 0;
	snprintf(what, sizeof(what), "expected a whole number from %ld to %ld", min, max);
	return bad_value(ctx, opt, val, what);
}

static int opt_device(struct ctx *ctx, struct probe_cfg *c, const char *val)
{
	if (rdma_parse_devport(val, c->dev, sizeof(c->dev), &c->ib_port))
		return bad_value(ctx, "-d", val, "expected DEV or DEV/PORT");
	return 0;
}

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
 * Option handlers by group; each returns 0, -EINVAL (message printed), or
 * -ENOENT when @c is not one of its options.
 */

/* Which role, where it listens or connects, and the run's secret. */
static int opt_role(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	struct probe_cfg *cfg = &a->cfg;
	long l;

	switch (c) {
	case OPT_SERVER: a->server = true; return 0;
	case OPT_BIND: cfg->bind = val; return 0;
	case OPT_PORT:
		if (set_long(ctx, "--port", val, 1, 65535, &l))
			return -EINVAL;
		cfg->port = (uint16_t)l;
		return 0;
	case OPT_ONCE: cfg->once = true; return 0;
	case OPT_TOKEN: return opt_token(ctx, a, val);
	case OPT_TIMEOUT: {
		double d;

		if (parse_seconds(val, 0.05, 3600, &d))
			return bad_value(ctx, "--timeout", val, "expected seconds from 0.05 to 3600");
		cfg->timeout_ms = (int)(d * 1000);
		return 0;
	}
	}
	return -ENOENT;
}

/* Message sizes: one, a sweep, or the server's cap. */
static int opt_sizes(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	switch (c) {
	case 's':
		a->have_s = true;
		return parse_size(val, &a->size) ? bad_value(ctx, "-s", val, "expected bytes from 1 to 2G, "
							    "with an optional K, M or G") : 0;
	case OPT_SWEEP: a->sweep = true; return 0;
	case OPT_SWEEP_MAX:
		a->sweep = true;
		if (parse_size(val, &a->sweep_max) || !is_pow2(a->sweep_max) || a->sweep_max < 2)
			return bad_value(ctx, "--sweep-max", val, "expected a power of two, at least 2");
		return 0;
	case OPT_MAX_SIZE: {
		uint64_t v;

		if (parse_size(val, &v))
			return bad_value(ctx, "--max-size", val, "expected bytes, with K, M or G");
		a->cfg.max_size = v;
		return 0;
	}
	}
	return -ENOENT;
}

/* How much to send: writes, seconds, latency rounds, queues and their depth. */
static int opt_amount(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	struct probe_test_req *req = &a->cfg.req;
	long l;

	switch (c) {
	case 'n':
		a->have_n = true;
		if (set_long(ctx, "-n", val, 1, (long)PROBE_MAX_ITERS, &l))
			return -EINVAL;
		req->iters = (uint64_t)l;
		return 0;
	case 'D':
		a->have_D = true;
		if (set_long(ctx, "-D", val, 1, PROBE_MAX_DURATION_MS / 1000, &l))
			return -EINVAL;
		req->duration_ms = (uint32_t)l * 1000;
		return 0;
	case OPT_LAT_ITERS:
		a->have_lat = true;
		if (set_long(ctx, "--lat-iters", val, 0, 1000000, &l))
			return -EINVAL;
		req->lat_iters = (uint32_t)l;
		return 0;
	case OPT_QPS:
		if (set_long(ctx, "--qps", val, 1, PROBE_MAX_QPS, &l))
			return -EINVAL;
		req->qps = (uint16_t)l;
		return 0;
	case OPT_DEPTH:
		if (set_long(ctx, "--depth", val, 1, PROBE_MAX_DEPTH, &l))
			return -EINVAL;
		req->depth = (uint32_t)l;
		return 0;
	}
	return -ENOENT;
}

/* The path: device, GID, transport, the run's flags and the expected rate. */
static int opt_path(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	struct probe_cfg *cfg = &a->cfg;
	long l;

	switch (c) {
	case 'd': return opt_device(ctx, cfg, val);
	case 'x':
		/* -x is perftest's GID index; doctor's -x (--exclude) is pdsh's and srun's. */
		if (parse_long(val, 0, 255, &l))
			return bad_value(ctx, "-x", val, "expected a GID index from 0 to 255 (in probe, "
					 "-x is --gid-index, as in perftest; --exclude leaves nodes out)");
		cfg->gid_index = (int)l;
		return 0;
	case OPT_TRANSPORT:
		if (strcmp(val, "rdma") && strcmp(val, "tcp"))
			return bad_value(ctx, "--transport", val, "use rdma or tcp");
		cfg->req.transport = strcmp(val, "tcp") ? PROBE_TRANSPORT_RDMA : PROBE_TRANSPORT_TCP;
		return 0;
	case OPT_BIDIR: cfg->req.flags |= PROBE_F_BIDIR; return 0;
	case OPT_VERIFY: cfg->req.flags |= PROBE_F_VERIFY; return 0;
	case OPT_RDMA_CM: cfg->req.flags |= PROBE_F_RDMA_CM; return 0;
	case OPT_EXPECT:
		if (parse_seconds(val, 0, 1e6, &cfg->expect_gbps))
			return bad_value(ctx, "--expect", val, "expected Gb/s, a number");
		return 0;
	}
	return -ENOENT;
}

/* The cluster probe's options (-w) and the agent's (--agent). */
static int opt_cluster(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	struct coord_cfg *cl = &a->cl;
	long l;

	switch (c) {
	case 'w': a->w = val; return 0;
	case OPT_EXCLUDE: a->x = val; return 0;
	case OPT_LAUNCHER: a->launcher = val; return 0;
	case OPT_RDMACTL: cl->rdmactl = val; return 0;
	case OPT_PAIRS: cl->pairs_file = val; return 0;
	case OPT_RENDEZVOUS: cl->rendezvous = val; return 0;
	case OPT_NO_RETEST: cl->retest = false; return 0;
	case OPT_AGENT: a->agent = val; return 0;
	case OPT_HTML: a->html = val; return 0;
	case OPT_SAVE: cl->save = val; return 0;
	case OPT_FROM: a->from = val; return 0;
	case 'f': a->force = true; return 0;
	case OPT_NODE_TIMEOUT:
		if (set_long(ctx, "--node-timeout", val, 1, 3600, &l))
			return -EINVAL;
		cl->launch.node_timeout = (unsigned int)l;
		return 0;
	case OPT_RAILS:
		if (set_long(ctx, "--rails", val, 1, 16, &l))
			return -EINVAL;
		cl->rails = (unsigned int)l;
		return 0;
	case OPT_PATTERN:
		return pattern_parse(val, &cl->pattern) ? bad_value(ctx, "--pattern", val,
								    "use pairs, ring, quick or triage") : 0;
	case OPT_SLOW:
		return parse_seconds(val, 0.01, 0.99, &cl->slow)
		       ? bad_value(ctx, "--slow", val, "expected a fraction of the median, 0.01 to 0.99") : 0;
	}
	return -ENOENT;
}

/* One option; 0 or -EINVAL (message printed). */
static int probe_opt(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	static int (*const groups[])(struct ctx *, struct probe_args *, int, const char *) = {
		opt_role, opt_sizes, opt_amount, opt_path, opt_cluster,
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		ret = groups[i](ctx, a, c, val);
		if (ret != -ENOENT)
			return ret;
	}
	return -EINVAL;
}

static void args_defaults(struct probe_args *a)
{
	memset(a, 0, sizeof(*a));
	a->cfg.port = PROBE_DEFAULT_PORT;
	a->cfg.max_size = PROBE_DEFAULT_MAX_SIZE;
	a->cfg.timeout_ms = PROBE_DEFAULT_TIMEOUT_MS;
	a->cfg.gid_index = -1;
	a->cfg.req.qps = 1;
	a->cfg.req.depth = PROBE_DEFAULT_DEPTH;
	a->size = PROBE_DEFAULT_SIZE;
	a->sweep_max = 8u << 20;
	a->cl.slow = 0.8;
	a->cl.retest = true;
	a->cl.launch.node_timeout = 60;
}

/* An option of the other role; 0 or -EINVAL. */
static int role_check(struct ctx *ctx, const struct probe_args *a)
{
	if (a->server && a->client_opt[0]) {
		log_err(ctx, "Failed to start the server: %s is a client option (the client chooses "
			"the test); give it to the client, not with --server", a->client_opt);
		return -EINVAL;
	}
	if (!a->server && a->server_opt[0]) {
		log_err(ctx, "Failed to start the client: %s is a server option; give it with "
			"--server on the other node", a->server_opt);
		return -EINVAL;
	}
	return 0;
}

/*
 * --bind HOST that does not resolve said "No route to host": say it as a
 * peer's name is said, before listening.  0 or -EINVAL.
 */
static int bind_check(struct ctx *ctx, const struct probe_args *a)
{
	struct addrinfo *res;
	int gai;

	if (!a->server || !a->cfg.bind)
		return 0;
	gai = ctl_resolve(a->cfg.bind, a->cfg.port, true, &res);
	if (!gai) {
		freeaddrinfo(res);
		return 0;
	}
	log_err(ctx, "cannot resolve --bind '%s': %s; give an address of this node", a->cfg.bind,
		gai == EAI_SYSTEM ? strerror(errno) : gai_strerror(gai));
	return -EINVAL;
}

/* The test's options that only make sense together; 0 or -EINVAL. */
static int test_finish(struct ctx *ctx, struct probe_args *a)
{
	struct probe_test_req *r = &a->cfg.req;

	if (a->have_n && a->have_D) {
		log_err(ctx, "Failed to start: -n and -D exclude each other; give one");
		return -EINVAL;
	}
	if (a->sweep && a->have_s) {
		log_err(ctx, "Failed to start: -s and %s exclude each other; %s", a->sweep_opt,
			strcmp(a->sweep_opt, "--sweep") ? "give one" : "use --sweep-max");
		return -EINVAL;
	}
	if ((r->flags & PROBE_F_RDMA_CM) && r->transport == PROBE_TRANSPORT_TCP) {
		log_err(ctx, "Failed to start: --rdma-cm needs the rdma transport");
		return -EINVAL;
	}
	if (!a->have_n && !a->have_D)
		r->iters = PROBE_DEFAULT_ITERS;
	r->size_min = a->sweep ? 2 : a->size;
	r->size_max = a->sweep ? a->sweep_max : a->size;
	if (!a->have_lat)
		r->lat_iters = r->iters && r->iters < PROBE_DEFAULT_LAT_ITERS ? (uint32_t)r->iters
									   : PROBE_DEFAULT_LAT_ITERS;
	srand48((long)time(NULL) ^ getpid());
	r->seed = (uint32_t)lrand48();
	return 0;
}

/* Options that only make sense together; 0 or -EINVAL. */
static int args_finish(struct ctx *ctx, struct probe_args *a, const char *peer)
{
	if (a->server == !!peer) {
		log_err(ctx, a->server ? "Failed to start: --server takes no PEER"
				       : "Failed to start: give PEER, or --server on the other node");
		return -EINVAL;
	}
	if (role_check(ctx, a) || bind_check(ctx, a))
		return -EINVAL;
	return test_finish(ctx, a);
}

/* ---- printing ---- */

static struct json_object *ep_json(const struct probe_ep_info *ep, const char *gid_type, bool rdma)
{
	struct json_object *o = json_object_new_object();
	char gid[48];

	row_str(o, "address", ep->addr);
	if (!rdma)
		return o;
	row_str(o, "device", ep->dev);
	row_int(o, "port", ep->port_num);
	if (ep->gid_index == UINT32_MAX)
		row_str(o, "gid_index", NULL);
	else
		row_int(o, "gid_index", ep->gid_index);
	row_str(o, "gid", gid_str(ep->gid, gid, sizeof(gid)));
	row_str(o, "gid_type", gid_type);
	row_int(o, "active_mtu", ep->mtu);
	return o;
}

static void ep_text(struct ctx *ctx, const char *who, const struct probe_ep_info *ep,
		    const char *gid_type, bool rdma)
{
	char gidx[16] = "rdma_cm";

	if (!rdma) {
		print_text(ctx, "  %-6s %s\n", who, ep->addr);
		return;
	}
	if (ep->gid_index != UINT32_MAX)
		snprintf(gidx, sizeof(gidx), "%u", ep->gid_index);
	print_text(ctx, "  %-6s %s  %s/%u  GID index %s (%s)  active MTU %u\n", who, ep->addr, ep->dev,
		   ep->port_num, gidx, gid_type, ep->mtu);
}

static void on_setup(struct probe_report *rep, const struct probe_summary *m)
{
	struct probe_out *o = rep->arg;
	bool rdma = strcmp(m->transport, "tcp");
	struct json_object *info = json_object_new_object();

	row_str(info, "transport", m->transport);
	json_object_object_add(info, "local", ep_json(&m->local, m->local_gid_type, rdma));
	json_object_object_add(info, "remote", ep_json(&m->remote, m->remote_gid_type, rdma));
	if (rdma) {
		row_int(info, "path_mtu", m->path_mtu);
		row_int(info, "inline_max", m->inline_max);
	}
	json_object_put(o->info);
	o->info = info;
	print_text(o->ctx, "%s probe over %s\n", o->server ? "Serving a" : "A", m->transport);
	ep_text(o->ctx, "local", &m->local, m->local_gid_type, rdma);
	ep_text(o->ctx, "remote", &m->remote, m->remote_gid_type, rdma);
	if (rdma)
		print_text(o->ctx, "  path MTU %u, writes up to %u B posted inline\n", m->path_mtu,
			   m->inline_max);
}

static void on_row(struct probe_report *rep, const struct probe_row *r)
{
	struct probe_out *o = rep->arg;
	struct json_object *row = table_row(o->t);

	row_int(row, "bytes", (int64_t)r->size);
	row_int(row, "msgs", (int64_t)r->msgs);
	row_double(row, "bw_peak_gbps", r->peak_gbps, 3);
	row_double(row, "bw_avg_gbps", r->avg_gbps, 3);
	row_double(row, "bw_peak_MBps", r->peak_gbps * 1e3 / 8, 2);
	row_double(row, "bw_avg_MBps", r->avg_gbps * 1e3 / 8, 2);
	row_double(row, "msg_rate_mpps", r->msg_rate_mpps, 4);
	if (r->lat_min_us >= 0) {
		row_double(row, "lat_min_us", r->lat_min_us, 2);
		row_double(row, "lat_median_us", r->lat_med_us, 2);
		row_double(row, "lat_p99_us", r->lat_p99_us, 2);
	} else {
		row_nulls(row, "lat_min_us", "lat_median_us", "lat_p99_us", NULL);
	}
	if (o->verify)
		row_int(row, "verify_errors", (int64_t)r->verify_errors);
	else
		row_str(row, "verify_errors", NULL);
	if (r->avg_gbps > o->best_gbps)
		o->best_gbps = r->avg_gbps;
	o->verify_errors += r->verify_errors;
}

static void on_counters(struct probe_report *rep, const char *dev, unsigned int port,
			const struct hwcnt *grew)
{
	struct probe_out *o = rep->arg;
	struct json_object *c = json_object_new_object();
	unsigned int i;

	for (i = 0; i < grew->n; i++)
		row_int(c, grew->c[i].name, (int64_t)grew->c[i].value);
	if (o->info)
		json_object_object_add(o->info, "port_counters", c);
	else
		json_object_put(c);
	o->counted = true;
	o->grew = *grew;
	snprintf(o->counted_port, sizeof(o->counted_port), "%s/%u", dev, port);
}

/* After the table: what the port counted, quiet or not. */
static void counters_text(struct probe_out *o)
{
	unsigned int i;

	if (!o->counted)
		return;
	o->counted = false;
	if (!o->grew.n) {
		print_text(o->ctx, "  %s counted no retransmission, sequence gap, RNR NAK or congestion "
			   "mark during the run\n", o->counted_port);
		return;
	}
	print_text(o->ctx, "  %s counters that grew during the run (port-wide: other traffic counts too):\n",
		   o->counted_port);
	for (i = 0; i < o->grew.n; i++)
		print_text(o->ctx, "    %s +%llu: %s\n", o->grew.c[i].name,
			   (unsigned long long)o->grew.c[i].value, hwcnt_meaning(o->grew.c[i].name));
}

static void emit(struct probe_out *o, const char *peer, int err)
{
	bool rows = table_rows(o->t) > 0;

	if (o->ctx->json) {
		struct json_object *info = o->info ? o->info : json_object_new_object();

		if (o->server)
			row_str(info, "client", peer);
		row_bool(info, "ok", !err);
		json_attach(o->ctx, "probe", info);
		o->info = NULL;
	}
	table_emit(o->ctx, o->t, "results");
	o->t = table_new(probe_cols);
	if (rows)
		print_text(o->ctx, "  MB = 10^6 bytes, Gb = 10^9 bits (perftest's MB/sec or MiB/sec is 2^20 B/s = "
			   "MB/s / 1.048576); latency = half a write round trip\n");
	counters_text(o);
}

static void on_end(struct probe_report *rep, const char *peer, int err)
{
	struct probe_out *o = rep->arg;

	o->err = err;
	if (!o->server)
		return;
	emit(o, peer, err);
	/* A long-running server prints one JSON document per session, a failed one with its error. */
	if (!o->once && o->ctx->json) {
		if (err)
			attach_error(o->ctx, err == -EINVAL ? RC_USAGE : RC_PROBLEM);
		output_finish(o->ctx);
		log_last_error_clear();
	}
	fflush(stdout);
}

static int verdict(struct probe_out *o, const struct probe_cfg *cfg)
{
	if (o->verify_errors) {
		log_err(o->ctx, "Failed to verify the data: %llu byte(s) differ from the pattern "
			"written; the path corrupts data", (unsigned long long)o->verify_errors);
		return RC_PROBLEM;
	}
	if (cfg->expect_gbps > 0 && o->best_gbps < cfg->expect_gbps) {
		log_err(o->ctx, "Failed to reach the expected bandwidth: %.3f Gb/s < %.3f Gb/s (--expect)",
			o->best_gbps, cfg->expect_gbps);
		return RC_PROBLEM;
	}
	return RC_OK;
}

static int run(struct ctx *ctx, struct probe_args *a, const char *peer)
{
	struct probe_out o = { .ctx = ctx, .server = a->server, .once = a->cfg.once };
	int ret, rc;

	o.verify = a->cfg.req.flags & PROBE_F_VERIFY;
	o.rep = (struct probe_report){ .setup = on_setup, .row = on_row, .counters = on_counters,
				       .end = on_end, .arg = &o };
	o.t = table_new(probe_cols);
	if (!o.t)
		return RC_PROBLEM;
	if (a->server)
		ret = probe_server(ctx, &a->cfg, &o.rep);
	else
		ret = probe_client(ctx, peer, &a->cfg, &o.rep);
	if (!a->server)
		emit(&o, peer, ret);
	table_free(o.t);
	json_object_put(o.info);
	if (ret)
		return ret == -EINVAL ? RC_USAGE : RC_PROBLEM;
	rc = a->server ? RC_OK : verdict(&o, &a->cfg);
	return rc;
}

/* ---- many nodes: -w and the agents it starts ---- */

/* Options of the test itself: every agent of -w gets them as given. */
static const int test_opts[] = {
	's', OPT_SWEEP, OPT_SWEEP_MAX, 'n', 'D', OPT_QPS, OPT_DEPTH, OPT_BIDIR, OPT_VERIFY,
	OPT_RDMA_CM, OPT_TRANSPORT, OPT_LAT_ITERS, 'x', OPT_TIMEOUT,
};
static const int cluster_opts[] = {
	OPT_EXCLUDE, OPT_LAUNCHER, OPT_NODE_TIMEOUT, OPT_RDMACTL, OPT_PATTERN, OPT_PAIRS, OPT_SLOW,
	OPT_RAILS, OPT_RENDEZVOUS, OPT_NO_RETEST, OPT_HTML, OPT_SAVE, OPT_FROM, 'f',
};

static int forward_word(struct probe_args *a, const char *name, const char *val)
{
	char *w;

	if (a->nfwd >= sizeof(a->fwd) / sizeof(a->fwd[0]) - 1)
		return -E2BIG;
	if (val ? asprintf(&w, "--%s=%s", name, val) < 0 : !(w = strdup(name - 2)))
		return -ENOMEM;
	a->fwd[a->nfwd++] = w;
	return 0;
}

/* Keep a test option for the agents, and the first cluster option for its check. */
static int note_cluster(struct probe_args *a, const struct optparser *p, int c, const char *val)
{
	static char dashed[64];
	const struct opt *o;

	if (in_list(cluster_opts, sizeof(cluster_opts) / sizeof(*cluster_opts), c) && !a->cluster_opt[0])
		opt_typed(p, c, a->cluster_opt, sizeof(a->cluster_opt));
	if (!in_list(test_opts, sizeof(test_opts) / sizeof(*test_opts), c))
		return 0;
	for (o = probe_opts; o->name && o->val != c; o++)
		;
	if (!o->name)
		return 0;
	snprintf(dashed, sizeof(dashed), "--%s", o->name);
	return forward_word(a, dashed + 2, o->arg == ARG_NONE ? NULL : val);
}

static int fwd_done(struct probe_args *a, int rc)
{
	while (a->nfwd)
		free(a->fwd[--a->nfwd]);
	return rc;
}

/* Options -w cannot take, or takes only with others; 0 or -EINVAL. */
static int cluster_check(struct ctx *ctx, const struct probe_args *a, const char *peer)
{
	const char *bad = NULL, *why = "";

	if (peer)
		bad = peer, why = ": -w measures the nodes of its list; give PEER without -w";
	else if (a->server)
		bad = "--server", why = " with -w: the nodes' agents serve as the schedule says";
	else if (a->server_opt[0])
		bad = a->server_opt, why = " with -w: the agents choose their servers' settings";
	else if (a->cfg.token)
		bad = "--token or RDMACTL_TOKEN", why = " with -w: the run makes a token of its own "
						       "and hands it to the agents on stdin";
	else if (a->cl.pairs_file && a->cluster_opt[0] && !strcmp(a->cluster_opt, "--pattern"))
		bad = "--pattern", why = " with --pairs: the file is the schedule";
	if (!bad)
		return 0;
	log_err(ctx, "Failed to use %s%s", bad, why);
	return -EINVAL;
}

/* -w's test: 2 s a size unless -n or -D says otherwise; its expected length. */
static int cluster_test(struct ctx *ctx, struct probe_args *a)
{
	struct probe_test_req *r = &a->cfg.req;
	unsigned int sizes = 1;

	if (!a->have_n && !a->have_D) {
		a->have_D = true;
		r->duration_ms = 2000;
		if (forward_word(a, "duration", "2"))
			return -ENOMEM;
	}
	if (test_finish(ctx, a))
		return -EINVAL;
	while (a->sweep && (2ull << sizes) <= r->size_max)
		sizes++;
	a->cl.timed = a->have_D;
	a->cl.test_s = sizes * (r->duration_ms / 1000.0 + 0.5) + 1;
	a->cl.probe = a->cfg;
	if (!a->cl.probe.port || a->cl.probe.port == PROBE_DEFAULT_PORT)
		a->cl.probe.port = PROBE_DEFAULT_PORT + 1;
	a->fwd[a->nfwd] = NULL;
	a->cl.test_args = a->fwd;
	return 0;
}

/* --html: the page's file, open from the start, written when the run ends (coord_cfg.done). */
struct html_out {
	struct ctx *ctx;
	struct outfile of;
	bool open;
};

static int html_done(void *arg, const struct linkmap *m, struct json_object *run)
{
	struct html_out *h = arg;

	h->open = false;
	return html_write_probe(h->ctx, &h->of, m, run);
}

/*
 * Every agent runs for the whole run and holds a connection to this host:
 * all of them within the limit of open files (raised as far as they need),
 * or none started.  0 or -EMFILE (said).
 */
static int agents_fit(const struct ctx *ctx, const struct launch *l, size_t n)
{
	unsigned long allowed;
	size_t room = launch_room(l, n, 1, &allowed);

	if (room >= n)
		return 0;
	log_err(ctx, "Failed to run %zu agents at once: only %lu open files are allowed (ulimit -Hn), "
		"room for %zu; raise the hard limit (limits.conf nofile)", n, allowed, room);
	return -EMFILE;
}

/* A saved document larger than this is not one (a 1 000-node run of two rails is ~400 MB). */
#define FROM_MAX ((size_t)2 << 30)

/* The whole of regular file @path; 0 or -errno (-EFBIG over FROM_MAX, -EINVAL not a regular file). */
static int read_saved(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	ssize_t n = 1;
	size_t size;
	int ret = 0;

	*out = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		ret = -EINVAL;
	else if ((uint64_t)st.st_size > FROM_MAX)
		ret = -EFBIG;
	size = ret ? 0 : (size_t)st.st_size;
	if (!ret && !(*out = malloc(size + 1)))
		ret = -ENOMEM;
	while (!ret && n > 0 && *len < size) {
		n = read(fd, *out + *len, size - *len);
		if (n < 0 && errno != EINTR)
			ret = -errno;
		else if (n > 0)
			*len += (size_t)n;
	}
	close(fd);
	if (ret) {
		free(*out);
		*out = NULL;
		return ret;
	}
	(*out)[*len] = '\0';
	return 0;
}

/* --from FILE: what of the saved run carries over to @nodes; 0 or -EINVAL (said). */
static int from_plan(struct ctx *ctx, const char *path, const struct hostlist *nodes,
		     struct resume *rs)
{
	struct saved_run sv;
	char err[512] = "", safe[512], *text;
	size_t len;
	int ret = read_saved(path, &text, &len);

	text_safe(path, safe, sizeof(safe), 0);
	if (ret) {
		log_err(ctx, "Failed to read --from '%s': %s", safe, ret == -EINVAL ? "not a regular file" :
			ret == -EFBIG ? "larger than 2 GiB: not a saved run" : strerror(-ret));
		return -EINVAL;
	}
	ret = saved_run_read(text, len, &sv, err, sizeof(err));
	free(text);
	if (ret) {
		log_err(ctx, "Failed to read --from '%s': %s", safe, ret == -ENOMEM ? strerror(ENOMEM) : err);
		return -EINVAL;
	}
	ret = resume_plan(&sv, nodes->names, (uint32_t)nodes->n, rs);
	if (ret == -ENOENT)
		log_err(ctx, "Failed to resume --from '%s': it shares fewer than two nodes with -w; it is "
			"the run of other nodes", safe);
	else if (ret)
		log_err(ctx, "Failed to resume --from '%s': %s", safe, strerror(-ret));
	saved_run_free(&sv);
	return ret ? -EINVAL : 0;
}

/* --from and --save name one file (resumed into it): that file only gains (coord.h). */
static bool same_file(const char *a, const char *b)
{
	struct stat x, y;

	return a && b && !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/*
 * --save FILE: refused now, not after minutes of running, when it cannot
 * be written; an existing one is kept unless -f, or it is the --from file
 * resumed.  0, or the exit code (rdmactl(8), FILES).
 */
static int save_check(struct ctx *ctx, const struct probe_args *a)
{
	unsigned int flags = a->force || same_file(a->from, a->cl.save) ? OUTFILE_FORCE : 0;
	struct outfile of;

	if (outfile_open(ctx, &of, a->cl.save, "the run's document (--save)", flags))
		return of.refused ? RC_USAGE : RC_PROBLEM;
	outfile_discard(&of);
	return 0;
}

static int probe_cluster(struct ctx *ctx, struct probe_args *a, const struct hostlist *nodes,
			 const char *peer)
{
	struct html_out h = { .ctx = ctx };
	struct resume rs = { 0 };
	int lock = -1, ret;

	if (cluster_check(ctx, a, peer) || cluster_test(ctx, a) ||
	    launch_pick(ctx, a->launcher, &a->cl.launch.launcher))
		return RC_USAGE;
	if (nodes->n < 2) {
		log_err(ctx, "Failed to probe a cluster of one: -w '%s' names one node; give two or more",
			nodes->names[0]);
		return RC_USAGE;
	}
	if (agents_fit(ctx, &a->cl.launch, nodes->n))
		return RC_USAGE;
	/* Then the lock: the --from read after it is the file as no other run changes it. */
	ret = a->cl.save ? save_check(ctx, a) : 0;
	if (ret)
		return ret;
	if (a->cl.save && (ret = runsave_lock(ctx, a->cl.save, &lock)))
		return ret == -EBUSY ? RC_USAGE : RC_PROBLEM;
	if (a->from && from_plan(ctx, a->from, nodes, &rs))
		ret = RC_USAGE;
	if (!ret && rs.left_out && same_file(a->from, a->cl.save)) {
		char safe[512];

		log_err(ctx, "Failed to resume into --save '%s': %zu of its links are of nodes -w leaves "
			"out, and the file would lose them; --save another file",
			text_safe(a->cl.save, safe, sizeof(safe), 0), rs.left_out);
		resume_free(&rs);
		ret = RC_USAGE;
	}
	if (ret) {
		runsave_unlock(a->cl.save, lock);
		return ret;
	}
	a->cl.from = a->from ? &rs : NULL;
	if (a->html) {
		if (outfile_open(ctx, &h.of, a->html, "report", a->force ? OUTFILE_FORCE : 0)) {
			resume_free(&rs);
			runsave_unlock(a->cl.save, lock);
			return h.of.refused ? RC_USAGE : RC_PROBLEM;
		}
		h.open = true;
		a->cl.done = html_done;
		a->cl.done_arg = &h;
	}
	ret = coord_run(ctx, nodes, &a->cl);
	/* The run ended before its report: no page. */
	if (h.open)
		outfile_discard(&h.of);
	resume_free(&rs);
	runsave_unlock(a->cl.save, lock);
	/* Stopped by a signal, its steps done saved: end of it, as without --save. */
	if (ret == -EINTR && launch_stopped())
		raise(launch_stopped());
	if (ret < 0)
		return ret == -EINVAL ? RC_USAGE : RC_PROBLEM;
	return ret ? RC_PROBLEM : RC_OK;
}

static int probe_agent(struct ctx *ctx, struct probe_args *a, const char *peer)
{
	int ret;

	if (peer || a->server || a->cluster_opt[0] || a->w) {
		log_err(ctx, "Failed to start the agent: --agent takes none of PEER, --server, -w and "
			"their options; `rdmactl probe -w` gives it what it needs");
		return RC_USAGE;
	}
	if (test_finish(ctx, a))
		return RC_USAGE;
	ret = agent_check(ctx, a->agent);
	if (ret)
		return ret == -EINVAL ? RC_USAGE : RC_PROBLEM;
	return agent_run(ctx, a->agent, &a->cfg) ? RC_PROBLEM : RC_OK;
}

/* -w, or no PEER inside a Slurm allocation: many nodes; -1 when it is not that. */
static int maybe_cluster(struct ctx *ctx, struct probe_args *a, const char *peer)
{
	struct hostlist nodes;
	int rc = -1;

	if (!a->w && (peer || a->server))
		return -1;
	if (launch_nodes(ctx, a->w, a->x, &nodes))
		rc = RC_USAGE;
	else if (nodes.n)
		rc = probe_cluster(ctx, a, &nodes, peer);
	hostlist_free(&nodes);
	return rc;
}

int cmd_probe(struct ctx *ctx, int argc, char **argv)
{
	struct probe_args a;
	struct optparser p;
	const char *peer;
	int c, rc;

	args_defaults(&a);
	if (opt_init(&p, ctx, command_find("probe"), argc, argv))
		return RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END) {
		if (c < 0)
			return c == OPT_HELP ? RC_OK : RC_USAGE;
		if (probe_opt(ctx, &a, c, p.optarg))
			return fwd_done(&a, RC_USAGE);
		note_role(&a, &p, c);
		if (note_cluster(&a, &p, c, p.optarg)) {
			log_err(ctx, "Failed to keep the test's options for -w's agents: %zu of them is "
				"too many; give each once", a.nfwd);
			return fwd_done(&a, RC_USAGE);
		}
	}
	if (opt_check_args(&p))
		return fwd_done(&a, RC_USAGE);
	peer = p.optind < argc ? argv[p.optind] : NULL;
	if (env_token(ctx, &a))
		return fwd_done(&a, RC_USAGE);
	if (a.agent)
		return fwd_done(&a, probe_agent(ctx, &a, peer));
	rc = maybe_cluster(ctx, &a, peer);
	if (rc >= 0)
		return fwd_done(&a, rc);
	if (a.cluster_opt[0]) {
		log_err(ctx, "Failed to use %s: it is for a run on many nodes; give -w HOSTLIST too",
			a.cluster_opt);
		return fwd_done(&a, RC_USAGE);
	}
	if (args_finish(ctx, &a, peer))
		return fwd_done(&a, RC_USAGE);
	return fwd_done(&a, run(ctx, &a, peer));
}
