// SPDX-License-Identifier: MIT
/*
 * UCX as a job on this node would run it: its release, the GID it takes,
 * and whether its UD transport drops RoCE v2 IPv4 packets (UCX before
 * 1.19 on devices other than mlx5).  Everything is read below the root;
 * UCX itself is never run.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/ctx.h"
#include "base/sysfs.h"
#include "node/ucx.h"
#include "node/versions.h"

#define IMAGE_MAX (64u << 20)	/* a libucp larger than 64 MiB is not one */

/* Where HPC-X and hand builds put UCX, after the system library directories. */
const char *const ucx_extra_dirs[] = { "/opt/hpcx/ucx/lib", "/usr/local/ucx/lib", NULL };

int ucx_version_parse(const char *s)
{
	unsigned int major, minor, patch;
	int n = 0;

	if (sscanf(s, "%u.%u.%u%n", &major, &minor, &patch, &n) != 3 || major != 1 ||
	    minor > 99 || patch > 99)
		return 0;
	/* "1.13.1", "1.13.1-1" (dpkg), "1.13.1rc2"; not "1.13.1.5". */
	if (s[n] == '.')
		return 0;
	return (int)(major * 10000 + minor * 100 + patch);
}

/*
 * ucp_get_version_string() returns the UCX_VERSION literal: "1.13.1" ends
 * in a NUL in .rodata, right after another object's last byte (Debian's
 * 1.13.1 has "\xcdA1.13.1"); no other string of libucp has that shape.
 */
int ucx_version_in_image(const char *buf, size_t len)
{
	size_t i, n;

	for (i = 0; i + 5 <= len; i++) {
		if (buf[i] != '1' || buf[i + 1] != '.' ||
		    (i && (isdigit((unsigned char)buf[i - 1]) || buf[i - 1] == '.')))
			continue;
		n = strnlen(buf + i, len - i);
		if (n < 5 || n > 8 || i + n == len || strspn(buf + i, "0123456789.") != n)
			continue;
		if (ucx_version_parse(buf + i))
			return ucx_version_parse(buf + i);
	}
	return 0;
}

/* The field @name ("\nVersion: ") of a stanza [@p, @end), or NULL. */
static const char *stanza_field(const char *p, const char *end, const char *name)
{
	const char *f = strstr(p, name);

	return f && f < end ? f + strlen(name) : NULL;
}

/* "Package: libucx0\nStatus: install ok installed\n...Version: 1.13.1-1\n" */
bool dpkg_stanza(const char *status, const char *pkg, const char **start, size_t *len)
{
	const char *p = status, *end, *st;
	size_t plen = strlen(pkg);

	for (; (p = strstr(p, "Package: ")); p++) {
		if ((p != status && p[-1] != '\n') || strncmp(p + 9, pkg, plen) ||
		    (p[9 + plen] != '\n' && p[9 + plen] != ':'))
			continue;
		end = strstr(p, "\n\n");
		end = end ? end + 1 : p + strlen(p);
		st = stanza_field(p, end, "\nStatus: ");
		if (!st || strncmp(st, "install ok installed", 20))
			continue;
		*start = p;
		*len = (size_t)(end - p);
		return true;
	}
	return false;
}

int dpkg_version(const char *status, const char *pkg, char *ver, size_t len)
{
	const char *p, *v;
	size_t n;

	if (!dpkg_stanza(status, pkg, &p, &n) || !(v = stanza_field(p, p + n, "\nVersion: ")))
		return 0;
	snprintf(ver, len, "%.*s", (int)strcspn(v, "\n"), v);
	return ucx_version_parse(ver);
}

size_t ucx_standin(int version, char *buf, size_t len)
{
	int n = snprintf(buf, len, "a stand-in for libucp.so.0, holding only its release as the "
			 "library does:\n%d.%d.%d", version / 10000, version / 100 % 100,
			 version % 100);

	/* The release's NUL is part of it: ucx_version_in_image() wants one after it. */
	return n < 0 || (size_t)n + 1 >= len ? 0 : (size_t)n + 1;
}

int ucx_lib_version(const struct ctx *ctx, const char *path)
{
	char *buf;
	size_t len;
	int v;

	if (read_file(ctx, path, IMAGE_MAX, &buf, &len))
		return 0;
	v = ucx_version_in_image(buf, len);
	free(buf);
	return v;
}

/* "Version: 1.13.1" of @dir/pkgconfig/ucx.pc; 0 when absent. */
static int version_of_pc(const struct ctx *ctx, const char *dir, char *from, size_t len)
{
	char path[300], *text, *v;
	int ver = 0;

	snprintf(path, sizeof(path), "%s/pkgconfig/ucx.pc", dir);
	if (read_file(ctx, path, 1 << 16, &text, NULL))
		return 0;
	v = strstr(text, "\nVersion:");
	if (v && (ver = ucx_version_parse(v + 9 + strspn(v + 9, " \t"))))
		snprintf(from, len, "%s", path);
	free(text);
	return ver;
}

static int version_of_dpkg(const struct ctx *ctx, char *from, size_t len)
{
	char *status, ver[64];
	int v;

	if (read_file(ctx, DPKG_STATUS, IMAGE_MAX, &status, NULL))
		return 0;
	v = dpkg_version(status, "libucx0", ver, sizeof(ver));
	free(status);
	if (v)
		snprintf(from, len, "dpkg: libucx0 %s", ver);
	return v;
}

