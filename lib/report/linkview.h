/* SPDX-License-Identifier: MIT */
/*
 * A cluster probe's results as the HTML report draws them: for every
 * rail, an N x N grid of cells (writer row, receiver column) with the
 * figures of the last test of that link, the findings by node index, and
 * the run's facts.  Made from the link map of a run that just ended
 * (probe -w --html) or read back from its saved `rdmactl -j probe -w`
 * document (rdmactl report): one picture whichever way it came.
 *
 * A cell takes 32 bytes, so a 1 000-node run is 32 MB per rail; the
 * document of such a run is ~200 MB of JSON, read a link at a time (one
 * json-c tree of it would take gigabytes).
 */
#ifndef RDMACTL_LINKVIEW_H
#define RDMACTL_LINKVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct linkmap;

enum lv_state {
	LV_NONE,	/* not tested (the pattern left it out, or the diagonal) */
	LV_OK,
	LV_FAILED,
};

struct lv_cell {
	float gbps;		/* LV_OK */
	float lat;		/* us; < 0 not measured */
	uint32_t retrans, seq_err, cnp;	/* port counters that grew during the test */
	uint8_t state;		/* enum lv_state */
	char *why;		/* LV_FAILED: "cause: the probe's line" (owned), or NULL */
};

struct lv_finding {
	char kind[24];		/* "slow_node", ... as in -j */
	bool failure;
	uint32_t node, peer;	/* peer UINT32_MAX: a node alone */
	uint32_t rail;		/* UINT32_MAX: every rail */
	char *text;		/* owned */
};

struct linkview {
	char **names;		/* hostlist order (owned) */
	uint32_t n, rails;
	struct lv_cell *cells;	/* [rail][writer][receiver] */
	double median_gbps;	/* 0: no link ok */
	double median_lat;	/* < 0: none measured */
	double slow;		/* a link under this fraction of the median is slow */
	struct lv_finding *find;
	size_t nfind;
	struct json_object *run;	/* the run's facts as -j has them (owned), or NULL */
	/*
	 * The switch findings (probe -w --topology) by switch: {name: "kind"}
	 * for the switch a finding names, "kind?" for each of the candidates
	 * of one the tree cannot tell apart (owned), or NULL when none.
	 */
	struct json_object *swmarks;
};

static inline struct lv_cell *lv_cell(const struct linkview *v, uint32_t rail, uint32_t i,
				      uint32_t j)
{
	return &v->cells[((size_t)rail * v->n + i) * v->n + j];
}

/* From a run's analysed link map; @run: its facts (a reference is taken).  0 or -ENOMEM. */
int linkview_from_map(struct linkview *v, const struct linkmap *m, struct json_object *run);

/*
 * Read a saved `rdmactl -j` document (@len bytes): *@doc gets its
 * top-level keys but "links" (the caller puts it); when it is the
 * document of `probe -w` (it has "findings" and "links"), @v gets its
 * picture, else v->n is 0.  -EINVAL with one line in @err naming what is
 * wrong ("links[12]: no client", "not a JSON object"), -ENOMEM.
 */
int linkview_read(struct linkview *v, struct json_object **doc, const char *text, size_t len,
		  char *err, size_t errlen);

void linkview_free(struct linkview *v);

#endif
