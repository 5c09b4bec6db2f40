/* SPDX-License-Identifier: MIT */
/*
 * rdmactl doctor: the check table and its runner.  Each check is one row of
 * doctor_checks[] (a stable ID, a one-line description, a function) and
 * gives one result: a status, what it found, and for anything not ok the
 * exact fix.  The checks live in check_*.c beside this file, grouped by
 * subject (checks.h); what they are handed and write with is check.h's.
 * Both are included here, so that a command running the doctor (and
 * freeing its peer's facts, doctor_peer_free()) needs this header alone.
 */
#ifndef RDMACTL_DOCTOR_H
#define RDMACTL_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/output.h"
#include "doctor/check.h"
#include "doctor/checks.h"
#include "doctor/doc.h"

struct ctx;
struct json_object;
struct table;

/*
 * A row of the table.  Beside the one-line description, what an operator
 * reads in doc/checks.md (made from `rdmactl -j doctor --list`): what the
 * check reads, what fails or warns it, and the usual fix (each run's fix
 * is the exact command for that node).
 */
struct check {
	const char *id;
	const char *desc;
	const char *reads;
	const char *fails;
	const char *fix;
	void (*fn)(struct node_facts *d, struct check_result *r);
	/* It judges the loaded model (d->node): files unread while loading it count. */
	bool node;
};

/* The table, in the order checks run; NULL-id terminated. */
extern const struct check doctor_checks[];

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
void doctor_run(struct node_facts *d, const bool *sel, struct table *t, struct doctor_counts *c);

#endif
