// SPDX-License-Identifier: MIT
/* The probe control protocol codec: round trips and hostile frames. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe_proto.h"
#include "probe/probe_sess.h"
#include "test.h"

static uint8_t buf[PROBE_MAX_FRAME];

/* Encode @in, decode it back into @out; 0 or the failing step's error. */
static int round_trip(const struct probe_frame *in, struct probe_frame *out)
{
	uint16_t type;
	uint32_t len;
	int n = probe_encode(in, buf, sizeof(buf)), ret;

	if (n < 0)
		return n;
	ret = probe_decode_header(buf, &type, &len);
	if (ret)
		return ret;
	if ((size_t)n != PROBE_HDR_LEN + len)
		return -EBADMSG;
	return probe_decode(type, buf + PROBE_HDR_LEN, len, out);
}

static void test_hello_round_trip(void)
{
	struct probe_frame in = { .type = PROBE_MSG_HELLO }, out;

	in.u.hello.magic = PROBE_MAGIC;
	in.u.hello.version = PROBE_PROTO_VERSION;
	in.u.hello.role = 1;
	strcpy(in.u.hello.software, "rdmactl 0.1.0");
	CHECK_INT(round_trip(&in, &out), 0);
	CHECK_INT(out.type, PROBE_MSG_HELLO);
	CHECK_INT(out.u.hello.magic, PROBE_MAGIC);
	CHECK_INT(out.u.hello.version, PROBE_PROTO_VERSION);
	CHECK_INT(out.u.hello.role, 1);
	CHECK_STR(out.u.hello.software, "rdmactl 0.1.0");
}

static void test_test_req_round_trip(void)
{
	struct probe_frame in = { .type = PROBE_MSG_TEST_REQ }, out;
	struct probe_test_req *t = &in.u.test;

	*t = (struct probe_test_req){ PROBE_TRANSPORT_TCP, PROBE_F_BIDIR | PROBE_F_VERIFY, 3, 64,
				      2, 8 << 20, 0, 2500, 77, 0xdeadbeef };
	CHECK_INT(round_trip(&in, &out), 0);
	CHECK(!memcmp(&out.u.test, t, sizeof(*t)));
}

static void test_ep_info_round_trip(void)
{
	struct probe_frame in = { .type = PROBE_MSG_EP_INFO }, out;
	struct probe_ep_info *e = &in.u.ep;
	unsigned int i;

	e->transport = PROBE_TRANSPORT_RDMA;
	e->gid_type = 3;
	e->mtu = 1024;
	e->gid_index = 1;
	for (i = 0; i < 16; i++)
		e->gid[i] = (uint8_t)(i * 17);
	e->port_num = 1;
	e->buf_len = 65536;
	strcpy(e->dev, "rxe0");
	strcpy(e->addr, "10.99.0.1");
	e->nqps = PROBE_MAX_QPS;
	for (i = 0; i < PROBE_MAX_QPS; i++)
		e->qp[i] = (struct probe_qp_info){ 100 + i, 0xabcdef, 0x1234 + i, 0x7f0000000000ull + i };
	CHECK_INT(round_trip(&in, &out), 0);
	CHECK(!memcmp(&out.u.ep, e, sizeof(*e)));
}

static void test_result_and_error_round_trip(void)
{
	struct probe_frame in = { .type = PROBE_MSG_ROW }, out;

	in.u.result = (struct probe_result){ 65536, 0, 5000, 327680000, 123456789, 25000000000ull,
					     24000000000ull, 1500, 1700, 4000, 0, 65536 };
	CHECK_INT(round_trip(&in, &out), 0);
	CHECK(!memcmp(&out.u.result, &in.u.result, sizeof(in.u.result)));

	memset(&in, 0, sizeof(in));
	in.type = PROBE_MSG_ERROR;
	in.u.error.code = PROBE_ERR_BUSY;
	strcpy(in.u.error.msg, "busy");
	CHECK_INT(round_trip(&in, &out), 0);
	CHECK_INT(out.u.error.code, PROBE_ERR_BUSY);
	CHECK_STR(out.u.error.msg, "busy");
}

