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
#include "doctor/job_kind.h"
#include "node/libconf.h"
#include "node/fn.h"
#include "node/netns.h"
#include "node/rdma.h"
#include "node/ucx.h"

struct ctx;

/* Whether the job checked for runs over UCX (--for ucx or mpi). */
#define DOCTOR_FOR_UCX(d) job_kind_ucx((d)->target)

#define CHECK_TEXT 1024

struct check_result {
	enum check_status status;
	char found[CHECK_TEXT];	/* what was found; for skip, why */
	char fix[CHECK_TEXT];	/* the command or file line; "" when ok */
};

struct peer_node;		/* what the peer's probe server says (check_peer.c) */

/* A variable as the job's library will read it (doctor_env()), cached. */
struct doctor_setting {
	struct lib_setting s;	/* the name; a file's value and where */
	const char *env;	/* the environment's value (set, even empty, it wins); NULL */
	bool in_file;		/* no environment value: a file's, in @s */
	bool overridden;	/* rdmactl env exports its own: read as unset */
};

#define DOCTOR_SETTINGS 24

/* What every check may look at, loaded once. */
struct node_facts {
	struct ctx *ctx;
	enum job_kind target;		/* --for; JOB_ANY when not given */
	const char *user;		/* --user: whose login memlock.login checks; NULL: ours */
	const char *peer;		/* --peer HOST, or NULL */
	unsigned int peer_port;		/* the probe server's TCP port */
	const char *token;		/* the probe's shared secret (--token, RDMACTL_TOKEN), or NULL */
	uint8_t peer_ack_timeout;	/* its QPs' ACK timeout exponent (a test aid); 0 the default */
	struct rdma_node node;		/* devices, ports and GIDs */
	bool node_owned;		/* doctor_load() loaded @node: doctor_free() frees it */
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
	struct doctor_setting settings[DOCTOR_SETTINGS];	/* doctor_env()'s, on first use */
	size_t n_settings;
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

/*
 * The value the job's library will use for the variable @name, or NULL
 * when unset or empty: the environment's when set (even empty: NCCL's
 * and UCX's files fill only what it leaves unset), else for NCCL_* names
 * NCCL's configuration files', for UCX_* names UCX's when UCX is
 * installed (node/libconf.h), read below the root.  A name doctor_env_override() marked reads as
 * unset.  @d NULL: the environment alone.
 */
const char *doctor_env(struct node_facts *d, const char *name);
/* Where doctor_env() found @name when a file set it ("/etc/nccl.conf:3"), else NULL. */
const char *doctor_env_file(struct node_facts *d, const char *name);
/*
 * rdmactl env exports @name, which outranks every file for both NCCL and
 * UCX: with @on, doctor_env() reads a file's value of it as unset, as the
 * job's library will once env's value is set (an environment value is
 * never overridden); without, as before.
 */
void doctor_env_override(struct node_facts *d, const char *name, bool on);
bool doctor_env_overridden(struct node_facts *d, const char *name);
/* Every override off again. */
void doctor_env_overrides_clear(struct node_facts *d);
/* "NAME=VALUE from FILE:LINE" when a file sets @name (overridden or not), else "" (into @buf). */
const char *doctor_env_said(struct node_facts *d, const char *name, char *buf, size_t len);
/* How a job drops @name: "unset NAME", or "delete NAME from FILE:LINE" (into @buf). */
const char *doctor_env_drop(struct node_facts *d, const char *name, char *buf, size_t len);

/* The installed NCCL: fills d->nccl_version and d->nccl_lib once. */
void doctor_find_nccl(struct node_facts *d);
/* The installed UCX (node/ucx.h), found on first use. */
const struct ucx_install *doctor_ucx(struct node_facts *d);

/* The node's functions and representors (node/fn.h), loaded on first use. */
const struct fn_node *doctor_fns(struct node_facts *d);
/* The representor @netdev is (uplinks of a switchdev eswitch included), or NULL. */
const struct rep *doctor_rep(struct node_facts *d, const char *netdev);
/* The RDMA netns mode and the devices of other namespaces, read on first use. */
const struct rdma_netns *doctor_netns(struct node_facts *d);
/*
 * The one loader of @d, for the doctor's checks and for what env and gids
 * print through jobenv.h: every field zero but @ctx, the job kind
 * @target and the node's model.  That is @node when the caller has it
 * loaded (a copy; still the caller's to free), else loaded here with its
 * GIDs, its result in d->node_err and the read warnings up to its end in
 * d->node_warnings.  The rest is loaded on first use, by the helpers above.
 */
void doctor_load(struct node_facts *d, struct ctx *ctx, enum job_kind target,
		 const struct rdma_node *node);
/* What doctor_load() and the helpers above loaded. */
void doctor_free(struct node_facts *d);

#endif
