// SPDX-License-Identifier: MIT
/* The device/port model (node/rdma*): parsing, formatting, rate and MTU rules,
 * providers, the sysfs backend, netdevs. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/sysfs.h"
#include "node/netdev.h"
#include "node/rdma.h"
#include "node/rdma_load.h"
#include "test.h"

static char fixture[512];

static struct ctx *root_ctx(const char *name)
{
	static struct ctx ctx;
	const char *dir = getenv("FIXTURES");

	snprintf(fixture, sizeof(fixture), "%s/%s", dir ? dir : "tests/fixtures", name);
	memset(&ctx, 0, sizeof(ctx));
	ctx.root = fixture;
	return &ctx;
}

static void rate_matches_kernel_sysfs(void)
{
	char buf[32];
	double g = 0;

	CHECK_INT(ib_rate_str(32, 2, buf, sizeof(buf), &g), 0);	/* EDR x 4X */
	CHECK_STR(buf, "100 Gb/sec (4X EDR)");
	CHECK(g == 100.0);
	CHECK_INT(ib_rate_str(1, 1, buf, sizeof(buf), &g), 0);	/* rxe: SDR x 1X */
	CHECK_STR(buf, "2.5 Gb/sec (1X SDR)");
	CHECK(g == 2.5);
	CHECK_INT(ib_rate_str(64, 16, buf, sizeof(buf), &g), 0);	/* HDR x 2X */
	CHECK_STR(buf, "100 Gb/sec (2X HDR)");
	CHECK_INT(ib_rate_str(8, 2, buf, sizeof(buf), &g), 0);	/* FDR10 x 4X */
	CHECK_STR(buf, "40 Gb/sec (4X FDR10)");
	CHECK_INT(ib_rate_str(16, 8, buf, sizeof(buf), &g), 0);	/* FDR x 12X */
	CHECK_STR(buf, "168 Gb/sec (12X FDR)");
	CHECK_INT(ib_rate_str(32, 3, buf, sizeof(buf), &g), -EINVAL);
}

static void mtu_enum_to_bytes(void)
{
	CHECK_INT(ib_mtu_bytes(1), 256);
	CHECK_INT(ib_mtu_bytes(3), 1024);
	CHECK_INT(ib_mtu_bytes(5), 4096);
	CHECK_INT(ib_mtu_bytes(0), 0);
	CHECK_INT(ib_mtu_bytes(6), 0);
}

static void roce_mtu_follows_kernel_rules(void)
{
	/* iboe_get_mtu(): netdev MTU minus 96 header bytes. */
	CHECK_INT(roce_mtu_for_netdev("mlx5", 1500), 1024);
	CHECK_INT(roce_mtu_for_netdev("mlx5", 9000), 4096);
	CHECK_INT(roce_mtu_for_netdev("mlx5", 4192), 4096);
	CHECK_INT(roce_mtu_for_netdev("mlx5", 4191), 2048);
	CHECK_INT(roce_mtu_for_netdev("mlx5", 300), 0);
	CHECK_INT(roce_netdev_mtu_needed("mlx5", 4096), 4192);
	/* rdma_rxe: RXE_MAX_HDR_LENGTH (80), and 256 as its floor. */
	CHECK_INT(roce_mtu_for_netdev("rxe", 1500), 1024);
	CHECK_INT(roce_mtu_for_netdev("rxe", 4176), 4096);
	CHECK_INT(roce_mtu_for_netdev("rxe", 4175), 2048);
	CHECK_INT(roce_mtu_for_netdev("rxe", 300), 256);
	CHECK_INT(roce_netdev_mtu_needed("rxe", 4096), 4176);
	/* Unknown provider: the generic kernel rule. */
	CHECK_INT(roce_netdev_mtu_needed(NULL, 4096), 4192);
}

static void providers_from_driver(void)
{
	CHECK_STR(provider_from_driver("mlx5_core"), "mlx5");
	/* An SF's RDMA device hangs off its auxiliary device, bound to mlx5_core.sf. */
	CHECK_STR(provider_from_driver("mlx5_core.sf"), "mlx5");
	CHECK_STR(provider_from_driver("bnxt_en"), "bnxt_re");
	CHECK(provider_from_driver("e1000e") == NULL);
	CHECK_STR(provider_from_driver_id(1), "mlx5");
	CHECK_STR(provider_from_driver_id(14), "rxe");
	CHECK_STR(provider_from_driver_id(18), "siw");
	CHECK(provider_from_driver_id(0) == NULL);
	CHECK(provider_from_driver_id(1000) == NULL);
}

