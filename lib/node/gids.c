// SPDX-License-Identifier: MIT
/*
 * GID tables and the choice of the GID a job should use.
 *
 * Live, one ibv_query_gid_table() per device gives every valid entry with
 * its type and netdev; with --root (or when verbs fails) the port's sysfs
 * directory is read entry by entry, the way show_gids does, but through one
 * directory descriptor and without reading the attributes of empty entries.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/root.h"
#include "base/sysfs.h"
#include "node/gids.h"
#include "node/netdev.h"

/* Largest table index believed from a directory listing (rxe has 1024). */
#define GID_INDEX_MAX 65536
/* At most this many threads read a node's devices. */
#define GIDS_LOAD_THREADS 8

enum gid_type gid_type_parse(const char *s, enum link_layer ll)
{
	if (ll == LINK_LAYER_INFINIBAND)
		return GID_TYPE_IB;
	if (!strcmp(s, "RoCE v2"))
		return GID_TYPE_ROCE_V2;
	/* The kernel writes "IB/RoCE v1" for both; on Ethernet it means RoCE v1. */
	if (!strcmp(s, "IB/RoCE v1"))
		return GID_TYPE_ROCE_V1;
	return GID_TYPE_UNKNOWN;
}

int gid_parse(const char *s, uint8_t raw[16])
{
	return inet_pton(AF_INET6, s, raw) == 1 ? 0 : -EINVAL;
}

bool gid_unset(const uint8_t raw[16])
{
	static const uint8_t fe80[16] = { 0xfe, 0x80 };

	return gid_is_empty(raw) || !memcmp(raw, fe80, 16);
}

