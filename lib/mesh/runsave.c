// SPDX-License-Identifier: MIT
/* The run's document, saved as it goes (see runsave.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/outfile.h"
#include "mesh/runsave.h"

#define SAVE_EVERY_S 2
#define BUF_SIZE (1 << 20)

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

bool runsave_due(const struct runsave *rs)
{
	long gap = rs->cost_ms * 10 > SAVE_EVERY_S * 1000L ? rs->cost_ms * 10 : SAVE_EVERY_S * 1000L;

	return !rs->last_ms || now_ms() - rs->last_ms >= gap;
}

/* The document in pieces of BUF_SIZE: a write a link would be a million system calls. */
struct sink {
	struct outfile of;
	char *buf;
	size_t n;
};

static int sink_flush(struct sink *k)
{
	int ret = outfile_write(&k->of, k->buf, k->n);

	k->n = 0;
	return ret;
}

static int sink_put(void *arg, const char *s, size_t len)
{
	struct sink *k = arg;

	if (k->n + len > BUF_SIZE && sink_flush(k))
		return k->of.err;
	if (len > BUF_SIZE)
		return outfile_write(&k->of, s, len);
	memcpy(k->buf + k->n, s, len);
	k->n += len;
	return 0;
}

int runsave_write(struct runsave *rs, struct linkmap *m, struct json_object *run)
{
	struct sink k = { 0 };
	long t0 = now_ms();
	/* The findings as of now: analysed here, so that the spacing counts it too. */
	int ret = linkmap_analyse(m);

	if (!ret && !(k.buf = malloc(BUF_SIZE)))
		ret = -ENOMEM;
	if (!ret)
		ret = outfile_open(rs->ctx, &k.of, rs->path, "the run's document (--save)", OUTFILE_FORCE);
	if (!ret) {
		ret = linkmap_write_json(m, run, sink_put, &k) ?: sink_flush(&k);
		if (ret && ret != k.of.err)
			outfile_fail(rs->ctx, &k.of, ret);
		else
			ret = outfile_commit(rs->ctx, &k.of);
	}
	free(k.buf);
	rs->err = ret;
	rs->last_ms = now_ms();
	rs->cost_ms = rs->last_ms - t0;
	return ret;
}
