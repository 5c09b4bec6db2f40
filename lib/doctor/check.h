/* SPDX-License-Identifier: MIT */
/*
 * What a doctor check is handed and writes with: the node's facts (struct
 * doctor, some of them loaded only when a check first asks) and the
 * result it fills (struct check_result, through check_note(), check_fix()
 * and check_skip()).  The checks (checks.h), rdmactl env's plan
 * (jobenv.h) and the runner (doctor.h) all build on this, and it on none
 * of them, so that the runner's table can name every check without the
 * checks reaching back into the runner.
 */
#ifndef RDMACTL_CHECK_H
#define RDMACTL_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "doctor/doc.h"
#include "node/fn.h"
#include "node/netns.h"
#include "node/rdma.h"
#include "node/ucx.h"

struct ctx;

/* The job the node is checked for (--for). */
enum doctor_for {
	FOR_ANY,
	FOR_NCCL,
	FOR_UCX,
	FOR_PERFTEST,
	FOR_MPI,	/* Open MPI over UCX: UCX's checks, as rdmactl env --for mpi */
};

/* Whether the job runs over UCX (--for ucx or mpi). */
#define DOCTOR_FOR_UCX(d) ((d)->target == FOR_UCX || (d)->target == FOR_MPI)
/* "nccl", "ucx", "perftest", "mpi"; "" for none. */
const char *doctor_for_str(enum doctor_for f);

#define CHECK_TEXT 1024

struct check_result {
	enum check_status status;
	char found[CHECK_TEXT];	/* what was found; for skip, why */
	char fix[CHECK_TEXT];	/* the command or file line; "" when ok */
};

struct peer_node;		/* what the peer's probe server says (check_peer.c) */

/* What every check may look at, loaded once. */
struct doctor {
	struct ctx *ctx;
	enum doctor_for target;
	const char *user;		/* --user: whose login memlock.login checks; NULL: ours */
	const char *peer;		/* --peer HOST, or NULL */
	unsigned int peer_port;		/* the probe server's TCP port */
	const char *token;		/* the probe's shared secret (--token, RDMACTL_TOKEN), or NULL */
	struct rdma_node node;		/* devices, ports and GIDs */
	int node_err;			/* rdma_node_load()'s result */
	size_t node_warnings;		/* read warnings up to the end of the load */
	struct peer_node *pn;		/* NULL until check_peer asked, or unreachable */
	int nccl_version;		/* 22103 for 2.21.3; 0 unknown; -1 not installed */
	char nccl_lib[256];		/* where libnccl was found */
	struct fn_node fns;		/* PFs, VFs, SFs, representors: doctor_fns() */
	bool fns_loaded;
	struct rdma_netns ns;		/* the RDMA netns mode: doctor_netns() */
	bool ns_loaded;
	struct ucx_install ucx;		/* the installed UCX: doctor_ucx() */
	bool ucx_loaded;
	bool gid_spread;		/* a job's ports need different GID indexes (check roce.gid) */
};

/*
 * Add a finding to @r: @status raises the result's status (ok < warn <
 * FAIL) and the text is appended to what was found, "; "-separated,
 * unless it is there already: a note is said once.
 */
void check_note(struct check_result *r, enum check_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Append a fix ("; "-separated). */
void check_fix(struct check_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Skip the check, saying why (replaces anything noted so far). */
void check_skip(struct check_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The environment variable @name, or NULL when unset or empty. */
const char *doctor_env(const char *name);

/* The installed NCCL: fills d->nccl_version and d->nccl_lib once. */
void doctor_find_nccl(struct doctor *d);
/* The installed UCX (node/ucx.h), found on first use. */
const struct ucx_install *doctor_ucx(struct doctor *d);

/* The node's functions and representors (node/fn.h), loaded on first use. */
const struct fn_node *doctor_fns(struct doctor *d);
/* The representor @netdev is (uplinks of a switchdev eswitch included), or NULL. */
const struct rep *doctor_rep(struct doctor *d, const char *netdev);
/* The RDMA netns mode and the devices of other namespaces, read on first use. */
const struct rdma_netns *doctor_netns(struct doctor *d);
/* What the helpers above loaded. */
void doctor_free(struct doctor *d);

#endif
