// SPDX-License-Identifier: MIT
/* The probe's shared-secret challenge-response (see probe_auth.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "base/log.h"
#include "probe/probe_auth.h"

int probe_auth_nonce(uint8_t *nonce)
{
	size_t got = 0;

	while (got < PROBE_NONCE_LEN) {
		ssize_t n = getrandom(nonce + got, PROBE_NONCE_LEN - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got += (size_t)n;
	}
	return 0;
}

int probe_auth_mac(const char *token, const uint8_t *a, const uint8_t *b, uint8_t *mac)
{
	uint8_t msg[2 * PROBE_NONCE_LEN];
	unsigned int len = 0;

	memcpy(msg, a, PROBE_NONCE_LEN);
	memcpy(msg + PROBE_NONCE_LEN, b, PROBE_NONCE_LEN);
	if (!HMAC(EVP_sha256(), token, (int)strlen(token), msg, sizeof(msg), mac, &len) ||
	    len != PROBE_MAC_LEN)
		return -EIO;
	return 0;
}

bool probe_auth_equal(const uint8_t *a, const uint8_t *b)
{
	return CRYPTO_memcmp(a, b, PROBE_MAC_LEN) == 0;
}

bool probe_token_ok(const char *token)
{
	return token && *token && strnlen(token, PROBE_TOKEN_MAX + 1) <= PROBE_TOKEN_MAX;
}

int probe_token_from_arg(const struct ctx *ctx, const char *arg, char *buf)
{
	if (!probe_token_ok(arg)) {
		log_err(ctx, "Failed to parse --token: expected 1 to %d bytes", PROBE_TOKEN_MAX);
		return -EINVAL;
	}
	snprintf(buf, PROBE_TOKEN_MAX + 1, "%s", arg);
	/* argv is ours to write: what `ps` reads from /proc/PID/cmdline. */
	memset((char *)arg, 'x', strlen(arg));
	return 0;
}

int probe_token_from_env(const struct ctx *ctx, char *buf)
{
	const char *v = getenv("RDMACTL_TOKEN");

	if (!v || !*v)
		return 0;
	if (!probe_token_ok(v)) {
		log_err(ctx, "Failed to read RDMACTL_TOKEN: expected 1 to %d bytes", PROBE_TOKEN_MAX);
		return -EINVAL;
	}
	snprintf(buf, PROBE_TOKEN_MAX + 1, "%s", v);
	return 1;
}

int probe_auth_respond(const char *token, const uint8_t *sn, const uint8_t *cn,
		       struct probe_auth *resp, uint8_t *expect)
{
	int ret = probe_auth_mac(token, sn, cn, resp->mac);

	if (!ret)
		ret = probe_auth_mac(token, cn, sn, expect);
	return ret;
}

int probe_auth_verify(const char *token, const uint8_t *sn, const uint8_t *cn,
		      const struct probe_auth *resp, struct probe_auth *proof)
{
	uint8_t want[PROBE_MAC_LEN];
	int ret = probe_auth_mac(token, sn, cn, want);

	if (ret)
		return ret;
	/* A client echoing our own nonce would make its MAC our proof. */
	if (!probe_auth_equal(want, resp->mac) || !memcmp(sn, cn, PROBE_NONCE_LEN))
		return -EACCES;
	return probe_auth_mac(token, cn, sn, proof->mac);
}
