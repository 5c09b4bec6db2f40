/* SPDX-License-Identifier: MIT */
/*
 * The cluster probe's verdicts (`rdmactl probe -w`): what the measured
 * links say (the link map): the N x N matrix, the median, and the findings
 * that name a slow node, a slow or failed link, an asymmetric pair.  Its
 * plan, which node writes to which in which step, is schedule.h's.
 *
 * Nodes are indexes into the run's node list (its order is the hostlist's).
 */
#ifndef RDMACTL_LINKMAP_H
#define RDMACTL_LINKMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mesh/schedule.h"

struct ctx;
struct json_object;
struct topology;

/* Why a directed test failed, as the two-node probe explains it. */
enum link_cause {
	CAUSE_NONE,
	CAUSE_ROCE_BLOCKED,	/* control (TCP) fine, RDMA traffic lost: firewall on UDP 4791 */
	CAUSE_MTU,		/* the ends' MTUs do not agree */
	CAUSE_TIMEOUT,		/* the partner stopped answering */
	CAUSE_UNREACHABLE,	/* the control connection could not be made */
	CAUSE_NODE_DOWN,	/* one end's node did not run the step (launcher says why) */
	CAUSE_OTHER,
};

/* One measured direction: @client wrote to @server. */
struct link_result {
	uint32_t client, server, rail;
	uint32_t round;		/* 0 for a retest */
	bool ok;
	double gbps;		/* average, 10^9 bit/s; ok only */
	double lat_us;		/* median half round trip; < 0 not measured */
	enum link_cause cause;	/* !ok */
	char why[256];		/* !ok: the probe's one line */
	/* port counters that grew during the test, on the client's port */
	uint64_t retrans, seq_err, cnp;
	char dev[64];		/* client's device/port, e.g. "rxe1/1" ("" unknown) */
};

enum finding_kind {
	FIND_SLOW_NODE,		/* every link of the node is slow: the node is named */
	FIND_SLOW_RAIL,		/* every link of one rail of the node is slow */
	FIND_SLOW_LINK,		/* this link is slow, its ends are fine elsewhere */
	FIND_BLOCKED_NODE,	/* every link to or from the node failed, same cause */
	FIND_FAILED_LINK,	/* this link failed; its ends work elsewhere */
	FIND_DOWN_NODE,		/* the node did not take part (launcher's cause) */
	FIND_ASYMMETRIC,	/* A->B fine, B->A slow (or the other way) */
	FIND_HIGH_LATENCY,	/* a warning: latency above 2x the median */
	/* With a topology (linkmap_switch.c): */
	FIND_SLOW_UPLINK,	/* a switch's link to its parent slows the links crossing it */
	FIND_FAILED_UPLINK,	/* ... fails them */
	FIND_SLOW_SWITCH,	/* a leaf switch: its nodes slow among themselves too */
	FIND_KINDS,
};

struct finding {
	enum finding_kind kind;
	bool failure;		/* counts toward exit 1 (all but HIGH_LATENCY) */
	uint32_t node, peer;	/* peer UINT32_MAX when a node alone is named */
	uint32_t rail;		/* UINT32_MAX: all rails (node findings) */
	double gbps, ratio;	/* measured and against the median (asymmetric: against the
				 * other direction; high latency: latency over its median);
				 * 0 when nothing was measured */
	enum link_cause cause;
	char text[512];		/* one line, names filled in */
	/*
	 * Switch findings (node and peer UINT32_MAX): the switch (of an
	 * uplink, its lower end) and its parent, indexes into the topology
	 * (TOPO_NONE otherwise); the uplinks the topology cannot tell apart
	 * from this one, itself among them (ncand > 1: it names none before
	 * the others); the links that show it, indexes into the map's res.
	 */
	uint32_t sw, parent;
	uint32_t *cand;
	size_t ncand;
	size_t *pairs;
	size_t npairs;
};

/* What a finding owns (its candidates and pairs), freed. */
void linkmap_finding_release(struct finding *f);

struct linkmap {
	char *const *names;	/* the run's nodes (not owned) */
	uint32_t nodes, rails;
	double slow;		/* --slow fraction of the median */
	struct link_result *res;	/* every result (retests too), appended */
	size_t n, cap;
	/*
	 * res[0..held): a saved run's links (probe -w --from), measured then.
	 * A node down in this run leaves out only its links of this run: what
	 * it measured before still counts, so a resume that reaches nobody
	 * loses nothing of the file it resumes.
	 */
	size_t held;
	char **down;		/* down[i]: why node i did not run, NULL if it ran (owned) */
	/* The switch tree (probe -w --topology), or NULL: the switch findings need it. */
	const struct topology *topo;
	double median_gbps;	/* 0: no link ok */
	double median_lat_us;	/* < 0: no latency measured */
	struct finding *find;
	size_t nfind;
};

