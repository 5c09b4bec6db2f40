// SPDX-License-Identifier: MIT
/*
 * The sysfs backend: /sys/class/infiniband below the context's root.  It is
 * what --root reads (recorded trees, copies of other nodes), and what the
 * live backend asks for facts neither verbs nor netlink give (PCI address,
 * NUMA node, kernel driver).
 *
 * sysfs has no MTU files.  For a RoCE port this backend derives the active
 * MTU from its netdev's MTU (/sys/class/net/IF/mtu) with the kernel's own
 * rule and takes 4096 as the maximum, as the RoCE drivers do; it marks the
 * port mtu_derived.  InfiniBand MTUs stay unknown (0).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/root.h"
#include "base/sysfs.h"
#include "node/rdma_backend.h"

#define IB_CLASS "/sys/class/infiniband"

/* A value read but unusable: named, so no verdict is built on it unseen. */
static int junk(const struct ctx *ctx, const char *path, const char *what, const char *val)
{
	char why[160];

	if (!*val)
		snprintf(why, sizeof(why), "empty");
	else
		snprintf(why, sizeof(why), "not %s: '%.64s'", what, val);
	read_warning(ctx, path, -EINVAL, why);
	return -EINVAL;
}

/* "4: ACTIVE" -> 4 */
static int read_num_prefix(const struct ctx *ctx, const char *path, int *out)
{
	char buf[64], *end;
	long v;
	int n = read_line(ctx, path, buf, sizeof(buf));

	if (n < 0)
		return -ENOENT;
	v = strtol(buf, &end, 10);
	if (end == buf || (*end && *end != ':' && *end != ' '))
		return junk(ctx, path, "a number", buf);
	*out = (int)v;
	return 0;
}

/* "5aa2:e1ff:feb0:3772" -> 0x5aa2e1fffeb03772 */
static int parse_guid(const char *s, uint64_t *out)
{
	unsigned int a, b, c, d;

	if (sscanf(s, "%4x:%4x:%4x:%4x", &a, &b, &c, &d) != 4)
		return -EINVAL;
	*out = (uint64_t)a << 48 | (uint64_t)b << 32 | (uint64_t)c << 16 | d;
	return 0;
}

