/* SPDX-License-Identifier: MIT */
/*
 * A snapshot: the files of a node that rdmactl reads (sysfs of the RDMA
 * devices and their netdevs, /proc/self/limits, the PAM and systemd
 * limit files, /etc/passwd and /etc/group) written as a gzip'd tar, laid
 * out so that "tar xzf" of it is a tree --root reads like the node itself.
 * Symlinks stay symlinks (sys/class/infiniband/X -> ../../devices/...,
 * device, device/driver); the directories they point to are recorded at
 * their real place.  Files the kernel refuses to read (EINVAL, EACCES:
 * GID attributes in containers) are left out.
 */
#ifndef RDMACTL_SNAPSHOT_H
#define RDMACTL_SNAPSHOT_H

#include <stddef.h>

struct ctx;

struct snapshot_stats {
	size_t files;		/* regular files recorded */
	size_t links;		/* symlinks recorded */
	size_t dirs;		/* directories recorded */
	size_t rdma_devs;	/* entries of /sys/class/infiniband */
	size_t netdevs;		/* entries of /sys/class/net */
	size_t bytes;		/* bytes of file contents */
};

/*
 * Capture the node below ctx->root into @path (written to a temporary file
 * next to it, then renamed).  0 or -errno; @path is untouched on failure.
 */
int snapshot_write(const struct ctx *ctx, const char *path, struct snapshot_stats *stats);

#endif