void linkmap_init(struct linkmap *m, char *const *names, uint32_t nodes, uint32_t rails,
		  double slow);
/*
 * A result, copied.  A directed link (client, server, rail) added again
 * (a retest) counts with its last result.  -EINVAL for an index out of
 * range or client == server, -ENOMEM.
 */
int linkmap_add(struct linkmap *m, const struct link_result *r);
/*
 * Node @node did not take part: @why (copied); its links of this run are
 * left out of everything (those a saved run measured, m->held, count).
 */
int linkmap_node_down(struct linkmap *m, uint32_t node, const char *why);

/*
 * The retests that would tell a slow (or failed) link's ends apart: for
 * every such link that no slow, blocked or down node explains, each end
 * that has not been measured against a node known good (measured, no
 * slow or failed link) is paired with one, both directions, as one extra
 * schedule: ends spread over the good nodes, each batch two steps (end ->
 * good, then good -> end) of one round, rounds from 1.  Then one step
 * of one round more: the slow directions that nothing explains and
 * neither of whose ends is retested (none is when no node is known
 * good), measured again (a link is named on
 * two looks, not one), as many as fit in a step, in the order of the
 * links.  Rails are 0, as in schedule_make().  0 with s->n == 0 when
 * nothing needs a retest; -ENOMEM.
 */
int linkmap_retests(const struct linkmap *m, struct schedule *s);

/*
 * Medians and findings from the results that count (the last of each
 * directed link, retests included; none of a down node's), sorted by
 * kind, node, peer, rail.  Again after more results: findings replaced.
 * The rules, from the largest thing that explains a link: a down node; a
 * slow node (every ok link slow, two partners or more); a blocked node
 * (every link failed, two partners or more); one slow rail of a node
 * (rails > 1); then links: failed, asymmetric (one direction slow, under
 * @slow of the other), slow, and high latency (over 2x the median, a
 * warning), none of them touching a node named for it.  A link finding of
 * both directions has node < peer; of one, node is the client.
 */
int linkmap_analyse(struct linkmap *m);

/*
 * The report: text (matrix of average Gb/s when the nodes fit, up to 32,
 * else only the findings; latency matrix too when measured; findings one a
 * line; a summary line) or JSON (`links` array, `matrix` object for up to
 * 32 nodes, `findings` array, `median_gbps`, `slow`), through the ctx's
 * printer; call linkmap_analyse() first.  JSON keys: median_gbps,
 * median_lat_us, slow, matrix {names, gbps, lat_us}, links (every result
 * added), findings, summary.  Returns 1 when any finding is a failure,
 * else 0; -ENOMEM.
 */
int linkmap_print(struct ctx *ctx, const struct linkmap *m);

/*
 * One entry of the document's `links` and one of its `findings`, for a
 * program that writes the document a link at a time (a million links are
 * gigabytes as one json-c tree).  NULL when out of memory.
 */
struct json_object *linkmap_link_json(const struct linkmap *m, const struct link_result *r);
struct json_object *linkmap_finding_json(const struct linkmap *m, const struct finding *f);

/*
 * The document linkmap_print() attaches under -j, with @run (the run's
 * facts) as its "run", written a piece at a time through @put (0 or
 * -errno) rather than built as one json-c tree: probe -w --save writes it
 * while the run goes, and a 1 000-node run has a million links.  Call
 * linkmap_analyse() first.  0, -ENOMEM, or @put's error.
 */
typedef int (*linkmap_put)(void *arg, const char *buf, size_t len);
int linkmap_write_json(const struct linkmap *m, struct json_object *run, linkmap_put put,
		       void *arg);

void linkmap_free(struct linkmap *m);

const char *link_cause_name(enum link_cause c);	/* "roce_blocked", ... */

/*
 * Why a directed test failed, from the two-node probe's error @err
 * (-errno) and its line @why, and the two ends' active MTUs in bytes (0
 * where the test failed before the ends told them).  CAUSE_MTU only when
 * both are known and differ: the probe's lines name an MTU as one
 * possibility (an invalid request) or as a fact of each end (a QP that
 * could not be connected), which alone is no mismatch.
 */
enum link_cause link_cause_of(int err, const char *why, unsigned int mtu, unsigned int peer_mtu);
const char *finding_kind_name(enum finding_kind k);	/* "slow_node", ... as in -j */

#endif