static int read_guid(const struct ctx *ctx, const char *path, uint64_t *out)
{
	char buf[64];

	if (read_line(ctx, path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	return parse_guid(buf, out) ? junk(ctx, path, "a GUID", buf) : 0;
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

void rdma_sysfs_port_netdev(const struct ctx *ctx, const struct rdma_dev *dev,
			    struct rdma_port *port)
{
	char path[512], buf[64];

	/*
	 * rxe and siw name theirs in "parent" (one port): the netdev they were
	 * made on, even where their first GID is a bond's (rxe left on a
	 * slave: the kernel moves a slave's default GIDs to its bond).
	 */
	snprintf(path, sizeof(path), IB_CLASS "/%s/parent", dev->name);
	if (port->num != 1 || read_line(ctx, path, buf, sizeof(buf)) <= 0) {
		/* Other RoCE ports, when netlink did not name it: the first GID's netdev. */
		if (port->netdev[0])
			return;
		snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%u/gid_attrs/ndevs/0", dev->name,
			 port->num);
		if (read_line(ctx, path, buf, sizeof(buf)) <= 0)
			return;
	}
	if (strlen(buf) < sizeof(port->netdev))
		memcpy(port->netdev, buf, strlen(buf) + 1);
}

/* Subnet prefix of an InfiniBand port: the upper half of GID 0. */
static void load_subnet_prefix(const struct ctx *ctx, const struct rdma_dev *dev,
			       struct rdma_port *port)
{
	char path[512], buf[64];

	snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%u/gids/0", dev->name, port->num);
	if (read_line(ctx, path, buf, sizeof(buf)) > 0)
		parse_guid(buf, &port->subnet_prefix);
}

/* The MTUs a RoCE port has on its netdev (see the top of this file). */
static void derive_mtu(const struct ctx *ctx, const struct rdma_dev *dev, struct rdma_port *port)
{
	char path[512];
	int mtu = 0;

	if (port->link_layer != LINK_LAYER_ETHERNET || !port->netdev[0])
		return;
	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", port->netdev);
	if (read_num_prefix(ctx, path, &mtu) || mtu <= 0)
		return;
	port->max_mtu = 4096;
	port->active_mtu = roce_mtu_for_netdev(dev->driver, mtu);
	port->mtu_derived = true;
}

static void load_lid(const struct ctx *ctx, const char *path, uint16_t *out)
{
	unsigned int v;
	char buf[64];

	/* "0x11" */
	if (read_line(ctx, path, buf, sizeof(buf)) > 0 && sscanf(buf, "%x", &v) == 1)
		*out = (uint16_t)v;
}

static void load_port(const struct ctx *ctx, const struct rdma_dev *dev, struct rdma_port *port)
{
	char base[256], path[512], buf[128];

	snprintf(base, sizeof(base), IB_CLASS "/%s/ports/%u", dev->name, port->num);
	/* Unknown, not NOP/Disabled, when the files cannot be read. */
	port->state = port->phys_state = -1;
	snprintf(path, sizeof(path), "%s/state", base);
	read_num_prefix(ctx, path, &port->state);
	snprintf(path, sizeof(path), "%s/phys_state", base);
	read_num_prefix(ctx, path, &port->phys_state);
	snprintf(path, sizeof(path), "%s/link_layer", base);
	if (read_line(ctx, path, buf, sizeof(buf)) >= 0 &&
	    (port->link_layer = parse_link_layer(buf)) == LINK_LAYER_UNKNOWN)
		junk(ctx, path, "a link layer", buf);
	snprintf(path, sizeof(path), "%s/rate", base);
	/* A down port may say "0 Gb/sec"; a rate that is no number is junk. */
	if (read_line(ctx, path, port->rate, sizeof(port->rate)) >= 0 &&
	    (port->rate_gbps = parse_rate(port->rate)) <= 0 && !isdigit((unsigned char)port->rate[0])) {
		junk(ctx, path, "a rate", port->rate);
		port->rate[0] = '\0';
	}
	if (port->link_layer == LINK_LAYER_INFINIBAND) {
		snprintf(path, sizeof(path), "%s/lid", base);
		load_lid(ctx, path, &port->lid);
		snprintf(path, sizeof(path), "%s/sm_lid", base);
		load_lid(ctx, path, &port->sm_lid);
		load_subnet_prefix(ctx, dev, port);
	}
	rdma_sysfs_port_netdev(ctx, dev, port);
	derive_mtu(ctx, dev, port);
}

/* Port numbers under ports/, in order; the count, or -errno. */
static int list_ports(const struct ctx *ctx, const struct rdma_dev *dev, unsigned int *nums,
		      unsigned int max)
{
	char full[4096];
	struct dirent *de;
	unsigned int n = 0;
	DIR *d;

	if ((size_t)snprintf(full, sizeof(full), IB_CLASS "/%s/ports", dev->name) >= sizeof(full))
		return -ENAMETOOLONG;
	d = root_opendir(ctx, full);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		char *end;
		long num = strtol(de->d_name, &end, 10);

		if (*end || num <= 0 || num > 255)
			continue;
		nums[n++] = (unsigned int)num;
	}
	closedir(d);
	return (int)n;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

static int load_ports(const struct ctx *ctx, struct rdma_dev *dev, unsigned int what)
{
	unsigned int nums[255];
	int i, n;

	n = list_ports(ctx, dev, nums, 255);
	if (n < 0)
		return n == -ENOENT ? 0 : n;
	qsort(nums, (size_t)n, sizeof(nums[0]), cmp_uint);
	dev->nports = (unsigned int)n;
	if (!(what & RDMA_LOAD_PORTS) || !n)
		return 0;
	dev->ports = calloc((size_t)n, sizeof(*dev->ports));
	if (!dev->ports)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		dev->ports[i].num = nums[i];
		load_port(ctx, dev, &dev->ports[i]);
	}
	return 0;
}

/* "rxe0" -> "rxe": software devices are named after their driver. */
static void provider_from_name(struct rdma_dev *dev)
{
	size_t n = 0;

	while (dev->name[n] && isalpha((unsigned char)dev->name[n]) && n + 1 < sizeof(dev->driver))
		n++;
	memcpy(dev->driver, dev->name, n);
	dev->driver[n] = '\0';
}

static void load_provider(const struct ctx *ctx, struct rdma_dev *dev)
{
	char path[512], kdriver[64];
	const char *p;

	if (dev->driver[0])
		return;
	snprintf(path, sizeof(path), IB_CLASS "/%s/device/driver", dev->name);
	if (!read_link_base(ctx, path, kdriver, sizeof(kdriver))) {
		p = provider_from_driver(kdriver);
		if (!p)
			p = kdriver;
		if (strlen(p) < sizeof(dev->driver))
			memcpy(dev->driver, p, strlen(p) + 1);
		return;
	}
	/* No parent device but a "parent" netdev: a software device (rxe, siw). */
	snprintf(path, sizeof(path), IB_CLASS "/%s/parent", dev->name);
	if (root_exists(ctx, path))
		provider_from_name(dev);
}

void rdma_sysfs_dev_extras(const struct ctx *ctx, struct rdma_dev *dev)
{
	char path[512], pci[64];
	unsigned int dom, bus, slot, fn;

	snprintf(path, sizeof(path), IB_CLASS "/%s/device", dev->name);
	/* Only a PCI function ("0000:3b:00.0"), not an auxiliary or virtual device. */
	if (!read_link_base(ctx, path, pci, sizeof(pci)) &&
	    sscanf(pci, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) == 4 && strlen(pci) < sizeof(dev->pci))
		memcpy(dev->pci, pci, strlen(pci) + 1);
	snprintf(path, sizeof(path), IB_CLASS "/%s/device/numa_node", dev->name);
	read_num_prefix(ctx, path, &dev->numa_node);
	load_provider(ctx, dev);
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
	rdma_sysfs_dev_extras(ctx, dev);
}

static int cmp_dev(const void *a, const void *b)
{
	return strcmp(((const struct rdma_dev *)a)->name, ((const struct rdma_dev *)b)->name);
}

int rdma_sysfs_load(const struct ctx *ctx, struct rdma_node *node, unsigned int what)
{
	struct dirent *de;
	DIR *d;
	int ret = 0;

	d = root_opendir(ctx, IB_CLASS);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && (de = readdir(d))) {
		struct rdma_dev *dev;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(dev->name))
			continue;
		dev = rdma_node_add(node, de->d_name);
		if (!dev) {
			ret = -ENOMEM;
			break;
		}
		load_dev_attrs(ctx, dev);
		ret = load_ports(ctx, dev, what);
	}
	closedir(d);
	if (node->n)
		qsort(node->devs, node->n, sizeof(*node->devs), cmp_dev);
	return ret;
}
