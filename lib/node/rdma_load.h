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

#endif
