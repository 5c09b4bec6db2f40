/* SPDX-License-Identifier: MIT */
/*
 * A fleet in memory: for each node, its own `rdmactl -j doctor`
 * document, or why there is none.  Two kinds of callers fill it:
 *
 *  - a launcher (launch.h), line by line as each node prints, with the
 *    causes it sees itself (a timeout, ssh refused, exit code 127):
 *      fleet_feed_line(fleet, "lab-c", "{\"checks\": [");
 *      fleet_node_fail(fleet, "lab-e", "ssh: connect: Connection refused");
 *  - fleet_read_gathered() (gathered.h), from output gathered before by
 *    any tool (`rdmactl doctor --gathered FILE|-|DIR`).
 *
 * Then fleet_finish() parses each node's text, and summary.h judges the
 * whole.  Nothing a node sent is trusted: a node whose text is not a
 * doctor document is failed with the reason, never dropped.
 */
#ifndef RDMACTL_FLEET_FLEET_H
#define RDMACTL_FLEET_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "launch/hostlist.h"

struct json_object;

/* Text one node may send: a doctor document is a few KiB (4 KiB a port at most). */
#define FLEET_DOC_MAX (4u << 20)
/*
 * JSON objects and arrays one node's text may open: a doctor document of
 * 64 ports has a few hundred.  Parsed, each costs json-c about a
 * kilobyte, so 4 MiB of "{}" would take a gigabyte.
 */
#define FLEET_DOC_OBJECTS_MAX 16384
/* Text of all nodes together. */
#define FLEET_TOTAL_MAX (512u << 20)
/*
 * Nodes in one fleet.  A launcher's are one hostlist's (HOSTLIST_MAX);
 * gathered output may join several runs', so the bound is the memory a
 * node costs (a few hundred bytes besides its text), not a hostlist's.
 */
#define FLEET_NODES_MAX (1u << 20)

struct fleet_node {
	char *name;		/* host name; "task N" for an srun task not yet named */
	char *doc;		/* its doctor document as it sent it, compact JSON text
				 * (fleet_doc() parses it); NULL: see error */
	char *error;		/* why there is no document (one line, escaped); NULL with doc */
	int rc;			/* its rdmactl's exit code; -1 when not known */

	/* Collecting (fleet_feed_line); freed by fleet_finish. */
	char *text;
	size_t len, cap;
	unsigned long line;	/* input line of its first text, for messages; 0: none */
	long task;		/* srun -l task number, or -1 */
	char *hint;		/* srun: the host a note of srun's names for this task */
	char *rejected;		/* why its text was refused while fed (too long, two documents) */
	int depth;		/* JSON nesting at the end of the text so far */
	size_t opened;		/* JSON objects and arrays opened in the text so far */
	bool in_str, esc, ended;/* in a string, after a backslash, a document ended */
};

struct fleet {
	struct fleet_node **nodes;	/* n nodes; sorted by name once finished */
	size_t n, cap;
	size_t *slots;		/* hash of names: index + 1, 0 when free */
	size_t nslots;		/* a power of two, more than twice n */
	size_t total;		/* bytes of text held */
	unsigned long lineno;	/* the input line being fed, for messages; 0: none */
	/* Lines of the launchers' own that name no node ("srun: Job step aborted"). */
	struct json_object *notes;
	bool finished;
};

void fleet_init(struct fleet *fleet);
void fleet_free(struct fleet *fleet);

/*
 * The node named @name, added (with no text) when new: a launcher adds
 * every node it starts, so one that never answers is still reported.
 * 0; -ENOMEM; -E2BIG past FLEET_NODES_MAX.
 */
int fleet_add(struct fleet *fleet, const char *name, struct fleet_node **out);
struct fleet_node *fleet_find(const struct fleet *fleet, const char *name);

/*
 * Append @line (without its newline) to what @host printed.  A document
 * may come over many lines (pretty-printed) or one.  0; -ENOMEM; -E2BIG
 * past FLEET_NODES_MAX; -ENOSPC when all nodes' text passes
 * FLEET_TOTAL_MAX.  Text the node may not
 * send is its failure, with the reason, and also returned so that a
 * reader of gathered output can refuse the input:
 *   -EFBIG   its text passes FLEET_DOC_MAX
 *   -EEXIST  a second document begins after the first ended
 */
int fleet_feed_line(struct fleet *fleet, const char *host, const char *line);

/* The same for an srun task known only by its number (srun -l's "N: "). */
int fleet_feed_task(struct fleet *fleet, unsigned long task, const char *line);

/*
 * @host did not run rdmactl to its end: the cause, one line ("command
 * timeout", "ssh exited with exit code 255").  Several are joined with
 * "; ".  A complete document wins over them (the node did answer).
 * 0 or -ENOMEM.
 */
int fleet_node_fail(struct fleet *fleet, const char *host, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A line for the report that is no node's result (a launcher's message
 * naming no node, text beside a node's document).  Shown as escaped.
 * 0 or -ENOMEM.
 */
int fleet_note(struct fleet *fleet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* @host's rdmactl exited with @rc (as its launcher said). 0 or -ENOMEM. */
int fleet_node_rc(struct fleet *fleet, const char *host, int rc);

/*
 * Parse each node's text into its document, or fail it with the reason
 * ("output is not a doctor document (line 12): 'bash: rdmactl: command
 * not found'").  A document among other lines (the node's stderr, with
 * 2>&1) is taken, and a note quotes the rest.  Name srun tasks after
 * their documents' node.hostname (else "task N"); sort the nodes by name
 * (node2 before node10).  Once; then nothing more may be fed.  0;
 * -ENOMEM; -EEXIST when two tasks' documents name the same host, with
 * the message in @err.
 */
int fleet_finish(struct fleet *fleet, char *err, size_t errlen);

/*
 * The document of @nd as a tree (a new reference to put), parsed from its
 * text each time: one node's tree at a time is what the report holds.
 * NULL when @nd has none, or out of memory.
 */
struct json_object *fleet_doc(const struct fleet_node *nd);

/* How many nodes have a document. */
size_t fleet_reached(const struct fleet *fleet);

/*
 * The names of nodes @idx[0..n-1] folded into one hostlist (hostlist_fold),
 * names that are no host names ("task 3") after it, comma-separated.
 * malloc'd; NULL when out of memory.
 */
char *fleet_fold(const struct fleet *fleet, const size_t *idx, size_t n);

/* A host name as hostlist.h takes it: letters, digits, '.', '_', '-', not first '-'. */
bool fleet_host_ok(const char *s, size_t len);

#endif
