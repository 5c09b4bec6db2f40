// SPDX-License-Identifier: MIT
/*
 * Seeds of the probe fuzz targets, written by the protocol's own encoder so
 * they stay valid when a layout changes (`make fuzz-probe-seeds`):
 *   corpus/probe_decode/TYPE     one frame of each type
 *   corpus/probe_server/NAME     what a client sends in whole sessions
 *   corpus/probe_client/NAME     what a server answers (first byte: 0 a
 *                                measuring session, 1 doctor's NODE_INFO)
 *   corpus/probe_rx/NAME         what a client sends in its handshake
 *                                (first byte: the seed of the piece sizes)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/nodeinfo.h"
#include "probe/probe_proto.h"

struct stream {
	uint8_t buf[16384];
	size_t len;
};

static void add(struct stream *s, const struct probe_frame *f)
{
	int n = probe_encode(f, s->buf + s->len, sizeof(s->buf) - s->len);

	if (n < 0) {
		fprintf(stderr, "probe_seeds: cannot encode %s\n", probe_msg_name(f->type));
		exit(1);
	}
	s->len += (size_t)n;
}

static void save(const char *dir, const char *name, const struct stream *s)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->buf, 1, s->len, f) != s->len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static struct probe_frame hello(int role)
{
	struct probe_frame f = { .type = PROBE_MSG_HELLO };

	f.u.hello.magic = PROBE_MAGIC;
	f.u.hello.version = PROBE_PROTO_VERSION;
	f.u.hello.role = (uint16_t)role;
	strcpy(f.u.hello.software, "rdmactl 0.1.0");
	return f;
}

static struct probe_frame test_req(int transport, int flags, int qps)
{
	struct probe_frame f = { .type = PROBE_MSG_TEST_REQ };

	f.u.test.transport = (uint8_t)transport;
	f.u.test.flags = (uint8_t)flags;
	f.u.test.qps = (uint16_t)qps;
	f.u.test.depth = 128;
	f.u.test.size_min = 4096;
	f.u.test.size_max = 65536;
	f.u.test.iters = 5000;
	f.u.test.lat_iters = 1000;
	f.u.test.seed = 7;
	return f;
}

/* rxe0 of the lab's node a: 10.99.0.1 on a RoCE v2 GID. */
static struct probe_frame ep_info(int transport, int qps)
{
	static const uint8_t gid[16] = { [10] = 0xff, [11] = 0xff, 10, 99, 0, 1 };
	struct probe_frame f = { .type = PROBE_MSG_EP_INFO };
	int i;

	f.u.ep.transport = (uint8_t)transport;
	f.u.ep.gid_type = 3;
	f.u.ep.mtu = 1024;
	f.u.ep.gid_index = 1;
	memcpy(f.u.ep.gid, gid, 16);
	f.u.ep.port_num = 1;
	f.u.ep.data_port = transport ? 18601 : 0;
	f.u.ep.buf_len = 65536;
	strcpy(f.u.ep.dev, transport ? "" : "rxe0");
	strcpy(f.u.ep.addr, "10.99.0.1");
	f.u.ep.nqps = (uint16_t)qps;
	for (i = 0; i < qps; i++) {
		f.u.ep.qp[i].qpn = 17 + (uint32_t)i;
		f.u.ep.qp[i].psn = 0x1234 + (uint32_t)i;
		f.u.ep.qp[i].rkey = 0x1a2b;
		f.u.ep.qp[i].addr = 0x7f0000000000ull + 65536ull * (uint64_t)i;
	}
	return f;
}

static struct probe_frame sized(uint16_t type, uint64_t size)
{
	struct probe_frame f = { .type = type };

	f.u.start.size = size;
	return f;
}

static struct probe_frame result(uint16_t type, uint64_t size)
{
	struct probe_frame f = { .type = type };

