// SPDX-License-Identifier: MIT
/*
 * TCP transport of the probe.  Bandwidth: the senders write messages of
 * the size on every stream, the receivers read and (with --verify) check
 * the pattern; one poll loop serves both directions, so --bidir needs no
 * threads.  The rate is measured where the bytes arrive, as iperf3 does.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probe/probe_sess.h"
#include "probe/probe_tcp.h"

#define RX_CHUNK	(256 * 1024)
#define MAX_SAMPLES	4096

struct tcp_stream {
	int fd;
	uint64_t tx_goal;	/* bytes to send; UINT64_MAX until the deadline */
	uint64_t tx, rx;	/* bytes so far */
	uint64_t rx_goal;	/* from the peer's DONE; UINT64_MAX until then */
};

struct tcp_state {
	int lfd;
	uint16_t data_port;
	uint8_t *tx_buf, *rx_buf;
	struct tcp_stream st[PROBE_MAX_QPS];
	unsigned int n;
	/* bandwidth run */
	uint64_t start_ns, last_io_ns, rx_last_ns;
	bool tx_done, rx_done_msg;
	uint64_t verify_errors, verified;
	uint64_t t_ns[MAX_SAMPLES], bytes[MAX_SAMPLES];
	size_t nsamples;
};

uint32_t probe_lat_rounds(const struct probe_test_req *req, uint64_t size)
{
	uint64_t cap = (4ull << 20) / size;

	if (cap < 10)
		cap = 10;
	return req->lat_iters < cap ? req->lat_iters : (uint32_t)cap;
}

/*
 * @pace_mbps, when not 0, caps what the stream sends (the kernel's own
 * pacing, SO_MAX_PACING_RATE): a test aid (rdmactl-probe(8), ENVIRONMENT)
 * that keeps a loopback test of seconds from taking two cores for them.
 */
static void set_sock_opts(int fd, uint32_t pace_mbps)
{
	unsigned int rate = pace_mbps * 125000u;
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (pace_mbps)
		setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof(rate));
}

static int tcp_setup(struct probe_sess *s)
{
	struct tcp_state *t = calloc(1, sizeof(*t));
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int ret;

	if (!t)
		return probe_fail(s, -ENOMEM, PROBE_ERR_SETUP, "Failed to allocate TCP state");
	t->lfd = -1;
	s->priv = t;
	t->tx_buf = malloc(s->req.size_max);
	t->rx_buf = malloc(s->req.size_max > RX_CHUNK ? s->req.size_max : RX_CHUNK);
	if (!t->tx_buf || !t->rx_buf)
		return probe_fail(s, -ENOMEM, PROBE_ERR_SETUP, "Failed to allocate %llu B buffers",
				  (unsigned long long)s->req.size_max);
	if (!s->server)
		return 0;
	/* Data streams go to the address the control connection came to. */
	ret = ctl_listen(s->ctl.local, 0, &t->lfd);
	if (!ret && getsockname(t->lfd, (struct sockaddr *)&ss, &sl))
		ret = -errno;
	if (ret)
		return probe_fail(s, ret, PROBE_ERR_SETUP, "Failed to listen for data streams: %s",
				  strerror(-ret));
	t->data_port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						       : ((struct sockaddr_in *)&ss)->sin_port);
	return 0;
}

static void tcp_local_info(struct probe_sess *s, struct probe_ep_info *ep)
{
	struct tcp_state *t = s->priv;

	memset(ep, 0, sizeof(*ep));
	ep->transport = PROBE_TRANSPORT_TCP;
	ep->data_port = t->data_port;
	ep->nqps = s->req.qps;
	ep->buf_len = s->req.size_max;
	snprintf(ep->addr, sizeof(ep->addr), "%s", s->ctl.local);
}

