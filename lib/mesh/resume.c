// SPDX-License-Identifier: MIT
/* A saved cluster probe read back, and what of it a new run keeps (see resume.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/json.h"
#include "base/jstream.h"
#include "mesh/resume.h"

#define NAMES_MAX (1u << 20)
#define RAILS_MAX 64

/* ---- reading ---- */

struct sreader {
	struct jstream js;
	struct json_object *doc;	/* the keys read so far: "run" comes before "links" */
	struct json_object *ids;	/* name -> index in sv->names */
	struct saved_run *sv;
	size_t cap;
	uint32_t top_rail;		/* highest rail + 1 */
};

#define bad(r, ...) jstream_bad(&(r)->js, __VA_ARGS__)

static bool is_num(struct json_object *v)
{
	return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

/* @key of @o: a number from @min to @max, or @dflt when absent or null; -EINVAL otherwise. */
static int num(struct sreader *r, struct json_object *o, const char *key, double min, double max,
	       double dflt, const char *where, double *out)
{
	struct json_object *v = NULL;

	*out = dflt;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!is_num(v) || json_object_get_double(v) < min || json_object_get_double(v) > max)
		return bad(r, "%s: %s is not a number from %g to %g", where, key, min, max);
	*out = json_object_get_double(v);
	return 0;
}

/* run.names into the saved run, once, at the first link or at the end. */
static int names_read(struct sreader *r)
{
	struct json_object *run, *names, *v;
	struct saved_run *sv = r->sv;
	size_t i, n;

	if (sv->names)
		return 0;
	if (!json_object_object_get_ex(r->doc, "run", &run) || !json_object_is_type(run, json_type_object) ||
	    !json_object_object_get_ex(run, "names", &names) || !json_object_is_type(names, json_type_array))
		return bad(r, "no run.names before the links: not the document of 'rdmactl -j probe -w'");
	n = json_object_array_length(names);
	if (n < 2 || n > NAMES_MAX)
		return bad(r, "run.names: %zu nodes, expected 2 to %u", n, NAMES_MAX);
	if (!(sv->names = calloc(n + 1, sizeof(*sv->names))) || !(r->ids = json_object_new_object()))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *name = json_object_get_string(v = json_object_array_get_idx(names, i));

		if (!json_object_is_type(v, json_type_string) || !*name)
			return bad(r, "run.names[%zu]: not a node name", i);
		if (json_object_object_get_ex(r->ids, name, NULL))
			return bad(r, "run.names[%zu]: '%.64s' is there twice", i, name);
		if (!(sv->names[i] = strdup(name)))
			return -ENOMEM;
		sv->n = (uint32_t)i + 1;
		json_object_object_add(r->ids, name, json_object_new_int64((int64_t)i));
	}
	return 0;
}

/* The node @key of @o names: its index; -EINVAL when none of run.names. */
static int node_of(struct sreader *r, struct json_object *o, const char *key, const char *where,
		   size_t i, uint32_t *id)
{
	struct json_object *v, *idx;
	const char *name;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return bad(r, "%s[%zu]: no %s", where, i, key);
	name = json_object_get_string(v);
	if (!json_object_object_get_ex(r->ids, name, &idx))
		return bad(r, "%s[%zu]: %s '%.64s' is not in run.names", where, i, key, name);
	*id = (uint32_t)json_object_get_int64(idx);
	return 0;
}

static enum link_cause cause_of(const char *s)
{
	int c;

	for (c = CAUSE_NONE; s && c <= CAUSE_OTHER; c++)
		if (!strcmp(link_cause_name((enum link_cause)c), s))
			return (enum link_cause)c;
	return CAUSE_OTHER;
}

