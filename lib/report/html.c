// SPDX-License-Identifier: MIT
/* The HTML report's page, its escaper and the doctor section (see html.h). */
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
#include "base/log.h"
#include "base/outfile.h"
#include "base/text.h"
#include "launch/hostlist.h"
#include "doctor/doc.h"
#include "report/html.h"
#include "report/linkview.h"

void html_escape(FILE *f, const char *s)
{
	size_t len;
	char *safe;
	const char *c;

	if (!s)
		return;
	len = strlen(s) * 4 + 1;
	safe = malloc(len);
	if (!safe) {
		fputs("?", f);
		return;
	}
	text_safe(s, safe, len, 0);
	for (c = safe; *c; c++) {
		switch (*c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*c, f);
		}
	}
	free(safe);
}

/*
 * Colours: viridis in ten steps (q0 darkest, a link far under the
 * median, to q9, at the median), readable with any colour vision and in
 * grey; failed cells are hatched and carry a cross, untested ones a dot.
 */
static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#111;background:#fff}"
	"h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #999;margin-top:1.5em}"
	"h3{font-size:1.05em}"
	"table{border-collapse:collapse}td,th{padding:2px 6px;text-align:left;vertical-align:top}"
	"table.list td,table.list th{border-bottom:1px solid #ddd}"
	"dl.facts{display:grid;grid-template-columns:repeat(4,max-content minmax(7em,auto));gap:0 1em}"
	"dl.facts dt{font-weight:bold}dl.facts dd{margin:0}"
	"code,.fix{font-family:ui-monospace,monospace;font-size:.92em}"
	".grid td{text-align:center;min-width:1.6em;border:1px solid #fff}"
	".grid th.v,.hm th.v{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal;"
	"white-space:nowrap;padding:2px 0}"
	".st-ok{background:#cfe8cf}.st-warn{background:#fde725}.st-fail{background:#440154;color:#fff}"
	".st-skip{background:#eee;color:#666}.st-unreach{background:repeating-linear-gradient(45deg,"
	"#bbb 0 3px,#fff 3px 6px)}"
	".hm{font-size:11px}.hm td{width:12px;height:12px;padding:0;border:1px solid #fff;"
	"text-align:center;line-height:12px}.hm th{font-weight:normal;padding:0 4px;white-space:nowrap}"
	".q0{background:#440154}.q1{background:#482878}.q2{background:#3e4989}.q3{background:#31688e}"
	".q4{background:#26828e}.q5{background:#1f9e89}.q6{background:#35b779}.q7{background:#6ece58}"
	".q8{background:#b5de2b}.q9{background:#fde725}"
	".q0,.q1,.q2,.q3,.q4{color:#fff}"
	".hm.wide td{width:3.2em;height:1.8em;line-height:1.8em;font-size:12px}"
	".hm .fail,.legend .fail{background:repeating-linear-gradient(45deg,#d62728 0 2px,#fff 2px 4px);"
	"color:#000;font-weight:bold}"
	".hm .none,.legend .none{background:#f4f4f4;color:#999}.hm .self{background:#fff}"
	".hm .down,.legend .down{background:repeating-linear-gradient(-45deg,#888 0 2px,#fff 2px 4px)}"
	"td.hl{outline:2px solid #000;outline-offset:-2px}"
	"li.fail{color:#000}li.fail b{color:#a00}li.warn b{color:#7a5c00}"
	".legend span{display:inline-block;width:1.2em;height:1.2em;vertical-align:middle;"
	"margin:0 .2em 0 .8em;text-align:center;line-height:1.2em;font-size:11px}"
	"canvas.big{image-rendering:pixelated;width:min(100%,900px);border:1px solid #999}"
	"#tip{position:fixed;display:none;background:#ffe;border:1px solid #999;padding:4px 6px;"
	"white-space:pre;font-size:12px;pointer-events:none}"
	".muted{color:#555}"
	".prov span{margin-right:1.2em;color:#333}"
	".banner{border:2px solid #b00;background:#fff3f3;padding:.4em .6em;font-weight:bold}"
	"@media print{body{margin:0;font-size:10pt}h2{break-before:auto}table,canvas{break-inside:avoid}"
	"*{-webkit-print-color-adjust:exact;print-color-adjust:exact}#tip{display:none}"
	"canvas.big{width:100%}}";

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
	int ret = csp_hash(style, sh, sizeof(sh)) ?: csp_hash(html_probe_script, jh, sizeof(jh));

	if (ret)
		return ret;
	/* Nothing may be fetched, not even an image: every byte is in the file. */
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src %s; script-src %s; img-src data:; base-uri 'none'; form-action 'none'\">\n"
		"<meta name=\"viewport\" content=\"width=device-width\">\n"
		"<title>rdmactl report</title>\n<style>%s</style>\n</head>\n<body>\n", sh, jh, style);
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

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : NULL;
}

static struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static size_t jlen(struct json_object *arr)
{
	return json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
}

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
	html_escape(f, jstr(row, DOC_FOUND));
	if (jstr(row, DOC_FIX)) {
		fputs("\nfix: ", f);
		html_escape(f, jstr(row, DOC_FIX));
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
			const char *id = jstr(json_object_array_get_idx(checks, i), DOC_ID);

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
		if (!strcmp(jstr(json_object_array_get_idx(checks, i), DOC_ID) ?: "", id))
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
				status_cell(f, jstr(row, DOC_STATUS), id, row);
			else
				fputs("<td class=\"st-skip\" title=\"not run\">&#8211;</td>", f);
		}
		fputs("</tr>\n", f);
	}
	for (i = 0; i < jlen(un); i++) {
		struct json_object *u = json_object_array_get_idx(un, i);

		fputs("<tr class=\"unreach\"><th>", f);
		html_escape(f, jstr(u, "node"));
		fprintf(f, "</th><td class=\"st-unreach\" colspan=\"%zu\">unreachable: ", n ? n : 1);
		html_escape(f, jstr(u, "error"));
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
		int st = check_status_parse(jstr(c, DOC_STATUS));

		if (st != CHECK_FAIL && st != CHECK_WARN)
			continue;
		if (!shown++)
			fputs("<h3>Failures and warnings, with their fixes</h3>\n<table class=\"list\">"
			      "<tr><th>status</th><th>check</th><th>nodes</th><th>found</th>"
			      "<th>fix</th></tr>\n", f);
		fprintf(f, "<tr class=\"%s\">", check_status_str((enum check_status)st));
		td(f, NULL, check_status_text((enum check_status)st));
		td(f, NULL, jstr(c, DOC_ID));
		td(f, NULL, jstr(c, "nodes"));
		td(f, NULL, jstr(c, DOC_FOUND));
		td(f, "fix", jstr(c, DOC_FIX));
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
		td(f, NULL, jstr(d, "fact"));
		td(f, NULL, jstr(d, "majority_nodes") ? jstr(d, "majority") ?: "(none)" : "(no majority)");
		td(f, NULL, jstr(d, "majority_nodes"));
		fputs("<td>", f);
		for (k = 0; k < jlen(diff); k++) {
			struct json_object *x = json_object_array_get_idx(diff, k);

			fputs(k ? "<br>" : "", f);
			html_escape(f, jstr(x, "value") ?: "(none)");
			fputs(" on ", f);
			html_escape(f, jstr(x, "nodes"));
		}
		/* Nodes that could not read the fact: no value of theirs, no fix. */
		if (jget(d, "not_read")) {
			fputs(k ? "<br>" : "", f);
			fputs("not read on ", f);
			html_escape(f, jstr(jget(d, "not_read"), "nodes"));
		}
		fputs("</td>", f);
		td(f, "fix", jstr(d, "fix"));
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
		td(f, NULL, jstr(u, "node"));
		td(f, NULL, jstr(u, "error"));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* One fact of html_provenance(): its value escaped, or "not recorded". */
static void prov_item(FILE *f, const char *name, const char *val)
{
	fprintf(f, "<span>%s ", name);
	if (val && *val)
		html_escape(f, val);
	else
		fputs("<i>not recorded</i>", f);
	fputs("</span>", f);
}

void html_provenance(FILE *f, struct json_object *run, const char *hostlist, const char *src)
{
	fputs("<p class=\"prov\">", f);
	prov_item(f, "hostlist", hostlist ?: jstr(run, "hostlist"));
	prov_item(f, "started", jstr(run, "started"));
	prov_item(f, "ended", jstr(run, "ended"));
	prov_item(f, "from", src ?: "this run, as it ended");
	prov_item(f, "rdmactl", jstr(run, "version"));
	fputs("</p>\n", f);
}

/* The nodes the drift table names as differing, as a set (keys); NULL when out of memory. */
static struct json_object *drift_odd(struct json_object *doc)
{
	struct json_object *arr = jget(doc, "drift"), *set = json_object_new_object();
	size_t i, k, j;

	for (i = 0; set && i < jlen(arr); i++) {
		struct json_object *diff = jget(json_object_array_get_idx(arr, i), "differs");

		for (k = 0; k < jlen(diff); k++) {
			const char *list = jstr(json_object_array_get_idx(diff, k), "nodes");
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
			int st = check_status_parse(jstr(json_object_array_get_idx(checks, i), DOC_STATUS));

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
	fprintf(f, "<script>%s</script>\n</body></html>\n", html_probe_script);
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
