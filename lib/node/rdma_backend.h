/* SPDX-License-Identifier: MIT */
/*
 * Backends of rdma_node_load() and the model helpers they build it with;
 * the backends see the model through this header only.
 *
 * Live, facts come from RDMA netlink first (node/rdma_nl.c), then verbs
 * (what netlink does not carry: MTUs, link layer, speed and width), then
 * sysfs for what neither gives (PCI address, NUMA node, kernel driver).
 * With --root, everything comes from the recorded sysfs tree.
 */
#ifndef RDMACTL_RDMA_BACKEND_H
#define RDMACTL_RDMA_BACKEND_H

#include "node/rdma.h"

/* Fill or add every verbs device: device attributes and, with RDMA_LOAD_PORTS, ports. */
int rdma_verbs_load(const struct ctx *ctx, struct rdma_node *node, unsigned int what);
int rdma_sysfs_load(const struct ctx *ctx, struct rdma_node *node, unsigned int what);
/* PCI address, NUMA node and (when still unknown) provider, from sysfs. */
void rdma_sysfs_dev_extras(const struct ctx *ctx, struct rdma_dev *dev);
/*
 * The port's netdev from sysfs: a software device's "parent" (rxe, siw:
 * the netdev it was made on, whatever else said); else, when unknown,
 * gid_attrs/ndevs/0.
 */
void rdma_sysfs_port_netdev(const struct ctx *ctx, const struct rdma_dev *dev,
			    struct rdma_port *port);

/* Append a zeroed device named @name; NULL when out of memory. */
struct rdma_dev *rdma_node_add(struct rdma_node *node, const char *name);
/* Give @dev @n ports numbered 1..n (unless it has them); 0 or -ENOMEM. */
int rdma_dev_alloc_ports(struct rdma_dev *dev, unsigned int n);

#endif
