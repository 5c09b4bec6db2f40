// SPDX-License-Identifier: MIT
/* The model's helpers: lookup, parsing, formatting (what every reader of it shares). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "node/rdma.h"

void rdma_node_free(struct rdma_node *node)
{
	size_t d, p;

	for (d = 0; d < node->n; d++) {
		for (p = 0; node->devs[d].ports && p < node->devs[d].nports; p++)
			free(node->devs[d].ports[p].gids);
		free(node->devs[d].ports);
	}
	free(node->devs);
	node->devs = NULL;
	node->n = 0;
}

struct rdma_dev *rdma_dev_find(const struct rdma_node *node, const char *name)
{
	size_t i;

	for (i = 0; i < node->n; i++)
		if (!strcmp(node->devs[i].name, name))
			return &node->devs[i];
	return NULL;
}

char *rdma_dev_names(const struct rdma_node *node, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < node->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					node->devs[i].name);
	return buf;
}

struct rdma_port *rdma_port_find(const struct rdma_dev *dev, unsigned int num)
{
	unsigned int i;

	for (i = 0; dev->ports && i < dev->nports; i++)
		if (dev->ports[i].num == num)
			return &dev->ports[i];
	return NULL;
}

const struct rdma_port *rdma_port_by_netdev(const struct rdma_node *node, const char *netdev,
					    const struct rdma_dev **dev)
{
	size_t i;
	unsigned int j;

	for (i = 0; netdev[0] && i < node->n; i++)
		for (j = 0; node->devs[i].ports && j < node->devs[i].nports; j++)
			if (!strcmp(node->devs[i].ports[j].netdev, netdev)) {
				if (dev)
					*dev = &node->devs[i];
				return &node->devs[i].ports[j];
			}
	return NULL;
}

/* Whether @p has a RoCE v2 GID carrying the IPv4 address @ip. */
static bool port_has_v2_ip(const struct rdma_port *p, const char *ip)
{
	char v4[INET_ADDRSTRLEN];
	size_t i;

	for (i = 0; ip && i < p->n_gids; i++)
		if (p->gids[i].type == GID_TYPE_ROCE_V2 && gid_ipv4(p->gids[i].raw, v4, sizeof(v4)) &&
		    !strcmp(v4, ip))
			return true;
	return false;
}

/* Whether @p has entries of the netdev @ifname stacked on its own (gids.c's mark_stacked()). */
static bool port_carries(const struct rdma_port *p, const char *ifname)
{
	size_t i;

	for (i = 0; i < p->n_gids; i++)
		if (p->gids[i].stacked && !strcmp(p->gids[i].netdev, ifname))
			return true;
	return false;
}

/* The ways a port is found, in the order they are tried. */
enum route_way { ROUTE_OWN_NETDEV, ROUTE_STACKED, ROUTE_LOCAL_ADDR };

static bool route_way_fits(const struct rdma_port *p, enum route_way way, const char *ifname,
			   const char *local)
{
	switch (way) {
	case ROUTE_OWN_NETDEV:
		return ifname && !strcmp(p->netdev, ifname);
	case ROUTE_STACKED:
		return ifname && port_carries(p, ifname);
	default:
		return port_has_v2_ip(p, local);
	}
}

static void route_way_say(const struct rdma_port *p, enum route_way way, const char *ifname,
			  const char *local, char *how, size_t len)
{
	if (way == ROUTE_OWN_NETDEV)
		snprintf(how, len, "the route leaves by its netdev %s", ifname);
	else if (way == ROUTE_STACKED)
		snprintf(how, len, "the route leaves by %s, stacked on its netdev %s", ifname,
			 p->netdev);
	else
		snprintf(how, len, "its RoCE v2 GID has this end's address %s", local);
}

/*
 * Each way in turn over every port: a port whose own netdev the route
 * leaves by is taken before one that merely has the route's netdev stacked
 * on its own (rxe left on a bond's slave is given the bond's addresses
 * too), and either before a port found by this end's address alone.
 */
