/* SPDX-License-Identifier: MIT */
/*
 * rdmactl doctor's modes, each a file of its own, and what they share:
 * doctor.c parses the line, picks the mode from its mode table
 * (name, options, run: a mode added in one row), refuses the options of
 * another (opt_mode_check()) and calls the mode; doctor_node.c runs this
 * node's checks (the node mode, and --list); doctor_fleet.c runs -w,
 * doctor_gathered.c reads what many nodes printed, doctor_metrics.c and
 * doctor_health.c give this node's checks (doctor_node.c's doctor_here())
 * to Prometheus and to Slurm.  No .c bears this name: the modes never
 * call back into doctor.c, which calls them.
 */
#ifndef RDMACTL_CMD_DOCTOR_MODE_H
#define RDMACTL_CMD_DOCTOR_MODE_H

#include <stdbool.h>

#include "base/opt.h"
#include "doctor/doctor.h"
#include "launch/hostlist.h"
#include "launch/nodes.h"
#include "probe/probe_auth.h"

struct ctx;
struct table;

enum {
	OPT_PEER = OPT_LONG_BASE,
	OPT_FOR,
	OPT_ONLY,
	OPT_SKIP,
	OPT_LIST,
	OPT_PORT,
	OPT_TOKEN,
	OPT_GATHERED,
	OPT_LOCAL,
	OPT_SLURM_HEALTH,
	OPT_DRAIN,
	OPT_DRY_RUN,
	OPT_METRICS,
	OPT_HTML,
	OPT_USER,
};

/* The fleet run's options (-w); see lib/fleet/fanout.h. */
struct fleet_args {
	struct launch_args launch;	/* -w, --exclude, --launcher ... (launch/nodes.h) */
	const char *html;
	bool force;		/* -f: --html may replace a regular file */
};

struct doctor_args {
	struct fleet_args fleet;
	struct hostlist nodes;	/* -w's, or the Slurm allocation's */
	const char *peer;
	const char *user;	/* --user: the job's user, for memlock.login */
	const char *only, *skip;
	const char *gathered;
	enum job_kind target;
	long port;
	bool port_given;
	bool local, drain, dry_run;
	const char *output;	/* -o, with --metrics */
	bool have_token;
	char token[PROBE_TOKEN_MAX + 1];
	uint8_t ack_timeout;	/* --peer's probe: RDMACTL_PROBE_ACK_TIMEOUT (a test aid); 0 the default */
};

/*
 * Handlers of one mode's options (doctor.c's mode table tries them in
 * turn): 0, -EINVAL (message printed), or -ENOENT when @opt is none of theirs.
 */
int doctor_fleet_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val);
int doctor_metrics_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val);
int doctor_health_opt(struct ctx *ctx, struct doctor_args *a, int opt, const char *val);

/*
 * How a run of this node's checks ends: its results (@t, used up) in the
 * form the mode gives them; an exit code.
 */
typedef int (*doctor_report_fn)(struct ctx *ctx, const struct doctor_args *a, struct node_facts *d,
				struct table *t, const struct doctor_counts *counts);

/* This node's checks (@sel of them), reported by @report; an exit code (doctor_node.c). */
int doctor_here(struct ctx *ctx, const struct doctor_args *a, const bool *sel,
		doctor_report_fn report);
/* The node mode's report: the table, the summary and, with -j, the node's facts; an exit code. */
int doctor_node_report(struct ctx *ctx, const struct doctor_args *a, struct node_facts *d,
		       struct table *t, const struct doctor_counts *counts);

/*
 * Each mode, once chosen and its options checked, with the checks --only
 * and --skip select (NULL for the modes that run none); an exit code.
 */
int doctor_node_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel);
int doctor_list_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel);
int doctor_fleet_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel);
int doctor_gathered_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel);
int doctor_metrics_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel);
int doctor_health_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel);

#endif
