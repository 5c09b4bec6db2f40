// SPDX-License-Identifier: MIT
/*
 * RDMA netlink with libmnl.  One helper prepares a request, sends it and
 * runs the replies through a callback with sequence and port checks; each
 * reply's attributes are parsed against one policy table that ignores
 * attributes it does not know (newer kernels add them all the time).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "base/ctx.h"
#include "base/log.h"
#include "node/rdma_backend.h"
#include "node/rdma_nl.h"

struct nl {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
	char buf[32768];	/* dumps come in messages of up to 32 KiB */
};

/* The attributes read here and their types; anything else is skipped. */
static const enum mnl_attr_data_type policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX] = MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_DEV_NAME] = MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_PORT_INDEX] = MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_FW_VERSION] = MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_NODE_GUID] = MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID] = MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_SUBNET_PREFIX] = MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_LID] = MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_SM_LID] = MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_PORT_STATE] = MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_PORT_PHYS_STATE] = MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_DEV_NODE_TYPE] = MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_NDEV_NAME] = MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_DEV_PROTOCOL] = MNL_TYPE_NUL_STRING,
	/* u32 in today's kernels; read by length (see driver_id()). */
	[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID] = MNL_TYPE_UNSPEC,
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] = MNL_TYPE_U8,
};

/* An attribute of the policy, valid for its type, goes into tb[]. */
static int parse_attr(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type >= RDMA_NLDEV_ATTR_MAX || (!policy[type] && type != RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID))
		return MNL_CB_OK;
	if (policy[type] && mnl_attr_validate(attr, policy[type]) < 0)
		return MNL_CB_OK;	/* malformed: as if absent */
	tb[type] = attr;
	return MNL_CB_OK;
}

static void parse_msg(const struct nlmsghdr *nlh, const struct nlattr **tb)
{
	memset(tb, 0, sizeof(*tb) * RDMA_NLDEV_ATTR_MAX);
	mnl_attr_parse(nlh, 0, parse_attr, tb);
}

static int nl_open(struct nl *nl)
{
	nl->sock = mnl_socket_open(NETLINK_RDMA);
	if (!nl->sock)
		return -errno;
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		int ret = -errno;

		mnl_socket_close(nl->sock);
		return ret;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = 0;
	return 0;
}

struct req {
	uint16_t cmd;		/* RDMA_NLDEV_CMD_* */
	uint16_t flags;		/* NLM_F_DUMP or 0 */
	uint32_t dev_index;	/* 0: none */
	const char *chardev;	/* RDMA_NLDEV_ATTR_CHARDEV_TYPE, or NULL */
};

/*
 * Send @req and feed every reply to @cb until the kernel's ACK or DONE.
 * Replies of another sequence number or sender are refused by mnl_cb_run().
 */
static int nl_request(struct nl *nl, const struct req *req, mnl_cb_t cb, void *data)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf);
	unsigned int seq = ++nl->seq;
	ssize_t n;
	int ret;

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, req->cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | req->flags;
	nlh->nlmsg_seq = seq;
	if (req->dev_index)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, req->dev_index);
	if (req->chardev)
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_CHARDEV_TYPE, req->chardev);
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(nl->buf, (size_t)n, seq, nl->portid, cb, data);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

static void copy_str(char *dst, size_t len, const struct nlattr *attr)
{
	if (attr)
		snprintf(dst, len, "%s", mnl_attr_get_str(attr));
}

/* RDMA_NLDEV_CMD_GET: one message per device. */
static int dev_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct rdma_node *node = data;
	struct rdma_dev *dev;

	parse_msg(nlh, tb);
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return MNL_CB_OK;
	dev = rdma_node_add(node, mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_DEV_NAME]));
	if (!dev) {
		errno = ENOMEM;
		return MNL_CB_ERROR;
	}
	dev->nl_index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	/* The kernel sends the GUIDs in host order (be64_to_cpu'd). */
	if (tb[RDMA_NLDEV_ATTR_NODE_GUID])
		dev->node_guid = mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_NODE_GUID]);
	if (tb[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID])
		dev->sys_image_guid = mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID]);
	if (tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE])
		dev->node_type = mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]);
	/* On a device, PORT_INDEX is the number of ports. */
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		dev->nports = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	copy_str(dev->fw_ver, sizeof(dev->fw_ver), tb[RDMA_NLDEV_ATTR_FW_VERSION]);
	copy_str(dev->protocol, sizeof(dev->protocol), tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL]);
	return MNL_CB_OK;
}

