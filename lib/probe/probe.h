/* SPDX-License-Identifier: MIT */
/*
 * The probe session: the steps both ends of `rdmactl probe` walk through
 * over the control connection (probe_proto.h), and the choice of the
 * transport (RDMA in probe_rdma.c, TCP in probe_tcp.c) that moves the
 * data.  The session's state and the helpers the transports share are in
 * probe_sess.h, below both.
 */
#ifndef RDMACTL_PROBE_H
#define RDMACTL_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "probe/probe_ctl.h"
#include "probe/probe_proto.h"
#include "probe/probe_sess.h"

struct ctx;

#define PROBE_DEFAULT_SIZE	(64u * 1024)
#define PROBE_DEFAULT_ITERS	5000
#define PROBE_DEFAULT_DEPTH	128
#define PROBE_DEFAULT_LAT_ITERS	1000
#define PROBE_DEFAULT_TIMEOUT_MS 10000
#define PROBE_DEFAULT_MAX_SIZE	(1ull << 30)

/* One size's row, as both ends print it. */
struct probe_row {
	uint64_t size;
	uint64_t msgs;			/* messages moved, both directions */
	double peak_gbps, avg_gbps;	/* 10^9 bit/s */
	double msg_rate_mpps;
	double lat_min_us, lat_med_us, lat_p99_us;	/* < 0: not measured */
	uint64_t verify_errors, verified;
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

/*
 * RDMACTL_PROBE_ACK_TIMEOUT, a test aid (rdmactl-probe(8)) of every
 * command whose RDMA probe writes (probe, doctor --peer): the exponent
 * T of its QPs' ACK timeout into *out, 1 to 31; unset or empty, *out
 * left as it was.  0, or -EINVAL said.
 */
int probe_ack_timeout_from_env(const struct ctx *ctx, uint8_t *out);

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

#endif
