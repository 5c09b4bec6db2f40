// SPDX-License-Identifier: MIT
/*
 * node/ucx: UCX's release read from a library image, ucx.pc and dpkg's
 * status; its booleans; the GID it takes on a RoCE port; and which ports
 * need UCX_UD_VERBS_ETH_DGID_CHECK=n.
 */
#include <errno.h>
#include <string.h>

#include "node/gids.h"
#include "node/ucx.h"
#include "test.h"

static void versions_parse(void)
{
	CHECK_INT(ucx_version_parse("1.13.1"), 11301);
	CHECK_INT(ucx_version_parse("1.13.1-1"), 11301);	/* dpkg */
	CHECK_INT(ucx_version_parse("1.19.0rc2"), 11900);
	CHECK_INT(ucx_version_parse("1.13.1.5"), 0);
	CHECK_INT(ucx_version_parse("2.0.0"), 0);
	CHECK_INT(ucx_version_parse("1.13"), 0);
	CHECK_INT(ucx_version_parse(""), 0);
}

static void version_in_image(void)
{
	/* As Debian's libucp.so.0.0.0 has it: another object's bytes, then the literal. */
	static const char img[] = "\177ELF\0ucp_worker_iface\0\315A1.13.1\0<unable to get ip>\0";
	static const char decoys[] = "v2.1.13.1\0" "1.2\0" "0.5\0" "11.13.1\0" "1.13.1x\0";
	static const char tail[] = { 'x', '1', '.', '1', '3', '.', '1' };	/* no NUL: not a string */

	CHECK_INT(ucx_version_in_image(img, sizeof(img) - 1), 11301);
	CHECK_INT(ucx_version_in_image(decoys, sizeof(decoys) - 1), 0);
	CHECK_INT(ucx_version_in_image(tail, sizeof(tail)), 0);
	CHECK_INT(ucx_version_in_image("", 0), 0);
}

static void dpkg_status(void)
{
	static const char status[] =
		"Package: libucx0-dbg\nStatus: install ok installed\nVersion: 1.20.0-1\n\n"
		"Package: libucx0\nStatus: deinstall ok config-files\nVersion: 1.12.0-1\n\n"
		"Package: libucx0\nStatus: install ok installed\nArchitecture: amd64\n"
		"Version: 1.13.1-1\nDescription: UCX\n\n"
		"Package: ucx-utils\nStatus: install ok installed\nVersion: 1.13.1-1\n";
	char ver[64] = "";
	const char *at;
	size_t len;

	CHECK_INT(dpkg_version(status, "libucx0", ver, sizeof(ver)), 11301);
	CHECK_STR(ver, "1.13.1-1");
	/* The installed stanza alone, up to its blank line. */
	CHECK(dpkg_stanza(status, "libucx0", &at, &len));
	CHECK(len > 0 && !strncmp(at, "Package: libucx0\nStatus: install ok installed\n", 46));
	CHECK(len > 0 && at[len - 1] == '\n' && at[len] == '\n');
	CHECK_INT(dpkg_version("Package: libucx0\nStatus: deinstall ok config-files\n"
			       "Version: 1.13.1-1\n", "libucx0", ver, sizeof(ver)), 0);
	CHECK_INT(dpkg_version("Package: libfoo\n", "libucx0", ver, sizeof(ver)), 0);
	/* A stanza without Version: does not borrow the next one's. */
	CHECK_INT(dpkg_version("Package: libucx0\nStatus: install ok installed\n\n"
			       "Package: x\nVersion: 1.13.1\n", "libucx0", ver, sizeof(ver)), 0);
}

static void booleans(void)
{
	CHECK_INT(ucx_parse_bool("n"), 0);
	CHECK_INT(ucx_parse_bool("No"), 0);
	CHECK_INT(ucx_parse_bool("0"), 0);
	CHECK_INT(ucx_parse_bool("Y"), 1);
	CHECK_INT(ucx_parse_bool("yes"), 1);
	CHECK_INT(ucx_parse_bool("off"), -EINVAL);
	CHECK_INT(ucx_parse_bool(""), -EINVAL);
	CHECK_INT(ucx_parse_bool("n # why"), -EINVAL);
}

static void gid_set(struct rdma_gid *g, unsigned int index, const char *text, enum gid_type type)
{
	memset(g, 0, sizeof(*g));
	g->index = index;
	g->type = type;
	CHECK_INT(gid_parse(text, g->raw), 0);
}

