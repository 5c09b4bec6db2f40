// SPDX-License-Identifier: MIT
/*
 * rdmactl ports [DEV[/PORT]]: each port's state, rate and MTUs, the
 * netdev behind it, and whether that netdev's MTU lets RoCE use 4096.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "cmds.h"
#include "doctor/port_rules.h"
#include "node/gids.h"
#include "node/netdev.h"
#include "node/rdma.h"
#include "node/rdma_load.h"

/* The netdev MTU the fix suggests: what the field notes used, far above 4096 + headers. */
#define FIX_NETDEV_MTU 9000

const struct opt ports_opts[] = {
	{ 0 }
};

static enum color state_color(const char *text)
{
	return !strcmp(text, "ACTIVE") || !strcmp(text, "LinkUp") ? COLOR_GREEN : COLOR_RED;
}

/*
 * An address cell: the list (empty: "-", none), or "unknown" where the
 * port has a netdev whose addresses could not be read (a recorded tree's
 * IPv6, an IB port's IPoIB addresses, a GID table not read).
 */
static const char *addr_text(struct json_object *row, const char *key, char *buf, size_t len)
{
	struct json_object *v;

	if (json_object_object_get_ex(row, key, &v) && v)
		return cell_text(row, key, buf, len);
	return json_object_object_get_ex(row, "netdev", &v) && v ? "unknown" : "-";
}

static const char *ipv4_text(struct json_object *row, char *buf, size_t len)
{
	return addr_text(row, "ipv4", buf, len);
}

static const char *ipv6_text(struct json_object *row, char *buf, size_t len)
{
	return addr_text(row, "ipv6", buf, len);
}

static enum color verdict_color(const char *text)
{
	return !strcmp(text, "ok") ? COLOR_GREEN : !strcmp(text, "low") ? COLOR_RED : COLOR_NONE;
}

static const struct column ports_cols[] = {
	{ "device", NULL, 0, NULL },
	{ "port", NULL, COL_RIGHT, NULL },
	{ "state", NULL, 0, state_color },
	{ "phys_state", "PHYS", 0, state_color },
	{ "link_layer", "LINK", 0, NULL },
	{ "rate_gbps", "RATE", COL_RIGHT, NULL },
	{ "rate", "RATE_DETAIL", COL_WIDE, NULL },
	{ "active_mtu", "MTU", COL_RIGHT, NULL },
	{ "max_mtu", NULL, COL_RIGHT, NULL },
	{ "lid", NULL, 0, NULL },
	{ "sm_lid", NULL, 0, NULL },
	{ "subnet_prefix", NULL, COL_WIDE, NULL },
	{ "netdev", NULL, 0, NULL },
	{ "netdev_mtu", NULL, COL_RIGHT, NULL },
	{ "operstate", "OPER", 0, NULL },
	{ "ipv4", NULL, 0, NULL, ipv4_text },
	{ "ipv6", NULL, COL_WIDE, NULL, ipv6_text },
	{ "mtu_derived", NULL, COL_NOTEXT, NULL },
	{ "mtu_allowed", NULL, COL_WIDE | COL_RIGHT, NULL },
	{ "netdev_mtu_needed", NULL, COL_NOTEXT, NULL },
	{ "mtu_verdict", "VERDICT", 0, verdict_color },
	{ "mtu_fix", NULL, COL_NOTEXT, NULL },
	{ "carrier", NULL, COL_WIDE, NULL },
	{ "bond", NULL, COL_WIDE, NULL },
	{ 0 }
};

/* What the netdev's MTU means for the port's RDMA MTU. */
struct verdict {
	int allowed;	/* the largest RDMA MTU the netdev MTU allows */
	int target;	/* what the port could have: 4096, or its max MTU */
	int needed;	/* the netdev MTU that gives target */
	bool low;
};

