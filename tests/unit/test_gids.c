// SPDX-License-Identifier: MIT
/* GID tables: parsing, the sysfs reader on recorded and broken trees, the choice. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ctx.h"
#include "node/gids.h"
#include "node/rdma.h"
#include "test.h"

static const char *fixtures(void)
{
	const char *f = getenv("FIXTURES");

	return f ? f : "tests/fixtures";
}

/* A GID from its text, or a failed check. */
static void gid_set(struct rdma_gid *g, unsigned int index, const char *text,
		    enum gid_type type, const char *netdev)
{
	memset(g, 0, sizeof(*g));
	g->index = index;
	CHECK_INT(gid_parse(text, g->raw), 0);
	g->type = type;
	snprintf(g->netdev, sizeof(g->netdev), "%s", netdev);
}

/* The field notes' table (FIELD-NOTES.md, item 3). */
static void field_notes_port(struct rdma_port *port, struct rdma_gid gids[6])
{
	static const char *const text[] = {
		"fe80:0000:0000:0000:5aa2:e1ff:feb0:3772", "fe80:0000:0000:0000:5aa2:e1ff:feb0:3772",
		"fe80:0000:0000:0000:a789:516a:e270:5b33", "fe80:0000:0000:0000:a789:516a:e270:5b33",
		"0000:0000:0000:0000:0000:ffff:c0a8:5801", "0000:0000:0000:0000:0000:ffff:c0a8:5801",
	};
	unsigned int i;

	memset(port, 0, sizeof(*port));
	port->num = 1;
	port->link_layer = LINK_LAYER_ETHERNET;
	snprintf(port->netdev, sizeof(port->netdev), "ens19f0np0");
	for (i = 0; i < 6; i++)
		gid_set(&gids[i], i, text[i], i % 2 ? GID_TYPE_ROCE_V2 : GID_TYPE_ROCE_V1,
			"ens19f0np0");
	port->gids = gids;
	port->n_gids = 6;
}

static void type_strings_parse(void)
{
	CHECK_INT(gid_type_parse("RoCE v2", LINK_LAYER_ETHERNET), GID_TYPE_ROCE_V2);
	CHECK_INT(gid_type_parse("IB/RoCE v1", LINK_LAYER_ETHERNET), GID_TYPE_ROCE_V1);
	CHECK_INT(gid_type_parse("IB/RoCE v1", LINK_LAYER_UNKNOWN), GID_TYPE_ROCE_V1);
	CHECK_INT(gid_type_parse("IB/RoCE v1", LINK_LAYER_INFINIBAND), GID_TYPE_IB);
	CHECK_INT(gid_type_parse("", LINK_LAYER_ETHERNET), GID_TYPE_UNKNOWN);
	CHECK_INT(gid_type_parse("RoCE v3", LINK_LAYER_ETHERNET), GID_TYPE_UNKNOWN);
	CHECK_STR(gid_type_str(GID_TYPE_UNKNOWN), "unknown");
}

