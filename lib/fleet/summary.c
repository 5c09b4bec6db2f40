// SPDX-License-Identifier: MIT
/* The report of a whole fleet (see summary.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <json-c/printbuf.h>

#include "base/ctx.h"
#include "base/json.h"
#include "base/output.h"
#include "base/text.h"
#include "doctor/doc.h"
#include "fleet/drift.h"
#include "fleet/fleet.h"
#include "fleet/summary.h"

/*
 * Text cells that come from the documents are cut to these widths (a
 * hostlist keeping its node count), so that a line fits FLEET_WIDTH
 * whatever a node sent.
 */
#define NODES_TEXT_MAX 30
#define ID_TEXT_MAX 20
#define FACT_TEXT_MAX 22
#define VALUE_TEXT_MAX 30

/*
 * The width the report keeps to: the terminal's (output_width()) when it
 * is narrower than FLEET_WIDTH, else FLEET_WIDTH, into a pipe too: a
 * thousand nodes' values are cut to it, a row staying one line (-j has
 * them whole).
 */
static size_t fleet_width(void)
{
	size_t w = output_width();

	return w && w < FLEET_WIDTH ? w : FLEET_WIDTH;
}

/* Statuses in the order rows show them; the index is a node's worst. */
enum rank { RANK_FAIL, RANK_WARN, RANK_OK, RANK_SKIP };

/* The status of each rank, as doctor/doc.h names them. */
static const enum check_status rank_status[] = {
	[RANK_FAIL] = CHECK_FAIL, [RANK_WARN] = CHECK_WARN, [RANK_OK] = CHECK_OK, [RANK_SKIP] = CHECK_SKIP,
};

/* A node's status word, in either spelling ("FAIL" from older nodes); skip when none. */
static enum rank rank_of(const char *status)
{
	int s = check_status_parse(status);
	enum rank r;

	for (r = RANK_FAIL; r < RANK_SKIP; r++)
		if (s == (int)rank_status[r])
			break;
	return r;
}

/* ---- cells as people read them ---- */

/* @s escaped, and cut to @max bytes ending "..." (escapes count: they are what is shown). */
static const char *cut_safe(const char *s, size_t max, char *buf, size_t len)
{
	size_t n;

	if (!s)
		return NULL;
	text_safe(s, buf, len, 0);
	if (strlen(buf) <= max)
		return buf;
	for (n = max - 3; n && ((unsigned char)buf[n] & 0xc0) == 0x80; n--)
		;
	memcpy(buf + n, "...", 4);
	return buf;
}

static const char *id_text(struct json_object *row, char *buf, size_t len)
{
	return cut_safe(jtext(row, "id"), ID_TEXT_MAX, buf, len);
}

static const char *node_text(struct json_object *row, char *buf, size_t len)
{
	return cut_safe(jtext(row, "node"), NODES_TEXT_MAX, buf, len);
}

/* @nodes, or its start and "... (N nodes)" when longer than NODES_TEXT_MAX. */
static const char *cut_nodes(const char *nodes, int64_t count, char *buf, size_t len)
{
	char tail[40];
	size_t keep, comma;
	int n;

	if (!nodes || strlen(nodes) <= NODES_TEXT_MAX)
		return nodes;
	n = snprintf(tail, sizeof(tail), "... (%" PRId64 " node%s)", count, count == 1 ? "" : "s");
	keep = (size_t)(NODES_TEXT_MAX - n);
	/* Whole items where one ends late enough: "node[0007,0014,... (142 nodes)". */
	for (comma = keep; comma > keep / 2 && nodes[comma - 1] != ','; comma--)
		;
	if (comma > keep / 2)
		keep = comma;
	snprintf(buf, len, "%.*s%s", (int)keep, nodes, tail);
	return buf;
}

static const char *nodes_text(struct json_object *row, char *buf, size_t len)
{
	return cut_nodes(jtext(row, "nodes"), jint(row, "count", 0), buf, len);
}

/* Under a failing or warning row whose nodes found different details. */
static const char *varies_text(struct json_object *row, char *buf, size_t len)
{
	struct json_object *v;

	if (!json_object_object_get_ex(row, "found_varies", &v) || !json_object_get_boolean(v) ||
	    rank_of(jtext(row, DOC_STATUS)) > RANK_WARN)
		return NULL;
	snprintf(buf, len, "%" PRId64 " nodes, findings differ in detail (this is %s's): see -j",
		 jint(row, "count", 0), jtext(row, "found_on"));
	return buf;
}

/*
 * A fix from a node's document on the lines the report gives it: a
 * newline in it escaped as any other control byte (text_safe()), never a
 * line break that would print as a line of the report's own.
 */
