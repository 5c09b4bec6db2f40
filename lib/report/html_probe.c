// SPDX-License-Identifier: MIT
/*
 * The probe -w section of the HTML report (see html.h): the facts, the
 * findings, and per rail the bandwidth and latency heatmaps.  Up to
 * HTML_TABLE_MAX nodes a matrix is a table, one cell an element with its
 * class and title; above, a canvas the page's script paints from two
 * characters a cell (a million cells: 2 MB a matrix, where as many table
 * cells would take the browser minutes).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/json.h"
#include "base/output.h"
#include "base/text.h"
#include "launch/hostlist.h"
#include "report/html_probe.h"
#include "report/linkview.h"
#include "report/section.h"

/* Up to this many nodes a table's cells show their figures too. */
#define FIGURES_MAX 16

/* Compact cells: two base64url characters, 0..4095; values scaled as below. */
#define CODE_NONE 4095
#define CODE_FAILED 4094
#define CODE_MAX 4000
#define GBPS_SCALE 1000.0	/* code = fraction of the median x 1000 (up to 4x) */
#define LAT_SCALE 250.0		/* code = latency over its median x 250 (up to 16x) */

static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* What a cell is, for its class. */
enum kind { K_SELF, K_DOWN, K_NONE, K_FAILED, K_OK };

/* Nodes that did not take part, from the findings (their links were not run). */
static bool *downs(const struct linkview *v)
{
	bool *d = calloc(v->n + 1, sizeof(*d));
	size_t i;

	for (i = 0; d && i < v->nfind; i++)
		if (!strcmp(v->find[i].kind, "down_node") && v->find[i].node < v->n)
			d[v->find[i].node] = true;
	return d;
}

/*
 * The cells a finding explains, per rail: a node's row and column (every
 * rail, or its slow rail), a link's two cells.
 */
static uint8_t *explained(const struct linkview *v)
{
	size_t nn = (size_t)v->n * v->n;
	uint8_t *hl = calloc((size_t)v->rails * nn + 1, 1);
	size_t k;
	uint32_t r, x;

	for (k = 0; hl && k < v->nfind; k++) {
		const struct lv_finding *f = &v->find[k];

		if (f->node >= v->n)
			continue;
		for (r = 0; r < v->rails; r++) {
			uint8_t *m = hl + r * nn;

			if (f->rail != UINT32_MAX && f->rail != r)
				continue;
			if (f->peer < v->n) {
				m[(size_t)f->node * v->n + f->peer] = 1;
				m[(size_t)f->peer * v->n + f->node] = 1;
				continue;
			}
			for (x = 0; x < v->n; x++)
				m[(size_t)f->node * v->n + x] = m[(size_t)x * v->n + f->node] = 1;
		}
	}
	return hl;
}

static enum kind kind_of(const struct linkview *v, const bool *down, uint32_t i, uint32_t j,
			 const struct lv_cell *c)
{
	if (i == j)
		return K_SELF;
	if (down[i] || down[j])
		return K_DOWN;
	if (c->state == LV_FAILED)
		return K_FAILED;
	return c->state == LV_OK && v->median_gbps > 0 ? K_OK : K_NONE;
}

/* Ten steps of the scale, as the terminal's (9 at the median or above, 0 far under it). */
static int step(double frac)
{
	return (int)(color_heat(frac) - COLOR_HEAT0);
}

static double lat_frac(const struct linkview *v, const struct lv_cell *c)
{
	return c->lat > 0 && v->median_lat > 0 ? v->median_lat / c->lat : 1;
}

