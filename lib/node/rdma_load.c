// SPDX-License-Identifier: MIT
/*
 * The loader: which backend fills the model (netlink, verbs and sysfs live;
 * the recorded sysfs tree with --root), then the GID tables.  Kept apart
 * from the model's helpers, which the backends use, so that no backend
 * includes what includes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/sysfs.h"
#include "node/gids.h"
#include "node/rdma_backend.h"
#include "node/rdma_load.h"
#include "node/rdma_nl.h"

const char rdma_no_devices_msg[] =
	"No RDMA devices found. Check that a kernel RDMA driver is loaded "
	"(lsmod | grep -e mlx5_ib -e rdma_rxe), that a Soft-RoCE link exists "
	"(rdma link add rxe0 type rxe netdev IF), and, in a container, that "
	"/dev/infiniband is passed in.";

static int cmp_dev(const void *a, const void *b)
{
	return strcmp(((const struct rdma_dev *)a)->name, ((const struct rdma_dev *)b)->name);
}

/*
 * The live node: RDMA netlink first, verbs for what it lacks (or for
 * everything when netlink is unavailable), sysfs for the rest.
 */
static int live_load(const struct ctx *ctx, struct rdma_node *node, unsigned int what)
{
	size_t d;
	unsigned int p;
	int ret;

	ret = rdma_nl_load(ctx, node, what);
	if (ret) {
		log_info(ctx, "RDMA netlink unavailable (%s): using verbs only", strerror(-ret));
		rdma_node_free(node);
	}
	ret = rdma_verbs_load(ctx, node, what);
	if (ret)
		return ret;
	for (d = 0; d < node->n; d++) {
		rdma_sysfs_dev_extras(ctx, &node->devs[d]);
		for (p = 0; node->devs[d].ports && p < node->devs[d].nports; p++)
			rdma_sysfs_port_netdev(ctx, &node->devs[d], &node->devs[d].ports[p]);
	}
	if (node->n)
		qsort(node->devs, node->n, sizeof(*node->devs), cmp_dev);
	return 0;
}

int rdma_node_load(const struct ctx *ctx, struct rdma_node *node, unsigned int what)
{
	const char *failed;
	int ret;

	memset(node, 0, sizeof(*node));
	ret = ctx->root[0] ? rdma_sysfs_load(ctx, node, what) : live_load(ctx, node, what);
	/* GIDs of all devices at once: one verbs call per device, side by side. */
	if (!ret && (what & RDMA_LOAD_GIDS) == RDMA_LOAD_GIDS)
		ret = rdma_node_load_gids(ctx, node, NULL, &failed);
	if (ret)
		rdma_node_free(node);
	return ret;
}

int verbs_devices(const struct ctx *ctx, char **names)
{
	struct ibv_device **list;
	size_t len = 0;
	FILE *f;
	int i, n = 0, ret;

	*names = NULL;
	if (ctx->root[0]) {
		ret = read_file(ctx, VERBS_DEVICES_RECORDING, 1 << 20, names, NULL);
		return ret == -ENOENT ? -ENODATA : ret;
	}
	f = open_memstream(names, &len);
	if (!f)
		return -errno;
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		fprintf(f, "%s\n", ibv_get_device_name(list[i]));
	if (list)
		ibv_free_device_list(list);
	if (fclose(f)) {
		free(*names);
		*names = NULL;
		return -ENOMEM;
	}
	return 0;
}

bool verbs_devices_has(const char *names, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = names; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n'))
		if (strcspn(p, "\n") == n && !strncmp(p, name, n))
			return true;
	return false;
}
