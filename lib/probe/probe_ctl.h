/* SPDX-License-Identifier: MIT */
/*
 * The probe's TCP control connection: listen, accept, connect and framed
 * send/receive of probe_proto messages.  Every wait has a deadline.
 */
#ifndef RDMACTL_PROBE_CTL_H
#define RDMACTL_PROBE_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/probe_proto.h"

struct probe_ctl {
	int fd;
	int timeout_ms;			/* for every receive */
	char peer[64];			/* "10.99.0.2" */
	char local[64];			/* this end's address on the connection */
	struct probe_error last_error;	/* the peer's ERROR, when one came */
	/* Called for each PROGRESS ctl_expect() skips; may be NULL. */
	void (*on_progress)(void *arg, const struct probe_progress *p);
	void *progress_arg;
};

/*
 * Listen on @bind (NULL or "" for any) and @port, with the longest backlog
 * the kernel allows, so that many clients connecting at once wait there
 * instead of having their SYNs dropped; 0 or -errno.
 */
int ctl_listen(const char *bind, uint16_t port, int *fd);
/*
 * Wait up to @timeout_ms for a connection (-ETIMEDOUT); on success fill
 * @c (fd, peer, local).
 */
int ctl_accept(int lfd, int timeout_ms, struct probe_ctl *c);
struct addrinfo;
/*
 * getaddrinfo(3) of @host (NULL or "": any address when @passive, else
 * loopback) and @port over TCP: 0, or its EAI_* code for gai_strerror(),
 * so that "cannot resolve" keeps its reason.
 */
int ctl_resolve(const char *host, uint16_t port, bool passive, struct addrinfo **res);
/* Connect to the first of @res that answers within @timeout_ms; 0 or -errno. */
int ctl_connect_ai(const struct addrinfo *res, int timeout_ms, struct probe_ctl *c);
/*
 * Both for an address: -ECONNREFUSED, -ETIMEDOUT, -EHOSTUNREACH (also a
 * name that does not resolve)...
 */
int ctl_connect(const char *host, uint16_t port, int timeout_ms, struct probe_ctl *c);
void ctl_close(struct probe_ctl *c);

/* 0 or -errno (-EPIPE when the peer is gone). */
int ctl_send(struct probe_ctl *c, const struct probe_frame *f);
/* Send ERROR @code with a formatted message; errors ignored (best effort). */
void ctl_send_error(struct probe_ctl *c, uint16_t code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Receive one frame within @timeout_ms (< 0: the connection's timeout).
 * 0, -ETIMEDOUT, -ECONNRESET (peer closed), -EMSGSIZE, -EBADMSG, -EPROTO.
 */
int ctl_recv(struct probe_ctl *c, struct probe_frame *f, int timeout_ms);
/*
 * Receive a frame of @type, skipping PROGRESS frames (each restarts the
 * deadline: the peer is alive).  An ERROR from the peer gives -EREMOTEIO
 * with it in c->last_error; another type gives -EPROTO.
 */
int ctl_expect(struct probe_ctl *c, uint16_t type, struct probe_frame *f);
/* True when a frame (or EOF) is waiting, without blocking. */
int ctl_pending(struct probe_ctl *c);

/*
 * A frame read piece by piece, for a server that waits on many connections
 * at once and must never block on one: ctl_rx_recv() takes what has
 * arrived, never more than the frame still needs (so no byte of the next
 * frame is taken), and says when the frame is whole.  The header is checked
 * as soon as it is in, so a frame longer than the protocol allows is refused
 * before its payload is read; the payload's buffer is allocated only then,
 * so a connection that has sent nothing costs no buffer.
 */
struct ctl_rx {
	uint8_t hdr[PROBE_HDR_LEN];
	uint8_t *payload;	/* once the header is in: len bytes */
	uint16_t type;
	uint32_t len;		/* of the payload, once the header is in */
	uint32_t have;		/* bytes of this frame so far, header included */
};

/*
 * Take up to @n bytes of @p into @rx: 0 when a frame is whole (decoded
 * into @f; @rx is ready for the next one), -EAGAIN when all were taken and
 * more are needed, or ctl_recv()'s -EMSGSIZE, -EBADMSG, -EPROTO, -ENOMEM.
 * *@used: the bytes taken.
 */
int ctl_rx_feed(struct ctl_rx *rx, const uint8_t *p, size_t n, size_t *used, struct probe_frame *f);
/*
 * Read from @c->fd what has arrived of the current frame, without
 * blocking: ctl_rx_feed()'s results, and -ECONNRESET when the peer closed.
 */
int ctl_rx_recv(struct probe_ctl *c, struct ctl_rx *rx, struct probe_frame *f);
/* Free what @rx holds (it may be used again). */
void ctl_rx_free(struct ctl_rx *rx);

/* Make @c's socket blocking or not; 0 or -errno. */
int ctl_set_blocking(struct probe_ctl *c, int blocking);

/* Text of a ctl_* error for messages ("timed out", "peer closed the connection"). */
const char *ctl_strerror(int err);

/* Monotonic clock in nanoseconds. */
uint64_t now_ns(void);

#endif