/* rxe0/1 of the lab: GID 0 fe80:: (v2), GID 1 ::ffff:10.99.0.2 (v2). */
static void lab_port(struct rdma_dev *dev, struct rdma_port *p, struct rdma_gid g[3])
{
	memset(dev, 0, sizeof(*dev));
	memset(p, 0, sizeof(*p));
	snprintf(dev->name, sizeof(dev->name), "rxe0");
	snprintf(dev->driver, sizeof(dev->driver), "rxe");
	dev->node_type = 1;
	p->num = 1;
	p->state = 4;
	p->link_layer = LINK_LAYER_ETHERNET;
	gid_set(&g[0], 0, "fe80:0000:0000:0000:5054:00ff:fe99:0002", GID_TYPE_ROCE_V2);
	gid_set(&g[1], 1, "0000:0000:0000:0000:0000:ffff:0a63:0002", GID_TYPE_ROCE_V2);
	p->gids = g;
	p->n_gids = 2;
	dev->nports = 1;
	dev->ports = p;
}

static void gid_ucx_takes(void)
{
	struct rdma_dev dev;
	struct rdma_port p;
	struct rdma_gid g[3];

	lab_port(&dev, &p, g);
	/* auto: RoCE v2 IPv4 before the link-local v2 IPv6 at a lower index. */
	CHECK_INT(ucx_port_gid(&p, NULL)->index, 1);
	CHECK_INT(ucx_port_gid(&p, "auto")->index, 1);
	CHECK_INT(ucx_port_gid(&p, "0")->index, 0);
	CHECK(ucx_port_gid(&p, "7") == NULL);
	CHECK(ucx_port_gid(&p, "-1") == NULL);
	CHECK(ucx_port_gid(&p, "1x") == NULL);
	/* No v2 IPv4: v2 IPv6, before a v1 IPv4. */
	gid_set(&g[1], 1, "0000:0000:0000:0000:0000:ffff:0a63:0002", GID_TYPE_ROCE_V1);
	CHECK_INT(ucx_port_gid(&p, NULL)->index, 0);
}

static void ports_that_need_it(void)
{
	struct rdma_dev dev;
	struct rdma_port p;
	struct rdma_gid g[3];
	char why[256];

	lab_port(&dev, &p, g);
	CHECK(ucx_needs_dgid_check_off(&dev, &p, 11301, NULL, why, sizeof(why)));
	CHECK_STR(why, "rxe0/1 (rxe, not mlx5) with RoCE v2 IPv4 GID 1 (10.99.0.2)");
	/* Unknown release counts as before the fix. */
	CHECK(ucx_needs_dgid_check_off(&dev, &p, 0, "1", why, sizeof(why)));
	CHECK(!ucx_needs_dgid_check_off(&dev, &p, 11900, NULL, why, sizeof(why)));
	CHECK(!ucx_needs_dgid_check_off(&dev, &p, 11301, "0", why, sizeof(why)));
	CHECK(strstr(why, "UCX uses GID fe80:") != NULL);
	snprintf(dev.driver, sizeof(dev.driver), "irdma");
	CHECK(ucx_needs_dgid_check_off(&dev, &p, 11802, "auto", why, sizeof(why)));
	snprintf(dev.protocol, sizeof(dev.protocol), "iw");	/* irdma in iWARP mode: no UD */
	CHECK(!ucx_needs_dgid_check_off(&dev, &p, 11802, NULL, why, sizeof(why)));
	dev.protocol[0] = '\0';
	snprintf(dev.driver, sizeof(dev.driver), "mlx5");
	CHECK(!ucx_needs_dgid_check_off(&dev, &p, 11301, NULL, why, sizeof(why)));
	snprintf(dev.driver, sizeof(dev.driver), "bnxt_re");
	p.link_layer = LINK_LAYER_INFINIBAND;
	CHECK(!ucx_needs_dgid_check_off(&dev, &p, 11301, NULL, why, sizeof(why)));
}

int main(void)
{
	RUN("test_ucx", versions_parse);
	RUN("test_ucx", version_in_image);
	RUN("test_ucx", dpkg_status);
	RUN("test_ucx", booleans);
	RUN("test_ucx", gid_ucx_takes);
	RUN("test_ucx", ports_that_need_it);
	TEST_EXIT();
}
