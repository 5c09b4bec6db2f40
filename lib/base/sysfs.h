/* SPDX-License-Identifier: MIT */
/*
 * Small file readers for /sys, /proc and /etc, always relative to the
 * context's root so a captured tree (--root) reads like the live node.
 */
#ifndef RDMACTL_SYSFS_H
#define RDMACTL_SYSFS_H

#include <stddef.h>

struct ctx;

/* @buf = root + formatted path; 0 or -ENAMETOOLONG. */
int root_path(const struct ctx *ctx, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * First line of a file, without its newline; length or -errno.
 * @path is relative to the root ("/sys/class/infiniband/rxe0/node_guid").
 */
int read_line(const struct ctx *ctx, const char *path, char *buf, size_t len);

/* The same for @rel below the directory fd @dfd (or AT_FDCWD); never blocks on a FIFO. */
int read_line_at(int dfd, const char *rel, char *buf, size_t len);

/* Whole file into a malloc'd NUL-terminated buffer (at most @max bytes); 0 or -errno. */
int read_file(const struct ctx *ctx, const char *path, size_t max, char **out, size_t *outlen);

/* Trim white space at both ends, in place. */
char *strtrim(char *s);

#endif
