// SPDX-License-Identifier: MIT
/* Paths below the root, resolved as chroot would, and a snapshot's misses read back (root.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/file.h"
#include "base/root.h"

#define MAX_LINKS 40		/* links followed in one path, as the kernel's ELOOP */
#define MANIFEST_MAX (16u << 20)

struct miss {
	char *path;		/* on the node: "/sys/devices/.../gid_attrs/types/3" */
	int err;		/* -EACCES ... */
};

/*
 * The root last asked for, open once: a big node is thousands of reads
 * (from a few threads, gids.c), each one lookup below this fd.
 */
static struct {
	pthread_mutex_t lock;
	char root[PATH_MAX];
	int fd;			/* -1: not open */
	struct miss *misses;
	size_t n_misses;
} below = { PTHREAD_MUTEX_INITIALIZER, "", -1, NULL, 0 };

/* openat2's EAGAIN (a race with a rename elsewhere) asked again this often. */
#define ROOT_EAGAIN_TRIES 16

/* Kernels before 5.6 have no openat2: walked by hand from then on. */
static int no_openat2;

static bool live(const struct ctx *ctx)
{
	return !ctx || !ctx->root || !ctx->root[0];
}

/* "/sys/x" -> "sys/x", "/" or "" -> ".": a path for *at() below the root's fd. */
static const char *rel(const char *path)
{
	path += strspn(path, "/");
	return *path ? path : ".";
}

/* -errno of a symbol a snapshot wrote ("EACCES"), -EIO for one not known here. */
static int errno_of(const char *name)
{
	const char *n;
	int e;

	for (e = 1; e < 256; e++)
		if ((n = strerrorname_np(e)) && !strcmp(n, name))
			return -e;
	return -EIO;
}

static void misses_free(void)
{
	while (below.n_misses)
		free(below.misses[--below.n_misses].path);
	free(below.misses);
	below.misses = NULL;
}

/* The manifest's "warnings", if the root is a snapshot: what it could not read. */
static void misses_load(int rootfd)
{
	struct json_object *doc, *ws, *w, *p, *e;
	char *text = NULL;
	size_t i, n;
	int fd;

	fd = openat(rootfd, SNAPSHOT_MANIFEST, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	if (file_read_opened(fd, MANIFEST_MAX, 0, &text, NULL, NULL)) {
		close(fd);
		return;
	}
	close(fd);
	doc = json_tokener_parse(text);
	free(text);
	n = json_object_object_get_ex(doc, "warnings", &ws) ? json_object_array_length(ws) : 0;
	below.misses = n ? calloc(n, sizeof(*below.misses)) : NULL;
	for (i = 0; below.misses && i < n; i++) {
		w = json_object_array_get_idx(ws, i);
		if (!json_object_object_get_ex(w, "path", &p) || !json_object_is_type(p, json_type_string) ||
		    json_object_get_string(p)[0] != '/')
			continue;
		e = NULL;
		json_object_object_get_ex(w, "errno", &e);
		below.misses[below.n_misses].path = strdup(json_object_get_string(p));
		if (!below.misses[below.n_misses].path)
			break;
		below.misses[below.n_misses++].err =
			json_object_is_type(e, json_type_string) ? errno_of(json_object_get_string(e)) : -EIO;
	}
	json_object_put(doc);
}

/* The fd of ctx->root, opened (and its manifest read) on first use; or -errno. */
static int root_fd(const struct ctx *ctx)
{
	int fd;

	pthread_mutex_lock(&below.lock);
	if (below.fd < 0 || strcmp(below.root, ctx->root)) {
		if (below.fd >= 0)
			close(below.fd);
		misses_free();
		below.fd = -1;
		if (strlen(ctx->root) >= sizeof(below.root)) {
			pthread_mutex_unlock(&below.lock);
			return -ENAMETOOLONG;
		}
		fd = open(ctx->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			pthread_mutex_unlock(&below.lock);
			return fd;
		}
		below.fd = fd;
		strcpy(below.root, ctx->root);
		misses_load(fd);
	}
	fd = below.fd;
	pthread_mutex_unlock(&below.lock);
	return fd;
}

void path_up(char *dir)
{
	char *slash = strrchr(dir, '/');

	if (slash)
		*slash = '\0';
}

int path_pop(char *todo, char *comp, size_t len, bool *last)
{
	char *p = todo + strspn(todo, "/");
	size_t clen = strcspn(p, "/");

	if (!clen)
		return 0;
	if (clen >= len)
		return -ENAMETOOLONG;
	memcpy(comp, p, clen);
	comp[clen] = '\0';
	memmove(todo, p + clen, strlen(p + clen) + 1);
	*last = !todo[strspn(todo, "/")];
	return 1;
}

/* @a + "/" + @b into @buf (@len bytes); -ENAMETOOLONG when it does not fit. */
static int join(char *buf, size_t len, const char *a, const char *b)
{
	char tmp[PATH_MAX];
	size_t n = (size_t)snprintf(tmp, sizeof(tmp), "%s/%s", a, b);

	if (n >= sizeof(tmp) || n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, tmp, n + 1);
	return 0;
}

/*
 * Resolve @path below @rootfd as the kernel would inside a chroot, into
 * @cur (@len bytes; "" is the root): each link followed (the last one
 * too with @follow), absolute targets from the root, ".." stopping there.
 * 0, or -errno; on -ENOENT, @cur is what resolved followed by the rest as
 * asked, the name a snapshot would have given the file.
 */
static int walk(int rootfd, const char *path, bool follow, char *cur, size_t len)
{
	char todo[PATH_MAX], target[PATH_MAX], comp[NAME_MAX + 1];
	int links = 0, ret;
	struct stat st;
	ssize_t n;

	cur[0] = '\0';
	if (strlen(path) >= sizeof(todo))
		return -ENAMETOOLONG;
	strcpy(todo, path);
	for (;;) {
		bool last;

		if ((ret = path_pop(todo, comp, sizeof(comp), &last)) <= 0)
			return ret;
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			path_up(cur);
			continue;
		}
		if ((ret = join(cur, len, cur, comp)))
			return ret;
		if (fstatat(rootfd, rel(cur), &st, AT_SYMLINK_NOFOLLOW)) {
			ret = -errno;
			if (ret == -ENOENT && todo[0] && join(cur, len, cur, todo + strspn(todo, "/")))
				return -ENAMETOOLONG;
			return ret;
		}
		if (!S_ISLNK(st.st_mode) || (last && !follow))
			continue;
		if (++links > MAX_LINKS)
			return -ELOOP;
		n = readlinkat(rootfd, rel(cur), target, sizeof(target) - 1);
		if (n < 0)
			return -errno;
		target[n] = '\0';
		if (target[0] == '/')
			cur[0] = '\0';
		else
			path_up(cur);
		if ((ret = join(todo, sizeof(todo), target, todo)))
			return ret;
	}
}

