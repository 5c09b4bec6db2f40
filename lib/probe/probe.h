/* SPDX-License-Identifier: MIT */
/*
 * The probe session: the steps both ends of `rdmactl probe` walk through
 * over the control connection (probe_proto.h), and the transports (RDMA
 * in probe_rdma.c, TCP in probe_tcp.c) that move the data.
 */
#ifndef RDMACTL_PROBE_H
#define RDMACTL_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "probe/probe_ctl.h"
#include "probe/probe_proto.h"

struct ctx;

#define PROBE_DEFAULT_SIZE	(64u * 1024)
#define PROBE_DEFAULT_ITERS	5000
#define PROBE_DEFAULT_DEPTH	128
#define PROBE_DEFAULT_LAT_ITERS	1000
#define PROBE_DEFAULT_TIMEOUT_MS 10000
#define PROBE_DEFAULT_MAX_SIZE	(1ull << 30)

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
};

/* One size's row, as both ends print it. */
struct probe_row {
	uint64_t size;
	uint64_t msgs;			/* messages moved, both directions */
	double peak_gbps, avg_gbps;	/* 10^9 bit/s */
	double msg_rate_mpps;
	double lat_min_us, lat_med_us, lat_p99_us;	/* < 0: not measured */
	uint64_t verify_errors, verified;
};

/* How the ends were set up: printed above the table and in JSON. */
struct probe_summary {
	const char *transport;		/* "rdma", "rdma-cm", "tcp" */
	struct probe_ep_info local, remote;
	char local_gid_type[16], remote_gid_type[16];
	unsigned int path_mtu;		/* RDMA: min of both active MTUs */
	unsigned int inline_max;	/* RDMA: sizes up to this are posted inline */
};

struct hwcnt;

/*
 * Called by the session as results arrive: once the ends are connected
 * (@row NULL) and after each size.  The command prints from here.
 */
struct probe_report {
	void (*setup)(struct probe_report *r, const struct probe_summary *s);
	void (*row)(struct probe_report *r, const struct probe_row *row);
	/*
	 * RDMA: after the sizes (also when one failed), the port counters of
	 * @dev/@port that signal trouble and grew meanwhile (hwcnt.h); not
	 * called when the port has no readable counters.
	 */
	void (*counters)(struct probe_report *r, const char *dev, unsigned int port,
			 const struct hwcnt *grew);
	/* The session ended (0 or -errno); the server calls it for each client. */
	void (*end)(struct probe_report *r, const char *peer, int err);
	void *arg;
};

/* Run the client side against @peer; 0 or -errno (the failure already explained). */
int probe_client(struct ctx *ctx, const char *peer, const struct probe_cfg *cfg,
		 struct probe_report *rep);

/*
 * Open a control connection to the probe server at @peer (cfg->port,
 * cfg->timeout_ms) and complete HELLO, and the token's proof when
 * cfg->token is set or the server asks for one: what probe_client() does
 * before its request.  0 with @ctl open (close it with ctl_close()) and
 * the server's HELLO in @hello; or -errno, the failure already one line
 * on stderr: -EACCES authentication failed, -EPROTONOSUPPORT another
 * protocol version, -EPROTO not a probe server, or the connection's error.
 */
int probe_client_open(struct ctx *ctx, const char *peer, const struct probe_cfg *cfg,
		      struct probe_ctl *ctl, struct probe_hello *hello);

/*
 * Serve clients until killed (or one with cfg->once), in probe_server.c.
 * Each session's failure is one line on stderr; the server goes on.  @rep
 * is called for every session.  Returns only on a set-up failure or after
 * --once: 0 or -errno.
 */
int probe_server(struct ctx *ctx, const struct probe_cfg *cfg, struct probe_report *rep);

/* ---- used by the transports ---- */

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

/* ---- the server's handshake and session (probe_server.c drives them) ---- */

/* Where a client is in the handshake, one frame at a time. */
enum probe_greet {
	PROBE_GREET_HELLO,	/* waiting for its HELLO */
	PROBE_GREET_AUTH,	/* our HELLO sent with a nonce: waiting for AUTH_RESPONSE */
	PROBE_GREET_REQUEST,	/* waiting for TEST_REQ or NODE_INFO_REQ */
	PROBE_GREET_DONE,	/* the request is in and acceptable: serve it */
};

/* A server's session on the accepted connection @ctl (s takes it over). */
void probe_sess_server(struct probe_sess *s, struct ctx *ctx, const struct probe_cfg *cfg,
		       const struct probe_ctl *ctl);
/*
 * The client's frame @f in state *@st: answer it (HELLO, AUTH_PROOF) and
 * move *@st on.  At PROBE_GREET_DONE, @f holds a request the server
 * accepts (limits checked).  0, or -errno with the failure already one
 * line on stderr (unless s->quiet) and told to the client.
 */
int probe_greet(struct probe_sess *s, enum probe_greet *st, struct probe_frame *f);
/*
 * Reading the client's frame in state @st failed with @err: say so
 * ("Failed to read HELLO: @why", @why NULL for @err's text) and, with
 * @code, tell the client.  Returns @err.
 */
int probe_greet_fail(struct probe_sess *s, enum probe_greet st, int err, uint16_t code,
		     const char *why);
/*
 * Serve the request @req that probe_greet() accepted, in this process;
 * calls @rep's end and closes the connection.  0 or -errno.
 */
int probe_serve(struct probe_sess *s, const struct probe_frame *req, struct probe_report *rep);

extern const struct probe_ops probe_rdma_ops, probe_rdma_cm_ops, probe_tcp_ops;

/* True when this end writes data in the bandwidth part. */
static inline bool probe_is_sender(const struct probe_sess *s)
{
	return !s->server || (s->req.flags & PROBE_F_BIDIR);
}

/*
 * A step failed: say so on stderr (one line: the step, the reason, what to
 * check) and tell the peer with ERROR @code.  Returns @err for chaining.
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
