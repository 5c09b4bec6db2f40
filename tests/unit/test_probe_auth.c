// SPDX-License-Identifier: MIT
/* The probe's token challenge-response (probe_auth.h) and its frames. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "probe/probe_auth.h"
#include "probe/probe_proto.h"
#include "test.h"

static uint8_t sn[PROBE_NONCE_LEN], cn[PROBE_NONCE_LEN];

static void nonces(void)
{
	unsigned int i;

	for (i = 0; i < PROBE_NONCE_LEN; i++) {
		sn[i] = (uint8_t)i;
		cn[i] = (uint8_t)(32 + i);
	}
}

static void hex(const uint8_t *b, char *out)
{
	unsigned int i;

	for (i = 0; i < PROBE_MAC_LEN; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* HMAC-SHA256 as an independent implementation (Python's hmac) computes it. */
static void test_mac_known(void)
{
	struct probe_auth resp;
	uint8_t expect[PROBE_MAC_LEN];
	char h[2 * PROBE_MAC_LEN + 1];

	nonces();
	CHECK_INT(probe_auth_respond("s3cret", sn, cn, &resp, expect), 0);
	hex(resp.mac, h);
	CHECK_STR(h, "f9db3a0ba8d2606765b4ffb0ad4f1a14c4237d98db05768c33e7445a86b3e4f5");
	hex(expect, h);
	CHECK_STR(h, "3ee9e5e05bec9680df3a337e1c0a5dac4e97edb187fece1592e70108566de9cf");
}

/* The whole exchange: the server accepts the client, the client accepts the server. */
static void test_exchange(void)
{
	struct probe_auth resp, proof;
	uint8_t expect[PROBE_MAC_LEN];

	CHECK_INT(probe_auth_nonce(sn), 0);
	CHECK_INT(probe_auth_nonce(cn), 0);
	CHECK(memcmp(sn, cn, PROBE_NONCE_LEN));
	CHECK_INT(probe_auth_respond("operator's secret", sn, cn, &resp, expect), 0);
	CHECK_INT(probe_auth_verify("operator's secret", sn, cn, &resp, &proof), 0);
	CHECK(probe_auth_equal(proof.mac, expect));
	/* The client's MAC is not the server's proof: neither can be reflected. */
	CHECK(!probe_auth_equal(resp.mac, expect));
}

static void test_refusals(void)
{
	struct probe_auth resp, proof;
	uint8_t expect[PROBE_MAC_LEN];

	nonces();
	CHECK_INT(probe_auth_respond("right", sn, cn, &resp, expect), 0);
	/* Another token, a prefix of it, another server nonce, another client nonce. */
	CHECK_INT(probe_auth_verify("wrong", sn, cn, &resp, &proof), -EACCES);
	CHECK_INT(probe_auth_verify("righ", sn, cn, &resp, &proof), -EACCES);
	sn[0] ^= 1;
	CHECK_INT(probe_auth_verify("right", sn, cn, &resp, &proof), -EACCES);
	sn[0] ^= 1;
	cn[31] ^= 0x80;
	CHECK_INT(probe_auth_verify("right", sn, cn, &resp, &proof), -EACCES);
	cn[31] ^= 0x80;
	resp.mac[5] ^= 4;
	CHECK_INT(probe_auth_verify("right", sn, cn, &resp, &proof), -EACCES);
	resp.mac[5] ^= 4;
	CHECK_INT(probe_auth_verify("right", sn, cn, &resp, &proof), 0);
	/* A client echoing the server's nonce is refused even with a right MAC. */
	CHECK_INT(probe_auth_respond("right", sn, sn, &resp, expect), 0);
	CHECK_INT(probe_auth_verify("right", sn, sn, &resp, &proof), -EACCES);
}