/* What a link measured: ok and its figures, or why it failed; the port counters. */
static int link_figures(struct sreader *r, struct json_object *o, size_t i, struct link_result *l)
{
	struct json_object *ok, *cnt = NULL;
	char where[32];
	double v;
	int ret;

	snprintf(where, sizeof(where), "links[%zu]", i);
	if (!json_object_object_get_ex(o, "ok", &ok) || !json_object_is_type(ok, json_type_boolean))
		return bad(r, "%s: no \"ok\" true or false", where);
	l->ok = json_object_get_boolean(ok);
	ret = num(r, o, "gbps", 0, 1e5, 0, where, &l->gbps) ?: num(r, o, "lat_us", 0, 1e9, -1, where, &l->lat_us);
	if (!ret && l->ok && !json_object_object_get_ex(o, "gbps", NULL))
		ret = bad(r, "%s: ok, but no gbps", where);
	if (!l->ok) {
		l->cause = cause_of(jstr(o, "cause"));
		snprintf(l->why, sizeof(l->why), "%s", jstr(o, "why") ? jstr(o, "why") : "");
	}
	snprintf(l->dev, sizeof(l->dev), "%s", jstr(o, "dev") ? jstr(o, "dev") : "");
	json_object_object_get_ex(o, "counters", &cnt);
	if (!ret && cnt && !json_object_is_type(cnt, json_type_object))
		ret = bad(r, "%s: counters is not an object", where);
	if (!ret && cnt && !(ret = num(r, cnt, "retrans", 0, 1e18, 0, where, &v)))
		l->retrans = (uint64_t)v;
	if (!ret && cnt && !(ret = num(r, cnt, "seq_err", 0, 1e18, 0, where, &v)))
		l->seq_err = (uint64_t)v;
	if (!ret && cnt && !(ret = num(r, cnt, "cnp", 0, 1e18, 0, where, &v)))
		l->cnp = (uint64_t)v;
	return ret;
}

static int link_each(void *arg, struct json_object *o, size_t i)
{
	struct sreader *r = arg;
	struct saved_run *sv = r->sv;
	struct link_result *l;
	double rail = 0, round = 0;
	int ret = names_read(r);

	if (ret)
		return ret;
	if (!json_object_is_type(o, json_type_object))
		return bad(r, "links[%zu]: not an object", i);
	if (sv->nres == r->cap) {
		struct link_result *nr = realloc(sv->res, (r->cap * 2 + 64) * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		sv->res = nr;
		r->cap = r->cap * 2 + 64;
	}
	l = &sv->res[sv->nres];
	memset(l, 0, sizeof(*l));
	ret = node_of(r, o, "client", "links", i, &l->client) ?: node_of(r, o, "server", "links", i, &l->server);
	if (!ret && l->client == l->server)
		ret = bad(r, "links[%zu]: client and server are one node", i);
	if (!ret)
		ret = num(r, o, "rail", 0, RAILS_MAX - 1, 0, "links", &rail) ?:
		      num(r, o, "round", 0, 1e9, 0, "links", &round);
	if (!ret)
		ret = link_figures(r, o, i, l);
	if (ret)
		return ret;
	l->rail = (uint32_t)rail;
	l->round = (uint32_t)round;
	if (l->rail + 1 > r->top_rail)
		r->top_rail = l->rail + 1;
	sv->nres++;
	return 0;
}

static int findings_read(struct sreader *r)
{
	struct json_object *arr, *f;
	struct saved_run *sv = r->sv;
	size_t i, n;
	int ret = 0;

	if (!json_object_object_get_ex(r->doc, "findings", &arr) || !json_object_is_type(arr, json_type_array))
		return bad(r, "no \"findings\" array: not the document of 'rdmactl -j probe -w'");
	n = json_object_array_length(arr);
	if (!(sv->find = calloc(n + 1, sizeof(*sv->find))))
		return -ENOMEM;
	for (i = 0; !ret && i < n; i++) {
		struct saved_finding *sf = &sv->find[sv->nfind];
		double rail = -1;

		f = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(f, json_type_object))
			return bad(r, "findings[%zu]: not an object", i);
		/* A switch's (probe -w --topology) names no node: its links are slow, reopened as such. */
		if (json_object_object_get_ex(f, "switch", NULL))
			continue;
		sf->peer = UINT32_MAX;
		ret = node_of(r, f, "node", "findings", i, &sf->node);
		if (!ret && jstr(f, "peer"))
			ret = node_of(r, f, "peer", "findings", i, &sf->peer);
		if (!ret)
			ret = num(r, f, "rail", 0, RAILS_MAX - 1, -1, "findings", &rail);
		sf->rail = rail < 0 ? UINT32_MAX : (uint32_t)rail;
		sv->nfind += !ret;
	}
	return ret;
}

