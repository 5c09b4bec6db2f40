// SPDX-License-Identifier: MIT
/*
 * The doctor's document read back as written (doctor/doc.h): a node's
 * checks run by the doctor's own writer on a recorded node, the document
 * built as `doctor -j` builds it, then read by fleet's reader (a node's
 * output fed line by line, the cluster document made from it) and by the
 * page's reader (the HTML report of that cluster document).  Every key of
 * every row must come back with the value written, and the page must show
 * every check's status, ID, finding and fix.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/output.h"
#include "doctor/doc.h"
#include "doctor/doctor.h"
#include "fleet/fleet.h"
#include "fleet/summary.h"
#include "node/nodeinfo.h"
#include "node/rdma.h"
#include "node/rdma_load.h"
#include "report/html.h"
#include "test.h"

static struct ctx ctx;

/* A node's document as `rdmactl -j doctor` writes it, for the recorded node @fixture. */
static struct json_object *written(const char *fixture, struct doctor_counts *counts)
{
	static char path[4096];
	const char *dir = getenv("FIXTURES");
	struct node_facts d = { 0 };
	bool sel[64] = { 0 };
	struct table *t;
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/fixtures", fixture);
	memset(&ctx, 0, sizeof(ctx));
	ctx.cmd = "doctor";
	ctx.root = path;
	ctx.json = true;
	ctx.jroot = json_object_new_object();
	d.ctx = &ctx;
	d.node_err = rdma_node_load(&ctx, &d.node, RDMA_LOAD_GIDS);
	for (i = 0; i < doctor_count(); i++)
		sel[i] = true;
	t = table_new(doc_check_cols);
	if (!t || !ctx.jroot)
		abort();
	doctor_run(&d, sel, t, counts);
	table_emit(&ctx, t, DOC_CHECKS);
	json_attach(&ctx, DOC_SUMMARY, doc_summary_json(counts->n, counts->problems));
	json_attach(&ctx, DOC_NODE, node_facts_json(&ctx, d.node_err ? NULL : &d.node, NODE_FACTS_FULL));
	doctor_peer_free(&d);
	doctor_free(&d);
	rdma_node_free(&d.node);
	return ctx.jroot;
}

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* Row @i of @doc's checks. */
static struct json_object *row_of(struct json_object *doc, size_t i)
{
	struct json_object *checks;

	if (!json_object_object_get_ex(doc, DOC_CHECKS, &checks))
		return NULL;
	return json_object_array_get_idx(checks, i);
}

/* The row of check @id in @doc's checks, or NULL. */
static struct json_object *row_with(struct json_object *doc, const char *id)
{
	struct json_object *r;
	size_t i;

	for (i = 0; (r = row_of(doc, i)); i++)
		if (str_of(r, DOC_ID) && !strcmp(str_of(r, DOC_ID), id))
			return r;
	return NULL;
}

/* The row keys, in doc_check_cols[]'s order, and a status of each kind in the run. */
static void rows_are_written_in_order(void)
{
	struct doctor_counts c;
	struct json_object *doc = written("doctor-broken", &c), *r;
	const char *order[] = { DOC_STATUS, DOC_ID, DOC_FOUND, DOC_FIX };
	size_t i, k, n[CHECK_SKIP + 1] = { 0 };

	CHECK(row_of(doc, 0) != NULL);
	for (i = 0; (r = row_of(doc, i)); i++) {
		struct json_object_iterator it = json_object_iter_begin(r), end = json_object_iter_end(r);
		int s = check_status_parse(str_of(r, DOC_STATUS));

		for (k = 0; k < 4 && !json_object_iter_equal(&it, &end); k++, json_object_iter_next(&it)) {
			CHECK_STR(json_object_iter_peek_name(&it), order[k]);
			CHECK_STR(doc_check_cols[k].key, order[k]);
		}
		CHECK_INT(k, 4);
		CHECK(s >= 0);
		if (s >= 0)
			n[s]++;
		/* Written as JSON spells it: lowercase. */
		if (s >= 0)
			CHECK_STR(str_of(r, DOC_STATUS), check_status_str((enum check_status)s));
	}
	CHECK_INT(i, doctor_count());
	for (k = 0; k <= CHECK_SKIP; k++)
		CHECK_INT(n[k], c.n[k]);
	/* The broken node fails something and skips the peer. */
	CHECK(n[CHECK_FAIL] > 0);
	CHECK(n[CHECK_SKIP] > 0);
	CHECK_STR(str_of(row_with(doc, "peer"), DOC_STATUS), check_status_str(CHECK_SKIP));
	json_object_put(doc);
}

static void summary_counts_by_status(void)
{
	int n[CHECK_SKIP + 1] = { [CHECK_OK] = 3, [CHECK_WARN] = 2, [CHECK_FAIL] = 1, [CHECK_SKIP] = 4 };
	struct json_object *s = doc_summary_json(n, "mtu, memlock.login"), *v;

	CHECK_STR(json_object_to_json_string_ext(s, JSON_C_TO_STRING_PLAIN),
		  "{\"failed\":1,\"warnings\":2,\"ok\":3,\"skipped\":4,"
		  "\"problems\":[\"mtu\",\"memlock.login\"]}");
	CHECK(json_object_object_get_ex(s, DOC_PROBLEMS, &v) && json_object_array_length(v) == 2);
	json_object_put(s);
	CHECK_STR(check_status_list(), "ok, warn, fail, skip");
}