static int tcp_finish(struct probe_sess *s)
{
	struct tcp_state *t = s->priv;
	struct probe_ctl c;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < s->req.qps; i++) {
		if (s->server)
			ret = ctl_accept(t->lfd, s->cfg->timeout_ms, &c);
		else
			ret = ctl_connect(s->peer, s->remote.data_port, s->cfg->timeout_ms, &c);
		if (ret)
			return probe_fail(s, ret, PROBE_ERR_SETUP,
					  "Failed to %s data stream %u (TCP port %u): %s; is that port open?",
					  s->server ? "accept" : "connect", i,
					  s->server ? t->data_port : s->remote.data_port,
					  ctl_strerror(ret));
		set_sock_opts(c.fd, s->cfg->tcp_pace_mbps);
		t->st[i].fd = c.fd;
		t->n++;
	}
	return 0;
}

static void tcp_prepare(struct probe_sess *s, uint64_t size)
{
	struct tcp_state *t = s->priv;

	probe_fill(t->tx_buf, s->req.seed, size, 0, size);
	probe_corrupt_for_test(s, t->tx_buf);
}

/* Send what the stream may send now; 0 or -errno. */
static int stream_tx(struct tcp_stream *st, const uint8_t *buf, uint64_t size)
{
	uint64_t off = st->tx % size, left = st->tx_goal - st->tx;
	size_t n = (size_t)(size - off < left ? size - off : left);
	ssize_t w = send(st->fd, buf + off, n, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (w < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	st->tx += (uint64_t)w;
	return 0;
}

static int stream_rx(struct probe_sess *s, struct tcp_state *t, struct tcp_stream *st, uint64_t size)
{
	ssize_t r = recv(st->fd, t->rx_buf, RX_CHUNK, MSG_DONTWAIT);

	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (r == 0)
		return -ECONNRESET;
	if (s->req.flags & PROBE_F_VERIFY) {
		t->verify_errors += probe_check(t->rx_buf, s->req.seed, size, st->rx, (size_t)r);
		t->verified += (uint64_t)r;
	}
	st->rx += (uint64_t)r;
	t->rx_last_ns = now_ns();
	return 0;
}

static bool tx_active(const struct probe_sess *s, const struct tcp_state *t)
{
	return probe_is_sender(s) && !t->tx_done;
}

static bool rx_active(const struct probe_sess *s)
{
	return s->server || (s->req.flags & PROBE_F_BIDIR);
}

static uint64_t rx_total(const struct tcp_state *t)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < t->n; i++)
		sum += t->st[i].rx;
	return sum;
}

static uint64_t tx_total(const struct tcp_state *t)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < t->n; i++)
		sum += t->st[i].tx;
	return sum;
}

static bool rx_complete(const struct probe_sess *s, const struct tcp_state *t)
{
	unsigned int i;

	if (!rx_active(s))
		return true;
	if (!t->rx_done_msg)
		return false;
	for (i = 0; i < t->n; i++)
		if (t->st[i].rx < t->st[i].rx_goal)
			return false;
	return true;
}

/* Duration reached: finish the message in flight on each stream, then stop. */
static void end_duration(struct tcp_state *t, uint64_t size)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (t->st[i].tx_goal == UINT64_MAX)
			t->st[i].tx_goal = (t->st[i].tx + size - 1) / size * size;
}

static int send_done(struct probe_sess *s, struct tcp_state *t, uint64_t size)
{
	struct probe_frame f = { .type = PROBE_MSG_DONE };
	unsigned int i;

	f.u.done.size = size;
	f.u.done.n = (uint16_t)t->n;
	for (i = 0; i < t->n; i++)
		f.u.done.bytes[i] = t->st[i].tx;
	t->tx_done = true;
	return ctl_send(&s->ctl, &f);
}

/* A control frame while running: the peer's DONE, PROGRESS, or its ERROR. */
static int ctl_event(struct probe_sess *s, struct tcp_state *t)
{
	struct probe_frame f;
	unsigned int i;
	int ret = ctl_recv(&s->ctl, &f, -1);

	if (ret)
		return ret;
	if (f.type == PROBE_MSG_PROGRESS)
		return 0;
	if (f.type == PROBE_MSG_ERROR) {
		s->ctl.last_error = f.u.error;
		return -EREMOTEIO;
	}
	if (f.type != PROBE_MSG_DONE || f.u.done.n != t->n)
		return -EPROTO;
	for (i = 0; i < t->n; i++)
		t->st[i].rx_goal = f.u.done.bytes[i];
	t->rx_done_msg = true;
	return 0;
}

