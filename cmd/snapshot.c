// SPDX-License-Identifier: MIT
/*
 * rdmactl snapshot -o FILE.tar.gz: record what --root reads, so a node can
 * be diagnosed from a copy ("tar xzf FILE -C DIR; rdmactl --root DIR ...").
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/json.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/output.h"
#include "base/text.h"
#include "cmds.h"
#include "node/snapshot.h"

const struct opt snapshot_opts[] = {
	{ "output", 'o', ARG_FILE, "FILE", "the .tar.gz to write, - for stdout (required)" },
	{ "force", 'f', ARG_NONE, NULL, "replace FILE if it exists (only ever a regular file)" },
	{ 0 }
};

static void print_stats(struct ctx *ctx, const char *file, const struct snapshot_stats *st)
{
	/* On a terminal: one line, folded whole to the width, without the name's control bytes. */
	if (!ctx->json) {
		print_text(ctx, "Wrote %s: %zu files, %zu links, %zu directories (%zu bytes of "
			   "contents); %zu RDMA devices, %zu netdevs\n", file, st->files,
			   st->links, st->dirs, st->bytes, st->rdma_devs, st->netdevs);
		print_text(ctx, "Read it back with: mkdir DIR && tar xzf %s -C DIR && "
			   "rdmactl --root DIR COMMAND\n", file);
		return;
	}
	print_str(ctx, "file", "%s", file);
	print_int(ctx, "files", "%" PRId64, (int64_t)st->files);
	print_int(ctx, "links", "%" PRId64, (int64_t)st->links);
	print_int(ctx, "dirs", "%" PRId64, (int64_t)st->dirs);
	print_int(ctx, "bytes", "%" PRId64, (int64_t)st->bytes);
	print_int(ctx, "rdma_devices", "%" PRId64, (int64_t)st->rdma_devs);
	print_int(ctx, "netdevs", "%" PRId64, (int64_t)st->netdevs);
}

/*
 * The files left out: a line each on stderr, and entries of the document's
 * "warnings" array, which every command shares (sysfs.h).  Their number.
 */
static size_t print_leftout(struct ctx *ctx, struct json_object *warnings)
{
	size_t i, n = json_object_array_length(warnings);
	char path[512];

	for (i = 0; i < n; i++) {
		struct json_object *w = json_object_array_get_idx(warnings, i);

		/* Any value as its text, and "" for none: the line is said whatever the entry holds. */
		log_warn(ctx, "left out %s: %s", text_safe(jtext(w, "path") ?: "", path, sizeof(path), 0),
			 jtext(w, "error") ?: "");
		if (ctx->warnings)
			json_object_array_add(ctx->warnings, json_object_get(w));
	}
	if (n)
		log_warn(ctx, "%zu file%s left out (listed above, and in %s in the archive)", n,
			 n == 1 ? "" : "s", SNAPSHOT_MANIFEST);
	return n;
}

/* Write the archive to @out; the exit code. */
static int snapshot_to(struct ctx *ctx, const char *out, unsigned int flags)
{
	struct snapshot_stats st = { 0 };
	struct outfile of;
	int ret, rc;

	if (outfile_open(ctx, &of, out, "snapshot", flags))
		return of.refused ? RC_USAGE : RC_PROBLEM;
	ret = snapshot_write(ctx, &of, &st);
	if (ret)
		outfile_fail(ctx, &of, ret);
	else
		ret = outfile_commit(ctx, &of);
	if (ret) {
		rc = of.refused ? RC_USAGE : RC_PROBLEM;
		goto out_warnings;
	}
	/* With -o -, stdout is the archive: say nothing there (as tar and gzip). */
	if (!outfile_is_stdout(&of))
		print_stats(ctx, out, &st);
	rc = print_leftout(ctx, st.warnings) ? RC_PROBLEM : RC_OK;

out_warnings:
	json_object_put(st.warnings);
	return rc;
}

int cmd_snapshot(struct ctx *ctx, int argc, char **argv)
{
	unsigned int flags = 0;
	const char *out = NULL;
	struct optparser p;
	int c;

	if (opt_init(&p, ctx, command_find("snapshot"), argc, argv))
		return RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END) {
		if (c == 'o') {
			out = p.optarg;
			continue;
		}
		if (c == 'f') {
			flags |= OUTFILE_FORCE;
			continue;
		}
		return c == OPT_HELP ? RC_OK : RC_USAGE;
	}
	if (opt_check_args(&p))
		return RC_USAGE;
	if (!out || !*out) {
		log_err(ctx, "missing --output FILE. Usage: rdmactl snapshot -o FILE.tar.gz");
		return RC_USAGE;
	}
	if (ctx->json && !strcmp(out, "-")) {
		log_err(ctx, "Failed to write snapshot to stdout: -j prints its JSON document there. "
			"Write the archive to a file (-o FILE)");
		return RC_USAGE;
	}
	return snapshot_to(ctx, out, flags);
}
