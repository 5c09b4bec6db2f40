/* SPDX-License-Identifier: MIT */
/*
 * rdmactl probe's modes, each a file of its own, and what they share:
 * probe.c parses the line, picks the mode, refuses the options of another
 * (opt_mode_check()) and calls the mode; probe_client.c (PEER) and
 * probe_server.c (--server) run the two-node test, whose table both ends
 * print through probe_session.c; probe_cluster.c runs -w, probe_agent.c
 * what -w starts on every node.  probe_test.c, below them all, holds the
 * test's options and the readers of every mode's option values.  No .c
 * bears this name: the modes never call back into probe.c, which calls
 * them.
 */
#ifndef RDMACTL_CMD_PROBE_MODE_H
#define RDMACTL_CMD_PROBE_MODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/opt.h"
#include "launch/hostlist.h"
#include "mesh/coord.h"
#include "probe/probe.h"
#include "probe/probe_auth.h"

struct ctx;

/* The modes, as bits of struct opt.modes. */
enum probe_mode { PROBE_CLIENT, PROBE_SERVER, PROBE_CLUSTER, PROBE_AGENT };
#define M_CLIENT (1u << PROBE_CLIENT)
#define M_SERVER (1u << PROBE_SERVER)
#define M_CLUSTER (1u << PROBE_CLUSTER)
#define M_AGENT (1u << PROBE_AGENT)

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
	OPT_TOPOLOGY,
};

struct probe_args {
	struct probe_cfg cfg;
	bool server, sweep, have_n, have_D, have_s, have_lat;
	uint64_t size, sweep_max;
	char token[PROBE_TOKEN_MAX + 1];
	char sweep_opt[32];	/* "--sweep" or "--sweep-max", as given first */
	/* The cluster probe (-w) and its agents (--agent). */
	struct coord_cfg cl;
	const char *w, *x, *launcher, *agent, *html, *from;
	const char *topology;	/* --topology FILE, or "slurm" */
	bool force;		/* -f: --save and --html may replace a regular file */
	bool pattern_given;	/* --pattern, which --pairs replaces */
	char *fwd[40];		/* the test's options, for every agent */
	size_t nfwd;
};

/*
 * Handlers of one mode's options (probe.c tries them in turn): 0, -EINVAL
 * (message printed), or -ENOENT when @c is none of theirs.
 */
int probe_test_opt(struct ctx *ctx, struct probe_args *a, int c, const char *val);
int probe_server_opt(struct ctx *ctx, struct probe_args *a, int c, const char *val);
int probe_cluster_opt(struct ctx *ctx, struct probe_args *a, int c, const char *val);
int probe_agent_opt(struct ctx *ctx, struct probe_args *a, int c, const char *val);

/*
 * -w's agents run the test as given: keep option @c (value @val) for
 * them, by its long name in @opts (probe's table), when it is one of the
 * test's.  0, or -E2BIG / -ENOMEM.
 */
int probe_forward(struct probe_args *a, const struct opt *opts, int c, const char *val);
/* Free what probe_forward() kept; returns @rc. */
int probe_forward_done(struct probe_args *a, int rc);

/* The values of the options (probe_test.c).  "Failed to parse OPT 'VAL': WHAT"; -EINVAL. */
int probe_bad_value(const struct ctx *ctx, const char *opt, const char *val, const char *what);
/* A whole number of @opt in [min, max], or its message; 0 or -EINVAL. */
int probe_set_long(const struct ctx *ctx, const char *opt, const char *val, long min, long max,
		   long *out);
/* A decimal number in [min, max] (seconds, Gb/s, a fraction); 0 or -EINVAL, nothing said. */
int probe_parse_number(const char *s, double min, double max, double *out);
/* "64K", "1M", "2GiB", "4096": bytes in [1, 2^31]; 0 or -EINVAL, nothing said. */
int probe_parse_size(const char *s, uint64_t *out);

/* The test's options that only make sense together, then its defaults; 0 or -EINVAL (said). */
int probe_test_finish(struct ctx *ctx, struct probe_args *a);

/* The two-node test as client or server, its table printed; an exit code. */
int probe_session(struct ctx *ctx, struct probe_args *a, const char *peer);

/* Each mode, once chosen and its options checked; an exit code. */
int probe_client_run(struct ctx *ctx, struct probe_args *a, const char *peer);
int probe_server_run(struct ctx *ctx, struct probe_args *a, const char *peer);
int probe_cluster_run(struct ctx *ctx, struct probe_args *a, const struct hostlist *nodes,
		      const char *peer);
int probe_agent_run(struct ctx *ctx, struct probe_args *a, const char *peer);

#endif
