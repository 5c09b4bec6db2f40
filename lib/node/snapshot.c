// SPDX-License-Identifier: MIT
/*
 * Snapshots: a small ustar writer over zlib's gzip stream (with pax headers
 * for names longer than ustar holds), and the walk that records what
 * --root reads, resolving symlinks the way the kernel would.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "base/ctx.h"
#include "base/sysfs.h"
#include "node/snapshot.h"

#define BLOCK 512
#define FILE_MAX (1u << 20)	/* sysfs attributes are a page; config files are small */
#define MAX_LINKS 40		/* symlinks followed in one path, as the kernel's ELOOP */

/* ---- ustar over gzip ---- */

struct tarw {
	gzFile gz;
	time_t mtime;
	int err;		/* first error, -errno */
};

static void tar_put(struct tarw *w, const void *buf, size_t len)
{
	if (w->err || !len)
		return;
	if (gzwrite(w->gz, buf, (unsigned int)len) != (int)len)
		w->err = -EIO;
}

static void octal(char *field, size_t width, uint64_t v)
{
	snprintf(field, width, "%0*llo", (int)width - 1, (unsigned long long)v);
}

/* Put @name in the header's name (and prefix) field; false when it does not fit. */
static bool set_name(char *hdr, const char *name)
{
	size_t len = strlen(name);
	const char *slash;

	if (len <= 100) {
		memcpy(hdr, name, len);
		return true;
	}
	/* prefix (155) '/' name (100): split at a slash that makes both fit. */
	for (slash = strchr(name, '/'); slash; slash = strchr(slash + 1, '/')) {
		size_t plen = (size_t)(slash - name);

		if (plen <= 155 && len - plen - 1 <= 100 && len - plen - 1 > 0) {
			memcpy(hdr + 345, name, plen);
			memcpy(hdr, slash + 1, len - plen - 1);
			return true;
		}
	}
	return false;
}

static void tar_header(struct tarw *w, const char *name, char type, uint64_t size,
		       unsigned int mode, const char *link)
{
	char hdr[BLOCK];
	unsigned int sum = 0;
	size_t i;

	memset(hdr, 0, sizeof(hdr));
	if (!set_name(hdr, name))
		memcpy(hdr, name, 99);	/* only after a pax header gave the full name */
	octal(hdr + 100, 8, mode);
	octal(hdr + 108, 8, 0);
	octal(hdr + 116, 8, 0);
	octal(hdr + 124, 12, size);
	octal(hdr + 136, 12, (uint64_t)w->mtime);
	memset(hdr + 148, ' ', 8);
	hdr[156] = type;
	if (link)
		memcpy(hdr + 157, link, strnlen(link, 100));
	memcpy(hdr + 257, "ustar", 6);
	memcpy(hdr + 263, "00", 2);
	memcpy(hdr + 265, "root", 4);
	memcpy(hdr + 297, "root", 4);
	for (i = 0; i < BLOCK; i++)
		sum += (unsigned char)hdr[i];
	snprintf(hdr + 148, 8, "%06o", sum);
	tar_put(w, hdr, BLOCK);
}

static void tar_data(struct tarw *w, const void *data, size_t len)
{
	static const char zero[BLOCK];

	tar_put(w, data, len);
	if (len % BLOCK)
		tar_put(w, zero, BLOCK - len % BLOCK);
}

/* "NN key=value\n", where NN counts the whole record, its own digits included. */
static size_t pax_record(char *buf, size_t len, const char *key, const char *val)
{
	size_t body = strlen(key) + strlen(val) + 3, n = body + 1, digits;

	for (;;) {
		digits = (size_t)snprintf(NULL, 0, "%zu", n);
		if (body + digits == n)
			break;
		n = body + digits;
	}
	if (n < len)
		snprintf(buf, len, "%zu %s=%s\n", n, key, val);
	return n;
}

/* A pax extended header for a name or link target that ustar cannot hold. */
static void tar_pax(struct tarw *w, const char *name, const char *link)
{
	char rec[8192], hdr[BLOCK];
	size_t n = 0;

	memset(hdr, 0, sizeof(hdr));
	if (!set_name(hdr, name))
		n += pax_record(rec + n, sizeof(rec) - n, "path", name);
	if (link && strlen(link) > 100 && n < sizeof(rec))
		n += pax_record(rec + n, sizeof(rec) - n, "linkpath", link);
	if (!n)
		return;
	if (n >= sizeof(rec)) {
		w->err = w->err ? w->err : -ENAMETOOLONG;
		return;
	}
	tar_header(w, "././@PaxHeader", 'x', n, 0644, NULL);
	tar_data(w, rec, n);
}