static void cell_title(FILE *f, const struct linkview *v, uint32_t r, uint32_t i, uint32_t j,
		       enum kind k, const struct lv_cell *c)
{
	html_escape(f, v->names[i]);
	fputs(" &#8594; ", f);
	html_escape(f, v->names[j]);
	if (v->rails > 1)
		fprintf(f, " (rail %u)", r);
	fputs(": ", f);
	switch (k) {
	case K_SELF: fputs("itself", f); return;
	case K_DOWN: fputs("not run: a node did not take part", f); return;
	case K_NONE: fputs("not tested", f); return;
	case K_FAILED: fputs("failed: ", f); html_escape(f, c->why); break;
	case K_OK:
		fprintf(f, "%.2f Gb/s, %.2f of the median", c->gbps, c->gbps / v->median_gbps);
		if (c->lat >= 0)
			fprintf(f, "; latency %.2f us", c->lat);
		break;
	}
	fprintf(f, "\ncounters: retrans %u, seq_err %u, cnp %u", c->retrans, c->seq_err, c->cnp);
}

static const char *const kind_class[] = {
	[K_SELF] = "self", [K_DOWN] = "down", [K_NONE] = "none", [K_FAILED] = "fail", [K_OK] = "q",
};
static const char *const kind_sym[] = {
	[K_SELF] = "", [K_DOWN] = "", [K_NONE] = "&#183;", [K_FAILED] = "&#10005;", [K_OK] = "",
};

