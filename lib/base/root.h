/* SPDX-License-Identifier: MIT */
/*
 * The one way to a file below the root (--root): every reader of a tree
 * opens, lists, stats and resolves its paths here, so that a recorded
 * tree reads as the node it was recorded on.  Two things make a copy
 * differ from a plain path prefix:
 *
 * - Links are followed inside the root, as chroot(ROOT) would: an
 *   absolute target ("/opt/site/memlock.conf") starts again at the root,
 *   ".." stops there.  openat2(RESOLVE_IN_ROOT) (Linux >= 5.6) does it;
 *   before, each component is walked by hand, 40 links at most.
 * - What a snapshot could not read (rdmactl-snapshot.json's "warnings":
 *   EACCES, EIO ...) is read back as that error, not as an absent file,
 *   so that a check says of the copy what it said of the node.
 *
 * @path is always absolute, as on the node ("/sys/class/net/eth0").
 * With no root ("") the live system is opened as it is.
 */
#ifndef RDMACTL_ROOT_H
#define RDMACTL_ROOT_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct ctx;

/* At the top of a snapshot: {"rdmactl": VERSION, "warnings": [{"path", "error", "errno"}]}. */
#define SNAPSHOT_MANIFEST "rdmactl-snapshot.json"

/*
 * open(2) of @path below the root with @flags (O_NOFOLLOW: the last
 * component is not followed; O_PATH allowed).  The fd, or -errno: what
 * the snapshot recorded of the file or of a directory above it, else
 * open's own; -ENAMETOOLONG.
 */
int root_open(const struct ctx *ctx, const char *path, int flags);

/* opendir(3) of @path below the root: NULL with errno set, as root_open() says. */
DIR *root_opendir(const struct ctx *ctx, const char *path);

/* stat(2) (lstat(2) with @nofollow) of @path below the root; 0 or -errno. */
int root_stat(const struct ctx *ctx, const char *path, bool nofollow, struct stat *st);

/* readlink(2) of the link @path below the root, NUL-terminated; its length or -errno. */
int root_readlink(const struct ctx *ctx, const char *path, char *buf, size_t len);

/*
 * @path with every link resolved inside the root, as a path on the node
 * ("/sys/class/infiniband/rxe0" -> "/sys/devices/virtual/infiniband/rxe0"),
 * into @buf (@len bytes).  0, or -errno of the first component that is
 * not there; -ENAMETOOLONG, -ELOOP.
 */
int root_resolve(const struct ctx *ctx, const char *path, char *buf, size_t len);

/*
 * 0, or what the snapshot below the root recorded when it could not read
 * @path (-EACCES ...), the entry itself or a directory above it: for a
 * reader that opened @path relative to a directory of its own and found
 * nothing.
 */
int root_missed(const struct ctx *ctx, const char *path);

/* Drop the last component of @dir ("/a/b" -> "/a", "/a" -> ""). */
void path_up(char *dir);

/*
 * The next component of the path @todo moved into @comp (@len bytes) and
 * taken off @todo, @last set when no other follows: 1, or 0 when @todo
 * holds none, or -ENAMETOOLONG.  "." and ".." come as they are: the
 * caller's walk gives them their meaning (the walk by hand below, the
 * snapshot's).
 */
int path_pop(char *todo, char *comp, size_t len, bool *last);

/*
 * For the unit tests: @on resolves every later path by the walk by hand,
 * as on a kernel without openat2; off tries openat2 again.
 */
void root_walk_by_hand(bool on);

#endif
