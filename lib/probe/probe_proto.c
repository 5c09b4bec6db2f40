// SPDX-License-Identifier: MIT
/*
 * Encoder and decoder of the probe control protocol (layout in
 * probe_proto.h).  Network bytes are untrusted: every read is checked
 * against the bytes left, and a failed read poisons the reader.
 */
#include <errno.h>
#include <string.h>

#include "probe/probe_proto.h"

struct wbuf {
	uint8_t *p;
	size_t cap, off;
	bool bad;
};

struct rbuf {
	const uint8_t *p;
	size_t len, off;
	bool bad;
};

static void put(struct wbuf *w, const void *src, size_t n)
{
	if (w->bad || w->cap - w->off < n) {
		w->bad = true;
		return;
	}
	memcpy(w->p + w->off, src, n);
	w->off += n;
}

static void put_be(struct wbuf *w, uint64_t v, size_t n)
{
	uint8_t b[8];
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	put(w, b, n);
}

static void put8(struct wbuf *w, uint8_t v) { put_be(w, v, 1); }
static void put16(struct wbuf *w, uint16_t v) { put_be(w, v, 2); }
static void put32(struct wbuf *w, uint32_t v) { put_be(w, v, 4); }
static void put64(struct wbuf *w, uint64_t v) { put_be(w, v, 8); }

static void put_str(struct wbuf *w, const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);

	if (n > max) {
		w->bad = true;
		return;
	}
	put16(w, (uint16_t)n);
	put(w, s, n);
}

static void get(struct rbuf *r, void *dst, size_t n)
{
	if (r->bad || r->len - r->off < n) {
		r->bad = true;
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, r->p + r->off, n);
	r->off += n;
}

