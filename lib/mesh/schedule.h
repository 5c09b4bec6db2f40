/* SPDX-License-Identifier: MIT */
/*
 * The cluster probe's plan (`rdmactl probe -w`): which node writes to which
 * in which step.  Made from a pattern (schedule.c), the triage's rings
 * (triage.c), or a file the user wrote (schedule_file.c); handed to the
 * agents as one compact string.
 *
 * Nodes are indexes into the run's node list (its order is the hostlist's).
 */
#ifndef RDMACTL_SCHEDULE_H
#define RDMACTL_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

enum pattern {
	PATTERN_PAIRS,	/* round robin: N-1 rounds (N odd: N, one bye a round) of N/2 pairs */
	PATTERN_RING,	/* one step: every node i writes to i+1 at once */
	PATTERN_QUICK,	/* one round: node i with node i + ceil(N/2); N odd: node N/2 sits out */
	PATTERN_TRIAGE,	/* triage_steps(N) rings of distinct strides over a shuffled order */
};

/* One directed test: @client writes to @server (the server is the receiver). */
struct sched_pair {
	uint32_t client, server;
	uint32_t rail;		/* which rail (0..rails-1); set by the caller, 0 here */
};

/*
 * One step runs its pairs at the same time; every node is client in at
 * most one and server in at most one pair of a step.  A round of the
 * pairs pattern is two steps: A->B for its pairs, then B->A.
 */
struct sched_step {
	uint32_t round;		/* 1-based, as --pairs files number them */
	struct sched_pair *pairs;
	size_t n;
};

struct schedule {
	struct sched_step *steps;
	size_t n;
	uint32_t rounds;
	uint32_t nodes;
};

/* "pairs", "ring", "quick", "triage" -> @out; -EINVAL otherwise. */
int pattern_parse(const char *s, enum pattern *out);
const char *pattern_name(enum pattern p);

/*
 * The schedule of @p for @nodes nodes (>= 2): both directions of every
 * pair (ring: one direction, i -> i+1 mod N).  s->rounds: N-1 (N even) or
 * N (N odd) for pairs, 1 for ring and quick, one a step for triage.  0
 * or -errno (-EINVAL for fewer than 2 nodes, -ENOMEM).
 */
int schedule_make(enum pattern p, uint32_t nodes, struct schedule *s);

/*
 * The triage pattern (triage.c): triage_steps(N) steps, 2 ceil(log2 N)
 * and at most N - 1, each a ring over the same shuffled order with a
 * stride of its own, so every node writes to one partner and is written
 * to by another at once, and meets 2 triage_steps(N) different partners
 * (every other node once that would be N - 1 or more).  The same N gives the
 * same schedule.  triage_make() fills an empty @s: 0 or -ENOMEM (@s then
 * for schedule_free()).
 */
uint32_t triage_steps(uint32_t nodes);
int triage_make(uint32_t nodes, struct schedule *s);

/*
 * The triage pattern over a switch tree (topology.h): as many steps,
 * triage_inside_steps() of them rings inside every leaf (each node meets
 * up to 2 x 4 nodes of its leaf, the contrast that tells a bad uplink or
 * leaf switch from its nodes: links inside a leaf cross no uplink), the
 * rest the triage's rings across the whole order (almost every link
 * crosses uplinks, every uplink by many).  When the triage already meets
 * every pair (N - 1 steps or fewer) or no leaf has two nodes: the
 * triage's own schedule.  0, -EINVAL (fewer than 2 nodes), -ENOMEM.
 */
struct topology;
uint32_t triage_inside_steps(uint32_t nodes, const struct topology *t);
int triage_topo_make(uint32_t nodes, const struct topology *t, struct schedule *s);

/*
 * A schedule chosen by the user: @text holds lines `ROUND NODE_A NODE_B`
 * (blank lines and `#` comments skipped; ROUND a positive integer, rounds
 * in any order, equal rounds run together); each pair is tested in both
 * directions.  @names are the run's nodes.  -EINVAL with one line in @err
 * naming the file line and the bad value: a name not in @names, a node
 * twice in one round, A == B, a bad ROUND, text after NODE_B, no pair at
 * all.  Steps keep the file's round numbers; s->rounds counts the rounds.
 */
int schedule_parse(const char *text, const char *file, char *const *names, size_t n,
		   struct schedule *s, char *err, size_t errlen);

/*
 * A schedule as one compact printable string (what the coordinator hands
 * to every node's agent on its command line: no secret in it) and back.
 * Format is ours: "R:C>S,C>S;R:C>S" (indexes; `;` between steps; rails
 * are not in it, every pair runs on the rails the agents were given).
 * encode: NULL when out of memory.  decode: -EINVAL for anything
 * malformed (an empty string, an empty step, a round 0), an index >=
 * @nodes, C == S, or a node twice a client or twice a server in one step.
 */
char *schedule_encode(const struct schedule *s);
int schedule_decode(const char *text, uint32_t nodes, struct schedule *s);

/*
 * Building a schedule (pattern.c, schedule_file.c, the agents' string):
 * append an empty step of @round with room for @cap pairs (NULL when out of
 * memory; @s stays for schedule_free()), and a pair to a step with room.
 */
struct sched_step *schedule_step_add(struct schedule *s, uint32_t round, size_t cap);
void schedule_pair_add(struct sched_step *st, uint32_t client, uint32_t server);

void schedule_free(struct schedule *s);

#endif