static const char *fix_text(struct json_object *row, char *buf, size_t len)
{
	const char *fix = jtext(row, DOC_FIX);

	return fix ? text_safe(fix, buf, len, 0) : NULL;
}

static const struct column check_cols[] = {
	{ DOC_STATUS, "STATUS", 0, check_status_color, check_status_cell },
	{ DOC_ID, "CHECK", 0, NULL, id_text },
	{ "nodes", "NODES", 0, NULL, nodes_text },
	{ DOC_FOUND, "FOUND", COL_FILL, NULL },
	{ DOC_FIX, "FIX", COL_BELOW, NULL, fix_text },
	{ "found_varies", "NOTE", COL_BELOW, NULL, varies_text },
	{ "count", NULL, COL_NOTEXT },
	{ "found_on", NULL, COL_NOTEXT },
	{ 0 }
};

/* A drift value: null is an unset variable, or no value ("-" would hide which). */
static const char *value_text(const char *fact, const char *value)
{
	if (value)
		return value;
	return strncmp(fact, "env.", 4) ? "(none)" : "(unset)";
}

static const char *majority_text(struct json_object *row, char *buf, size_t len)
{
	if (!jtext(row, "majority_nodes"))
		return "(no majority)";
	return cut_safe(value_text(jtext(row, "fact"), jtext(row, "majority")), VALUE_TEXT_MAX,
			buf, len);
}

static const char *fact_text(struct json_object *row, char *buf, size_t len)
{
	return cut_safe(jtext(row, "fact"), FACT_TEXT_MAX, buf, len);
}

static const char *majority_nodes_text(struct json_object *row, char *buf, size_t len)
{
	return cut_nodes(jtext(row, "majority_nodes"), jint(row, "majority_count", 0), buf, len);
}

/*
 * "1500 on lab-c; 4200 on lab-[d-e]; not read on lab-f": the table cuts it
 * to the line.  A node that could not read the fact has no value of it.
 */
static const char *differs_text(struct json_object *row, char *buf, size_t len)
{
	struct json_object *arr, *d;
	size_t i, off = 0;
	char nodes[NODES_TEXT_MAX * 2];

	buf[0] = '\0';
	if (!json_object_object_get_ex(row, "differs", &arr))
		return NULL;
	for (i = 0; i < json_object_array_length(arr) && off < len; i++) {
		d = json_object_array_get_idx(arr, i);
		off += (size_t)snprintf(buf + off, len - off, "%s%s on %s", i ? "; " : "",
					value_text(jtext(row, "fact"), jtext(d, "value")),
					cut_nodes(jtext(d, "nodes"), jint(d, "count", 0), nodes,
						  sizeof(nodes)));
	}
	if (json_object_object_get_ex(row, "not_read", &d) && d && off < len)
		snprintf(buf + off, len - off, "%snot read on %s", off ? "; " : "",
			 cut_nodes(jtext(d, "nodes"), jint(d, "count", 0), nodes, sizeof(nodes)));
	return buf;
}

static const struct column drift_cols[] = {
	{ "fact", NULL, 0, NULL, fact_text },
	{ "majority", NULL, 0, NULL, majority_text },
	{ "majority_nodes", NULL, 0, NULL, majority_nodes_text },
	{ "differs", NULL, COL_WRAP, NULL, differs_text },
	{ DOC_FIX, "FIX", COL_BELOW, NULL, fix_text },
	{ "majority_count", NULL, COL_NOTEXT },
	{ "not_read", NULL, COL_NOTEXT },
	{ 0 }
};

static const struct column unreachable_cols[] = {
	{ "node", NULL, 0, NULL, node_text },
	{ "error", NULL, COL_WRAP, NULL },
	{ "rc", NULL, COL_NOTEXT },
	{ 0 }
};

/* Text: the unreachable nodes of one cause under one hostlist (the header as before). */
static const struct column cause_cols[] = {
	{ "nodes", "NODE", 0, NULL, nodes_text },
	{ "error", NULL, COL_WRAP, NULL },
	{ "count", NULL, COL_NOTEXT },
	{ 0 }
};

/* ---- checks: nodes grouped by check, status and fix ---- */

/* One check result of one node. */
struct entry {
	size_t check;		/* in the order IDs first appear */
	enum rank rank;
	const char *id, *found, *fix;
	size_t node;		/* in fleet->nodes */
};

/* A run of entries of one check, status and fix. */
struct group {
	size_t first, n;
};

static int str_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return !!a - !!b;
	return strcmp(a, b);
}

