// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/sysfs.h"

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

int read_file(const struct ctx *ctx, const char *path, size_t max, char **out, size_t *outlen)
{
	char full[4096];
	size_t cap = 4096, len = 0;
	char *buf, *nbuf;
	ssize_t n;
	int fd, ret;

	ret = root_path(ctx, full, sizeof(full), "%s", path);
	if (ret)
		return ret;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto err_fd;
	}
	for (;;) {
		if (len + 1 >= cap) {
			if (cap >= max + 1) {
				ret = -EFBIG;
				goto err_buf;
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				ret = -ENOMEM;
				goto err_buf;
			}
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto err_buf;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
	*out = buf;
	if (outlen)
		*outlen = len;
	return 0;

err_buf:
	free(buf);
err_fd:
	close(fd);
	return ret;
}

int read_line_at(int dfd, const char *rel, char *buf, size_t len)
{
	ssize_t n;
	int fd, ret;

	if (len == 0)
		return -EINVAL;
	/* O_NONBLOCK: a FIFO where a sysfs file should be must not hang us. */
	fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return (int)strlen(buf);
}

int read_line(const struct ctx *ctx, const char *path, char *buf, size_t len)
{
	char full[4096];
	int ret;

	ret = root_path(ctx, full, sizeof(full), "%s", path);
	if (ret)
		return ret;
	return read_line_at(AT_FDCWD, full, buf, len);
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