/* RDMA_NLDEV_CMD_PORT_GET: one message per port of the device. */
static int port_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct rdma_dev *dev = data;
	struct rdma_port *port;

	parse_msg(nlh, tb);
	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return MNL_CB_OK;
	port = rdma_port_find(dev, mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]));
	if (!port)
		return MNL_CB_OK;
	if (tb[RDMA_NLDEV_ATTR_PORT_STATE])
		port->state = mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_PORT_STATE]);
	if (tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE])
		port->phys_state = mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]);
	/* LIDs and the subnet prefix come only for InfiniBand ports. */
	if (tb[RDMA_NLDEV_ATTR_LID])
		port->lid = (uint16_t)mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_LID]);
	if (tb[RDMA_NLDEV_ATTR_SM_LID])
		port->sm_lid = (uint16_t)mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_SM_LID]);
	if (tb[RDMA_NLDEV_ATTR_SUBNET_PREFIX])
		port->subnet_prefix = mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_SUBNET_PREFIX]);
	copy_str(port->netdev, sizeof(port->netdev), tb[RDMA_NLDEV_ATTR_NDEV_NAME]);
	return MNL_CB_OK;
}

static unsigned int driver_id(const struct nlattr *attr)
{
	switch (mnl_attr_get_payload_len(attr)) {
	case 4:
		return mnl_attr_get_u32(attr);
	case 8:
		return (unsigned int)mnl_attr_get_u64(attr);
	default:
		return 0;
	}
}

/* RDMA_NLDEV_CMD_GET_CHARDEV "uverbs": the driver id libibverbs matches providers by. */
static int chardev_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct rdma_dev *dev = data;
	const char *provider;

	parse_msg(nlh, tb);
	if (!tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID])
		return MNL_CB_OK;
	provider = provider_from_driver_id(driver_id(tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID]));
	if (provider)
		snprintf(dev->driver, sizeof(dev->driver), "%s", provider);
	return MNL_CB_OK;
}

static int load_dev_details(const struct ctx *ctx, struct nl *nl, struct rdma_dev *dev,
			    unsigned int what)
{
	struct req chardev = { RDMA_NLDEV_CMD_GET_CHARDEV, 0, dev->nl_index, "uverbs" };
	struct req ports = { RDMA_NLDEV_CMD_PORT_GET, NLM_F_DUMP, dev->nl_index, NULL };
	int ret;

	/* No uverbs (module not loaded, no verbs support): provider from sysfs. */
	ret = nl_request(nl, &chardev, chardev_cb, dev);
	if (ret)
		log_info(ctx, "RDMA netlink gives no uverbs driver of '%s': %s", dev->name,
			 strerror(-ret));
	if (!(what & RDMA_LOAD_PORTS))
		return 0;
	ret = rdma_dev_alloc_ports(dev, dev->nports);
	if (ret)
		return ret;
	ret = nl_request(nl, &ports, port_cb, dev);
	if (ret)
		log_warn(ctx, "Failed to read the ports of '%s' through RDMA netlink: %s",
			 dev->name, strerror(-ret));
	return ret == -ENOMEM ? ret : 0;
}

int rdma_nl_load(const struct ctx *ctx, struct rdma_node *node, unsigned int what)
{
	struct req devs = { RDMA_NLDEV_CMD_GET, NLM_F_DUMP, 0, NULL };
	struct nl *nl;
	size_t i;
	int ret;

	nl = malloc(sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	ret = nl_open(nl);
	if (ret)
		goto err_free;
	ret = nl_request(nl, &devs, dev_cb, node);
	for (i = 0; !ret && i < node->n; i++)
		ret = load_dev_details(ctx, nl, &node->devs[i], what);
	mnl_socket_close(nl->sock);
err_free:
	free(nl);
	return ret;
}

/* RDMA_NLDEV_CMD_SYS_GET: NETNS_MODE is 1 in shared mode, 0 in exclusive. */
static int sys_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];

	parse_msg(nlh, tb);
	if (tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE])
		*(int *)data = mnl_attr_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]) ? 1 : 0;
	return MNL_CB_OK;
}

int rdma_nl_netns_mode(void)
{
	struct req sys = { RDMA_NLDEV_CMD_SYS_GET, 0, 0, NULL };
	struct nl *nl;
	int mode = -ENODATA, ret;

	nl = malloc(sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	ret = nl_open(nl);
	if (!ret) {
		ret = nl_request(nl, &sys, sys_cb, &mode);
		mnl_socket_close(nl->sock);
	}
	free(nl);
	return ret ? ret : mode;
}