/* Every prefix of a valid payload is refused, never read past. */
static void test_truncated(void)
{
	struct probe_frame in = { .type = PROBE_MSG_EP_INFO }, out;
	int n, cut;

	in.u.ep.nqps = 4;
	strcpy(in.u.ep.dev, "mlx5_0");
	n = probe_encode(&in, buf, sizeof(buf));
	CHECK(n > PROBE_HDR_LEN);
	for (cut = 0; cut < n - PROBE_HDR_LEN; cut++) {
		uint8_t *copy = malloc((size_t)cut + 1);	/* exact size: ASan sees overreads */

		memcpy(copy, buf + PROBE_HDR_LEN, (size_t)cut);
		CHECK_INT(probe_decode(PROBE_MSG_EP_INFO, copy, (size_t)cut, &out), -EBADMSG);
		free(copy);
	}
}

static void test_trailing_and_oversized(void)
{
	struct probe_frame in = { .type = PROBE_MSG_START }, out;
	uint16_t type;
	uint32_t len;
	int n;

	in.u.start.size = 4096;
	n = probe_encode(&in, buf, sizeof(buf));
	CHECK_INT(n, PROBE_HDR_LEN + 8);
	/* One byte more than the layout: refused (only HELLO may grow). */
	CHECK_INT(probe_decode(PROBE_MSG_START, buf + PROBE_HDR_LEN, 9, &out), -EBADMSG);
	/* A header announcing more than the protocol allows. */
	memcpy(buf, "\x00\x06\x00\x00\x7f\xff\xff\xff", 8);
	CHECK_INT(probe_decode_header(buf, &type, &len), -EMSGSIZE);
	memcpy(buf, "\x00\x06\x00\x01\x00\x00\x00\x08", 8);
	CHECK_INT(probe_decode_header(buf, &type, &len), -EBADMSG);
	/* A HELLO of a later version, longer than ours, still decodes. */
	memcpy(buf, "\x52\x50\x42\x31\x00\x02\x00\x00\x00\x00" "future", 16);
	CHECK_INT(probe_decode(PROBE_MSG_HELLO, buf, 16, &out), 0);
	CHECK_INT(out.u.hello.version, 2);
}

static void test_garbage(void)
{
	struct probe_frame out;
	uint8_t g[64];
	unsigned int i, seed = 1;
	uint16_t type;

	/* HTTP on the port: the header's reserved field is not zero. */
	uint32_t len;
	CHECK(probe_decode_header((const uint8_t *)"GET / HT", &type, &len) != 0);
	/* Unknown type. */
	CHECK_INT(probe_decode(999, g, 0, &out), -EPROTO);
	/* A count over the maximum, a string over its buffer, a NUL inside a string. */
	memset(g, 0, sizeof(g));
	g[8] = 0xff;	/* done.n high byte */
	CHECK_INT(probe_decode(PROBE_MSG_DONE, g, 10, &out), -EBADMSG);
	memcpy(g, "\x00\x01\xff\xff", 4);
	CHECK_INT(probe_decode(PROBE_MSG_ERROR, g, 64, &out), -EBADMSG);
	memcpy(g, "\x00\x01\x00\x03" "a\0b", 7);
	CHECK_INT(probe_decode(PROBE_MSG_ERROR, g, 7, &out), -EBADMSG);
	/* Random bytes of every type and length: refused or decoded, never a crash. */
	for (i = 0; i < 20000; i++) {
		size_t n = (size_t)(rand_r(&seed) % (int)sizeof(g)), j;

		for (j = 0; j < n; j++)
			g[j] = (uint8_t)rand_r(&seed);
		(void)probe_decode((uint16_t)(rand_r(&seed) % 40), g, n, &out);
	}
}

