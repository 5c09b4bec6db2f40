/* SPDX-License-Identifier: MIT */
/*
 * rdmactl doctor: the check table and its runner.  Each check is one row of
 * doctor_checks[] (a stable ID, a one-line description, a function) and
 * gives one result: a status, what it found, and for anything not ok the
 * exact fix.  The checks live in check_*.c beside this file, grouped by subject.
 */
#ifndef RDMACTL_DOCTOR_H
#define RDMACTL_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/output.h"
#include "doctor/doc.h"
#include "node/fn.h"
#include "node/netns.h"
#include "node/rdma.h"
#include "node/ucx.h"

struct ctx;
struct json_object;
struct table;

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

struct check {
	const char *id;
	const char *desc;
	void (*fn)(struct doctor *d, struct check_result *r);
	/* It judges the loaded model (d->node): files unread while loading it count. */
	bool node;
};

/* The table, in the order checks run; NULL-id terminated. */
extern const struct check doctor_checks[];

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

/* The status words and the document's keys: doctor/doc.h. */

/*
 * Select checks from a comma-separated list of IDs for --only or --skip.
 * An ID also names every check under it ("memlock" for memlock.*).
 * @sel has one bool per row of doctor_checks[].  0, or -EINVAL after
 * naming the unknown ID (and the closest one) on stderr.
 */
int doctor_select(const struct ctx *ctx, const char *list, const char *opt, bool *sel);
size_t doctor_count(void);
/*
 * The words --only and --skip take, for suggestions and completion: the
 * group names ("memlock"), then every check's ID.  Fills up to @max of
 * @ids and returns how many.
 */
size_t doctor_ids(const char **ids, size_t max);

struct doctor_counts {
	int n[CHECK_SKIP + 1];		/* by enum check_status */
	char problems[512];		/* IDs not ok: "mtu, memlock.login" */
};

/* Run the selected checks into the table @t (doc_check_cols[]: status, id, found, fix). */
void doctor_run(struct doctor *d, const bool *sel, struct table *t, struct doctor_counts *c);

/* The environment variable @name, or NULL when unset or empty. */
const char *doctor_env(const char *name);

/* The checks (check_*.c). */
void check_devices(struct doctor *d, struct check_result *r);
void check_ports(struct doctor *d, struct check_result *r);
void check_roce_ipv4(struct doctor *d, struct check_result *r);
void check_roce_gid(struct doctor *d, struct check_result *r);
void check_mtu(struct doctor *d, struct check_result *r);
void check_memlock_shell(struct doctor *d, struct check_result *r);
void check_memlock_login(struct doctor *d, struct check_result *r);
void check_memlock_systemd(struct doctor *d, struct check_result *r);
void check_firewall(struct doctor *d, struct check_result *r);
void check_env_nccl(struct doctor *d, struct check_result *r);
void check_env_ucx(struct doctor *d, struct check_result *r);
void check_ucx_ud_dgid(struct doctor *d, struct check_result *r);
void check_functions(struct doctor *d, struct check_result *r);
void check_gpudirect(struct doctor *d, struct check_result *r);
void check_versions(struct doctor *d, struct check_result *r);
void check_peer(struct doctor *d, struct check_result *r);

/*
 * One port's findings, shared by the checks and rdmactl env so that both
 * give the same reason: a port that is not ACTIVE or not LinkUp, and why
 * (check ports) ...
 */
void doctor_port_down(struct doctor *d, struct check_result *r, const struct rdma_dev *dev,
		      const struct rdma_port *p);
/*
 * ... and the GID a job should use on @p (check roce.gid, and the
 * better index env.nccl and env.ucx offer): gid_choose() on the port's
 * own netdev.  True when there is one.
 */
struct gid_choice;
bool doctor_gid_choose(const struct rdma_port *p, struct gid_choice *c);
/*
 * The GID index NCCL 2.21 and later pick on RoCE port @p when no
 * NCCL_IB_* variable chooses (AF_INET, RoCE v2, no range): env.nccl's
 * model of ncclIbGetGidIndex().
 */
int doctor_nccl_auto(const struct rdma_port *p);

/*
 * The peer's side of a check, from its probe server (check_peer.c): each
 * adds its findings to @r when --peer was given, and nothing otherwise.
 */
void doctor_peer_mtu(struct doctor *d, struct check_result *r);
void doctor_peer_versions(struct doctor *d, struct check_result *r, const char *kernel,
			  const char *rdma_core);
void doctor_peer_firewall(struct doctor *d, struct check_result *r);
void doctor_peer_free(struct doctor *d);

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
