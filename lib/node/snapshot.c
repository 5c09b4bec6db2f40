// SPDX-License-Identifier: MIT
/*
 * Snapshots: a small ustar writer over zlib's gzip stream (with pax headers
 * for names longer than ustar holds), and the walk that records what
 * --root reads, resolving symlinks the way the kernel would.
 */
#include <dirent.h>
#include <fnmatch.h>
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

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/file.h"
#include "base/outfile.h"
#include "base/root.h"
#include "base/run.h"
#include "base/sysfs.h"
#include "base/text.h"
#include "node/dcb.h"
#include "node/libconf.h"
#include "node/netdev.h"
#include "node/rdma_load.h"
#include "node/route.h"
#include "node/snapshot.h"
#include "node/ucx.h"
#include "node/versions.h"

#define BLOCK 512
#define FILE_MAX (1u << 20)	/* sysfs attributes are a page; config files are small */
#define FILE_MAX_TEXT "1 MiB"
#define MAX_LINKS 40		/* symlinks followed in one path, as the kernel's ELOOP */

/* ---- ustar over gzip ---- */

struct tarw {
	struct outfile *out;
	z_stream z;		/* deflate with a gzip wrapper */
	time_t mtime;
	int err;		/* first error, -errno */
};

/*
 * Compress @len bytes of @buf (with @flush: Z_NO_FLUSH, or Z_FINISH at the
 * end) and write what comes out.  Our own write() loop rather than zlib's
 * gzwrite(), so that ENOSPC or EFBIG keeps its errno.
 */
static void gz_put(struct tarw *w, const void *buf, size_t len, int flush)
{
	unsigned char chunk[16384];

	w->z.next_in = (unsigned char *)buf;
	w->z.avail_in = (uInt)len;
	do {
		w->z.next_out = chunk;
		w->z.avail_out = sizeof(chunk);
		if (deflate(&w->z, flush) == Z_STREAM_ERROR) {
			w->err = -EIO;
			return;
		}
		w->err = outfile_write(w->out, chunk, sizeof(chunk) - w->z.avail_out);
	} while (!w->err && w->z.avail_out == 0);
}

static void tar_put(struct tarw *w, const void *buf, size_t len)
{
	if (w->err || !len)
		return;
	gz_put(w, buf, len, Z_NO_FLUSH);
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
	struct pathset warned;	/* paths already in st->warnings */
	struct snapshot_stats *st;
	/* The manifest's "warnings": st->warnings' entries named as on the node (no --root). */
	struct json_object *misses;
	char *buf;		/* FILE_MAX + 1 bytes: one file's contents */
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

/* Below /sys, where a read fails with EINVAL when the kernel has no value. */
static bool in_sysfs(const char *abs)
{
	return !strncmp(abs, "/sys/", 5);
}

/*
 * Note that @abs (below the root) is left out of the archive, with @err
 * and, when given, @why instead of strerror(-err); once per path.  The
 * entry is the one read_warning() makes (sysfs.h), so that "warnings"
 * means the same in every command.  Not a gap: an absent file (ENOENT),
 * a sysfs attribute the kernel has no value for (EINVAL: GID attributes
 * of empty entries, or in containers), and one the driver does not
 * implement (EOPNOTSUPP: phys_port_name and phys_switch_id of a netdev
 * that is no switch port), which --root then reads as absent, as the node
 * itself reads it.
 */
static void snap_leftout(struct snap *s, const char *abs, int err, const char *why)
{
	const char *name = strerrorname_np(-err);
	char full[4096], reason[512];
	struct json_object *w, *m;

	if (err == -ENOENT || ((err == -EINVAL || err == -EOPNOTSUPP) && in_sysfs(abs)))
		return;
	if (set_add(&s->warned, abs) <= 0)
		return;
	if (root_path(s->ctx, full, sizeof(full), "%s", abs))
		snprintf(full, sizeof(full), "%s", abs);
	snprintf(reason, sizeof(reason), "%s%s", why ? why : strerror(-err),
		 (err == -EACCES || err == -EPERM) && geteuid() ? " (run as root)" : "");
	w = json_object_new_object();
	if (!w)
		return;
	json_object_object_add(w, "path", json_object_new_string(full));
	json_object_object_add(w, "error", json_object_new_string(reason));
	json_object_object_add(w, "errno", name ? json_object_new_string(name) : NULL);
	json_object_array_add(s->st->warnings, w);
	/* The copy reads it back by this name as this error (root.h): its own root aside. */
	m = json_object_new_object();
	if (!m)
		return;
	json_object_object_add(m, "path", json_object_new_string(abs));
	json_object_object_add(m, "error", json_object_new_string(reason));
	json_object_object_add(m, "errno", name ? json_object_new_string(name) : NULL);
	json_object_array_add(s->misses, m);
}

/*
 * Contents of the regular file @full into @buf (FILE_MAX + 1 bytes).  0 or
 * -errno; *@mode tells what it was when it is not a regular file (-EINVAL).
 * O_NONBLOCK and O_NOFOLLOW: a FIFO or link swapped in after the lstat()
 * that chose to read it must neither hang us nor lead elsewhere.
 */
static int read_regular(const struct ctx *ctx, const char *abs, char *buf, size_t *len,
			mode_t *mode)
{
	struct stat st;
	int fd, ret = 0;

	fd = root_open(ctx, abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto err_fd;
	}
	*mode = st.st_mode;
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto err_fd;
	}
	/* One buffer for every file of the archive, not an allocation each. */
	ret = file_read_into(fd, buf, FILE_MAX, len);
err_fd:
	close(fd);
	return ret;
}

