// SPDX-License-Identifier: MIT
/*
 * The rendezvous connection's lines and proofs (see rdv.h).  The MACs are
 * the probe's (probe_auth.h): HMAC-SHA256 over two nonces.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/random.h>
#include <unistd.h>

#include "mesh/rdv.h"
#include "probe/probe_auth.h"

void rdv_init(struct rdv_conn *c, int fd)
{
	c->fd = fd;
	c->len = 0;
	c->eof = false;
}

void rdv_close(struct rdv_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->len = 0;
}

int rdv_fill(struct rdv_conn *c)
{
	ssize_t n;

	while (c->len < RDV_LINE_MAX) {
		n = recv(c->fd, c->buf + c->len, RDV_LINE_MAX - c->len, MSG_DONTWAIT);
		if (n > 0) {
			c->len += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		c->eof = true;
		return memchr(c->buf, '\n', c->len) ? 0 : -ECONNRESET;
	}
	return memchr(c->buf, '\n', c->len) ? 0 : -EMSGSIZE;
}

int rdv_line(struct rdv_conn *c, char *line)
{
	char *nl = memchr(c->buf, '\n', c->len);
	size_t n;

	if (!nl)
		return 0;
	n = (size_t)(nl - c->buf);
	memcpy(line, c->buf, n);
	line[n] = '\0';
	c->len -= n + 1;
	memmove(c->buf, nl + 1, c->len);
	return 1;
}

int rdv_wait_line(struct rdv_conn *c, char *line, int ms)
{
	long end = rdv_ms() + ms;
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	int ret;

	for (;;) {
		if (rdv_line(c, line))
			return 1;
		if (c->eof)
			return -ECONNRESET;
		if (rdv_ms() >= end)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)(end - rdv_ms())) < 0 && errno != EINTR)
			return -errno;
		ret = rdv_fill(c);
		if (ret)
			return ret;
	}
}

int rdv_send(struct rdv_conn *c, const char *fmt, ...)
{
	char line[RDV_LINE_MAX + 2];
	size_t off = 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n > RDV_LINE_MAX)
		return -EMSGSIZE;
	line[n++] = '\n';
	while (off < (size_t)n) {
		ssize_t w = send(c->fd, line + off, (size_t)n - off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd p = { .fd = c->fd, .events = POLLOUT };

			/* A peer that reads nothing for 5 s is as good as gone. */
			if (poll(&p, 1, 5000) <= 0)
				return -ETIMEDOUT;
			continue;
		}
		if (w <= 0)
			return w < 0 ? -errno : -EPIPE;
		off += (size_t)w;
	}
	return 0;
}

void rdv_hex(const uint8_t *b, size_t n, char *hex)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", b[i]);
	hex[2 * n] = '\0';
}

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int rdv_unhex(const char *hex, uint8_t *b, size_t n)
{
	size_t i;

	if (strlen(hex) != 2 * n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		b[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int rdv_mac_hex(const char *token, const uint8_t *a, const uint8_t *b, char *hex)
{
	uint8_t mac[PROBE_MAC_LEN];

	if (probe_auth_mac(token, a, b, mac))
		return -EIO;
	rdv_hex(mac, sizeof(mac), hex);
	return 0;
}

bool rdv_mac_ok(const char *token, const uint8_t *a, const uint8_t *b, const char *hex)
{
	uint8_t mac[PROBE_MAC_LEN], got[PROBE_MAC_LEN];

	if (rdv_unhex(hex, got, sizeof(got)) || probe_auth_mac(token, a, b, mac))
		return false;
	return probe_auth_equal(mac, got);
}

int rdv_token(char *hex)
{
	uint8_t b[32];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return -EIO;
	rdv_hex(b, sizeof(b), hex);
	return 0;
}
