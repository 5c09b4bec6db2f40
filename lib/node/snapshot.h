/* SPDX-License-Identifier: MIT */
/*
 * A snapshot: the files of a node that rdmactl reads (sysfs of the RDMA
 * devices and their netdevs, the PCI functions, VFs and SFs behind them,
 * the RDMA netns mode, /proc/self/limits, the PAM and systemd
 * limit files, /etc/passwd and /etc/group), and whatever else a doctor
 * check reads (the output of each command of node_cmds[] as recorded
 * outputs, run.h; the kernel release, modules, GPU and peer-memory files,
 * the libraries it finds by name, as stand-ins) written as a gzip'd tar,
 * laid out so that "tar xzf" of it is a tree --root reads like the node
 * itself: every check gives on the copy what it gives on the node.
 * Symlinks stay symlinks (sys/class/infiniband/X -> ../../devices/...,
 * device, device/driver); the directories they point to are recorded at
 * their real place.
 *
 * A file that cannot be recorded (EACCES, EIO, over the size cap, a FIFO
 * or device node where a regular file belongs, a symlink loop) is left
 * out and listed, in stats->warnings and in the archive's
 * rdmactl-snapshot.json, which readers of the copy read back: the file
 * reads as unreadable, with the node's errno, not as absent.  Not
 * listed: absent files (ENOENT), and sysfs attributes the kernel has no
 * value for (EINVAL: GID attributes of empty entries, or in containers),
 * which --root reads as absent, as the node itself reads them.
 */
#ifndef RDMACTL_SNAPSHOT_H
#define RDMACTL_SNAPSHOT_H

#include <stddef.h>

#include "base/root.h"

struct ctx;
struct json_object;
struct outfile;

/*
 * SNAPSHOT_MANIFEST (base/root.h) at the top of the archive: {"rdmactl":
 * VERSION, "warnings": [...]}, each path as on the node, which --root
 * reads back as the error it was.
 */

struct snapshot_stats {
	size_t files;		/* regular files recorded */
	size_t links;		/* symlinks recorded */
	size_t dirs;		/* directories recorded */
	size_t rdma_devs;	/* entries of /sys/class/infiniband */
	size_t netdevs;		/* entries of /sys/class/net */
	size_t bytes;		/* bytes of file contents */
	/*
	 * What was left out: an array of {"path", "error", "errno"} objects
	 * as read_warning() makes them ("errno": "EACCES"; "ENXIO" for a
	 * FIFO, device node or socket).  The caller's to put
	 * (json_object_put), even on failure.
	 */
	struct json_object *warnings;
};

/*
 * Capture the node below ctx->root into @out, opened by the caller (who
 * commits it, or gives up on failure).  0 or -errno, the first error of
 * compressing or writing; files left out are not failures.
 */
int snapshot_write(const struct ctx *ctx, struct outfile *out, struct snapshot_stats *stats);

#endif
