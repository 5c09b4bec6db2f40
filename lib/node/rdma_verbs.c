// SPDX-License-Identifier: MIT
/*
 * The verbs part of the live backend: what libibverbs says about each
 * device and port that RDMA netlink does not (link layer, MTUs, speed and
 * width), and everything when netlink is unavailable.  Facts already
 * known from netlink are kept.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "base/ctx.h"
#include "base/log.h"
#include "node/rdma_backend.h"

static enum link_layer verbs_link_layer(uint8_t ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_ETHERNET:
		return LINK_LAYER_ETHERNET;
	case IBV_LINK_LAYER_INFINIBAND:
	case IBV_LINK_LAYER_UNSPECIFIED:	/* older providers: InfiniBand */
		return LINK_LAYER_INFINIBAND;
	default:
		return LINK_LAYER_UNKNOWN;
	}
}

/* The subnet prefix is the upper half of GID 0 on InfiniBand. */
static void load_subnet_prefix(struct ibv_context *vctx, struct rdma_port *port)
{
	union ibv_gid gid;

	if (port->subnet_prefix || port->link_layer != LINK_LAYER_INFINIBAND)
		return;
	if (!ibv_query_gid(vctx, (uint8_t)port->num, 0, &gid))
		port->subnet_prefix = be64toh(gid.global.subnet_prefix);
}

static void load_port(const struct ctx *ctx, struct ibv_context *vctx, const struct rdma_dev *dev,
		      struct rdma_port *port)
{
	struct ibv_port_attr attr;
	int ret;

	ret = ibv_query_port(vctx, (uint8_t)port->num, &attr);
	if (ret) {
		log_warn(ctx, "Failed to query port %s/%u: %s", dev->name, port->num, strerror(ret));
		return;
	}
	if (!port->state)
		port->state = attr.state;
	if (!port->phys_state)
		port->phys_state = attr.phys_state;
	port->link_layer = verbs_link_layer(attr.link_layer);
	port->active_mtu = ib_mtu_bytes(attr.active_mtu);
	port->max_mtu = ib_mtu_bytes(attr.max_mtu);
	if (ib_rate_str(attr.active_speed, attr.active_width, port->rate, sizeof(port->rate),
			&port->rate_gbps))
		port->rate[0] = '\0';
	port->gid_tbl_len = attr.gid_tbl_len;
	if (port->link_layer == LINK_LAYER_INFINIBAND) {
		if (!port->lid)
			port->lid = attr.lid;
		if (!port->sm_lid)
			port->sm_lid = attr.sm_lid;
		load_subnet_prefix(vctx, port);
	}
}

static int load_ports(const struct ctx *ctx, struct ibv_context *vctx, struct rdma_dev *dev)
{
	unsigned int p;
	int ret;

	ret = rdma_dev_alloc_ports(dev, dev->nports);
	if (ret)
		return ret;
	for (p = 0; dev->ports && p < dev->nports; p++)
		load_port(ctx, vctx, dev, &dev->ports[p]);
	return 0;
}

static void fill_device(struct rdma_dev *dev, const struct ibv_device_attr *attr)
{
	if (!dev->sys_image_guid)
		dev->sys_image_guid = be64toh(attr->sys_image_guid);
	/*
	 * Software devices (rxe, siw) have no firmware: the kernel's netlink
	 * and sysfs give an empty string, verbs a zero word printed "0.0.0".
	 * Keep the two sources saying the same: none.
	 */
	if (!dev->fw_ver[0] && strcmp(attr->fw_ver, "0.0.0"))
		snprintf(dev->fw_ver, sizeof(dev->fw_ver), "%s", attr->fw_ver);
	if (!dev->nports)
		dev->nports = attr->phys_port_cnt;
}

static int load_device(const struct ctx *ctx, struct ibv_device *ibdev, struct rdma_dev *dev,
		       unsigned int what)
{
	struct ibv_device_attr_ex attr = { 0 };
	struct ibv_context *vctx;
	int ret;

	if (!dev->node_type)
		dev->node_type = ibdev->node_type;
	if (!dev->node_guid)
		dev->node_guid = be64toh(ibv_get_device_guid(ibdev));
	vctx = ibv_open_device(ibdev);
	if (!vctx) {
		/* Netlink may still have described it: keep what is known. */
		log_warn(ctx, "Failed to open device '%s': %s", dev->name, strerror(errno));
		return 0;
	}
	ret = ibv_query_device_ex(vctx, NULL, &attr);
	if (ret) {
		log_warn(ctx, "Failed to query device '%s': %s", dev->name, strerror(ret));
		goto err_close;
	}
	fill_device(dev, &attr.orig_attr);
	if (what & RDMA_LOAD_PORTS)
		ret = load_ports(ctx, vctx, dev);
err_close:
	ibv_close_device(vctx);
	return ret == -ENOMEM ? ret : 0;
}

int rdma_verbs_load(const struct ctx *ctx, struct rdma_node *node, unsigned int what)
{
	struct ibv_device **list;
	int i, n = 0, ret = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return errno == ENOSYS ? 0 : -errno;
	for (i = 0; !ret && i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);
		struct rdma_dev *dev = rdma_dev_find(node, name);

		if (!dev)
			dev = rdma_node_add(node, name);
		ret = dev ? load_device(ctx, list[i], dev, what) : -ENOMEM;
	}
	ibv_free_device_list(list);
	return ret;
}
