// SPDX-License-Identifier: MIT
/*
 * The probe session, both ends: handshake, workload, endpoint exchange,
 * then for each size START/READY, bandwidth, RESULT both ways, latency
 * and the client's ROW.  The transports move the bytes.
 */
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/opt.h"
#include "base/text.h"
#include "node/hwcnt.h"
#include "node/nodeinfo.h"
#include "node/rdma.h"
#include "probe/probe.h"
#include "probe/probe_auth.h"
#include "probe/probe_rdma.h"
#include "probe/probe_sess.h"
#include "probe/probe_tcp.h"

#ifndef RDMACTL_VERSION
#define RDMACTL_VERSION "unknown"
#endif

/* Room for a peer's string once escaped (and cut in the middle when longer). */
#define PEER_TEXT_MAX 640

/*
 * Text the peer sent (its software name, its ERROR's message), for a line
 * here: every control byte escaped, newlines too, so that a stranger's
 * HELLO can neither drive the terminal nor forge a line of the log.
 */
static const char *peer_text(const char *in, char *buf, size_t len)
{
	return text_safe(in, buf, len, 0);
}

/* The peer's PROGRESS while we wait: show it too (the receiving end's line). */
static void on_peer_progress(void *arg, const struct probe_progress *p)
{
	struct probe_sess *s = arg;
	double secs = (double)p->elapsed_us / 1e6;

	if (!isatty(STDERR_FILENO) || secs < 1)
		return;
	fprintf(stderr, "\r%10llu B: %.1f s, %.3f Gb/s so far (peer) ",
		(unsigned long long)p->size, secs, (double)p->bytes * 8 / secs / 1e9);
	s->prog_shown = true;
}

/* ---- handshake ---- */

/* Our HELLO; with a token, flag AUTH and a fresh nonce.  0 or -errno. */
static int hello_frame(struct probe_sess *s, struct probe_frame *f)
{
	int ret;

	memset(f, 0, sizeof(*f));
	f->type = PROBE_MSG_HELLO;
	f->u.hello.magic = PROBE_MAGIC;
	f->u.hello.version = PROBE_PROTO_VERSION;
	f->u.hello.role = s->server;
	snprintf(f->u.hello.software, sizeof(f->u.hello.software), "rdmactl %s", RDMACTL_VERSION);
	if (!s->cfg->token)
		return 0;
	f->u.hello.flags = PROBE_HELLO_AUTH;
	ret = probe_auth_nonce(s->nonce);
	if (ret)
		return probe_fail(s, ret, PROBE_ERR_SETUP, "Failed to draw a nonce: %s", strerror(-ret));
	memcpy(f->u.hello.nonce, s->nonce, PROBE_NONCE_LEN);
	return 0;
}

/* Check the peer's HELLO; 0 or -EPROTO / -EPROTONOSUPPORT with the reason explained. */
static int hello_check(struct probe_sess *s, const struct probe_hello *h)
{
	char sw[4 * sizeof(h->software)];

	if (h->magic != PROBE_MAGIC)
		return probe_fail(s, -EPROTO, 0, "Failed to handshake: the peer is not an rdmactl probe "
				  "(bad magic 0x%08x); check the port", h->magic);
	if (h->version != PROBE_PROTO_VERSION)
		return probe_fail(s, -EPROTONOSUPPORT, PROBE_ERR_VERSION,
				  "Failed to handshake: peer '%s' speaks probe protocol version %u, "
				  "this end speaks %u; run the same rdmactl version on both nodes",
				  peer_text(h->software, sw, sizeof(sw)), h->version,
				  PROBE_PROTO_VERSION);
	return 0;
}

static int peer_error(struct probe_sess *s, const char *step, int err)
{
	char msg[PEER_TEXT_MAX];

	if (err == -EREMOTEIO) {
		probe_progress_clear(s);
		log_err(s->ctx, "%s%s%sFailed to %s: %s reported: %s", s->server ? "client " : "",
			s->server ? s->peer : "", s->server ? ": " : "", step,
			s->server ? "the client" : "the server",
			peer_text(s->ctl.last_error.msg, msg, sizeof(msg)));
		return s->ctl.last_error.code == PROBE_ERR_TOO_BIG ||
		       s->ctl.last_error.code == PROBE_ERR_BAD_REQUEST ? -EINVAL : err;
	}
	return probe_fail(s, err, err == -ETIMEDOUT ? PROBE_ERR_TIMEOUT : PROBE_ERR_BAD_REQUEST,
			  "Failed to %s: %s%s", step, ctl_strerror(err),
			  err == -ETIMEDOUT ? " (the peer stalled; see --timeout)" : "");
}

