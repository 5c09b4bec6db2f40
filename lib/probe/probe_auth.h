/* SPDX-License-Identifier: MIT */
/*
 * The probe's optional shared secret (--token, RDMACTL_TOKEN): a
 * challenge-response after HELLO that never puts the secret on the wire.
 *
 *   client                            server
 *   HELLO, AUTH, cn  ->                   cn, sn: 32 random bytes each
 *                    <-  HELLO, AUTH, sn  (getrandom), fresh per session
 *   AUTH_RESPONSE    ->                   HMAC-SHA256(token, sn || cn)
 *                    <-  AUTH_PROOF | ERROR(AUTH)
 *                                         HMAC-SHA256(token, cn || sn):
 *                                         the server holds the token too
 *
 * Both ends pick fresh nonces per session, so a recorded exchange replays
 * nowhere; MACs are compared in constant time.
 */
#ifndef RDMACTL_PROBE_AUTH_H
#define RDMACTL_PROBE_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/probe_proto.h"

#define PROBE_TOKEN_MAX	256	/* bytes of a token */

/* Fill @nonce with PROBE_NONCE_LEN random bytes (getrandom); 0 or -errno. */
int probe_auth_nonce(uint8_t *nonce);

/* HMAC-SHA256(@token, @a || @b), each nonce PROBE_NONCE_LEN bytes; 0 or -EIO. */
int probe_auth_mac(const char *token, const uint8_t *a, const uint8_t *b, uint8_t *mac);

/*
 * Client: the answer to server nonce @sn and client nonce @cn in @resp,
 * and the proof the server must send back in @expect.  0 or -EIO.
 */
int probe_auth_respond(const char *token, const uint8_t *sn, const uint8_t *cn,
		       struct probe_auth *resp, uint8_t *expect);

/*
 * Server: check @resp against @sn and @cn; 0 with the server's proof in
 * @proof, or -EACCES (wrong token, or a client echoing our nonce) / -EIO.
 */
int probe_auth_verify(const char *token, const uint8_t *sn, const uint8_t *cn,
		      const struct probe_auth *resp, struct probe_auth *proof);

/* Constant-time comparison of two MACs. */
bool probe_auth_equal(const uint8_t *a, const uint8_t *b);

/* A usable token: 1..PROBE_TOKEN_MAX bytes. */
bool probe_token_ok(const char *token);

struct ctx;

/*
 * --token SECRET: copy @arg into @buf (PROBE_TOKEN_MAX + 1 bytes) and blank
 * the argument, so `ps` shows it no longer than the start-up.  0, or
 * -EINVAL explained on stderr.
 */
int probe_token_from_arg(const struct ctx *ctx, const char *arg, char *buf);

/*
 * RDMACTL_TOKEN into @buf (PROBE_TOKEN_MAX + 1 bytes): 1 when it was set,
 * 0 when unset or empty (no token), -EINVAL explained on stderr.
 */
int probe_token_from_env(const struct ctx *ctx, char *buf);

#endif