static bool lib_in(const struct ctx *ctx, const char *dir, struct ucx_install *out)
{
	char path[300];

	if (strlen(dir) > 256)
		return false;
	snprintf(path, sizeof(path), "%s/libucp.so.0", dir);
	if (!root_exists(ctx, path))
		return false;
	snprintf(out->lib, sizeof(out->lib), "%s", path);
	if ((out->version = ucx_lib_version(ctx, path)))
		snprintf(out->from, sizeof(out->from), "%s", path);
	else if (!(out->version = version_of_pc(ctx, dir, out->from, sizeof(out->from))))
		out->version = version_of_dpkg(ctx, out->from, sizeof(out->from));
	return true;
}

/* The directory of LD_LIBRARY_PATH (live only) that holds libucp.so.0. */
static bool lib_in_ld_path(const struct ctx *ctx, struct ucx_install *out)
{
	const char *ldpath = getenv("LD_LIBRARY_PATH");
	char copy[4096], *save = NULL, *dir;

	if (!ldpath || ctx->root[0] || strlen(ldpath) >= sizeof(copy))
		return false;
	snprintf(copy, sizeof(copy), "%s", ldpath);
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
		if (*dir == '/' && lib_in(ctx, dir, out))
			return true;
	return false;
}

int ucx_find(const struct ctx *ctx, struct ucx_install *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (lib_in_ld_path(ctx, out))
		return out->version;
	for (i = 0; lib_dirs[i]; i++)
		if (lib_in(ctx, lib_dirs[i], out))
			return out->version;
	for (i = 0; ucx_extra_dirs[i]; i++)
		if (lib_in(ctx, ucx_extra_dirs[i], out))
			return out->version;
	/* Installed where we do not look: dpkg still knows. */
	out->version = version_of_dpkg(ctx, out->from, sizeof(out->from));
	if (!out->version)
		out->version = -1;
	return out->version;
}

int ucx_parse_bool(const char *s)
{
	if (!strcasecmp(s, "y") || !strcasecmp(s, "yes") || !strcmp(s, "1"))
		return 1;
	if (!strcasecmp(s, "n") || !strcasecmp(s, "no") || !strcmp(s, "0"))
		return 0;
	return -EINVAL;
}

/* An IPv4-mapped GID (::ffff:a.b.c.d), the family UCX calls AF_INET. */
static bool is_v4(const struct rdma_gid *g)
{
	char buf[16];

	return gid_ipv4(g->raw, buf, sizeof(buf));
}

static const struct rdma_gid *first_gid(const struct rdma_port *p, enum gid_type type, bool ipv4)
{
	size_t k;

	for (k = 0; k < p->n_gids; k++)
		if (p->gids[k].type == type && is_v4(&p->gids[k]) == ipv4)
			return &p->gids[k];
	return NULL;
}

const struct rdma_gid *ucx_port_gid(const struct rdma_port *p, const char *gid_index)
{
	const struct rdma_gid *g;
	char *end;
	unsigned long index;
	size_t k;

	if (gid_index && strcmp(gid_index, "auto")) {
		errno = 0;
		index = strtoul(gid_index, &end, 10);
		if (errno || end == gid_index || *end || !isdigit((unsigned char)*gid_index))
			return NULL;
		for (k = 0; k < p->n_gids; k++)
			if (p->gids[k].index == index)
				return &p->gids[k];
		return NULL;
	}
	/* uct_ib_device_select_gid(): RoCE v2 IPv4, v2 IPv6, v1 IPv4, v1 IPv6. */
	if ((g = first_gid(p, GID_TYPE_ROCE_V2, true)) || (g = first_gid(p, GID_TYPE_ROCE_V2, false)) ||
	    (g = first_gid(p, GID_TYPE_ROCE_V1, true)))
		return g;
	return first_gid(p, GID_TYPE_ROCE_V1, false);
}

static bool is_roce(const struct rdma_dev *dev, const struct rdma_port *p)
{
	return p->link_layer == LINK_LAYER_ETHERNET && strcmp(dev->protocol, "iw") &&
	       dev->node_type == 1 /* IBV_NODE_CA; iWARP devices are RNICs */;
}

bool ucx_needs_dgid_check_off(const struct rdma_dev *dev, const struct rdma_port *p,
			      int ucx_version, const char *gid_index, char *why, size_t len)
{
	const struct rdma_gid *g;
	char gs[48], v4[16];

	if (!is_roce(dev, p)) {
		snprintf(why, len, "%s/%u is not RoCE", dev->name, p->num);
		return false;
	}
	if (!dev->driver[0]) {
		snprintf(why, len, "%s/%u: driver unknown, so whether its completions carry the "
			 "packet type (mlx5) is too", dev->name, p->num);
		return false;
	}
	if (!strcmp(dev->driver, "mlx5")) {
		snprintf(why, len, "%s/%u is mlx5, whose completions carry the packet type", dev->name,
			 p->num);
		return false;
	}
	if (ucx_version >= UCX_DGID_FIXED) {
		snprintf(why, len, "UCX 1.19 and later read the address family from the GRH");
		return false;
	}
	g = ucx_port_gid(p, gid_index);
	if (!g || g->type != GID_TYPE_ROCE_V2 || !gid_ipv4(g->raw, v4, sizeof(v4))) {
		snprintf(why, len, "%s/%u: UCX uses %s%s, not a RoCE v2 IPv4 one", dev->name, p->num,
			 g ? "GID " : "no GID", g ? gid_str(g->raw, gs, sizeof(gs)) : "");
		return false;
	}
	snprintf(why, len, "%s/%u (%s, not mlx5) with RoCE v2 IPv4 GID %u (%s)", dev->name, p->num,
		 dev->driver, g->index, v4);
	return true;
}