static int expect(struct probe_sess *s, uint16_t type, struct probe_frame *f, const char *step)
{
	int ret = ctl_expect(&s->ctl, type, f);

	return ret ? peer_error(s, step, ret) : 0;
}

static int send_frame(struct probe_sess *s, const struct probe_frame *f, const char *step)
{
	int ret = ctl_send(&s->ctl, f);

	if (ret)
		return probe_fail(s, ret, 0, "Failed to %s: %s", step, strerror(-ret));
	return 0;
}

/* ---- the session, both ends ---- */

static const struct probe_ops *ops_for(const struct probe_test_req *req)
{
	if (req->transport == PROBE_TRANSPORT_TCP)
		return &probe_tcp_ops;
	return req->flags & PROBE_F_RDMA_CM ? &probe_rdma_cm_ops : &probe_rdma_ops;
}

static int exchange_ep(struct probe_sess *s)
{
	struct probe_frame f = { .type = PROBE_MSG_EP_INFO };
	int ret;

	s->ops->local_info(s, &f.u.ep);
	s->local = f.u.ep;
	if (!s->server && (ret = send_frame(s, &f, "send endpoint details")))
		return ret;
	ret = expect(s, PROBE_MSG_EP_INFO, &f, "exchange endpoint details");
	if (ret)
		return ret;
	s->remote = f.u.ep;
	if (s->remote.transport != s->req.transport || s->remote.nqps != s->req.qps)
		return probe_fail(s, -EPROTO, PROBE_ERR_BAD_REQUEST,
				  "Failed to exchange endpoint details: peer sent %u QPs of transport %u",
				  s->remote.nqps, s->remote.transport);
	f.u.ep = s->local;
	f.type = PROBE_MSG_EP_INFO;
	if (s->server && (ret = send_frame(s, &f, "send endpoint details")))
		return ret;
	return 0;
}

static double lat_us(uint64_t ns)
{
	return ns ? (double)ns / 1000.0 : -1;
}

static void make_row(const struct probe_sess *s, const struct probe_result *a,
		     const struct probe_result *b, const struct probe_result *lat,
		     struct probe_row *row)
{
	double secs = 0;

	memset(row, 0, sizeof(*row));
	row->size = a->size;
	row->msgs = a->msgs + b->msgs;
	row->avg_gbps = (double)(a->avg_bps + b->avg_bps) / 1e9;
	row->peak_gbps = (double)(a->peak_bps + b->peak_bps) / 1e9;
	if (row->peak_gbps < row->avg_gbps)
		row->peak_gbps = row->avg_gbps;
	if (a->elapsed_ns || b->elapsed_ns)
		secs = (double)(a->elapsed_ns > b->elapsed_ns ? a->elapsed_ns : b->elapsed_ns) / 1e9;
	row->msg_rate_mpps = secs > 0 ? (double)row->msgs / secs / 1e6 : 0;
	row->lat_min_us = lat_us(lat->lat_min_ns);
	row->lat_med_us = lat_us(lat->lat_med_ns);
	row->lat_p99_us = lat_us(lat->lat_p99_ns);
	row->verify_errors = a->verify_errors + b->verify_errors;
	row->verified = a->verified + b->verified;
	(void)s;
}

static void result_to_row_msg(const struct probe_row *row, struct probe_frame *f)
{
	struct probe_result *r = &f->u.result;

	memset(f, 0, sizeof(*f));
	f->type = PROBE_MSG_ROW;
	r->size = row->size;
	r->msgs = row->msgs;
	r->avg_bps = (uint64_t)(row->avg_gbps * 1e9);
	r->peak_bps = (uint64_t)(row->peak_gbps * 1e9);
	r->elapsed_ns = row->msg_rate_mpps > 0 ? (uint64_t)((double)row->msgs / row->msg_rate_mpps * 1e3) : 0;
	r->lat_min_ns = row->lat_min_us > 0 ? (uint64_t)(row->lat_min_us * 1000 + 0.5) : 0;
	r->lat_med_ns = row->lat_med_us > 0 ? (uint64_t)(row->lat_med_us * 1000 + 0.5) : 0;
	r->lat_p99_ns = row->lat_p99_us > 0 ? (uint64_t)(row->lat_p99_us * 1000 + 0.5) : 0;
	r->verify_errors = row->verify_errors;
	r->verified = row->verified;
}