/* The run's own facts: rails, complete, the median and --slow the links were judged by. */
static int facts_read(struct sreader *r)
{
	struct saved_run *sv = r->sv;
	struct json_object *run, *c;
	double rails;
	int ret;

	json_object_object_get_ex(r->doc, "run", &run);
	ret = num(r, run, "rails", 1, RAILS_MAX, 0, "run", &rails) ?:
	      num(r, r->doc, "median_gbps", 0, 1e5, 0, "the document", &sv->median_gbps) ?:
	      num(r, r->doc, "slow", 0.01, 0.99, 0.8, "the document", &sv->slow);
	if (ret)
		return ret;
	sv->rails = rails > r->top_rail ? (uint32_t)rails : r->top_rail ? r->top_rail : 1;
	sv->complete = !json_object_object_get_ex(run, "complete", &c) ||
		       !json_object_is_type(c, json_type_boolean) || json_object_get_boolean(c);
	return 0;
}

int saved_run_read(const char *text, size_t len, struct saved_run *sv, char *err, size_t errlen)
{
	struct sreader r = { .sv = sv };
	bool links = false;
	int ret = 0;

	memset(sv, 0, sizeof(*sv));
	err[0] = '\0';
	r.doc = json_object_new_object();
	if (!r.doc)
		return -ENOMEM;
	ret = jstream_read(&r.js, text, len, err, errlen, r.doc, "links", link_each, &r, &links);
	if (!ret && !links)
		ret = bad(&r, "no \"links\" array: not the document of 'rdmactl -j probe -w'");
	if (!ret)
		ret = names_read(&r) ?: findings_read(&r) ?: facts_read(&r);
	json_object_put(r.doc);
	json_object_put(r.ids);
	if (ret)
		saved_run_free(sv);
	return ret;
}

void saved_run_free(struct saved_run *sv)
{
	uint32_t i;

	for (i = 0; sv->names && i < sv->n; i++)
		free(sv->names[i]);
	free(sv->names);
	free(sv->res);
	free(sv->find);
	memset(sv, 0, sizeof(*sv));
}

/* ---- what carries over ---- */

/* @map[saved index]: the index in @names, UINT32_MAX when the new run lacks it; the nodes of both. */
static int map_nodes(const struct saved_run *sv, char *const *names, uint32_t n, uint32_t *map,
		     uint32_t *common)
{
	struct json_object *ids = json_object_new_object(), *v;
	uint32_t i;

	if (!ids)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		json_object_object_add(ids, names[i], json_object_new_int64(i));
	for (i = *common = 0; i < sv->n; i++) {
		map[i] = json_object_object_get_ex(ids, sv->names[i], &v) ? (uint32_t)json_object_get_int64(v)
									 : UINT32_MAX;
		*common += map[i] != UINT32_MAX;
	}
	json_object_put(ids);
	return 0;
}

/* A finding names this link (a pair, both ways) or one of its ends alone. */
static bool suspect(const struct saved_run *sv, const struct link_result *l)
{
	size_t i;

	for (i = 0; i < sv->nfind; i++) {
		const struct saved_finding *f = &sv->find[i];

		if (f->peer == UINT32_MAX && (f->node == l->client || f->node == l->server))
			return true;
		if (f->peer != UINT32_MAX && (f->rail == UINT32_MAX || f->rail == l->rail) &&
		    ((f->node == l->client && f->peer == l->server) ||
		     (f->node == l->server && f->peer == l->client)))
			return true;
	}
	return false;
}

static bool carries(const struct saved_run *sv, const struct link_result *l)
{
	return l->ok && !(sv->median_gbps > 0 && l->gbps < sv->slow * sv->median_gbps) && !suspect(sv, l);
}