/* Every key of every row of @a found in @b with the same value (null as null). */
static void same_rows(struct json_object *a, struct json_object *b)
{
	const char *keys[] = { DOC_STATUS, DOC_ID, DOC_FOUND, DOC_FIX };
	struct json_object *r, *x;
	size_t i, k;

	for (i = 0; (r = row_of(a, i)); i++) {
		x = row_with(b, str_of(r, DOC_ID));
		CHECK(x != NULL);
		if (!x)
			continue;
		for (k = 0; k < 4; k++) {
			const char *want = str_of(r, keys[k]), *got = str_of(x, keys[k]);

			if (want || got)
				CHECK_STR(got, want);
		}
	}
}

/* True when @page holds @text as html_escape() writes it. */
static bool shows(const char *page, const char *text)
{
	char *esc = NULL;
	size_t len = 0;
	bool found;
	FILE *f = open_memstream(&esc, &len);

	html_escape(f, text);
	fclose(f);
	found = esc && *esc && strstr(page, esc);
	if (!found)
		fprintf(stderr, "  the page does not show '%s'\n", esc ? esc : "");
	free(esc);
	return found;
}

/*
 * Fleet reads the node's output line by line, as a launcher feeds it, and
 * keeps it whole; the cluster document it makes gives each check's
 * status, ID, finding and fix as the node wrote them; the page shows them.
 */
static void fleet_and_page_read_what_was_written(void)
{
	struct doctor_counts c;
	struct json_object *doc = written("doctor-broken", &c), *back, *cluster, *nodes, *r;
	const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY);
	char *copy = strdup(text), *line, *save = NULL, err[256], *page = NULL;
	struct html_runs runs = { 0 };
	struct fleet fleet;
	size_t len = 0, i;
	FILE *f;

	fleet_init(&fleet);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		CHECK_INT(fleet_feed_line(&fleet, "lab-a", line), 0);
	free(copy);
	CHECK_INT(fleet_finish(&fleet, err, sizeof(err)), 0);
	CHECK_INT(fleet.n, 1);
	CHECK(fleet.n == 1 && fleet.nodes[0]->doc && !fleet.nodes[0]->error);
	if (fleet.n != 1 || !fleet.nodes[0]->doc)
		goto out;
	back = fleet_doc(fleet.nodes[0]);
	same_rows(doc, back);
	same_rows(back, doc);
	CHECK(json_object_object_get_ex(back, DOC_NODE, NULL));
	json_object_put(back);

	cluster = fleet_summary_doc(&ctx, &fleet);
	CHECK(cluster != NULL);
	if (!cluster)
		goto out;
	/* Its node's own document, and the cluster's rows of this one node. */
	CHECK(json_object_object_get_ex(cluster, "nodes", &nodes) &&
	      json_object_object_get_ex(nodes, "lab-a", &back));
	same_rows(doc, back);
	for (i = 0; (r = row_of(doc, i)); i++) {
		struct json_object *x = row_with(cluster, str_of(r, DOC_ID));

		CHECK(x != NULL);
		CHECK_STR(str_of(x, DOC_STATUS), str_of(r, DOC_STATUS));
		CHECK_STR(str_of(x, DOC_FOUND), str_of(r, DOC_FOUND));
		if (str_of(r, DOC_FIX))
			CHECK_STR(str_of(x, DOC_FIX), str_of(r, DOC_FIX));
	}

	runs.doctor = &cluster;
	runs.ndoctor = 1;
	f = open_memstream(&page, &len);
	CHECK_INT(html_report(f, &runs), 0);
	fclose(f);
	for (i = 0; (r = row_of(doc, i)); i++) {
		int s = check_status_parse(str_of(r, DOC_STATUS));
		char cell[256];

		/* The grid's cell: its class from the status, its title the ID and status. */
		snprintf(cell, sizeof(cell), "<td class=\"st-%s\" title=\"%s: %s", str_of(r, DOC_STATUS),
			 str_of(r, DOC_ID), check_status_text((enum check_status)s));
		CHECK(strstr(page, cell) != NULL);
		if (!strstr(page, cell))
			fprintf(stderr, "  no %s\n", cell);
		/* What was found, and the fix, as the page escapes them. */
		CHECK(shows(page, str_of(r, DOC_FOUND)));
		if (str_of(r, DOC_FIX))
			CHECK(shows(page, str_of(r, DOC_FIX)));
		/* Failures and warnings listed with their fixes. */
		if (s == CHECK_FAIL || s == CHECK_WARN) {
			snprintf(cell, sizeof(cell), "<tr class=\"%s\"><td>%s</td><td>%s</td>",
				 str_of(r, DOC_STATUS), check_status_text((enum check_status)s),
				 str_of(r, DOC_ID));
			CHECK(strstr(page, cell) != NULL);
			if (!strstr(page, cell))
				fprintf(stderr, "  no %s\n", cell);
		}
	}
	free(page);
	json_object_put(cluster);
out:
	fleet_free(&fleet);
	json_object_put(doc);
}

int main(void)
{
	RUN("test_doc", rows_are_written_in_order);
	RUN("test_doc", summary_counts_by_status);
	RUN("test_doc", fleet_and_page_read_what_was_written);
	TEST_EXIT();
}
