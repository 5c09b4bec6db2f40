// SPDX-License-Identifier: MIT
/*
 * The server's piecewise frame reader (ctl_rx_feed(), probe_ctl.h) against
 * the whole-frame decoder: the same bytes, fed in pieces of whatever sizes
 * the input's first byte draws, must give the same frames and the same
 * errors, at the same offsets, as reading each header and payload whole,
 * and leave nothing allocated.  Input: one byte seeding the piece sizes,
 * then the stream a client (or a stranger) sends.
 */
#include <string.h>

#include "fuzz.h"
#include "probe/probe_ctl.h"
#include "probe/probe_proto.h"
#include "probe_stream.h"

/* The reference: the next frame of @p read whole.  Its length in *@used. */
static int read_whole(const uint8_t *p, size_t n, size_t *used, struct probe_frame *f)
{
	uint16_t type;
	uint32_t len;
	int ret;

	*used = n < PROBE_HDR_LEN ? n : PROBE_HDR_LEN;
	if (n < PROBE_HDR_LEN)
		return -EAGAIN;
	ret = probe_decode_header(p, &type, &len);
	if (ret)
		return ret;
	*used = n < PROBE_HDR_LEN + len ? n : PROBE_HDR_LEN + len;
	if (n < PROBE_HDR_LEN + len)
		return -EAGAIN;
	return probe_decode(type, p + PROBE_HDR_LEN, len, f);
}

/* The next frame through ctl_rx, fed in pieces of 1..16 bytes drawn from *@seed. */
static int read_pieces(struct ctl_rx *rx, const uint8_t *p, size_t n, size_t *used,
		       struct probe_frame *f, uint32_t *seed)
{
	size_t off = 0, k, took;
	int ret = -EAGAIN;

	while (off < n && ret == -EAGAIN) {
		*seed = *seed * 1103515245u + 12345u;
		k = 1 + (*seed >> 16) % 16;
		if (k > n - off)
			k = n - off;
		ret = ctl_rx_feed(rx, p + off, k, &took, f);
		if (took > k || (ret == -EAGAIN && took != k))
			fuzz_fail("ctl_rx_feed took %zu of %zu bytes (ret %d)", took, k, ret);
		off += took;
	}
	*used = off;
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct probe_frame a, b;
	struct ctl_rx rx = { 0 };
	size_t off = 1, ua, ub = 0;
	int ra, rb = 0;
	uint32_t seed;

	if (!size || size > STREAM_MAX)
		return 0;
	seed = data[0];
	while (off < size) {
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		ra = read_whole(data + off, size - off, &ua, &a);
		rb = read_pieces(&rx, data + off, size - off, &ub, &b, &seed);
		if (ra != rb || ua != ub)
			fuzz_fail("at %zu: whole %d after %zu bytes, pieces %d after %zu", off, ra, ua,
				  rb, ub);
		if (!ra && memcmp(&a, &b, sizeof(a)))
			fuzz_fail("at %zu: the frames differ", off);
		if (!ra)
			frame_sane(&b);
		if (ra)
			break;	/* an error ends a connection; -EAGAIN: the stream ended mid-frame */
		off += ua;
	}
	/* A stream that ends mid-frame: ctl_rx holds exactly its bytes. */
	if (rb == -EAGAIN && rx.have != ub)
		fuzz_fail("a partial frame of %zu bytes, %u held", ub, rx.have);
	ctl_rx_free(&rx);
	if (rx.payload || rx.have)
		fuzz_fail("ctl_rx_free left state");
	return 0;
}
