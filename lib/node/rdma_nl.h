/* SPDX-License-Identifier: MIT */
/*
 * RDMA netlink (NETLINK_RDMA, client RDMA_NL_NLDEV), as iproute2's `rdma`
 * speaks it: devices, their ports and the netdev behind each port.
 */
#ifndef RDMACTL_RDMA_NL_H
#define RDMACTL_RDMA_NL_H

struct ctx;
struct rdma_node;

/*
 * Add every device RDMA netlink reports to @node (name, GUIDs, firmware,
 * node type, protocol, port count, provider) and, with RDMA_LOAD_PORTS,
 * each port's state, physical state, LID, SM LID, subnet prefix and
 * netdev.  0, or -errno when netlink cannot be used at all (a kernel
 * without RDMA gives -EPROTONOSUPPORT).
 */
int rdma_nl_load(const struct ctx *ctx, struct rdma_node *node, unsigned int what);

/*
 * The RDMA subsystem's network-namespace mode, as `rdma system show` reads
 * it (RDMA_NLDEV_CMD_SYS_GET): 1 shared, 0 exclusive; -errno when the
 * kernel cannot say (-EOPNOTSUPP before 5.2, -ENODATA without the attribute).
 */
int rdma_nl_netns_mode(void);

#endif
