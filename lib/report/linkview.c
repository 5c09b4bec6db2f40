// SPDX-License-Identifier: MIT
/* A cluster probe's results for the HTML report (see linkview.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/json.h"
#include "base/jstream.h"
#include "mesh/linkmap.h"
#include "report/linkview.h"

/* ---- from a link map ---- */

static char *why_of(const char *cause, const char *why)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s%s", cause ? cause : "failed", why ? ": " : "", why ? why : "") < 0)
		return NULL;
	return s;
}

static int cells_alloc(struct linkview *v)
{
	v->cells = calloc((size_t)v->rails * v->n * v->n + 1, sizeof(*v->cells));
	return v->cells ? 0 : -ENOMEM;
}

/* A link's result into its cell; a later one of the same link replaces it (a retest). */
static int cell_set(struct lv_cell *c, bool ok, double gbps, double lat, const uint64_t cnt[3],
		    const char *cause, const char *why)
{
	free(c->why);
	*c = (struct lv_cell){ .state = ok ? LV_OK : LV_FAILED, .gbps = ok ? (float)gbps : 0,
			       .lat = (float)lat, .retrans = (uint32_t)cnt[0],
			       .seq_err = (uint32_t)cnt[1], .cnp = (uint32_t)cnt[2] };
	if (!ok && !(c->why = why_of(cause, why)))
		return -ENOMEM;
	return 0;
}

