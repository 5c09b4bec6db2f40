/* SPDX-License-Identifier: MIT */
/*
 * The cluster probe's rendezvous: the one TCP connection between the
 * coordinator (`rdmactl probe -w`) and each node's agent (`rdmactl probe
 * --agent`), in text lines of at most RDV_LINE_MAX bytes.
 *
 *   agent                                coordinator
 *   HELLO 1 NAME AN PORTS          ->
 *                                  <-    CHALLENGE CN MAC(token, AN || CN)
 *   AUTH MAC(token, CN || AN)      ->
 *                                  <-    WELCOME INDEX NODES
 *                                  <-    SERVE STEP RAIL PORT DEV BIND
 *   READY STEP RAIL                ->
 *                                  <-    CLIENT STEP RAIL PORT DEV HOST
 *   RESULT STEP RAIL {json}        ->
 *                                  <-    END STEP      (stop what is left of STEP)
 *                                  <-    PING          (every RDV_PING_S)
 *   PONG                           ->
 *                                  <-    BYE
 *
 * AN, CN: 32 random bytes in hex, fresh per connection, so both ends prove
 * they hold the run's token without sending it, and a recorded exchange
 * replays nowhere.  PORTS: the node's active RDMA ports, "DEV/PORT=IPV4"
 * joined by commas ("-" for none).  DEV, BIND: "-" when not chosen.
 */
#ifndef RDMACTL_RDV_H
#define RDMACTL_RDV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/probe_ctl.h"

#define RDV_LINE_MAX	16384
#define RDV_PROTO	1
#define RDV_PING_S	3	/* the coordinator's keep-alive */
#define RDV_SILENCE_S	20	/* a peer silent this long is gone */
#define RDV_HEX_LEN	64	/* a nonce or a MAC in hex */

/* Milliseconds on the monotonic clock (probe_ctl's now_ns()), for deadlines. */
static inline long rdv_ms(void)
{
	return (long)(now_ns() / 1000000);
}

struct rdv_conn {
	int fd;
	char buf[RDV_LINE_MAX + 1];
	size_t len;
	bool eof;
};

void rdv_init(struct rdv_conn *c, int fd);
void rdv_close(struct rdv_conn *c);

/*
 * Read what is there without blocking (the fd is non-blocking): 0, or
 * -ECONNRESET at end of file or on an error, -EMSGSIZE for a line longer
 * than RDV_LINE_MAX.
 */
int rdv_fill(struct rdv_conn *c);
/*
 * The next whole line (without its newline) into @line (RDV_LINE_MAX + 1
 * bytes): 1, or 0 when none is complete yet.
 */
int rdv_line(struct rdv_conn *c, char *line);
/* Wait up to @ms for one line: 1, or -ETIMEDOUT / -ECONNRESET / -EMSGSIZE. */
int rdv_wait_line(struct rdv_conn *c, char *line, int ms);

/* Send one line (printf format, newline added); 0 or -errno. */
int rdv_send(struct rdv_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* @n bytes as lowercase hex into @hex (2n + 1 bytes). */
void rdv_hex(const uint8_t *b, size_t n, char *hex);
/* Exactly 2n hex digits into @b; 0 or -EINVAL. */
int rdv_unhex(const char *hex, uint8_t *b, size_t n);

/* MAC(@token, @a || @b) in hex (RDV_HEX_LEN + 1 bytes); 0 or -EIO. */
int rdv_mac_hex(const char *token, const uint8_t *a, const uint8_t *b, char *hex);
/* True when @hex is MAC(@token, @a || @b) (compared in constant time). */
bool rdv_mac_ok(const char *token, const uint8_t *a, const uint8_t *b, const char *hex);

/* A fresh secret for one run: 32 random bytes in hex; 0 or -errno. */
int rdv_token(char *hex);

#endif
