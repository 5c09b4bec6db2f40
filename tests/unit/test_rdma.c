// SPDX-License-Identifier: MIT
/* The device/port model (node/rdma*): parsing, formatting, rate and MTU rules,
 * providers, the sysfs backend, netdevs. */
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
	TEST_EXIT();
}