static void test_token_ok(void)
{
	char big[PROBE_TOKEN_MAX + 2];

	CHECK(!probe_token_ok(NULL));
	CHECK(!probe_token_ok(""));
	CHECK(probe_token_ok("x"));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK(!probe_token_ok(big));
	big[PROBE_TOKEN_MAX] = '\0';
	CHECK(probe_token_ok(big));
}

static int round_trip(const struct probe_frame *in, struct probe_frame *out, uint8_t *buf)
{
	uint16_t type;
	uint32_t len;
	int n = probe_encode(in, buf, PROBE_MAX_FRAME), ret;

	if (n < 0)
		return n;
	ret = probe_decode_header(buf, &type, &len);
	return ret ? ret : probe_decode(type, buf + PROBE_HDR_LEN, len, out);
}

/* HELLO carries the flag and the nonce; AUTH frames are exactly one MAC long. */
static void test_frames(void)
{
	static uint8_t buf[PROBE_MAX_FRAME];
	static struct probe_frame in, out;
	int n;

	nonces();
	in.type = PROBE_MSG_HELLO;
	in.u.hello.magic = PROBE_MAGIC;
	in.u.hello.version = PROBE_PROTO_VERSION;
	strcpy(in.u.hello.software, "rdmactl 0.1.0");
	n = probe_encode(&in, buf, sizeof(buf));
	CHECK_INT(round_trip(&in, &out, buf), 0);
	CHECK_INT(out.u.hello.flags, 0);
	in.u.hello.flags = PROBE_HELLO_AUTH;
	memcpy(in.u.hello.nonce, sn, PROBE_NONCE_LEN);
	CHECK_INT(probe_encode(&in, buf, sizeof(buf)), n + 2 + PROBE_NONCE_LEN);
	CHECK_INT(round_trip(&in, &out, buf), 0);
	CHECK_INT(out.u.hello.flags, PROBE_HELLO_AUTH);
	CHECK(!memcmp(out.u.hello.nonce, sn, PROBE_NONCE_LEN));
	/* The flag without the whole nonce: refused. */
	n = probe_encode(&in, buf, sizeof(buf));
	CHECK_INT(probe_decode(PROBE_MSG_HELLO, buf + PROBE_HDR_LEN, (size_t)n - PROBE_HDR_LEN - 1,
			       &out), -EBADMSG);
	/* A HELLO of before the flags (ends after the software string) still decodes. */
	n = (int)(PROBE_HDR_LEN + 4 + 2 + 2 + 2 + strlen("rdmactl 0.1.0"));
	CHECK_INT(probe_decode(PROBE_MSG_HELLO, buf + PROBE_HDR_LEN, (size_t)n - PROBE_HDR_LEN, &out), 0);
	CHECK_INT(out.u.hello.flags, 0);

	memset(&in, 0, sizeof(in));
	in.type = PROBE_MSG_AUTH_RESPONSE;
	memcpy(in.u.auth.mac, cn, PROBE_MAC_LEN);
	CHECK_INT(probe_encode(&in, buf, sizeof(buf)), PROBE_HDR_LEN + PROBE_MAC_LEN);
	CHECK_INT(round_trip(&in, &out, buf), 0);
	CHECK(!memcmp(out.u.auth.mac, cn, PROBE_MAC_LEN));
	CHECK_INT(probe_decode(PROBE_MSG_AUTH_PROOF, buf + PROBE_HDR_LEN, PROBE_MAC_LEN - 1, &out),
		  -EBADMSG);
	CHECK_INT(probe_decode(PROBE_MSG_AUTH_PROOF, buf + PROBE_HDR_LEN, PROBE_MAC_LEN + 1, &out),
		  -EBADMSG);
	CHECK_STR(probe_msg_name(PROBE_MSG_AUTH_PROOF), "AUTH_PROOF");
}

int main(void)
{
	RUN("probe_auth", test_mac_known);
	RUN("probe_auth", test_exchange);
	RUN("probe_auth", test_refusals);
	RUN("probe_auth", test_token_ok);
	RUN("probe_auth", test_frames);
	TEST_EXIT();
}
