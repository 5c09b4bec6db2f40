// SPDX-License-Identifier: MIT
/*
 * rdmactl report -o FILE.html RUN.json...: one HTML page of saved
 * `rdmactl -j doctor -w` and `rdmactl -j probe -w` documents (lib/report),
 * on any machine, later: no RDMA, no node, no network needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/file.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/output.h"
#include "base/text.h"
#include "cmds.h"
#include "doctor/doc.h"
#include "report/html.h"
#include "report/linkview.h"

/* A saved run is JSON text; a 1 000-node probe -w is ~200 MB of it. */
#define RUN_MAX ((size_t)2 << 30)

const struct opt report_opts[] = {
	{ "output", 'o', ARG_FILE, "FILE", "the .html to write, - for stdout (required)" },
	{ "force", 'f', ARG_NONE, NULL, "replace FILE if it exists (only ever a regular file)" },
	{ 0 }
};

struct runs {
	struct linkview *probe;
	struct json_object **doctor;
	size_t nprobe, ndoctor;
	/* The file each came from, as given ("-": standard input), for the page. */
	const char **probe_src, **doctor_src;
};

/* @path at @list[@n], the list grown by one.  0 or -ENOMEM. */
static int src_add(const char ***list, size_t n, const char *path)
{
	const char **l = realloc(*list, (n + 1) * sizeof(*l));

	if (!l)
		return -ENOMEM;
	l[n] = strcmp(path, "-") ? path : "standard input";
	*list = l;
	return 0;
}

/*
 * The whole of @path ("-": stdin) in *@out (NUL-terminated), any kind of
 * file (a pipe, <(...)); under RUN_MAX.  0 or -errno.
 */
static int slurp(const char *path, char **out, size_t *len)
{
	if (!strcmp(path, "-"))
		return file_read_fd(STDIN_FILENO, RUN_MAX - 1, out, len);
	return file_read_all(path, RUN_MAX - 1, FILE_ANY_KIND, out, len, NULL);
}

static bool is_doctor(struct json_object *doc)
{
	struct json_object *nodes, *checks;

	return json_object_object_get_ex(doc, "nodes", &nodes) &&
	       json_object_is_type(nodes, json_type_object) &&
	       json_object_object_get_ex(doc, DOC_CHECKS, &checks) &&
	       json_object_is_type(checks, json_type_array);
}

/* One saved run into @r.  The exit code's reason: 0, RC_USAGE (said), -ENOMEM. */
static int run_read(struct ctx *ctx, struct runs *r, const char *path)
{
	char *text = NULL, err[256], safe[1024];
	struct json_object *doc = NULL;
	struct linkview v;
	size_t len;
	int ret = slurp(path, &text, &len);

	text_safe(path, safe, sizeof(safe), 0);
	if (ret) {
		log_err(ctx, "Failed to read '%s': %s", safe, strerror(-ret));
		return RC_USAGE;
	}
	ret = linkview_read(&v, &doc, text, len, err, sizeof(err));
	free(text);
	if (ret == -EINVAL) {
		log_err(ctx, "Failed to read '%s': %s", safe, err);
		return RC_USAGE;
	}
	if (ret)
		return ret;
	if (v.n) {
		struct linkview *p = realloc(r->probe, (r->nprobe + 1) * sizeof(*p));

		json_object_put(doc);
		if (p)
			r->probe = p;
		if (!p || src_add(&r->probe_src, r->nprobe, path)) {
			linkview_free(&v);
			return -ENOMEM;
		}
		r->probe[r->nprobe++] = v;
		return 0;
	}
	if (is_doctor(doc)) {
		struct json_object **d = realloc(r->doctor, (r->ndoctor + 1) * sizeof(*d));

		if (d)
			r->doctor = d;
		if (!d || src_add(&r->doctor_src, r->ndoctor, path)) {
			json_object_put(doc);
			return -ENOMEM;
		}
		r->doctor[r->ndoctor++] = doc;
		return 0;
	}
	json_object_put(doc);
	log_err(ctx, "Failed to read '%s': not the JSON of 'rdmactl -j doctor -w' or 'rdmactl -j probe "
		"-w' (no \"checks\" and \"nodes\", no \"links\" and \"findings\")", safe);
	return RC_USAGE;
}

static void runs_free(struct runs *r)
{
	size_t i;

	for (i = 0; i < r->nprobe; i++)
		linkview_free(&r->probe[i]);
	free(r->probe);
	for (i = 0; i < r->ndoctor; i++)
		json_object_put(r->doctor[i]);
	free(r->doctor);
	free(r->probe_src);
	free(r->doctor_src);
}

static int write_report(struct ctx *ctx, struct outfile *of, const char *out, struct runs *r)
{
	const struct linkview **pv = calloc(r->nprobe + 1, sizeof(*pv));
	struct html_runs hr = { .probe = pv, .nprobe = r->nprobe, .doctor = r->doctor,
				.ndoctor = r->ndoctor, .probe_src = r->probe_src,
				.doctor_src = r->doctor_src };
	size_t i;
	int ret;

	if (!pv)
		return -ENOMEM;
	for (i = 0; i < r->nprobe; i++)
		pv[i] = &r->probe[i];
	ret = html_write(ctx, of, &hr);
	free(pv);
	if (ret)
		return of->refused ? RC_USAGE : RC_PROBLEM;
	if (strcmp(out, "-")) {
		/* Text: one line, so that print_text() folds it whole. */
		print_text(ctx, "Wrote %s: %zu doctor -w run(s), %zu probe -w run(s)\n", out,
			   (size_t)r->ndoctor, (size_t)r->nprobe);
		if (ctx->json) {
			print_str(ctx, "file", "%s", out);
			print_int(ctx, "doctor_runs", "%" PRId64, (int64_t)r->ndoctor);
			print_int(ctx, "probe_runs", "%" PRId64, (int64_t)r->nprobe);
		}
	}
	return RC_OK;
}

int cmd_report(struct ctx *ctx, int argc, char **argv)
{
	struct runs r = { 0 };
	struct outfile of;
	unsigned int flags = 0;
	const char *out = NULL;
	struct optparser p;
	int c, i, ret = 0;

	if (opt_init(&p, ctx, command_find("report"), argc, argv))
		return RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END) {
		if (c == 'o')
			out = p.optarg;
		else if (c == 'f')
			flags |= OUTFILE_FORCE;
		else
			return c == OPT_HELP ? RC_OK : RC_USAGE;
	}
	if (opt_check_args(&p))
		return RC_USAGE;
	if (!out || !*out) {
		log_err(ctx, "missing --output FILE. Usage: rdmactl report -o FILE.html RUN.json...");
		return RC_USAGE;
	}
	if (ctx->json && !strcmp(out, "-")) {
		log_err(ctx, "Failed to write the report to stdout: -j prints its JSON document there. "
			"Write the page to a file (-o FILE)");
		return RC_USAGE;
	}
	/* The output first: a refused one is said before minutes of reading. */
	if (outfile_open(ctx, &of, out, "report", flags))
		return of.refused ? RC_USAGE : RC_PROBLEM;
	for (i = p.optind; !ret && i < argc; i++)
		ret = run_read(ctx, &r, argv[i]);
	if (ret == -ENOMEM)
		log_err(ctx, "Failed to read the runs: %s", strerror(ENOMEM));
	if (!ret)
		ret = write_report(ctx, &of, out, &r);
	else
		outfile_discard(&of);
	runs_free(&r);
	return ret < 0 ? RC_PROBLEM : ret;
}
