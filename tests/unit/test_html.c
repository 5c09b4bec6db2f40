// SPDX-License-Identifier: MIT
/*
 * report/html and report/linkview: the one escaper, a saved probe -w
 * document read back a link at a time (and refused, by name, when it is
 * not one), and the page drawn from it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "mesh/linkmap.h"
#include "report/html.h"
#include "report/linkview.h"
#include "test.h"

/* html_escape(@s) as a string (static buffer). */
static const char *esc(const char *s)
{
	static char out[1024];
	FILE *f = fmemopen(out, sizeof(out), "w");

	out[0] = '\0';
	html_escape(f, s);
	fclose(f);
	return out;
}

static void markup_is_text(void)
{
	CHECK_STR(esc("lab-a"), "lab-a");
	CHECK_STR(esc("Grüße"), "Grüße");
	CHECK_STR(esc("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
	CHECK_STR(esc("n<img src=x onerror=alert(1)>"), "n&lt;img src=x onerror=alert(1)&gt;");
	/* Out of an attribute, either quote. */
	CHECK_STR(esc("\" onmouseover='x'"), "&quot; onmouseover=&#39;x&#39;");
	CHECK_STR(esc("a&amp;b"), "a&amp;amp;b");
	CHECK_STR(esc(""), "");
	CHECK_STR(esc(NULL), "");
}

static void escapes_and_bad_utf8_are_shown(void)
{
	/* The hostile tree's firmware string: shown, not obeyed. */
	CHECK_STR(esc("1.0\033]0;pwned\007\033[2J\r    ok"), "1.0\\x1b]0;pwned\\x07\\x1b[2J\\x0d    ok");
	CHECK_STR(esc("bad\xff<"), "bad\\xff&lt;");
	CHECK_STR(esc("a\0b"), "a");
}

/* Four nodes as probe -w writes them (pretty, as -p would): a blocked node, a retest. */
static const char doc4[] =
	"{ \"run\": { \"launcher\": \"ssh\", \"nodes\": 4, \"rails\": 1,\n"
	"  \"names\": [\"lab-a\", \"lab-b\", \"lab-c\", \"lab-<d>\"] },\n"
	"  \"median_gbps\": 97.10, \"median_lat_us\": 2.00, \"slow\": 0.80,\n"
	"  \"links\": [\n"
	"   {\"client\":\"lab-a\",\"server\":\"lab-c\",\"rail\":0,\"round\":1,\"ok\":true,\"gbps\":97.1,"
	"\"lat_us\":2.0,\"cause\":null,\"why\":null,\"counters\":{\"retrans\":0,\"seq_err\":0,\"cnp\":0},"
	"\"dev\":\"mlx5_0/1\"},\n"
	"   {\"client\":\"lab-c\",\"server\":\"lab-a\",\"rail\":0,\"round\":1,\"ok\":true,\"gbps\":24.2,"
	"\"lat_us\":8.0,\"counters\":{\"retrans\":1200,\"seq_err\":3,\"cnp\":0}},\n"
	"   {\"client\":\"lab-b\",\"server\":\"lab-<d>\",\"rail\":0,\"round\":1,\"ok\":false,\"gbps\":null,"
	"\"lat_us\":null,\"cause\":\"roce_blocked\",\"why\":\"UDP 4791 </script> dropped\"},\n"
	"   {\"client\":\"lab-c\",\"server\":\"lab-a\",\"rail\":0,\"round\":0,\"ok\":true,\"gbps\":96.0,"
	"\"lat_us\":2.1}\n"
	"  ],\n"
	"  \"findings\": [ {\"kind\":\"failed_link\",\"failure\":true,\"node\":\"lab-b\","
	"\"peer\":\"lab-<d>\",\"rail\":null,\"text\":\"lab-b -> lab-<d> failed\"} ],\n"
	"  \"summary\": {\"nodes\": 4} }\n";

static void probe_document_is_read(void)
{
	struct json_object *doc = NULL;
	struct linkview v;
	char err[256];

	CHECK_INT(linkview_read(&v, &doc, doc4, strlen(doc4), err, sizeof(err)), 0);
	CHECK_INT(v.n, 4);
	CHECK_INT(v.rails, 1);
	CHECK_STR(v.names[3], "lab-<d>");
	CHECK_INT(lv_cell(&v, 0, 0, 2)->state, LV_OK);
	/* The retest (round 0) replaced lab-c -> lab-a, counters and all. */
	CHECK(lv_cell(&v, 0, 2, 0)->gbps > 95);
	CHECK_INT(lv_cell(&v, 0, 2, 0)->retrans, 0);
	CHECK_INT(lv_cell(&v, 0, 1, 3)->state, LV_FAILED);
	CHECK_STR(lv_cell(&v, 0, 1, 3)->why, "roce_blocked: UDP 4791 </script> dropped");
	CHECK_INT(lv_cell(&v, 0, 3, 1)->state, LV_NONE);
	CHECK_INT(v.nfind, 1);
	CHECK_INT(v.find[0].node, 1);
	CHECK_INT(v.find[0].peer, 3);
	/* The links were not kept in the document: they are the view's. */
	CHECK(!json_object_object_get_ex(doc, "links", NULL));
	CHECK(json_object_object_get_ex(doc, "summary", NULL));
	linkview_free(&v);
	json_object_put(doc);
}

/* @text is refused with @want in the error. */
static void refused(const char *text, const char *want)
{
	struct json_object *doc = (struct json_object *)1;
	struct linkview v;
	char err[256];

	CHECK_INT(linkview_read(&v, &doc, text, strlen(text), err, sizeof(err)), -EINVAL);
	CHECK(doc == NULL);
	if (!strstr(err, want))
		fprintf(stderr, "  error '%s' lacks '%s'\n", err, want), test_failed++;
}

static void bad_documents_are_named(void)
{
	refused("", "not a JSON object");
	refused("[1,2]", "not a JSON object");
	refused("{\"links\": 5, \"findings\": []}", "links: not an array");
	refused("{\"links\": [{\"server\": \"b\"}], \"findings\": []}", "links[0]: no client");
	refused("{\"links\": [{\"client\": \"a\", \"server\": \"a\"}], \"findings\": []}",
		"links[0]: client and server are both 'a'");
	refused("{\"links\": [{\"client\": \"a\", \"server\": \"b\", \"rail\": 99}], \"findings\": []}",
		"rail 99");
	refused("{\"links\": [], \"findings\": [{\"node\": \"a\"}], \"x\": [1,", "the document ends early");
	refused("{\"links\": [{\"client\": \"a\", \"server\": \"b\"}], \"findings\": []} junk",
		"text after the document");
	refused("{\"links\": [], \"findings\": []}", "fewer than two nodes");
}

/* A doctor document is read whole, with no picture of links; so is one with links but no findings. */
static void other_documents_pass_through(void)
{
	static const char doctor[] = "{\"nodes\": {\"a\": {\"checks\": []}}, \"checks\": []}";
	static const char nofind[] = "{\"links\": [{\"client\": \"a\", \"server\": \"b\"}]}";
	struct json_object *doc = NULL;
	struct linkview v;
	char err[256];

	CHECK_INT(linkview_read(&v, &doc, doctor, strlen(doctor), err, sizeof(err)), 0);
	CHECK_INT(v.n, 0);
	CHECK(json_object_object_get_ex(doc, "nodes", NULL));
	json_object_put(doc);
	CHECK_INT(linkview_read(&v, &doc, nofind, strlen(nofind), err, sizeof(err)), 0);
	CHECK_INT(v.n, 0);
	json_object_put(doc);
}

static void page_has_cells_and_no_markup_from_nodes(void)
{
	struct json_object *doc = NULL;
	struct linkview v;
	const struct linkview *pv[1] = { &v };
	struct html_runs runs = { .probe = pv, .nprobe = 1 };
	char err[256], *page = NULL;
	size_t len = 0;
	FILE *f;

	CHECK_INT(linkview_read(&v, &doc, doc4, strlen(doc4), err, sizeof(err)), 0);
	f = open_memstream(&page, &len);
	CHECK_INT(html_report(f, &runs), 0);
	fclose(f);
	CHECK(strstr(page, "Content-Security-Policy\" content=\"default-src 'none'"));
	/* 16 cells: 4 itself, 3 measured, 1 failed, the rest not tested. */
	CHECK(strstr(page, "<td class=\"q9\" title=\"lab-a &#8594; lab-c: 97.10 Gb/s"));
	CHECK(strstr(page, "<td class=\"fail hl\" title=\"lab-b &#8594; lab-&lt;d&gt;: failed: "
			   "roce_blocked: UDP 4791 &lt;/script&gt; dropped"));
	CHECK(!strstr(page, "<d>"));
	CHECK(!strstr(page, "</script> dropped"));
	CHECK(!strstr(page, "http:") && !strstr(page, "https:") && !strstr(page, " src="));
	free(page);
	linkview_free(&v);
	json_object_put(doc);
}

/* The page of @v, without its "Written ... on DATE" line; to free. */
static char *page_of(const struct linkview *v)
{
	const struct linkview *pv[1] = { v };
	struct html_runs runs = { .probe = pv, .nprobe = 1 };
	char *page = NULL, *stamp, *end;
	size_t len = 0;
	FILE *f = open_memstream(&page, &len);

	CHECK_INT(html_report(f, &runs), 0);
	fclose(f);
	if ((stamp = strstr(page, "<p class=\"muted\">Written by")) && (end = strchr(stamp, '\n')))
		memmove(stamp, end, strlen(end) + 1);
	return page;
}

/*
 * probe -w --html draws the run's link map; rdmactl report reads the
 * document the same run printed: one page either way.
 */
static void map_and_document_make_one_page(void)
{
	static char *names[] = { "lab-a", "lab-b", "lab-c", "lab-d" };
	struct ctx ctx = { .root = "", .json = true };
	struct json_object *run = json_object_new_object(), *list = json_object_new_array(), *doc;
	struct linkview fromap, fromdoc;
	struct linkmap m;
	char err[256], *a, *b;
	const char *text;
	uint32_t c, s;

	linkmap_init(&m, names, 4, 1, 0.8);
	for (c = 0; c < 4; c++)
		for (s = 0; s < 4; s++) {
			struct link_result r = { .client = c, .server = s, .round = 1, .ok = true,
						 .gbps = c == 2 || s == 2 ? 24.5 : 97.25, .lat_us = 2.5,
						 .retrans = c == 2 ? 1500 : 0 };

			if (c == s)
				continue;
			if (c == 1 && s == 3) {
				r.ok = false;
				r.cause = CAUSE_ROCE_BLOCKED;
				r.lat_us = -1;
				snprintf(r.why, sizeof(r.why), "RDMA lost, TCP fine");
			}
			CHECK_INT(linkmap_add(&m, &r), 0);
		}
	CHECK_INT(linkmap_analyse(&m), 0);
	for (c = 0; c < 4; c++)
		json_object_array_add(list, json_object_new_string(names[c]));
	json_object_object_add(run, "names", list);
	json_object_object_add(run, "launcher", json_object_new_string("ssh"));
	ctx.jroot = json_object_new_object();
	json_object_object_add(ctx.jroot, "run", json_object_get(run));
	CHECK_INT(linkmap_print(&ctx, &m), 1);
	text = json_object_to_json_string_ext(ctx.jroot, JSON_C_TO_STRING_PRETTY);
	CHECK_INT(linkview_read(&fromdoc, &doc, text, strlen(text), err, sizeof(err)), 0);
	CHECK_INT(linkview_from_map(&fromap, &m, run), 0);
	a = page_of(&fromap);
	b = page_of(&fromdoc);
	CHECK_STR(a, b);
	CHECK(strstr(a, "<td class=\"q2 slow hl\" title=\"lab-c &#8594; lab-a: 24.50 Gb/s"));
	CHECK(strstr(a, "counters: retrans 1500, seq_err 0, cnp 0"));
	free(a);
	free(b);
	linkview_free(&fromap);
	linkview_free(&fromdoc);
	json_object_put(doc);
	json_object_put(ctx.jroot);
	json_object_put(run);
	linkmap_free(&m);
}

int main(void)
{
	RUN("html", markup_is_text);
	RUN("html", escapes_and_bad_utf8_are_shown);
	RUN("html", probe_document_is_read);
	RUN("html", bad_documents_are_named);
	RUN("html", other_documents_pass_through);
	RUN("html", page_has_cells_and_no_markup_from_nodes);
	RUN("html", map_and_document_make_one_page);
	TEST_EXIT();
}
