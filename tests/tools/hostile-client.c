// SPDX-License-Identifier: MIT
/*
 * A hostile client of `rdmactl probe --server`, for tests/netns/probe-hostile.sh
 * and bench/probe-server.sh.  It speaks the wire format of
 * lib/probe/probe_proto.h by hand (8-byte header: type u16, reserved u16,
 * length u32, big-endian), so that it can send what rdmactl never would.
 *
 *   hostile-client [-b ADDR] HOST PORT idle N SECONDS
 *       hold N connections that say nothing; each one the server closes is
 *       opened again (after REOPEN_MS), until SECONDS have passed
 *   hostile-client [-b ADDR] HOST PORT dribble N SECONDS
 *       the same, each connection sending a HELLO one byte a second
 *   hostile-client [-b ADDR] HOST PORT send KIND
 *       one connection sending one crafted input, then what the server
 *       answered, a line per frame: "reply ERROR CODE: MESSAGE" (the
 *       message's bytes outside printable ASCII as \xHH), "reply HELLO" or
 *       "reply TYPE N"; then "closed", or "still open" after 5 s
 *
 * -b ADDR: connect from ADDR (a stranger on another host than the real
 * clients).
 *
 * KIND: escapes (a HELLO of version 99 whose software name carries
 * terminal escapes, a newline and a fake log line), overlong-name (a
 * software name of 200 bytes; the field holds 63), overlong-frame (a
 * header announcing 1 MiB), version-0, version-65535, bad-magic, junk
 * (bytes that are no frame), error-escapes (a good HELLO, then an ERROR
 * whose message carries escapes), hello-then-silence (a good HELLO, then
 * nothing).
 *
 * idle and dribble print "idle: N held for S s, R reopened after the server
 * closed them" at the end.  Loads are bounded: N <= 5000, SECONDS <= 120.
 * Exit 0, or 2 on bad arguments, 1 when a connection could not be made.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAGIC		0x52504231u
#define HELLO		1
#define ERROR		2
#define MAX_CONNS	5000
#define MAX_SECONDS	120

static struct addrinfo *target, *source;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static size_t put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return 2;
}

static size_t put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
	return 4;
}

/* A frame of @type around @len bytes of @payload, into @out; its length. */
static size_t frame(uint8_t *out, unsigned int type, const uint8_t *payload, size_t len)
{
	put16(out, type);
	put16(out + 2, 0);
	put32(out + 4, (uint32_t)len);
	memcpy(out + 8, payload, len);
	return 8 + len;
}

/* A HELLO of @version and software name @sw (@swlen bytes, any of them). */
static size_t hello(uint8_t *out, uint32_t magic, unsigned int version, const char *sw, size_t swlen)
{
	uint8_t p[512];
	size_t n = 0;

	n += put32(p + n, magic);
	n += put16(p + n, version);
	n += put16(p + n, 0);
	n += put16(p + n, (unsigned int)swlen);
	memcpy(p + n, sw, swlen);
	return frame(out, HELLO, p, n + swlen);
}

