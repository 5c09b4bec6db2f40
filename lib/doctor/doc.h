/* SPDX-License-Identifier: MIT */
/*
 * The doctor's document, defined once: what `rdmactl -j doctor` writes,
 * each node's part of `doctor -w`, and what `doctor --gathered`,
 * `rdmactl report`, the metrics and the HTML page read back.  Its keys,
 * in the order the writer puts them:
 *
 *   {"checks": [{"status": "ok", "id": "mtu", "found": "...", "fix": null}, ...],
 *    "summary": {"failed": 0, "warnings": 1, "ok": 14, "skipped": 1,
 *                "problems": ["roce.gid"]},
 *    "node": {...the node's facts, node/nodeinfo.h...},
 *    "warnings": [...files that could not be read...]}
 *
 * Writer and readers name a key only through these macros and a status
 * only through check_status_str(), _text() and _parse(): a key renamed
 * here is renamed for all of them, where a literal on one side would
 * silently break the other (tests/self/doc-words finds such literals).
 */
#ifndef RDMACTL_DOC_H
#define RDMACTL_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/output.h"

struct json_object;

/* The document's top-level keys. */
#define DOC_CHECKS	"checks"	/* array: one row a check run, in doctor_checks[] order */
#define DOC_SUMMARY	"summary"	/* object: the counts, doctor_summary_json() */
#define DOC_NODE	"node"		/* object: the node's facts (node_facts_json()) */

/* A row of "checks", in this order. */
#define DOC_STATUS	"status"	/* a status word: check_status_str() */
#define DOC_ID		"id"		/* the check's ID (doctor_checks[].id) */
#define DOC_FOUND	"found"		/* what was found; for a skip, why */
#define DOC_FIX		"fix"		/* the fix, or null when ok or skipped */
/* A row of `doctor --list`: the ID, these, and DOC_FIX (the usual fix). */
#define DOC_DESCRIPTION	"description"
#define DOC_READS	"reads"		/* what the check reads */
#define DOC_FAILS	"fails"		/* what fails or warns it */

/* The summary's keys besides the count of ok checks (check_status_str(CHECK_OK)). */
#define DOC_FAILED	"failed"
#define DOC_WARNINGS	"warnings"
#define DOC_SKIPPED	"skipped"
#define DOC_PROBLEMS	"problems"	/* array: the IDs not ok */

enum check_status {
	CHECK_OK,
	CHECK_WARN,
	CHECK_FAIL,
	CHECK_SKIP,
};

/*
 * The node's check table as doctor prints it: a row's keys in order, each
 * the JSON key and its text column (STATUS, CHECK, FOUND, FIX).
 */
extern const struct column doc_check_cols[];

/*
 * The status words, for the doctor's JSON and every document made from it
 * (doctor -j, the cluster report, gathered files, metrics labels): always
 * lowercase, "ok", "warn", "fail", "skip".  People read a failure as FAIL,
 * in capitals: check_status_text(), and check_status_cell() as a table
 * column's text.  Readers take either spelling, in any case: nodes of an
 * older rdmactl wrote "FAIL".
 */
const char *check_status_str(enum check_status s);	/* JSON: "ok", "warn", "fail", "skip" */
const char *check_status_text(enum check_status s);	/* text: "ok", "warn", "FAIL", "skip" */
/* The status @word names, in any case ("fail", "FAIL"); -EINVAL for none. */
int check_status_parse(const char *word);
/* "ok, warn, fail, skip": the words a message offers for a bad one. */
const char *check_status_list(void);
/* A table's "status" cell as people read it (struct column's text). */
const char *check_status_cell(struct json_object *row, char *buf, size_t len);
/* The colour of a status, in either spelling (a column's colour). */
enum color check_status_color(const char *text);

/*
 * The "summary" object of a node's checks: @n[] counted by enum
 * check_status, @problems the IDs not ok, ", "-separated.  NULL without
 * memory.
 */
struct json_object *doc_summary_json(const int *n, const char *problems);

/*
 * How every reason rdmactl gives Slurm begins: its health mode resumes a
 * node only when Slurm shows it drained with a reason of this prefix (one
 * it wrote), as NHC knows its own drains by "NHC: ".
 */
#define DOC_DRAIN_PREFIX "rdmactl: "
/* The longest reason written, prefix and NUL included. */
#define DOC_DRAIN_REASON_MAX 256

/*
 * The reason `doctor --slurm-health --drain` gives Slurm for the check
 * of @row when it failed: "rdmactl: mtu: eth0 MTU 1500 ...", its finding
 * cut to fit, quotes and line breaks made ' so that it stays one word of
 * scontrol's line.  False, @reason untouched, when the check did not fail.
 * The health mode drains with the first such row; doctor -w says the same
 * of each node (what --drain would do there).
 */
bool doc_drain_reason(struct json_object *row, char *reason, size_t len);

#endif
