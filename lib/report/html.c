// SPDX-License-Identifier: MIT
/* The HTML report's page and its doctor section (see html.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <openssl/evp.h>

#include "base/ctx.h"
#include "base/json.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/text.h"
#include "launch/hostlist.h"
#include "doctor/doc.h"
#include "report/html.h"
#include "report/html_probe.h"
#include "report/linkview.h"
#include "report/page.h"
#include "report/section.h"

/* 'sha256-BASE64' of @text, for the policy: only this exact block may run. */
static int csp_hash(const char *text, char *out, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE], b64[EVP_MAX_MD_SIZE * 2];
	unsigned int n = 0;

	if (!EVP_Digest(text, strlen(text), md, &n, EVP_sha256(), NULL))
		return -ENOMEM;
	EVP_EncodeBlock(b64, md, (int)n);
	snprintf(out, len, "'sha256-%s'", b64);
	return 0;
}

static int head(FILE *f)
{
	char sh[160], jh[160];
	int ret = csp_hash(page_style, sh, sizeof(sh)) ?: csp_hash(page_script, jh, sizeof(jh));

	if (ret)
		return ret;
	/* Nothing may be fetched, not even an image: every byte is in the file. */
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src %s; script-src %s; img-src data:; base-uri 'none'; form-action 'none'\">\n"
		"<meta name=\"viewport\" content=\"width=device-width\">\n"
		"<title>rdmactl report</title>\n<style>%s</style>\n</head>\n<body>\n", sh, jh, page_style);
	return 0;
}

static void stamp(FILE *f)
{
	char when[64];
	time_t now = time(NULL);
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime_r(&now, &tm));
	fprintf(f, "<h1>rdmactl report</h1>\n<p class=\"muted\">Written by rdmactl %s on %s.</p>\n",
		RDMACTL_VERSION, when);
}

/* ---- doctor -w ---- */

/* One cell of a list: <td>, @text escaped, </td>. */
static void td(FILE *f, const char *cls, const char *text)
{
	if (cls)
		fprintf(f, "<td class=\"%s\">", cls);
	else
		fputs("<td>", f);
	html_escape(f, text);
	fputs("</td>", f);
}

/* A status as the grid's class and symbol: the symbol says it without colour. */
static void status_cell(FILE *f, const char *status, const char *id, struct json_object *row)
{
	static const struct { const char *cls, *sym; } map[] = {
		[CHECK_OK] = { "st-ok", "&#10003;" }, [CHECK_WARN] = { "st-warn", "!" },
		[CHECK_FAIL] = { "st-fail", "&#10007;" }, [CHECK_SKIP] = { "st-skip", "&#8211;" },
	};
	int s = check_status_parse(status);
	size_t i = s < 0 ? CHECK_SKIP : (size_t)s;

	fprintf(f, "<td class=\"%s\" title=\"", map[i].cls);
	html_escape(f, id);
	fputs(": ", f);
	/* As people read it: FAIL in capitals, whichever spelling the document has. */
	html_escape(f, s < 0 ? status : check_status_text((enum check_status)s));
	fputs("\n", f);
	html_escape(f, jtext(row, DOC_FOUND));
	if (jtext(row, DOC_FIX)) {
		fputs("\nfix: ", f);
		html_escape(f, jtext(row, DOC_FIX));
	}
	fprintf(f, "\">%s</td>", map[i].sym);
}

/* The checks' ids in the order the first nodes ran them. */
static struct json_object *check_ids(struct json_object *nodes)
{
	struct json_object *ids = json_object_new_array(), *seen = json_object_new_object();

	json_object_object_foreach(nodes, name, doc) {
		struct json_object *checks = jget(doc, DOC_CHECKS);
		size_t i;

		(void)name;
		for (i = 0; i < jlen(checks); i++) {
			const char *id = jtext(json_object_array_get_idx(checks, i), DOC_ID);

			if (id && !json_object_object_get_ex(seen, id, NULL)) {
				json_object_object_add(seen, id, NULL);
				json_object_array_add(ids, json_object_new_string(id));
			}
		}
	}
	json_object_put(seen);
	return ids;
}

static struct json_object *check_of(struct json_object *doc, const char *id)
{
	struct json_object *checks = jget(doc, DOC_CHECKS);
	size_t i;

	for (i = 0; i < jlen(checks); i++)
		if (!strcmp(jtext(json_object_array_get_idx(checks, i), DOC_ID) ?: "", id))
			return json_object_array_get_idx(checks, i);
	return NULL;
}

