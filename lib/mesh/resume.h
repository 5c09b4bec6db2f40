/* SPDX-License-Identifier: MIT */
/*
 * Resuming a cluster probe (`probe -w --from FILE`): a run's saved
 * document (`--save FILE`, or `-j` output), complete or cut short, read
 * back, and what of it a new run keeps.  A link measured ok carries over
 * unchanged; the rest is still open and is tested again: the links the
 * run did not reach, and its suspects (a failed link, a link under --slow
 * of its median, both directions of a pair a finding names, and every
 * link of a node a finding names).
 *
 * Nodes are matched by name: the new run's node list may differ from the
 * saved one (a dead node left out with --exclude, one added).  Links of a
 * node the new run does not have are left out; a node the saved run did
 * not have is tested in full.  A document that shares no two nodes with
 * the new run is refused: it is another cluster's.
 */
#ifndef RDMACTL_RESUME_H
#define RDMACTL_RESUME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mesh/linkmap.h"

/* A finding of the saved run, as far as resuming cares: whom it names. */
struct saved_finding {
	uint32_t node, peer;	/* peer UINT32_MAX: the node alone */
	uint32_t rail;		/* UINT32_MAX: every rail */
};

struct saved_run {
	char **names;		/* run.names (owned) */
	uint32_t n;
	uint32_t rails;		/* run.rails, or the links' highest rail + 1 */
	bool complete;		/* run.complete (a document without it: true) */
	double median_gbps, slow;
	struct link_result *res;	/* every link, in the document's order; indexes into names */
	size_t nres;
	struct saved_finding *find;
	size_t nfind;
};

/*
 * Read the saved document in @text (@len bytes), a link at a time.
 * -EINVAL with one line in @err naming what is wrong ("links[3]: client
 * 'x' is not in run.names", "not a JSON object"), -ENOMEM.
 */
int saved_run_read(const char *text, size_t len, struct saved_run *sv, char *err, size_t errlen);
void saved_run_free(struct saved_run *sv);

struct resume {
	/*
	 * The saved run's last result of every directed link of the nodes
	 * of both runs, in the new run's indexes and the document's order
	 * (NULL once resume_carry() has put them in a map): those that carry
	 * over and those tested again, which count until their new result
	 * comes, so that a run stopped before it keeps them.
	 */
	struct link_result *carry;
	size_t nheld;
	size_t ncarry;			/* of them, carried over (ok, not suspect) */
	uint32_t rails;			/* the saved run's */
	size_t reopened;		/* the saved run's links tested again (suspects, failed) */
	size_t left_out;		/* links of a node the new run does not have */
	uint32_t common;		/* nodes of both runs */
	/* private: [client * nodes + server] rails carried */
	uint8_t *pair;
	uint32_t nodes;
};

/*
 * What carries over from @sv into a run of the @n nodes @names.
 * -ENOENT when the two share fewer than two nodes, -ENOMEM.
 */
int resume_plan(const struct saved_run *sv, char *const *names, uint32_t n, struct resume *rs);

/*
 * Leave out of @s every pair whose link is carried on all of the saved
 * run's rails, and the steps left empty.  0 or -ENOMEM.
 */
int resume_filter(const struct resume *rs, struct schedule *s);

/*
 * The saved links (rs->carry, carried and reopened) into @m, once, as its
 * first results (m->held): rs->carry is released (the counts stay, for
 * the report).  @m has at least rs->rails rails.  0 or -errno.
 */
int resume_carry(struct resume *rs, struct linkmap *m);

/* Tests (pairs times @rails) of @s: what a run of it measures. */
size_t schedule_tests(const struct schedule *s, uint32_t rails);

void resume_free(struct resume *rs);

#endif
