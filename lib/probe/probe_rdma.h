/* SPDX-License-Identifier: MIT */
/*
 * The probe's RDMA transport: RC queue pairs and RDMA WRITE, connected by
 * hand from the details in EP_INFO (probe_rdma_ops) or through rdma_cm by
 * IP address (probe_rdma_cm_ops).  Of the session it calls only the
 * helpers of probe_sess.h, never probe.c, which picks it by its ops table.
 *
 * Memory: one buffer registered for REMOTE_WRITE, zeroed, per QP a send
 * region then a receive region of the largest size.  The peer may write
 * only into the receive regions: nothing else of this process is exposed.
 *
 * Posting, as perftest's ib_write_bw does: up to --depth writes in flight
 * per QP, one in min(100, depth) signaled (and always the last), the CQ
 * polled 16 completions at a time, small writes posted inline; writes
 * over 8 KiB are all signaled, as perftest signals them.
 */
#ifndef RDMACTL_PROBE_RDMA_H
#define RDMACTL_PROBE_RDMA_H

/* Signal one write in this many (perftest's cq_mod)... */
#define PROBE_CQ_MOD	100
/* ...but each write larger than this (perftest's MSG_SIZE_CQ_MOD_LIMIT). */
#define PROBE_CQ_MOD_MAX_SIZE 8192
#define PROBE_POLL_BATCH 16
#define PROBE_INLINE_WANT 220

struct probe_ops;

/* RC QPs connected from EP_INFO's details; the same through rdma_cm. */
extern const struct probe_ops probe_rdma_ops, probe_rdma_cm_ops;

#endif
