// SPDX-License-Identifier: MIT
/*
 * The link map's report (linkmap_print(), see linkmap.h): the matrix of
 * average Gb/s (and latency) while the nodes fit a screen, the findings,
 * a summary line; or all of it, with every link, as JSON.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/output.h"
#include "base/text.h"
#include "mesh/linkmap.h"
#include "mesh/linkmap_state.h"
#include "mesh/topology.h"

/* Above this many nodes the matrix is left out: only the findings say what is wrong. */
#define MATRIX_MAX 32
/* A node's name in a column header is cut to this many bytes (escapes included). */
#define HEAD_MAX 24

static const char *const kind_names[] = {
	[FIND_SLOW_NODE] = "slow_node",
	[FIND_SLOW_RAIL] = "slow_rail",
	[FIND_SLOW_LINK] = "slow_link",
	[FIND_BLOCKED_NODE] = "blocked_node",
	[FIND_FAILED_LINK] = "failed_link",
	[FIND_DOWN_NODE] = "down_node",
	[FIND_ASYMMETRIC] = "asymmetric",
	[FIND_HIGH_LATENCY] = "high_latency",
	[FIND_SLOW_UPLINK] = "slow_uplink",
	[FIND_FAILED_UPLINK] = "failed_uplink",
	[FIND_SLOW_SWITCH] = "slow_switch",
};

const char *finding_kind_name(enum finding_kind k)
{
	return (unsigned int)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "unknown";
}

/* One cell of the matrix: a writer and a receiver, over their rails. */
struct cell {
	double gbps, lat;
	uint32_t ok, failed, nlat;
};

static struct cell *cells_of(const struct lm_state *st)
{
	uint32_t n = st->m->nodes;
	struct cell *c = calloc((size_t)n * n + 1, sizeof(*c));
	size_t i;

	for (i = 0; c && i < st->neff; i++) {
		const struct link_result *r = lm_eff(st, i);
		struct cell *x = &c[(size_t)r->client * n + r->server];

		if (!r->ok) {
			x->failed++;
			continue;
		}
		x->ok++;
		x->gbps += r->gbps;
		if (r->lat_us >= 0) {
			x->lat += r->lat_us;
			x->nlat++;
		}
	}
	return c;
}

