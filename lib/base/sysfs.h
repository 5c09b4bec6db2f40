/* SPDX-License-Identifier: MIT */
/*
 * Small file readers for /sys, /proc and /etc, always relative to the
 * context's root so a captured tree (--root) reads like the live node.
 */
#ifndef RDMACTL_SYSFS_H
#define RDMACTL_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

struct ctx;

/*
 * @buf = root + formatted path; 0 or -ENAMETOOLONG.  For messages: a
 * file below the root is opened through root.h, which resolves links
 * inside it.
 */
int root_path(const struct ctx *ctx, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * First line of a file, without its newline; length or -errno.
 * @path is relative to the root ("/sys/class/infiniband/rxe0/node_guid").
 * -EFBIG: the line does not fit @buf.  -ENXIO: not a regular file (a FIFO, device node or socket where a file
 * belongs).  Errors no file of the kernel's gives (EACCES, EIO, ELOOP,
 * EFBIG, ENXIO ...) are also reported with read_warning(); ENOENT and the
 * EINVAL of an unset sysfs attribute are left to the caller.
 */
int read_line(const struct ctx *ctx, const char *path, char *buf, size_t len);

/*
 * The same for @rel below the directory fd @dfd (or AT_FDCWD); never blocks
 * on a FIFO.  Warns nothing: a caller with a context uses read_line_warn_at().
 */
int read_line_at(int dfd, const char *rel, char *buf, size_t len);
/*
 * read_line_at() of @rel in @dir (relative to the root), open as @dfd,
 * that reads an entry a snapshot below the root could not read as that
 * error (root_missed(), root.h), not as absent.  Warns nothing.
 */
int read_line_in(const struct ctx *ctx, int dfd, const char *dir, const char *rel, char *buf,
		 size_t len);
/* read_line_in() that reports hard errors as @dir/@rel with read_warning(). */
int read_line_warn_at(const struct ctx *ctx, int dfd, const char *dir, const char *rel,
		      char *buf, size_t len);

/*
 * Whole file into a malloc'd NUL-terminated buffer (at most @max bytes,
 * else -EFBIG); 0 or -errno, hard errors reported as by read_line().
 */
int read_file(const struct ctx *ctx, const char *path, size_t max, char **out, size_t *outlen);

/*
 * A read of @path (relative to the root) that failed with @err (-errno) or
 * gave nothing usable (@why, e.g. "empty", "not a GUID: 'junk'"; NULL:
 * strerror).  One line on stderr, "warning: cannot read PATH: REASON",
 * with "(run as root)" for EACCES as another user, and an entry in
 * ctx->warnings; once per path.
 */
void read_warning(const struct ctx *ctx, const char *path, int err, const char *why);
/* How many warnings were reported so far. */
size_t read_warnings(const struct ctx *ctx);

/* Trim white space at both ends, in place. */
char *strtrim(char *s);

/* True when @path exists below the root (a symlink counts only if it resolves). */
bool root_exists(const struct ctx *ctx, const char *path);

/*
 * The last part of the symlink @path below the root ("../../mlx5_core" ->
 * "mlx5_core"): sysfs names drivers, PCI functions and parents this way.
 * 0, -EINVAL (empty, or longer than @len), or -errno.
 */
int read_link_base(const struct ctx *ctx, const char *path, char *buf, size_t len);

#endif