static int connect_to(int nonblock)
{
	int fd = socket(target->ai_family, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);

	if (fd < 0)
		return -1;
	if (source && bind(fd, source->ai_addr, source->ai_addrlen)) {
		close(fd);
		return -1;
	}
	if (connect(fd, target->ai_addr, target->ai_addrlen) && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Print @n bytes of @p with everything outside printable ASCII as \xHH. */
static void print_escaped(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			putchar(p[i]);
		else
			printf("\\x%02x", p[i]);
}

/* One frame of the server's answer, at @p (@n bytes): a line; its length, 0 when cut short. */
static size_t print_frame(const uint8_t *p, size_t n)
{
	size_t len, slen;

	if (n < 8)
		return 0;
	len = (size_t)p[4] << 24 | (size_t)p[5] << 16 | (size_t)p[6] << 8 | p[7];
	if (len > n - 8)
		return 0;
	if ((p[0] << 8 | p[1]) == ERROR && len >= 4) {
		slen = (size_t)(p[10] << 8 | p[11]);
		printf("reply ERROR %u: ", p[8] << 8 | p[9]);
		print_escaped(p + 12, slen < len - 4 ? slen : len - 4);
		putchar('\n');
	} else if ((p[0] << 8 | p[1]) == HELLO) {
		puts("reply HELLO");
	} else {
		printf("reply TYPE %u\n", p[0] << 8 | p[1]);
	}
	return 8 + len;
}

/* Read the server's answer until it closes (5 s at most): a line per frame, then "closed". */
static void print_reply(int fd)
{
	uint8_t buf[8192];
	size_t have = 0, off = 0, k;
	struct pollfd p = { fd, POLLIN, 0 };
	uint64_t end = now_ms() + 5000;
	ssize_t r;

	while (have < sizeof(buf) && now_ms() < end && poll(&p, 1, 200) >= 0) {
		r = recv(fd, buf + have, sizeof(buf) - have, MSG_DONTWAIT);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			break;
		if (r > 0)
			have += (size_t)r;
	}
	while ((k = print_frame(buf + off, have - off)))
		off += k;
	puts(now_ms() < end ? "closed" : "still open");
}

static const char evil[] = "\033]0;pwned\007\033[2J\nrdmactl probe: client 10.0.0.9: ok";

/* The bytes of input @kind into @out; their length, 0 for an unknown kind. */
static size_t crafted(const char *kind, uint8_t *out)
{
	char name[200];
	uint8_t msg[128];
	size_t n;

	if (!strcmp(kind, "escapes"))
		return hello(out, MAGIC, 99, evil, strlen(evil));
	if (!strcmp(kind, "overlong-name")) {
		memset(name, 'A', sizeof(name));
		return hello(out, MAGIC, 1, name, sizeof(name));
	}
	if (!strcmp(kind, "overlong-frame")) {
		put16(out, HELLO);
		put16(out + 2, 0);
		put32(out + 4, 1u << 20);	/* the protocol allows 4096 */
		memset(out + 8, 'A', 64);
		return 72;
	}
	if (!strcmp(kind, "version-0"))
		return hello(out, MAGIC, 0, "hostile", 7);
	if (!strcmp(kind, "version-65535"))
		return hello(out, MAGIC, 65535, "hostile", 7);
	if (!strcmp(kind, "bad-magic"))
		return hello(out, 0x1b5b324a, 1, "hostile", 7);
	if (!strcmp(kind, "junk")) {
		memcpy(out, "\033[2J\033]0;junk\007 SSH-2.0-OpenSSH\r\n", 31);
		return 31;
	}
	if (!strcmp(kind, "hello-then-silence"))
		return hello(out, MAGIC, 1, "hostile", 7);
	if (!strcmp(kind, "error-escapes")) {
		n = hello(out, MAGIC, 1, "hostile", 7);
		put16(msg, 3);
		put16(msg + 2, (unsigned int)strlen(evil));
		memcpy(msg + 4, evil, strlen(evil));
		return n + frame(out + n, ERROR, msg, 4 + strlen(evil));
	}
	return 0;
}

static int send_kind(const char *kind)
{
	uint8_t buf[1024];
	size_t n = crafted(kind, buf);
	int fd;

	if (!n) {
		fprintf(stderr, "hostile-client: unknown KIND '%s'\n", kind);
		return 2;
	}
	fd = connect_to(0);
	if (fd < 0) {
		perror("hostile-client: connect");
		return 1;
	}
	if (send(fd, buf, n, MSG_NOSIGNAL) != (ssize_t)n)
		perror("hostile-client: send");
	print_reply(fd);
	close(fd);
	return 0;
}

/* ---- idle and dribble: many connections held open ---- */

/*
 * A connection is opened again REOPEN_MS after the server closed it (or
 * refused it): pressure enough, without two processes spinning on a shared
 * machine once the server's cap is reached.
 */
#define REOPEN_MS	50

struct conn {
	int fd;			/* -1: closed, open again at next_ms */
	size_t sent;		/* dribble: bytes of the HELLO sent */
	uint64_t next_ms;	/* dribble: when the next byte goes */
};

static uint8_t dribble_hello[64];
static size_t dribble_len;

static int reopen(struct conn *c, uint64_t now)
{
	c->fd = connect_to(1);
	c->sent = 0;
	c->next_ms = now + 1000;
	return c->fd < 0 ? -1 : 0;
}

/* The server closed @c (or refused it): 1, and it is opened again in REOPEN_MS. */
static int check_closed(struct conn *c, short revents, uint64_t now)
{
	uint8_t buf[4096];
	ssize_t r;

	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return 0;
	r = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (r > 0 || (r < 0 && errno == EAGAIN))
		return 0;	/* an ERROR before the close: wait for the close */
	close(c->fd);
	c->fd = -1;
	c->next_ms = now + REOPEN_MS;
	return 1;
}

static void dribble_one(struct conn *c, uint64_t now)
{
	if (c->fd < 0 || now < c->next_ms || c->sent >= dribble_len)
		return;
	if (send(c->fd, dribble_hello + c->sent, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1)
		c->sent++;
	c->next_ms = now + 1000;
}

static int hold(int n, int seconds, int dribble)
{
	struct conn *c = calloc((size_t)n, sizeof(*c));
	struct pollfd *p = calloc((size_t)n, sizeof(*p));
	uint64_t start = now_ms(), now = start;
	long reopened = 0;
	int i, failed = 0;

	if (!c || !p)
		return 1;
	dribble_len = hello(dribble_hello, MAGIC, 1, "dribbler", 8);
	for (i = 0; i < n; i++) {
		c[i].fd = -1;
		failed += reopen(&c[i], now) < 0;
	}
	while (now - start < (uint64_t)seconds * 1000) {
		for (i = 0; i < n; i++)
			p[i] = (struct pollfd){ c[i].fd, POLLIN, 0 };
		poll(p, (nfds_t)n, 100);
		now = now_ms();
		for (i = 0; i < n; i++) {
			if (c[i].fd < 0) {
				if (now >= c[i].next_ms)
					failed += reopen(&c[i], now) < 0;
				continue;
			}
			reopened += check_closed(&c[i], p[i].revents, now);
			if (dribble)
				dribble_one(&c[i], now);
		}
	}
	printf("%s: %d held for %d s, %ld reopened after the server closed them%s\n",
	       dribble ? "dribble" : "idle", n, seconds, reopened,
	       failed ? ", some connections failed" : "");
	for (i = 0; i < n; i++)
		if (c[i].fd >= 0)
			close(c[i].fd);
	free(c);
	free(p);
	return failed ? 1 : 0;
}

/* Many connections need many fds: the soft limit up to the hard one. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int usage(void)
{
	fputs("usage: hostile-client [-b ADDR] HOST PORT idle|dribble N SECONDS\n"
	      "       hostile-client [-b ADDR] HOST PORT send KIND\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	int n, secs;

	if (argc > 2 && !strcmp(argv[1], "-b")) {
		if (getaddrinfo(argv[2], NULL, &hints, &source))
			return usage();
		argc -= 2;
		argv += 2;
	}
	if (argc < 5 || getaddrinfo(argv[1], argv[2], &hints, &target))
		return usage();
	if (!strcmp(argv[3], "send") && argc == 5)
		return send_kind(argv[4]);
	if (argc != 6 || (strcmp(argv[3], "idle") && strcmp(argv[3], "dribble")))
		return usage();
	n = atoi(argv[4]);
	secs = atoi(argv[5]);
	if (n < 1 || n > MAX_CONNS || secs < 1 || secs > MAX_SECONDS)
		return usage();
	raise_nofile();
	return hold(n, secs, !strcmp(argv[3], "dribble"));
}