/* @l into rs->carry, in the new run's indexes; a link that carries also into rs->pair. */
static int carry_add(struct resume *rs, const struct link_result *l, const uint32_t *map, size_t *cap,
		     bool carried)
{
	struct link_result *c;

	if (rs->nheld == *cap) {
		c = realloc(rs->carry, (*cap * 2 + 64) * sizeof(*c));
		if (!c)
			return -ENOMEM;
		rs->carry = c;
		*cap = *cap * 2 + 64;
	}
	c = &rs->carry[rs->nheld++];
	*c = *l;
	c->client = map[l->client];
	c->server = map[l->server];
	if (carried) {
		rs->ncarry++;
		rs->pair[(size_t)c->client * rs->nodes + c->server]++;
	} else {
		rs->reopened++;
	}
	return 0;
}

/* From the last link back: only the last result of a directed link counts (a retest's). */
static int plan_links(const struct saved_run *sv, const uint32_t *map, struct resume *rs)
{
	uint64_t *seen = calloc((size_t)rs->nodes * rs->nodes + 1, sizeof(*seen));
	size_t i, cap = 0, k;
	int ret = seen ? 0 : -ENOMEM;

	for (i = sv->nres; !ret && i-- > 0;) {
		const struct link_result *l = &sv->res[i];
		uint64_t *bit;

		if (map[l->client] == UINT32_MAX || map[l->server] == UINT32_MAX) {
			rs->left_out++;
			continue;
		}
		bit = &seen[(size_t)map[l->client] * rs->nodes + map[l->server]];
		if (*bit & (1ull << l->rail))
			continue;
		*bit |= 1ull << l->rail;
		ret = carry_add(rs, l, map, &cap, carries(sv, l));
	}
	/* Back in the document's order. */
	for (k = 0; !ret && k < rs->nheld / 2; k++) {
		struct link_result t = rs->carry[k];

		rs->carry[k] = rs->carry[rs->nheld - 1 - k];
		rs->carry[rs->nheld - 1 - k] = t;
	}
	free(seen);
	return ret;
}

int resume_plan(const struct saved_run *sv, char *const *names, uint32_t n, struct resume *rs)
{
	uint32_t *map = calloc(sv->n + 1, sizeof(*map));
	int ret;

	memset(rs, 0, sizeof(*rs));
	rs->nodes = n;
	rs->rails = sv->rails;
	rs->pair = calloc((size_t)n * n + 1, sizeof(*rs->pair));
	ret = map && rs->pair ? map_nodes(sv, names, n, map, &rs->common) : -ENOMEM;
	if (!ret && rs->common < 2)
		ret = -ENOENT;
	if (!ret)
		ret = plan_links(sv, map, rs);
	free(map);
	if (ret)
		resume_free(rs);
	return ret;
}

int resume_filter(const struct resume *rs, struct schedule *s)
{
	size_t k, j, kept = 0, n;

	for (k = 0; k < s->n; k++) {
		struct sched_step *st = &s->steps[k];

		for (j = n = 0; j < st->n; j++)
			if (rs->pair[(size_t)st->pairs[j].client * rs->nodes + st->pairs[j].server] < rs->rails)
				st->pairs[n++] = st->pairs[j];
		st->n = n;
		if (!n) {
			free(st->pairs);
			continue;
		}
		s->steps[kept++] = *st;
	}
	s->n = kept;
	return 0;
}

int resume_carry(struct resume *rs, struct linkmap *m)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && rs->carry && i < rs->nheld; i++)
		ret = linkmap_add(m, &rs->carry[i]);
	m->held = m->n;
	/* A million links of a full matrix are ~400 MB: not held twice. */
	free(rs->carry);
	rs->carry = NULL;
	return ret;
}

size_t schedule_tests(const struct schedule *s, uint32_t rails)
{
	size_t k, n = 0;

	for (k = 0; k < s->n; k++)
		n += s->steps[k].n;
	return n * rails;
}

void resume_free(struct resume *rs)
{
	free(rs->carry);
	free(rs->pair);
	memset(rs, 0, sizeof(*rs));
}
