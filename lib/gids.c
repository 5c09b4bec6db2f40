// SPDX-License-Identifier: MIT
/* GID tables (read from sysfs) and the choice of the GID a job should use. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "rdma.h"
#include "sysfs.h"

/* gid_attrs/types/N holds "IB/RoCE v1" or "RoCE v2". */
static enum gid_type parse_gid_type(const char *s)
{
	if (!strcmp(s, "RoCE v2"))
		return GID_TYPE_ROCE_V2;
	if (!strcmp(s, "IB/RoCE v1"))
		return GID_TYPE_ROCE_V1;
	return GID_TYPE_UNKNOWN;
}

/* "fe80:0000:0000:0000:5aa2:e1ff:feb0:3772" -> 16 bytes. */
static int parse_gid(const char *s, uint8_t raw[16])
{
	return inet_pton(AF_INET6, s, raw) == 1 ? 0 : -EINVAL;
}

static int count_entries(const struct ctx *ctx, const char *dir)
{
	char path[4096];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (root_path(ctx, path, sizeof(path), "%s", dir))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void load_gid_attrs(const struct ctx *ctx, const char *base, struct rdma_gid *g,
			   enum link_layer ll)
{
	char path[512], buf[64];

	snprintf(path, sizeof(path), "%s/gid_attrs/types/%u", base, g->index);
	/* In containers the kernel answers EINVAL here: the type stays unknown. */
	if (read_line(ctx, path, buf, sizeof(buf)) > 0)
		g->type = parse_gid_type(buf);
	if (ll == LINK_LAYER_INFINIBAND)
		g->type = GID_TYPE_IB;
	snprintf(path, sizeof(path), "%s/gid_attrs/ndevs/%u", base, g->index);
	if (read_line(ctx, path, buf, sizeof(buf)) > 0 && strlen(buf) < sizeof(g->netdev))
		memcpy(g->netdev, buf, strlen(buf) + 1);
}

int rdma_port_load_gids(const struct ctx *ctx, const struct rdma_dev *dev,
			struct rdma_port *port)
{
	char base[256], path[512], buf[64];
	uint8_t raw[16];
	int i, n;

	snprintf(base, sizeof(base), "/sys/class/infiniband/%s/ports/%u", dev->name, port->num);
	snprintf(path, sizeof(path), "%s/gids", base);
	n = count_entries(ctx, path);
	if (n < 0)
		return n;
	free(port->gids);
	port->n_gids = 0;
	port->gids = calloc((size_t)n + 1, sizeof(*port->gids));
	if (!port->gids)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct rdma_gid *g = &port->gids[port->n_gids];

		snprintf(path, sizeof(path), "%s/gids/%d", base, i);
		if (read_line(ctx, path, buf, sizeof(buf)) <= 0 || parse_gid(buf, raw) ||
		    gid_is_empty(raw))
			continue;
		g->index = (unsigned int)i;
		memcpy(g->raw, raw, 16);
		load_gid_attrs(ctx, base, g, port->link_layer);
		port->n_gids++;
	}
	return 0;
}

const struct rdma_gid *gid_recommend(const struct rdma_port *port, bool ipv6, const char **why)
{
	const struct rdma_gid *best = NULL;
	char v4[INET_ADDRSTRLEN];
	size_t i;

	for (i = 0; i < port->n_gids; i++) {
		const struct rdma_gid *g = &port->gids[i];

		if (g->type != GID_TYPE_ROCE_V2 || gid_is_link_local(g->raw))
			continue;
		if (gid_ipv4(g->raw, v4, sizeof(v4)) == ipv6)
			continue;
		/* The first such entry: the one the kernel set up first for that address. */
		best = g;
		break;
	}
	if (why)
		*why = best ? (ipv6 ? "RoCE v2 with a global IPv6 address"
				    : "RoCE v2 with an IPv4 address")
			    : (ipv6 ? "no RoCE v2 GID with a global IPv6 address"
				    : "no RoCE v2 GID with an IPv4 address: add one to the netdev");
	return best;
}
