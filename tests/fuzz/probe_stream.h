/* SPDX-License-Identifier: MIT */
/*
 * The control connection of a probe end, fed a fuzzed byte stream: the
 * bytes are written into one end of a socket pair and the other end is
 * read with lib/probe/probe_ctl.c exactly as a session reads its peer.
 */
#ifndef RDMACTL_FUZZ_PROBE_STREAM_H
#define RDMACTL_FUZZ_PROBE_STREAM_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "probe/probe_ctl.h"

/* At most this many bytes of stream: all of it fits the socket buffer. */
#define STREAM_MAX (64 * 1024)

/* Open @c reading @data, the peer's side already closed; 0 or -1. */
static inline int stream_open(struct probe_ctl *c, const uint8_t *data, size_t size)
{
	int sv[2], buf = 4 * STREAM_MAX;

	if (size > STREAM_MAX || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (size && write(sv[0], data, size) != (ssize_t)size)
		fuzz_fail("socket pair took only part of %zu bytes", size);
	close(sv[0]);
	memset(c, 0, sizeof(*c));
	c->fd = sv[1];
	/* Every byte is already there: a wait means the reader is waiting for more than EOF. */
	c->timeout_ms = 2000;
	strcpy(c->peer, "fuzz");
	return 0;
}

/* What any decoded frame must satisfy, whatever the session does with it. */
static inline void frame_sane(const struct probe_frame *f)
{
	switch (f->type) {
	case PROBE_MSG_EP_INFO:
		if (f->u.ep.nqps > PROBE_MAX_QPS || !memchr(f->u.ep.dev, 0, sizeof(f->u.ep.dev)) ||
		    !memchr(f->u.ep.addr, 0, sizeof(f->u.ep.addr)))
			fuzz_fail("EP_INFO decoded out of bounds");
		break;
	case PROBE_MSG_DONE:
		if (f->u.done.n > PROBE_MAX_QPS)
			fuzz_fail("DONE decoded with %u counts", f->u.done.n);
		break;
	case PROBE_MSG_ERROR:
		if (!memchr(f->u.error.msg, 0, sizeof(f->u.error.msg)))
			fuzz_fail("ERROR message not terminated");
		break;
	case PROBE_MSG_HELLO:
		if (!memchr(f->u.hello.software, 0, sizeof(f->u.hello.software)))
			fuzz_fail("HELLO software not terminated");
		break;
	}
}

/* A frame's error must be one ctl_recv() documents, and have a text. */
static inline void ctl_err_sane(int ret)
{
	static const int ok[] = { 0, -ETIMEDOUT, -ECONNRESET, -EMSGSIZE, -EBADMSG, -EPROTO,
				  -EREMOTEIO };
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (ret == ok[i]) {
			if (!ctl_strerror(ret))
				fuzz_fail("no text for %d", ret);
			return;
		}
	fuzz_fail("control receive gave undocumented %d", ret);
}

#endif
