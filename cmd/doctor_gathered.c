// SPDX-License-Identifier: MIT
/*
 * rdmactl doctor --gathered FILE|-|DIR: the report of documents many
 * nodes printed (pdsh, clush, srun -l, HOST.json), read by
 * lib/fleet/gathered.c; exit 1 when a node failed or could not run.
 */
#include <errno.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "cmds.h"
#include "doctor_mode.h"
#include "fleet/fleet.h"
#include "fleet/gathered.h"
#include "fleet/summary.h"

/* The report of the documents in --gathered's path (a file, "-" or a directory). */
int doctor_gathered_run(struct ctx *ctx, const struct doctor_args *a, const bool *sel)
{
	const char *path = a->gathered;
	struct fleet_counts counts;
	struct fleet fleet;
	char err[512];
	int ret;

	(void)sel;
	fleet_init(&fleet);
	ret = fleet_read_gathered(&fleet, path, err, sizeof(err));
	if (!ret)
		ret = fleet_finish(&fleet, err, sizeof(err));
	if (ret) {
		log_err_errno(ctx, ret, "Failed to read gathered output '%s': %s", path,
			      ret == -ENOMEM ? strerror(ENOMEM) : err);
		fleet_free(&fleet);
		return ret == -ENOMEM ? RC_PROBLEM : RC_USAGE;
	}
	ret = fleet_summary(ctx, &fleet, &counts);
	fleet_free(&fleet);
	if (ret) {
		log_err_errno(ctx, ret, "Failed to make the report: %s", strerror(-ret));
		return RC_PROBLEM;
	}
	return fleet_rc(&counts);
}