static int by_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c;

	if (x->check != y->check)
		return x->check < y->check ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if ((c = str_cmp(x->fix, y->fix)))
		return c;
	return (x->node > y->node) - (x->node < y->node);
}

/* Within a check and status, the biggest group first. */
static int by_group(const void *a, const void *b, void *arg)
{
	const struct group *x = a, *y = b;
	const struct entry *e = arg, *ex = &e[x->first], *ey = &e[y->first];

	if (ex->check != ey->check || ex->rank != ey->rank)
		return by_entry(ex, ey);
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return (ex->node > ey->node) - (ex->node < ey->node);
}

/*
 * @s kept once in @pool, a JSON object used as the set of its keys: the
 * entries outlive each node's tree, and most nodes say the same words.
 * NULL for NULL; *@oom set when out of memory.
 */
static const char *intern(struct json_object *pool, const char *s, bool *oom)
{
	struct lh_entry *e;

	if (!s)
		return NULL;
	e = lh_table_lookup_entry(json_object_get_object(pool), s);
	if (!e && !json_object_object_add(pool, s, NULL))
		e = lh_table_lookup_entry(json_object_get_object(pool), s);
	if (!e)
		*oom = true;
	return e ? lh_entry_k(e) : NULL;
}

/* Room for @more entries after @n in *@e (of *@cap); 0 or -ENOMEM. */
static int entries_grow(struct entry **e, size_t *cap, size_t n, size_t more)
{
	struct entry *ne;
	size_t c = *cap ? *cap : 64;

	while (c < n + more)
		c *= 2;
	if (c == *cap)
		return 0;
	ne = realloc(*e, c * sizeof(**e));
	if (!ne)
		return -ENOMEM;
	*e = ne;
	*cap = c;
	return 0;
}

/* The check results of node @i (its tree @doc) appended to @e; 0 or -ENOMEM. */
static int node_entries(size_t i, struct json_object *doc, struct json_object *ids,
			struct json_object *pool, struct entry **e, size_t *n, size_t *cap)
{
	struct json_object *checks, *c, *idx;
	bool oom = false;
	size_t j;

	if (!json_object_object_get_ex(doc, DOC_CHECKS, &checks))
		return 0;
	if (entries_grow(e, cap, *n, json_object_array_length(checks)))
		return -ENOMEM;
	for (j = 0; j < json_object_array_length(checks); j++) {
		struct entry *x = &(*e)[(*n)++];

		c = json_object_array_get_idx(checks, j);
		x->id = intern(pool, jtext(c, DOC_ID), &oom);
		x->rank = rank_of(jtext(c, DOC_STATUS));
		x->found = intern(pool, jtext(c, DOC_FOUND), &oom);
		x->fix = x->rank <= RANK_WARN ? intern(pool, jtext(c, DOC_FIX), &oom) : NULL;
		x->node = i;
		if (oom)
			return -ENOMEM;
		if (!json_object_object_get_ex(ids, x->id, &idx)) {
			idx = json_object_new_int64(json_object_object_length(ids));
			json_object_object_add(ids, x->id, idx);
		}
		x->check = (size_t)json_object_get_int64(idx);
	}
	return 0;
}

/*
 * Every check result of every node, each node's document parsed in turn;
 * @ids maps a check ID to its order, @pool holds the entries' strings.
 */
static struct entry *collect(const struct fleet *fleet, struct json_object *ids,
			     struct json_object *pool, size_t *n)
{
	struct entry *e = NULL;
	size_t i, cap = 0;
	int ret = entries_grow(&e, &cap, 0, 1);

	*n = 0;
	for (i = 0; !ret && i < fleet->n; i++) {
		struct json_object *doc = fleet_doc(fleet->nodes[i]);

		if (!doc && fleet->nodes[i]->doc)
			ret = -ENOMEM;
		else if (doc)
			ret = node_entries(i, doc, ids, pool, &e, n, &cap);
		json_object_put(doc);
	}
	if (ret) {
		free(e);
		return NULL;
	}
	return e;
}

static int group_row(const struct fleet *fleet, struct table *t, const struct entry *e, size_t n)
{
	size_t i, *idx = malloc(n * sizeof(*idx));
	struct json_object *row;
	bool varies = false;
	char *nodes;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		idx[i] = e[i].node;
		varies = varies || str_cmp(e[i].found, e[0].found);
	}
	nodes = fleet_fold(fleet, idx, n);
	free(idx);
	if (!nodes || !(row = table_row(t))) {
		free(nodes);
		return -ENOMEM;
	}
	row_str(row, DOC_STATUS, check_status_str(rank_status[e[0].rank]));
	row_str(row, DOC_ID, e[0].id);
	row_str(row, "nodes", nodes);
	row_int(row, "count", (int64_t)n);
	row_str(row, DOC_FOUND, e[0].found);
	row_str(row, "found_on", fleet->nodes[e[0].node]->name);
	row_bool(row, "found_varies", varies);
	row_str(row, DOC_FIX, e[0].fix);
	free(nodes);
	return 0;
}