/* Note a file of type @mode at @abs, where a regular file belongs. */
static void snap_leftout_kind(struct snap *s, const char *abs, mode_t mode)
{
	char why[128];

	/* A directory at a sysfs attribute is how recorded trees stand for EINVAL. */
	if (S_ISDIR(mode) && in_sysfs(abs))
		return;
	snprintf(why, sizeof(why), "%s where a regular file belongs", file_kind(mode));
	/* ENXIO, as read_file() says of such a file. */
	snap_leftout(s, abs, -ENXIO, why);
}

/*
 * Read @abs (below the root) into s->buf: its length, or -errno when it
 * is left out (and noted so).
 */
static ssize_t snap_read(struct snap *s, const char *abs)
{
	char why[128];
	mode_t mode = 0;
	size_t len = 0;
	int ret;

	/* sysfs says 4096 for every attribute: read the contents, never trust st_size. */
	ret = read_regular(s->ctx, abs, s->buf, &len, &mode);
	if (ret == -EINVAL && mode && !S_ISREG(mode)) {
		snap_leftout_kind(s, abs, mode);
	} else if (ret == -EFBIG) {
		snprintf(why, sizeof(why), "%s (over the %s cap)", strerror(EFBIG), FILE_MAX_TEXT);
		snap_leftout(s, abs, ret, why);
	} else if (ret) {
		snap_leftout(s, abs, ret, NULL);
	}
	return ret ? ret : (ssize_t)len;
}

/* Add the regular file @abs to the archive as @name (its archive name, or another). */
static int snap_file_as(struct snap *s, const char *abs, const char *name)
{
	ssize_t len = snap_read(s, abs);

	if (len < 0)
		return (int)len;
	snap_parents(s, abs);
	tar_file(&s->tar, name, s->buf, (size_t)len);
	s->st->files++;
	s->st->bytes += (size_t)len;
	return 0;
}