static void test_encode_refuses(void)
{
	struct probe_frame in = { .type = PROBE_MSG_EP_INFO };

	in.u.ep.nqps = PROBE_MAX_QPS + 1;
	CHECK_INT(probe_encode(&in, buf, sizeof(buf)), -EINVAL);
	in.type = 200;
	CHECK_INT(probe_encode(&in, buf, sizeof(buf)), -EINVAL);
	in.type = PROBE_MSG_BYE;
	CHECK_INT(probe_encode(&in, buf, 4), -EINVAL);
}

static void test_limits(void)
{
	struct probe_test_req t = { PROBE_TRANSPORT_RDMA, 0, 1, 128, 65536, 65536, 5000, 0, 100, 1 };
	const char *why;

	CHECK_INT(probe_test_check(&t, 1ull << 30, &why), 0);
	t.size_min = t.size_max = 1ull << 30;
	t.qps = 2;
	CHECK_INT(probe_test_check(&t, 1ull << 30, &why), -EFBIG);
	CHECK(why && strstr(why, "max-size"));
	t.qps = 0;
	CHECK_INT(probe_test_check(&t, 1ull << 30, &why), -EINVAL);
	t.qps = 1;
	t.duration_ms = 1000;	/* both iterations and a duration */
	CHECK_INT(probe_test_check(&t, 1ull << 30, &why), -EINVAL);
	t.duration_ms = 0;
	t.size_min = 3;
	t.size_max = 64;	/* sweep from a non power of two */
	CHECK_INT(probe_test_check(&t, 1ull << 30, &why), -EINVAL);
}

static void test_pattern_and_stats(void)
{
	uint8_t m[300];
	uint64_t ns[100], t[4] = { 0, 1000000000, 2000000000, 3000000000u }, b[4] = { 0, 100, 300, 350 };
	struct probe_result r = { 0 };
	unsigned int i;

	probe_fill(m, 42, 300, 0, sizeof(m));
	CHECK_INT(probe_check(m, 42, 300, 0, sizeof(m)), 0);
	m[17] ^= 1;
	m[299] ^= 0x80;
	CHECK_INT(probe_check(m, 42, 300, 0, sizeof(m)), 2);
	CHECK(probe_check(m, 43, 300, 0, sizeof(m)) > 200);	/* another seed */
	for (i = 0; i < 100; i++)
		ns[i] = 100 - i;
	probe_lat_stats(ns, 100, &r);
	CHECK_INT(r.lat_min_ns, 1);
	CHECK_INT(r.lat_med_ns, 51);
	CHECK_INT(r.lat_p99_ns, 99);
	/* Peak over windows of >= 100 bytes: 200 bytes in the second second. */
	CHECK_INT(probe_peak_bps(t, b, 4, 100), 1600);
}

/* The receiver's check over a message sent with the corruption test aid on and off. */
static void test_corrupt_aid(void)
{
	struct probe_sess s = { .corrupt = false };
	uint8_t m[4096];

	probe_fill(m, 7, sizeof(m), 0, sizeof(m));
	probe_corrupt_for_test(&s, m);
	CHECK_INT(probe_check(m, 7, sizeof(m), 0, sizeof(m)), 0);
	s.corrupt = true;
	probe_corrupt_for_test(&s, m);
	CHECK_INT(probe_check(m, 7, sizeof(m), 0, sizeof(m)), 1);
	CHECK(m[0] != probe_pattern(7, sizeof(m), 0));
}

/* NODE_INFO: a u16 length, then the text; the longest allowed text fits one frame. */
static void test_node_info_round_trip(void)
{
	static struct probe_frame in, out;
	int n;

	in.type = PROBE_MSG_NODE_INFO;
	strcpy(in.u.node_info.text, "{\"software\":\"rdmactl 0.1.0\",\"kernel\":\"6.1.0\"}");
	CHECK_INT(round_trip(&in, &out), 0);
	CHECK_INT(out.type, PROBE_MSG_NODE_INFO);
	CHECK_STR(out.u.node_info.text, in.u.node_info.text);
	memset(in.u.node_info.text, 'x', PROBE_NODE_INFO_MAX);
	in.u.node_info.text[PROBE_NODE_INFO_MAX] = '\0';
	n = probe_encode(&in, buf, sizeof(buf));
	CHECK_INT(n, PROBE_HDR_LEN + 2 + PROBE_NODE_INFO_MAX);
	CHECK_INT(round_trip(&in, &out), 0);
	CHECK_INT(strlen(out.u.node_info.text), PROBE_NODE_INFO_MAX);
	in.type = PROBE_MSG_NODE_INFO_REQ;
	CHECK_INT(probe_encode(&in, buf, sizeof(buf)), PROBE_HDR_LEN);
}

