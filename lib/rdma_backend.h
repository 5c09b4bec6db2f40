/* SPDX-License-Identifier: MIT */
/* Backends of rdma_node_load(); only lib/rdma*.c includes this. */
#ifndef RDMACTL_RDMA_BACKEND_H
#define RDMACTL_RDMA_BACKEND_H

struct ctx;
struct rdma_node;

int rdma_verbs_load(const struct ctx *ctx, struct rdma_node *node);
int rdma_sysfs_load(const struct ctx *ctx, struct rdma_node *node, unsigned int what);

#endif
