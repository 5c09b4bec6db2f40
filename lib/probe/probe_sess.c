// SPDX-License-Identifier: MIT
/*
 * The session's helpers that the transports and the handshake share: a
 * failure's one line (and the peer's ERROR), the progress line and its
 * PROGRESS frames, the --verify pattern, and the latency and peak figures
 * of a size.  Nothing here knows a transport or the handshake.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/log.h"
#include "base/text.h"
#include "probe/probe_sess.h"

/* A failure's line, with the errno behind it (@err); the server's names the client. */
static void sess_log(const struct probe_sess *s, int err, const char *msg)
{
	if (s->quiet)	/* over the server's log rate: probe_server.c counts it */
		return;
	if (s->server)
		log_err_errno(s->ctx, err, "client %s: %s", s->peer, msg);
	else
		log_err_errno(s->ctx, err, "%s", msg);
}

int probe_fail(struct probe_sess *s, int err, uint16_t code, const char *fmt, ...)
{
	char wire[PROBE_MAX_STR + 1], *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	probe_progress_clear(s);
	sess_log(s, err, msg ? msg : fmt);
	/* An ERROR frame holds PROBE_MAX_STR bytes: cut a long value in the middle, not the reason. */
	if (s->ctl.fd >= 0 && code)
		ctl_send_error(&s->ctl, code, "%s", text_safe(msg ? msg : fmt, wire, sizeof(wire), 0));
	free(msg);
	return err;
}

void probe_progress(struct probe_sess *s, uint64_t size, uint64_t bytes, uint64_t start_ns)
{
	uint64_t now = now_ns();
	struct probe_frame f = { .type = PROBE_MSG_PROGRESS };
	double secs;

	if (now - s->prog_last_ns < 1000000000ull)
		return;
	s->prog_last_ns = now;
	f.u.progress.size = size;
	f.u.progress.bytes = bytes;
	f.u.progress.elapsed_us = (now - start_ns) / 1000;
	ctl_send(&s->ctl, &f);
	if (!isatty(STDERR_FILENO) || now - start_ns < 1000000000ull)
		return;
	secs = (double)(now - start_ns) / 1e9;
	fprintf(stderr, "\r%10llu B: %.1f s, %.3f Gb/s so far ", (unsigned long long)size, secs,
		(double)bytes * 8 / secs / 1e9);
	s->prog_shown = true;
}

void probe_progress_clear(struct probe_sess *s)
{
	if (!s->prog_shown)
		return;
	fputs("\r\033[K", stderr);
	s->prog_shown = false;
}

void probe_fill(uint8_t *buf, uint32_t seed, uint64_t size, uint64_t from, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = probe_pattern(seed, size, (from + i) % size);
}

/*
 * A test aid (rdmactl-probe(8), ENVIRONMENT): with RDMACTL_PROBE_CORRUPT
 * set, a sender writes each message with its first byte flipped, so a test
 * can watch --verify catch corrupt data through the whole path.
 */
void probe_corrupt_for_test(const struct probe_sess *s, uint8_t *msg)
{
	if (s->corrupt)
		msg[0] ^= 0xff;
}

uint64_t probe_check(const uint8_t *buf, uint32_t seed, uint64_t size, uint64_t from, size_t n)
{
	uint64_t bad = 0;
	size_t i;

	for (i = 0; i < n; i++)
		bad += buf[i] != probe_pattern(seed, size, (from + i) % size);
	return bad;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void probe_lat_stats(uint64_t *ns, size_t n, struct probe_result *out)
{
	if (!n)
		return;
	qsort(ns, n, sizeof(*ns), cmp_u64);
	out->lat_min_ns = ns[0];
	out->lat_med_ns = ns[n / 2];
	out->lat_p99_ns = ns[(n * 99 + 99) / 100 - 1];
}

uint64_t probe_peak_bps(const uint64_t *t_ns, const uint64_t *bytes, size_t n, uint64_t min_bytes)
{
	double best = 0;
	size_t i, j = 0;

	/* Two pointers: for each start, the first sample at least min_bytes later. */
	for (i = 0; i < n; i++) {
		if (j <= i)
			j = i + 1;
		while (j < n && bytes[j] - bytes[i] < min_bytes)
			j++;
		if (j >= n)
			break;
		if (t_ns[j] > t_ns[i]) {
			double r = (double)(bytes[j] - bytes[i]) * 8e9 / (double)(t_ns[j] - t_ns[i]);

			if (r > best)
				best = r;
		}
	}
	return (uint64_t)best;
}
