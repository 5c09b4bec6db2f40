// SPDX-License-Identifier: MIT
/* Helpers of the fuzz targets: the temporary root and the tree format of fuzz.h. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sanitizer/common_interface_defs.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#define TREE_MAX_RECORDS 512
#define TREE_MAX_DEPTH 16

char fuzz_root[256];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

void fuzz_root_clear(void)
{
	if (fuzz_root[0])
		nftw(fuzz_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void root_remove(void)
{
	fuzz_root_clear();
	rmdir(fuzz_root);
}

void fuzz_root_init(void)
{
	const char *base = getenv("TMPDIR");

	if (fuzz_root[0])
		return;
	/* tmpfs when there is one: every run rewrites the tree. */
	if (!base && access("/dev/shm", W_OK) == 0)
		base = "/dev/shm";
	snprintf(fuzz_root, sizeof(fuzz_root), "%s/rdmactl-fuzz.XXXXXX", base ? base : "/tmp");
	if (!mkdtemp(fuzz_root))
		fuzz_fail("cannot create a temporary root in %s: %s", base ? base : "/tmp",
			  strerror(errno));
	atexit(root_remove);
}

struct ctx fuzz_ctx(const char *cmd)
{
	struct ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.root = fuzz_root;
	ctx.cmd = cmd;
	return ctx;
}

char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

void fuzz_fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	n = snprintf(msg, sizeof(msg), "fuzz: ");
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	/* The sanitizers' report stream stays open under -close_fd_mask. */
	__sanitizer_report_error_summary(msg);
	abort();
}

/* A plain name: not empty, not "." or "..", no '/', printable. */
static bool plain_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 255 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (i = 0; i < n; i++)
		if (s[i] == '/' || (unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return false;
	return true;
}

/* Components of a relative path, all plain; their count, or -1. */
static int path_depth(const char *p)
{
	int depth = 0;

	while (*p) {
		size_t n = strcspn(p, "/");

		if (!plain_name(p, n) || ++depth > TREE_MAX_DEPTH)
			return -1;
		p += n;
		if (*p == '/')
			p++;
	}
	return depth;
}

/*
 * A link target from a link at depth @depth: some "../" then plain names,
 * never above the root.
 */
static bool target_ok(const char *t, int depth)
{
	int up = 0;

	if (!*t || *t == '/')
		return false;
	while (!strncmp(t, "../", 3)) {
		up++;
		t += 3;
	}
	if (!strcmp(t, ".."))
		return up + 1 <= depth;
	return up <= depth && (!*t || path_depth(t) >= 0);
}

/* mkdir -p of the parents of @rel below the root; no parent may be a symlink. */
static int make_parents(const char *rel)
{
	char path[4096];
	size_t off = strlen(fuzz_root);
	const char *p = rel;
	struct stat st;

	memcpy(path, fuzz_root, off + 1);
	for (;;) {
		size_t n = strcspn(p, "/");

		if (p[n] != '/')
			return 0;
		if (off + 1 + n >= sizeof(path))
			return -ENAMETOOLONG;
		path[off++] = '/';
		memcpy(path + off, p, n);
		off += n;
		path[off] = '\0';
		if (lstat(path, &st) == 0) {
			if (!S_ISDIR(st.st_mode))
				return -ENOTDIR;
		} else if (mkdir(path, 0755)) {
			return -errno;
		}
		p += n + 1;
	}
}

static int full_path(const char *rel, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", fuzz_root, rel);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int fuzz_write(const char *rel, const void *data, size_t len)
{
	char path[4096];
	int fd, ret;

	ret = make_parents(rel);
	if (!ret)
		ret = full_path(rel, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = write(fd, data, len) == (ssize_t)len ? 0 : -EIO;
	close(fd);
	return ret;
}

static int make_link(const char *rel, const char *target)
{
	char path[4096];
	int depth = path_depth(rel), ret;

	if (depth < 1 || !target_ok(target, depth - 1))
		return -EINVAL;
	ret = make_parents(rel);
	if (!ret)
		ret = full_path(rel, path, sizeof(path));
	if (!ret && symlink(target, path))
		ret = -errno;
	return ret;
}

static int make_dir(char *rel)
{
	char path[4096];
	size_t n = strlen(rel);
	int ret;

	while (n && rel[n - 1] == '/')
		rel[--n] = '\0';
	if (path_depth(rel) < 1)
		return -EINVAL;
	ret = make_parents(rel);
	if (!ret)
		ret = full_path(rel, path, sizeof(path));
	if (!ret && mkdir(path, 0755) && errno != EEXIST)
		ret = -errno;
	return ret;
}

static bool allowed(const char *rel, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (!strncmp(rel, *prefixes, strlen(*prefixes)))
			return true;
	return false;
}

/* One record: header line @hdr (after "== "), contents @body of @len bytes. */
static int record(char *hdr, const char *body, size_t len, const char *const *prefixes)
{
	char *arrow = strstr(hdr, " -> ");
	size_t n = strlen(hdr);

	if (!allowed(hdr, prefixes))
		return -EPERM;
	if (arrow) {
		*arrow = '\0';
		return make_link(hdr, arrow + 4);
	}
	if (n && hdr[n - 1] == '/')
		return make_dir(hdr);
	if (path_depth(hdr) < 1)
		return -EINVAL;
	return fuzz_write(hdr, body, len);
}

/* The next "== " at the start of a line at or after @from, or @end. */
static const char *next_header(const char *from, const char *start, const char *end)
{
	const char *p;

	for (p = from; p + 3 <= end; p++)
		if ((p == start || p[-1] == '\n') && !memcmp(p, "== ", 3))
			return p;
	return end;
}

int fuzz_tree_write(const uint8_t *data, size_t size, const char *const *prefixes)
{
	const char *start = (const char *)data, *end = start + size;
	const char *p = next_header(start, start, end);
	int written = 0, records = 0;

	fuzz_root_clear();
	while (p < end && records++ < TREE_MAX_RECORDS) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *body = eol ? eol + 1 : end;
		const char *next = next_header(body, start, end);
		size_t hlen = (size_t)((eol ? eol : end) - (p + 3));
		char hdr[1024];

		if (hlen < sizeof(hdr) && !memchr(p + 3, '\0', hlen)) {
			memcpy(hdr, p + 3, hlen);
			hdr[hlen] = '\0';
			if (!record(hdr, body, (size_t)(next - body), prefixes))
				written++;
		}
		p = next;
	}
	return written;
}
