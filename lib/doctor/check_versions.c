// SPDX-License-Identifier: MIT
/*
 * Doctor check of the software versions both ends of a job must share:
 * the kernel, rdma-core (libibverbs.so.1.ABI.RELEASE.0 carries rdma-core's
 * release: libibverbs.so.1.14.44.0 is rdma-core 44.0), MLNX_OFED when
 * installed (`ofed_info -s`), and NCCL.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/sysfs.h"
#include "doctor/doctor.h"

/* "44.0" from the newest libibverbs.so.1.*.*.* below the root. */
bool doctor_rdma_core_version(const struct doctor *d, char *ver, size_t len, char *file,
			      size_t flen)
{
	char pattern[4096];
	unsigned int abi, major, minor;
	size_t i, k;
	glob_t g;
	bool found = false;

	for (i = 0; doctor_lib_dirs[i] && !found; i++) {
		if (root_path(d->ctx, pattern, sizeof(pattern), "%s/libibverbs.so.1.*.*.*",
			      doctor_lib_dirs[i]) || glob(pattern, 0, NULL, &g))
			continue;
		for (k = 0; k < g.gl_pathc && !found; k++) {
			const char *base = strrchr(g.gl_pathv[k], '/') + 1;

			if (sscanf(base, "libibverbs.so.1.%u.%u.%u", &abi, &major, &minor) == 3) {
				snprintf(ver, len, "%u.%u", major, minor);
				snprintf(file, flen, "%s/%s", doctor_lib_dirs[i], base);
				found = true;
			}
		}
		globfree(&g);
	}
	return found;
}

/* "MLNX_OFED_LINUX-5.8-1.0.1.1:" -> "MLNX_OFED_LINUX-5.8-1.0.1.1" */
bool doctor_ofed_version(const struct doctor *d, char *buf, size_t len)
{
	char *argv[] = { "ofed_info", "-s", NULL };
	char *out = NULL, *line;

	if (doctor_cmd_output(d, "ofed_info-s", argv, &out))
		return false;
	line = strtrim(out);
	line[strcspn(line, "\n")] = '\0';
	if (*line && line[strlen(line) - 1] == ':')
		line[strlen(line) - 1] = '\0';
	snprintf(buf, len, "%s", line);
	free(out);
	return buf[0] != '\0';
}

void check_versions(struct doctor *d, struct check_result *r)
{
	char kernel[128] = "", core[32] = "", lib[256], ofed[128];

	if (read_line(d->ctx, "/proc/sys/kernel/osrelease", kernel, sizeof(kernel)) > 0)
		check_note(r, CHECK_OK, "kernel %s", kernel);
	else
		check_note(r, CHECK_OK, "kernel version unknown (no /proc/sys/kernel/osrelease)");
	if (doctor_rdma_core_version(d, core, sizeof(core), lib, sizeof(lib))) {
		check_note(r, CHECK_OK, "rdma-core %s (%s)", core, lib);
	} else {
		check_note(r, CHECK_WARN, "libibverbs not found: no RDMA program can run here");
		check_fix(r, "apt-get install libibverbs1 ibverbs-providers (dnf install rdma-core)");
	}
	if (doctor_ofed_version(d, ofed, sizeof(ofed)))
		check_note(r, CHECK_OK, "OFED %s", ofed);
	else
		check_note(r, CHECK_OK, "no MLNX_OFED (inbox drivers)");
	doctor_find_nccl(d);
	if (d->nccl_version > 0)
		check_note(r, CHECK_OK, "NCCL %d.%d.%d (%s)", d->nccl_version / 10000,
			   d->nccl_version / 100 % 100, d->nccl_version % 100, d->nccl_lib);
	doctor_peer_versions(d, r, kernel, core);
}