static bool judge_mtu(const struct rdma_dev *dev, const struct rdma_port *port,
		      const struct netdev_info *nd, struct verdict *v)
{
	/* InfiniBand MTUs do not depend on a netdev. */
	if (port->link_layer != LINK_LAYER_ETHERNET || !nd || nd->mtu <= 0)
		return false;
	v->target = port->max_mtu > 0 && port->max_mtu < 4096 ? port->max_mtu : 4096;
	v->allowed = roce_mtu_for_netdev(dev->driver, nd->mtu);
	if (v->allowed > v->target)
		v->allowed = v->target;
	v->needed = roce_netdev_mtu_needed(dev->driver, v->target);
	v->low = v->allowed < v->target || (port->active_mtu && port->active_mtu < v->target);
	return true;
}

/* The netdev's addresses of @family as "addr/len". */
static void row_addrs(struct json_object *row, const char *key, const struct netdev_info *nd,
		      int family)
{
	char one[INET6_ADDRSTRLEN + 8];
	size_t i;

	row_list(row, key);
	for (i = 0; i < nd->n_addrs; i++) {
		if (nd->addrs[i].family != family)
			continue;
		snprintf(one, sizeof(one), "%s/%d", nd->addrs[i].addr, nd->addrs[i].prefixlen);
		row_list_add(row, key, one);
	}
}

/* The addresses of @family of the netdev @name, appended to @key's list. */
static void add_addrs_of(const struct ctx *ctx, struct json_object *row, const char *key,
			 const char *name, int family)
{
	char one[INET6_ADDRSTRLEN + 8];
	struct netdev_info info;
	size_t i;

	if (netdev_get(ctx, name, &info))
		return;
	for (i = 0; i < info.n_addrs; i++)
		if (info.addrs[i].family == family) {
			snprintf(one, sizeof(one), "%s/%d", info.addrs[i].addr,
				 info.addrs[i].prefixlen);
			row_list_add(row, key, one);
		}
	netdev_info_free(&info);
}

/* Whether an entry of @port before @k is on the netdev @name. */
static bool netdev_seen_before(const struct rdma_port *port, size_t k, const char *name)
{
	size_t j;

	for (j = 0; j < k; j++)
		if (!strcmp(port->gids[j].netdev, name))
			return true;
	return false;
}

/*
 * The addresses of the netdevs stacked on a RoCE port's (a VLAN) that have
 * GIDs on it: the port's traffic leaves with them (rdmactl-doctor(8),
 * roce.ipv4), though its own netdev may have none.  Each netdev once.
 * @gids: the port's GID table was read.
 */
static void row_stacked_addrs(const struct ctx *ctx, struct json_object *row, const char *key,
			      const struct rdma_port *port, bool gids, int family)
{
	size_t k;

	if (!gids)
		return;
	for (k = 0; k < port->n_gids; k++)
		if (port->gids[k].stacked && !netdev_seen_before(port, k, port->gids[k].netdev))
			add_addrs_of(ctx, row, key, port->gids[k].netdev, family);
}

/*
 * A recorded tree has no netlink: the IPv4 addresses of a RoCE port are
 * those of its GID table (IPv4-mapped GIDs), read as the doctor's
 * roce.ipv4 reads them; null (unknown) where the table, or an entry of
 * it with none found before, could not be read, and for an IB port.
 */
/* Whether a GID of @port before entry @k maps the IPv4 address @v4. */
static bool seen_before(const struct rdma_port *port, size_t k, const char *v4)
{
	char other[INET_ADDRSTRLEN];
	size_t j;

	for (j = 0; j < k; j++)
		if (gid_ipv4(port->gids[j].raw, other, sizeof(other)) && !strcmp(other, v4))
			return true;
	return false;
}

static void row_gid_ipv4(struct json_object *row, const struct rdma_port *port, bool gids)
{
	char v4[INET_ADDRSTRLEN];
	size_t k, n = 0;

	if (!gids) {
		row_str(row, "ipv4", NULL);
		return;
	}
	row_list(row, "ipv4");
	/* Each address once: RoCE v1 and v2 entries of one address are two GIDs. */
	for (k = 0; k < port->n_gids; k++)
		if (gid_ipv4(port->gids[k].raw, v4, sizeof(v4)) && !seen_before(port, k, v4)) {
			row_list_add(row, "ipv4", v4);
			n++;
		}
	if (!n && port->gid_unread)
		row_str(row, "ipv4", NULL);
}