static void test_node_info_oversize(void)
{
	static struct probe_frame out;
	static uint8_t p[2 + PROBE_NODE_INFO_MAX + 1];
	struct probe_frame *in = calloc(1, sizeof(*in) + 16);

	/* The encoder refuses a text one byte over (no NUL within the maximum). */
	in->type = PROBE_MSG_NODE_INFO;
	memset(in->u.node_info.text, 'y', PROBE_NODE_INFO_MAX + 1);
	CHECK_INT(probe_encode(in, buf, sizeof(buf)), -EINVAL);
	free(in);
	/* The decoder refuses a length over the maximum, bytes present or not. */
	memset(p, 'y', sizeof(p));
	p[0] = (PROBE_NODE_INFO_MAX + 1) >> 8;
	p[1] = (PROBE_NODE_INFO_MAX + 1) & 0xff;
	CHECK_INT(probe_decode(PROBE_MSG_NODE_INFO, p, sizeof(p), &out), -EBADMSG);
	p[0] = p[1] = 0xff;
	CHECK_INT(probe_decode(PROBE_MSG_NODE_INFO, p, sizeof(p), &out), -EBADMSG);
	/* A NUL inside, or a byte after the text: refused. */
	memcpy(p, "\x00\x03" "a\0b", 5);
	CHECK_INT(probe_decode(PROBE_MSG_NODE_INFO, p, 5, &out), -EBADMSG);
	memcpy(p, "\x00\x02" "{}" "!", 5);
	CHECK_INT(probe_decode(PROBE_MSG_NODE_INFO, p, 5, &out), -EBADMSG);
	CHECK_INT(probe_decode(PROBE_MSG_NODE_INFO, p, 4, &out), 0);
	CHECK_STR(out.u.node_info.text, "{}");
}

/* Every prefix of a NODE_INFO payload is refused, never read past. */
static void test_node_info_truncated(void)
{
	static struct probe_frame in, out;
	int n, cut;

	in.type = PROBE_MSG_NODE_INFO;
	strcpy(in.u.node_info.text, "{\"ports\":[]}");
	n = probe_encode(&in, buf, sizeof(buf));
	CHECK(n > PROBE_HDR_LEN);
	for (cut = 0; cut < n - PROBE_HDR_LEN; cut++) {
		uint8_t *copy = malloc((size_t)cut + 1);	/* exact size: ASan sees overreads */

		memcpy(copy, buf + PROBE_HDR_LEN, (size_t)cut);
		CHECK_INT(probe_decode(PROBE_MSG_NODE_INFO, copy, (size_t)cut, &out), -EBADMSG);
		free(copy);
	}
}

int main(void)
{
	RUN("probe_proto", test_hello_round_trip);
	RUN("probe_proto", test_test_req_round_trip);
	RUN("probe_proto", test_ep_info_round_trip);
	RUN("probe_proto", test_result_and_error_round_trip);
	RUN("probe_proto", test_truncated);
	RUN("probe_proto", test_trailing_and_oversized);
	RUN("probe_proto", test_garbage);
	RUN("probe_proto", test_encode_refuses);
	RUN("probe_proto", test_limits);
	RUN("probe_proto", test_pattern_and_stats);
	RUN("probe_proto", test_corrupt_aid);
	RUN("probe_proto", test_node_info_round_trip);
	RUN("probe_proto", test_node_info_oversize);
	RUN("probe_proto", test_node_info_truncated);
	TEST_EXIT();
}
