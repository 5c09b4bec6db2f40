// SPDX-License-Identifier: MIT
/* What every backend uses to build the model: growing it device by device. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/rdma_backend.h"

struct rdma_dev *rdma_node_add(struct rdma_node *node, const char *name)
{
	struct rdma_dev *devs, *dev;

	devs = realloc(node->devs, (node->n + 1) * sizeof(*devs));
	if (!devs)
		return NULL;
	node->devs = devs;
	dev = &devs[node->n++];
	memset(dev, 0, sizeof(*dev));
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->numa_node = -1;
	return dev;
}

int rdma_dev_alloc_ports(struct rdma_dev *dev, unsigned int n)
{
	unsigned int i;

	if (dev->ports || !n)
		return 0;
	dev->ports = calloc(n, sizeof(*dev->ports));
	if (!dev->ports)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		dev->ports[i].num = i + 1;
	return 0;
}
