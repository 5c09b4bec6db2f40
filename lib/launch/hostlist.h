/* SPDX-License-Identifier: MIT */
/*
 * Hostlists as users type them into Slurm (-w, SLURM_JOB_NODELIST), pdsh
 * and ClusterShell, and the reverse: node names folded back into one.
 *
 *   node[01-64]                 node01 node02 ... node64 (zero padding kept)
 *   node[1-3,7],gpu[001-004]    commas and blanks separate items
 *   10.99.0.[1-4]               10.99.0.1 ... 10.99.0.4
 *   rack[1-2]-node[1-3]         rack1-node1 rack1-node2 rack1-node3 rack2-node1 ...
 *
 * Where the references disagree, Slurm's `scontrol show hostnames` and
 * ClusterShell's `nodeset -e` (tests/cli/hostlist-ref.sh runs both):
 *  - Names come in the order written; a name already listed is dropped
 *    (scontrol keeps duplicates, nodeset sorts).
 *  - Several groups expand last group fastest, as nodeset does; Slurm
 *    agrees for two groups and mixes the order from three on.
 *  - Text after a group (node[1-2]-ib) is taken, as nodeset takes it;
 *    adjacent groups (node[1-2][3-4]) are a product, as Slurm makes them.
 *  - The low end of a range sets its width, as in Slurm, so node[01-100]
 *    (which Slurm writes for node01..node100) is node01..node99 node100;
 *    nodeset refuses it.  A zero-padded high end of another width
 *    (node[1-010]) is an error, as in nodeset.
 *  - An empty item (a,,b, a trailing comma) and an unclosed '[' are errors,
 *    as in nodeset; Slurm drops the first and reads node[ as "node]".
 *  - At most HOSTLIST_MAX hosts, counted as written (duplicates too) and
 *    checked before an item is expanded.  Slurm caps one range at 65536
 *    but not a product (a[1-300]b[1-300] gives 90000); nodeset has no cap.
 *  - Numbers have at most 18 digits (Slurm wraps larger ones silently).
 *  - No steps (node[1-9/2]), set operators (! & ^) or @groups: nodeset
 *    only, and Slurm reads none of them.
 *  - Host names hold letters, digits, '.', '_' and '-', and do not start
 *    with '-': ssh and pdsh would take such a name for an option.
 */
#ifndef RDMACTL_HOSTLIST_H
#define RDMACTL_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>

/* Hosts one hostlist may name, as Slurm allows in one range. */
#define HOSTLIST_MAX 65536
/* Longest host name (DNS allows 253 for a whole name). */
#define HOSTLIST_NAME_MAX 255
/* Largest @FILE read. */
#define HOSTLIST_FILE_MAX (16 << 20)

struct hostlist {
	char **names;		/* n distinct names, in the order first written */
	size_t n, cap;
	size_t written;		/* hosts written, duplicates included */
	size_t *slots;		/* hash of names: index + 1, 0 when free */
	size_t nslots;		/* a power of two, more than twice n */
};

void hostlist_init(struct hostlist *hl);
void hostlist_free(struct hostlist *hl);

/*
 * Add the hosts of hostlist @s to @hl.  0; -EINVAL or -E2BIG (over
 * HOSTLIST_MAX) with one line in @err such as
 *   invalid hostlist 'node[3-1]': range 3-1 goes down
 * and @hl as it was; -ENOMEM.
 */
int hostlist_parse(struct hostlist *hl, const char *s, char *err, size_t errlen);

/*
 * Add the hosts listed in file @path: one host or hostlist a line, '#'
 * to the end of a line a comment, blank lines skipped; a file naming no
 * host (empty, or comments only) is -EINVAL, as " " is.  Errors as above,
 * prefixed "PATH:LINE: ", or "Failed to read hostlist file 'PATH': ..."
 * with -errno (-EFBIG over HOSTLIST_FILE_MAX); @hl as it was.
 */
int hostlist_read_file(struct hostlist *hl, const char *path, char *err, size_t errlen);

/* An argument of -w or -x: "@FILE" reads FILE, anything else is a hostlist. */
int hostlist_parse_arg(struct hostlist *hl, const char *arg, char *err, size_t errlen);

/* Add one host name as it is (no brackets); errors as hostlist_parse. */
int hostlist_add(struct hostlist *hl, const char *name, char *err, size_t errlen);

bool hostlist_has(const struct hostlist *hl, const char *name);

/* Remove from @hl the names of @x (-x); the rest keep their order.  -ENOMEM. */
int hostlist_exclude(struct hostlist *hl, const struct hostlist *x);

/*
 * Fold @n names into one hostlist in *@out (malloc'd; "" for none), as
 * `nodeset -f` folds: sorted, each name once, and
 *  - only numbers fold, every number of a name (node[1-2]-ib[0-1]); text
 *    never does, so lab-b,lab-d stays as it is (neither reference reads
 *    lab-[b,d]);
 *  - numbers in a group go by length, then value, and a range keeps one
 *    width: node01..node100 folds to node[01-99,100], which Slurm and
 *    nodeset both read (Slurm itself writes node[01-100]);
 *  - names varying in several numbers fold last number first, then merge
 *    the lines that differ in one other number only: rectangles fold as
 *    nodeset folds them, other shapes may group differently (a1b1,a2b1,a2b2
 *    gives a1b1,a2b[1-2], nodeset a[1-2]b1,a2b2: the same names);
 *  - a run of more than 18 digits is text.
 * O(n log n).  0; -EINVAL when a name is not a host name as above (the
 * output would not read back); -ENOMEM.
 */
int hostlist_fold(const char *const *names, size_t n, char **out);

/* hostlist_fold of the names of @hl. */
int hostlist_str(const struct hostlist *hl, char **out);

#endif
