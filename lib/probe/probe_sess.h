/* SPDX-License-Identifier: MIT */
/*
 * The probe session as the transports see it: what the user asked for,
 * the state of one session (struct probe_sess), the operations a
 * transport gives (struct probe_ops), and the helpers the transports call
 * while they move the data (failure lines, progress, the --verify
 * pattern, latency and peak figures).
 *
 * The client, the handshake and the choice of transport (probe.h) sit
 * above this and above the transports (probe_rdma.h, probe_tcp.h); the
 * transports reach only this, so they never call back into probe.c.
 */
#ifndef RDMACTL_PROBE_SESS_H
#define RDMACTL_PROBE_SESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/probe_ctl.h"
#include "probe/probe_proto.h"

struct ctx;

/* What the user asked for (both ends; the server's workload comes from the client). */
struct probe_cfg {
	struct probe_test_req req;	/* the workload (client) */
	uint16_t port;			/* control port */
	const char *bind;		/* server: listen address */
	bool once;			/* server: one session, then exit */
	uint64_t max_size;		/* server: cap of message size x QPs */
	int timeout_ms;			/* every wait */
	char dev[64];			/* -d DEV; "" automatic */
	unsigned int ib_port;		/* -d DEV/PORT; 0 automatic */
	int gid_index;			/* -x; -1 automatic */
	double expect_gbps;		/* --expect; 0 none */
	const char *token;		/* --token or RDMACTL_TOKEN; NULL none (probe_auth.h) */
	int ready_fd;			/* server: > 0, one byte written once it listens */
	uint32_t tcp_pace_mbps;		/* RDMACTL_PROBE_TCP_PACE (a test aid); 0 none */
	uint8_t ack_timeout;		/* RDMACTL_PROBE_ACK_TIMEOUT (a test aid); 0 the default */
	bool busy_poll;			/* RDMACTL_PROBE_BUSY_POLL=1 (a test aid): poll as ib_write_bw */
	int greet_ms;			/* server: RDMACTL_PROBE_GREET_MS (a test aid); 0 the default */
};

/* How the ends were set up: printed above the table and in JSON. */
struct probe_summary {
	const char *transport;		/* "rdma", "rdma-cm", "tcp" */
	struct probe_ep_info local, remote;
	char local_gid_type[16], remote_gid_type[16];
	unsigned int path_mtu;		/* RDMA: min of both active MTUs */
	unsigned int inline_max;	/* RDMA: sizes up to this are posted inline */
};

struct probe_sess;

struct probe_ops {
	const char *name;
	/* Open local resources for s->req (server: before TEST_ACK). */
	int (*setup)(struct probe_sess *s);
	/* Connect before EP_INFO is exchanged (rdma_cm); may be NULL. */
	int (*connect)(struct probe_sess *s);
	/* Describe this end for the peer. */
	void (*local_info)(struct probe_sess *s, struct probe_ep_info *ep);
	/* Finish the connection with s->remote (QPs to RTS, data sockets). */
	int (*finish)(struct probe_sess *s);
	/* Before START/READY of @size: fill the pattern, clear what is received. */
	void (*prepare)(struct probe_sess *s, uint64_t size);
	/* The bandwidth part of @size, DONE exchanged; this end's result in @out. */
	int (*bandwidth)(struct probe_sess *s, uint64_t size, struct probe_result *out);
	/* The ping-pong of @size; the client's timings in @out. */
	int (*latency)(struct probe_sess *s, uint64_t size, struct probe_result *out);
	void (*teardown)(struct probe_sess *s);
};

struct probe_sess {
	struct ctx *ctx;
	const struct probe_cfg *cfg;
	struct probe_ctl ctl;
	bool server;
	char peer[64];			/* host as given, or the client's address */
	uint8_t nonce[PROBE_NONCE_LEN];	/* this end's, in its HELLO when it has a token */
	struct probe_hello peer_hello;
	struct probe_test_req req;
	struct probe_ep_info local, remote;
	struct probe_summary summary;
	const struct probe_ops *ops;
	void *priv;			/* the transport's state */
	/* Progress line (TTY only). */
	uint64_t prog_start_ns, prog_last_ns;
	bool prog_shown;
	bool corrupt;			/* RDMACTL_PROBE_CORRUPT set: a test aid */
	bool quiet;			/* server handshake: no line on stderr (log rate) */
};

/* True when this end writes data in the bandwidth part. */
static inline bool probe_is_sender(const struct probe_sess *s)
{
	return !s->server || (s->req.flags & PROBE_F_BIDIR);
}

/*
 * A step failed: say so on stderr (one line: the step, the reason, what to
 * check; none when s->quiet) and, unless @code is 0, tell the peer with
 * ERROR @code.  Returns @err for chaining.
 */
int probe_fail(struct probe_sess *s, int err, uint16_t code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Send a PROGRESS and update the progress line, at most once a second. */
void probe_progress(struct probe_sess *s, uint64_t size, uint64_t bytes, uint64_t start_ns);
void probe_progress_clear(struct probe_sess *s);

/* The --verify pattern: byte @i of a message of @size. */
static inline uint8_t probe_pattern(uint32_t seed, uint64_t size, uint64_t i)
{
	uint64_t x = ((i + 1) ^ (uint64_t)seed << 32 ^ size * 0x2545f4914f6cdd1dull) *
		     0x9e3779b97f4a7c15ull;

	return (uint8_t)(x >> 56 ^ x >> 32);
}
void probe_fill(uint8_t *buf, uint32_t seed, uint64_t size, uint64_t from, size_t n);
/* With RDMACTL_PROBE_CORRUPT set, flip the first byte of the message @msg (a test aid). */
void probe_corrupt_for_test(const struct probe_sess *s, uint8_t *msg);
/* Bytes of @buf (stream offset @from) that differ from the pattern. */
uint64_t probe_check(const uint8_t *buf, uint32_t seed, uint64_t size, uint64_t from, size_t n);

/* Sorted latency samples (ns) -> min/median/p99 in @out. */
void probe_lat_stats(uint64_t *ns, size_t n, struct probe_result *out);

/* Peak rate: best rate over windows of at least @min_bytes, from (time, bytes) samples. */
uint64_t probe_peak_bps(const uint64_t *t_ns, const uint64_t *bytes, size_t n, uint64_t min_bytes);

#endif