static void sample(struct tcp_state *t)
{
	uint64_t now = now_ns();

	if (t->nsamples && now - t->t_ns[t->nsamples - 1] < 10000000ull)
		return;
	if (t->nsamples == MAX_SAMPLES)
		return;
	t->t_ns[t->nsamples] = now;
	t->bytes[t->nsamples++] = rx_total(t);
}

static int poll_once(struct probe_sess *s, struct tcp_state *t, uint64_t size)
{
	struct pollfd p[PROBE_MAX_QPS + 1];
	unsigned int i;
	int n, ret;

	for (i = 0; i < t->n; i++) {
		p[i].fd = t->st[i].fd;
		p[i].events = (tx_active(s, t) && t->st[i].tx < t->st[i].tx_goal ? POLLOUT : 0) |
			      (rx_active(s) ? POLLIN : 0);
		p[i].revents = 0;
	}
	p[t->n].fd = s->ctl.fd;
	p[t->n].events = rx_active(s) && !t->rx_done_msg ? POLLIN : 0;
	p[t->n].revents = 0;
	n = poll(p, t->n + 1, 100);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < t->n; i++) {
		if (p[i].revents & (POLLIN | POLLHUP | POLLERR) && rx_active(s) &&
		    (ret = stream_rx(s, t, &t->st[i], size)))
			return ret;
		if (p[i].revents & POLLOUT && (ret = stream_tx(&t->st[i], t->tx_buf, size)))
			return ret;
		if (p[i].revents)
			t->last_io_ns = now_ns();
	}
	if (p[t->n].revents)
		return ctl_event(s, t);
	return 0;
}

static void bw_reset(struct probe_sess *s, struct tcp_state *t, uint64_t size)
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		t->st[i].tx = t->st[i].rx = 0;
		t->st[i].rx_goal = UINT64_MAX;
		t->st[i].tx_goal = s->req.iters ? s->req.iters * size : UINT64_MAX;
	}
	t->tx_done = !probe_is_sender(s);
	t->rx_done_msg = false;
	t->verify_errors = t->verified = 0;
	t->nsamples = 0;
	t->start_ns = t->last_io_ns = t->rx_last_ns = now_ns();
	sample(t);
}

static int bw_loop(struct probe_sess *s, struct tcp_state *t, uint64_t size)
{
	uint64_t deadline = t->start_ns + (uint64_t)s->req.duration_ms * 1000000ull;
	int ret;

	while (!(t->tx_done && rx_complete(s, t))) {
		ret = poll_once(s, t, size);
		if (ret)
			return ret;
		if (rx_active(s))
			sample(t);
		if (tx_active(s, t)) {
			unsigned int i, left = 0;

			if (s->req.duration_ms && now_ns() >= deadline)
				end_duration(t, size);
			for (i = 0; i < t->n; i++)
				left += t->st[i].tx < t->st[i].tx_goal;
			if (!left && (ret = send_done(s, t, size)))
				return ret;
			probe_progress(s, size, tx_total(t), t->start_ns);
		}
		if (now_ns() - t->last_io_ns > (uint64_t)s->cfg->timeout_ms * 1000000ull)
			return -ETIMEDOUT;
	}
	return 0;
}

