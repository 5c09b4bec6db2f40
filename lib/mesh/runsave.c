// SPDX-License-Identifier: MIT
/* The run's document, saved as it goes (see runsave.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/outfile.h"
#include "base/text.h"
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

/* "@path.lock"; -ENAMETOOLONG. */
static int lock_name(const char *path, char *buf, size_t len)
{
	return (size_t)snprintf(buf, len, "%s.lock", path) < len ? 0 : -ENAMETOOLONG;
}

/* The lock is held: say by whom, as its file has it. */
static void say_busy(const struct ctx *ctx, const char *path, int fd)
{
	char pid[24] = "", safe[512];
	ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);

	pid[n > 0 ? n : 0] = '\0';
	pid[strcspn(pid, "\n")] = '\0';
	log_err(ctx, "Failed to save to '%s': another run saves to it%s%s%s; wait for it to end, or "
		"--save another file", text_safe(path, safe, sizeof(safe), 0), *pid ? " (process " : "",
		pid, *pid ? ")" : "");
}

/*
 * The lock file, locked: a file unlinked by the run before us between our
 * open and our flock is not the one at @name any more, so try again.
 */
static int lock_open(const char *name, int *fd)
{
	struct stat a, b;
	int tries;

	for (tries = 0; tries < 10; tries++) {
		*fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (*fd < 0)
			return -errno;
		if (flock(*fd, LOCK_EX | LOCK_NB))
			return errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (!fstat(*fd, &a) && !stat(name, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			return 0;
		close(*fd);
	}
	*fd = -1;
	return -EAGAIN;
}

int runsave_lock(const struct ctx *ctx, const char *path, int *fd)
{
	char name[4096], safe[512], pid[24];
	int ret = lock_name(path, name, sizeof(name));
	int len;

	*fd = -1;
	if (!ret)
		ret = lock_open(name, fd);
	if (ret == -EBUSY) {
		say_busy(ctx, path, *fd);
		close(*fd);
		*fd = -1;
		return ret;
	}
	if (ret) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		log_err(ctx, "Failed to lock '%s' for --save: %s", text_safe(name, safe, sizeof(safe), 0),
			strerror(-ret));
		return ret;
	}
	len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(*fd, 0) || pwrite(*fd, pid, (size_t)len, 0) != len)
		log_warn(ctx, "could not write this process's id into '%s'", text_safe(name, safe, sizeof(safe), 0));
	return 0;
}

void runsave_unlock(const char *path, int fd)
{
	char name[4096];

	if (fd < 0)
		return;
	/* Unlinked while still locked: a run waiting on it then locks a file of its own. */
	if (!lock_name(path, name, sizeof(name)))
		unlink(name);
	close(fd);
}
