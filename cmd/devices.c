// SPDX-License-Identifier: MIT
/* rdmactl devices [DEV]: the RDMA devices of this node. */
#include <stdio.h>
#include <string.h>

#include "../lib/ctx.h"
#include "../lib/log.h"
#include "../lib/output.h"
#include "../lib/rdma.h"
#include "cmds.h"

const struct opt devices_opts[] = {
	{ 0 }
};

static const struct column devices_cols[] = {
	{ "name", "DEVICE", 0, NULL },
	{ "node_type", "TYPE", 0, NULL },
	{ "node_guid", "NODE_GUID", 0, NULL },
	{ "sys_image_guid", "SYS_IMAGE_GUID", COL_WIDE, NULL },
	{ "fw_ver", "FIRMWARE", 0, NULL },
	{ "ports", NULL, COL_RIGHT, NULL },
	{ 0 }
};

static void device_row(struct table *t, const struct rdma_dev *dev)
{
	struct json_object *row = table_row(t);
	char buf[32];

	row_str(row, "name", dev->name);
	row_str(row, "node_type", node_type_str(dev->node_type));
	row_str(row, "node_guid", guid_str(dev->node_guid, buf, sizeof(buf)));
	row_str(row, "sys_image_guid", guid_str(dev->sys_image_guid, buf, sizeof(buf)));
	row_str(row, "fw_ver", dev->fw_ver[0] ? dev->fw_ver : NULL);
	row_int(row, "ports", dev->nports);
}

/* Say why a node may have no devices: the usual causes, in the order to check them. */
static void no_devices(const struct ctx *ctx)
{
	log_err(ctx, "No RDMA devices found. Check that a kernel RDMA driver is loaded "
		"(lsmod | grep -e mlx5_ib -e rdma_rxe), that a Soft-RoCE link exists "
		"(rdma link add rxe0 type rxe netdev IF), and, in a container, that "
		"/dev/infiniband is passed in.");
}

int cmd_devices(struct ctx *ctx, int argc, char **argv)
{
	struct rdma_node node;
	struct optparser p;
	const char *only = NULL;
	struct table *t;
	size_t i;
	int c, ret, rc = RC_OK;

	if (opt_init(&p, ctx, command_find("devices"), argc, argv))
		return RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END)
		return c == OPT_HELP ? RC_OK : RC_USAGE;
	if (opt_check_args(&p))
		return RC_USAGE;
	if (p.optind < argc)
		only = argv[p.optind];

	ret = rdma_node_load(ctx, &node, 0);
	if (ret) {
		log_err(ctx, "Failed to read RDMA devices: %s", strerror(-ret));
		return RC_PROBLEM;
	}
	if (!node.n) {
		no_devices(ctx);
		rc = RC_PROBLEM;
		goto out;
	}
	if (only && !rdma_dev_find(&node, only)) {
		char names[256];

		log_err(ctx, "Unknown device '%s'. Devices: %s", only,
			rdma_dev_names(&node, names, sizeof(names)));
		rc = RC_USAGE;
		goto out;
	}
	t = table_new(devices_cols);
	if (!t) {
		rc = RC_PROBLEM;
		goto out;
	}
	for (i = 0; i < node.n; i++)
		if (!only || !strcmp(only, node.devs[i].name))
			device_row(t, &node.devs[i]);
	table_emit(ctx, t, "devices");
out:
	rdma_node_free(&node);
	return rc;
}