static void table_head(FILE *f, const struct linkview *v)
{
	uint32_t j;

	fprintf(f, "<table class=\"hm%s\"><thead><tr><th></th>", v->n <= FIGURES_MAX ? " wide" : "");
	for (j = 0; j < v->n; j++) {
		fputs("<th class=\"v\">", f);
		html_escape(f, v->names[j]);
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
}

/* One matrix as a table: bandwidth (@lat false) or latency of rail @r. */
static void matrix_table(FILE *f, const struct linkview *v, uint32_t r, bool lat, const bool *down,
			 const uint8_t *hl)
{
	uint32_t i, j;

	table_head(f, v);
	for (i = 0; i < v->n; i++) {
		fputs("<tr><th>", f);
		html_escape(f, v->names[i]);
		fputs("</th>", f);
		for (j = 0; j < v->n; j++) {
			const struct lv_cell *c = lv_cell(v, r, i, j);
			enum kind k = kind_of(v, down, i, j, c);
			bool hil = hl[((size_t)r * v->n + i) * v->n + j] && k != K_SELF;

			if (k == K_OK && lat && c->lat < 0)
				k = K_NONE;
			fprintf(f, "<td class=\"%s", kind_class[k]);
			if (k == K_OK)
				fprintf(f, "%d", step(lat ? lat_frac(v, c) : c->gbps / v->median_gbps));
			if (k == K_OK && !lat && c->gbps < v->slow * v->median_gbps)
				fputs(" slow", f);
			fprintf(f, "%s\" title=\"", hil ? " hl" : "");
			cell_title(f, v, r, i, j, k, c);
			fputs("\">", f);
			if (k == K_OK && v->n <= FIGURES_MAX)
				fprintf(f, lat ? "%.1f" : "%.3g", lat ? c->lat : c->gbps);
			else
				fputs(kind_sym[k], f);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* ---- above HTML_TABLE_MAX: compact data and a canvas ---- */

static unsigned int code_of(const struct linkview *v, const bool *down, uint32_t i, uint32_t j,
			    const struct lv_cell *c, bool lat)
{
	enum kind k = kind_of(v, down, i, j, c);
	double x;

	if (k == K_FAILED)
		return CODE_FAILED;
	if (k != K_OK || (lat && (c->lat < 0 || v->median_lat <= 0)))
		return CODE_NONE;
	x = lat ? c->lat / v->median_lat * LAT_SCALE : c->gbps / v->median_gbps * GBPS_SCALE;
	return x > CODE_MAX ? CODE_MAX : (unsigned int)lround(x);
}

static struct json_object *codes(const struct linkview *v, const bool *down, uint32_t r, bool lat)
{
	size_t nn = (size_t)v->n * v->n, p = 0;
	char *s = malloc(nn * 2 + 1);
	struct json_object *o;
	uint32_t i, j;

	if (!s)
		return NULL;
	for (i = 0; i < v->n; i++)
		for (j = 0; j < v->n; j++) {
			unsigned int c = code_of(v, down, i, j, lv_cell(v, r, i, j), lat);

			s[p++] = b64url[c >> 6];
			s[p++] = b64url[c & 63];
		}
	o = json_object_new_string_len(s, (int)p);
	free(s);
	return o;
}

/*
 * @s for the script's data, as html_escape() would show it (the script
 * puts it in the page as text: a bidi override there reorders the tooltip
 * as it would the page).
 */
static struct json_object *safe_string(const char *s)
{
	size_t len = strlen(s) * 4 + 1;
	char *safe = malloc(len);
	struct json_object *o;

	if (!safe)
		return NULL;
	o = json_object_new_string(text_safe(s, safe, len, 0));
	free(safe);
	return o;
}

/* The failed cells' causes and the non-zero counters, by cell index (rail, row, column). */
static void sparse(const struct linkview *v, const bool *down, struct json_object *why,
		   struct json_object *cnt)
{
	size_t idx, total = (size_t)v->rails * v->n * v->n;

	for (idx = 0; idx < total; idx++) {
		const struct lv_cell *c = &v->cells[idx];
		uint32_t i = (uint32_t)(idx / v->n % v->n), j = (uint32_t)(idx % v->n);
		char key[24];

		if (kind_of(v, down, i, j, c) == K_SELF || c->state == LV_NONE)
			continue;
		snprintf(key, sizeof(key), "%zu", idx);
		if (c->state == LV_FAILED && c->why)
			json_object_object_add(why, key, safe_string(c->why));
		if (c->retrans || c->seq_err || c->cnp) {
			struct json_object *a = json_object_new_array();

			json_object_array_add(a, json_object_new_int64(c->retrans));
			json_object_array_add(a, json_object_new_int64(c->seq_err));
			json_object_array_add(a, json_object_new_int64(c->cnp));
			json_object_object_add(cnt, key, a);
		}
	}
}

/* Nodes to tick on the margins: those a finding names, and a link finding's ends. */
static struct json_object *marks(const struct linkview *v)
{
	struct json_object *a = json_object_new_array();
	size_t k;

	for (k = 0; k < v->nfind; k++) {
		if (v->find[k].node < v->n)
			json_object_array_add(a, json_object_new_int64(v->find[k].node));
		if (v->find[k].peer < v->n)
			json_object_array_add(a, json_object_new_int64(v->find[k].peer));
	}
	return a;
}

/* JSON inside <script type="application/json">: "<", ">" and "&" as \u escapes, so no tag ends it. */
static void json_block(FILE *f, const char *id, struct json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE);

	fprintf(f, "<script type=\"application/json\" id=\"%s\">", id);
	for (; *s; s++) {
		if (*s == '<' || *s == '>' || *s == '&')
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputs("</script>\n", f);
}

static int big_data(FILE *f, const struct linkview *v, const bool *down, size_t idx)
{
	struct json_object *d = json_object_new_object(), *names = json_object_new_array();
	struct json_object *g = json_object_new_array(), *l = json_object_new_array();
	struct json_object *why = json_object_new_object(), *cnt = json_object_new_object();
	char id[32];
	uint32_t i, r;

	if (!d || !names || !g || !l || !why || !cnt) {
		json_object_put(d), json_object_put(names), json_object_put(g);
		json_object_put(l), json_object_put(why), json_object_put(cnt);
		return -ENOMEM;
	}
	for (i = 0; i < v->n; i++)
		json_object_array_add(names, safe_string(v->names[i]));
	for (r = 0; r < v->rails; r++) {
		json_object_array_add(g, codes(v, down, r, false));
		json_object_array_add(l, v->median_lat > 0 ? codes(v, down, r, true) : NULL);
	}
	sparse(v, down, why, cnt);
	json_object_object_add(d, "names", names);
	json_object_object_add(d, "g", g);
	json_object_object_add(d, "l", l);
	json_object_object_add(d, "why", why);
	json_object_object_add(d, "cnt", cnt);
	json_object_object_add(d, "marks", marks(v));
	json_object_object_add(d, "median_gbps", json_object_new_double(v->median_gbps));
	json_object_object_add(d, "median_lat", json_object_new_double(v->median_lat));
	json_object_object_add(d, "slow", json_object_new_double(v->slow));
	json_object_object_add(d, "gscale", json_object_new_double(GBPS_SCALE));
	json_object_object_add(d, "lscale", json_object_new_double(LAT_SCALE));
	snprintf(id, sizeof(id), "probe-%zu-data", idx);
	json_block(f, id, d);
	json_object_put(d);
	return 0;
}

static void matrix_canvas(FILE *f, const struct linkview *v, uint32_t r, bool lat, size_t idx)
{
	fprintf(f, "<canvas class=\"big\" data-src=\"probe-%zu-data\" data-rail=\"%u\" data-kind=\"%s\""
		" width=\"%u\" height=\"%u\"></canvas>\n", idx, r, lat ? "lat" : "gbps", v->n + 8,
		v->n + 8);
	fprintf(f, "<p class=\"standout\" id=\"probe-%zu-%s-%u\"></p>\n", idx, lat ? "lat" : "gbps", r);
}

/* ---- the section ---- */

static void fact(FILE *f, const char *name, struct json_object *v)
{
	if (!v)
		return;
	fprintf(f, "<dt>%s</dt><dd>", name);
	html_escape(f, json_object_get_string(v));
	fputs("</dd>", f);
}

static void facts(FILE *f, const struct linkview *v)
{
	static const char *const keys[] = { "nodes", "joined", "pattern", "rails", "rounds", "steps",
					    "retest_steps", "start_s", "probe_s", "launcher",
					    "version" };
	size_t i;

	fputs("<dl class=\"facts\">", f);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct json_object *x = NULL;

		if (v->run && json_object_object_get_ex(v->run, keys[i], &x))
			fact(f, keys[i], x);
	}
	fprintf(f, "<dt>median</dt><dd>%.2f Gb/s", v->median_gbps);
	if (v->median_lat >= 0)
		fprintf(f, ", %.2f us", v->median_lat);
	fprintf(f, "</dd><dt>slow</dt><dd>under %.2f of the median</dd></dl>\n", v->slow);
}

static void findings(FILE *f, const struct linkview *v, bool table)
{
	size_t k;

	if (!v->nfind) {
		fputs("<h3>Findings</h3>\n<p>None: every link within the median's range.</p>\n", f);
		return;
	}
	fputs("<h3>Findings</h3>\n<ol class=\"findings\">\n", f);
	for (k = 0; k < v->nfind; k++) {
		fprintf(f, "<li class=\"%s\"><b>%s</b> ", v->find[k].failure ? "fail" : "warn",
			v->find[k].failure ? "FAIL" : "warn");
		html_escape(f, v->find[k].kind);
		fputs(": ", f);
		html_escape(f, v->find[k].text);
		fputs("</li>\n", f);
	}
	fprintf(f, "</ol>\n<p class=\"muted\">%s</p>\n",
		table ? "The cells these explain are outlined."
		      : "The nodes these name are ticked on the matrices' margins.");
}

/* ---- the switch tree (probe -w --topology), its switch findings marked ---- */

/* Deeper or larger than this a document's tree is not a fabric's (and a loop in a hostile one ends). */
#define TREE_DEPTH 16
#define TREE_SWITCHES 4096

static void tree_item(FILE *f, const struct linkview *v, struct json_object *sws, size_t k, int depth)
{
	struct json_object *o = json_object_array_get_idx(sws, k), *mark = NULL;
	const char *name = jstr(o, "switch");
	size_t i, n = json_object_array_length(sws);
	bool open = false;

	fputs("<li>", f);
	html_escape(f, name);
	if (jget(o, "nodes")) {
		int64_t nodes = jint(o, "nodes", 0);

		fprintf(f, " <span class=\"muted\">(%" PRId64 " node%s", nodes, nodes == 1 ? "" : "s");
		if (jstr(o, "hostlist")) {
			fputs(": ", f);
			html_escape(f, jstr(o, "hostlist"));
		}
		fputs(")</span>", f);
	}
	if (v->swmarks && json_object_object_get_ex(v->swmarks, name, &mark)) {
		const char *m = json_object_get_string(mark);

		fprintf(f, " <b class=\"fail\">&#9664; %s", strncmp(m, "slow_switch", 11) ? "uplink" : "switch");
		fputs(" (", f);
		html_escape(f, m);
		fputs(")</b>", f);
	}
	for (i = 0; depth < TREE_DEPTH && i < n; i++) {
		const char *parent = jstr(json_object_array_get_idx(sws, i), "parent");

		if (!parent || strcmp(parent, name) || i == k || !jstr(json_object_array_get_idx(sws, i), "switch"))
			continue;
		if (!open)
			fputs("<ul>", f);
		open = true;
		tree_item(f, v, sws, i, depth + 1);
	}
	fputs(open ? "</ul></li>\n" : "</li>\n", f);
}

/* The run's switch tree (run.topology), when it had one. */
static void tree(FILE *f, const struct linkview *v)
{
	struct json_object *sws = NULL;
	size_t i;

	if (!v->run || !json_object_object_get_ex(v->run, "topology", &sws) ||
	    !json_object_is_type(sws, json_type_array) || jlen(sws) > TREE_SWITCHES)
		return;
	fputs("<h3>Switch tree</h3>\n<ul class=\"tree\">", f);
	for (i = 0; i < json_object_array_length(sws); i++)
		if (jstr(json_object_array_get_idx(sws, i), "switch") &&
		    !jget(json_object_array_get_idx(sws, i), "parent"))
			tree_item(f, v, sws, i, 0);
	fputs("</ul>\n<p class=\"muted\">A marked uplink is the switch's link to the one above it; "
	      "\"?\": one of the candidates the tree cannot tell apart.</p>\n", f);
}

static void legend(FILE *f)
{
	int q;

	fputs("<p class=\"legend\">fraction of the median:", f);
	for (q = 0; q <= 9; q++)
		fprintf(f, "<span class=\"q%d\"></span>%s", q, q == 0 ? "0" : q == 9 ? "1" : "");
	fputs("<span class=\"fail\">&#10005;</span>failed<span class=\"none\">&#183;</span>not tested"
	      "<span class=\"down\"></span>node down</p>\n", f);
}

/* What the matrices draw: links measured (ok or failed) and untested, nodes down excluded. */
struct drawn {
	size_t ok, failed, untested;
	char *untested_nodes;	/* hostlist of the nodes with an untested link (owned), or NULL */
};

static int count_drawn(const struct linkview *v, const bool *down, struct drawn *d)
{
	char **names = calloc(v->n + 1, sizeof(*names));
	uint32_t r, i, j, k = 0;
	int ret = 0;

	memset(d, 0, sizeof(*d));
	if (!names)
		return -ENOMEM;
	for (i = 0; i < v->n; i++) {
		bool open = false;

		for (r = 0; r < v->rails; r++)
			for (j = 0; j < v->n; j++) {
				enum kind kd = kind_of(v, down, i, j, lv_cell(v, r, i, j));

				d->ok += kd == K_OK;
				d->failed += kd == K_FAILED;
				d->untested += kd == K_NONE;
				open |= kd == K_NONE;
			}
		if (open)
			names[k++] = v->names[i];
	}
	/* Names a hostlist cannot hold (a hostile one) leave the list out, not the page. */
	if (k)
		ret = hostlist_fold((const char *const *)names, k, &d->untested_nodes);
	if (ret && ret != -ENOMEM) {
		d->untested_nodes = NULL;
		ret = 0;
	}
	free(names);
	return ret;
}

/*
 * A run that did not finish says so first: stopped by what, after how
 * many steps, and what it left untested (counted from the matrices).
 */
static void banner(FILE *f, const struct linkview *v, const struct drawn *d)
{
	struct json_object *c = NULL;

	if (!v->run || !json_object_object_get_ex(v->run, "complete", &c) ||
	    !json_object_is_type(c, json_type_boolean) || json_object_get_boolean(c))
		return;
	fputs("<p class=\"banner\">Incomplete run: ", f);
	if (jtext(v->run, "stopped")) {
		fputs("stopped by ", f);
		html_escape(f, jtext(v->run, "stopped"));
	} else {
		fputs("it did not run to its end", f);
	}
	fputs(" after ", f);
	html_escape(f, jtext(v->run, "steps_done") ?: "?");
	fputs(" of ", f);
	html_escape(f, jtext(v->run, "steps") ?: "?");
	fputs(" step(s): ", f);
	html_escape(f, jtext(v->run, "tests_left") ?: "?");
	fprintf(f, " test(s) of its schedule not run (a link a saved run measured shows that "
		"result), %zu link(s) never measured", d->untested);
	if (d->untested_nodes) {
		fputs(", of ", f);
		html_escape(f, d->untested_nodes);
	}
	fputs(". Its findings are of the links measured only.</p>\n", f);
}

static void heading(FILE *f, const struct linkview *v, const struct drawn *d, const char *src)
{
	char *folded = NULL;

	fputs("<h2>probe -w: ", f);
	if (!hostlist_fold((const char *const *)v->names, v->n, &folded))
		html_escape(f, folded);
	fprintf(f, " (%u nodes): %zu links measured, %zu failed, %zu untested</h2>\n", v->n,
		d->ok + d->failed, d->failed, d->untested);
	html_provenance(f, v->run, folded, src);
	banner(f, v, d);
	free(folded);
}

static void rail_heading(FILE *f, const struct linkview *v, uint32_t r, const char *what)
{
	fprintf(f, "<h3>%s", what);
	if (v->rails > 1)
		fprintf(f, ", rail %u", r);
	fputs("</h3>\n", f);
}

int html_probe(FILE *f, const struct linkview *v, size_t idx, const char *src)
{
	bool *down = downs(v);
	uint8_t *hl = v->n <= HTML_TABLE_MAX ? explained(v) : NULL;
	bool table = v->n <= HTML_TABLE_MAX;
	struct drawn d = { 0 };
	uint32_t r;
	int ret = 0;

	if (!down || (table && !hl) || count_drawn(v, down, &d)) {
		free(down);
		free(hl);
		free(d.untested_nodes);
		return -ENOMEM;
	}
	fprintf(f, "<section class=\"probe\" id=\"probe-%zu\">\n", idx);
	heading(f, v, &d, src);
	free(d.untested_nodes);
	facts(f, v);
	findings(f, v, table);
	tree(f, v);
	if (!table)
		ret = big_data(f, v, down, idx);
	for (r = 0; !ret && r < v->rails; r++) {
		rail_heading(f, v, r, "Bandwidth, Gb/s, row writes to column");
		if (table)
			matrix_table(f, v, r, false, down, hl);
		else
			matrix_canvas(f, v, r, false, idx);
		if (v->median_lat < 0)
			continue;
		rail_heading(f, v, r, "Latency, row to column (darker: slower)");
		if (table)
			matrix_table(f, v, r, true, down, hl);
		else
			matrix_canvas(f, v, r, true, idx);
	}
	legend(f);
	fputs("</section>\n", f);
	free(down);
	free(hl);
	return ret;
}