static void tar_file(struct tarw *w, const char *name, const char *data, size_t len)
{
	tar_pax(w, name, NULL);
	tar_header(w, name, '0', len, 0444, NULL);
	tar_data(w, data, len);
}

static void tar_link(struct tarw *w, const char *name, const char *target)
{
	tar_pax(w, name, target);
	tar_header(w, name, '2', 0, 0777, target);
}

static void tar_dir(struct tarw *w, const char *name)
{
	tar_pax(w, name, NULL);
	tar_header(w, name, '5', 0, 0755, NULL);
}

static void tar_end(struct tarw *w)
{
	static const char zero[2 * BLOCK];

	tar_put(w, zero, sizeof(zero));
}

/* ---- the set of recorded paths ---- */

struct pathset {
	char **slot;
	size_t cap, n;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int set_grow(struct pathset *s)
{
	size_t cap = s->cap ? s->cap * 2 : 1024, i, j;
	char **slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < s->cap; i++) {
		if (!s->slot[i])
			continue;
		for (j = hash(s->slot[i]) & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
			;
		slot[j] = s->slot[i];
	}
	free(s->slot);
	s->slot = slot;
	s->cap = cap;
	return 0;
}

/* 1 when @path is new (and now recorded), 0 when seen, or -ENOMEM. */
static int set_add(struct pathset *s, const char *path)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap && set_grow(s))
		return -ENOMEM;
	for (i = hash(path) & (s->cap - 1); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (!strcmp(s->slot[i], path))
			return 0;
	s->slot[i] = strdup(path);
	if (!s->slot[i])
		return -ENOMEM;
	s->n++;
	return 1;
}

static void set_free(struct pathset *s)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		free(s->slot[i]);
	free(s->slot);
}

/* ---- recording paths as --root resolves them ---- */

struct snap {
	const struct ctx *ctx;
	struct tarw tar;
	struct pathset seen;
	struct snapshot_stats *st;
};

enum leaf { LEAF_FOLLOW, LEAF_LINK };

/* Archive name of an absolute path: "/sys/x" -> "sys/x". */
static const char *arc(const char *abs)
{
	return abs + (abs[0] == '/');
}

/* Record every directory above @abs once, so extraction rebuilds them. */
static void snap_parents(struct snap *s, const char *abs)
{
	char dir[4096];
	char *p;

	snprintf(dir, sizeof(dir), "%s", abs);
	for (p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (set_add(&s->seen, dir) > 0) {
			tar_dir(&s->tar, arc(dir));
			s->st->dirs++;
		}
		*p = '/';
	}
}

static void snap_link(struct snap *s, const char *abs, const char *target)
{
	if (set_add(&s->seen, abs) <= 0)
		return;
	snap_parents(s, abs);
	tar_link(&s->tar, arc(abs), target);
	s->st->links++;
}

static int snap_regular(struct snap *s, const char *abs)
{
	size_t len;
	char *data;
	int ret;

	/* sysfs says 4096 for every attribute: read the contents, never trust st_size. */
	ret = read_file(s->ctx, abs, FILE_MAX, &data, &len);
	if (ret)
		return ret;
	if (set_add(&s->seen, abs) > 0) {
		snap_parents(s, abs);
		tar_file(&s->tar, arc(abs), data, len);
		s->st->files++;
		s->st->bytes += len;
	}
	free(data);
	return 0;
}

/* Drop the last component of @dir ("/a/b" -> "/a", "/a" -> ""). */
static void path_up(char *dir)
{
	char *slash = strrchr(dir, '/');

	if (slash)
		*slash = '\0';
}

/* Prepend @target to the unresolved rest @todo, in place. */
static int push_target(char *todo, size_t len, const char *target, const char *rest)
{
	char tmp[4096];

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/%s", target, rest) >= sizeof(tmp) ||
	    strlen(tmp) >= len)
		return -ENAMETOOLONG;
	memcpy(todo, tmp, strlen(tmp) + 1);
	return 0;
}

/*
 * Record @path (absolute, below the root) as the kernel resolves it: each
 * symlink met on the way is recorded as a link and followed inside the
 * root; the leaf is recorded as a file (or as a link with LEAF_LINK).
 * 0, or -errno when the path does not resolve to something readable.
 */
