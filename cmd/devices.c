// SPDX-License-Identifier: MIT
/* rdmactl devices [DEV]: the RDMA devices of this node. */
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "cmds.h"
#include "node/rdma.h"
#include "node/rdma_load.h"

const struct opt devices_opts[] = {
	{ 0 }
};

static const struct column devices_cols[] = {
	{ "name", "DEVICE", 0, NULL },
	{ "provider", NULL, 0, NULL },
	{ "node_type", "TYPE", 0, NULL },
	{ "node_guid", NULL, 0, NULL },
	{ "sys_image_guid", NULL, COL_WIDE, NULL },
	{ "fw_ver", "FIRMWARE", 0, NULL },
	{ "pci", NULL, 0, NULL },
	{ "numa_node", "NUMA", COL_RIGHT, NULL },
	{ "ports", NULL, COL_RIGHT, NULL },
	{ "netdevs", NULL, 0, NULL },
	{ 0 }
};

/* The netdev of each port, in port order (null for a port without one). */
static void row_netdevs(struct json_object *row, const struct rdma_dev *dev)
{
	unsigned int p;

	if (!dev->ports)
		return;
	row_list(row, "netdevs");
	for (p = 0; p < dev->nports; p++)
		row_list_add(row, "netdevs", dev->ports[p].netdev[0] ? dev->ports[p].netdev : NULL);
}

static void device_row(struct table *t, const struct rdma_dev *dev)
{
	struct json_object *row = table_row(t);
	char buf[32];

	row_str(row, "name", dev->name);
	row_str(row, "provider", dev->driver[0] ? dev->driver : NULL);
	row_str(row, "node_type", node_type_str(dev->node_type));
	row_str(row, "node_guid", guid_str(dev->node_guid, buf, sizeof(buf)));
	row_str(row, "sys_image_guid", guid_str(dev->sys_image_guid, buf, sizeof(buf)));
	row_str(row, "fw_ver", dev->fw_ver[0] ? dev->fw_ver : NULL);
	row_str(row, "pci", dev->pci[0] ? dev->pci : NULL);
	if (dev->numa_node >= 0)
		row_int(row, "numa_node", dev->numa_node);
	else
		row_str(row, "numa_node", NULL);
	row_int(row, "ports", dev->nports);
	row_netdevs(row, dev);
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

	/* Ports too: the netdev behind each is part of the answer. */
	ret = rdma_node_load(ctx, &node, RDMA_LOAD_PORTS);
	if (ret) {
		log_err_errno(ctx, ret, "Failed to read RDMA devices: %s", strerror(-ret));
		return RC_PROBLEM;
	}
	if (!node.n) {
		log_err(ctx, "%s", rdma_no_devices_msg);
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