/* The fix: a device knows its port count without RDMA_LOAD_PORTS. */
static void sysfs_counts_ports_without_loading(void)
{
	struct rdma_node node;

	CHECK_INT(rdma_node_load(root_ctx("dual-port"), &node, 0), 0);
	CHECK_INT(node.n, 2);
	if (node.n == 2) {
		CHECK_INT(node.devs[0].nports, 1);
		CHECK(node.devs[0].ports == NULL);
		CHECK(rdma_port_find(&node.devs[0], 1) == NULL);
	}
	rdma_node_free(&node);
}

static void sysfs_reads_ib_port(void)
{
	struct rdma_node node;
	struct rdma_port *p;

	CHECK_INT(rdma_node_load(root_ctx("ib-hca"), &node, RDMA_LOAD_GIDS), 0);
	CHECK_INT(node.n, 1);
	if (node.n != 1)
		goto out;
	CHECK_STR(node.devs[0].driver, "mlx5");
	CHECK_STR(node.devs[0].pci, "0000:3b:00.0");
	CHECK_INT(node.devs[0].numa_node, 0);
	p = rdma_port_find(&node.devs[0], 1);
	CHECK(p != NULL);
	if (!p)
		goto out;
	CHECK_INT(p->link_layer, LINK_LAYER_INFINIBAND);
	CHECK_INT(p->lid, 0x11);
	CHECK_INT(p->sm_lid, 0x1);
	CHECK(p->subnet_prefix == 0xfec0000000000011ULL);
	CHECK_INT(p->active_mtu, 0);
	CHECK(!p->mtu_derived);
	/* RDMA_LOAD_GIDS: the GID table came with the ports. */
	CHECK(p->n_gids >= 1);
out:
	rdma_node_free(&node);
}

static void netdev_from_recorded_tree(void)
{
	struct netdev_info nd;
	char ifn[IF_NAMESIZE], src[64];

	CHECK_INT(netdev_get(root_ctx("dual-port"), "ens19f1np1", &nd), 0);
	CHECK_INT(nd.mtu, 1500);
	CHECK_INT(nd.ifindex, 5);
	CHECK(nd.up);
	CHECK_STR(nd.operstate, "up");
	CHECK_INT(nd.n_addrs, 0);
	netdev_info_free(&nd);
	CHECK_INT(netdev_get(root_ctx("soft-roce"), "eth0", &nd), 0);
	CHECK(!nd.up);
	netdev_info_free(&nd);
	CHECK_INT(netdev_get(root_ctx("dual-port"), "nosuch0", &nd), -ENODEV);
	CHECK_INT(netdev_get(root_ctx("dual-port"), "../../etc", &nd), -ENODEV);
	CHECK_INT(netdev_route_to(root_ctx("dual-port"), "10.0.0.1", ifn, sizeof(ifn), src,
				  sizeof(src)), -EOPNOTSUPP);
}

/* The live path against the host's own loopback, checked against its sysfs. */
static void netdev_live_loopback(void)
{
	struct ctx live = { .root = "" };
	struct netdev_info nd;
	char ifn[IF_NAMESIZE], src[64], mtu[32];
	bool v4 = false;
	size_t i;

	CHECK(read_line(&live, "/sys/class/net/lo/mtu", mtu, sizeof(mtu)) > 0);
	CHECK_INT(netdev_get(&live, "lo", &nd), 0);
	CHECK_INT(nd.mtu, atoi(mtu));
	CHECK(nd.up);
	for (i = 0; i < nd.n_addrs; i++)
		v4 |= nd.addrs[i].family == AF_INET && !strcmp(nd.addrs[i].addr, "127.0.0.1") &&
		      nd.addrs[i].prefixlen == 8;
	CHECK(v4);
	CHECK(netdev_has_global_addr(&nd, AF_INET));
	netdev_info_free(&nd);
	CHECK_INT(netdev_route_to(&live, "127.0.0.1", ifn, sizeof(ifn), src, sizeof(src)), 0);
	CHECK_STR(ifn, "lo");
	CHECK_STR(src, "127.0.0.1");
	CHECK_INT(netdev_route_to(&live, "not-an-ip", ifn, sizeof(ifn), src, sizeof(src)), -EINVAL);
	CHECK_INT(netdev_get(&live, "nosuch-if0", &nd), -ENODEV);
}