static void row_from_msg(const struct probe_result *r, struct probe_row *row)
{
	memset(row, 0, sizeof(*row));
	row->size = r->size;
	row->msgs = r->msgs;
	row->avg_gbps = (double)r->avg_bps / 1e9;
	row->peak_gbps = (double)r->peak_bps / 1e9;
	row->msg_rate_mpps = r->elapsed_ns ? (double)r->msgs * 1e3 / (double)r->elapsed_ns : 0;
	row->lat_min_us = lat_us(r->lat_min_ns);
	row->lat_med_us = lat_us(r->lat_med_ns);
	row->lat_p99_us = lat_us(r->lat_p99_ns);
	row->verify_errors = r->verify_errors;
	row->verified = r->verified;
}

/* START/READY: both ends prepared @size before any byte of it moves. */
static int sync_size(struct probe_sess *s, uint64_t size)
{
	struct probe_frame f = { .type = PROBE_MSG_START };
	int ret;

	s->ops->prepare(s, size);
	if (s->server) {
		f.type = PROBE_MSG_READY;
		f.u.start.size = size;
		return send_frame(s, &f, "send READY");
	}
	f.u.start.size = size;
	ret = send_frame(s, &f, "send START");
	if (!ret)
		ret = expect(s, PROBE_MSG_READY, &f, "start the test");
	return ret;
}

static int run_size(struct probe_sess *s, uint64_t size, struct probe_report *rep)
{
	struct probe_result mine = { .size = size }, lat = { .size = size };
	struct probe_frame f = { .type = PROBE_MSG_RESULT };
	struct probe_row row;
	int ret;

	ret = sync_size(s, size);
	if (!ret)
		ret = s->ops->bandwidth(s, size, &mine);
	if (ret)
		return ret;
	probe_progress_clear(s);
	f.u.result = mine;
	ret = send_frame(s, &f, "send the result");
	if (!ret)
		ret = expect(s, PROBE_MSG_RESULT, &f, "receive the peer's result");
	if (!ret && s->req.lat_iters)
		ret = s->ops->latency(s, size, &lat);
	if (ret)
		return ret;
	if (s->server) {
		ret = expect(s, PROBE_MSG_ROW, &f, "receive the result row");
		if (ret)
			return ret;
		row_from_msg(&f.u.result, &row);
	} else {
		make_row(s, &mine, &f.u.result, &lat, &row);
		result_to_row_msg(&row, &f);
		ret = send_frame(s, &f, "send the result row");
		if (ret)
			return ret;
		row_from_msg(&f.u.result, &row);	/* print what the server prints */
	}
	if (rep && rep->row)
		rep->row(rep, &row);
	return 0;
}

static uint64_t next_size(uint64_t size)
{
	return size * 2;
}

static int run_sizes(struct probe_sess *s, struct probe_report *rep)
{
	struct probe_frame f;
	uint64_t size;
	int ret;

	for (size = s->req.size_min; size <= s->req.size_max; size = next_size(size)) {
		if (s->server) {
			ret = expect(s, PROBE_MSG_START, &f, "receive START");
			if (ret)
				return ret;
			if (f.u.start.size != size)
				return probe_fail(s, -EPROTO, PROBE_ERR_BAD_REQUEST,
						  "Failed to start size %llu: the client asked for %llu",
						  (unsigned long long)size,
						  (unsigned long long)f.u.start.size);
		}
		ret = run_size(s, size, rep);
		if (ret)
			return ret;
		if (s->req.size_min == s->req.size_max)
			break;
	}
	f.type = PROBE_MSG_BYE;
	if (!s->server)
		return send_frame(s, &f, "say goodbye");
	return expect(s, PROBE_MSG_BYE, &f, "end the session");
}

static void fill_summary(struct probe_sess *s)
{
	struct probe_summary *m = &s->summary;

	m->transport = s->ops->name;
	m->local = s->local;
	m->remote = s->remote;
	snprintf(m->local_gid_type, sizeof(m->local_gid_type), "%s",
		 gid_type_str((enum gid_type)s->local.gid_type));
	snprintf(m->remote_gid_type, sizeof(m->remote_gid_type), "%s",
		 gid_type_str((enum gid_type)s->remote.gid_type));
	if (s->req.transport == PROBE_TRANSPORT_RDMA)
		m->path_mtu = s->local.mtu < s->remote.mtu ? s->local.mtu : s->remote.mtu;
}