static int finding_add(struct linkview *v, const char *kind, bool failure, uint32_t node,
		       uint32_t peer, uint32_t rail, const char *text)
{
	struct lv_finding *f = realloc(v->find, (v->nfind + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	v->find = f;
	f = &f[v->nfind];
	*f = (struct lv_finding){ .failure = failure, .node = node, .peer = peer, .rail = rail };
	snprintf(f->kind, sizeof(f->kind), "%s", kind);
	if (!(f->text = strdup(text ? text : "")))
		return -ENOMEM;
	v->nfind++;
	return 0;
}

int linkview_from_map(struct linkview *v, const struct linkmap *m, struct json_object *run)
{
	size_t i;
	int ret = 0;

	*v = (struct linkview){ .n = m->nodes, .rails = m->rails ? m->rails : 1,
				.median_gbps = m->median_gbps, .median_lat = m->median_lat_us,
				.slow = m->slow, .run = json_object_get(run) };
	v->names = calloc(v->n + 1, sizeof(*v->names));
	for (i = 0; v->names && i < v->n; i++)
		if (!(v->names[i] = strdup(m->names[i])))
			return -ENOMEM;
	if (!v->names || cells_alloc(v))
		return -ENOMEM;
	for (i = 0; !ret && i < m->n; i++) {
		const struct link_result *r = &m->res[i];
		uint64_t cnt[3] = { r->retrans, r->seq_err, r->cnp };

		/* A node that did not take part: its links count for nothing (linkmap.h). */
		if (r->rail >= v->rails || (m->down && (m->down[r->client] || m->down[r->server])))
			continue;
		ret = cell_set(lv_cell(v, r->rail, r->client, r->server), r->ok, r->gbps, r->lat_us,
			       cnt, link_cause_name(r->cause), r->why[0] ? r->why : NULL);
	}
	for (i = 0; !ret && i < m->nfind; i++) {
		const struct finding *f = &m->find[i];

		ret = finding_add(v, finding_kind_name(f->kind), f->failure, f->node, f->peer, f->rail,
				  f->text);
	}
	return ret;
}

/* ---- from a saved document, one value at a time ---- */

struct reader {
	struct jstream js;
	struct json_object *ids;	/* node name -> index in names */
	char **names;
	uint32_t n, cap;
	struct link *links;		/* as read, before the node order is known */
	size_t nlinks, lcap;
	uint32_t rails;
};

/* One link as read: names are indexes into the reader's names. */
struct link {
	uint32_t client, server, rail;
	bool ok;
	float gbps, lat;
	uint64_t cnt[3];
	char *why;
};

#define bad(r, ...) jstream_bad(&(r)->js, __VA_ARGS__)

/* The index of node @name, added when new. */
static int node_id(struct reader *r, const char *name, uint32_t *id)
{
	struct json_object *v;

	if (json_object_object_get_ex(r->ids, name, &v)) {
		*id = (uint32_t)json_object_get_int64(v);
		return 0;
	}
	if (r->n == r->cap) {
		char **nn = realloc(r->names, (r->cap * 2 + 16) * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		r->names = nn;
		r->cap = r->cap * 2 + 16;
	}
	if (!(r->names[r->n] = strdup(name)))
		return -ENOMEM;
	json_object_object_add(r->ids, name, json_object_new_int64(r->n));
	*id = r->n++;
	return 0;
}

/* A node named by @key of link or finding @o: -EINVAL when it has none. */
static int named(struct reader *r, struct json_object *o, const char *key, const char *where,
		 size_t i, uint32_t *id)
{
	const char *name = jstr(o, key);

	if (!name || !*name)
		return bad(r, "%s[%zu]: no %s", where, i, key);
	return node_id(r, name, id);
}

static int link_read(struct reader *r, struct json_object *o, size_t i)
{
	struct json_object *cnt = NULL, *ok = NULL;
	struct link *l;
	double rail = jnum(o, "rail", 0);
	int ret;

	if (r->nlinks == r->lcap) {
		struct link *nl = realloc(r->links, (r->lcap * 2 + 64) * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		r->links = nl;
		r->lcap = r->lcap * 2 + 64;
	}
	l = &r->links[r->nlinks];
	memset(l, 0, sizeof(*l));
	if (!json_object_is_type(o, json_type_object))
		return bad(r, "links[%zu]: not an object", i);
	ret = named(r, o, "client", "links", i, &l->client) ?:
	      named(r, o, "server", "links", i, &l->server);
	if (ret)
		return ret;
	if (l->client == l->server)
		return bad(r, "links[%zu]: client and server are both '%s'", i, r->names[l->client]);
	if (rail < 0 || rail >= 64)
		return bad(r, "links[%zu]: rail %g is not 0 to 63", i, rail);
	l->rail = (uint32_t)rail;
	json_object_object_get_ex(o, "ok", &ok);
	l->ok = json_object_get_boolean(ok);
	l->gbps = (float)jnum(o, "gbps", 0);
	l->lat = (float)jnum(o, "lat_us", -1);
	if (json_object_object_get_ex(o, "counters", &cnt)) {
		l->cnt[0] = (uint64_t)jnum(cnt, "retrans", 0);
		l->cnt[1] = (uint64_t)jnum(cnt, "seq_err", 0);
		l->cnt[2] = (uint64_t)jnum(cnt, "cnp", 0);
	}
	if (!l->ok && !(l->why = why_of(jstr(o, "cause"), jstr(o, "why"))))
		return -ENOMEM;
	if (l->rail + 1 > r->rails)
		r->rails = l->rail + 1;
	r->nlinks++;
	return 0;
}

/* One element of "links" (jstream_each). */
static int link_each(void *arg, struct json_object *o, size_t i)
{
	return link_read(arg, o, i);
}

static int findings_read(struct reader *r, struct json_object *doc, struct linkview *v,
			 uint32_t *fnode, uint32_t *fpeer)
{
	struct json_object *arr, *f, *fl;
	size_t i;
	int ret = 0;

	if (!json_object_object_get_ex(doc, "findings", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return bad(r, "no \"findings\" array: not the document of 'rdmactl -j probe -w'");
	for (i = 0; !ret && i < json_object_array_length(arr); i++) {
		uint32_t peer = UINT32_MAX;
		double rail;

		f = json_object_array_get_idx(arr, i);
		/* A switch's finding (probe -w --topology) names no node. */
		fnode[i] = UINT32_MAX;
		if (jstr(f, "node") || !jstr(f, "switch"))
			ret = named(r, f, "node", "findings", i, &fnode[i]);
		if (!ret && jstr(f, "peer"))
			ret = named(r, f, "peer", "findings", i, &peer);
		fpeer[i] = peer;
		rail = jnum(f, "rail", -1);
		json_object_object_get_ex(f, "failure", &fl);
		if (!ret)
			ret = finding_add(v, jstr(f, "kind") ? jstr(f, "kind") : "unknown",
					  json_object_get_boolean(fl), 0, 0,
					  rail < 0 || rail >= 64 ? UINT32_MAX : (uint32_t)rail,
					  jstr(f, "text"));
	}
	return ret;
}

static int by_name(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The nodes in the run's order: run.names (or matrix.names, up to 32
 * nodes) as the run listed them, any other after them; a document with
 * neither has them sorted as a hostlist reads (node2 before node10).
 * @map[the reader's index] = the index in v->names.
 */
static int order(struct reader *r, struct json_object *doc, struct linkview *v, uint32_t *map)
{
	struct json_object *run, *mx, *list = NULL, *id;
	uint32_t i, k = 0;
	char **sorted;

	if (json_object_object_get_ex(doc, "run", &run))
		json_object_object_get_ex(run, "names", &list);
	if (!list && json_object_object_get_ex(doc, "matrix", &mx))
		json_object_object_get_ex(mx, "names", &list);
	if (!json_object_is_type(list, json_type_array))
		list = NULL;
	if (!(v->names = calloc(r->n + 1, sizeof(*v->names))))
		return -ENOMEM;
	for (i = 0; i < r->n; i++)
		map[i] = UINT32_MAX;
	for (i = 0; list && i < json_object_array_length(list); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(list, i));

		if (name && json_object_object_get_ex(r->ids, name, &id) &&
		    map[json_object_get_int64(id)] == UINT32_MAX)
			map[json_object_get_int64(id)] = k++;
	}
	for (i = 0; list && i < r->n; i++)
		if (map[i] == UINT32_MAX)
			map[i] = k++;
	if (!list) {
		if (!(sorted = malloc((r->n + 1) * sizeof(*sorted))))
			return -ENOMEM;
		memcpy(sorted, r->names, r->n * sizeof(*sorted));
		qsort(sorted, r->n, sizeof(*sorted), by_name);
		for (i = 0; i < r->n; i++) {
			json_object_object_get_ex(r->ids, sorted[i], &id);
			map[json_object_get_int64(id)] = i;
		}
		free(sorted);
	}
	for (i = 0; i < r->n; i++)
		v->names[map[i]] = r->names[i];
	v->n = r->n;
	/* The strings now belong to the view. */
	free(r->names);
	r->names = NULL;
	r->n = r->cap = 0;
	return 0;
}

static double doc_num(struct json_object *doc, const char *key, double none)
{
	return jnum(doc, key, none);
}

/* The links into the view's cells, in the order read: a retest replaces its link. */
static int cells_fill(struct reader *r, struct linkview *v, const uint32_t *map)
{
	size_t i;
	int ret = cells_alloc(v);

	for (i = 0; !ret && i < r->nlinks; i++) {
		struct link *l = &r->links[i];
		struct lv_cell *c = lv_cell(v, l->rail, map[l->client], map[l->server]);

		ret = cell_set(c, l->ok, l->gbps, l->lat, l->cnt, NULL, NULL);
		/* The cause as read ("cause: why"), in place of cell_set()'s bare "failed". */
		if (!ret && !l->ok) {
			free(c->why);
			c->why = l->why;
			l->why = NULL;
		}
	}
	return ret;
}

static void reader_free(struct reader *r)
{
	size_t i;

	for (i = 0; i < r->nlinks; i++)
		free(r->links[i].why);
	free(r->links);
	for (i = 0; i < r->n; i++)
		free(r->names[i]);
	free(r->names);
	json_object_put(r->ids);
}

static int view_make(struct reader *r, struct json_object *doc, struct linkview *v)
{
	struct json_object *arr, *run;
	size_t nf = json_object_object_get_ex(doc, "findings", &arr) ? json_object_array_length(arr) : 0;
	uint32_t *fnode = calloc(nf + 1, sizeof(*fnode)), *fpeer = calloc(nf + 1, sizeof(*fpeer));
	uint32_t *map = NULL;
	size_t i;
	int ret = fnode && fpeer ? findings_read(r, doc, v, fnode, fpeer) : -ENOMEM;

	if (!ret && r->n < 2)
		ret = bad(r, "fewer than two nodes: not the document of 'rdmactl -j probe -w'");
	if (!ret && !(map = calloc(r->n + 1, sizeof(*map))))
		ret = -ENOMEM;
	if (!ret)
		ret = order(r, doc, v, map);
	if (!ret) {
		v->rails = r->rails ? r->rails : 1;
		if (json_object_object_get_ex(doc, "run", &run)) {
			v->run = json_object_get(run);
			if (jnum(run, "rails", 0) > v->rails && jnum(run, "rails", 0) <= 64)
				v->rails = (uint32_t)jnum(run, "rails", 0);
		}
		v->median_gbps = doc_num(doc, "median_gbps", 0);
		v->median_lat = doc_num(doc, "median_lat_us", -1);
		v->slow = doc_num(doc, "slow", 0.8);
		ret = cells_fill(r, v, map);
	}
	for (i = 0; !ret && i < v->nfind; i++) {
		v->find[i].node = fnode[i] == UINT32_MAX ? UINT32_MAX : map[fnode[i]];
		v->find[i].peer = fpeer[i] == UINT32_MAX ? UINT32_MAX : map[fpeer[i]];
	}
	free(map);
	free(fnode);
	free(fpeer);
	return ret;
}

int linkview_read(struct linkview *v, struct json_object **docp, const char *text, size_t len,
		  char *err, size_t errlen)
{
	struct reader r = { 0 };
	struct json_object *doc = json_object_new_object(), *f;
	bool has_links = false;
	int ret = 0;

	*v = (struct linkview){ 0 };
	*docp = NULL;
	err[0] = '\0';
	r.ids = json_object_new_object();
	if (!doc || !r.ids)
		ret = -ENOMEM;
	if (!ret)
		ret = jstream_read(&r.js, text, len, err, errlen, doc, "links", link_each, &r,
				   &has_links);
	if (!ret && has_links && json_object_object_get_ex(doc, "findings", &f))
		ret = view_make(&r, doc, v);
	reader_free(&r);
	if (ret) {
		linkview_free(v);
		json_object_put(doc);
		return ret;
	}
	*docp = doc;
	return 0;
}

void linkview_free(struct linkview *v)
{
	size_t i;

	for (i = 0; v->cells && i < (size_t)v->rails * v->n * v->n; i++)
		free(v->cells[i].why);
	free(v->cells);
	for (i = 0; v->names && i < v->n; i++)
		free(v->names[i]);
	free(v->names);
	for (i = 0; i < v->nfind; i++)
		free(v->find[i].text);
	free(v->find);
	json_object_put(v->run);
	*v = (struct linkview){ 0 };
}
