// SPDX-License-Identifier: MIT
/*
 * The control connection's piecewise frame reader (ctl_rx, probe_ctl.h):
 * frames fed whole, byte by byte and back to back, hostile headers
 * refused before their payload, and the socket side that never blocks.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probe/probe_ctl.h"
#include "probe/probe_proto.h"
#include "test.h"

static uint8_t wire[2 * PROBE_MAX_FRAME];

/* A HELLO as a client sends it, at @out; its length. */
static size_t hello_bytes(uint8_t *out, const char *software)
{
	struct probe_frame f = { .type = PROBE_MSG_HELLO };

	f.u.hello.magic = PROBE_MAGIC;
	f.u.hello.version = PROBE_PROTO_VERSION;
	strcpy(f.u.hello.software, software);
	return (size_t)probe_encode(&f, out, PROBE_MAX_FRAME);
}

static void test_whole_frame(void)
{
	struct ctl_rx rx = { 0 };
	struct probe_frame f;
	size_t n = hello_bytes(wire, "rdmactl 0.1.0"), used;

	CHECK_INT(ctl_rx_feed(&rx, wire, n, &used, &f), 0);
	CHECK_INT(used, n);
	CHECK_INT(f.type, PROBE_MSG_HELLO);
	CHECK_STR(f.u.hello.software, "rdmactl 0.1.0");
	CHECK(rx.payload == NULL && rx.have == 0);
}

/* A byte at a time (a slow or hostile client): whole only at the last byte. */
static void test_byte_by_byte(void)
{
	struct ctl_rx rx = { 0 };
	struct probe_frame f;
	size_t n = hello_bytes(wire, "slow"), i, used;
	int ret = -EAGAIN;

	for (i = 0; i < n && ret == -EAGAIN; i++) {
		ret = ctl_rx_feed(&rx, wire + i, 1, &used, &f);
		CHECK_INT(used, 1);
		if (i + 1 < n)
			CHECK_INT(ret, -EAGAIN);
	}
	CHECK_INT(ret, 0);
	CHECK_INT(i, n);
	CHECK_STR(f.u.hello.software, "slow");
}

/* Two frames in one buffer: the first is taken alone, not a byte of the second. */
static void test_back_to_back(void)
{
	struct probe_frame bye = { .type = PROBE_MSG_BYE }, f;
	struct ctl_rx rx = { 0 };
	size_t n = hello_bytes(wire, "first"), m, used;

	m = (size_t)probe_encode(&bye, wire + n, PROBE_MAX_FRAME);
	CHECK_INT(ctl_rx_feed(&rx, wire, n + m, &used, &f), 0);
	CHECK_INT(used, n);
	CHECK_INT(f.type, PROBE_MSG_HELLO);
	CHECK_INT(ctl_rx_feed(&rx, wire + n, m, &used, &f), 0);
	CHECK_INT(used, m);
	CHECK_INT(f.type, PROBE_MSG_BYE);
	CHECK_INT(ctl_rx_feed(&rx, wire, 0, &used, &f), -EAGAIN);
}

/* A header over the limit is refused at its 8th byte: the payload is never waited for. */
static void test_hostile_headers(void)
{
	static const uint8_t big[] = { 0, 1, 0, 0, 0, 0x10, 0, 0, 'x' };
	static const uint8_t rsvd[] = { 0, 1, 0, 1, 0, 0, 0, 0 };
	static const uint8_t unknown[] = { 0x47, 0x45, 0, 0, 0, 0, 0, 1, 'x' };
	struct ctl_rx rx = { 0 };
	struct probe_frame f;
	size_t used;

	CHECK_INT(ctl_rx_feed(&rx, big, sizeof(big), &used, &f), -EMSGSIZE);
	CHECK_INT(used, PROBE_HDR_LEN);
	CHECK(rx.payload == NULL && rx.have == 0);
	CHECK_INT(ctl_rx_feed(&rx, rsvd, sizeof(rsvd), &used, &f), -EBADMSG);
	CHECK_INT(ctl_rx_feed(&rx, unknown, sizeof(unknown), &used, &f), -EPROTO);
	CHECK_INT(used, sizeof(unknown));
}

/* A HELLO whose name is longer than its field: malformed, not cut. */
static void test_overlong_field(void)
{
	static const uint8_t head[] = { 0, 1, 0, 0, 0, 0, 0, 10 + 200, 0x52, 0x50, 0x42, 0x31,
					0, 1, 0, 0, 0, 200 };
	struct ctl_rx rx = { 0 };
	struct probe_frame f;
	size_t used;

	memcpy(wire, head, sizeof(head));
	memset(wire + sizeof(head), 'A', 200);
	CHECK_INT(ctl_rx_feed(&rx, wire, sizeof(head) + 200, &used, &f), -EBADMSG);
	CHECK_INT(used, sizeof(head) + 200);
}

/* The socket side: nothing yet is -EAGAIN (never a wait), EOF -ECONNRESET. */
static void test_recv(void)
{
	struct probe_ctl c = { .fd = -1 };
	struct ctl_rx rx = { 0 };
	struct probe_frame f;
	size_t n = hello_bytes(wire, "over a socket");
	int sv[2];

	CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	c.fd = sv[1];
	CHECK_INT(ctl_rx_recv(&c, &rx, &f), -EAGAIN);
	CHECK_INT(write(sv[0], wire, 5), 5);
	CHECK_INT(ctl_rx_recv(&c, &rx, &f), -EAGAIN);
	CHECK_INT(write(sv[0], wire + 5, n - 5 + 3), (ssize_t)(n - 5 + 3));
	CHECK_INT(ctl_rx_recv(&c, &rx, &f), 0);
	CHECK_STR(f.u.hello.software, "over a socket");
	/* The 3 bytes after the frame are the next frame's: still there. */
	CHECK_INT(ctl_rx_recv(&c, &rx, &f), -EAGAIN);
	CHECK_INT(rx.have, 3);
	close(sv[0]);
	CHECK_INT(ctl_rx_recv(&c, &rx, &f), -ECONNRESET);
	ctl_rx_free(&rx);
	CHECK(rx.payload == NULL && rx.have == 0);
	close(sv[1]);
}

int main(void)
{
	RUN("probe_ctl", test_whole_frame);
	RUN("probe_ctl", test_byte_by_byte);
	RUN("probe_ctl", test_back_to_back);
	RUN("probe_ctl", test_hostile_headers);
	RUN("probe_ctl", test_overlong_field);
	RUN("probe_ctl", test_recv);
	TEST_EXIT();
}