static void row_netdev(const struct ctx *ctx, struct json_object *row,
		       const struct rdma_port *port, const struct netdev_info *nd, bool gids)
{
	if (!nd) {
		row_nulls(row, "netdev_mtu", "operstate", "ipv4", "ipv6", NULL);
		return;
	}
	row_int(row, "netdev_mtu", nd->mtu);
	row_str(row, "operstate", nd->operstate);
	/* A recorded tree (--root) has no addresses: IPv4 from the GIDs, IPv6 unknown, not none. */
	if (ctx->root[0]) {
		row_gid_ipv4(row, port, gids);
		row_str(row, "ipv6", NULL);
		return;
	}
	row_addrs(row, "ipv4", nd, AF_INET);
	row_stacked_addrs(ctx, row, "ipv4", port, gids, AF_INET);
	row_addrs(row, "ipv6", nd, AF_INET6);
}

/*
 * The bond a RoCE port's traffic leaves by, in the doctor's words
 * (netdev_bond_say()): its carrier (mlx5's RoCE LAG), else its own netdev
 * (rxe over bond0); null when none is a bond.
 */
static void row_bond(const struct ctx *ctx, struct json_object *row, const struct rdma_port *port,
		     const char *carrier)
{
	char say[64 + NETDEV_BOND_SLAVES * (IF_NAMESIZE + 8)];
	const char *ifname = carrier[0] ? carrier : port->netdev;
	struct netdev_bond b;

	if (port->link_layer != LINK_LAYER_ETHERNET || netdev_bond_get(ctx, ifname, &b))
		row_str(row, "bond", NULL);
	else
		row_str(row, "bond", netdev_bond_say(ifname, &b, say, sizeof(say)));
}

static void row_mtu(struct json_object *row, const char *key, int mtu)
{
	if (mtu > 0)
		row_int(row, key, mtu);
	else
		row_str(row, key, NULL);
}

static void row_ib(struct json_object *row, const struct rdma_port *port)
{
	char buf[32];

	if (port->link_layer != LINK_LAYER_INFINIBAND) {
		row_nulls(row, "lid", "sm_lid", "subnet_prefix", NULL);
		return;
	}
	/* As ibstat and sysfs write them. */
	row_fmt(row, "lid", "0x%x", port->lid);
	row_fmt(row, "sm_lid", "0x%x", port->sm_lid);
	row_str(row, "subnet_prefix", guid_str(port->subnet_prefix, buf, sizeof(buf)));
}

static void row_verdict(struct json_object *row, const struct netdev_info *nd,
			const struct verdict *v, bool judged)
{
	if (!judged) {
		row_nulls(row, "mtu_allowed", "netdev_mtu_needed", "mtu_verdict", "mtu_fix", NULL);
		return;
	}
	row_int(row, "mtu_allowed", v->allowed);
	row_int(row, "netdev_mtu_needed", v->needed);
	row_str(row, "mtu_verdict", v->low ? "low" : "ok");
	if (v->low && nd->mtu < FIX_NETDEV_MTU)
		row_fmt(row, "mtu_fix", "ip link set %s mtu %d", nd->name, FIX_NETDEV_MTU);
	else
		row_str(row, "mtu_fix", NULL);
}

struct shown {
	const struct rdma_dev *dev;
	struct rdma_port *port;
	struct verdict v;
	struct netdev_info nd;		/* the port's netdev */
	struct netdev_info cnd;		/* its carrier, when it has one */
	/* The netdev stacked on a RoCE port's that carries its traffic, as the doctor judges it. */
	char carrier[IF_NAMESIZE];
	bool have_nd, have_cnd, judged;
	bool gids;			/* its GID table was read (a RoCE port) */
};

