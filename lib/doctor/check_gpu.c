// SPDX-License-Identifier: MIT
/*
 * Doctor check of GPUDirect RDMA: NCCL's IB transport reads GPU memory
 * directly only with nvidia-peermem (or the older nv_peer_mem) loaded, or
 * with DMA-BUF (NVIDIA's open kernel modules on Linux 5.12 and later).
 * NCCL itself tests /sys/kernel/mm/memory_peers/{nv_mem,nvidia-peermem}/version.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/root.h"
#include "base/sysfs.h"
#include "doctor/check.h"
#include "doctor/checks.h"

static bool dir_exists(const struct node_facts *d, const char *path)
{
	DIR *dd;

	dd = root_opendir(d->ctx, path);
	if (dd)
		closedir(dd);
	return dd != NULL;
}

/* The peer-memory client's version, or its module; "" when neither. */
static bool peermem(const struct node_facts *d, char *buf, size_t len)
{
	static const char *const files[] = {
		"/sys/kernel/mm/memory_peers/nvidia-peermem/version",
		"/sys/kernel/mm/memory_peers/nv_mem/version",
	};
	char ver[64];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (read_line(d->ctx, files[i], ver, sizeof(ver)) >= 0) {
			snprintf(buf, len, "%s %s", i ? "nv_peer_mem" : "nvidia-peermem", ver);
			return true;
		}
	if (dir_exists(d, "/sys/module/nvidia_peermem")) {
		snprintf(buf, len, "nvidia_peermem module");
		return true;
	}
	return false;
}

/* Open kernel modules on Linux 5.12+: ibv_reg_dmabuf_mr works with GPU memory. */
static bool dmabuf(const struct node_facts *d, char *buf, size_t len)
{
	char kver[64];
	char *text = NULL;
	unsigned int major = 0, minor = 0;
	bool open_km;

	if (read_file(d->ctx, "/proc/driver/nvidia/version", 65536, &text, NULL))
		return false;
	open_km = strstr(text, "Open Kernel Module") != NULL;
	free(text);
	if (read_line(d->ctx, "/proc/sys/kernel/osrelease", kver, sizeof(kver)) <= 0 ||
	    sscanf(kver, "%u.%u", &major, &minor) != 2)
		return false;
	snprintf(buf, len, "%s kernel module, Linux %s", open_km ? "open" : "proprietary", kver);
	return open_km && (major > 5 || (major == 5 && minor >= 12));
}

void check_gpudirect(struct node_facts *d, struct check_result *r)
{
	char drv[64] = "", how[128] = "";

	if (!dir_exists(d, "/sys/module/nvidia")) {
		check_skip(r, "no NVIDIA driver loaded (no /sys/module/nvidia): no GPU to do "
			   "GPUDirect RDMA with");
		return;
	}
	if (read_line(d->ctx, "/sys/module/nvidia/version", drv, sizeof(drv)) < 0)
		snprintf(drv, sizeof(drv), "unknown version");
	if (peermem(d, how, sizeof(how))) {
		check_note(r, CHECK_OK, "NVIDIA driver %s with %s loaded", drv, how);
		return;
	}
	if (dmabuf(d, how, sizeof(how))) {
		check_note(r, CHECK_OK, "NVIDIA driver %s: DMA-BUF usable (%s)", drv, how);
		return;
	}
	check_note(r, CHECK_FAIL, "NVIDIA driver %s but neither nvidia-peermem nor DMA-BUF%s%s%s: NCCL "
		   "stages GPU buffers through host memory", drv, how[0] ? " (" : "", how,
		   how[0] ? ")" : "");
	check_fix(r, "modprobe nvidia-peermem; to keep it: echo nvidia-peermem > "
		  "/etc/modules-load.d/nvidia-peermem.conf");
}
