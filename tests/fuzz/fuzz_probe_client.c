// SPDX-License-Identifier: MIT
/*
 * The client end of the probe control connection, reading what a server
 * (or whatever listens on that port) answers: HELLO, TEST_ACK or ERROR,
 * EP_INFO, then READY/PROGRESS/DONE/RESULT per size.  PROGRESS frames are
 * skipped by ctl_expect() through the progress callback, as the client
 * does.  The first input byte picks the path: a measuring session, or
 * `rdmactl doctor --peer` asking for NODE_INFO.
 */
#include <json-c/json.h>

#include "doctor/doctor_peer.h"
#include "probe/probe_proto.h"
#include "probe_stream.h"

static void on_progress(void *arg, const struct probe_progress *p)
{
	(void)p;
	(*(unsigned int *)arg)++;
}

static int expect(struct probe_ctl *c, uint16_t type, struct probe_frame *f)
{
	int ret = ctl_expect(c, type, f);

	ctl_err_sane(ret);
	if (ret == -EREMOTEIO && !memchr(c->last_error.msg, 0, sizeof(c->last_error.msg)))
		fuzz_fail("peer ERROR kept unterminated");
	if (!ret && f->type != type)
		fuzz_fail("expected %s, got %s", probe_msg_name(type), probe_msg_name(f->type));
	if (!ret)
		frame_sane(f);
	return ret;
}

static void client_session(struct probe_ctl *c)
{
	static const uint16_t per_size[] = { PROBE_MSG_READY, PROBE_MSG_DONE, PROBE_MSG_RESULT };
	static struct probe_frame f;
	unsigned int progress = 0;
	int i;

	c->on_progress = on_progress;
	c->progress_arg = &progress;
	if (expect(c, PROBE_MSG_HELLO, &f) || expect(c, PROBE_MSG_TEST_ACK, &f) ||
	    expect(c, PROBE_MSG_EP_INFO, &f))
		return;
	for (i = 0; i < 96; i++)
		if (expect(c, per_size[i % 3], &f))
			return;
}

static void doctor_session(struct probe_ctl *c)
{
	static struct probe_frame f;
	struct json_object *o = NULL;
	int ret;

	if (expect(c, PROBE_MSG_HELLO, &f))
		return;
	ret = doctor_peer_read_info(c, &o);
	if (ret && o)
		fuzz_fail("NODE_INFO failed (%d) but returned an object", ret);
	if (o && !json_object_is_type(o, json_type_object))
		fuzz_fail("NODE_INFO parsed to a non-object");
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_ctl c;

	if (size < 1 || stream_open(&c, data + 1, size - 1))
		return 0;
	if (data[0] & 1)
		doctor_session(&c);
	else
		client_session(&c);
	ctl_close(&c);
	return 0;
}
