// SPDX-License-Identifier: MIT
/*
 * Doctor check of the software versions both ends of a job must share:
 * the kernel, rdma-core (libibverbs.so.1.ABI.RELEASE.0 carries rdma-core's
 * release: libibverbs.so.1.14.44.0 is rdma-core 44.0), MLNX_OFED when
 * installed (`ofed_info -s`), and NCCL.
 */
#include <errno.h>

#include "base/sysfs.h"
#include "doctor/check.h"
#include "doctor/checks.h"
#include "node/versions.h"

void check_versions(struct node_facts *d, struct check_result *r)
{
	char kernel[128] = "", core[32] = "", lib[256], ofed[128];
	int ret;

	if (read_line(d->ctx, "/proc/sys/kernel/osrelease", kernel, sizeof(kernel)) > 0)
		check_note(r, CHECK_OK, "kernel %s", kernel);
	else
		check_note(r, CHECK_OK, "kernel version unknown (no /proc/sys/kernel/osrelease)");
	if (rdma_core_version(d->ctx, core, sizeof(core), lib, sizeof(lib))) {
		check_note(r, CHECK_OK, "rdma-core %s (%s)", core, lib);
	} else {
		check_note(r, CHECK_WARN, "libibverbs not found: no RDMA program can run here");
		check_fix(r, "apt-get install libibverbs1 ibverbs-providers (dnf install rdma-core)");
	}
	ret = ofed_version(d->ctx, ofed, sizeof(ofed));
	if (ret > 0)
		check_note(r, CHECK_OK, "OFED %s", ofed);
	else if (ret == -ENODATA)
		check_note(r, CHECK_OK, "OFED: not recorded in this snapshot (ofed_info -s)");
	else
		check_note(r, CHECK_OK, "no MLNX_OFED (inbox drivers)");
	doctor_find_nccl(d);
	if (d->nccl_version > 0)
		check_note(r, CHECK_OK, "NCCL %d.%d.%d (%s)", d->nccl_version / 10000,
			   d->nccl_version / 100 % 100, d->nccl_version % 100, d->nccl_lib);
	doctor_peer_versions(d, r, kernel, core);
}