	f.u.result.size = size;
	f.u.result.msgs = 5000;
	f.u.result.bytes = 5000 * size;
	f.u.result.elapsed_ns = 110000000;
	f.u.result.peak_bps = 24500000000ull;
	f.u.result.avg_bps = 24400000000ull;
	f.u.result.lat_min_ns = 4100;
	f.u.result.lat_med_ns = 4300;
	f.u.result.lat_p99_ns = 9800;
	return f;
}

static struct probe_frame done(uint64_t size, int n)
{
	struct probe_frame f = { .type = PROBE_MSG_DONE };
	int i;

	f.u.done.size = size;
	f.u.done.n = (uint16_t)n;
	for (i = 0; i < n; i++)
		f.u.done.bytes[i] = 5000 * size;
	return f;
}

static struct probe_frame progress(uint64_t size)
{
	struct probe_frame f = { .type = PROBE_MSG_PROGRESS };

	f.u.progress.size = size;
	f.u.progress.bytes = 1000 * size;
	f.u.progress.elapsed_us = 1000000;
	return f;
}

static struct probe_frame error(uint16_t code, const char *msg)
{
	struct probe_frame f = { .type = PROBE_MSG_ERROR };

	f.u.error.code = code;
	snprintf(f.u.error.msg, sizeof(f.u.error.msg), "%s", msg);
	return f;
}

static struct probe_frame node_info_frame(void)
{
	struct probe_frame f = { .type = PROBE_MSG_NODE_INFO };

	snprintf(f.u.node_info.text, sizeof(f.u.node_info.text), "%s",
		 "{\"software\":\"rdmactl 0.1.0\",\"kernel\":\"6.1.0-18-amd64\","
		 "\"rdma_core\":\"44.0\",\"ofed\":null,\"memlock_shell\":\"unlimited\","
		 "\"ports\":[{\"dev\":\"rxe0\",\"port\":1,\"state\":\"ACTIVE\",\"netdev\":\"eth0\","
		 "\"netdev_mtu\":1500,\"active_mtu\":1024,\"max_mtu\":4096,\"gid_index\":1,"
		 "\"gid\":\"0000:0000:0000:0000:0000:ffff:0a63:0002\",\"ipv4\":\"10.99.0.2\"}]}");
	return f;
}

static struct probe_frame auth(uint16_t type)
{
	struct probe_frame f = { .type = type };

	memset(f.u.auth.mac, 0xa5, sizeof(f.u.auth.mac));
	return f;
}

static void decode_seeds(const char *dir)
{
	struct probe_frame fs[] = {
		hello(0), error(PROBE_ERR_BUSY, "the server runs another session (from 10.99.0.2)"),
		test_req(0, PROBE_F_VERIFY, 2), { .type = PROBE_MSG_TEST_ACK }, ep_info(0, 2),
		sized(PROBE_MSG_START, 65536), sized(PROBE_MSG_READY, 65536), progress(65536),
		done(65536, 2), result(PROBE_MSG_RESULT, 65536), result(PROBE_MSG_ROW, 65536),
		{ .type = PROBE_MSG_BYE }, { .type = PROBE_MSG_NODE_INFO_REQ }, node_info_frame(),
		auth(PROBE_MSG_AUTH_RESPONSE), auth(PROBE_MSG_AUTH_PROOF),
	};
	size_t i;

	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
		struct stream s = { .len = 0 };

		add(&s, &fs[i]);
		save(dir, probe_msg_name(fs[i].type), &s);
	}
}

/* A whole client side: HELLO, TEST_REQ, EP_INFO, per size START and ROW, BYE. */
static void server_seed(const char *dir, const char *name, int transport, int flags, int qps)
{
	struct stream s = { .len = 0 };
	struct probe_frame f;
	uint64_t size;

	f = hello(0), add(&s, &f);
	f = test_req(transport, flags, qps), add(&s, &f);
	f = ep_info(transport, qps), add(&s, &f);
	for (size = 4096; size <= 65536; size *= 4) {
		f = sized(PROBE_MSG_START, size), add(&s, &f);
		f = done(size, qps), add(&s, &f);
		f = result(PROBE_MSG_RESULT, size), add(&s, &f);
		f = result(PROBE_MSG_ROW, size), add(&s, &f);
	}
	f = (struct probe_frame){ .type = PROBE_MSG_BYE }, add(&s, &f);
	save(dir, name, &s);
}