/* True when @path is @dir or below it. */
static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* What the snapshot recorded of @path (as asked, and resolved): 0 or -errno. */
static int missed(int rootfd, const char *path)
{
	char cur[PATH_MAX];
	bool resolved;
	size_t i;
	int ret;

	if (!below.n_misses)
		return 0;
	ret = walk(rootfd, path, true, cur, sizeof(cur));
	resolved = !ret || ret == -ENOENT;
	for (i = 0; i < below.n_misses; i++)
		if (under(path, below.misses[i].path) ||
		    (resolved && under(cur, below.misses[i].path)))
			return below.misses[i].err;
	return 0;
}

/* open @path below @rootfd: openat2's RESOLVE_IN_ROOT, else a walk by hand. */
static int open_below(int rootfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char cur[PATH_MAX];
	int fd, ret, tries;

	if (!__atomic_load_n(&no_openat2, __ATOMIC_RELAXED)) {
		/*
		 * EAGAIN: a rename or mount anywhere on the system raced the
		 * resolution of a ".." (sysfs links are "../../devices/..."),
		 * and the kernel could not prove it stayed in the root
		 * (openat2(2)): asked again, then walked by hand.  Seen as a
		 * device missing from a listing, once in 300 runs beside a
		 * loop of renames.
		 */
		for (tries = 0; tries < ROOT_EAGAIN_TRIES; tries++) {
			fd = (int)syscall(SYS_openat2, rootfd, rel(path), &how, sizeof(how));
			if (fd >= 0)
				return fd;
			if (errno != EAGAIN)
				break;
		}
		if (errno != ENOSYS && errno != EPERM && errno != EAGAIN)
			return -errno;
		/* EPERM: a seccomp filter that does not know it; open() will say if it is real. */
		if (errno == ENOSYS)
			__atomic_store_n(&no_openat2, 1, __ATOMIC_RELAXED);
	}
	ret = walk(rootfd, path, !(flags & O_NOFOLLOW), cur, sizeof(cur));
	if (ret)
		return ret;
	fd = openat(rootfd, rel(cur), flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int root_open(const struct ctx *ctx, const char *path, int flags)
{
	int rootfd, fd, err;

	if (live(ctx)) {
		fd = open(path, flags | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	rootfd = root_fd(ctx);
	if (rootfd < 0)
		return rootfd;
	/* Not there on the copy, or there only as the directory above a file left out. */
	err = missed(rootfd, path);
	return err ? err : open_below(rootfd, path, flags);
}

int root_missed(const struct ctx *ctx, const char *path)
{
	int rootfd;

	if (live(ctx) || (rootfd = root_fd(ctx)) < 0)
		return 0;
	return missed(rootfd, path);
}

DIR *root_opendir(const struct ctx *ctx, const char *path)
{
	int fd = root_open(ctx, path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return d;
}

int root_stat(const struct ctx *ctx, const char *path, bool nofollow, struct stat *st)
{
	int fd = root_open(ctx, path, O_PATH | (nofollow ? O_NOFOLLOW : 0)), ret;

	if (fd < 0)
		return fd;
	ret = fstat(fd, st) ? -errno : 0;
	close(fd);
	return ret;
}

int root_readlink(const struct ctx *ctx, const char *path, char *buf, size_t len)
{
	int fd = root_open(ctx, path, O_PATH | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		return fd;
	if (len == 0) {
		close(fd);
		return -EINVAL;
	}
	/* An O_PATH fd of the link itself: "" reads it (Linux >= 2.6.39). */
	n = readlinkat(fd, "", buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

int root_resolve(const struct ctx *ctx, const char *path, char *buf, size_t len)
{
	char real[PATH_MAX];
	int rootfd, ret;

	if (live(ctx)) {
		if (!realpath(path, real))
			return -errno;
		if (strlen(real) >= len)
			return -ENAMETOOLONG;
		strcpy(buf, real);
		return 0;
	}
	rootfd = root_fd(ctx);
	if (rootfd < 0)
		return rootfd;
	ret = walk(rootfd, path, true, buf, len);
	if (!ret && !buf[0] && len > 1)
		strcpy(buf, "/");
	return ret;
}

void root_walk_by_hand(bool on)
{
	__atomic_store_n(&no_openat2, on, __ATOMIC_RELAXED);
}