static void grid(FILE *f, struct json_object *doc)
{
	struct json_object *nodes = jget(doc, "nodes"), *un = jget(doc, "unreachable");
	struct json_object *ids = check_ids(nodes);
	size_t i, n = jlen(ids);

	fputs("<h3>Nodes and checks</h3>\n<table class=\"grid\"><thead><tr><th>node</th>", f);
	for (i = 0; i < n; i++) {
		fputs("<th class=\"v\">", f);
		html_escape(f, json_object_get_string(json_object_array_get_idx(ids, i)));
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	json_object_object_foreach(nodes, name, ndoc) {
		fputs("<tr><th>", f);
		html_escape(f, name);
		fputs("</th>", f);
		for (i = 0; i < n; i++) {
			const char *id = json_object_get_string(json_object_array_get_idx(ids, i));
			struct json_object *row = check_of(ndoc, id);

			if (row)
				status_cell(f, jtext(row, DOC_STATUS), id, row);
			else
				fputs("<td class=\"st-skip\" title=\"not run\">&#8211;</td>", f);
		}
		fputs("</tr>\n", f);
	}
	for (i = 0; i < jlen(un); i++) {
		struct json_object *u = json_object_array_get_idx(un, i);

		fputs("<tr class=\"unreach\"><th>", f);
		html_escape(f, jtext(u, "node"));
		fprintf(f, "</th><td class=\"st-unreach\" colspan=\"%zu\">unreachable: ", n ? n : 1);
		html_escape(f, jtext(u, "error"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n<p class=\"legend\"><span class=\"st-ok\">&#10003;</span>ok"
	      "<span class=\"st-warn\">!</span>warn<span class=\"st-fail\">&#10007;</span>fail"
	      "<span class=\"st-skip\">&#8211;</span>skip<span class=\"st-unreach\"></span>unreachable"
	      "</p>\n", f);
	json_object_put(ids);
}

static void failures(FILE *f, struct json_object *doc)
{
	struct json_object *checks = jget(doc, DOC_CHECKS);
	size_t i, shown = 0;

	for (i = 0; i < jlen(checks); i++) {
		struct json_object *c = json_object_array_get_idx(checks, i);
		int st = check_status_parse(jtext(c, DOC_STATUS));

		if (st != CHECK_FAIL && st != CHECK_WARN)
			continue;
		if (!shown++)
			fputs("<h3>Failures and warnings, with their fixes</h3>\n<table class=\"list\">"
			      "<tr><th>status</th><th>check</th><th>nodes</th><th>found</th>"
			      "<th>fix</th></tr>\n", f);
		fprintf(f, "<tr class=\"%s\">", check_status_str((enum check_status)st));
		td(f, NULL, check_status_text((enum check_status)st));
		td(f, NULL, jtext(c, DOC_ID));
		td(f, NULL, jtext(c, "nodes"));
		td(f, NULL, jtext(c, DOC_FOUND));
		td(f, "fix", jtext(c, DOC_FIX));
		fputs("</tr>\n", f);
	}
	if (shown)
		fputs("</table>\n", f);
	else
		fputs("<p>No check failed or warned on any node that answered.</p>\n", f);
}

static void drift(FILE *f, struct json_object *doc)
{
	struct json_object *arr = jget(doc, "drift");
	size_t i, k;

	if (!jlen(arr)) {
		fputs("<h3>Drift</h3>\n<p>The nodes that answered agree on every fact compared.</p>\n",
		      f);
		return;
	}
	fputs("<h3>Drift: facts that differ from the majority</h3>\n<table class=\"list\"><tr>"
	      "<th>fact</th><th>majority</th><th>on</th><th>differs</th><th>fix</th></tr>\n", f);
	for (i = 0; i < jlen(arr); i++) {
		struct json_object *d = json_object_array_get_idx(arr, i), *diff = jget(d, "differs");

		fputs("<tr>", f);
		td(f, NULL, jtext(d, "fact"));
		td(f, NULL, jtext(d, "majority_nodes") ? jtext(d, "majority") ?: "(none)" : "(no majority)");
		td(f, NULL, jtext(d, "majority_nodes"));
		fputs("<td>", f);
		for (k = 0; k < jlen(diff); k++) {
			struct json_object *x = json_object_array_get_idx(diff, k);

			fputs(k ? "<br>" : "", f);
			html_escape(f, jtext(x, "value") ?: "(none)");
			fputs(" on ", f);
			html_escape(f, jtext(x, "nodes"));
		}
		/* Nodes that could not read the fact: no value of theirs, no fix. */
		if (jget(d, "not_read")) {
			fputs(k ? "<br>" : "", f);
			fputs("not read on ", f);
			html_escape(f, jtext(jget(d, "not_read"), "nodes"));
		}
		fputs("</td>", f);
		td(f, "fix", jtext(d, "fix"));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void unreachable(FILE *f, struct json_object *doc)
{
	struct json_object *arr = jget(doc, "unreachable");
	size_t i;

	if (!jlen(arr))
		return;
	fputs("<h3>Nodes not reached</h3>\n<table class=\"list\"><tr><th>node</th><th>why</th>"
	      "</tr>\n", f);
	for (i = 0; i < jlen(arr); i++) {
		struct json_object *u = json_object_array_get_idx(arr, i);

		fputs("<tr>", f);
		td(f, NULL, jtext(u, "node"));
		td(f, NULL, jtext(u, "error"));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The nodes the drift table names as differing, as a set (keys); NULL when out of memory. */
static struct json_object *drift_odd(struct json_object *doc)
{
	struct json_object *arr = jget(doc, "drift"), *set = json_object_new_object();
	size_t i, k, j;

	for (i = 0; set && i < jlen(arr); i++) {
		struct json_object *diff = jget(json_object_array_get_idx(arr, i), "differs");

		for (k = 0; k < jlen(diff); k++) {
			const char *list = jtext(json_object_array_get_idx(diff, k), "nodes");
			struct hostlist hl;
			char err[256];

			if (!list)
				continue;
			hostlist_init(&hl);
			if (hostlist_parse(&hl, list, err, sizeof(err))) {
				hostlist_free(&hl);
				continue;
			}
			for (j = 0; j < hl.n; j++)
				json_object_object_add(set, hl.names[j], NULL);
			hostlist_free(&hl);
		}
	}
	return set;
}

/*
 * The heading's counts, from what the page draws (each node's checks, the
 * drift rows and the unreachable rows), not from the document's summary:
 * an edited summary must not say "0 failed" over a grid of failures.  A
 * node is failed by a failed check, else warned by a warning or drift.
 */
static void doctor_counts(FILE *f, struct json_object *doc)
{
	struct json_object *nodes = jget(doc, "nodes"), *odd = drift_odd(doc);
	size_t failed = 0, warned = 0, n = 0, un = jlen(jget(doc, "unreachable")), i;

	json_object_object_foreach(nodes, name, ndoc) {
		struct json_object *checks = jget(ndoc, DOC_CHECKS);
		bool fail = false, warn = false;

		n++;
		for (i = 0; i < jlen(checks); i++) {
			/* Either spelling: an older node's document says "FAIL". */
			int st = check_status_parse(jtext(json_object_array_get_idx(checks, i), DOC_STATUS));

			fail |= st == CHECK_FAIL;
			warn |= st == CHECK_WARN;
		}
		failed += fail;
		warned += !fail && (warn || (odd && json_object_object_get_ex(odd, name, NULL)));
	}
	json_object_put(odd);
	fprintf(f, "%zu nodes: %zu failed, %zu warned, %zu unreachable</h2>\n", n + un, failed, warned,
		un);
}

static void doctor_section(FILE *f, struct json_object *doc, size_t idx, const char *src)
{
	fprintf(f, "<section class=\"doctor\" id=\"doctor-%zu\">\n<h2>doctor -w: ", idx);
	doctor_counts(f, doc);
	html_provenance(f, jget(doc, "run"), NULL, src);
	grid(f, doc);
	failures(f, doc);
	drift(f, doc);
	unreachable(f, doc);
	fputs("</section>\n", f);
}

int html_report(FILE *f, const struct html_runs *runs)
{
	size_t i;
	int ret = head(f);

	if (ret)
		return ret;
	stamp(f);
	for (i = 0; i < runs->ndoctor; i++)
		doctor_section(f, runs->doctor[i], i, runs->doctor_src ? runs->doctor_src[i] : NULL);
	for (i = 0; !ret && i < runs->nprobe; i++)
		ret = html_probe(f, runs->probe[i], i, runs->probe_src ? runs->probe_src[i] : NULL);
	fputs("<div id=\"tip\"></div>\n", f);
	fprintf(f, "<script>%s</script>\n</body></html>\n", page_script);
	if (!ret && (fflush(f) || ferror(f)))
		ret = -EIO;
	return ret;
}

int html_write(const struct ctx *ctx, struct outfile *of, const struct html_runs *runs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int ret;

	/* Rendered whole first: a failed render leaves no half page behind. */
	if (!(mem = open_memstream(&buf, &len))) {
		ret = -ENOMEM;
	} else {
		ret = html_report(mem, runs);
		if (fclose(mem) && !ret)
			ret = -ENOMEM;
	}
	if (ret) {
		outfile_fail(ctx, of, ret);
		free(buf);
		return ret;
	}
	ret = outfile_write(of, buf, len);
	free(buf);
	if (ret) {
		outfile_fail(ctx, of, ret);
		return ret;
	}
	return outfile_commit(ctx, of);
}

static int said(const struct ctx *ctx, const struct outfile *of, int ret)
{
	char safe[1024];

	if (!ret && !outfile_is_stdout(of))
		fprintf(stderr, "rdmactl %s: wrote the report to %s\n", ctx->cmd,
			text_safe(of->path, safe, sizeof(safe), 0));
	return ret;
}

int html_write_probe(const struct ctx *ctx, struct outfile *of, const struct linkmap *m,
		     struct json_object *run)
{
	struct linkview v;
	const struct linkview *pv[1] = { &v };
	struct html_runs runs = { .probe = pv, .nprobe = 1 };
	int ret = linkview_from_map(&v, m, run);

	if (ret) {
		outfile_fail(ctx, of, ret);
		linkview_free(&v);
		return ret;
	}
	ret = html_write(ctx, of, &runs);
	linkview_free(&v);
	return said(ctx, of, ret);
}

int html_write_doctor(const struct ctx *ctx, struct outfile *of, struct json_object *doc)
{
	struct html_runs runs = { .doctor = &doc, .ndoctor = 1 };

	if (!doc) {
		outfile_fail(ctx, of, -ENOMEM);
		return -ENOMEM;
	}
	return said(ctx, of, html_write(ctx, of, &runs));
}
