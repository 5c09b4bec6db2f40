// SPDX-License-Identifier: MIT
/*
 * rdmactl probe --agent HOST:PORT: what `probe -w` starts on every node
 * (lib/mesh/agent.c).  Internal, so out of the usage and completion
 * (OPT_HIDDEN); it takes the test's options as -w hands them over, and
 * its token on stdin, never on the line.
 */
#include <errno.h>

#include "base/ctx.h"
#include "base/log.h"
#include "cmds.h"
#include "mesh/agent.h"
#include "probe_mode.h"

int probe_agent_opt(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	(void)ctx;
	if (c != OPT_AGENT)
		return -ENOENT;
	a->agent = val;
	return 0;
}

int probe_agent_run(struct ctx *ctx, struct probe_args *a, const char *peer)
{
	int ret;

	if (peer) {
		log_err(ctx, "Failed to start the agent: --agent takes no PEER; `rdmactl probe -w` "
			"gives it what it needs");
		return RC_USAGE;
	}
	if (probe_test_finish(ctx, a))
		return RC_USAGE;
	ret = agent_check(ctx, a->agent);
	if (ret)
		return ret == -EINVAL ? RC_USAGE : RC_PROBLEM;
	return agent_run(ctx, a->agent, &a->cfg) ? RC_PROBLEM : RC_OK;
}