/* The netdev the MTU verdict is on: the carrier when there is one; NULL when unread. */
static const struct netdev_info *mtu_netdev(const struct shown *s)
{
	if (s->carrier[0])
		return s->have_cnd ? &s->cnd : NULL;
	return s->have_nd ? &s->nd : NULL;
}

/*
 * One port's row: its own netdev, the netdev its MTU verdict was judged on
 * (its carrier's when it has one), its carrier.
 */
static void port_row(const struct ctx *ctx, struct table *t, const struct shown *s)
{
	const struct rdma_dev *dev = s->dev;
	const struct rdma_port *port = s->port;
	struct json_object *row = table_row(t);

	row_str(row, "device", dev->name);
	row_int(row, "port", port->num);
	row_str(row, "state", port_state_str(port->state));
	row_str(row, "phys_state", phys_state_str(port->phys_state));
	row_str(row, "link_layer", link_layer_str(port->link_layer));
	if (port->rate[0]) {
		row_double(row, "rate_gbps", port->rate_gbps, port->rate_gbps == (int)port->rate_gbps ? 0 : 1);
		row_str(row, "rate", port->rate);
	} else {
		row_nulls(row, "rate_gbps", "rate", NULL);
	}
	row_mtu(row, "active_mtu", port->active_mtu);
	row_mtu(row, "max_mtu", port->max_mtu);
	row_bool(row, "mtu_derived", port->mtu_derived);
	row_ib(row, port);
	row_str(row, "netdev", port->netdev[0] ? port->netdev : NULL);
	row_netdev(ctx, row, port, s->have_nd ? &s->nd : NULL, s->gids);
	row_verdict(row, mtu_netdev(s), &s->v, s->judged);
	row_str(row, "carrier", s->carrier[0] ? s->carrier : NULL);
	row_bond(ctx, row, port, s->carrier);
}

/* The text line under the table for a port whose netdev MTU holds RDMA back. */
static void print_fix(struct ctx *ctx, const struct rdma_dev *dev, const struct rdma_port *port,
		      const struct netdev_info *nd, const struct verdict *v)
{
	print_text(ctx, "%s/%u: netdev %s MTU %d allows RDMA MTU %d (active %d); %d needs "
		   "MTU >= %d.\n", dev->name, port->num, nd->name, nd->mtu, v->allowed,
		   port->active_mtu, v->target, v->needed);
	if (nd->mtu < FIX_NETDEV_MTU)
		print_text(ctx, "  Fix: ip link set %s mtu %d (to keep it: nmcli con mod CONN "
			   "802-3-ethernet.mtu %d)\n", nd->name, FIX_NETDEV_MTU, FIX_NETDEV_MTU);
}

static void show_port(struct ctx *ctx, struct table *t, const struct rdma_dev *dev,
		      struct rdma_port *port, struct shown *s)
{
	const struct rdma_gid *g;
	int ret;

	memset(s, 0, sizeof(*s));
	s->dev = dev;
	s->port = port;
	if (port->netdev[0]) {
		ret = netdev_get(ctx, port->netdev, &s->nd);
		if (ret)
			log_warn(ctx, "Failed to read netdev '%s' of %s/%u: %s", port->netdev,
				 dev->name, port->num, strerror(-ret));
		s->have_nd = !ret;
	}
	/* Loaded into the device's own port (gids.h), freed with the node; read once for the row. */
	s->gids = port->link_layer == LINK_LAYER_ETHERNET && !rdma_port_load_gids(ctx, dev, port);
	g = s->gids ? doctor_gid_carrier(port) : NULL;
	if (g) {
		snprintf(s->carrier, sizeof(s->carrier), "%s", g->netdev);
		ret = netdev_get(ctx, s->carrier, &s->cnd);
		if (ret)
			log_warn(ctx, "Failed to read netdev '%s' that %s/%u's traffic leaves by: %s",
				 s->carrier, dev->name, port->num, strerror(-ret));
		s->have_cnd = !ret;
	}
	s->judged = judge_mtu(dev, port, mtu_netdev(s), &s->v);
	port_row(ctx, t, s);
}