/*
 * run_sizes() with the port's counters read around it: a slow or failed
 * probe whose port counted retransmissions or sequence gaps lost packets
 * on the path, which the bandwidth alone cannot tell from a slow link.
 */
static int run_counted(struct probe_sess *s, struct probe_report *rep)
{
	struct hwcnt *cnt = calloc(3, sizeof(*cnt));	/* before, after, grown */
	bool have = cnt && !hwcnt_read(s->ctx, s->local.dev, s->local.port_num, &cnt[0]);
	int ret = run_sizes(s, rep);

	if (have && !hwcnt_read(s->ctx, s->local.dev, s->local.port_num, &cnt[1])) {
		hwcnt_trouble(&cnt[0], &cnt[1], &cnt[2]);
		if (rep && rep->counters)
			rep->counters(rep, s->local.dev, s->local.port_num, &cnt[2]);
	}
	free(cnt);
	return ret;
}

/* From TEST_ACK on, the same for both ends. */
static int session_body(struct probe_sess *s, struct probe_report *rep)
{
	int ret = 0;

	if (s->corrupt && probe_is_sender(s))
		log_warn(s->ctx, "RDMACTL_PROBE_CORRUPT is set: the data this end sends is corrupted "
			 "on purpose (a test aid)");
	if (s->ops->connect)
		ret = s->ops->connect(s);
	if (!ret)
		ret = exchange_ep(s);
	if (!ret)
		ret = s->ops->finish(s);
	if (ret)
		return ret;
	fill_summary(s);
	if (rep && rep->setup)
		rep->setup(rep, &s->summary);
	return s->local.dev[0] ? run_counted(s, rep) : run_sizes(s, rep);
}

static void sess_init(struct probe_sess *s, struct ctx *ctx, const struct probe_cfg *cfg)
{
	memset(s, 0, sizeof(*s));
	s->ctx = ctx;
	s->cfg = cfg;
	s->ctl.fd = -1;
	s->corrupt = getenv("RDMACTL_PROBE_CORRUPT") != NULL;
}

static void sess_wire_ctl(struct probe_sess *s)
{
	s->ctl.timeout_ms = s->cfg->timeout_ms;
	s->ctl.on_progress = on_peer_progress;
	s->ctl.progress_arg = s;
}

/* ---- client ---- */

/*
 * A name that does not resolve is bad input (exit 2), said as doctor --peer
 * says it, before anything is sent; a resolver that could not answer
 * (EAI_AGAIN, out of memory, a system error) is a failure to retry (exit 1).
 */
static int resolve_fail(struct probe_sess *s, const char *peer, int gai)
{
	int err = gai == EAI_SYSTEM ? errno : 0;

	log_err_errno(s->ctx, err, "cannot resolve '%s': %s; give the peer's IP address on the "
		      "RoCE network", peer, err ? strerror(err) : gai_strerror(gai));
	if (gai == EAI_AGAIN || gai == EAI_MEMORY || gai == EAI_SYSTEM)
		return err ? -err : -EAGAIN;
	return -EINVAL;
}

static int client_connect(struct probe_sess *s, const char *peer)
{
	struct addrinfo *res;
	int ret;

	ret = ctl_resolve(peer, s->cfg->port, false, &res);
	if (ret)
		return resolve_fail(s, peer, ret);
	ret = ctl_connect_ai(res, s->cfg->timeout_ms, &s->ctl);
	freeaddrinfo(res);
	if (ret)
		return probe_fail(s, ret, 0,
				  "Failed to connect to %s port %u: %s. Is `rdmactl probe --server` "
				  "running on %s? Is TCP port %u open?", peer, s->cfg->port,
				  ret == -ETIMEDOUT ? "timed out" : strerror(-ret), peer, s->cfg->port);
	sess_wire_ctl(s);
	return 0;
}

/*
 * What each refusal of a token adds, on both ends: a token made per node
 * (openssl rand run by pdsh on each) is the usual cause, so it says the
 * token is one for the fleet.
 */
#define SAME_TOKEN "both ends need the same token (RDMACTL_TOKEN or --token: one token file, the same on every node)"

