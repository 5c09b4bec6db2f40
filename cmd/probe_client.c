// SPDX-License-Identifier: MIT
/*
 * rdmactl probe PEER: the client of the two-node test.  It chooses the
 * test (sizes, writes, queues: probe.c's options M_CLIENT takes), runs it
 * against `rdmactl probe --server` on PEER, and judges it (--expect,
 * --verify).
 */
#include "base/ctx.h"
#include "base/log.h"
#include "cmds.h"
#include "probe_mode.h"

int probe_client_run(struct ctx *ctx, struct probe_args *a, const char *peer)
{
	if (!peer) {
		log_err(ctx, "Failed to start: give PEER, or --server on the other node");
		return RC_USAGE;
	}
	if (probe_test_finish(ctx, a))
		return RC_USAGE;
	return probe_table_run(ctx, a, peer);
}
