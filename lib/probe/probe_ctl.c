// SPDX-License-Identifier: MIT
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "probe/probe_ctl.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void addr_text(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	const void *a = ss->ss_family == AF_INET6
		? (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr
		: (const void *)&((const struct sockaddr_in *)ss)->sin_addr;

	if (!inet_ntop(ss->ss_family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	/* "::ffff:10.0.0.1" from a dual-stack socket reads better as 10.0.0.1. */
	if (!strncmp(buf, "::ffff:", 7) && strchr(buf, '.'))
		memmove(buf, buf + 7, strlen(buf + 7) + 1);
}

static void fill_names(struct probe_ctl *c)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int one = 1;

	if (!getpeername(c->fd, (struct sockaddr *)&ss, &sl))
		addr_text(&ss, c->peer, sizeof(c->peer));
	sl = sizeof(ss);
	if (!getsockname(c->fd, (struct sockaddr *)&ss, &sl))
		addr_text(&ss, c->local, sizeof(c->local));
	/* Small request/reply frames: don't let Nagle hold them back. */
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int ctl_resolve(const char *host, uint16_t port, bool passive, struct addrinfo **res)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = passive ? AI_PASSIVE : 0 };
	char ps[8];

	snprintf(ps, sizeof(ps), "%u", port);
	return getaddrinfo(host && *host ? host : NULL, ps, &hints, res);
}

/* getaddrinfo's failure as -errno, for callers that only pass addresses. */
static int gai_errno(int gai)
{
	switch (gai) {
	case EAI_SYSTEM: return errno ? -errno : -EIO;
	case EAI_MEMORY: return -ENOMEM;
	case EAI_AGAIN: return -EAGAIN;
	default: return -EHOSTUNREACH;
	}
}

int ctl_listen(const char *bind_addr, uint16_t port, int *fd)
{
	struct addrinfo *res, *ai;
	int ret, s = -1, one = 1;

	ret = ctl_resolve(bind_addr, port, true, &res);
	if (ret)
		return gai_errno(ret);
	ret = -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (s < 0) {
			ret = -errno;
			continue;
		}
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(s, ai->ai_addr, ai->ai_addrlen) && !listen(s, SOMAXCONN))
			break;
		ret = -errno;
		close(s);
		s = -1;
	}
	freeaddrinfo(res);
	if (s < 0)
		return ret;
	*fd = s;
	return 0;
}

static int wait_fd(int fd, short events, int timeout_ms)
{
	struct pollfd p = { fd, events, 0 };
	int ret;

	do
		ret = poll(&p, 1, timeout_ms);
	while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	return ret ? 0 : -ETIMEDOUT;
}

int ctl_accept(int lfd, int timeout_ms, struct probe_ctl *c)
{
	int ret, fd;

	ret = wait_fd(lfd, POLLIN, timeout_ms);
	if (ret)
		return ret;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	fill_names(c);
	return 0;
}

static int connect_one(const struct addrinfo *ai, int timeout_ms)
{
	socklen_t sl = sizeof(int);
	int s, ret, err = 0, fl;

	s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return -errno;
	if (connect(s, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		ret = -errno;
		goto err_socket;
	}
	ret = wait_fd(s, POLLOUT, timeout_ms);
	if (ret)
		goto err_socket;
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &sl) || err) {
		ret = err ? -err : -errno;
		goto err_socket;
	}
	fl = fcntl(s, F_GETFL);
	fcntl(s, F_SETFL, fl & ~O_NONBLOCK);
	return s;
err_socket:
	close(s);
	return ret;
}

int ctl_connect_ai(const struct addrinfo *res, int timeout_ms, struct probe_ctl *c)
{
	const struct addrinfo *ai;
	int s = -ENOENT;

	for (ai = res; ai; ai = ai->ai_next) {
		s = connect_one(ai, timeout_ms);
		if (s >= 0)
			break;
	}
	if (s < 0)
		return s;
	memset(c, 0, sizeof(*c));
	c->fd = s;
	fill_names(c);
	return 0;
}

int ctl_connect(const char *host, uint16_t port, int timeout_ms, struct probe_ctl *c)
{
	struct addrinfo *res;
	int ret;

	ret = ctl_resolve(host, port, false, &res);
	if (ret)
		return gai_errno(ret);
	ret = ctl_connect_ai(res, timeout_ms, c);
	freeaddrinfo(res);
	return ret;
}