/* Refuse with one line here and a short ERROR(AUTH) for the peer's one line. */
static int auth_refuse(struct probe_sess *s, const char *peer_msg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int auth_refuse(struct probe_sess *s, const char *peer_msg, const char *fmt, ...)
{
	char msg[PROBE_MAX_STR + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	probe_fail(s, 0, 0, "%s", msg);	/* the line alone: the peer gets @peer_msg */
	if (peer_msg)
		ctl_send_error(&s->ctl, PROBE_ERR_AUTH, "%s", peer_msg);
	return -EACCES;
}

/* Prove we hold the token, and check the server's proof that it does too. */
static int client_prove(struct probe_sess *s, const uint8_t *sn)
{
	struct probe_frame f = { .type = PROBE_MSG_AUTH_RESPONSE };
	uint8_t expect[PROBE_MAC_LEN];
	int ret;

	if (probe_auth_respond(s->cfg->token, sn, s->nonce, &f.u.auth, expect))
		return probe_fail(s, -EIO, PROBE_ERR_SETUP, "Failed to authenticate: HMAC-SHA256 failed");
	ret = send_frame(s, &f, "send the token's proof");
	if (!ret)
		ret = ctl_expect(&s->ctl, PROBE_MSG_AUTH_PROOF, &f);
	if (ret == -EREMOTEIO && s->ctl.last_error.code == PROBE_ERR_AUTH)
		return auth_refuse(s, NULL, "Failed to authenticate with %s: authentication failed: the "
				   "server refused our token; " SAME_TOKEN,
				   s->peer);
	if (ret)
		return peer_error(s, "authenticate", ret);
	if (!probe_auth_equal(f.u.auth.mac, expect))
		return auth_refuse(s, "authentication failed: the server's proof is wrong",
				   "Failed to authenticate %s: authentication failed: the server does "
				   "not hold our token; check that PEER is the right node", s->peer);
	return 0;
}

static int client_auth(struct probe_sess *s, const struct probe_hello *h)
{
	bool server_auth = h->flags & PROBE_HELLO_AUTH;

	if (!s->cfg->token && !server_auth)
		return 0;
	if (!s->cfg->token)
		return auth_refuse(s, "authentication failed: the client has no token; " SAME_TOKEN,
				   "Failed to authenticate with %s: authentication failed: the server "
				   "requires a token; " SAME_TOKEN,
				   s->peer);
	if (!server_auth)
		return auth_refuse(s, "authentication failed: the client has a token but this server has none",
				   "Failed to authenticate %s: the server has no token, so it cannot "
				   "prove it holds ours; start it with RDMACTL_TOKEN set, or unset "
				   "the token here", s->peer);
	return client_prove(s, h->nonce);
}

static int client_handshake(struct probe_sess *s)
{
	struct probe_frame f;
	int ret;

	ret = hello_frame(s, &f);
	if (ret)
		return ret;
	ret = send_frame(s, &f, "send HELLO");
	if (!ret)
		ret = ctl_recv(&s->ctl, &f, -1);
	if (ret)
		return probe_fail(s, ret, 0, "Failed to handshake with %s port %u: %s. Is that port "
				  "an `rdmactl probe --server`?", s->peer, s->cfg->port, ctl_strerror(ret));
	if (f.type == PROBE_MSG_ERROR) {
		s->ctl.last_error = f.u.error;
		return peer_error(s, "handshake", -EREMOTEIO);
	}
	if (f.type != PROBE_MSG_HELLO)
		return probe_fail(s, -EPROTO, 0, "Failed to handshake: got %s instead of HELLO",
				  probe_msg_name(f.type));
	ret = hello_check(s, &f.u.hello);
	if (ret)
		return ret;
	s->peer_hello = f.u.hello;
	return client_auth(s, &f.u.hello);
}

/* Connect to @peer, then HELLO and the token's proof: the start of every client session. */
static int client_open(struct probe_sess *s, const char *peer)
{
	int ret;

	snprintf(s->peer, sizeof(s->peer), "%s", peer);
	ret = client_connect(s, peer);
	if (!ret)
		ret = client_handshake(s);
	if (ret)
		ctl_close(&s->ctl);
	return ret;
}

int probe_client_open(struct ctx *ctx, const char *peer, const struct probe_cfg *cfg,
		      struct probe_ctl *ctl, struct probe_hello *hello)
{
	struct probe_sess s;
	int ret;

	sess_init(&s, ctx, cfg);
	ret = client_open(&s, peer);
	if (ret)
		return ret;
	/* The session on our stack ends here: no progress callback into it. */
	s.ctl.on_progress = NULL;
	s.ctl.progress_arg = NULL;
	*ctl = s.ctl;
	*hello = s.peer_hello;
	return 0;
}

int probe_ack_timeout_from_env(const struct ctx *ctx, uint8_t *out)
{
	long t = *out;

	if (env_long(ctx, "RDMACTL_PROBE_ACK_TIMEOUT", 1, 31, "an ACK timeout exponent", &t))
		return -EINVAL;
	*out = (uint8_t)t;
	return 0;
}

static int client_request(struct probe_sess *s)
{
	struct probe_frame f = { .type = PROBE_MSG_TEST_REQ };
	int ret;

	f.u.test = s->req;
	ret = send_frame(s, &f, "send the test request");
	if (!ret)
		ret = expect(s, PROBE_MSG_TEST_ACK, &f, "agree on the test");
	return ret;
}

int probe_client(struct ctx *ctx, const char *peer, const struct probe_cfg *cfg,
		 struct probe_report *rep)
{
	struct probe_sess s;
	int ret;

	sess_init(&s, ctx, cfg);
	s.req = cfg->req;
	s.ops = ops_for(&s.req);
	ret = client_open(&s, peer);
	if (ret)
		return ret;
	ret = client_request(&s);
	if (!ret) {
		ret = s.ops->setup(&s);
		if (!ret)
			ret = session_body(&s, rep);
		s.ops->teardown(&s);
	}
	probe_progress_clear(&s);
	ctl_close(&s.ctl);
	return ret;
}

/* ---- server ---- */

/*
 * The handshake runs in probe_server.c's loop, which reads each client's
 * frames as they arrive and calls probe_greet() with each; the session
 * after it runs here, in a child process or (--once) in the server's.
 */

void probe_sess_server(struct probe_sess *s, struct ctx *ctx, const struct probe_cfg *cfg,
		       const struct probe_ctl *ctl)
{
	sess_init(s, ctx, cfg);
	s->server = true;
	s->ctl = *ctl;
	sess_wire_ctl(s);
	snprintf(s->peer, sizeof(s->peer), "%s", s->ctl.peer);
}

/* The client's ERROR: its one line here too. */
static int client_error(struct probe_sess *s, const struct probe_frame *f)
{
	char msg[PEER_TEXT_MAX];

	if (!s->quiet)
		log_err(s->ctx, "client %s: %s", s->peer, peer_text(f->u.error.msg, msg, sizeof(msg)));
	return f->u.error.code == PROBE_ERR_AUTH ? -EACCES : -EREMOTEIO;
}

/* We hold a token: the client must prove it holds it too, then we prove it. */
static int greet_auth(struct probe_sess *s, struct probe_frame *f)
{
	const uint8_t *cn = s->peer_hello.nonce;
	struct probe_auth resp;
	int ret;

	if (f->type == PROBE_MSG_ERROR)
		return client_error(s, f);
	if (f->type != PROBE_MSG_AUTH_RESPONSE || !(s->peer_hello.flags & PROBE_HELLO_AUTH))
		return auth_refuse(s, "authentication failed: this server requires a token; set "
				   "RDMACTL_TOKEN (or --token) to the server's",
				   "authentication failed: the client sent no token (%s instead); " SAME_TOKEN,
				   probe_msg_name(f->type));
	resp = f->u.auth;
	ret = probe_auth_verify(s->cfg->token, s->nonce, cn, &resp, &f->u.auth);
	if (ret == -EACCES)
		return auth_refuse(s, "authentication failed: wrong token; " SAME_TOKEN,
				   "authentication failed: wrong token; " SAME_TOKEN);
	if (ret)
		return probe_fail(s, ret, PROBE_ERR_SETUP, "Failed to authenticate: HMAC-SHA256 failed");
	f->type = PROBE_MSG_AUTH_PROOF;
	return send_frame(s, f, "send the token's proof");
}

static int greet_hello(struct probe_sess *s, struct probe_frame *f)
{
	int ret;

	if (f->type != PROBE_MSG_HELLO)
		return probe_fail(s, -EPROTO, PROBE_ERR_BAD_REQUEST,
				  "Failed to handshake: got %s instead of HELLO", probe_msg_name(f->type));
	ret = hello_check(s, &f->u.hello);
	if (ret)
		return ret;
	s->peer_hello = f->u.hello;
	ret = hello_frame(s, f);
	if (!ret)
		ret = send_frame(s, f, "send HELLO");
	return ret;
}

/*
 * What the client asks for, checked here, before any session starts: a
 * request the server refuses costs it no process, and does not end --once.
 */
static int greet_request(struct probe_sess *s, const struct probe_frame *f)
{
	const struct probe_test_req *req = &f->u.test;
	const char *why;
	int ret;

	if (f->type == PROBE_MSG_ERROR)
		return client_error(s, f);
	if (f->type == PROBE_MSG_NODE_INFO_REQ)
		return 0;
	if (f->type != PROBE_MSG_TEST_REQ)
		return probe_fail(s, -EPROTO, PROBE_ERR_BAD_REQUEST,
				  "Failed to serve the client: unexpected %s after HELLO",
				  probe_msg_name(f->type));
	ret = probe_test_check(req, s->cfg->max_size, &why);
	if (ret == -EFBIG)
		return probe_fail(s, ret, PROBE_ERR_TOO_BIG,
				  "Failed to accept the test: %s (%llu B x %u > %llu B)", why,
				  (unsigned long long)req->size_max, req->qps,
				  (unsigned long long)s->cfg->max_size);
	if (ret)
		return probe_fail(s, ret, PROBE_ERR_BAD_REQUEST, "Failed to accept the test: %s", why);
	return 0;
}

int probe_greet(struct probe_sess *s, enum probe_greet *st, struct probe_frame *f)
{
	int ret;

	switch (*st) {
	case PROBE_GREET_HELLO:
		ret = greet_hello(s, f);
		*st = s->cfg->token ? PROBE_GREET_AUTH : PROBE_GREET_REQUEST;
		return ret;
	case PROBE_GREET_AUTH:
		ret = greet_auth(s, f);
		*st = PROBE_GREET_REQUEST;
		return ret;
	case PROBE_GREET_REQUEST:
		ret = greet_request(s, f);
		*st = PROBE_GREET_DONE;
		return ret;
	default:
		return -EINVAL;
	}
}

int probe_greet_fail(struct probe_sess *s, enum probe_greet st, int err, uint16_t code,
		     const char *why)
{
	static const char *const what[] = {
		[PROBE_GREET_HELLO] = "HELLO",
		[PROBE_GREET_AUTH] = "the token's proof",
		[PROBE_GREET_REQUEST] = "the request",
		[PROBE_GREET_DONE] = "the request",
	};

	return probe_fail(s, err, code, "Failed to read %s: %s", what[st],
			  why ? why : ctl_strerror(err));
}

/* A TEST_REQ, checked by greet_request(): set up, acknowledge, run. */
static int server_test(struct probe_sess *s, const struct probe_test_req *req,
		       struct probe_report *rep)
{
	struct probe_frame f = { .type = PROBE_MSG_TEST_ACK };
	int ret;

	s->req = *req;
	s->ops = ops_for(req);
	ret = s->ops->setup(s);
	if (!ret)
		ret = send_frame(s, &f, "acknowledge the test");
	if (!ret)
		ret = session_body(s, rep);
	s->ops->teardown(s);
	return ret;
}

/* `rdmactl doctor --peer` asks about this node: one NODE_INFO, then the session ends. */
static int server_node_info(struct probe_sess *s)
{
	struct probe_frame *f = calloc(1, sizeof(*f));
	int ret;

	if (!f)
		return probe_fail(s, -ENOMEM, PROBE_ERR_SETUP, "Failed to answer NODE_INFO_REQ: %s",
				  strerror(ENOMEM));
	f->type = PROBE_MSG_NODE_INFO;
	ret = node_info(s->ctx, f->u.node_info.text, sizeof f->u.node_info.text);
	if (ret)
		ret = probe_fail(s, ret, PROBE_ERR_SETUP, "Failed to describe this node: %s",
				 strerror(-ret));
	else
		ret = send_frame(s, f, "send NODE_INFO");
	free(f);
	return ret;
}

int probe_serve(struct probe_sess *s, const struct probe_frame *req, struct probe_report *rep)
{
	int ret;

	s->quiet = false;
	ret = req->type == PROBE_MSG_TEST_REQ ? server_test(s, &req->u.test, rep)
					      : server_node_info(s);
	probe_progress_clear(s);
	if (rep && rep->end)
		rep->end(rep, s->peer, ret);
	ctl_close(&s->ctl);
	return ret;
}
