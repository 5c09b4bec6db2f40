// SPDX-License-Identifier: MIT
/*
 * Resuming a cluster probe (lib/mesh/resume.c, probe -w --from) and the
 * document it resumes from (linkmap_write_json(), probe -w --save): the
 * document written a link at a time is the one -j prints; read back it
 * gives the same links; bad documents are refused with one line; what
 * carries over and what is tested again.  Then on the model of a fabric
 * (simfabric.h), through the probe's own steps and retests: a run cut
 * after k steps, saved, read back and resumed finds what one whole run
 * finds, and tests less than the whole schedule again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/output.h"
#include "mesh/linkmap.h"
#include "mesh/resume.h"
#include "mesh/simfabric.h"
#include "mesh/stepper.h"
#include "test.h"

/* ---- the document ---- */

struct buf {
	char *s;
	size_t n, cap;
};

static int buf_put(void *arg, const char *s, size_t len)
{
	struct buf *b = arg;

	if (b->n + len + 1 > b->cap) {
		b->cap = (b->n + len + 1) * 2;
		b->s = realloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, len);
	b->n += len;
	b->s[b->n] = '\0';
	return 0;
}

/* The run's facts as the coordinator has them, as far as a reader looks. */
static struct json_object *run_of(char *const *names, uint32_t n, uint32_t rails, bool complete)
{
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	uint32_t i;

	for (i = 0; i < n; i++)
		json_object_array_add(arr, json_object_new_string(names[i]));
	json_object_object_add(o, "rails", json_object_new_int(rails));
	json_object_object_add(o, "complete", json_object_new_boolean(complete));
	json_object_object_add(o, "names", arr);
	return o;
}

static char *doc_of(const struct linkmap *m, bool complete)
{
	struct json_object *run = run_of(m->names, m->nodes, m->rails, complete);
	struct buf b = { 0 };

	CHECK_INT(linkmap_write_json(m, run, buf_put, &b), 0);
	json_object_put(run);
	return b.s;
}

/* What -j has of @m with @run: the document linkmap_print() builds in the ctx. */
static struct json_object *printed(const struct linkmap *m, struct json_object *run)
{
	struct ctx ctx = { .root = "", .json = true };

	json_attach(&ctx, "run", json_object_get(run));
	CHECK(linkmap_print(&ctx, m) >= 0);
	return ctx.jroot;
}

static void add(struct linkmap *m, uint32_t c, uint32_t s, uint32_t rail, double gbps)
{
	struct link_result r = { .client = c, .server = s, .rail = rail, .round = 1 + c, .ok = gbps > 0,
				 .gbps = gbps, .lat_us = gbps > 0 ? 2.5 : -1, .retrans = c };

	if (!r.ok) {
		r.cause = CAUSE_ROCE_BLOCKED;
		snprintf(r.why, sizeof(r.why), "no RDMA packet arrives");
	}
	snprintf(r.dev, sizeof(r.dev), "rxe%u/1", rail);
	CHECK_INT(linkmap_add(m, &r), 0);
}

/* Six nodes, two rails: n3 slow, n4 -> n5 failed on rail 1; a hostile name among them. */
static char *six[] = { "n0", "n1", "n2", "n3", "n4", "\x1b]0;x\x07<n5>" };

static void six_nodes(struct linkmap *m)
{
	uint32_t c, s, r;

	linkmap_init(m, six, 6, 2, 0.8);
	for (c = 0; c < 6; c++)
		for (s = 0; s < 6; s++)
			for (r = 0; c != s && r < 2; r++)
				add(m, c, s, r, c == 4 && s == 5 && r == 1 ? 0 : c == 3 || s == 3 ? 30 : 100);
	CHECK_INT(linkmap_analyse(m), 0);
}