static int tcp_bandwidth(struct probe_sess *s, uint64_t size, struct probe_result *out)
{
	struct tcp_state *t = s->priv;
	uint64_t rx, el;
	int ret;

	bw_reset(s, t, size);
	ret = bw_loop(s, t, size);
	if (ret == -EREMOTEIO)
		return probe_fail(s, ret, 0, "Failed to move data: the peer reported: %s",
				  s->ctl.last_error.msg);
	if (ret)
		return probe_fail(s, ret, PROBE_ERR_RUN, "Failed to move data over TCP (size %llu): %s",
				  (unsigned long long)size, ctl_strerror(ret));
	if (!rx_active(s))
		return 0;
	rx = rx_total(t);
	if (t->nsamples < MAX_SAMPLES) {
		t->t_ns[t->nsamples] = t->rx_last_ns;
		t->bytes[t->nsamples++] = rx;
	}
	el = t->rx_last_ns - t->start_ns;
	out->bytes = rx;
	out->msgs = rx / size;
	out->elapsed_ns = el;
	out->avg_bps = el ? (uint64_t)((double)rx * 8e9 / (double)el) : 0;
	out->peak_bps = probe_peak_bps(t->t_ns, t->bytes, t->nsamples, rx / 20 ? rx / 20 : 1);
	out->verify_errors = t->verify_errors;
	out->verified = t->verified;
	return 0;
}

/* Move exactly @n bytes one way on @fd before @deadline. */
static int io_full(int fd, uint8_t *buf, size_t n, bool out, uint64_t deadline)
{
	size_t done = 0;

	while (done < n) {
		struct pollfd p = { fd, out ? POLLOUT : POLLIN, 0 };
		uint64_t now = now_ns();
		ssize_t r;

		if (now >= deadline)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)((deadline - now) / 1000000 + 1)) < 0 && errno != EINTR)
			return -errno;
		r = out ? send(fd, buf + done, n - done, MSG_NOSIGNAL | MSG_DONTWAIT)
			: recv(fd, buf + done, n - done, MSG_DONTWAIT);
		if (r < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (r == 0 && !out)
			return -ECONNRESET;
		if (r > 0)
			done += (size_t)r;
	}
	return 0;
}

static int tcp_latency(struct probe_sess *s, uint64_t size, struct probe_result *out)
{
	struct tcp_state *t = s->priv;
	uint32_t i, rounds = probe_lat_rounds(&s->req, size);
	uint64_t *ns = calloc(rounds, sizeof(*ns));
	uint64_t tmo = (uint64_t)s->cfg->timeout_ms * 1000000ull;
	int fd = t->st[0].fd, ret = 0;

	if (!ns)
		return probe_fail(s, -ENOMEM, PROBE_ERR_RUN, "Failed to allocate latency samples");
	for (i = 0; i < rounds && !ret; i++) {
		uint64_t t0 = now_ns();

		if (s->server) {
			ret = io_full(fd, t->rx_buf, size, false, t0 + tmo);
			if (!ret)
				ret = io_full(fd, t->tx_buf, size, true, now_ns() + tmo);
			continue;
		}
		ret = io_full(fd, t->tx_buf, size, true, t0 + tmo);
		if (!ret)
			ret = io_full(fd, t->rx_buf, size, false, now_ns() + tmo);
		ns[i] = (now_ns() - t0) / 2;
	}
	if (!ret && !s->server)
		probe_lat_stats(ns, rounds, out);
	free(ns);
	if (ret)
		return probe_fail(s, ret, PROBE_ERR_RUN, "Failed to run the TCP ping-pong (size %llu): %s",
				  (unsigned long long)size, ctl_strerror(ret));
	return 0;
}

static void tcp_teardown(struct probe_sess *s)
{
	struct tcp_state *t = s->priv;
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		close(t->st[i].fd);
	if (t->lfd >= 0)
		close(t->lfd);
	free(t->tx_buf);
	free(t->rx_buf);
	free(t);
	s->priv = NULL;
}

const struct probe_ops probe_tcp_ops = {
	.name = "tcp",
	.setup = tcp_setup,
	.local_info = tcp_local_info,
	.finish = tcp_finish,
	.prepare = tcp_prepare,
	.bandwidth = tcp_bandwidth,
	.latency = tcp_latency,
	.teardown = tcp_teardown,
};
