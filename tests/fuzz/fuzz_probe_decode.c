// SPDX-License-Identifier: MIT
/*
 * The probe frame codec on its own: a header, then a payload of any type.
 * Input: the 8 header bytes and the payload, as on the wire.  Whatever
 * decodes must encode back to the same bytes (HELLO: to a prefix, as its
 * tail is reserved for later versions), and a count or string the decoder
 * accepts must be within its array.
 */
#include <string.h>

#include "fuzz.h"
#include "probe/probe_proto.h"

static void check_bounds(const struct probe_frame *f)
{
	if (f->type == PROBE_MSG_EP_INFO && f->u.ep.nqps > PROBE_MAX_QPS)
		fuzz_fail("EP_INFO decoded with %u QPs", f->u.ep.nqps);
	if (f->type == PROBE_MSG_DONE && f->u.done.n > PROBE_MAX_QPS)
		fuzz_fail("DONE decoded with %u counts", f->u.done.n);
	if (strnlen(f->u.error.msg, sizeof(f->u.error.msg)) == sizeof(f->u.error.msg) &&
	    f->type == PROBE_MSG_ERROR)
		fuzz_fail("ERROR message not terminated");
}

static void round_trip(const struct probe_frame *f, const uint8_t *p, uint32_t len)
{
	static uint8_t out[PROBE_MAX_FRAME];
	int n = probe_encode(f, out, sizeof(out));
	size_t plen;

	if (n < PROBE_HDR_LEN)
		fuzz_fail("%s decoded but does not encode (%d)", probe_msg_name(f->type), n);
	plen = (size_t)n - PROBE_HDR_LEN;
	if (f->type == PROBE_MSG_HELLO ? plen > len : plen != len)
		fuzz_fail("%s: %u bytes decoded, %zu encoded", probe_msg_name(f->type), len, plen);
	if (memcmp(out + PROBE_HDR_LEN, p, plen))
		fuzz_fail("%s does not encode back to the bytes it was decoded from",
			  probe_msg_name(f->type));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct probe_frame f;
	uint16_t type;
	uint32_t len;

	if (size < PROBE_HDR_LEN || probe_decode_header(data, &type, &len))
		return 0;
	if (len > PROBE_MAX_PAYLOAD)
		fuzz_fail("header accepted a payload of %u bytes", len);
	/* The payload is what follows the header, whatever the length field says. */
	len = (uint32_t)(size - PROBE_HDR_LEN < len ? size - PROBE_HDR_LEN : len);
	probe_msg_name(type);
	if (probe_decode(type, data + PROBE_HDR_LEN, len, &f))
		return 0;
	check_bounds(&f);
	round_trip(&f, data + PROBE_HDR_LEN, len);
	if (f.type == PROBE_MSG_TEST_REQ) {
		const char *why;

		probe_test_check(&f.u.test, 1ull << 30, &why);
	}
	return 0;
}