/* The rows of the checks table, and each node's worst status in @worst. */
static int check_rows(const struct fleet *fleet, struct table *t, enum rank *worst)
{
	struct json_object *ids = json_object_new_object(), *pool = json_object_new_object();
	struct entry *e;
	struct group *g = NULL;
	size_t i, n = 0, ng = 0;
	int ret = 0;

	e = ids && pool ? collect(fleet, ids, pool, &n) : NULL;
	if (e)
		g = malloc((n + 1) * sizeof(*g));
	if (!g)
		ret = -ENOMEM;
	for (i = 0; !ret && i < n; i++)
		if (e[i].rank < worst[e[i].node])
			worst[e[i].node] = e[i].rank;
	if (!ret)
		qsort(e, n, sizeof(*e), by_entry);
	for (i = 0; !ret && i < n; i++) {
		if (!i || e[i].check != e[i - 1].check || e[i].rank != e[i - 1].rank ||
		    str_cmp(e[i].fix, e[i - 1].fix))
			g[ng++] = (struct group){ .first = i };
		g[ng - 1].n++;
	}
	if (!ret)
		qsort_r(g, ng, sizeof(*g), by_group, e);
	for (i = 0; !ret && i < ng; i++)
		ret = group_row(fleet, t, &e[g[i].first], g[i].n);
	free(g);
	free(e);
	json_object_put(ids);
	json_object_put(pool);
	return ret;
}

/* ---- the other sections ---- */

/* Copy the drift rows into a table: the printer shows them, or attaches them. */
static int drift_table(struct ctx *ctx, struct json_object *rows)
{
	struct table *t = table_new(drift_cols);
	size_t i;

	if (!t)
		return -ENOMEM;
	table_fit(t, fleet_width());
	for (i = 0; i < json_object_array_length(rows); i++) {
		struct json_object *row = table_row(t);

		json_object_object_foreach(json_object_array_get_idx(rows, i), key, val)
			json_object_object_add(row, key, json_object_get(val));
	}
	return table_emit(ctx, t, "drift");
}

/* ---- unreachable nodes: by cause in text, each its own under -j ---- */

#define CAUSE_NAMES_MAX 8	/* the node's name taken out of its error this often */

/*
 * A node and what it shares with others: an unreachable node's cause (its
 * error with its name taken out), or the check a drain would name (with
 * the node's whole reason in @detail).  Nodes of one @text fold into a row.
 */
struct cause {
	char *text;
	char *detail;		/* NULL for a cause */
	size_t node;		/* in fleet->nodes */
};

/* The row of @n nodes of one text (@c, sorted by node), @idx room for their indexes. */
typedef int (*cause_row_fn)(const struct fleet *fleet, struct table *t, const struct cause *c,
			    size_t n, size_t *idx);

static bool host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

/*
 * @err with @name, where it stands as a word of its own, written "<node>":
 * "ssh: Could not resolve hostname lab-0007: ..." is the cause of every
 * node whose name does not resolve.  malloc'd; NULL when out of memory.
 */
static char *cause_text(const char *err, const char *name)
{
	size_t nlen = strlen(name), k = 0;
	char *out = malloc(strlen(err) + CAUSE_NAMES_MAX * sizeof("<node>") + 1), *o = out;
	const char *p = err, *hit;

	if (!out || !nlen)
		return out ? strcpy(out, err) : NULL;
	while ((hit = strstr(p, name)) && k++ < CAUSE_NAMES_MAX) {
		bool word = (hit == err || !host_char(hit[-1])) && !host_char(hit[nlen]);

		memcpy(o, p, (size_t)(hit - p) + (word ? 0 : nlen));
		o += hit - p + (word ? 0 : nlen);
		if (word)
			o = stpcpy(o, "<node>");
		p = hit + nlen;
	}
	strcpy(o, p);
	return out;
}