const struct rdma_port *rdma_port_by_route(const struct rdma_node *node, const char *ifname,
					   const char *local, const struct rdma_dev **dev,
					   char *how, size_t len)
{
	enum route_way way;
	size_t i;
	unsigned int j;

	if (ifname && !ifname[0])
		ifname = NULL;
	for (way = ROUTE_OWN_NETDEV; way <= ROUTE_LOCAL_ADDR; way++)
		for (i = 0; i < node->n; i++)
			for (j = 0; node->devs[i].ports && j < node->devs[i].nports; j++) {
				const struct rdma_port *p = &node->devs[i].ports[j];

				if (!route_way_fits(p, way, ifname, local))
					continue;
				if (dev)
					*dev = &node->devs[i];
				if (how)
					route_way_say(p, way, ifname, local, how, len);
				return p;
			}
	return NULL;
}

int rdma_parse_devport(const char *s, char *dev, size_t devlen, unsigned int *port)
{
	size_t n = strcspn(s, "/:");
	long v = 0;

	if (n == 0 || n >= devlen)
		return -EINVAL;
	memcpy(dev, s, n);
	dev[n] = '\0';
	*port = 0;
	if (!s[n])
		return 0;
	if (parse_long(s + n + 1, 1, 255, &v))
		return -EINVAL;
	*port = (unsigned int)v;
	return 0;
}

char *guid_str(uint64_t guid, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%04x:%04x:%04x", (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff, (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
	return buf;
}

char *gid_str(const uint8_t raw[16], char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char *o = buf;
	int i;

	/* No printf: a big table formats thousands of these. */
	if (len < GID_STR_LEN) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	for (i = 0; i < 16; i++) {
		*o++ = hex[raw[i] >> 4];
		*o++ = hex[raw[i] & 15];
		if (i & 1 && i < 15)
			*o++ = ':';
	}
	*o = '\0';
	return buf;
}

bool gid_ipv4(const uint8_t raw[16], char *buf, size_t len)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	/* Only a true IPv4-mapped address (::ffff:a.b.c.d) carries an IPv4 address. */
	if (memcmp(raw, prefix, sizeof(prefix)))
		return false;
	return inet_ntop(AF_INET, raw + 12, buf, (socklen_t)len) != NULL;
}

bool gid_is_empty(const uint8_t raw[16])
{
	static const uint8_t zero[16];

	return !memcmp(raw, zero, 16);
}

bool gid_is_link_local(const uint8_t raw[16])
{
	/* fe80::/10 */
	return raw[0] == 0xfe && (raw[1] & 0xc0) == 0x80;
}

const char *gid_type_str(enum gid_type t)
{
	switch (t) {
	case GID_TYPE_IB:
		return "IB";
	case GID_TYPE_ROCE_V1:
		return "v1";
	case GID_TYPE_ROCE_V2:
		return "v2";
	default:
		return "unknown";
	}
}

const char *link_layer_str(enum link_layer l)
{
	switch (l) {
	case LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case LINK_LAYER_ETHERNET:
		return "Ethernet";
	default:
		return "unknown";
	}
}

const char *port_state_str(int state)
{
	static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };

	return state >= 0 && state < (int)(sizeof(names) / sizeof(names[0])) ? names[state] : "unknown";
}