/* Check DEV[/PORT] against what exists; names what does on a miss.  0 or RC_USAGE. */
static int check_target(const struct ctx *ctx, const struct rdma_node *node, const char *arg,
			char *dev, size_t devlen, unsigned int *port)
{
	const struct rdma_dev *d;
	char names[256];
	size_t off = 0;
	unsigned int i;

	if (rdma_parse_devport(arg, dev, devlen, port)) {
		log_err(ctx, "Failed to parse port '%s': use DEV or DEV/PORT (mlx5_0/1)", arg);
		return RC_USAGE;
	}
	d = rdma_dev_find(node, dev);
	if (!d) {
		log_err(ctx, "Unknown device '%s'. Devices: %s", dev,
			rdma_dev_names(node, names, sizeof(names)));
		return RC_USAGE;
	}
	if (!*port || rdma_port_find(d, *port))
		return 0;
	names[0] = '\0';
	for (i = 0; i < d->nports && off < sizeof(names); i++)
		off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s/%u", i ? ", " : "",
					d->name, d->ports[i].num);
	log_err(ctx, "Unknown port '%s'. Ports of %s: %s", arg, d->name, names);
	return RC_USAGE;
}

static void show_node(struct rdma_node *node, const char *dev,
		      unsigned int port, struct shown *shown, size_t *n)
{
	size_t d;
	unsigned int p;

	for (d = 0; d < node->n; d++) {
		struct rdma_dev *rd = &node->devs[d];

		if (dev[0] && strcmp(dev, rd->name))
			continue;
		for (p = 0; rd->ports && p < rd->nports; p++)
			if (!port || rd->ports[p].num == port)
				shown[(*n)++] = (struct shown){ .dev = rd, .port = &rd->ports[p] };
	}
}

static int count_ports(const struct rdma_node *node)
{
	size_t d, n = 0;

	for (d = 0; d < node->n; d++)
		n += node->devs[d].ports ? node->devs[d].nports : 0;
	return (int)n;
}

static int emit(struct ctx *ctx, struct rdma_node *node, const char *dev, unsigned int port)
{
	struct shown *shown;
	struct table *t;
	size_t i, n = 0;

	shown = calloc((size_t)count_ports(node) + 1, sizeof(*shown));
	t = table_new(ports_cols);
	if (!shown || !t) {
		free(shown);
		table_free(t);
		return RC_PROBLEM;
	}
	show_node(node, dev, port, shown, &n);
	for (i = 0; i < n; i++)
		show_port(ctx, t, shown[i].dev, shown[i].port, &shown[i]);
	table_emit(ctx, t, "ports");
	for (i = 0; i < n; i++) {
		if (shown[i].judged && shown[i].v.low)
			print_fix(ctx, shown[i].dev, shown[i].port, mtu_netdev(&shown[i]), &shown[i].v);
		netdev_info_free(&shown[i].nd);
		netdev_info_free(&shown[i].cnd);
	}
	free(shown);
	return RC_OK;
}

int cmd_ports(struct ctx *ctx, int argc, char **argv)
{
	char dev[64] = "";
	struct rdma_node node;
	struct optparser p;
	unsigned int port = 0;
	int c, ret, rc;

	if (opt_init(&p, ctx, command_find("ports"), argc, argv))
		return RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END)
		return c == OPT_HELP ? RC_OK : RC_USAGE;
	if (opt_check_args(&p))
		return RC_USAGE;
	ret = rdma_node_load(ctx, &node, RDMA_LOAD_PORTS);
	if (ret) {
		log_err_errno(ctx, ret, "Failed to read RDMA ports: %s", strerror(-ret));
		return RC_PROBLEM;
	}
	if (!node.n) {
		log_err(ctx, "%s", rdma_no_devices_msg);
		rc = RC_PROBLEM;
		goto out;
	}
	rc = p.optind < argc ? check_target(ctx, &node, argv[p.optind], dev, sizeof(dev), &port) : 0;
	if (!rc)
		rc = emit(ctx, &node, dev, port);
out:
	rdma_node_free(&node);
	return rc;
}
