// SPDX-License-Identifier: MIT
/*
 * rdmactl snapshot -o FILE.tar.gz: record what --root reads, so a node can
 * be diagnosed from a copy ("tar xzf FILE -C DIR; rdmactl --root DIR ...").
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "cmds.h"
#include "node/snapshot.h"

const struct opt snapshot_opts[] = {
	{ "output", 'o', ARG_FILE, "FILE", "the .tar.gz to write (required)" },
	{ 0 }
};

static void print_stats(struct ctx *ctx, const char *file, const struct snapshot_stats *st)
{
	print_str(ctx, "file", "Wrote %s: ", file);
	print_int(ctx, "files", "%" PRId64 " files, ", (int64_t)st->files);
	print_int(ctx, "links", "%" PRId64 " links, ", (int64_t)st->links);
	print_int(ctx, "dirs", "%" PRId64 " directories ", (int64_t)st->dirs);
	print_int(ctx, "bytes", "(%" PRId64 " bytes of contents); ", (int64_t)st->bytes);
	print_int(ctx, "rdma_devices", "%" PRId64 " RDMA devices, ", (int64_t)st->rdma_devs);
	print_int(ctx, "netdevs", "%" PRId64 " netdevs\n", (int64_t)st->netdevs);
	print_text(ctx, "Read it back with: mkdir DIR && tar xzf %s -C DIR && "
		   "rdmactl --root DIR COMMAND\n", file);
}

int cmd_snapshot(struct ctx *ctx, int argc, char **argv)
{
	struct snapshot_stats st;
	const char *out = NULL;
	struct optparser p;
	int c, ret;

	if (opt_init(&p, ctx, command_find("snapshot"), argc, argv))
		return RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END) {
		if (c == 'o') {
			out = p.optarg;
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
	ret = snapshot_write(ctx, out, &st);
	if (ret) {
		log_err(ctx, "Failed to write snapshot '%s': %s", out, strerror(-ret));
		return RC_PROBLEM;
	}
	print_stats(ctx, out, &st);
	return RC_OK;
}
