// SPDX-License-Identifier: MIT
/*
 * The sysfs backend: /sys/class/infiniband below the context's root.  It is
 * what --root reads (recorded trees, copies of other nodes), and what the
 * live backend falls back to for facts neither verbs nor netlink give.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctx.h"
#include "rdma.h"
#include "rdma_backend.h"
#include "sysfs.h"

#define IB_CLASS "/sys/class/infiniband"

/* "4: ACTIVE" -> 4 */
static int read_num_prefix(const struct ctx *ctx, const char *path, int *out)
{
	char buf[64];

	if (read_line(ctx, path, buf, sizeof(buf)) <= 0)
		return -ENOENT;
	*out = atoi(buf);
	return 0;
}

/* "5aa2:e1ff:feb0:3772" -> 0x5aa2e1fffeb03772 */
static int read_guid(const struct ctx *ctx, const char *path, uint64_t *out)
{
	unsigned int a, b, c, d;
	char buf[64];

	if (read_line(ctx, path, buf, sizeof(buf)) <= 0)
		return -ENOENT;
	if (sscanf(buf, "%4x:%4x:%4x:%4x", &a, &b, &c, &d) != 4)
		return -EINVAL;
	*out = (uint64_t)a << 48 | (uint64_t)b << 32 | (uint64_t)c << 16 | d;
	return 0;
}

/* Last component of a symlink below the root ("../../mlx5_core" -> "mlx5_core"). */
static int read_link_base(const struct ctx *ctx, const char *path, char *buf, size_t len)
{
	char full[4096], target[4096];
	ssize_t n;

	if (root_path(ctx, full, sizeof(full), "%s", path))
		return -ENAMETOOLONG;
	n = readlink(full, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	snprintf(buf, len, "%s", basename(target));
	return 0;
}

static enum link_layer parse_link_layer(const char *s)
{
	if (!strcmp(s, "InfiniBand"))
		return LINK_LAYER_INFINIBAND;
	if (!strcmp(s, "Ethernet"))
		return LINK_LAYER_ETHERNET;
	return LINK_LAYER_UNKNOWN;
}

/* "100 Gb/sec (4X EDR)" -> 100 */
static double parse_rate(const char *s)
{
	return strtod(s, NULL);
}

static void load_port(const struct ctx *ctx, const struct rdma_dev *dev, struct rdma_port *port)
{
	char path[512], buf[128];
	unsigned int v;

	snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%u/state", dev->name, port->num);
	read_num_prefix(ctx, path, &port->state);
	snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%u/phys_state", dev->name, port->num);
	read_num_prefix(ctx, path, &port->phys_state);
	snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%u/link_layer", dev->name, port->num);
	if (read_line(ctx, path, buf, sizeof(buf)) > 0)
		port->link_layer = parse_link_layer(buf);
	snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%u/rate", dev->name, port->num);
	if (read_line(ctx, path, port->rate, sizeof(port->rate)) > 0)
		port->rate_gbps = parse_rate(port->rate);
	snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%u/lid", dev->name, port->num);
	if (read_line(ctx, path, buf, sizeof(buf)) > 0 && sscanf(buf, "%x", &v) == 1)
		port->lid = (uint16_t)v;
	snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%u/sm_lid", dev->name, port->num);
	if (read_line(ctx, path, buf, sizeof(buf)) > 0 && sscanf(buf, "%x", &v) == 1)
		port->sm_lid = (uint16_t)v;
	/* The first GID's netdev names the port's netdev on RoCE. */
	snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%u/gid_attrs/ndevs/0", dev->name, port->num);
	if (read_line(ctx, path, buf, sizeof(buf)) > 0 && strlen(buf) < sizeof(port->netdev))
		memcpy(port->netdev, buf, strlen(buf) + 1);
}

static int load_ports(const struct ctx *ctx, struct rdma_dev *dev)
{
	char path[512], full[4096];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), IB_CLASS "/%s/ports", dev->name);
	if (root_path(ctx, full, sizeof(full), "%s", path))
		return -ENAMETOOLONG;
	d = opendir(full);
	if (!d)
		return -errno;
	dev->nports = 0;
	while ((de = readdir(d))) {
		struct rdma_port *np;
		long num = strtol(de->d_name, NULL, 10);

		if (num <= 0 || num > 255)
			continue;
		np = realloc(dev->ports, (dev->nports + 1) * sizeof(*np));
		if (!np) {
			closedir(d);
			return -ENOMEM;
		}
		dev->ports = np;
		memset(&np[dev->nports], 0, sizeof(*np));
		np[dev->nports].num = (unsigned int)num;
		load_port(ctx, dev, &np[dev->nports]);
		dev->nports++;
	}
	closedir(d);
	return 0;
}

static void load_dev_attrs(const struct ctx *ctx, struct rdma_dev *dev)
{
	char path[512];

	snprintf(path, sizeof(path), IB_CLASS "/%s/node_type", dev->name);
	read_num_prefix(ctx, path, &dev->node_type);
	snprintf(path, sizeof(path), IB_CLASS "/%s/node_guid", dev->name);
	read_guid(ctx, path, &dev->node_guid);
	snprintf(path, sizeof(path), IB_CLASS "/%s/sys_image_guid", dev->name);
	read_guid(ctx, path, &dev->sys_image_guid);
	snprintf(path, sizeof(path), IB_CLASS "/%s/fw_ver", dev->name);
	read_line(ctx, path, dev->fw_ver, sizeof(dev->fw_ver));
	dev->numa_node = -1;
	snprintf(path, sizeof(path), IB_CLASS "/%s/device/numa_node", dev->name);
	read_num_prefix(ctx, path, &dev->numa_node);
	snprintf(path, sizeof(path), IB_CLASS "/%s/device", dev->name);
	read_link_base(ctx, path, dev->pci, sizeof(dev->pci));
	snprintf(path, sizeof(path), IB_CLASS "/%s/device/driver", dev->name);
	read_link_base(ctx, path, dev->driver, sizeof(dev->driver));
}

static int cmp_dev(const void *a, const void *b)
{
	return strcmp(((const struct rdma_dev *)a)->name, ((const struct rdma_dev *)b)->name);
}

int rdma_sysfs_load(const struct ctx *ctx, struct rdma_node *node, unsigned int what)
{
	char full[4096];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;
	int ret = 0;

	if (root_path(ctx, full, sizeof(full), IB_CLASS))
		return -ENAMETOOLONG;
	d = opendir(full);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct rdma_dev *dev;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(dev->name))
			continue;
		if (node->n == cap) {
			struct rdma_dev *nd = realloc(node->devs, (cap ? cap * 2 : 8) * sizeof(*nd));

			if (!nd) {
				ret = -ENOMEM;
				break;
			}
			node->devs = nd;
			cap = cap ? cap * 2 : 8;
		}
		dev = &node->devs[node->n++];
		memset(dev, 0, sizeof(*dev));
		memcpy(dev->name, de->d_name, strlen(de->d_name) + 1);
		load_dev_attrs(ctx, dev);
		if (what & RDMA_LOAD_PORTS)
			load_ports(ctx, dev);
	}
	closedir(d);
	if (node->n)
		qsort(node->devs, node->n, sizeof(*node->devs), cmp_dev);
	return ret;
}