void ctl_close(struct probe_ctl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static int send_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int ctl_send(struct probe_ctl *c, const struct probe_frame *f)
{
	uint8_t buf[PROBE_MAX_FRAME];
	int n = probe_encode(f, buf, sizeof(buf));

	if (n < 0)
		return n;
	return send_all(c->fd, buf, (size_t)n);
}

void ctl_send_error(struct probe_ctl *c, uint16_t code, const char *fmt, ...)
{
	struct probe_frame f = { .type = PROBE_MSG_ERROR };
	va_list ap;

	f.u.error.code = code;
	va_start(ap, fmt);
	vsnprintf(f.u.error.msg, sizeof(f.u.error.msg), fmt, ap);
	va_end(ap);
	ctl_send(c, &f);
}

/* Read exactly @n bytes before @deadline (ns). */
static int recv_all(int fd, uint8_t *p, size_t n, uint64_t deadline)
{
	while (n) {
		uint64_t now = now_ns();
		ssize_t r;
		int ret;

		if (now >= deadline)
			return -ETIMEDOUT;
		ret = wait_fd(fd, POLLIN, (int)((deadline - now + 999999) / 1000000));
		if (ret)
			return ret;
		r = recv(fd, p, n, MSG_DONTWAIT);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ECONNRESET;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int ctl_recv(struct probe_ctl *c, struct probe_frame *f, int timeout_ms)
{
	uint8_t hdr[PROBE_HDR_LEN], payload[PROBE_MAX_PAYLOAD];
	uint64_t deadline = now_ns() + (uint64_t)(timeout_ms < 0 ? c->timeout_ms : timeout_ms) * 1000000ull;
	uint16_t type;
	uint32_t len;
	int ret;

	ret = recv_all(c->fd, hdr, sizeof(hdr), deadline);
	if (!ret)
		ret = probe_decode_header(hdr, &type, &len);
	if (!ret)
		ret = recv_all(c->fd, payload, len, deadline);
	if (!ret)
		ret = probe_decode(type, payload, len, f);
	return ret;
}

int ctl_expect(struct probe_ctl *c, uint16_t type, struct probe_frame *f)
{
	int ret;

	for (;;) {
		ret = ctl_recv(c, f, -1);
		if (ret)
			return ret;
		if (f->type == type)
			return 0;
		if (f->type == PROBE_MSG_ERROR) {
			c->last_error = f->u.error;
			return -EREMOTEIO;
		}
		if (f->type != PROBE_MSG_PROGRESS)
			return -EPROTO;
		if (c->on_progress)
			c->on_progress(c->progress_arg, &f->u.progress);
	}
}

int ctl_pending(struct probe_ctl *c)
{
	return wait_fd(c->fd, POLLIN, 0) == 0;
}

/* Where the next bytes of the frame go, and how many it still needs. */
static uint8_t *rx_space(struct ctl_rx *rx, size_t *want)
{
	if (rx->have < PROBE_HDR_LEN) {
		*want = PROBE_HDR_LEN - rx->have;
		return rx->hdr + rx->have;
	}
	*want = PROBE_HDR_LEN + rx->len - rx->have;
	return rx->payload + (rx->have - PROBE_HDR_LEN);
}

/* @n bytes were put at rx_space(): 0 with the whole frame in @f, -EAGAIN, or an error. */
static int rx_took(struct ctl_rx *rx, size_t n, struct probe_frame *f)
{
	static const uint8_t none[1];
	int ret = 0;

	rx->have += (uint32_t)n;
	if (rx->have == PROBE_HDR_LEN) {
		ret = probe_decode_header(rx->hdr, &rx->type, &rx->len);
		if (!ret && rx->len && !(rx->payload = malloc(rx->len)))
			ret = -ENOMEM;
	}
	if (!ret && rx->have < PROBE_HDR_LEN + rx->len)
		return -EAGAIN;
	if (!ret)
		ret = probe_decode(rx->type, rx->len ? rx->payload : none, rx->len, f);
	ctl_rx_free(rx);
	return ret;
}

int ctl_rx_feed(struct ctl_rx *rx, const uint8_t *p, size_t n, size_t *used, struct probe_frame *f)
{
	size_t want, k;
	uint8_t *dst;
	int ret;

	for (*used = 0; *used < n; *used += k) {
		dst = rx_space(rx, &want);
		k = want < n - *used ? want : n - *used;
		memcpy(dst, p + *used, k);
		ret = rx_took(rx, k, f);
		if (ret != -EAGAIN) {
			*used += k;
			return ret;
		}
	}
	return -EAGAIN;
}

int ctl_rx_recv(struct probe_ctl *c, struct ctl_rx *rx, struct probe_frame *f)
{
	size_t want;
	uint8_t *dst;
	ssize_t r;
	int ret;

	for (;;) {
		dst = rx_space(rx, &want);
		r = recv(c->fd, dst, want, MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
		if (r == 0)
			return -ECONNRESET;
		ret = rx_took(rx, (size_t)r, f);
		if (ret != -EAGAIN)
			return ret;
	}
}

void ctl_rx_free(struct ctl_rx *rx)
{
	free(rx->payload);
	rx->payload = NULL;
	rx->have = 0;
	rx->len = 0;
}

int ctl_set_blocking(struct probe_ctl *c, int blocking)
{
	int fl = fcntl(c->fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = blocking ? fl & ~O_NONBLOCK : fl | O_NONBLOCK;
	return fcntl(c->fd, F_SETFL, fl) ? -errno : 0;
}

const char *ctl_strerror(int err)
{
	switch (err) {
	case -ETIMEDOUT:
		return "timed out";
	case -ECONNRESET:
		return "the peer closed the connection";
	case -EMSGSIZE:
		return "frame longer than the protocol allows";
	case -EBADMSG:
		return "malformed frame";
	case -EPROTO:
		return "unexpected message";
	default:
		return strerror(-err);
	}
}
