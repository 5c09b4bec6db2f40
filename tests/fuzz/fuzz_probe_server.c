// SPDX-License-Identifier: MIT
/*
 * The server end of the probe control connection, reading what a client
 * (or a stranger) sends: HELLO, a TEST_REQ checked against the server's
 * limits, EP_INFO, then START/ROW/BYE until the stream ends.  Input: the
 * bytes the client sends, framed or not.
 */
#include "probe/probe_proto.h"
#include "probe_stream.h"

static void server_session(struct probe_ctl *c)
{
	static struct probe_frame f;
	const char *why;
	int ret, i;

	ret = ctl_expect(c, PROBE_MSG_HELLO, &f);
	ctl_err_sane(ret);
	if (ret)
		return;
	frame_sane(&f);
	ret = ctl_expect(c, PROBE_MSG_TEST_REQ, &f);
	ctl_err_sane(ret);
	if (ret)
		return;
	if (probe_test_check(&f.u.test, 1ull << 30, &why) && !why)
		fuzz_fail("TEST_REQ refused without a reason");
	/* The rest of a session, in whatever order the client sends it. */
	for (i = 0; i < 256; i++) {
		ret = ctl_recv(c, &f, -1);
		ctl_err_sane(ret);
		if (ret)
			return;
		frame_sane(&f);
		if (f.type == PROBE_MSG_TEST_REQ && probe_test_check(&f.u.test, 1ull << 20, &why) &&
		    !why)
			fuzz_fail("TEST_REQ refused without a reason");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_ctl c;

	if (stream_open(&c, data, size))
		return 0;
	server_session(&c);
	ctl_close(&c);
	return 0;
}