static int cmp_gid(const void *a, const void *b)
{
	const struct rdma_gid *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* Hand @gids (@n of them, malloc'd) to @port, replacing what it had. */
static void port_set_gids(struct rdma_port *port, struct rdma_gid *gids, size_t n)
{
	free(port->gids);
	if (n)
		qsort(gids, n, sizeof(*gids), cmp_gid);
	port->gids = gids;
	port->n_gids = n;
}

/* ---- sysfs: /sys/class/infiniband/DEV/ports/N/{gids,gid_attrs/types,gid_attrs/ndevs}/I ---- */

/* One more than the largest index in gids/ (open as @dfd): the table's length. */
static int table_len(int dfd)
{
	struct dirent *de;
	long max = -1;
	DIR *d;
	int fd;

	fd = dup(dfd);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		char *end;
		long i = strtol(de->d_name, &end, 10);

		if (de->d_name[0] >= '0' && de->d_name[0] <= '9' && !*end &&
		    i < GID_INDEX_MAX && i > max)
			max = i;
	}
	closedir(d);
	return (int)(max + 1);
}

/* The port's three directories, each open once: entries are then one lookup away. */
struct port_dirs {
	int gids, types, ndevs;
	/* Relative to the root: for warnings, and what a snapshot could not read. */
	char gids_path[160], types_path[160], ndevs_path[160];
};

static int port_dirs_open(const struct ctx *ctx, const struct rdma_dev *dev,
			  const struct rdma_port *port, struct port_dirs *pd)
{
	char path[128];
	int dfd;

	pd->gids = pd->types = pd->ndevs = -1;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u", dev->name, port->num);
	snprintf(pd->gids_path, sizeof(pd->gids_path), "%s/gids", path);
	snprintf(pd->types_path, sizeof(pd->types_path), "%s/gid_attrs/types", path);
	snprintf(pd->ndevs_path, sizeof(pd->ndevs_path), "%s/gid_attrs/ndevs", path);
	dfd = root_open(ctx, path, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return dfd;
	/* Below the port, sysfs has no links: one lookup from its fd each. */
	pd->gids = openat(dfd, "gids", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* Missing attribute directories (old kernels, IB) leave the attributes unknown. */
	pd->types = openat(dfd, "gid_attrs/types", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pd->ndevs = openat(dfd, "gid_attrs/ndevs", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(dfd);
	return 0;
}

static void port_dirs_close(struct port_dirs *pd)
{
	if (pd->ndevs >= 0)
		close(pd->ndevs);
	if (pd->types >= 0)
		close(pd->types);
	if (pd->gids >= 0)
		close(pd->gids);
}

/*
 * Remember the lowest index of @port whose file @what could not be read
 * (@err, or @why when the value was bad): the choice must not pass it by.
 */
static void unread(struct rdma_port *port, unsigned int i, const char *what, int err,
		   const char *why)
{
	if (port->gid_unread && port->gid_unread <= i + 1)
		return;
	port->gid_unread = i + 1;
	snprintf(port->gid_unread_why, sizeof(port->gid_unread_why), "%s/%u: %.48s", what, i,
		 why ? why : strerror(-err));
}

/*
 * An attribute this user may not read.  Other failures are the kernel's
 * answer (EINVAL in a container, no attribute on an old kernel): the type
 * or netdev stays unknown and the choice says so in those words.
 */
static bool attr_unread(int ret)
{
	return ret == -EACCES || ret == -EPERM;
}

/* Entry @i into @g; -ENOENT when it is empty or unreadable (noted in @port). */
static int sysfs_read_entry(const struct ctx *ctx, const struct port_dirs *pd, unsigned int i,
			    struct rdma_port *port, struct rdma_gid *g)
{
	enum link_layer ll = port->link_layer;
	char name[16], buf[64];
	int ret;

	snprintf(name, sizeof(name), "%u", i);
	ret = read_line_warn_at(ctx, pd->gids, pd->gids_path, name, buf, sizeof(buf));
	if (ret < 0) {
		if (ret != -ENOENT)
			unread(port, i, "gids", ret, NULL);
		return -ENOENT;
	}
	if (gid_parse(buf, g->raw)) {
		char path[192], why[96];

		snprintf(path, sizeof(path), "%s/%s", pd->gids_path, name);
		snprintf(why, sizeof(why), *buf ? "not a GID: '%.48s'" : "empty", buf);
		read_warning(ctx, path, -EINVAL, why);
		unread(port, i, "gids", -EINVAL, why);
		return -ENOENT;
	}
	if (gid_unset(g->raw))
		return -ENOENT;
	g->index = i;
	g->type = ll == LINK_LAYER_INFINIBAND ? GID_TYPE_IB : GID_TYPE_UNKNOWN;
	g->netdev[0] = '\0';
	if (ll == LINK_LAYER_INFINIBAND)
		return 0;	/* no RoCE type, no netdev */
	/*
	 * A failed read leaves the attribute unknown; a permission error is
	 * also noted, so that the choice says the file was not read rather
	 * than guess at the hardware.
	 */
	if (pd->types >= 0) {
		ret = read_line_in(ctx, pd->types, pd->types_path, name, buf, sizeof(buf));
		if (ret > 0)
			g->type = gid_type_parse(buf, ll);
		else if (attr_unread(ret))
			unread(port, i, "gid_attrs/types", ret, NULL);
	}
	if (pd->ndevs >= 0) {
		ret = read_line_in(ctx, pd->ndevs, pd->ndevs_path, name, buf, sizeof(buf));
		if (ret > 0 && strlen(buf) < sizeof(g->netdev))
			memcpy(g->netdev, buf, strlen(buf) + 1);
		else if (attr_unread(ret))
			unread(port, i, "gid_attrs/ndevs", ret, NULL);
	}
	return 0;
}

static int sysfs_load_port(const struct ctx *ctx, const struct rdma_dev *dev,
			   struct rdma_port *port)
{
	struct rdma_gid *gids, *fit;
	struct port_dirs pd;
	size_t n = 0;
	int len, i, ret;

	port->gid_unread = 0;
	port->gid_unread_why[0] = '\0';
	ret = port_dirs_open(ctx, dev, port, &pd);
	if (ret)
		return ret;
	/* No gids directory: an empty table. */
	len = pd.gids < 0 ? 0 : table_len(pd.gids);
	if (len < 0) {
		ret = len;
		goto err_dirs;
	}
	gids = calloc(len ? (size_t)len : 1, sizeof(*gids));
	if (!gids) {
		ret = -ENOMEM;
		goto err_dirs;
	}
	for (i = 0; i < len; i++)
		n += !sysfs_read_entry(ctx, &pd, (unsigned int)i, port, &gids[n]);
	/* Most of a table is usually empty: keep only what was filled. */
	if (!n) {
		free(gids);
		gids = NULL;
	} else if ((fit = realloc(gids, n * sizeof(*gids)))) {
		gids = fit;
	}
	port_set_gids(port, gids, n);
err_dirs:
	port_dirs_close(&pd);
	return ret;
}

/* ---- verbs: ibv_query_gid_table() ---- */

static enum gid_type verbs_gid_type(uint32_t t, enum link_layer ll)
{
	if (ll == LINK_LAYER_INFINIBAND)
		return GID_TYPE_IB;
	switch (t) {
	case IBV_GID_TYPE_ROCE_V2:
		return GID_TYPE_ROCE_V2;
	case IBV_GID_TYPE_ROCE_V1:
	case IBV_GID_TYPE_IB:	/* the kernel's RoCE v1 type shares IB's value */
		return GID_TYPE_ROCE_V1;
	default:
		return GID_TYPE_UNKNOWN;
	}
}

static enum link_layer verbs_link_layer(uint8_t ll)
{
	/* As ibv_devinfo: an unspecified link layer is InfiniBand. */
	return ll == IBV_LINK_LAYER_ETHERNET ? LINK_LAYER_ETHERNET : LINK_LAYER_INFINIBAND;
}

/* The entries of @e (@n of them) that belong to @port, into port->gids. */
static int verbs_take_port(struct rdma_port *port, enum link_layer ll,
			   const struct ibv_gid_entry *e, size_t n)
{
	struct rdma_gid *gids;
	size_t i, cnt = 0;

	for (i = 0; i < n; i++)
		cnt += e[i].port_num == port->num;
	gids = calloc(cnt ? cnt : 1, sizeof(*gids));
	if (!gids)
		return -ENOMEM;
	cnt = 0;
	for (i = 0; i < n; i++) {
		struct rdma_gid *g = &gids[cnt];

		if (e[i].port_num != port->num || gid_unset(e[i].gid.raw))
			continue;
		g->index = e[i].gid_index;
		memcpy(g->raw, e[i].gid.raw, 16);
		g->type = verbs_gid_type(e[i].gid_type, ll);
		/* A netdev of another namespace has no name here: unknown. */
		if (!e[i].ndev_ifindex || !if_indextoname(e[i].ndev_ifindex, g->netdev))
			g->netdev[0] = '\0';
		cnt++;
	}
	if (!cnt) {
		free(gids);
		gids = NULL;
	}
	port_set_gids(port, gids, cnt);
	return 0;
}

/* The whole table of the open device in one call; @only: one port, or 0 for all. */
static int verbs_query(struct ibv_context *vctx, struct rdma_dev *dev, unsigned int only)
{
	enum link_layer ll[256] = { LINK_LAYER_UNKNOWN };
	struct ibv_gid_entry *entries;
	struct ibv_port_attr pa;
	size_t max = 0;
	unsigned int p;
	ssize_t n;
	int ret = 0;

	/* The table holds at most the ports' gid_tbl_len entries together. */
	for (p = 0; p < dev->nports && p < 256; p++) {
		ret = ibv_query_port(vctx, (uint8_t)dev->ports[p].num, &pa);
		if (ret)
			return ret > 0 ? -ret : -EIO;	/* it returns the errno value */
		max += (size_t)pa.gid_tbl_len;
		ll[p] = verbs_link_layer(pa.link_layer);
	}
	entries = calloc(max ? max : 1, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	n = ibv_query_gid_table(vctx, entries, max, 0);
	if (n < 0) {
		ret = n < -4095 ? -EIO : (int)n;
		goto err_entries;
	}
	for (p = 0; !ret && p < dev->nports && p < 256; p++)
		if (!only || dev->ports[p].num == only)
			ret = verbs_take_port(&dev->ports[p], ll[p], entries, (size_t)n);
err_entries:
	free(entries);
	return ret;
}

/* @dev through @list (from ibv_get_device_list, @n devices). */
static int verbs_load(struct ibv_device **list, int n, struct rdma_dev *dev, unsigned int only)
{
	struct ibv_context *vctx;
	int i, ret;

	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev->name))
			break;
	if (i == n)
		return -ENODEV;
	vctx = ibv_open_device(list[i]);
	if (!vctx)
		return errno ? -errno : -EIO;
	ret = verbs_query(vctx, dev, only);
	ibv_close_device(vctx);
	return ret;
}

/*
 * Mark the entries of netdevs stacked on the port's own (a VLAN carrying
 * the address): their traffic leaves by the port too.  Entries come
 * grouped by netdev, so one walk of the links serves a run of them.
 */
static void mark_stacked(const struct ctx *ctx, struct rdma_port *port)
{
	const char *last = NULL;
	bool stacked = false;
	size_t i;

	for (i = 0; i < port->n_gids; i++) {
		struct rdma_gid *g = &port->gids[i];

		if (!last || strcmp(last, g->netdev))
			stacked = port->netdev[0] && netdev_stacked_on(ctx, g->netdev, port->netdev);
		last = g->netdev;
		g->stacked = stacked;
	}
}

static void mark_stacked_dev(const struct ctx *ctx, struct rdma_dev *dev, unsigned int only)
{
	unsigned int p;

	for (p = 0; p < dev->nports; p++)
		if (!only || dev->ports[p].num == only)
			mark_stacked(ctx, &dev->ports[p]);
}

/* Verbs first on the live node (@list NULL: get one), sysfs with --root or when verbs fails. */
static int load_table(const struct ctx *ctx, struct ibv_device **list, int nlist,
		struct rdma_dev *dev, unsigned int only)
{
	struct ibv_device **own = NULL;
	unsigned int p;
	int ret;

	if (!dev->ports)
		return 0;
	if (!ctx->root[0]) {
		if (!list)
			list = own = ibv_get_device_list(&nlist);
		ret = list ? verbs_load(list, nlist, dev, only) : errno ? -errno : -ENODEV;
		if (own)
			ibv_free_device_list(own);
		if (!ret)
			return 0;
		log_info(ctx, "Failed to query the GID table of '%s' through verbs: %s; reading sysfs",
			 dev->name, strerror(-ret));
	}
	for (p = 0; p < dev->nports; p++) {
		if (only && dev->ports[p].num != only)
			continue;
		ret = sysfs_load_port(ctx, dev, &dev->ports[p]);
		if (ret)
			return ret;
	}
	return 0;
}

static int load(const struct ctx *ctx, struct ibv_device **list, int nlist,
		struct rdma_dev *dev, unsigned int only)
{
	int ret = load_table(ctx, list, nlist, dev, only);

	if (!ret)
		mark_stacked_dev(ctx, dev, only);
	return ret;
}

int rdma_dev_load_gids(const struct ctx *ctx, struct rdma_dev *dev)
{
	return load(ctx, NULL, 0, dev, 0);
}

int rdma_port_load_gids(const struct ctx *ctx, const struct rdma_dev *dev,
			struct rdma_port *port)
{
	/* load() fills only @port: the device's other ports are left as they are. */
	return load(ctx, NULL, 0, (struct rdma_dev *)dev, port->num);
}

/*
 * ---- every device at once ----
 * Reading a big node is thousands of small opens; devices are independent,
 * so a few threads take them in turn.
 */

struct node_loader {
	const struct ctx *ctx;
	struct ibv_device **list;
	int nlist;
	struct rdma_dev **devs;
	int *rets;
	size_t n, next;
};

static void *node_loader_run(void *arg)
{
	struct node_loader *l = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED)) < l->n)
		l->rets[i] = load(l->ctx, l->list, l->nlist, l->devs[i], 0);
	return NULL;
}

/* The devices to load: all, or the one named @only. */
static size_t node_pick(struct rdma_node *node, const char *only, struct rdma_dev **devs)
{
	size_t d, n = 0;

	for (d = 0; d < node->n; d++)
		if (!only || !strcmp(node->devs[d].name, only))
			devs[n++] = &node->devs[d];
	return n;
}

static void node_loader_spread(struct node_loader *l)
{
	pthread_t tid[GIDS_LOAD_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t t, nt = 0, want = l->n < (size_t)(cpus > 0 ? cpus : 1) ? l->n : (size_t)cpus;

	/* This thread is one of the workers; failing to start others only slows it down. */
	for (t = 1; t < want && t < GIDS_LOAD_THREADS; t++)
		if (!pthread_create(&tid[nt], NULL, node_loader_run, l))
			nt++;
	node_loader_run(l);
	for (t = 0; t < nt; t++)
		pthread_join(tid[t], NULL);
}

int rdma_node_load_gids(const struct ctx *ctx, struct rdma_node *node, const char *only,
			const char **failed)
{
	struct node_loader l = { .ctx = ctx };
	size_t i;
	int ret = 0;

	*failed = NULL;
	l.devs = calloc(node->n + 1, sizeof(*l.devs));
	l.rets = calloc(node->n + 1, sizeof(*l.rets));
	if (!l.devs || !l.rets) {
		ret = -ENOMEM;
		goto err_alloc;
	}
	l.n = node_pick(node, only, l.devs);
	/* One device list for every device, rather than one each. */
	if (!ctx->root[0])
		l.list = ibv_get_device_list(&l.nlist);
	node_loader_spread(&l);
	for (i = 0; i < l.n && !ret; i++) {
		ret = l.rets[i];
		*failed = ret ? l.devs[i]->name : NULL;
	}
	if (l.list)
		ibv_free_device_list(l.list);
err_alloc:
	free(l.rets);
	free(l.devs);
	return ret;
}

/* ---- the choice ---- */

/* The netdev to name in a fix: the port's, else the first an entry names. */
static const char *port_netdev(const struct rdma_port *port)
{
	size_t i;

	if (port->netdev[0])
		return port->netdev;
	for (i = 0; i < port->n_gids; i++)
		if (port->gids[i].netdev[0])
			return port->gids[i].netdev;
	return NULL;
}

static bool port_is_ib(const struct rdma_port *port)
{
	return port->link_layer == LINK_LAYER_INFINIBAND ||
	       (port->n_gids && port->gids[0].type == GID_TYPE_IB);
}

/* What the entries on the way to a choice looked like. */
struct tally {
	unsigned int entries;	/* on the netdev asked for */
	unsigned int addr;	/* with an address of the family, not link-local */
	unsigned int unknown;	/* of those, type unknown */
	unsigned int v1;	/* of those, RoCE v1 */
};

static bool gid_family_ok(const struct rdma_gid *g, bool ipv6)
{
	char v4[INET_ADDRSTRLEN];

	return !gid_is_link_local(g->raw) && gid_ipv4(g->raw, v4, sizeof(v4)) != ipv6;
}

static void explain_found(struct gid_choice *c, bool ipv6)
{
	const struct rdma_gid *g = c->gid;
	char addr[INET6_ADDRSTRLEN], more[64] = "";

	if (ipv6)
		inet_ntop(AF_INET6, g->raw, addr, sizeof(addr));
	else
		gid_ipv4(g->raw, addr, sizeof(addr));
	if (c->candidates > 1)
		snprintf(more, sizeof(more), " (the lowest of %u such indexes)", c->candidates);
	snprintf(c->why, sizeof(c->why), "RoCE v2 with %s %s%s%s, not link-local%s",
		 ipv6 ? "IPv6" : "IPv4", addr, g->netdev[0] ? " on " : "", g->netdev, more);
}

static void explain_missing(struct gid_choice *c, const struct tally *t, bool ipv6,
			    const char *netdev)
{
	const char *fam = ipv6 ? "a global IPv6" : "an IPv4";
	const char *ifn = netdev ? netdev : "IF";

	if (!t->entries) {
		c->problem = GID_NO_ENTRIES;
		if (netdev)
			snprintf(c->why, sizeof(c->why), "no GID is on netdev %s", netdev);
		else
			snprintf(c->why, sizeof(c->why),
				 "the GID table is empty: the port has no netdev, or it is down");
	} else if (!t->addr) {
		c->problem = GID_NO_ADDRESS;
		snprintf(c->why, sizeof(c->why), "%s: netdev %s has no %s address",
			 ipv6 ? "no global IPv6 GID" : "only link-local GIDs" , ifn,
			 ipv6 ? "global IPv6" : "IPv4");
		snprintf(c->fix, sizeof(c->fix), "ip %saddr add ADDR/PREFIX dev %s",
			 ipv6 ? "-6 " : "", ifn);
	} else if (t->unknown) {
		c->problem = GID_TYPES_UNKNOWN;
		snprintf(c->why, sizeof(c->why),
			 "the kernel did not say whether the %u GID(s) with %s address are "
			 "RoCE v2 (reading gid_attrs failed, as in a container)", t->unknown, fam);
		snprintf(c->fix, sizeof(c->fix), "run 'rdmactl gids --recommend' on the host");
	} else {
		c->problem = GID_NO_ROCE_V2;
		snprintf(c->why, sizeof(c->why),
			 "the %u GID(s) with %s address are RoCE v1 only", t->v1, fam);
		snprintf(c->fix, sizeof(c->fix), "enable RoCE v2 in the device's firmware or driver");
	}
}

static bool choose_ib(const struct rdma_port *port, struct gid_choice *c)
{
	if (!port->n_gids) {
		c->problem = GID_NO_ENTRIES;
		snprintf(c->why, sizeof(c->why),
			 "the GID table is empty: is the port up and a subnet manager running?");
		return false;
	}
	c->gid = &port->gids[0];
	c->candidates = 1;
	snprintf(c->why, sizeof(c->why),
		 "InfiniBand: the port GID (subnet prefix and port GUID), which NCCL and UCX use by default");
	return true;
}

bool gid_choose(const struct rdma_port *port, bool ipv6, const char *netdev,
		struct gid_choice *c)
{
	struct tally t = { 0 };
	size_t i;

	memset(c, 0, sizeof(*c));
	if (port_is_ib(port))
		return choose_ib(port, c);
	for (i = 0; i < port->n_gids; i++) {
		const struct rdma_gid *g = &port->gids[i];

		if (netdev && strcmp(g->netdev, netdev) &&
		    !(g->stacked && !strcmp(netdev, port->netdev)))
			continue;
		t.entries++;
		if (!gid_family_ok(g, ipv6))
			continue;
		t.addr++;
		t.unknown += g->type == GID_TYPE_UNKNOWN;
		t.v1 += g->type == GID_TYPE_ROCE_V1;
		if (g->type != GID_TYPE_ROCE_V2)
			continue;
		/* The lowest index: the entry the kernel set up first for the address. */
		if (!c->gid)
			c->gid = g;
		c->candidates++;
	}
	/* An entry not read, below the one found or with none found, may be the one. */
	if (port->gid_unread && (!c->gid || port->gid_unread - 1 <= c->gid->index)) {
		c->gid = NULL;
		c->candidates = 0;
		c->problem = GID_UNREADABLE;
		snprintf(c->why, sizeof(c->why), "cannot read %s, so the GID to use is not known",
			 port->gid_unread_why);
		snprintf(c->fix, sizeof(c->fix), "make the port's gids and gid_attrs readable to "
			 "this user, or run 'rdmactl gids --recommend' as root");
		return false;
	}
	if (c->gid) {
		explain_found(c, ipv6);
		return true;
	}
	explain_missing(c, &t, ipv6, netdev ? netdev : port_netdev(port));
	return false;
}

const struct rdma_gid *gid_recommend(const struct rdma_port *port, bool ipv6, const char **why)
{
	static const char *const missing[][2] = {
		[GID_NO_ENTRIES] = { "the GID table is empty", "the GID table is empty" },
		[GID_NO_ADDRESS] = { "only link-local GIDs: add an IPv4 address to the netdev",
				     "no global IPv6 GID: add an IPv6 address to the netdev" },
		[GID_TYPES_UNKNOWN] = { "the kernel did not report the GID types",
					"the kernel did not report the GID types" },
		[GID_NO_ROCE_V2] = { "the IPv4 GIDs are RoCE v1 only",
				     "the IPv6 GIDs are RoCE v1 only" },
		[GID_UNREADABLE] = { "a GID entry could not be read", "a GID entry could not be read" },
	};
	struct gid_choice c;

	if (gid_choose(port, ipv6, NULL, &c)) {
		if (why)
			*why = port_is_ib(port) ? "InfiniBand: the port GID"
			       : ipv6 ? "RoCE v2 with a global IPv6 address"
				      : "RoCE v2 with an IPv4 address";
		return c.gid;
	}
	if (why)
		*why = missing[c.problem][ipv6];
	return NULL;
}
