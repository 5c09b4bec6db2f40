/* SPDX-License-Identifier: MIT */
/*
 * The HTML report of `doctor -w` and `probe -w` runs: one file with its
 * CSS, SVG-free drawing and script inline, nothing fetched (its Content
 * Security Policy allows no source at all, and only its own style and
 * script by their hashes), that opens from a file and prints legibly.
 *
 *   doctor -w  the nodes x checks grid, the failures with their fixes,
 *              the drift between nodes, the nodes not reached and why
 *   probe -w   per rail, the bandwidth and latency matrices as heatmaps
 *              (fraction of the median, viridis), failed and untested
 *              cells marked by a symbol as well as a colour, the findings
 *              with the cells they explain outlined, the run's facts; a
 *              cell's title (or, drawn on a canvas above HTML_TABLE_MAX
 *              nodes, a hover) gives its figures and port counters
 *
 * Every string from a node goes through html_escape() (section.h).
 */
#ifndef RDMACTL_HTML_H
#define RDMACTL_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/section.h"

struct ctx;
struct outfile;
struct json_object;
struct linkmap;
struct linkview;

struct html_runs {
	const struct linkview *const *probe;	/* probe -w runs */
	size_t nprobe;
	struct json_object *const *doctor;	/* doctor -w documents (their -j output) */
	size_t ndoctor;
	/* The file each came from (rdmactl report), or NULL (the run just ended). */
	const char *const *probe_src, *const *doctor_src;
};

/* The page of @runs on @f.  0, -ENOMEM, or -EIO when @f failed. */
int html_report(FILE *f, const struct html_runs *runs);

/*
 * The page of @runs into @of, opened by the caller with outfile_open(),
 * committed (or, on any error, removed).  0 or -errno, the message
 * printed.
 */
int html_write(const struct ctx *ctx, struct outfile *of, const struct html_runs *runs);

/*
 * html_write() of one run: a probe -w's analysed link map and its facts
 * (coord_cfg.done), or a doctor -w's -j document (fleet_summary_doc()).
 * Each says "Wrote the report to FILE" on stderr.
 */
int html_write_probe(const struct ctx *ctx, struct outfile *of, const struct linkmap *m,
		     struct json_object *run);
int html_write_doctor(const struct ctx *ctx, struct outfile *of, struct json_object *doc);

#endif
