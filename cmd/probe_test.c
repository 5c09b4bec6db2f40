// SPDX-License-Identifier: MIT
/*
 * The test rdmactl probe runs: its options (sizes, amounts, the path),
 * their checks together and their defaults (probe_test_finish(), which
 * every mode calls), and the readers of the values of every mode's
 * options.  Below the modes: each calls it, it calls none of them.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/text.h"
#include "node/rdma.h"
#include "probe_mode.h"

/* ---- values ---- */

int probe_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	}
	if (shift && (!strcasecmp(end, "iB") || !strcasecmp(end, "B")))
		end += strlen(end);
	if (errno || *end || !v || v > (PROBE_MAX_MSG_SIZE >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

int probe_parse_number(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int probe_bad_value(const struct ctx *ctx, const char *opt, const char *val, const char *what)
{
	log_err(ctx, "Failed to parse %s '%s': %s", opt, val, what);
	return -EINVAL;
}

/* ---- the test's options; -ENOENT when @c is none of them ---- */

/* Message sizes: one, or a sweep. */
static int opt_sizes(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	switch (c) {
	case 's':
		a->have_s = true;
		return probe_parse_size(val, &a->size) ? probe_bad_value(ctx, "-s", val, "expected bytes from 1 "
							 "to 2G, with an optional K, M or G") : 0;
	case OPT_SWEEP: a->sweep = true; return 0;
	case OPT_SWEEP_MAX:
		a->sweep = true;
		if (probe_parse_size(val, &a->sweep_max) || !is_pow2(a->sweep_max) || a->sweep_max < 2)
			return probe_bad_value(ctx, "--sweep-max", val, "expected a power of two, at least 2");
		return 0;
	}
	return -ENOENT;
}

/* How much to send: writes, seconds, latency rounds, queues and their depth. */
static int opt_amount(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	struct probe_test_req *req = &a->cfg.req;
	long l;

	switch (c) {
	case 'n':
		a->have_n = true;
		if (opt_long(ctx, "-n", val, 1, (long)PROBE_MAX_ITERS, &l))
			return -EINVAL;
		req->iters = (uint64_t)l;
		return 0;
	case 'D':
		a->have_D = true;
		if (opt_long(ctx, "-D", val, 1, PROBE_MAX_DURATION_MS / 1000, &l))
			return -EINVAL;
		req->duration_ms = (uint32_t)l * 1000;
		return 0;
	case OPT_LAT_ITERS:
		a->have_lat = true;
		if (opt_long(ctx, "--lat-iters", val, 0, 1000000, &l))
			return -EINVAL;
		req->lat_iters = (uint32_t)l;
		return 0;
	case OPT_QPS:
		if (opt_long(ctx, "--qps", val, 1, PROBE_MAX_QPS, &l))
			return -EINVAL;
		req->qps = (uint16_t)l;
		return 0;
	case OPT_DEPTH:
		if (opt_long(ctx, "--depth", val, 1, PROBE_MAX_DEPTH, &l))
			return -EINVAL;
		req->depth = (uint32_t)l;
		return 0;
	}
	return -ENOENT;
}

/* The path: device, GID, transport, the run's flags and the expected rate. */
static int opt_path(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	struct probe_cfg *cfg = &a->cfg;
	long l;

	switch (c) {
	case 'd':
		if (rdma_parse_devport(val, cfg->dev, sizeof(cfg->dev), &cfg->ib_port))
			return probe_bad_value(ctx, "-d", val, "expected DEV or DEV/PORT");
		return 0;
	case 'x':
		/* -x is perftest's GID index, in every command; --exclude has no short form. */
		if (parse_long(val, 0, 255, &l))
			return probe_bad_value(ctx, "-x", val, "expected a GID index from 0 to 255 (in probe, "
					       "-x is --gid-index, as in perftest; --exclude leaves nodes out)");
		cfg->gid_index = (int)l;
		return 0;
	case OPT_TRANSPORT:
		if (strcmp(val, "rdma") && strcmp(val, "tcp"))
			return probe_bad_value(ctx, "--transport", val, "use rdma or tcp");
		cfg->req.transport = strcmp(val, "tcp") ? PROBE_TRANSPORT_RDMA : PROBE_TRANSPORT_TCP;
		return 0;
	case OPT_BIDIR: cfg->req.flags |= PROBE_F_BIDIR; return 0;
	case OPT_VERIFY: cfg->req.flags |= PROBE_F_VERIFY; return 0;
	case OPT_RDMA_CM: cfg->req.flags |= PROBE_F_RDMA_CM; return 0;
	case OPT_EXPECT:
		if (probe_parse_number(val, 0, 1e6, &cfg->expect_gbps))
			return probe_bad_value(ctx, "--expect", val, "expected Gb/s, a number");
		return 0;
	}
	return -ENOENT;
}

int probe_test_opt(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	int ret = opt_sizes(ctx, a, c, val);

	if (ret == -ENOENT)
		ret = opt_amount(ctx, a, c, val);
	if (ret == -ENOENT)
		ret = opt_path(ctx, a, c, val);
	return ret;
}

int probe_test_finish(struct ctx *ctx, struct probe_args *a)
{
	struct probe_test_req *r = &a->cfg.req;

	if (a->have_n && a->have_D) {
		log_err(ctx, "Failed to start: -n and -D exclude each other; give one");
		return -EINVAL;
	}
	if (a->sweep && a->have_s) {
		log_err(ctx, "Failed to start: -s and %s exclude each other; %s", a->sweep_opt,
			strcmp(a->sweep_opt, "--sweep") ? "give one" : "use --sweep-max");
		return -EINVAL;
	}
	if ((r->flags & PROBE_F_RDMA_CM) && r->transport == PROBE_TRANSPORT_TCP) {
		log_err(ctx, "Failed to start: --rdma-cm needs the rdma transport");
		return -EINVAL;
	}
	if (!a->have_n && !a->have_D)
		r->iters = PROBE_DEFAULT_ITERS;
	r->size_min = a->sweep ? 2 : a->size;
	r->size_max = a->sweep ? a->sweep_max : a->size;
	if (!a->have_lat)
		r->lat_iters = r->iters && r->iters < PROBE_DEFAULT_LAT_ITERS ? (uint32_t)r->iters
									   : PROBE_DEFAULT_LAT_ITERS;
	srand48((long)time(NULL) ^ getpid());
	r->seed = (uint32_t)lrand48();
	return 0;
}
