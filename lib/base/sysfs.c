// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/file.h"
#include "base/log.h"
#include "base/root.h"
#include "base/sysfs.h"
#include "base/text.h"

int root_path(const struct ctx *ctx, char *buf, size_t len, const char *fmt, ...)
{
	const char *root = ctx && ctx->root ? ctx->root : "";
	va_list ap;
	int n, m;

	n = snprintf(buf, len, "%s", root);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)(n + m) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * A regular file, or a directory (whose read() fails with EISDIR, which
 * recorded trees use for an attribute the kernel refuses to read): not a
 * FIFO, device node or socket where a file belongs.
 */
static bool is_regular(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
}

/*
 * Errors no file the kernel writes gives, whatever the attribute: these
 * are always reported.  ENOENT and EINVAL (an unset GID's type, say; a
 * recorded tree stands for it with a directory, EISDIR) are for the
 * caller to judge.
 */
static bool is_hard(int err)
{
	switch (-err) {
	case EACCES: case EPERM: case EIO: case ELOOP: case EFBIG: case ENXIO:
	case ENOTDIR: case ENAMETOOLONG:
		return true;
	}
	return false;
}

int read_file(const struct ctx *ctx, const char *path, size_t max, char **out, size_t *outlen)
{
	mode_t mode = 0;
	int fd, ret;

	/* O_NONBLOCK: a FIFO where a file should be must not hang us. */
	fd = root_open(ctx, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		ret = fd;
	} else {
		ret = file_read_opened(fd, max, 0, out, outlen, &mode);
		close(fd);
	}
	/* A directory reads as EISDIR (a recorded tree's unset attribute); the rest is no file. */
	if (ret == -EINVAL && mode)
		ret = S_ISDIR(mode) ? -EISDIR : -ENXIO;
	if (is_hard(ret))
		read_warning(ctx, path, ret, NULL);
	return ret;
}

/* The first line of the open file @fd into @buf (see read_line()); closes @fd. */
static int read_line_fd(int fd, char *buf, size_t len)
{
	ssize_t n;
	int ret;

	if (!is_regular(fd)) {
		close(fd);
		return -ENXIO;
	}
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	buf[n] = '\0';
	/* A first line longer than the buffer: not a value of the kernel's. */
	if ((size_t)n == len - 1 && !strchr(buf, '\n'))
		return -EFBIG;
	buf[strcspn(buf, "\n")] = '\0';
	return (int)strlen(buf);
}

int read_line_at(int dfd, const char *rel, char *buf, size_t len)
{
	int fd;

	if (len == 0)
		return -EINVAL;
	/* O_NONBLOCK: a FIFO where a sysfs file should be must not hang us. */
	fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	return read_line_fd(fd, buf, len);
}

int read_line(const struct ctx *ctx, const char *path, char *buf, size_t len)
{
	int fd, ret;

	if (len == 0)
		return -EINVAL;
	fd = root_open(ctx, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	ret = fd < 0 ? fd : read_line_fd(fd, buf, len);
	if (is_hard(ret))
		read_warning(ctx, path, ret, NULL);
	return ret;
}

int read_line_in(const struct ctx *ctx, int dfd, const char *dir, const char *rel, char *buf,
		 size_t len)
{
	int ret = read_line_at(dfd, rel, buf, len);
	char path[4096];

	/* Absent from a snapshot: perhaps because the snapshot could not read it. */
	if (ret == -ENOENT && (size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) < sizeof(path))
		ret = root_missed(ctx, path) ?: ret;
	return ret;
}

int read_line_warn_at(const struct ctx *ctx, int dfd, const char *dir, const char *rel,
		      char *buf, size_t len)
{
	int ret = read_line_in(ctx, dfd, dir, rel, buf, len);
	char path[4096];

	if (is_hard(ret)) {
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		read_warning(ctx, path, ret, NULL);
	}
	return ret;
}

/* ---- warnings ---- */

#define MAX_WARNINGS 1000

size_t read_warnings(const struct ctx *ctx)
{
	return ctx && ctx->warnings ? json_object_array_length(ctx->warnings) : 0;
}

static bool warned(const struct ctx *ctx, const char *path)
{
	size_t i, n = read_warnings(ctx);

	for (i = 0; i < n; i++) {
		struct json_object *w = json_object_array_get_idx(ctx->warnings, i), *p;

		if (json_object_object_get_ex(w, "path", &p) &&
		    !strcmp(json_object_get_string(p), path))
			return true;
	}
	return false;
}

void read_warning(const struct ctx *ctx, const char *path, int err, const char *why)
{
	char full[4096], reason[512], line[4096], rline[512];
	struct json_object *w;
	const char *name = err ? strerrorname_np(-err) : NULL;

	if (root_path(ctx, full, sizeof(full), "%s", path))
		snprintf(full, sizeof(full), "%s", path);
	if (warned(ctx, full) || read_warnings(ctx) >= MAX_WARNINGS)
		return;
	snprintf(reason, sizeof(reason), "%s%s", why ? why : err == -ENXIO ? "not a regular file"
							  : strerror(-err),
		 (err == -EACCES || err == -EPERM) && geteuid() ? " (run as root)" : "");
	/* On one line: a path below --root, or a value, may hold a newline. */
	log_warn(ctx, "cannot read %s: %s", text_safe(full, line, sizeof(line), 0),
		 text_safe(reason, rline, sizeof(rline), 0));
	if (!ctx || !ctx->warnings || !(w = json_object_new_object()))
		return;
	json_object_object_add(w, "path", json_object_new_string(full));
	json_object_object_add(w, "error", json_object_new_string(reason));
	json_object_object_add(w, "errno", name ? json_object_new_string(name) : NULL);
	json_object_array_add(ctx->warnings, w);
}

char *strtrim(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

bool root_exists(const struct ctx *ctx, const char *path)
{
	struct stat st;

	return !root_stat(ctx, path, false, &st);
}

int read_link_base(const struct ctx *ctx, const char *path, char *buf, size_t len)
{
	char target[4096];
	const char *base;
	int n;

	n = root_readlink(ctx, path, target, sizeof(target));
	if (n < 0)
		return n;
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!*base || strlen(base) >= len)
		return -EINVAL;
	memcpy(buf, base, strlen(base) + 1);
	return 0;
}
