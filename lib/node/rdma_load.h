/* SPDX-License-Identifier: MIT */
/*
 * Loading the node's RDMA model (node/rdma.h) from the live kernel (RDMA
 * netlink, verbs, sysfs) or, with --root, from a recorded sysfs tree.
 */
#ifndef RDMACTL_RDMA_LOAD_H
#define RDMACTL_RDMA_LOAD_H

#include "node/rdma.h"

/* "No RDMA devices found", with the likely causes and what to check. */
extern const char rdma_no_devices_msg[];

/* Load every device (and, with @what, ports and GIDs); 0 or -errno. */
int rdma_node_load(const struct ctx *ctx, struct rdma_node *node, unsigned int what);

/* Where a snapshot records the devices libibverbs opened, below the root. */
#define VERBS_DEVICES_RECORDING "/run/rdmactl/verbs-devices"

/*
 * The devices libibverbs lists (their provider library loaded and their
 * /dev/infiniband node exists), a name a line, in *@names to free.  Live
 * from ibv_get_device_list(); with --root from VERBS_DEVICES_RECORDING.
 * 0; -ENODATA when the tree did not record it; -errno.
 */
int verbs_devices(const struct ctx *ctx, char **names);
/* Whether @names, as verbs_devices() gives them, holds @name. */
bool verbs_devices_has(const char *names, const char *name);

#endif
