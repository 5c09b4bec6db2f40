// SPDX-License-Identifier: MIT
/* The live backend: what libibverbs says about each device. */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "ctx.h"
#include "log.h"
#include "rdma.h"
#include "rdma_backend.h"

static int load_device(const struct ctx *ctx, struct ibv_device *ibdev, struct rdma_dev *dev)
{
	struct ibv_device_attr_ex attr = { 0 };
	struct ibv_context *vctx;
	int ret;

	snprintf(dev->name, sizeof(dev->name), "%s", ibv_get_device_name(ibdev));
	dev->node_type = ibdev->node_type;
	dev->node_guid = be64toh(ibv_get_device_guid(ibdev));
	dev->numa_node = -1;
	vctx = ibv_open_device(ibdev);
	if (!vctx) {
		ret = -errno;
		log_warn(ctx, "Failed to open device '%s': %s", dev->name, strerror(errno));
		return ret;
	}
	ret = ibv_query_device_ex(vctx, NULL, &attr);
	if (ret) {
		ret = -ret;
		log_warn(ctx, "Failed to query device '%s': %s", dev->name, strerror(-ret));
		goto err_close;
	}
	dev->sys_image_guid = be64toh(attr.orig_attr.sys_image_guid);
	snprintf(dev->fw_ver, sizeof(dev->fw_ver), "%s", attr.orig_attr.fw_ver);
	dev->nports = attr.orig_attr.phys_port_cnt;
err_close:
	ibv_close_device(vctx);
	return ret;
}

int rdma_verbs_load(const struct ctx *ctx, struct rdma_node *node)
{
	struct ibv_device **list;
	int i, n = 0, ret = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return errno == ENOSYS ? 0 : -errno;
	node->devs = calloc((size_t)n + 1, sizeof(*node->devs));
	if (!node->devs) {
		ret = -ENOMEM;
		goto err_list;
	}
	for (i = 0; i < n; i++)
		/* A device that cannot be opened is reported and left out. */
		if (!load_device(ctx, list[i], &node->devs[node->n]))
			node->n++;
err_list:
	ibv_free_device_list(list);
	return ret;
}
