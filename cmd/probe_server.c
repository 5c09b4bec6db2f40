// SPDX-License-Identifier: MIT
/*
 * rdmactl probe --server: the end that waits.  Its own options say where
 * it listens and what it allows; the test is the client's to choose, so
 * the test's options are refused here (probe.c's refusals).
 */
#include <errno.h>
#include <netdb.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "cmds.h"
#include "probe_mode.h"
#include "probe/probe_ctl.h"

int probe_server_opt(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	uint64_t v;

	switch (c) {
	case OPT_SERVER: a->server = true; return 0;
	case OPT_BIND: a->cfg.bind = val; return 0;
	case OPT_ONCE: a->cfg.once = true; return 0;
	case OPT_MAX_SIZE:
		if (probe_parse_size(val, &v))
			return probe_bad_value(ctx, "--max-size", val, "expected bytes, with K, M or G");
		a->cfg.max_size = v;
		return 0;
	}
	return -ENOENT;
}

/*
 * --bind HOST that does not resolve said "No route to host": say it as a
 * peer's name is said, before listening.  0 or -EINVAL.
 */
static int bind_check(struct ctx *ctx, const struct probe_args *a)
{
	struct addrinfo *res;
	int gai;

	if (!a->cfg.bind)
		return 0;
	gai = ctl_resolve(a->cfg.bind, a->cfg.port, true, &res);
	if (!gai) {
		freeaddrinfo(res);
		return 0;
	}
	log_err(ctx, "cannot resolve --bind '%s': %s; give an address of this node", a->cfg.bind,
		gai == EAI_SYSTEM ? strerror(errno) : gai_strerror(gai));
	return -EINVAL;
}

int probe_server_run(struct ctx *ctx, struct probe_args *a, const char *peer)
{
	if (peer) {
		log_err(ctx, "Failed to start: --server takes no PEER");
		return RC_USAGE;
	}
	if (bind_check(ctx, a) || probe_test_finish(ctx, a))
		return RC_USAGE;
	return probe_table_run(ctx, a, NULL);
}
