/* SPDX-License-Identifier: MIT */
/*
 * The probe's TCP transport (`--transport tcp`): the workload over plain
 * sockets, one stream per "QP", as NCCL's socket transport moves data when
 * NCCL_IB_DISABLE=1.  The server listens on an ephemeral data port it
 * names in EP_INFO.  Of the session it calls only the helpers of
 * probe_sess.h, never probe.c, which picks it by its ops table.
 */
#ifndef RDMACTL_PROBE_TCP_H
#define RDMACTL_PROBE_TCP_H

#include <stdint.h>

struct probe_ops;
struct probe_test_req;

extern const struct probe_ops probe_tcp_ops;

/* Round trips of the ping-pong for @size: fewer for big sizes (both ends agree). */
uint32_t probe_lat_rounds(const struct probe_test_req *req, uint64_t size);

#endif