/* A whole server side: HELLO, TEST_ACK, EP_INFO, per size READY, PROGRESS, DONE, RESULT. */
static void client_seed(const char *dir, const char *name, int qps)
{
	struct stream s = { .len = 1, .buf = { 0 } };
	struct probe_frame f;
	uint64_t size;

	f = hello(1), add(&s, &f);
	f = (struct probe_frame){ .type = PROBE_MSG_TEST_ACK }, add(&s, &f);
	f = ep_info(0, qps), add(&s, &f);
	for (size = 4096; size <= 65536; size *= 4) {
		f = sized(PROBE_MSG_READY, size), add(&s, &f);
		f = progress(size), add(&s, &f);
		f = done(size, qps), add(&s, &f);
		f = result(PROBE_MSG_RESULT, size), add(&s, &f);
	}
	save(dir, name, &s);
}

static void client_error_seeds(const char *dir)
{
	struct stream s = { .len = 1, .buf = { 0 } };
	struct probe_frame f;

	f = hello(1), add(&s, &f);
	f = error(PROBE_ERR_TOO_BIG, "message size x QPs over the server's --max-size 1073741824"),
	add(&s, &f);
	save(dir, "too-big", &s);
	s.len = 1;
	s.buf[0] = 1;
	f = hello(1), add(&s, &f);
	f = error(PROBE_ERR_UNSUPPORTED, "NODE_INFO_REQ is not supported"), add(&s, &f);
	save(dir, "node-info-unsupported", &s);
	s.len = 1;
	f = hello(1), add(&s, &f);
	f = node_info_frame(), add(&s, &f);
	save(dir, "node-info", &s);
}

/* Handshakes as the server's loop reads them: with a token, doctor's, a stranger's. */
static void rx_seeds(const char *dir)
{
	struct stream s = { .len = 1, .buf = { 7 } };
	struct probe_frame f;

	f = hello(0), f.u.hello.flags = PROBE_HELLO_AUTH, add(&s, &f);
	f = auth(PROBE_MSG_AUTH_RESPONSE), add(&s, &f);
	f = test_req(1, 0, 1), add(&s, &f);
	save(dir, "token-test", &s);
	s.len = 1;
	s.buf[0] = 200;
	f = hello(0), add(&s, &f);
	f = (struct probe_frame){ .type = PROBE_MSG_NODE_INFO_REQ }, add(&s, &f);
	save(dir, "node-info", &s);
	s.len = 1;
	s.buf[0] = 1;
	f = hello(0), add(&s, &f);
	f = error(PROBE_ERR_AUTH, "authentication failed: the client has no token"), add(&s, &f);
	/* Then a header announcing more than PROBE_MAX_PAYLOAD. */
	memcpy(s.buf + s.len, "\0\1\0\0\0\x10\0\0", 8);
	s.len += 8;
	save(dir, "error-then-oversize", &s);
}

int main(int argc, char **argv)
{
	char dir[512];

	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/probe_decode", argv[1]);
	decode_seeds(dir);
	snprintf(dir, sizeof(dir), "%s/probe_server", argv[1]);
	server_seed(dir, "rdma-2qp-verify", 0, PROBE_F_VERIFY, 2);
	server_seed(dir, "tcp-bidir", 1, PROBE_F_BIDIR, 1);
	server_seed(dir, "rdma-cm", 0, PROBE_F_RDMA_CM, 4);
	snprintf(dir, sizeof(dir), "%s/probe_client", argv[1]);
	client_seed(dir, "rdma-2qp", 2);
	client_seed(dir, "rdma-1qp", 1);
	client_error_seeds(dir);
	snprintf(dir, sizeof(dir), "%s/probe_rx", argv[1]);
	rx_seeds(dir);
	return 0;
}