static int snap_path(struct snap *s, const char *path, enum leaf leaf)
{
	char cur[4096] = "", todo[4096], full[4096], target[4096], comp[256];
	int links = 0;
	struct stat st;
	ssize_t n;

	if (strlen(path) >= sizeof(todo))
		return -ENAMETOOLONG;
	memcpy(todo, path, strlen(path) + 1);
	while (todo[0]) {
		char *p = todo + strspn(todo, "/");
		size_t clen = strcspn(p, "/");
		bool last;

		if (!clen) {
			todo[0] = '\0';
			break;
		}
		if (clen >= sizeof(comp))
			return -ENAMETOOLONG;
		memcpy(comp, p, clen);
		comp[clen] = '\0';
		memmove(todo, p + clen, strlen(p + clen) + 1);
		last = !todo[strspn(todo, "/")];
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			path_up(cur);
			continue;
		}
		if (strlen(cur) + clen + 2 > sizeof(cur))
			return -ENAMETOOLONG;
		strcat(cur, "/");
		strcat(cur, comp);
		if (root_path(s->ctx, full, sizeof(full), "%s", cur) || lstat(full, &st))
			return -ENOENT;
		if (!S_ISLNK(st.st_mode))
			continue;
		n = readlink(full, target, sizeof(target) - 1);
		if (n < 0)
			return -errno;
		target[n] = '\0';
		snap_link(s, cur, target);
		if (last && leaf == LEAF_LINK)
			return 0;
		if (++links > MAX_LINKS)
			return -ELOOP;
		/* Follow: absolute targets start again at the root, relative ones here. */
		if (target[0] == '/')
			cur[0] = '\0';
		else
			path_up(cur);
		if (push_target(todo, sizeof(todo), target, todo))
			return -ENAMETOOLONG;
	}
	if (root_path(s->ctx, full, sizeof(full), "%s", cur[0] ? cur : "/") || stat(full, &st))
		return -ENOENT;
	return S_ISREG(st.st_mode) ? snap_regular(s, cur) : -EINVAL;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* @dir/@name into @buf; false when it does not fit. */
static bool join(char *buf, size_t len, const char *dir, const char *name)
{
	return (size_t)snprintf(buf, len, "%s/%s", dir, name) < len;
}

/* Entries of a directory below the root, for each: fn(s, dir, name). */
static void snap_each(struct snap *s, const char *dir, size_t *count,
		      void (*fn)(struct snap *s, const char *dir, const char *name))
{
	char full[4096];
	struct dirent *de;
	DIR *d;

	if (root_path(s->ctx, full, sizeof(full), "%s", dir))
		return;
	d = opendir(full);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		fn(s, dir, de->d_name);
		if (count)
			(*count)++;
	}
	closedir(d);
}

static void snap_one(struct snap *s, const char *dir, const char *name)
{
	char path[4096];

	if (join(path, sizeof(path), dir, name))
		snap_path(s, path, LEAF_FOLLOW);
}

/* Config drop-ins: keep a link as a link (a link to /dev/null masks), and its target. */
static void snap_conf(struct snap *s, const char *dir, const char *name)
{
	char path[4096];
	size_t len = strlen(name);

	if (len < 6 || strcmp(name + len - 5, ".conf"))
		return;
	if (!join(path, sizeof(path), dir, name))
		return;
	snap_path(s, path, LEAF_LINK);
	snap_path(s, path, LEAF_FOLLOW);
}

static void snap_attrs(struct snap *s, const char *dir, const char *const *attrs, size_t n)
{
	char path[4096];
	size_t i;

	for (i = 0; i < n; i++)
		if (join(path, sizeof(path), dir, attrs[i]))
			snap_path(s, path, LEAF_FOLLOW);
}

/* What lib/rdma_sysfs.c and lib/gids.c read of a port. */
static void snap_port(struct snap *s, const char *dir, const char *name)
{
	static const char *const attrs[] = {
		"state", "phys_state", "link_layer", "rate", "lid", "sm_lid",
	};
	static const char *const tables[] = { "gids", "gid_attrs/types", "gid_attrs/ndevs" };
	char port[4096], path[4096];
	size_t i;

	if (!join(port, sizeof(port), dir, name))
		return;
	snap_attrs(s, port, attrs, ARRAY_SIZE(attrs));
	for (i = 0; i < ARRAY_SIZE(tables); i++)
		if (join(path, sizeof(path), port, tables[i]))
			snap_each(s, path, NULL, snap_one);
}