/* The leaf @abs of a resolved path: recorded when it is a regular file. */
static int snap_leaf(struct snap *s, const char *abs)
{
	struct stat st;
	int ret = root_stat(s->ctx, abs[0] ? abs : "/", true, &st);

	if (ret)
		return ret;
	/* Decided before open(): opening a device node can do things (a watchdog starts). */
	if (!S_ISREG(st.st_mode)) {
		snap_leftout_kind(s, abs, st.st_mode);
		return -EINVAL;
	}
	if (set_add(&s->seen, abs) <= 0)
		return 0;
	return snap_file_as(s, abs, arc(abs));
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
 * Resolve @path (absolute, below the root) as the kernel would, into @cur
 * (4096 bytes): each symlink met on the way is recorded as a link and
 * followed inside the root.  0 when @cur is the leaf to record, 1 when the
 * leaf was a link kept as one (LEAF_LINK), or -errno.
 */
static int snap_resolve(struct snap *s, const char *path, enum leaf leaf, char *cur)
{
	char todo[4096], target[4096], comp[256];
	int links = 0, ret;
	struct stat st;

	cur[0] = '\0';
	if (strlen(path) >= sizeof(todo))
		return -ENAMETOOLONG;
	memcpy(todo, path, strlen(path) + 1);
	for (;;) {
		bool last;

		if ((ret = path_pop(todo, comp, sizeof(comp), &last)) < 0)
			return ret;
		if (!ret)
			break;
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			path_up(cur);
			continue;
		}
		if (strlen(cur) + strlen(comp) + 2 > sizeof(todo))
			return -ENAMETOOLONG;
		strcat(cur, "/");
		strcat(cur, comp);
		/* @cur holds no link: what it names is what the node had there. */
		if ((ret = root_stat(s->ctx, cur, true, &st)))
			return ret;
		if (!S_ISLNK(st.st_mode))
			continue;
		if ((ret = root_readlink(s->ctx, cur, target, sizeof(target))) < 0)
			return ret;
		snap_link(s, cur, target);
		if (last && leaf == LEAF_LINK)
			return 1;
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
	return 0;
}

/*
 * Record @path as the kernel resolves it: the links on the way as links,
 * the leaf as a file (or as a link with LEAF_LINK).  0, or -errno when it
 * was left out (and noted so).
 */
static int snap_path(struct snap *s, const char *path, enum leaf leaf)
{
	char cur[4096];
	int ret = snap_resolve(s, path, leaf, cur);

	if (ret < 0) {
		/* Named as asked for: a symlink loop (ELOOP) has no other name. */
		snap_leftout(s, path, ret, NULL);
		return ret;
	}
	return ret ? 0 : snap_leaf(s, cur);
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
	struct dirent *de;
	DIR *d;

	d = root_opendir(s->ctx, dir);
	if (!d) {
		/* Every file in it is left out: say so, once, for the directory. */
		snap_leftout(s, dir, -errno, NULL);
		return;
	}
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

/* What rdma_sysfs.c and gids.c read of a port. */
static void snap_port(struct snap *s, const char *dir, const char *name)
{
	static const char *const attrs[] = {
		"state", "phys_state", "link_layer", "rate", "lid", "sm_lid",
	};
	/* hw_counters: what doctor --metrics reads. */
	static const char *const tables[] = { "gids", "gid_attrs/types", "gid_attrs/ndevs",
					      "hw_counters" };
	char port[4096], path[4096];
	size_t i;

	if (!join(port, sizeof(port), dir, name))
		return;
	snap_attrs(s, port, attrs, ARRAY_SIZE(attrs));
	for (i = 0; i < ARRAY_SIZE(tables); i++)
		if (join(path, sizeof(path), port, tables[i]))
			snap_each(s, path, NULL, snap_one);
}

/* A PF's "virtfnN" link: the VF, its IDs and its driver (node/fn.c). */
static void snap_virtfn(struct snap *s, const char *dir, const char *name)
{
	static const char *const attrs[] = { "vendor", "device" };
	char vf[4096], path[4096];

	if (strncmp(name, "virtfn", 6) || !join(vf, sizeof(vf), dir, name))
		return;
	snap_attrs(s, vf, attrs, ARRAY_SIZE(attrs));
	if (join(path, sizeof(path), vf, "driver"))
		snap_path(s, path, LEAF_LINK);
}

/* What node/fn.c reads of the PCI function (or SF) behind a device, and of its PF. */
static void snap_function(struct snap *s, const char *dev)
{
	static const char *const attrs[] = {
		"vendor", "device", "sriov_numvfs", "sriov_totalvfs", "sfnum",
	};
	static const char *const fns[] = { "device", "device/physfn" };
	char fn[4096], path[4096];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		if (!join(fn, sizeof(fn), dev, fns[i]))
			continue;
		snap_path(s, fn, LEAF_LINK);
		snap_attrs(s, fn, attrs, ARRAY_SIZE(attrs));
		if (i && join(path, sizeof(path), fn, "driver"))
			snap_path(s, path, LEAF_LINK);
		snap_each(s, fn, NULL, snap_virtfn);
	}
}

/* An auxiliary device that is an SF: its sfnum and driver, at its place under its PF. */
static void snap_aux(struct snap *s, const char *dir, const char *name)
{
	char aux[4096], path[4096];

	if (!join(aux, sizeof(aux), dir, name) || !join(path, sizeof(path), aux, "sfnum") ||
	    snap_path(s, path, LEAF_FOLLOW))
		return;
	if (join(path, sizeof(path), aux, "driver"))
		snap_path(s, path, LEAF_LINK);
}

/* uverbsN/ibdev: the verbs class names the devices of other network namespaces too. */
static void snap_uverbs(struct snap *s, const char *dir, const char *name)
{
	char path[4096];

	if (!strncmp(name, "uverbs", 6) && (size_t)snprintf(path, sizeof(path), "%s/%s/ibdev", dir,
							     name) < sizeof(path))
		snap_path(s, path, LEAF_FOLLOW);
}

/* tc/PORT/traffic_class of an RDMA device ("Global tclass=106"). */
static void snap_tclass(struct snap *s, const char *dir, const char *name)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/traffic_class", dir, name) < sizeof(path))
		snap_path(s, path, LEAF_FOLLOW);
}