static int by_cause(const void *a, const void *b)
{
	const struct cause *x = a, *y = b;
	int c = strcmp(x->text, y->text);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* One run of nodes of one cause: its row, the nodes folded. */
static int cause_row(const struct fleet *fleet, struct table *t, const struct cause *c, size_t n,
		     size_t *idx)
{
	struct json_object *row;
	char *nodes;
	size_t i;

	for (i = 0; i < n; i++)
		idx[i] = c[i].node;
	nodes = fleet_fold(fleet, idx, n);
	if (!nodes)
		return -ENOMEM;
	row = table_row(t);
	row_str(row, "nodes", nodes);
	row_int(row, "count", (int64_t)n);
	/* One node: its own words, its name in them. */
	row_str(row, "error", n == 1 ? fleet->nodes[c->node]->error : c->text);
	free(nodes);
	return 0;
}

/* Causes in the order of their first node (nodes are sorted by name). */
static int by_first(const void *a, const void *b, void *arg)
{
	const struct cause *c = arg;
	size_t x = c[*(const size_t *)a].node, y = c[*(const size_t *)b].node;

	return (x > y) - (x < y);
}

/* Rows of @c (@n, sorted by cause) one a cause, in the order of their first node. */
static int cause_rows(const struct fleet *fleet, struct table *t, struct cause *c, size_t n,
		      cause_row_fn row)
{
	size_t *start = malloc((n + 1) * sizeof(*start)), *idx = malloc((n + 1) * sizeof(*idx));
	size_t i, k, runs = 0;
	int ret = start && idx ? 0 : -ENOMEM;

	for (i = 0; !ret && i < n; i++)
		if (!i || strcmp(c[i].text, c[i - 1].text))
			start[runs++] = i;
	if (!ret)
		qsort_r(start, runs, sizeof(*start), by_first, c);
	for (k = 0; !ret && k < runs; k++) {
		for (i = start[k] + 1; i < n && !strcmp(c[i].text, c[start[k]].text); i++)
			;
		ret = row(fleet, t, c + start[k], i - start[k], idx);
	}
	free(start);
	free(idx);
	return ret;
}

/*
 * Five thousand names that do not resolve are one row, not five
 * thousand: "lab-[0001-5000]  ssh failed: ... hostname <node>: ...".
 */
static int unreachable_by_cause(struct ctx *ctx, const struct fleet *fleet)
{
	struct cause *c = calloc(fleet->n + 1, sizeof(*c));
	struct table *t = table_new(cause_cols);
	size_t i, n = 0;
	int ret = c && t ? 0 : -ENOMEM;

	for (i = 0; !ret && i < fleet->n; i++) {
		if (fleet->nodes[i]->doc)
			continue;
		c[n].node = i;
		if (!(c[n++].text = cause_text(fleet->nodes[i]->error ? fleet->nodes[i]->error : "",
					       fleet->nodes[i]->name)))
			ret = -ENOMEM;
	}
	if (!ret) {
		qsort(c, n, sizeof(*c), by_cause);
		table_fit(t, fleet_width());
		ret = cause_rows(fleet, t, c, n, cause_row);
	}
	if (!ret)
		ret = table_emit(ctx, t, "unreachable");
	else
		table_free(t);
	for (i = 0; i < n; i++)
		free(c[i].text);
	free(c);
	return ret;
}

static int unreachable_table(struct ctx *ctx, const struct fleet *fleet)
{
	struct table *t;
	size_t i;

	if (!ctx->json)
		return unreachable_by_cause(ctx, fleet);
	t = table_new(unreachable_cols);
	if (!t)
		return -ENOMEM;
	table_fit(t, fleet_width());
	for (i = 0; i < fleet->n; i++) {
		const struct fleet_node *nd = fleet->nodes[i];
		struct json_object *row;

		if (nd->doc)
			continue;
		row = table_row(t);
		row_str(row, "node", nd->name);
		row_str(row, "error", nd->error);
		if (nd->rc >= 0)
			row_int(row, "rc", nd->rc);
		else
			row_nulls(row, "rc", NULL);
	}
	return table_emit(ctx, t, "unreachable");
}

/* ---- what doctor --slurm-health --drain would do: the dry run of a rollout ---- */

/* Under a row whose nodes' reasons differ past the check's name. */
static const char *reason_varies_text(struct json_object *row, char *buf, size_t len)
{
	struct json_object *v;

	if (!json_object_object_get_ex(row, "reason_varies", &v) || !json_object_get_boolean(v))
		return NULL;
	snprintf(buf, len, "%" PRId64 " nodes, reasons differ in detail (this is %s's): see -j",
		 jint(row, "count", 0), jtext(row, "reason_on"));
	return buf;
}

static const struct column drain_cols[] = {
	{ "nodes", "WOULD DRAIN", 0, NULL, nodes_text },
	{ "reason", "REASON (doctor --slurm-health --drain)", COL_WRAP, NULL },
	{ "reason_varies", "NOTE", COL_BELOW, NULL, reason_varies_text },
	{ DOC_ID, NULL, COL_NOTEXT },
	{ "count", NULL, COL_NOTEXT },
	{ "reason_on", NULL, COL_NOTEXT },
	{ 0 }
};

/* One check's nodes: folded, the first node's reason, whether the others' differ. */
static int drain_row(const struct fleet *fleet, struct table *t, const struct cause *c, size_t n,
		     size_t *idx)
{
	struct json_object *row;
	bool varies = false;
	char *nodes;
	size_t i;

	for (i = 0; i < n; i++) {
		idx[i] = c[i].node;
		varies = varies || strcmp(c[i].detail, c[0].detail);
	}
	nodes = fleet_fold(fleet, idx, n);
	if (!nodes || !(row = table_row(t))) {
		free(nodes);
		return -ENOMEM;
	}
	row_str(row, "nodes", nodes);
	row_str(row, "reason", c[0].detail);
	row_bool(row, "reason_varies", varies);
	row_str(row, DOC_ID, c[0].text);
	row_int(row, "count", (int64_t)n);
	row_str(row, "reason_on", fleet->nodes[c[0].node]->name);
	free(nodes);
	return 0;
}

/*
 * The drain node @i would get from its own health mode, in @c: its first
 * failed check (doc_drain_reason(), the words --drain gives Slurm).
 * 1 when it would be drained, 0 when not (or no document), -ENOMEM.
 */
static int drain_of(const struct fleet *fleet, size_t i, struct cause *c)
{
	struct json_object *doc = fleet_doc(fleet->nodes[i]), *checks, *row;
	char reason[DOC_DRAIN_REASON_MAX];
	size_t j;
	int ret = 0;

	if (!doc)
		return fleet->nodes[i]->doc ? -ENOMEM : 0;
	if (!json_object_object_get_ex(doc, DOC_CHECKS, &checks))
		checks = NULL;
	for (j = 0; checks && j < json_object_array_length(checks); j++) {
		row = json_object_array_get_idx(checks, j);
		if (!doc_drain_reason(row, reason, sizeof(reason)))
			continue;
		c->node = i;
		c->text = strdup(jtext(row, DOC_ID));
		c->detail = strdup(reason);
		ret = c->text && c->detail ? 1 : -ENOMEM;
		break;
	}
	json_object_put(doc);
	return ret;
}

/*
 * Before the health check is enabled fleet-wide, the nodes its first
 * pass would drain, and why: "lab-[b,d]  rdmactl: firewall: ...", one row
 * a check, folded as the unreachable nodes are.  Text shows it when a
 * node would be drained; -j's "drain" is always there.
 */
static int drain_table(struct ctx *ctx, const struct fleet *fleet)
{
	struct cause *c = calloc(fleet->n + 1, sizeof(*c));
	struct table *t = table_new(drain_cols);
	size_t i, n = 0;
	int ret = c && t ? 0 : -ENOMEM;

	for (i = 0; !ret && i < fleet->n; i++) {
		ret = drain_of(fleet, i, &c[n]);
		if (ret > 0)
			n++;
		ret = ret < 0 ? ret : 0;
	}
	if (!ret) {
		qsort(c, n, sizeof(*c), by_cause);
		table_fit(t, fleet_width());
		ret = cause_rows(fleet, t, c, n, drain_row);
	}
	if (!ret && (n || ctx->json)) {
		print_text(ctx, "\n");
		ret = table_emit(ctx, t, "drain");
	} else {
		table_free(t);
	}
	for (i = 0; i <= n && c; i++) {
		free(c[i].text);
		free(c[i].detail);
	}
	free(c);
	return ret;
}

/* The nodes of one outcome: failed, warned, unreachable. */
struct outcome {
	const char *name;
	size_t *idx, n;
};

/* "  failed: lab-c" under the summary line, its hostlist cut to the line. */
static void outcome_line(struct ctx *ctx, const char *name, const char *nodes, size_t n)
{
	char cut[FLEET_WIDTH + 1], tail[40];
	size_t width = fleet_width();
	int t, keep;

	if (!nodes || !n)
		return;
	if (strlen(name) + strlen(nodes) + 4 > width) {
		t = snprintf(tail, sizeof(tail), "... (%zu node%s)", n, n == 1 ? "" : "s");
		keep = (int)width - 4 - (int)strlen(name) - t;
		snprintf(cut, sizeof(cut), "%.*s%s", keep > 8 ? keep : 8, nodes, tail);
		nodes = cut;
	}
	print_text(ctx, "  %s: %s\n", name, nodes);
}

static void summary_line(struct ctx *ctx, const struct fleet_counts *c)
{
	enum color color = c->failed || c->unreachable ? COLOR_RED
			   : c->warned			 ? COLOR_YELLOW
							 : COLOR_GREEN;

	/* Numbers only, and colour codes print_text() would escape. */
	if (!ctx->json)
		printf("\n%s%zu node%s: %zu failed, %zu warned, %zu unreachable%s\n",
		       color_on(ctx, color), c->nodes, c->nodes == 1 ? "" : "s", c->failed, c->warned,
		       c->unreachable, color_off(ctx));
}

static int summary(struct ctx *ctx, const struct fleet *fleet, struct outcome *o,
		   const struct fleet_counts *c)
{
	struct json_object *s = json_object_new_object();
	size_t i;

	if (!s)
		return -ENOMEM;
	json_object_object_add(s, "nodes", json_object_new_int64((int64_t)c->nodes));
	json_object_object_add(s, "failed", json_object_new_int64((int64_t)c->failed));
	json_object_object_add(s, "warned", json_object_new_int64((int64_t)c->warned));
	json_object_object_add(s, "unreachable", json_object_new_int64((int64_t)c->unreachable));
	summary_line(ctx, c);
	for (i = 0; i < 3; i++) {
		char key[32], *nodes = o[i].n ? fleet_fold(fleet, o[i].idx, o[i].n) : NULL;

		if (o[i].n && !nodes) {
			json_object_put(s);
			return -ENOMEM;
		}
		snprintf(key, sizeof(key), "%s_nodes", o[i].name);
		json_object_object_add(s, key, nodes ? json_object_new_string(nodes) : NULL);
		outcome_line(ctx, o[i].name, nodes, o[i].n);
		free(nodes);
	}
	if (ctx->json)
		json_attach(ctx, "summary", s);
	else
		json_object_put(s);
	return 0;
}

/* Each node's outcome from its worst check and its drift; the counts. */
static int outcomes(const struct fleet *fleet, const enum rank *worst, const bool *odd,
		    struct outcome *o, struct fleet_counts *c)
{
	size_t i;

	o[0].name = "failed";
	o[1].name = "warned";
	o[2].name = "unreachable";
	for (i = 0; i < 3; i++)
		if (!(o[i].idx = malloc((fleet->n + 1) * sizeof(*o[i].idx))))
			return -ENOMEM;
	for (i = 0; i < fleet->n; i++) {
		int k = !fleet->nodes[i]->doc	   ? 2
			: worst[i] == RANK_FAIL	   ? 0
			: worst[i] == RANK_WARN || odd[i] ? 1
						   : -1;

		if (k >= 0)
			o[k].idx[o[k].n++] = i;
	}
	c->nodes = fleet->n;
	c->failed = o[0].n;
	c->warned = o[1].n;
	c->unreachable = o[2].n;
	return 0;
}

/*
 * A node's document as the output writes it: parsed from its text only
 * then, one at a time, made valid UTF-8 as the rest of the output is, and
 * indented to where it sits (json-c indents a nested value by its level).
 */
static int doc_to_json(struct json_object *jso, struct printbuf *pb, int level, int flags)
{
	struct json_object *doc = json_tokener_parse(json_object_get_userdata(jso));
	const char *s, *nl;
	int i, ret = 0;

	if (!doc)
		return printbuf_strappend(pb, "null") < 0 ? -1 : 0;
	json_make_utf8(doc);
	s = json_object_to_json_string_ext(doc, flags);
	for (; !ret && (nl = strchr(s, '\n')); s = nl + 1) {
		ret = printbuf_memappend(pb, s, (int)(nl + 1 - s)) < 0;
		for (i = 0; !ret && i < level; i++)
			ret = (flags & JSON_C_TO_STRING_PRETTY_TAB ? printbuf_strappend(pb, "\t")
								   : printbuf_strappend(pb, "  ")) < 0;
	}
	if (!ret)
		ret = printbuf_memappend(pb, s, (int)strlen(s)) < 0;
	json_object_put(doc);
	return ret ? -1 : 0;
}

/* Under -j, each node's own document, untouched, by name. */
static int node_docs(struct ctx *ctx, const struct fleet *fleet)
{
	struct json_object *nodes = json_object_new_object(), *d;
	size_t i;
	char *text;

	if (!nodes)
		return -ENOMEM;
	for (i = 0; i < fleet->n; i++) {
		if (!fleet->nodes[i]->doc)
			continue;
		/* Its text, not its tree: the output is printed after the fleet is freed. */
		text = strdup(fleet->nodes[i]->doc);
		d = json_object_new_int(0);	/* a carrier: doc_to_json writes it */
		if (!text || !d) {
			free(text);
			json_object_put(d);
			json_object_put(nodes);
			return -ENOMEM;
		}
		json_object_set_serializer(d, doc_to_json, text, json_object_free_userdata);
		json_object_object_add(nodes, fleet->nodes[i]->name, d);
	}
	json_attach(ctx, "nodes", nodes);
	return 0;
}

/* The launchers' lines that named no node: "notes" under -j, else after the tables. */
static void notes(struct ctx *ctx, const struct fleet *fleet)
{
	size_t i;

	if (ctx->json) {
		json_attach(ctx, "notes", fleet->notes ? json_object_get(fleet->notes) : json_object_new_array());
		return;
	}
	for (i = 0; fleet->notes && i < json_object_array_length(fleet->notes); i++) {
		char buf[FLEET_WIDTH * 4];

		print_text(ctx, "%snote: %s\n", i ? "" : "\n",
			   cut_safe(json_object_get_string(json_object_array_get_idx(fleet->notes, i)),
				    FLEET_WIDTH - 6, buf, sizeof(buf)));
	}
}

/* The checks table, then drift (or the word that there is none). */
static int checks_and_drift(struct ctx *ctx, const struct fleet *fleet, enum rank *worst,
			    bool *odd)
{
	struct table *t = table_new(check_cols);
	struct json_object *drift;
	int ret;

	if (!t)
		return -ENOMEM;
	table_fit(t, fleet_width());
	ret = check_rows(fleet, t, worst);
	if (ret) {
		table_free(t);
		return ret;
	}
	table_emit(ctx, t, DOC_CHECKS);
	drift = drift_rows(fleet, odd);
	if (!drift)
		return -ENOMEM;
	if (json_object_array_length(drift))
		print_text(ctx, "\n");
	else if (fleet_reached(fleet) > 1)
		print_text(ctx, "\nno drift: the %zu nodes with a document agree on every fact compared\n",
			   fleet_reached(fleet));
	ret = drift_table(ctx, drift);
	json_object_put(drift);
	return ret;
}

int fleet_summary(struct ctx *ctx, const struct fleet *fleet, struct fleet_counts *counts)
{
	enum rank *worst = malloc((fleet->n + 1) * sizeof(*worst));
	bool *odd = calloc(fleet->n + 1, sizeof(*odd));
	struct outcome o[3] = { { 0 } };
	size_t i;
	int ret = worst && odd ? 0 : -ENOMEM;

	memset(counts, 0, sizeof(*counts));
	for (i = 0; worst && i < fleet->n; i++)
		worst[i] = RANK_OK;
	if (!ret && ctx->json)
		ret = node_docs(ctx, fleet);
	if (!ret)
		ret = checks_and_drift(ctx, fleet, worst, odd);
	if (!ret && fleet->n > fleet_reached(fleet)) {
		print_text(ctx, "\n");
		ret = unreachable_table(ctx, fleet);
	} else if (!ret && ctx->json) {
		ret = unreachable_table(ctx, fleet);
	}
	if (!ret)
		ret = drain_table(ctx, fleet);
	if (!ret)
		notes(ctx, fleet);
	if (!ret)
		ret = outcomes(fleet, worst, odd, o, counts);
	if (!ret)
		ret = summary(ctx, fleet, o, counts);
	for (i = 0; i < 3; i++)
		free(o[i].idx);
	free(worst);
	free(odd);
	return ret;
}

/*
 * node_docs() leaves each node's document as text for its printer; a
 * reader of the tree (the HTML report) wants the documents themselves.
 */
static int parse_node_docs(struct json_object *root)
{
	struct json_object *nodes, *doc;

	if (!json_object_object_get_ex(root, "nodes", &nodes))
		return 0;
	json_object_object_foreach(nodes, name, carrier)
	{
		doc = json_tokener_parse(json_object_get_userdata(carrier));
		if (!doc)
			return -ENOMEM;
		json_make_utf8(doc);
		if (json_object_object_add(nodes, name, doc)) {
			json_object_put(doc);
			return -ENOMEM;
		}
	}
	return 0;
}

struct json_object *fleet_summary_doc(const struct ctx *ctx, const struct fleet *fleet)
{
	struct ctx jc = *ctx;
	struct fleet_counts counts;

	/* The same report, built as -j builds it and printed nowhere. */
	jc.json = true;
	jc.warnings = NULL;
	jc.jroot = json_object_new_object();
	if (!jc.jroot || fleet_summary(&jc, fleet, &counts) || parse_node_docs(jc.jroot)) {
		json_object_put(jc.jroot);
		return NULL;
	}
	return jc.jroot;
}

int fleet_rc(const struct fleet_counts *c)
{
	return c->failed || c->unreachable ? RC_PROBLEM : RC_OK;
}