static uint64_t get_be(struct rbuf *r, size_t n)
{
	uint8_t b[8];
	uint64_t v = 0;
	size_t i;

	get(r, b, n);
	for (i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

static uint8_t get8(struct rbuf *r) { return (uint8_t)get_be(r, 1); }
static uint16_t get16(struct rbuf *r) { return (uint16_t)get_be(r, 2); }
static uint32_t get32(struct rbuf *r) { return (uint32_t)get_be(r, 4); }
static uint64_t get64(struct rbuf *r) { return get_be(r, 8); }

/* A string of at most @cap - 1 bytes, without NUL bytes inside. */
static void get_str(struct rbuf *r, char *dst, size_t cap)
{
	uint16_t n = get16(r);

	dst[0] = '\0';
	if (r->bad || n >= cap || r->len - r->off < n) {
		r->bad = true;
		return;
	}
	get(r, dst, n);
	dst[n] = '\0';
	if (strlen(dst) != n)
		r->bad = true;
}

static void enc_hello(struct wbuf *w, const struct probe_hello *h)
{
	put32(w, h->magic);
	put16(w, h->version);
	put16(w, h->role);
	put_str(w, h->software, sizeof(h->software) - 1);
	/* Without flags, the HELLO of before them: any version reads it. */
	if (h->flags)
		put16(w, h->flags);
	if (h->flags & PROBE_HELLO_AUTH)
		put(w, h->nonce, PROBE_NONCE_LEN);
}

static void dec_hello(struct rbuf *r, struct probe_hello *h)
{
	h->magic = get32(r);
	h->version = get16(r);
	h->role = get16(r);
	get_str(r, h->software, sizeof(h->software));
	/*
	 * flags came later: a peer without them sends none.  The tail's layout
	 * is known for our version only; another version is refused anyway.
	 */
	if (h->version == PROBE_PROTO_VERSION && !r->bad && r->len - r->off >= 2)
		h->flags = get16(r);
	if (h->flags & PROBE_HELLO_AUTH)
		get(r, h->nonce, PROBE_NONCE_LEN);
	/* HELLO may grow in later versions: its tail is not ours to judge. */
	r->off = r->len;
}

static void enc_error(struct wbuf *w, const struct probe_error *e)
{
	put16(w, e->code);
	put_str(w, e->msg, PROBE_MAX_STR);
}

static void dec_error(struct rbuf *r, struct probe_error *e)
{
	e->code = get16(r);
	get_str(r, e->msg, sizeof(e->msg));
}

static void enc_test(struct wbuf *w, const struct probe_test_req *t)
{
	put8(w, t->transport);
	put8(w, t->flags);
	put16(w, t->qps);
	put32(w, t->depth);
	put64(w, t->size_min);
	put64(w, t->size_max);
	put64(w, t->iters);
	put32(w, t->duration_ms);
	put32(w, t->lat_iters);
	put32(w, t->seed);
}

static void dec_test(struct rbuf *r, struct probe_test_req *t)
{
	t->transport = get8(r);
	t->flags = get8(r);
	t->qps = get16(r);
	t->depth = get32(r);
	t->size_min = get64(r);
	t->size_max = get64(r);
	t->iters = get64(r);
	t->duration_ms = get32(r);
	t->lat_iters = get32(r);
	t->seed = get32(r);
}

static void enc_ep(struct wbuf *w, const struct probe_ep_info *e)
{
	uint16_t i;

	if (e->nqps > PROBE_MAX_QPS) {
		w->bad = true;
		return;
	}
	put8(w, e->transport);
	put8(w, e->gid_type);
	put16(w, e->mtu);
	put32(w, e->gid_index);
	put(w, e->gid, 16);
	put16(w, e->lid);
	put16(w, e->port_num);
	put16(w, e->data_port);
	put64(w, e->buf_len);
	put_str(w, e->dev, sizeof(e->dev) - 1);
	put_str(w, e->addr, sizeof(e->addr) - 1);
	put16(w, e->nqps);
	for (i = 0; i < e->nqps; i++) {
		put32(w, e->qp[i].qpn);
		put32(w, e->qp[i].psn);
		put32(w, e->qp[i].rkey);
		put64(w, e->qp[i].addr);
	}
}

static void dec_ep(struct rbuf *r, struct probe_ep_info *e)
{
	uint16_t i;

	e->transport = get8(r);
	e->gid_type = get8(r);
	e->mtu = get16(r);
	e->gid_index = get32(r);
	get(r, e->gid, 16);
	e->lid = get16(r);
	e->port_num = get16(r);
	e->data_port = get16(r);
	e->buf_len = get64(r);
	get_str(r, e->dev, sizeof(e->dev));
	get_str(r, e->addr, sizeof(e->addr));
	e->nqps = get16(r);
	if (e->nqps > PROBE_MAX_QPS) {
		r->bad = true;
		e->nqps = 0;
		return;
	}
	for (i = 0; i < e->nqps && !r->bad; i++) {
		e->qp[i].qpn = get32(r);
		e->qp[i].psn = get32(r);
		e->qp[i].rkey = get32(r);
		e->qp[i].addr = get64(r);
	}
}

static void enc_done(struct wbuf *w, const struct probe_done *d)
{
	uint16_t i;

	if (d->n > PROBE_MAX_QPS) {
		w->bad = true;
		return;
	}
	put64(w, d->size);
	put16(w, d->n);
	for (i = 0; i < d->n; i++)
		put64(w, d->bytes[i]);
}

static void dec_done(struct rbuf *r, struct probe_done *d)
{
	uint16_t i;

	d->size = get64(r);
	d->n = get16(r);
	if (d->n > PROBE_MAX_QPS) {
		r->bad = true;
		d->n = 0;
		return;
	}
	for (i = 0; i < d->n; i++)
		d->bytes[i] = get64(r);
}

static void enc_result(struct wbuf *w, const struct probe_result *s)
{
	put64(w, s->size);
	put32(w, s->status);
	put64(w, s->msgs);
	put64(w, s->bytes);
	put64(w, s->elapsed_ns);
	put64(w, s->peak_bps);
	put64(w, s->avg_bps);
	put64(w, s->lat_min_ns);
	put64(w, s->lat_med_ns);
	put64(w, s->lat_p99_ns);
	put64(w, s->verify_errors);
	put64(w, s->verified);
}

static void dec_result(struct rbuf *r, struct probe_result *s)
{
	s->size = get64(r);
	s->status = get32(r);
	s->msgs = get64(r);
	s->bytes = get64(r);
	s->elapsed_ns = get64(r);
	s->peak_bps = get64(r);
	s->avg_bps = get64(r);
	s->lat_min_ns = get64(r);
	s->lat_med_ns = get64(r);
	s->lat_p99_ns = get64(r);
	s->verify_errors = get64(r);
	s->verified = get64(r);
}

static int enc_payload(struct wbuf *w, const struct probe_frame *f)
{
	switch (f->type) {
	case PROBE_MSG_HELLO:
		enc_hello(w, &f->u.hello);
		break;
	case PROBE_MSG_ERROR:
		enc_error(w, &f->u.error);
		break;
	case PROBE_MSG_TEST_REQ:
		enc_test(w, &f->u.test);
		break;
	case PROBE_MSG_EP_INFO:
		enc_ep(w, &f->u.ep);
		break;
	case PROBE_MSG_START:
	case PROBE_MSG_READY:
		put64(w, f->u.start.size);
		break;
	case PROBE_MSG_PROGRESS:
		put64(w, f->u.progress.size);
		put64(w, f->u.progress.bytes);
		put64(w, f->u.progress.elapsed_us);
		break;
	case PROBE_MSG_DONE:
		enc_done(w, &f->u.done);
		break;
	case PROBE_MSG_RESULT:
	case PROBE_MSG_ROW:
		enc_result(w, &f->u.result);
		break;
	case PROBE_MSG_NODE_INFO:
		put_str(w, f->u.node_info.text, PROBE_NODE_INFO_MAX);
		break;
	case PROBE_MSG_AUTH_RESPONSE:
	case PROBE_MSG_AUTH_PROOF:
		put(w, f->u.auth.mac, PROBE_MAC_LEN);
		break;
	case PROBE_MSG_TEST_ACK:
	case PROBE_MSG_BYE:
	case PROBE_MSG_NODE_INFO_REQ:
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

int probe_encode(const struct probe_frame *f, uint8_t *out, size_t cap)
{
	struct wbuf w = { out, cap, PROBE_HDR_LEN, cap < PROBE_HDR_LEN };
	size_t plen;

	if (enc_payload(&w, f) || w.bad)
		return -EINVAL;
	plen = w.off - PROBE_HDR_LEN;
	if (plen > PROBE_MAX_PAYLOAD)
		return -EINVAL;
	w.off = 0;
	put16(&w, f->type);
	put16(&w, 0);
	put32(&w, (uint32_t)plen);
	return (int)(PROBE_HDR_LEN + plen);
}

int probe_decode_header(const uint8_t *hdr, uint16_t *type, uint32_t *len)
{
	struct rbuf r = { hdr, PROBE_HDR_LEN, 0, false };
	uint16_t rsvd;

	*type = get16(&r);
	rsvd = get16(&r);
	*len = get32(&r);
	if (rsvd)
		return -EBADMSG;
	if (*len > PROBE_MAX_PAYLOAD)
		return -EMSGSIZE;
	return 0;
}

static int dec_payload(struct rbuf *r, uint16_t type, struct probe_frame *f)
{
	switch (type) {
	case PROBE_MSG_HELLO:
		dec_hello(r, &f->u.hello);
		break;
	case PROBE_MSG_ERROR:
		dec_error(r, &f->u.error);
		break;
	case PROBE_MSG_TEST_REQ:
		dec_test(r, &f->u.test);
		break;
	case PROBE_MSG_EP_INFO:
		dec_ep(r, &f->u.ep);
		break;
	case PROBE_MSG_START:
	case PROBE_MSG_READY:
		f->u.start.size = get64(r);
		break;
	case PROBE_MSG_PROGRESS:
		f->u.progress.size = get64(r);
		f->u.progress.bytes = get64(r);
		f->u.progress.elapsed_us = get64(r);
		break;
	case PROBE_MSG_DONE:
		dec_done(r, &f->u.done);
		break;
	case PROBE_MSG_RESULT:
	case PROBE_MSG_ROW:
		dec_result(r, &f->u.result);
		break;
	case PROBE_MSG_NODE_INFO:
		get_str(r, f->u.node_info.text, sizeof(f->u.node_info.text));
		break;
	case PROBE_MSG_AUTH_RESPONSE:
	case PROBE_MSG_AUTH_PROOF:
		get(r, f->u.auth.mac, PROBE_MAC_LEN);
		break;
	case PROBE_MSG_TEST_ACK:
	case PROBE_MSG_BYE:
	case PROBE_MSG_NODE_INFO_REQ:
		break;
	default:
		return -EPROTO;
	}
	return 0;
}

int probe_decode(uint16_t type, const uint8_t *p, size_t len, struct probe_frame *f)
{
	struct rbuf r = { p, len, 0, false };
	int ret;

	memset(f, 0, sizeof(*f));
	f->type = type;
	if (len > PROBE_MAX_PAYLOAD)
		return -EMSGSIZE;
	ret = dec_payload(&r, type, f);
	if (ret)
		return ret;
	if (r.bad || r.off != r.len)
		return -EBADMSG;
	return 0;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int probe_test_check(const struct probe_test_req *t, uint64_t max_buf, const char **why)
{
	*why = NULL;
	if (t->transport > PROBE_TRANSPORT_TCP)
		*why = "unknown transport";
	else if (t->flags & ~(PROBE_F_BIDIR | PROBE_F_VERIFY | PROBE_F_RDMA_CM))
		*why = "unknown flags";
	else if (!t->qps || t->qps > PROBE_MAX_QPS)
		*why = "QP count out of range 1..64";
	else if (!t->depth || t->depth > PROBE_MAX_DEPTH)
		*why = "depth out of range 1..8192";
	else if (!t->size_min || t->size_min > t->size_max || t->size_max > PROBE_MAX_MSG_SIZE)
		*why = "message size out of range";
	else if (t->size_min != t->size_max && (!is_pow2(t->size_min) || !is_pow2(t->size_max)))
		*why = "sweep bounds are not powers of two";
	else if (!t->iters == !t->duration_ms || t->iters > PROBE_MAX_ITERS ||
		 t->duration_ms > PROBE_MAX_DURATION_MS)
		*why = "need either an iteration count or a duration, in range";
	else if (t->lat_iters > 1000000)
		*why = "latency iterations out of range";
	if (*why)
		return -EINVAL;
	if (t->size_max * t->qps > max_buf) {
		*why = "buffer (message size x QPs) over the server's --max-size";
		return -EFBIG;
	}
	return 0;
}

const char *probe_msg_name(uint16_t type)
{
	static const char *const names[] = {
		[PROBE_MSG_HELLO] = "HELLO",	    [PROBE_MSG_ERROR] = "ERROR",
		[PROBE_MSG_TEST_REQ] = "TEST_REQ",  [PROBE_MSG_TEST_ACK] = "TEST_ACK",
		[PROBE_MSG_EP_INFO] = "EP_INFO",    [PROBE_MSG_START] = "START",
		[PROBE_MSG_READY] = "READY",	    [PROBE_MSG_PROGRESS] = "PROGRESS",
		[PROBE_MSG_DONE] = "DONE",	    [PROBE_MSG_RESULT] = "RESULT",
		[PROBE_MSG_ROW] = "ROW",	    [PROBE_MSG_BYE] = "BYE",
		[PROBE_MSG_AUTH_RESPONSE] = "AUTH_RESPONSE",
		[PROBE_MSG_AUTH_PROOF] = "AUTH_PROOF",
	};

	if (type == PROBE_MSG_NODE_INFO_REQ)
		return "NODE_INFO_REQ";
	if (type == PROBE_MSG_NODE_INFO)
		return "NODE_INFO";
	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}