/* What lib/rdma_sysfs.c reads of a device (keep the two in step). */
static void snap_rdma_dev(struct snap *s, const char *dir, const char *name)
{
	static const char *const attrs[] = {
		"node_type", "node_guid", "sys_image_guid", "fw_ver", "device/numa_node",
		"parent",	/* the netdev of a software device (rxe, siw) */
	};
	char dev[4096], path[4096];

	if (!join(dev, sizeof(dev), dir, name))
		return;
	snap_attrs(s, dev, attrs, ARRAY_SIZE(attrs));
	/* The PCI address and the driver are the names these links point to. */
	if (join(path, sizeof(path), dev, "device"))
		snap_path(s, path, LEAF_LINK);
	if (join(path, sizeof(path), dev, "device/driver"))
		snap_path(s, path, LEAF_LINK);
	if (join(path, sizeof(path), dev, "ports"))
		snap_each(s, path, NULL, snap_port);
}

static void snap_netdev(struct snap *s, const char *dir, const char *name)
{
	/* What lib/netdev.c reads with --root, and the address. */
	static const char *const attrs[] = { "mtu", "ifindex", "operstate", "flags", "address" };
	char path[4096];

	if (join(path, sizeof(path), dir, name))
		snap_attrs(s, path, attrs, ARRAY_SIZE(attrs));
}

/*
 * /proc/self of the process reading the tree is this one: record our own
 * limits, and the Uid/Gid lines that say whose login the PAM limits are for.
 */
static void snap_self(struct snap *s)
{
	char *data, *line, *save = NULL, status[256] = "";
	size_t len;

	if (!read_file(s->ctx, "/proc/self/limits", FILE_MAX, &data, &len)) {
		snap_parents(s, "/proc/self/limits");
		tar_file(&s->tar, "proc/self/limits", data, len);
		s->st->files++;
		s->st->bytes += len;
		free(data);
	}
	if (read_file(s->ctx, "/proc/self/status", FILE_MAX, &data, &len))
		return;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4))
			snprintf(status + strlen(status), sizeof(status) - strlen(status), "%.120s\n",
				 line);
	free(data);
	tar_file(&s->tar, "proc/self/status", status, strlen(status));
	s->st->files++;
	s->st->bytes += strlen(status);
}

static void snap_config(struct snap *s)
{
	static const char *const files[] = {
		"/etc/passwd", "/etc/group", "/etc/security/limits.conf",
		"/etc/systemd/system.conf", "/run/systemd/system.conf",
		"/usr/local/lib/systemd/system.conf", "/usr/lib/systemd/system.conf",
	};
	static const char *const dirs[] = {
		"/etc/security/limits.d", "/etc/systemd/system.conf.d", "/run/systemd/system.conf.d",
		"/usr/local/lib/systemd/system.conf.d", "/usr/lib/systemd/system.conf.d",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++)
		snap_path(s, files[i], LEAF_FOLLOW);
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		snap_each(s, dirs[i], NULL, snap_conf);
}

static int snap_all(struct snap *s)
{
	snap_each(s, "/sys/class/infiniband", &s->st->rdma_devs, snap_rdma_dev);
	snap_each(s, "/sys/class/net", &s->st->netdevs, snap_netdev);
	snap_self(s);
	snap_config(s);
	tar_end(&s->tar);
	return s->tar.err;
}

/* A temporary file next to @path, opened for gzip writing. */
static int open_tmp(const char *path, char *tmp, size_t len, gzFile *gz)
{
	mode_t mask;
	int fd;

	if ((size_t)snprintf(tmp, len, "%s.XXXXXX", path) >= len)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* mkstemp makes it 0600; give it the mode a new file would get. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask))
		goto err_fd;
	*gz = gzdopen(fd, "wb6");
	if (!*gz)
		goto err_fd;
	return 0;

err_fd:
	close(fd);
	unlink(tmp);
	return -EIO;
}

int snapshot_write(const struct ctx *ctx, const char *path, struct snapshot_stats *stats)
{
	struct snap s = { .ctx = ctx, .st = stats };
	char tmp[4096];
	int ret, zret;

	memset(stats, 0, sizeof(*stats));
	ret = open_tmp(path, tmp, sizeof(tmp), &s.tar.gz);
	if (ret)
		return ret;
	s.tar.mtime = time(NULL);
	ret = snap_all(&s);
	set_free(&s.seen);
	zret = gzclose(s.tar.gz);
	if (!ret && zret != Z_OK)
		ret = -EIO;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}