/* The document written a link at a time is the one -j prints, key for key. */
static void written_is_printed(void)
{
	struct linkmap m;
	struct json_object *run, *a, *b;
	char *doc;

	six_nodes(&m);
	run = run_of(m.names, m.nodes, m.rails, true);
	doc = doc_of(&m, true);
	b = printed(&m, run);
	a = json_tokener_parse(doc);
	CHECK(a && b && json_object_equal(a, b));
	/* Keys in the same order, too: run first, then what linkmap_print() attaches. */
	CHECK(strstr(doc, "{\"run\":{") == doc && strstr(doc, ",\"links\":[{") &&
	      strstr(doc, "],\"findings\":[{") && strstr(doc, "],\"summary\":{"));
	CHECK(!strchr(doc, '\x1b') && strstr(doc, "\\u001b]0;x\\u0007<n5>"));
	json_object_put(a);
	json_object_put(b);
	json_object_put(run);
	free(doc);
	linkmap_free(&m);
}

/* Read back: the same names, links and findings. */
static void read_back(void)
{
	struct linkmap m;
	struct saved_run sv;
	char *doc, err[256];
	size_t i, same = 0;

	six_nodes(&m);
	doc = doc_of(&m, false);
	CHECK_INT(saved_run_read(doc, strlen(doc), &sv, err, sizeof(err)), 0);
	CHECK_INT(sv.n, 6);
	CHECK_STR(sv.names[3], "n3");
	CHECK_INT(sv.rails, 2);
	CHECK(!sv.complete);
	CHECK_INT(sv.nres, m.n);
	CHECK_INT(sv.nfind, m.nfind);
	CHECK(sv.slow == 0.8 && sv.median_gbps == m.median_gbps);
	for (i = 0; i < sv.nres && i < m.n; i++) {
		const struct link_result *a = &sv.res[i], *b = &m.res[i];

		same += a->client == b->client && a->server == b->server && a->rail == b->rail &&
			a->round == b->round && a->ok == b->ok && a->gbps == b->gbps &&
			a->lat_us == b->lat_us && a->cause == b->cause && !strcmp(a->why, b->why) &&
			a->retrans == b->retrans && !strcmp(a->dev, b->dev);
	}
	CHECK_INT(same, m.n);
	saved_run_free(&sv);
	free(doc);
	linkmap_free(&m);
}