static void devport_parses_both_separators(void)
{
	char dev[16];
	unsigned int port = 9;

	CHECK_INT(rdma_parse_devport("mlx5_0", dev, sizeof(dev), &port), 0);
	CHECK_STR(dev, "mlx5_0");
	CHECK_INT(port, 0);
	CHECK_INT(rdma_parse_devport("mlx5_0/2", dev, sizeof(dev), &port), 0);
	CHECK_INT(port, 2);
	CHECK_INT(rdma_parse_devport("mlx5_2:1", dev, sizeof(dev), &port), 0);
	CHECK_STR(dev, "mlx5_2");
	CHECK_INT(port, 1);
	CHECK(rdma_parse_devport("/1", dev, sizeof(dev), &port) < 0);
	CHECK(rdma_parse_devport("mlx5_0/", dev, sizeof(dev), &port) < 0);
	CHECK(rdma_parse_devport("mlx5_0/0", dev, sizeof(dev), &port) < 0);
	CHECK(rdma_parse_devport("a_very_long_device_name", dev, sizeof(dev), &port) < 0);
}

static void gid_formatting_matches_show_gids(void)
{
	/* The field notes' index 5: ::ffff:192.168.88.1 */
	const uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xc0, 0xa8, 0x58, 0x01 };
	/* Its first group is 0000 but it is no IPv4 mapping: show_gids would decode it anyway. */
	const uint8_t notv4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xc0, 0xa8, 0x58, 0x01 };
	const uint8_t ll[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x5a, 0xa2, 0xe1, 0xff, 0xfe, 0xb0, 0x37, 0x72 };
	char buf[64];

	CHECK_STR(gid_str(v4, buf, sizeof(buf)), "0000:0000:0000:0000:0000:ffff:c0a8:5801");
	CHECK(gid_ipv4(v4, buf, sizeof(buf)));
	CHECK_STR(buf, "192.168.88.1");
	CHECK(!gid_ipv4(notv4, buf, sizeof(buf)));
	CHECK(gid_is_link_local(ll));
	CHECK(!gid_is_link_local(v4));
	CHECK_STR(guid_str(0x5aa2e1fffeb03772ULL, buf, sizeof(buf)), "5aa2:e1ff:feb0:3772");
}

static void enum_strings_fall_back(void)
{
	CHECK_STR(port_state_str(4), "ACTIVE");
	CHECK_STR(port_state_str(99), "unknown");
	CHECK_STR(phys_state_str(5), "LinkUp");
	CHECK_STR(phys_state_str(-1), "unknown");
	CHECK_STR(gid_type_str(GID_TYPE_ROCE_V2), "v2");
	CHECK_STR(node_type_str(1), "CA");
}

/* Software devices by provider, or by name when the provider is not known. */
static void soft_devices(void)
{
	struct rdma_dev d = { .name = "rxe0", .driver = "rxe" };

	CHECK(rdma_dev_is_soft(&d));
	snprintf(d.name, sizeof(d.name), "siw_eth0");
	d.driver[0] = '\0';
	CHECK(rdma_dev_is_soft(&d));
	snprintf(d.name, sizeof(d.name), "mlx5_0");
	snprintf(d.driver, sizeof(d.driver), "mlx5");
	CHECK(!rdma_dev_is_soft(&d));
}

/* ---- rdma_port_by_route(): the port a connection leaving by a netdev uses ---- */

/* An entry of @port: index @i, RoCE v2 when @v2, IPv4 @v4 (or none), on @nd. */
static void route_gid(struct rdma_port *port, unsigned int i, bool v2, const char *v4,
		      const char *nd, bool stacked)
{
	struct rdma_gid *g = &port->gids[port->n_gids++];

	memset(g, 0, sizeof(*g));
	g->index = i;
	g->type = v2 ? GID_TYPE_ROCE_V2 : GID_TYPE_ROCE_V1;
	if (v4) {
		g->raw[10] = g->raw[11] = 0xff;
		inet_pton(AF_INET, v4, &g->raw[12]);
	} else {
		g->raw[0] = 0xfe;
		g->raw[1] = 0x80;
		g->raw[15] = (uint8_t)i;
	}
	snprintf(g->netdev, sizeof(g->netdev), "%s", nd);
	g->stacked = stacked;
}

static void route_dev(struct rdma_dev *dev, struct rdma_port *port, struct rdma_gid *gids,
		      const char *name, const char *netdev)
{
	memset(dev, 0, sizeof(*dev));
	memset(port, 0, sizeof(*port));
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->nports = 1;
	dev->ports = port;
	port->num = 1;
	port->link_layer = LINK_LAYER_ETHERNET;
	snprintf(port->netdev, sizeof(port->netdev), "%s", netdev);
	port->gids = gids;
	route_gid(port, 0, false, NULL, netdev, false);
}

