/* SPDX-License-Identifier: MIT */
/*
 * The doctor's checks (check_*.c), each filling one result from the
 * node's facts (check.h).  The runner's table (doctor.c) names them all;
 * a check that builds on another's part (the peer's side of mtu,
 * versions and firewall; rdmactl env running devices, env.nccl and
 * env.ucx) calls it through here, never through the runner.
 */
#ifndef RDMACTL_CHECKS_H
#define RDMACTL_CHECKS_H

#include "doctor/check.h"
#include "node/rdma.h"

/* check_devices.c */
void check_devices(struct node_facts *d, struct check_result *r);
/* check_rdma.c */
void check_ports(struct node_facts *d, struct check_result *r);
void check_roce_ipv4(struct node_facts *d, struct check_result *r);
void check_roce_gid(struct node_facts *d, struct check_result *r);
void check_mtu(struct node_facts *d, struct check_result *r);
/*
 * Run @fn on every RoCE port a job may use (representors are switch
 * ports); skip the check with @why_none when there is none.  False when
 * the node has no devices (the check is skipped so).
 */
typedef void roce_port_fn(struct node_facts *d, struct check_result *r,
			  const struct rdma_dev *dev, const struct rdma_port *p);
bool doctor_each_roce_port(struct node_facts *d, struct check_result *r, roce_port_fn *fn,
			   const char *why_none);
/* check_route.c */
void check_roce_route(struct node_facts *d, struct check_result *r);
/* check_qos.c */
void check_roce_qos(struct node_facts *d, struct check_result *r);
/*
 * The traffic class a job of kind @k (nccl, ucx, mpi) that sets none
 * should send with on @dev/@p (rdmactl env's NCCL_IB_TC or
 * UCX_IB_TRAFFIC_CLASS): one whose DSCP the NIC maps to a lossless
 * priority, when its library's own class lands on a lossy one; -1 when
 * the job set its class (never replaced), its own is lossless, or the
 * NIC's DCB cannot be read or maps no DSCP to a lossless priority.
 */
int doctor_qos_tc(struct node_facts *d, enum job_kind k, const struct rdma_dev *dev,
		  const struct rdma_port *p);
/* check_memlock.c */
void check_memlock_shell(struct node_facts *d, struct check_result *r);
void check_memlock_login(struct node_facts *d, struct check_result *r);
void check_memlock_systemd(struct node_facts *d, struct check_result *r);
/* check_firewall.c */
void check_firewall(struct node_facts *d, struct check_result *r);
/* check_env.c */
void check_env_nccl(struct node_facts *d, struct check_result *r);
void check_env_ucx(struct node_facts *d, struct check_result *r);
/* check_ucx.c */
void check_ucx_ud_dgid(struct node_facts *d, struct check_result *r);
/* check_fn.c */
void check_functions(struct node_facts *d, struct check_result *r);
/* check_gpu.c */
void check_gpudirect(struct node_facts *d, struct check_result *r);
/* check_versions.c */
void check_versions(struct node_facts *d, struct check_result *r);
/* check_peer.c */
void check_peer(struct node_facts *d, struct check_result *r);

/*
 * The GID index NCCL 2.21 and later pick on RoCE port @p when no
 * NCCL_IB_* variable chooses (AF_INET, RoCE v2, no range): env.nccl's
 * model of ncclIbGetGidIndex() (check_env.c).
 */
int doctor_nccl_auto(const struct rdma_port *p);

/*
 * The peer's side of a check, from its probe server (check_peer.c): each
 * adds its findings to @r when --peer was given, and nothing otherwise.
 */
void doctor_peer_mtu(struct node_facts *d, struct check_result *r);
void doctor_peer_versions(struct node_facts *d, struct check_result *r, const char *kernel,
			  const char *rdma_core);
void doctor_peer_firewall(struct node_facts *d, struct check_result *r);
void doctor_peer_free(struct node_facts *d);

#endif
