/* SPDX-License-Identifier: MIT */
/*
 * One port's rules, shared by the checks and rdmactl env's plan (jobenv.h)
 * so that both give the same reason and pick the same GID.  They sit
 * below both: the GID check runs the plan, and the plan judges ports by
 * these rules, so neither may hold them.
 */
#ifndef RDMACTL_PORT_RULES_H
#define RDMACTL_PORT_RULES_H

#include <stdbool.h>

#include "doctor/check.h"
#include "node/rdma.h"

struct gid_choice;

/*
 * A port that is not ACTIVE or not LinkUp, and why, into @r (check ports
 * and rdmactl env's refusal) ...
 */
void doctor_port_down(struct node_facts *d, struct check_result *r, const struct rdma_dev *dev,
		      const struct rdma_port *p);
/*
 * ... and the GID a job should use on @p (check roce.gid, and the
 * better index env.nccl and env.ucx offer): gid_choose() on the port's
 * own netdev and the netdevs stacked on it (a VLAN).  True when there is one.
 */
bool doctor_gid_choose(const struct rdma_port *p, struct gid_choice *c);
/*
 * The entry doctor_gid_choose() picks when its netdev is stacked on the
 * port's (a VLAN, a macvlan, the bond of mlx5's RoCE LAG): that netdev
 * carries the port's traffic, its MTU the frames must fit and its link
 * must be up (check ports and mtu, roce.qos's VLAN, rdmactl ports'
 * carrier); NULL when the port's own netdev carries it.
 */
const struct rdma_gid *doctor_gid_carrier(const struct rdma_port *p);

#endif
