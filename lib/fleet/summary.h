/* SPDX-License-Identifier: MIT */
/*
 * One report for a whole fleet, from its nodes' doctor documents
 * (fleet.h, once fleet_finish()ed):
 *
 *   checks       per check, the nodes of each status folded into hostlists;
 *                failing and warning nodes grouped by their fix, given once
 *   drift        facts that should match across the fleet (drift.h)
 *   unreachable  the nodes without a document, each with its cause
 *   summary      "N nodes: K failed, W warned, U unreachable"
 *
 * A node is failed when a check of its own failed, warned when one warned
 * or when it differs from a majority (drift), unreachable when it has no
 * document.  Text fits 100 columns however many nodes: long hostlists are
 * cut ("... (998 nodes)"), in full under -j.
 */
#ifndef RDMACTL_FLEET_SUMMARY_H
#define RDMACTL_FLEET_SUMMARY_H

#include <stddef.h>

struct ctx;
struct fleet;
struct json_object;

/*
 * Text lines of the report fit this many columns, into a pipe too (values
 * cut, a row one line), or the terminal's width when it is narrower.
 */
#define FLEET_WIDTH 100

struct fleet_counts {
	size_t nodes, failed, warned, unreachable;
};

/*
 * Print the report of @fleet on stdout, or with ctx->json add its keys to
 * the document (nodes, checks, drift, unreachable, summary; the caller's
 * output_finish() prints it).  Fills @counts.  0 or -ENOMEM.
 */
int fleet_summary(struct ctx *ctx, const struct fleet *fleet, struct fleet_counts *counts);

/*
 * The report's -j document of @fleet whatever ctx->json says (for the HTML
 * page of doctor -w --html), to put; NULL when out of memory.
 */
struct json_object *fleet_summary_doc(const struct ctx *ctx, const struct fleet *fleet);

/* The exit code the report calls for: RC_PROBLEM when a node failed or was unreachable. */
int fleet_rc(const struct fleet_counts *c);

#endif