static void refused(const char *doc, const char *want)
{
	struct saved_run sv;
	char err[256];

	CHECK_INT(saved_run_read(doc, strlen(doc), &sv, err, sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		fprintf(stderr, "  '%s': '%s' has no '%s'\n", doc, err, want);
	CHECK(strstr(err, want) != NULL);
	CHECK(sv.names == NULL && sv.res == NULL);
}

#define RUN2 "{\"run\":{\"names\":[\"a\",\"b\"]},"

/* Anything but a saved run: one line saying what is wrong. */
static void bad_documents(void)
{
	refused("", "not a JSON object");
	refused("[1,2]", "not a JSON object");
	refused("{\"links\":[", "links at byte 10: the document ends early");
	refused("{\"run\":{}}", "no \"links\" array");
	refused("{\"links\":[]}", "no run.names");
	refused("{\"links\":[{}],\"run\":{\"names\":[\"a\",\"b\"]}}", "no run.names before the links");
	refused("{\"run\":{\"names\":[\"a\"]},\"links\":[{}]}", "run.names: 1 nodes, expected 2");
	refused("{\"run\":{\"names\":[\"a\",\"a\"]},\"links\":[{}]}", "run.names[1]: 'a' is there twice");
	refused("{\"run\":{\"names\":[\"a\",7]},\"links\":[{}]}", "run.names[1]: not a node name");
	refused(RUN2 "\"links\":[7]}", "links[0]: not an object");
	refused(RUN2 "\"links\":[{\"client\":\"a\"}]}", "links[0]: no server");
	refused(RUN2 "\"links\":[{\"client\":\"a\",\"server\":\"\\u001b[2Jz\"}]}",
		"links[0]: server '\x1b[2Jz' is not in run.names");
	refused(RUN2 "\"links\":[{\"client\":\"a\",\"server\":\"a\"}]}", "client and server are one node");
	refused(RUN2 "\"links\":[{\"client\":\"a\",\"server\":\"b\",\"rail\":99}]}", "rail is not a number from 0 to 63");
	refused(RUN2 "\"links\":[{\"client\":\"a\",\"server\":\"b\"}]}", "links[0]: no \"ok\" true or false");
	refused(RUN2 "\"links\":[{\"client\":\"a\",\"server\":\"b\",\"ok\":true}]}", "links[0]: ok, but no gbps");
	refused(RUN2 "\"links\":[{\"client\":\"a\",\"server\":\"b\",\"ok\":true,\"gbps\":-1}]}",
		"gbps is not a number from 0 to 100000");
	refused(RUN2 "\"links\":[]}", "no \"findings\" array");
	refused(RUN2 "\"links\":[],\"findings\":[{\"node\":\"c\"}]}", "findings[0]: node 'c' is not in run.names");
	refused(RUN2 "\"links\":[],\"findings\":[],\"slow\":3}", "slow is not a number from 0.01 to 0.99");
	refused(RUN2 "\"links\":[],\"findings\":[]} {}", "text after the document");
}

/*
 * What carries over: ok links at the median; not n3's (a slow node), nor
 * the failed n4 -> n5 on rail 1, nor n5 -> n4 on rail 1 (the pair a
 * finding names); a node the new run lacks leaves its links out, and one
 * it adds is tested in full.
 */
static void plan_and_filter(void)
{
	static char *now[] = { "n0", "n1", "n2", "n3", "n4", "\x1b]0;x\x07<n5>", "n9" };
	struct linkmap m;
	struct saved_run sv;
	struct resume rs;
	struct schedule s;
	char *doc, err[256];
	size_t k, j, left[7][7] = { { 0 } };

	six_nodes(&m);
	doc = doc_of(&m, false);
	CHECK_INT(saved_run_read(doc, strlen(doc), &sv, err, sizeof(err)), 0);
	/* n0 left out, n9 new: the new run's n1 is index 1 still, n9 is 6. */
	CHECK_INT(resume_plan(&sv, now + 1, 6, &rs), 0);
	CHECK_INT(rs.common, 5);
	CHECK_INT(rs.left_out, 2 * 2 * 5);
	/* Of the 5 * 4 * 2 links of n1..n5: n3's 16 and n4 <-> n5 on rail 1 are reopened. */
	CHECK_INT(rs.reopened, 16 + 2);
	CHECK_INT(rs.ncarry, 40 - 18);
	CHECK_INT(schedule_make(PATTERN_PAIRS, 6, &s), 0);
	CHECK_INT(resume_filter(&rs, &s), 0);
	for (k = 0; k < s.n; k++) {
		CHECK(s.steps[k].n > 0);
		for (j = 0; j < s.steps[k].n; j++)
			left[s.steps[k].pairs[j].client][s.steps[k].pairs[j].server]++;
	}
	/* Indexes of the new run: n1 0, n2 1, n3 2, n4 3, n5 4, n9 5. */
	CHECK_INT(left[0][1] + left[1][0] + left[0][4] + left[4][1], 0);
	CHECK_INT(left[0][2] + left[2][0] + left[2][4], 3);
	CHECK_INT(left[3][4] + left[4][3], 2);
	CHECK_INT(left[0][5] + left[5][0] + left[5][4], 3);
	schedule_free(&s);
	resume_free(&rs);
	/* Another cluster's document: fewer than two nodes in common. */
	CHECK_INT(resume_plan(&sv, (char *[]){ "x", "y", "n1" }, 3, &rs), -ENOENT);
	saved_run_free(&sv);
	free(doc);
	linkmap_free(&m);
}

/* The findings' "kind node peer rail" of @m but down_node, one a line. */
static char *finds_of(const struct linkmap *m)
{
	struct buf b = { 0 };
	char line[96];
	size_t i;

	buf_put(&b, "", 0);
	for (i = 0; i < m->nfind; i++) {
		if (m->find[i].kind == FIND_DOWN_NODE)
			continue;
		snprintf(line, sizeof(line), "%s %u %d %d\n", finding_kind_name(m->find[i].kind),
			 m->find[i].node, (int)m->find[i].peer, (int)m->find[i].rail);
		buf_put(&b, line, strlen(line));
	}
	return b.s;
}

/*
 * A save only gains: resumed into a map and stopped before any new result
 * (every node down: no agent joined), the map holds every saved link, the
 * reopened ones too, and finds what the saved run found.
 */
static void stopped_resume_keeps_all(void)
{
	struct linkmap m, m2;
	struct saved_run sv;
	struct resume rs;
	char *doc, err[256], *was, *now;
	uint32_t i;

	six_nodes(&m);
	doc = doc_of(&m, true);
	CHECK_INT(saved_run_read(doc, strlen(doc), &sv, err, sizeof(err)), 0);
	CHECK_INT(resume_plan(&sv, six, 6, &rs), 0);
	CHECK(rs.reopened > 0);
	CHECK_INT(rs.nheld, 6 * 5 * 2);
	linkmap_init(&m2, six, 6, 2, 0.8);
	CHECK_INT(resume_carry(&rs, &m2), 0);
	CHECK_INT(m2.held, 6 * 5 * 2);
	for (i = 0; i < 6; i++)
		CHECK_INT(linkmap_node_down(&m2, i, "its agent did not reach this host"), 0);
	CHECK_INT(linkmap_analyse(&m2), 0);
	was = finds_of(&m);
	now = finds_of(&m2);
	CHECK_STR(now, was);
	CHECK(strstr(was, "failed_link") && strstr(was, "slow_node"));
	free(was);
	free(now);
	resume_free(&rs);
	saved_run_free(&sv);
	free(doc);
	linkmap_free(&m);
	linkmap_free(&m2);
}

/* ---- on the model ---- */

/* Directed links measured, on any rail, between nodes that are not down. */
static size_t measured(const struct linkmap *m)
{
	unsigned char *seen = calloc((size_t)m->nodes * m->nodes * m->rails, 1);
	size_t i, n = 0;

	for (i = 0; i < m->n; i++) {
		const struct link_result *r = &m->res[i];
		unsigned char *x = &seen[((size_t)r->client * m->nodes + r->server) * m->rails + r->rail];

		if (m->down && (m->down[r->client] || m->down[r->server]))
			continue;
		n += !*x;
		*x = 1;
	}
	free(seen);
	return n;
}

/* The findings that count, one "kind node peer rail" a line, and the links measured. */
static char *verdicts(const struct linkmap *m)
{
	struct buf b = { 0 };
	char line[96];
	size_t i;

	snprintf(line, sizeof(line), "%zu links measured\n", measured(m));
	buf_put(&b, line, strlen(line));
	for (i = 0; i < m->nfind; i++) {
		if (!m->find[i].failure)
			continue;
		snprintf(line, sizeof(line), "%s %u %d %d\n", finding_kind_name(m->find[i].kind),
			 m->find[i].node, (int)m->find[i].peer, (int)m->find[i].rail);
		buf_put(&b, line, strlen(line));
	}
	return b.s;
}

/* One whole run of @s on a fresh fabric of @seed: its verdicts. */
static char *whole(uint32_t n, uint64_t seed, char **names, const struct schedule *s)
{
	struct simfabric f;
	struct linkmap m;
	struct stepper sp = { .step = sim_step, .arg = &f, .map = &m };
	size_t rsteps;
	char *v;

	CHECK_INT(sim_init(&f, n, 2, seed, 0.05, s->n), 0);
	linkmap_init(&m, names, n, 2, 0.8);
	CHECK_INT(sim_start(&f, &m), 0);
	CHECK_INT(stepper_run(&sp, s, true, &rsteps), 0);
	CHECK_INT(linkmap_analyse(&m), 0);
	v = verdicts(&m);
	linkmap_free(&m);
	sim_free(&f);
	return v;
}

/*
 * The same fabric, cut after @k steps (no retest: the run was stopped),
 * its document saved, read back and resumed (--from) on the fabric as it
 * is now: the verdicts of the union.  *@tests: what the resumed run's
 * schedule tests.
 */
static char *cut_and_resume(uint32_t n, uint64_t seed, char **names, const struct schedule *s,
			    size_t k, size_t *tests, size_t *carried)
{
	struct schedule cut = { .steps = s->steps, .n = k, .rounds = s->rounds, .nodes = n }, rest;
	struct simfabric f;
	struct linkmap m, m2;
	struct saved_run sv;
	struct resume rs;
	struct stepper sp = { .step = sim_step, .arg = &f, .map = &m };
	size_t rsteps;
	char *doc, err[256], *v;

	CHECK_INT(sim_init(&f, n, 2, seed, 0.05, s->n), 0);
	linkmap_init(&m, names, n, 2, 0.8);
	CHECK_INT(sim_start(&f, &m), 0);
	CHECK_INT(stepper_run(&sp, &cut, false, &rsteps), 0);
	CHECK_INT(linkmap_analyse(&m), 0);
	doc = doc_of(&m, false);
	CHECK_INT(saved_run_read(doc, strlen(doc), &sv, err, sizeof(err)), 0);
	CHECK_INT(resume_plan(&sv, names, n, &rs), 0);
	CHECK_INT(schedule_make(PATTERN_TRIAGE, n, &rest), 0);
	CHECK_INT(resume_filter(&rs, &rest), 0);
	*tests = schedule_tests(&rest, 2);
	*carried = rs.ncarry;
	linkmap_init(&m2, names, n, 2, 0.8);
	CHECK_INT(sim_start(&f, &m2), 0);
	CHECK_INT(resume_carry(&rs, &m2), 0);
	sp.map = &m2;
	CHECK_INT(stepper_run(&sp, &rest, true, &rsteps), 0);
	CHECK_INT(linkmap_analyse(&m2), 0);
	v = verdicts(&m2);
	schedule_free(&rest);
	resume_free(&rs);
	saved_run_free(&sv);
	free(doc);
	linkmap_free(&m);
	linkmap_free(&m2);
	sim_free(&f);
	return v;
}

/*
 * 64 nodes, two rails, the triage pattern, five seeded fault mixes, cut
 * after one step, half of them and all but one: the same findings as the
 * whole run, and the resumed run tests less than the whole schedule.
 */
static void cut_resume_finds_the_same(void)
{
	static char buf[64][8], *names[64];
	uint32_t n = 64;
	struct schedule s;
	unsigned long long seed;
	size_t i, cuts[3], c, tests, carried, all;

	for (i = 0; i < n; i++) {
		snprintf(buf[i], sizeof(buf[i]), "n%02zu", i);
		names[i] = buf[i];
	}
	CHECK_INT(schedule_make(PATTERN_TRIAGE, n, &s), 0);
	all = schedule_tests(&s, 2);
	cuts[0] = 1;
	cuts[1] = s.n / 2;
	cuts[2] = s.n - 1;
	for (seed = 1; seed <= 5; seed++) {
		char *w = whole(n, seed, names, &s);

		CHECK(strstr(w, "slow_node") && strstr(w, "down_node"));
		for (c = 0; c < 3; c++) {
			char *r = cut_and_resume(n, seed, names, &s, cuts[c], &tests, &carried);

			if (strcmp(w, r))
				fprintf(stderr, "  seed %llu, cut after %zu: whole\n%s  resumed\n%s", seed,
					cuts[c], w, r);
			CHECK_STR(w, r);
			CHECK(tests < all);
			CHECK(carried > 0);
			free(r);
		}
		free(w);
	}
	schedule_free(&s);
}

int main(void)
{
	RUN("resume", written_is_printed);
	RUN("resume", read_back);
	RUN("resume", bad_documents);
	RUN("resume", plan_and_filter);
	RUN("resume", stopped_resume_keeps_all);
	RUN("resume", cut_resume_finds_the_same);
	TEST_EXIT();
}