static void gid_text_parses(void)
{
	uint8_t raw[16];
	char buf[GID_STR_LEN];

	CHECK_INT(gid_parse("0000:0000:0000:0000:0000:ffff:c0a8:5801", raw), 0);
	CHECK_INT(raw[10], 0xff);
	CHECK_INT(raw[15], 0x01);
	CHECK(gid_parse("", raw) < 0);
	CHECK(gid_parse("fe80:0000:0000", raw) < 0);
	CHECK(gid_parse("zzzz:0000:0000:0000:0000:0000:0000:0000", raw) < 0);
	CHECK(gid_parse("0000:0000:0000:0000:0000:ffff:c0a8:5801 trailing", raw) < 0);
	/* Every group written with its four digits, as show_gids does. */
	CHECK_INT(gid_parse("2001:db8:ab:cdef:1:20:300:4000", raw), 0);
	CHECK_STR(gid_str(raw, buf, sizeof(buf)), "2001:0db8:00ab:cdef:0001:0020:0300:4000");
	memset(raw, 0xff, sizeof(raw));
	CHECK_STR(gid_str(raw, buf, sizeof(buf)), "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
	/* Too small a buffer gets an empty string, never an overflow. */
	CHECK_STR(gid_str(raw, buf, 8), "");
}

static void unset_entries_are_skipped(void)
{
	uint8_t raw[16];

	CHECK_INT(gid_parse("0000:0000:0000:0000:0000:0000:0000:0000", raw), 0);
	CHECK(gid_unset(raw));
	/* show_gids skips this one too: fe80:: with no interface ID. */
	CHECK_INT(gid_parse("fe80:0000:0000:0000:0000:0000:0000:0000", raw), 0);
	CHECK(gid_unset(raw));
	CHECK_INT(gid_parse("fe80:0000:0000:0000:0000:0000:0000:0001", raw), 0);
	CHECK(!gid_unset(raw));
}

static void field_notes_recommend_5(void)
{
	struct rdma_gid gids[6];
	struct rdma_port port;
	struct gid_choice c;
	const char *why = NULL;

	field_notes_port(&port, gids);
	CHECK(gid_choose(&port, false, NULL, &c));
	CHECK(c.gid == &gids[5]);
	CHECK_INT(c.gid ? c.gid->index : 99, 5);
	CHECK_INT(c.problem, GID_FOUND);
	CHECK_INT(c.candidates, 1);
	CHECK(strstr(c.why, "RoCE v2") && strstr(c.why, "192.168.88.1") && strstr(c.why, "ens19f0np0"));
	CHECK_STR(c.fix, "");
	CHECK(gid_recommend(&port, false, &why) == &gids[5]);
	CHECK_STR(why, "RoCE v2 with an IPv4 address");
	/* Only entries on another netdev: nothing there. */
	CHECK(!gid_choose(&port, false, "ens19f1np1", &c));
	CHECK_INT(c.problem, GID_NO_ENTRIES);
	CHECK(strstr(c.why, "ens19f1np1") != NULL);
}

static void ipv6_needs_a_global_address(void)
{
	struct rdma_gid gids[8];
	struct rdma_port port;
	struct gid_choice c;

	field_notes_port(&port, gids);
	CHECK(!gid_choose(&port, true, NULL, &c));
	CHECK(c.gid == NULL);
	CHECK_INT(c.problem, GID_NO_ADDRESS);
	CHECK_STR(c.fix, "ip -6 addr add ADDR/PREFIX dev ens19f0np0");
	gid_set(&gids[6], 6, "2001:0db8:0000:0000:0000:0000:0000:0001", GID_TYPE_ROCE_V1, "ens19f0np0");
	gid_set(&gids[7], 7, "2001:0db8:0000:0000:0000:0000:0000:0001", GID_TYPE_ROCE_V2, "ens19f0np0");
	port.n_gids = 8;
	CHECK(gid_choose(&port, true, NULL, &c));
	CHECK_INT(c.gid ? c.gid->index : 99, 7);
	CHECK(strstr(c.why, "IPv6 2001:db8::1") != NULL);
	/* IPv4 still picks 5, not the IPv6 entry. */
	CHECK(gid_choose(&port, false, NULL, &c));
	CHECK_INT(c.gid ? c.gid->index : 99, 5);
}

static void only_link_local_says_add_ipv4(void)
{
	struct rdma_gid gids[6];
	struct rdma_port port;
	struct gid_choice c;
	const char *why = NULL;

	field_notes_port(&port, gids);
	port.n_gids = 4;	/* the field notes' item 2: no IPv4 on the netdev */
	CHECK(!gid_choose(&port, false, NULL, &c));
	CHECK_INT(c.problem, GID_NO_ADDRESS);
	CHECK(strstr(c.why, "only link-local") && strstr(c.why, "no IPv4"));
	CHECK_STR(c.fix, "ip addr add ADDR/PREFIX dev ens19f0np0");
	CHECK(gid_recommend(&port, false, &why) == NULL);
	CHECK(why && strstr(why, "link-local"));
	/* Without a netdev anywhere, the fix still reads as a command to fill in. */
	port.netdev[0] = '\0';
	for (size_t i = 0; i < port.n_gids; i++)
		gids[i].netdev[0] = '\0';
	CHECK(!gid_choose(&port, false, NULL, &c));
	CHECK_STR(c.fix, "ip addr add ADDR/PREFIX dev IF");
}

static void unknown_and_v1_types_are_not_chosen(void)
{
	struct rdma_gid gids[6];
	struct rdma_port port;
	struct gid_choice c;

	field_notes_port(&port, gids);
	gids[5].type = GID_TYPE_UNKNOWN;
	CHECK(!gid_choose(&port, false, NULL, &c));
	CHECK_INT(c.problem, GID_TYPES_UNKNOWN);
	CHECK(c.fix[0] != '\0');
	gids[5].type = GID_TYPE_ROCE_V1;
	CHECK(!gid_choose(&port, false, NULL, &c));
	CHECK_INT(c.problem, GID_NO_ROCE_V2);
	CHECK(strstr(c.why, "RoCE v1 only") != NULL);
}

static void lowest_of_several_on_the_netdev_asked(void)
{
	struct rdma_gid gids[4];
	struct rdma_port port = { .num = 1, .link_layer = LINK_LAYER_ETHERNET, .gids = gids, .n_gids = 4 };
	struct gid_choice c;

	gid_set(&gids[0], 0, "fe80:0000:0000:0000:0e42:a1ff:fe00:0001", GID_TYPE_ROCE_V2, "ens1f0np0");
	/* Not an IPv4 mapping (no ffff): show_gids would decode it; it is IPv6. */
	gid_set(&gids[1], 3, "0000:0000:0000:0000:0000:0000:c0a8:5801", GID_TYPE_ROCE_V2, "ens1f0np0");
	gid_set(&gids[2], 5, "0000:0000:0000:0000:0000:ffff:0a00:0001", GID_TYPE_ROCE_V2, "ens1f0np0.100");
	gid_set(&gids[3], 9, "0000:0000:0000:0000:0000:ffff:0a00:0101", GID_TYPE_ROCE_V2, "ens1f0np0");
	CHECK(gid_choose(&port, false, NULL, &c));
	CHECK_INT(c.gid ? c.gid->index : 99, 5);
	CHECK_INT(c.candidates, 2);
	CHECK(strstr(c.why, "lowest of 2") != NULL);
	CHECK(gid_choose(&port, false, "ens1f0np0", &c));
	CHECK_INT(c.gid ? c.gid->index : 99, 9);
	CHECK_INT(c.candidates, 1);
	CHECK(gid_choose(&port, true, NULL, &c));
	CHECK_INT(c.gid ? c.gid->index : 99, 3);
}

static void infiniband_uses_the_port_gid(void)
{
	struct rdma_gid gids[1];
	struct rdma_port port = { .num = 1, .link_layer = LINK_LAYER_INFINIBAND, .gids = gids, .n_gids = 1 };
	struct gid_choice c;

	gid_set(&gids[0], 0, "fe80:0000:0000:0000:0002:c903:0031:7a41", GID_TYPE_IB, "");
	CHECK(gid_choose(&port, false, NULL, &c));
	CHECK_INT(c.gid ? c.gid->index : 99, 0);
	CHECK(strstr(c.why, "InfiniBand") != NULL);
	port.n_gids = 0;
	CHECK(!gid_choose(&port, false, NULL, &c));
	CHECK_INT(c.problem, GID_NO_ENTRIES);
}

/* Load port 1 of @devname from the tree at @root. */
static int load_port(const char *root, const char *devname, struct rdma_port *port)
{
	struct ctx ctx = { .root = root };
	struct rdma_dev dev = { .nports = 1, .ports = port };

	snprintf(dev.name, sizeof(dev.name), "%s", devname);
	port->num = 1;
	port->link_layer = LINK_LAYER_ETHERNET;
	return rdma_port_load_gids(&ctx, &dev, port);
}

static void sysfs_reads_the_field_notes_fixture(void)
{
	struct rdma_port port = { 0 };
	struct gid_choice c;
	char root[4096], buf[64];

	snprintf(root, sizeof(root), "%s/mlx5-6gids", fixtures());
	CHECK_INT(load_port(root, "mlx5_0", &port), 0);
	CHECK_INT(port.n_gids, 6);
	for (size_t i = 0; i < port.n_gids && i < 6; i++) {
		CHECK_INT(port.gids[i].index, i);
		CHECK_INT(port.gids[i].type, i % 2 ? GID_TYPE_ROCE_V2 : GID_TYPE_ROCE_V1);
		CHECK_STR(port.gids[i].netdev, "ens19f0np0");
	}
	if (port.n_gids == 6)
		CHECK_STR(gid_str(port.gids[2].raw, buf, sizeof(buf)),
			  "fe80:0000:0000:0000:a789:516a:e270:5b33");
	CHECK(gid_choose(&port, false, NULL, &c));
	CHECK_INT(c.gid ? c.gid->index : 99, 5);
	free(port.gids);
}

static void sysfs_container_types_unknown(void)
{
	struct rdma_port port = { 0 };
	struct gid_choice c;
	char root[4096];

	snprintf(root, sizeof(root), "%s/container-gid-einval", fixtures());
	CHECK_INT(load_port(root, "mlx5_2", &port), 0);
	CHECK_INT(port.n_gids, 4);
	for (size_t i = 0; i < port.n_gids; i++) {
		CHECK_INT(port.gids[i].type, GID_TYPE_UNKNOWN);
		CHECK_STR(port.gids[i].netdev, "");
	}
	CHECK(!gid_choose(&port, false, NULL, &c));
	CHECK_INT(c.problem, GID_TYPES_UNKNOWN);
	free(port.gids);
}

static int put(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

/*
 * A tree with every way an entry can be broken: a FIFO (which must not
 * block), a directory, junk, a sparse index, an oversized netdev name.
 */
static void sysfs_survives_broken_entries(void)
{
	char tmpl[] = "/tmp/test_gids.XXXXXX", base[256], path[1024];
	struct rdma_port port = { 0 };
	char *root = mkdtemp(tmpl);

	CHECK(root != NULL);
	if (!root)
		return;
	snprintf(base, sizeof(base), "%s/sys/class/infiniband/rxe0/ports/1", root);
	snprintf(path, sizeof(path), "mkdir -p %s/gids %s/gid_attrs/types %s/gid_attrs/ndevs/1",
		 base, base, base);
	CHECK_INT(system(path), 0);
	CHECK_INT(put(base, "gids/0", "fe80:0000:0000:0000:5054:00ff:fe12:3401\n"), 0);
	CHECK_INT(put(base, "gids/1", "0000:0000:0000:0000:0000:ffff:0a63:0001\n"), 0);
	CHECK_INT(put(base, "gids/2", "not a gid\n"), 0);
	CHECK_INT(put(base, "gids/7", "0000:0000:0000:0000:0000:ffff:0a63:0101\n"), 0);
	CHECK_INT(put(base, "gids/x", "0000:0000:0000:0000:0000:ffff:0a63:0102\n"), 0);
	snprintf(path, sizeof(path), "%s/gid_attrs/types/0", base);
	CHECK_INT(mkfifo(path, 0600), 0);
	CHECK_INT(put(base, "gid_attrs/ndevs/0", "eth0\n"), 0);
	CHECK_INT(put(base, "gid_attrs/types/1", "RoCE v2\n"), 0);
	CHECK_INT(put(base, "gid_attrs/types/7", "RoCE v2\n"), 0);
	CHECK_INT(put(base, "gid_attrs/ndevs/7", "a-netdev-name-longer-than-ifnamsiz\n"), 0);

	CHECK_INT(load_port(root, "rxe0", &port), 0);
	CHECK_INT(port.n_gids, 3);
	if (port.n_gids == 3) {
		CHECK_INT(port.gids[0].type, GID_TYPE_UNKNOWN);	/* the FIFO */
		CHECK_STR(port.gids[0].netdev, "eth0");
		CHECK_INT(port.gids[1].type, GID_TYPE_ROCE_V2);
		CHECK_STR(port.gids[1].netdev, "");		/* the directory */
		CHECK_INT(port.gids[2].index, 7);
		CHECK_STR(port.gids[2].netdev, "");		/* too long to be a netdev */
	}
	free(port.gids);

	/* No gids directory at all: an empty table, not an error. */
	snprintf(path, sizeof(path), "rm -rf %s/gids", base);
	CHECK_INT(system(path), 0);
	port = (struct rdma_port){ 0 };
	CHECK_INT(load_port(root, "rxe0", &port), 0);
	CHECK_INT(port.n_gids, 0);
	free(port.gids);
	/* No port directory: the error says so. */
	CHECK_INT(load_port(root, "rxe9", &port), -ENOENT);

	snprintf(path, sizeof(path), "rm -rf %s", root);
	CHECK_INT(system(path), 0);
}

int main(void)
{
	RUN("test_gids", type_strings_parse);
	RUN("test_gids", gid_text_parses);
	RUN("test_gids", unset_entries_are_skipped);
	RUN("test_gids", field_notes_recommend_5);
	RUN("test_gids", ipv6_needs_a_global_address);
	RUN("test_gids", only_link_local_says_add_ipv4);
	RUN("test_gids", unknown_and_v1_types_are_not_chosen);
	RUN("test_gids", lowest_of_several_on_the_netdev_asked);
	RUN("test_gids", infiniband_uses_the_port_gid);
	RUN("test_gids", sysfs_reads_the_field_notes_fixture);
	RUN("test_gids", sysfs_container_types_unknown);
	RUN("test_gids", sysfs_survives_broken_entries);
	TEST_EXIT();
}