static struct json_object *jdouble(double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

/*
 * A rate for -j to the digits that tell it: two decimals from 1 Gb/s,
 * three significant ones below, 2 - floor(log10) decimals (a lab link
 * shaped to 4 Mbit/s read 0.00, and a run resumed from its --save lost
 * the rate).
 */
static struct json_object *jgbps(double v)
{
	return jdouble(v, v >= 1 || v <= 0 ? 2 : 2 - (int)floor(log10(v)));
}

/* ---- text: the matrices ---- */

struct matrix {
	struct column cols[MATRIX_MAX + 2];
	char keys[MATRIX_MAX + 1][12];
	char heads[MATRIX_MAX + 1][HEAD_MAX * 4 + 16];
};

/*
 * A cell's colour on a colour terminal: its step of the heatmap (its
 * fraction of the median, as the HTML report draws it), kept in the row
 * under "h" and the column's number; FAIL in red, as doctor's statuses.
 */
static enum color heat_color(struct json_object *row, const char *key)
{
	struct json_object *v;
	char hkey[16];

	snprintf(hkey, sizeof(hkey), "h%s", key + 1);
	return json_object_object_get_ex(row, hkey, &v) ? (enum color)json_object_get_int(v)
							 : COLOR_NONE;
}

static void matrix_cols(const struct linkmap *m, struct matrix *mx)
{
	uint32_t j;

	memset(mx, 0, sizeof(*mx));
	mx->cols[0] = (struct column){ .key = "node", .header = "" };
	for (j = 0; j < m->nodes; j++) {
		char cut[HEAD_MAX + 1];

		snprintf(mx->keys[j], sizeof(mx->keys[j]), "c%u", j);
		snprintf(cut, sizeof(cut), "%s", m->names[j]);
		/* Headers are printed as they are: escape what a name may carry. */
		text_safe(cut, mx->heads[j], sizeof(mx->heads[j]), 0);
		mx->cols[j + 1] = (struct column){ .key = mx->keys[j], .header = mx->heads[j],
						   .flags = COL_RIGHT, .row_color = heat_color };
	}
}

static void matrix_cell(const struct linkmap *m, struct json_object *row, uint32_t j,
			const struct cell *c, bool lat)
{
	char key[12], hkey[12];

	snprintf(key, sizeof(key), "c%u", j);
	snprintf(hkey, sizeof(hkey), "h%u", j);
	if (lat && c->nlat) {
		row_fmt(row, key, "%.1f", c->lat / c->nlat);
		if (m->median_lat_us > 0)
			row_int(row, hkey, color_heat(m->median_lat_us / (c->lat / c->nlat)));
	} else if (!lat && c->ok) {
		row_fmt(row, key, "%s", lm_gbps(c->gbps / c->ok));
		if (m->median_gbps > 0)
			row_int(row, hkey, color_heat(c->gbps / c->ok / m->median_gbps));
	} else if (!lat && c->failed) {
		row_str(row, key, "FAIL");
		row_int(row, hkey, COLOR_RED);
	} else {
		row_str(row, key, NULL);
	}
}

static int matrix_text(struct ctx *ctx, const struct linkmap *m, const struct cell *cells, bool lat)
{
	struct matrix *mx = malloc(sizeof(*mx));
	struct table *t = mx ? (matrix_cols(m, mx), table_new(mx->cols)) : NULL;
	uint32_t i, j;
	int ret;

	if (!t) {
		free(mx);
		return -ENOMEM;
	}
	for (i = 0; i < m->nodes; i++) {
		struct json_object *row = table_row(t);

		if (!row) {
			table_free(t);
			free(mx);
			return -ENOMEM;
		}
		row_str(row, "node", m->names[i]);
		for (j = 0; j < m->nodes; j++)
			matrix_cell(m, row, j, &cells[(size_t)i * m->nodes + j], lat);
	}
	print_text(ctx, "%s", lat ? "\nLatency, us (half round trip), row to column:\n"
				  : "Gb/s, row writes to column (average over rails):\n");
	ret = table_emit(ctx, t, lat ? "latency_matrix" : "gbps_matrix");
	free(mx);
	return ret;
}

/* Under a coloured matrix: what its colours say (doctor colours its statuses the same way). */
static void heat_legend(const struct ctx *ctx)
{
	int q;

	if (!ctx->color)
		return;
	fputs("colour: the cell's fraction of the median, 0 ", stdout);
	for (q = 0; q <= 9; q++)
		printf("%s  %s", color_on(ctx, COLOR_HEAT0 + q), color_off(ctx));
	printf(" 1; %sFAIL%s failed\n", color_on(ctx, COLOR_RED), color_off(ctx));
}

static bool any_latency(const struct cell *cells, uint32_t nodes)
{
	size_t i;

	for (i = 0; i < (size_t)nodes * nodes; i++)
		if (cells[i].nlat)
			return true;
	return false;
}

/* ---- JSON: the matrix ---- */

static struct json_object *matrix_rows(const struct linkmap *m, const struct cell *cells, bool lat)
{
	struct json_object *rows = json_object_new_array();
	uint32_t i, j;

	for (i = 0; rows && i < m->nodes; i++) {
		struct json_object *row = json_object_new_array();

		for (j = 0; row && j < m->nodes; j++) {
			const struct cell *c = &cells[(size_t)i * m->nodes + j];

			if (lat)
				json_object_array_add(row, c->nlat ? jdouble(c->lat / c->nlat, 1) : NULL);
			else
				json_object_array_add(row, c->ok ? jgbps(c->gbps / c->ok) : NULL);
		}
		json_object_array_add(rows, row);
	}
	return rows;
}

/* {"names": [...], "gbps": [[null, 97.1], ...], "lat_us": ...}: null where nothing measured ok. */
static struct json_object *matrix_json(const struct linkmap *m, const struct cell *cells)
{
	struct json_object *mx = json_object_new_object(), *names = json_object_new_array();
	uint32_t i;

	if (!mx || !names) {
		json_object_put(mx);
		json_object_put(names);
		return NULL;
	}
	for (i = 0; i < m->nodes; i++)
		json_object_array_add(names, json_object_new_string(m->names[i]));
	json_object_object_add(mx, "names", names);
	json_object_object_add(mx, "gbps", matrix_rows(m, cells, false));
	if (any_latency(cells, m->nodes))
		json_object_object_add(mx, "lat_us", matrix_rows(m, cells, true));
	return mx;
}

/* ---- JSON: links and findings ---- */

struct json_object *linkmap_link_json(const struct linkmap *m, const struct link_result *r)
{
	struct json_object *o = json_object_new_object(), *cnt = json_object_new_object();

	row_str(o, "client", m->names[r->client]);
	row_str(o, "server", m->names[r->server]);
	row_int(o, "rail", r->rail);
	row_int(o, "round", r->round);
	row_bool(o, "ok", r->ok);
	if (r->ok)
		json_object_object_add(o, "gbps", jgbps(r->gbps));
	else
		row_str(o, "gbps", NULL);
	if (r->lat_us >= 0)
		row_double(o, "lat_us", r->lat_us, 2);
	else
		row_str(o, "lat_us", NULL);
	row_str(o, "cause", r->ok ? NULL : link_cause_name(r->cause));
	row_str(o, "why", r->ok || !r->why[0] ? NULL : r->why);
	row_int(cnt, "retrans", (int64_t)r->retrans);
	row_int(cnt, "seq_err", (int64_t)r->seq_err);
	row_int(cnt, "cnp", (int64_t)r->cnp);
	if (o)
		json_object_object_add(o, "counters", cnt);
	else
		json_object_put(cnt);
	row_str(o, "dev", r->dev[0] ? r->dev : NULL);
	return o;
}

/* [client, server] of the link res[@i]. */
static struct json_object *pair_json(const struct linkmap *m, size_t i)
{
	struct json_object *a = json_object_new_array();

	if (a) {
		json_object_array_add(a, json_object_new_string(m->names[m->res[i].client]));
		json_object_array_add(a, json_object_new_string(m->names[m->res[i].server]));
	}
	return a;
}

static const char *parent_name(const struct linkmap *m, uint32_t s)
{
	return m->topo->sw[s].parent == TOPO_NONE ? NULL : m->topo->sw[m->topo->sw[s].parent].name;
}

/*
 * A switch finding's own keys: "switch", "parent" (an uplink's; null for
 * a leaf switch), "candidates" (the uplinks the topology cannot tell
 * apart, this one among them: more than one, and the finding names none
 * before the others) and "pairs" ([client, server] of the links that
 * show it).
 */
static void switch_json(const struct linkmap *m, const struct finding *f, struct json_object *o)
{
	struct json_object *c = json_object_new_array(), *p = json_object_new_array();
	size_t i;

	row_str(o, "switch", m->topo->sw[f->sw].name);
	row_str(o, "parent", f->kind == FIND_SLOW_SWITCH ? NULL : parent_name(m, f->sw));
	for (i = 0; c && i < f->ncand; i++) {
		struct json_object *e = json_object_new_object();

		row_str(e, "switch", m->topo->sw[f->cand[i]].name);
		row_str(e, "parent", parent_name(m, f->cand[i]));
		json_object_array_add(c, e);
	}
	for (i = 0; p && i < f->npairs; i++)
		json_object_array_add(p, pair_json(m, f->pairs[i]));
	json_object_object_add(o, "candidates", c);
	json_object_object_add(o, "pairs", p);
}

struct json_object *linkmap_finding_json(const struct linkmap *m, const struct finding *f)
{
	struct json_object *o = json_object_new_object();
	bool measured = f->gbps > 0;

	row_str(o, "kind", finding_kind_name(f->kind));
	row_bool(o, "failure", f->failure);
	row_str(o, "node", f->node == UINT32_MAX ? NULL : m->names[f->node]);
	row_str(o, "peer", f->peer == UINT32_MAX ? NULL : m->names[f->peer]);
	if (f->rail == UINT32_MAX)
		row_str(o, "rail", NULL);
	else
		row_int(o, "rail", f->rail);
	if (measured) {
		json_object_object_add(o, "gbps", jgbps(f->gbps));
		row_double(o, "ratio", f->ratio, 3);
	} else {
		row_nulls(o, "gbps", "ratio", NULL);
	}
	row_str(o, "cause", f->cause == CAUSE_NONE ? NULL : link_cause_name(f->cause));
	row_str(o, "text", f->text);
	if (f->sw != TOPO_NONE && m->topo)
		switch_json(m, f, o);
	return o;
}

static int attach_links(struct ctx *ctx, const struct linkmap *m)
{
	struct json_object *arr = json_object_new_array(), *o;
	size_t i;

	for (i = 0; arr && i < m->n; i++) {
		if (!(o = linkmap_link_json(m, &m->res[i])) || json_object_array_add(arr, o)) {
			json_object_put(o);
			json_object_put(arr);
			return -ENOMEM;
		}
	}
	if (!arr)
		return -ENOMEM;
	json_attach(ctx, "links", arr);
	return 0;
}

static int attach_findings(struct ctx *ctx, const struct linkmap *m)
{
	struct json_object *arr = json_object_new_array(), *o;
	size_t i;

	for (i = 0; arr && i < m->nfind; i++) {
		if (!(o = linkmap_finding_json(m, &m->find[i])) || json_object_array_add(arr, o)) {
			json_object_put(o);
			json_object_put(arr);
			return -ENOMEM;
		}
	}
	if (!arr)
		return -ENOMEM;
	json_attach(ctx, "findings", arr);
	return 0;
}

/* ---- both ---- */

struct counts {
	size_t links, failed, down, failures;
	size_t switches;	/* switch findings (uplinks, leaf switches) */
	size_t untested;	/* directed links between nodes that took part, not measured */
};

static struct json_object *summary_json(const struct linkmap *m, const struct counts *c)
{
	struct json_object *s = json_object_new_object();

	row_int(s, "nodes", m->nodes);
	row_int(s, "links", (int64_t)c->links);
	row_int(s, "failed", (int64_t)c->failed);
	row_int(s, "down", (int64_t)c->down);
	row_int(s, "untested", (int64_t)c->untested);
	row_int(s, "findings", (int64_t)m->nfind);
	row_int(s, "failures", (int64_t)c->failures);
	/* With a topology only: a run without one has no switch to count. */
	if (m->topo)
		row_int(s, "switch_findings", (int64_t)c->switches);
	return s;
}

static void summary(struct ctx *ctx, const struct linkmap *m, const struct counts *c)
{
	char line[512];
	size_t n;

	if (ctx->json) {
		json_attach(ctx, "summary", summary_json(m, c));
		return;
	}
	/* One line, so that print_text() folds it whole. */
	n = snprintf(line, sizeof(line), "%zu link%s measured, %zu failed, median %s Gb/s", c->links,
		     c->links == 1 ? "" : "s", c->failed, lm_gbps(m->median_gbps));
	if (m->median_lat_us >= 0)
		n += snprintf(line + n, sizeof(line) - n, ", median latency %.1f us", m->median_lat_us);
	if (c->down)
		n += snprintf(line + n, sizeof(line) - n, "; %zu node%s down", c->down,
			      c->down == 1 ? "" : "s");
	if (c->switches)
		n += snprintf(line + n, sizeof(line) - n, "; %zu switch finding%s (no node to drain for them)",
			      c->switches, c->switches == 1 ? "" : "s");
	if (c->untested)
		snprintf(line + n, sizeof(line) - n,
			 "; %zu link%s untested (--pattern pairs measures every one)", c->untested,
			 c->untested == 1 ? "" : "s");
	print_text(ctx, "\n%s\n", line);
}

static void findings_text(struct ctx *ctx, const struct linkmap *m)
{
	size_t i;

	if (!m->nfind) {
		print_text(ctx, "\nno finding: every link within %.0f%% of the median %s Gb/s\n",
			   (1 - m->slow) * 100, lm_gbps(m->median_gbps));
		return;
	}
	print_text(ctx, "\nFindings:\n");
	for (i = 0; i < m->nfind; i++)
		print_text(ctx, "  %s  %s\n", m->find[i].failure ? "FAIL" : "warn", m->find[i].text);
}

/* ---- the switch tree, its bad links marked ---- */

/* Above this many switches the tree shows only the marked ones and those above them. */
#define TREE_MAX 40

/* "uplink slow", "uplink cut?" (a candidate), "switch slow" of switch @s, or NULL. */
static const char *tree_mark(const struct linkmap *m, uint32_t s)
{
	size_t i, c;

	for (i = 0; i < m->nfind; i++) {
		const struct finding *f = &m->find[i];
		bool up = f->kind == FIND_SLOW_UPLINK || f->kind == FIND_FAILED_UPLINK;

		if (f->kind == FIND_SLOW_SWITCH && f->sw == s)
			return "<== leaf switch slow (slow_switch)";
		for (c = 0; up && c < f->ncand; c++)
			if (f->cand[c] == s && f->ncand > 1)
				return f->kind == FIND_SLOW_UPLINK ? "<== uplink slow? (one of the candidates)"
								   : "<== uplink fails? (one of the candidates)";
		if (up && f->sw == s)
			return f->kind == FIND_SLOW_UPLINK ? "<== uplink slow (slow_uplink)"
							   : "<== uplink fails (failed_uplink)";
	}
	return NULL;
}

/* @s is marked or has a marked switch below it. */
static bool tree_shown(const struct linkmap *m, uint32_t s)
{
	uint32_t k;

	if (m->topo->nsw <= TREE_MAX)
		return true;
	for (k = 0; k < m->topo->nsw; k++)
		if (tree_mark(m, k) && topology_under(m->topo, k, s))
			return true;
	return false;
}

static void tree_line(struct ctx *ctx, const struct linkmap *m, uint32_t s, const uint32_t *nodes)
{
	const struct topology *t = m->topo;
	const char *mark = tree_mark(m, s);
	char safe[128];
	uint32_t k;

	print_text(ctx, "  %*s%s", (int)(2 * t->sw[s].depth), "", text_safe(t->sw[s].name, safe, sizeof(safe), 0));
	if (t->sw[s].leaf) {
		char *list = NULL;

		/* Which nodes hang there, as a hostlist; a name that does not fold leaves it out. */
		topology_leaf_nodes(t, m->names, s, &list);
		print_text(ctx, " (%u node%s%s%s)", nodes[s], nodes[s] == 1 ? "" : "s", list ? ": " : "",
			   list ? list : "");
		free(list);
	}
	print_text(ctx, "%s%s\n", mark ? "  " : "", mark ? mark : "");
	for (k = 0; k < t->nsw; k++)
		if (t->sw[k].parent == s && tree_shown(m, k))
			tree_line(ctx, m, k, nodes);
}

/*
 * With a topology: its tree, each leaf with its nodes of the run, a bad
 * uplink or leaf switch marked where it is (the finding's text says why).
 */
static int tree_text(struct ctx *ctx, const struct linkmap *m)
{
	const struct topology *t = m->topo;
	uint32_t *nodes = calloc((size_t)t->nsw + 1, sizeof(*nodes)), v, shown = 0, s;

	if (!nodes)
		return -ENOMEM;
	for (v = 0; v < m->nodes; v++)
		nodes[t->leaf[v]]++;
	for (s = 0; s < t->nsw; s++)
		shown += tree_shown(m, s);
	print_text(ctx, "\nSwitch tree (--topology)%s:\n", shown < t->nsw ? ", the marked branches" : "");
	tree_line(ctx, m, t->root, nodes);
	if (shown < t->nsw)
		print_text(ctx, "  (%u other switches: nothing found)\n", t->nsw - shown);
	free(nodes);
	return 0;
}

static void count(const struct lm_state *st, struct counts *c)
{
	const struct linkmap *m = st->m;
	size_t i, live;

	memset(c, 0, sizeof(*c));
	c->links = st->neff;
	for (i = 0; i < st->neff; i++)
		c->failed += !lm_eff(st, i)->ok;
	for (i = 0; m->down && i < m->nodes; i++)
		c->down += !!m->down[i];
	for (i = 0; i < m->nfind; i++) {
		c->failures += m->find[i].failure;
		c->switches += m->find[i].sw != TOPO_NONE;
	}
	/*
	 * Every directed link of every rail between the nodes that took part,
	 * less those measured (a saved run's links of a node down now are
	 * measured, not among them).
	 */
	live = m->nodes - c->down;
	c->untested = live * (live - 1) * m->rails;
	for (i = 0; i < st->neff; i++)
		if (!lm_node_down(m, lm_eff(st, i)->client) && !lm_node_down(m, lm_eff(st, i)->server))
			c->untested--;
}

static int text_report(struct ctx *ctx, const struct linkmap *m, const struct cell *cells)
{
	int ret = 0;

	if (m->nodes <= MATRIX_MAX && cells) {
		ret = matrix_text(ctx, m, cells, false);
		if (!ret)
			heat_legend(ctx);
		if (!ret && any_latency(cells, m->nodes))
			ret = matrix_text(ctx, m, cells, true);
	}
	if (!ret)
		findings_text(ctx, m);
	if (!ret && m->topo)
		ret = tree_text(ctx, m);
	return ret;
}

/* The document's small keys before its links, as -j has them: medians, --slow, matrix. */
static struct json_object *head_json(const struct linkmap *m, const struct cell *cells)
{
	struct json_object *h = json_object_new_object(), *mx = NULL;

	if (!h)
		return NULL;
	json_object_object_add(h, "median_gbps", jgbps(m->median_gbps));
	json_object_object_add(h, "median_lat_us",
			       m->median_lat_us >= 0 ? jdouble(m->median_lat_us, 2) : NULL);
	json_object_object_add(h, "slow", jdouble(m->slow, 2));
	if (m->nodes <= MATRIX_MAX && cells) {
		if (!(mx = matrix_json(m, cells))) {
			json_object_put(h);
			return NULL;
		}
		json_object_object_add(h, "matrix", mx);
	}
	return h;
}

static int json_report(struct ctx *ctx, const struct linkmap *m, const struct cell *cells)
{
	struct json_object *h = head_json(m, cells);
	int ret;

	if (!h)
		return -ENOMEM;
	json_object_object_foreach(h, key, val)
		json_attach(ctx, key, json_object_get(val));
	json_object_put(h);
	ret = attach_links(ctx, m);
	if (!ret)
		ret = attach_findings(ctx, m);
	return ret;
}

/* What the report is made of, either way. */
struct report {
	struct lm_state st;	/* the links that count */
	struct counts c;
	struct cell *cells;	/* up to MATRIX_MAX nodes, the matrix's; else NULL */
};

/* 0 or -ENOMEM (nothing to free then). */
static int report_begin(const struct linkmap *m, struct report *r)
{
	int ret = lm_state_make(m, &r->st);

	r->cells = NULL;
	if (ret)
		return ret;
	count(&r->st, &r->c);
	if (m->nodes <= MATRIX_MAX && !(r->cells = cells_of(&r->st))) {
		lm_state_free(&r->st);
		return -ENOMEM;
	}
	return 0;
}

static void report_end(struct report *r)
{
	free(r->cells);
	lm_state_free(&r->st);
}

/* ---- the same document, written a link at a time ---- */

struct writer {
	linkmap_put put;
	void *arg;
	int err;
};

static void w_str(struct writer *w, const char *s)
{
	if (!w->err)
		w->err = w->put(w->arg, s, strlen(s));
}

/* @o (NULL: null) as compact JSON, valid UTF-8 whatever a node's name holds; @o is put. */
static void w_val(struct writer *w, struct json_object *o)
{
	json_make_utf8(o);
	w_str(w, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* The same for an object just made: NULL is out of memory. */
static void w_obj(struct writer *w, struct json_object *o)
{
	if (!o && !w->err)
		w->err = -ENOMEM;
	if (o)
		w_val(w, o);
}

static void w_key(struct writer *w, const char *key, bool first)
{
	w_str(w, first ? "{\"" : ",\"");
	w_str(w, key);
	w_str(w, "\":");
}

static struct json_object *nth_link(const struct linkmap *m, size_t i)
{
	return linkmap_link_json(m, &m->res[i]);
}

static struct json_object *nth_finding(const struct linkmap *m, size_t i)
{
	return linkmap_finding_json(m, &m->find[i]);
}

/* ,"KEY":[...] of @n objects made one at a time by @nth. */
static void w_array(struct writer *w, const char *key, const struct linkmap *m, size_t n,
		    struct json_object *(*nth)(const struct linkmap *m, size_t i))
{
	size_t i;

	w_key(w, key, false);
	w_str(w, "[");
	for (i = 0; i < n && !w->err; i++) {
		w_str(w, i ? "," : "");
		w_obj(w, nth(m, i));
	}
	w_str(w, "]");
}

static void w_body(struct writer *w, const struct linkmap *m, const struct cell *cells,
		   const struct counts *c)
{
	struct json_object *h = head_json(m, cells);

	if (!h && !w->err)
		w->err = -ENOMEM;
	json_object_object_foreach(h, key, val) {
		w_key(w, key, false);
		w_val(w, json_object_get(val));
	}
	json_object_put(h);
	w_array(w, "links", m, m->n, nth_link);
	w_array(w, "findings", m, m->nfind, nth_finding);
	w_key(w, "summary", false);
	w_obj(w, summary_json(m, c));
	w_str(w, "}\n");
}

int linkmap_write_json(const struct linkmap *m, struct json_object *run, linkmap_put put,
		       void *arg)
{
	struct writer w = { .put = put, .arg = arg };
	struct report r;

	w.err = report_begin(m, &r);
	if (w.err)
		return w.err;
	w_key(&w, "run", true);
	w_obj(&w, json_object_get(run));
	w_body(&w, m, r.cells, &r.c);
	report_end(&r);
	return w.err;
}

int linkmap_print(struct ctx *ctx, const struct linkmap *m)
{
	struct report r;
	int ret = report_begin(m, &r);

	if (ret)
		return ret;
	ret = ctx->json ? json_report(ctx, m, r.cells) : text_report(ctx, m, r.cells);
	if (!ret)
		summary(ctx, m, &r.c);
	report_end(&r);
	return ret ? ret : r.c.failures ? 1 : 0;
}