/* What rdma_sysfs.c reads of a device (keep the two in step). */
static void snap_rdma_dev(struct snap *s, const char *dir, const char *name)
{
	static const char *const attrs[] = {
		"node_type", "node_guid", "sys_image_guid", "fw_ver", "device/numa_node",
		"parent",	/* the netdev of a software device (rxe, siw) */
		"hca_type", "board_id",	/* the HCA model drift compares firmware within */
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
	/* MLNX_OFED's global traffic class, UCX's "auto" (roce.qos). */
	if (join(path, sizeof(path), dev, "tc"))
		snap_each(s, path, NULL, snap_tclass);
	snap_function(s, dev);
}

static void snap_contents(struct snap *s, const char *abs, const char *data, size_t len);

/*
 * What roce.qos reads of a netdev: mlx5's ECN files, a VLAN's egress map,
 * and its DCB, which only netlink answers: the answer is recorded in
 * DCB_RECORDING_DIR/IF in dcb_format()'s form (node/dcb.h), an error
 * included, so that a copy gives the same verdict.
 */
static void snap_qos(struct snap *s, const char *path, const char *name)
{
#define ECN_PRIO(p) "ecn/roce_rp/enable/" #p, "ecn/roce_np/enable/" #p
	static const char *const ecn[] = {
		ECN_PRIO(0), ECN_PRIO(1), ECN_PRIO(2), ECN_PRIO(3), ECN_PRIO(4), ECN_PRIO(5),
		ECN_PRIO(6), ECN_PRIO(7), "ecn/roce_np/cnp_802p_prio", "ecn/roce_np/cnp_dscp",
	};
#undef ECN_PRIO
	char file[256], text[1024];
	struct dcb_state st;
	size_t len;
	int ret;

	snap_attrs(s, path, ecn, ARRAY_SIZE(ecn));
	/* /proc/net is a link to self/net: recorded as the plain file a copy reads. */
	snprintf(file, sizeof(file), "/proc/net/vlan/%.64s", name);
	snap_file_as(s, file, arc(file));
	ret = dcb_read(s->ctx, name, &st);
	if (ret == -ENODATA || ret == -ENODEV)
		return;		/* a tree without the recording; a name no netdev has */
	len = dcb_format(ret, &st, text, sizeof(text));
	snprintf(file, sizeof(file), DCB_RECORDING_DIR "/%.64s", name);
	snap_contents(s, file, text, len);
}

/* The conf sysctls roce.route reads of @ifname ("all" too: route_sysctl()). */
static void snap_ipv4_conf(struct snap *s, const char *ifname)
{
	static const char *const conf[] = { "rp_filter", "arp_ignore", "arp_announce" };
	char dir[128 + 256];

	if (strlen(ifname) > 255)
		return;
	snprintf(dir, sizeof(dir), "/proc/sys/net/ipv4/conf/%s", ifname);
	snap_attrs(s, dir, conf, ARRAY_SIZE(conf));
}

/* A netdev's upper_X and lower_X links: the netdevs stacked on it (netdev_stacked_on()). */
static void snap_adjacent(struct snap *s, const char *dir, const char *name)
{
	char path[4096];

	if ((!strncmp(name, "upper_", 6) || !strncmp(name, "lower_", 6)) &&
	    join(path, sizeof(path), dir, name))
		snap_path(s, path, LEAF_LINK);
}

static void snap_netdev(struct snap *s, const char *dir, const char *name)
{
	/*
	 * What netdev.c reads with --root, the address, and what says a
	 * representor; what it is (uevent's DEVTYPE) and, for a bond and its
	 * slaves, their state (netdev_bond_get()).
	 */
	static const char *const attrs[] = {
		"mtu", "ifindex", "operstate", "flags", "address", "carrier", "phys_port_name",
		"phys_switch_id", "uevent", "bonding/mode", "bonding/xmit_hash_policy",
		"bonding/slaves", "bonding/active_slave", "bonding/miimon",
		"bonding_slave/mii_status", "bonding_slave/state",
	};
	char path[4096], link[4096];

	if (!join(path, sizeof(path), dir, name))
		return;
	/* bonding_masters: a file, "bond0 bond1", that no check reads. */
	if (!netdev_class_entry(s->ctx, name))
		return;
	snap_attrs(s, path, attrs, ARRAY_SIZE(attrs));
	snap_each(s, path, NULL, snap_adjacent);
	snap_ipv4_conf(s, name);
	/* The eswitch manager of a representor is the PCI function this names. */
	if (join(link, sizeof(link), path, "device"))
		snap_path(s, link, LEAF_LINK);
	snap_qos(s, path, name);
}

/*
 * /proc/self of the process reading the tree is this one: record our own
 * limits, the Uid/Gid lines that say whose login the PAM limits are for,
 * and the CapEff/CapBnd lines that say whether CAP_IPC_LOCK lifts them
 * (limits_has_ipc_lock()).
 */
static void snap_self(struct snap *s)
{
	char *line, *save = NULL, status[256] = "";
	ssize_t len;

	snap_file_as(s, "/proc/self/limits", "proc/self/limits");
	len = snap_read(s, "/proc/self/status");
	if (len < 0)
		return;
	for (line = strtok_r(s->buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4) ||
		    !strncmp(line, "CapEff:", 7) || !strncmp(line, "CapBnd:", 7))
			snprintf(status + strlen(status), sizeof(status) - strlen(status), "%.120s\n",
				 line);
	tar_file(&s->tar, "proc/self/status", status, strlen(status));
	s->st->files++;
	s->st->bytes += strlen(status);
}

static void snap_config(struct snap *s)
{
	static const char *const files[] = {
		"/etc/passwd", "/etc/group", "/etc/security/limits.conf",
		/* Debian's pam_limits applies no "*" line to root (node/limits.c). */
		"/etc/debian_version",
		/* NCCL's and UCX's own settings (node/libconf.c). */
		NCCL_CONF, UCX_CONF,
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

/*
 * Which UCX dpkg installed (node/ucx.c reads its release there when the
 * library, not recorded, cannot say): only libucx0's stanza of dpkg's
 * status, a file of megabytes about every other package.
 */
static void snap_dpkg_ucx(struct snap *s)
{
	const char *stanza;
	char *status;
	size_t len;

	if (read_file(s->ctx, DPKG_STATUS, 256u << 20, &status, NULL))
		return;
	if (dpkg_stanza(status, "libucx0", &stanza, &len)) {
		snap_parents(s, DPKG_STATUS);
		tar_file(&s->tar, arc(DPKG_STATUS), stanza, len);
		s->st->files++;
		s->st->bytes += len;
	}
	free(status);
}

/* ---- what the checks read beyond the devices: tools, modules, libraries ---- */

/* Add @len bytes of @data to the archive as the file @abs (below the root), once. */
static void snap_contents(struct snap *s, const char *abs, const char *data, size_t len)
{
	if (set_add(&s->seen, abs) <= 0)
		return;
	snap_parents(s, abs);
	tar_file(&s->tar, arc(abs), data, len);
	s->st->files++;
	s->st->bytes += len;
}

/*
 * Each command of node_cmds[] as the node prints it (run.h): its output,
 * or the error it gave in NAME.error ("ENOENT" where it is not
 * installed), which --root reads back as the same answer.  Through
 * --root, a tree's recording is copied, and nothing where it has none.
 */
static void snap_commands(struct snap *s)
{
	char path[256], err[128], why[192];
	size_t i;

	for (i = 0; i < NODE_CMD_N; i++) {
		char *out = NULL;
		int ret = run_node_cmd(s->ctx, (enum node_cmd)i, &out);

		snprintf(path, sizeof(path), RECORDED_CMD_DIR "/%s", node_cmds[i].name);
		if (!ret) {
			snap_contents(s, path, out, strlen(out));
		} else if (ret != -ENODATA) {
			/* Not installed is an answer; a tool that failed left its output out. */
			snprintf(why, sizeof(why), "%s failed: %s", node_cmds[i].argv[0], strerror(-ret));
			if (ret != -ENOENT)
				snap_leftout(s, path, ret, why);
			snprintf(path, sizeof(path), RECORDED_CMD_DIR "/%s.error", node_cmds[i].name);
			snprintf(err, sizeof(err), "%s: %s\n", recorded_errno_name(ret), strerror(-ret));
			snap_contents(s, path, err, strlen(err));
		}
		free(out);
	}
}

/*
 * The IPv4 rules and routes (route.h), as the node has them or as the
 * tree recorded them, in ip's words; nothing where a tree has none.
 */
static void snap_routes(struct snap *s)
{
	struct route_policy rp;
	char *rules, *routes;
	int ret = route_policy_load(s->ctx, &rp);

	if (ret) {
		if (ret != -ENODATA)
			snap_leftout(s, ROUTE_RECORDED_ROUTES, ret, "cannot dump the rules and routes");
		return;
	}
	rules = route_rules_text(&rp);
	routes = route_routes_text(&rp);
	if (rules && routes) {
		snap_contents(s, ROUTE_RECORDED_RULES, rules, strlen(rules));
		snap_contents(s, ROUTE_RECORDED_ROUTES, routes, strlen(routes));
	} else {
		s->tar.err = -ENOMEM;
	}
	free(rules);
	free(routes);
	route_policy_free(&rp);
}

/* The directory @abs, when it is one (its existence is the fact: a loaded module). */
static void snap_dir(struct snap *s, const char *abs)
{
	char cur[4096];
	struct stat st;

	if (snap_resolve(s, abs, LEAF_FOLLOW, cur) < 0 || root_stat(s->ctx, cur, true, &st) ||
	    !S_ISDIR(st.st_mode))
		return;
	snap_parents(s, cur);
	if (set_add(&s->seen, cur) > 0) {
		tar_dir(&s->tar, arc(cur));
		s->st->dirs++;
	}
}

/*
 * The file @abs (below the root) as a stand-in of @len bytes of @data:
 * the links to it kept, the leaf a regular file.  For what the checks
 * read only the name of (device nodes, libraries), not their contents.
 */
static void snap_standin(struct snap *s, const char *abs, const char *data, size_t len)
{
	char cur[4096];
	int ret = snap_resolve(s, abs, LEAF_FOLLOW, cur);

	if (ret < 0)
		snap_leftout(s, abs, ret, NULL);
	else if (!ret && cur[0])
		snap_contents(s, cur, data, len);
}

/* /dev/infiniband/NAME: the doctor reads only that it has entries (devices check). */
static void snap_devnode(struct snap *s, const char *dir, const char *name)
{
	char path[4096];

	if (join(path, sizeof(path), dir, name))
		snap_standin(s, path, "", 0);
}

/*
 * The libraries the versions, roce.gid and ucx.ud_dgid checks find by
 * name (versions.c, ucx.c): empty stand-ins with their names, and for
 * libucp one that names its release as the library does, with the ucx.pc
 * beside it.
 */
static void snap_lib(struct snap *s, const char *dir, const char *name)
{
	char path[4096], pc[4096], image[256];
	size_t len;
	int v;

	if (!join(path, sizeof(path), dir, name))
		return;
	if (!fnmatch("libibverbs.so.1.*.*.*", name, 0) || !fnmatch("libnccl.so.*.*.*", name, 0)) {
		snap_standin(s, path, "", 0);
		return;
	}
	if (strcmp(name, "libucp.so.0"))
		return;
	v = ucx_lib_version(s->ctx, path);
	len = v > 0 ? ucx_standin(v, image, sizeof(image)) : 0;
	snap_standin(s, path, image, len);
	if (join(pc, sizeof(pc), dir, "pkgconfig/ucx.pc"))
		snap_path(s, pc, LEAF_FOLLOW);
}

/* /proc/PID: its comm when the process is firewalld (firewall.c looks for it). */
static void snap_if_firewalld(struct snap *s, const char *dir, const char *name)
{
	char path[64], comm[64];

	if (name[0] < '0' || name[0] > '9' || strlen(name) > 20)
		return;
	snprintf(path, sizeof(path), "%s/%s/comm", dir, name);
	if (read_line(s->ctx, path, comm, sizeof(comm)) > 0 && !strcmp(comm, "firewalld"))
		snap_path(s, path, LEAF_FOLLOW);
}

/* Whether firewalld runs (its process) and starts at boot (its link). */
static void snap_firewalld(struct snap *s)
{
	snap_path(s, "/etc/systemd/system/multi-user.target.wants/firewalld.service", LEAF_LINK);
	snap_each(s, "/proc", NULL, snap_if_firewalld);
}

/* The devices libibverbs opened: the devices check tells a missing provider by them. */
static void snap_verbs(struct snap *s)
{
	char *names = NULL;

	if (!verbs_devices(s->ctx, &names))
		snap_contents(s, VERBS_DEVICES_RECORDING, names, strlen(names));
	free(names);
}

#define CM_CONFIGFS "/sys/kernel/config/rdma_cm"

/* DEV/ports/N/default_roce_tos of rdma_cm's configfs (roce.qos), where a device's directory was made. */
static void snap_cm_port(struct snap *s, const char *dir, const char *name)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/default_roce_tos", dir, name) < sizeof(path))
		snap_path(s, path, LEAF_FOLLOW);
}

static void snap_cm_dev(struct snap *s, const char *dir, const char *name)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/ports", dir, name) < sizeof(path))
		snap_each(s, path, NULL, snap_cm_port);
}

/* The rest of what the doctor reads: the kernel, modules, GPU, ports range, libraries. */
static void snap_node_facts(struct snap *s)
{
	static const char *const files[] = {
		"/proc/sys/kernel/osrelease", "/proc/sys/net/ipv4/ip_local_port_range",
		/* gpudirect (check_gpu.c) */
		"/proc/driver/nvidia/version", "/sys/module/nvidia/version",
		"/sys/kernel/mm/memory_peers/nvidia-peermem/version",
		"/sys/kernel/mm/memory_peers/nv_mem/version",
	};
	/* Loaded modules: devices (check_devices.c) and gpudirect. */
	static const char *const dirs[] = {
		"/sys/module/ib_core", "/sys/module/rdma_rxe", "/sys/module/nvidia",
		"/sys/module/nvidia_peermem",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++)
		snap_path(s, files[i], LEAF_FOLLOW);
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		snap_dir(s, dirs[i]);
	snap_each(s, "/dev/infiniband", NULL, snap_devnode);
	for (i = 0; lib_dirs[i]; i++)
		snap_each(s, lib_dirs[i], NULL, snap_lib);
	for (i = 0; ucx_extra_dirs[i]; i++)
		snap_each(s, ucx_extra_dirs[i], NULL, snap_lib);
	snap_firewalld(s);
	/* A VLAN's ID (netdev.c); /proc/net is a link to self/net, recorded as a plain path. */
	snap_file_as(s, "/proc/net/vlan/config", "proc/net/vlan/config");
	snap_each(s, CM_CONFIGFS, NULL, snap_cm_dev);
	snap_commands(s);
	snap_verbs(s);
	snap_ipv4_conf(s, "all");
	snap_routes(s);
}

/*
 * rdmactl-snapshot.json at the top of the archive: what the snapshot left
 * out, so whoever reads the copy knows which answers it cannot give.
 *   {"rdmactl": "0.1.0", "warnings": [{"path": ..., "error": ..., "errno": ...}]}
 */
static void snap_manifest(struct snap *s)
{
	struct json_object *m = json_object_new_object();
	const char *text;

	if (!m) {
		s->tar.err = -ENOMEM;
		return;
	}
	json_object_object_add(m, "rdmactl", json_object_new_string(RDMACTL_VERSION));
	json_object_object_add(m, "warnings", json_object_get(s->misses));
	text = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	tar_file(&s->tar, SNAPSHOT_MANIFEST, text, strlen(text));
	json_object_put(m);
}

static int snap_all(struct snap *s)
{
	snap_each(s, "/sys/class/infiniband", &s->st->rdma_devs, snap_rdma_dev);
	snap_each(s, "/sys/class/net", &s->st->netdevs, snap_netdev);
	snap_each(s, "/sys/bus/auxiliary/devices", NULL, snap_aux);
	snap_each(s, "/sys/class/infiniband_verbs", NULL, snap_uverbs);
	snap_path(s, "/sys/module/ib_core/parameters/netns_mode", LEAF_FOLLOW);
	snap_self(s);
	snap_config(s);
	snap_dpkg_ucx(s);
	snap_node_facts(s);
	/* Names are bytes from the node; JSON must be UTF-8. */
	json_make_utf8(s->st->warnings);
	json_make_utf8(s->misses);
	snap_manifest(s);
	tar_end(&s->tar);
	if (!s->tar.err)
		gz_put(&s->tar, NULL, 0, Z_FINISH);
	return s->tar.err;
}

static int snap_init(struct snap *s, struct outfile *out)
{
	s->st->warnings = json_object_new_array();
	s->misses = json_object_new_array();
	s->buf = malloc(FILE_MAX + 1);
	if (!s->st->warnings || !s->misses || !s->buf)
		return -ENOMEM;
	s->tar.out = out;
	s->tar.mtime = time(NULL);
	/* 15 + 16: a gzip header and trailer around the deflate stream, as gzip -6 writes. */
	if (deflateInit2(&s->tar.z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	return 0;
}

int snapshot_write(const struct ctx *ctx, struct outfile *out, struct snapshot_stats *stats)
{
	struct snap s = { .ctx = ctx, .st = stats };
	int ret;

	memset(stats, 0, sizeof(*stats));
	ret = snap_init(&s, out);
	if (!ret) {
		ret = snap_all(&s);
		deflateEnd(&s.tar.z);
	}
	set_free(&s.seen);
	set_free(&s.warned);
	json_object_put(s.misses);
	free(s.buf);
	return ret;
}