const char *phys_state_str(int phys)
{
	static const char *const names[] = { "NOP", "Sleep", "Polling", "Disabled",
		"PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "PhyTest" };

	return phys >= 0 && phys < (int)(sizeof(names) / sizeof(names[0])) ? names[phys] : "unknown";
}

const char *node_type_str(int type)
{
	/* enum ibv_node_type: 1 CA, 2 switch, 3 router, 4 RNIC, 5 usNIC, 6 usNIC UDP, 7 unspecified */
	static const char *const names[] = { "unknown", "CA", "switch", "router", "RNIC",
		"usNIC", "usNIC_UDP", "unspecified" };

	return type >= 0 && type < (int)(sizeof(names) / sizeof(names[0])) ? names[type] : "unknown";
}

int ib_mtu_bytes(int mtu_enum)
{
	return mtu_enum >= 1 && mtu_enum <= 5 ? 128 << mtu_enum : 0;
}

/* enum ibv_port_width bits -> lanes: 1 = 1X, 2 = 4X, 4 = 8X, 8 = 12X, 16 = 2X */
static int width_lanes(unsigned int width)
{
	switch (width) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

int ib_rate_str(unsigned int speed, unsigned int width, char *buf, size_t len, double *gbps)
{
	/* Per-lane rate in 0.1 Gb/s, the kernel's rate_show() table. */
	static const struct {
		unsigned int speed;
		int tenths;
		const char *name;
	} speeds[] = {
		{ 1, 25, " SDR" }, { 2, 50, " DDR" }, { 4, 100, " QDR" }, { 8, 100, " FDR10" },
		{ 16, 140, " FDR" }, { 32, 250, " EDR" }, { 64, 500, " HDR" },
		{ 128, 1000, " NDR" }, { 256, 2000, " XDR" },
	};
	/* Unknown speeds count as SDR, as the kernel does. */
	int lanes = width_lanes(width), tenths = 25;
	const char *name = " SDR";
	size_t i;

	if (!lanes)
		return -EINVAL;
	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].speed == speed) {
			tenths = speeds[i].tenths;
			name = speeds[i].name;
		}
	tenths *= lanes;
	snprintf(buf, len, "%d%s Gb/sec (%dX%s)", tenths / 10, tenths % 10 ? ".5" : "", lanes, name);
	*gbps = tenths / 10.0;
	return 0;
}

/*
 * Header bytes a RoCE packet spends below the RDMA MTU.  rdma_rxe keeps
 * RXE_MAX_HDR_LENGTH (80) free; the other drivers use the kernel's
 * iboe_get_mtu(): GRH 40 + UDP 8 + BTH 12 + XRC ext 4 + AtomicETH 28 +
 * ICRC 4 = 96 (kernels before 5.17 counted 80).
 */
static int roce_overhead(const char *provider)
{
	return provider && !strcmp(provider, "rxe") ? 80 : 96;
}

int roce_mtu_for_netdev(const char *provider, int netdev_mtu)
{
	int room = netdev_mtu - roce_overhead(provider);
	int mtu;

	for (mtu = 4096; mtu >= 256; mtu /= 2)
		if (room >= mtu)
			return mtu;
	/* rdma_rxe falls back to 256 rather than no MTU at all. */
	return provider && !strcmp(provider, "rxe") ? 256 : 0;
}

int roce_netdev_mtu_needed(const char *provider, int rdma_mtu)
{
	return rdma_mtu + roce_overhead(provider);
}

const char *provider_from_driver(const char *kdriver)
{
	/* PCI (and auxiliary) drivers whose RDMA provider has another name. */
	static const char *const map[][2] = {
		{ "mlx5_core", "mlx5" }, { "mlx5_core.sf", "mlx5" }, { "mlx4_core", "mlx4" }, { "bnxt_en", "bnxt_re" },
		{ "ice", "irdma" }, { "i40e", "irdma" }, { "qede", "qedr" }, { "hns3", "hns" },
		{ "ib_mthca", "mthca" }, { "ib_qib", "qib" }, { "cxgb4", "cxgb4" },
		{ "efa", "efa" }, { "erdma", "erdma" }, { "hfi1", "hfi1" },
		{ "vmw_pvrdma", "vmw_pvrdma" }, { "mana", "mana" }, { "ionic", "ionic" },
	};
	size_t i;

	for (i = 0; kdriver && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(kdriver, map[i][0]))
			return map[i][1];
	return NULL;
}

bool rdma_dev_is_soft(const struct rdma_dev *dev)
{
	return !strcmp(dev->driver, "rxe") || !strcmp(dev->driver, "siw") ||
	       !strncmp(dev->name, "rxe", 3) || !strncmp(dev->name, "siw", 3);
}

const char *provider_from_driver_id(unsigned int id)
{
	/* enum rdma_driver_id of <rdma/ib_user_ioctl_verbs.h>, in order. */
	static const char *const names[] = {
		NULL, "mlx5", "mlx4", "cxgb3", "cxgb4", "mthca", "bnxt_re", "ocrdma", "nes",
		"irdma", "vmw_pvrdma", "qedr", "hns", "usnic", "rxe", "hfi1", "qib", "efa",
		"siw", "erdma", "mana",
	};

	return id < sizeof(names) / sizeof(names[0]) ? names[id] : NULL;
}