static void port_by_route_takes_the_carrier(void)
{
	struct rdma_gid g[3][4];
	struct rdma_port p[3];
	struct rdma_dev d[3];
	struct rdma_node node = { d, 2 };
	const struct rdma_dev *dev = NULL;
	const struct rdma_port *got;
	char how[80] = "";

	/*
	 * mlx5's RoCE LAG as netlink names it: the port's netdev a slave,
	 * bond0's entries stacked on it; the control connection from a
	 * management address no GID has.  The route leaves by bond0.
	 */
	route_dev(&d[0], &p[0], g[0], "mlx5_bond_0", "ens19f0np0");
	route_gid(&p[0], 1, true, "192.168.88.1", "bond0", true);
	route_dev(&d[1], &p[1], g[1], "mlx5_10", "ens20f0np0");
	route_gid(&p[1], 1, true, "192.168.90.1", "ens20f0np0", false);
	got = rdma_port_by_route(&node, "bond0", "10.0.0.9", &dev, how, sizeof(how));
	CHECK(got == &p[0] && dev == &d[0]);
	CHECK_STR(how, "the route leaves by bond0, stacked on its netdev ens19f0np0");
	/* A macvlan (or VLAN) on the port's netdev, asked by the route alone (the doctor's peer check). */
	snprintf(p[0].gids[1].netdev, IF_NAMESIZE, "mv0");
	got = rdma_port_by_route(&node, "mv0", NULL, &dev, how, sizeof(how));
	CHECK(got == &p[0] && dev == &d[0]);
	/* The port's own netdev. */
	got = rdma_port_by_route(&node, "ens20f0np0", NULL, &dev, how, sizeof(how));
	CHECK(got == &p[1] && dev == &d[1]);
	CHECK_STR(how, "the route leaves by its netdev ens20f0np0");
	/* No route that says: the port whose RoCE v2 entry has this end's address. */
	got = rdma_port_by_route(&node, NULL, "192.168.90.1", &dev, how, sizeof(how));
	CHECK(got == &p[1]);
	CHECK_STR(how, "its RoCE v2 GID has this end's address 192.168.90.1");
	CHECK(!rdma_port_by_route(&node, "eno1", "10.0.0.9", &dev, how, sizeof(how)));
	CHECK(!rdma_port_by_route(&node, "ens20f0np0.7", NULL, &dev, how, sizeof(how)));

	/*
	 * rxe0 left on eth0 after eth0 was enslaved to bond0, and rxeb over
	 * bond0: the kernel gives rxe0 bond0's addresses too (a hashing bond's
	 * slaves all get them, drivers/infiniband/core/roce_gid_mgmt.c),
	 * listed first.  The
	 * port over bond0 itself is the one: rxe takes a packet arriving on
	 * bond0 to the device over bond0 (rxe_get_dev_from_net()).
	 */
	route_dev(&d[0], &p[0], g[0], "rxe0", "eth0");
	route_gid(&p[0], 1, true, "10.99.0.1", "bond0", true);
	route_dev(&d[1], &p[1], g[1], "rxe1", "eth1");
	route_gid(&p[1], 1, true, "10.99.0.1", "bond0", true);
	route_dev(&d[2], &p[2], g[2], "rxeb", "bond0");
	route_gid(&p[2], 1, true, "10.99.0.1", "bond0", false);
	node.n = 3;
	got = rdma_port_by_route(&node, "bond0", "10.99.0.1", &dev, how, sizeof(how));
	CHECK(got == &p[2] && dev == &d[2]);
	CHECK_STR(how, "the route leaves by its netdev bond0");
}

int main(void)
{
	RUN("rdma", devport_parses_both_separators);
	RUN("rdma", gid_formatting_matches_show_gids);
	RUN("rdma", enum_strings_fall_back);
	RUN("rdma", rate_matches_kernel_sysfs);
	RUN("rdma", mtu_enum_to_bytes);
	RUN("rdma", roce_mtu_follows_kernel_rules);
	RUN("rdma", providers_from_driver);
	RUN("rdma", soft_devices);
	RUN("rdma", sysfs_counts_ports_without_loading);
	RUN("rdma", sysfs_reads_ib_port);
	RUN("rdma", netdev_from_recorded_tree);
	RUN("rdma", netdev_live_loopback);
	RUN("rdma", port_by_route_takes_the_carrier);
	TEST_EXIT();
}
