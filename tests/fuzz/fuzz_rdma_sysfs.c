// SPDX-License-Identifier: MIT
/*
 * The RDMA model read from a recorded sysfs tree (--root): devices, ports,
 * GID tables with their types and netdevs, PCI/NUMA/provider, the netdevs
 * of the ports; then what commands do with it: the GID a job should use,
 * the names and strings printed, and the NODE_INFO text a probe server
 * sends for `doctor --peer`.  Input: a tree (fuzz.h) below sys/, proc/,
 * etc/ and run/rdmactl/.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor_peer.h"
#include "fuzz.h"
#include "node/gids.h"
#include "node/netdev.h"
#include "node/nodeinfo.h"
#include "node/rdma.h"
#include "node/rdma_load.h"

static const char *const prefixes[] = { "sys/", "proc/", "etc/", "run/rdmactl/", NULL };

static void gids_sane(const struct rdma_port *p)
{
	char buf[64];
	struct gid_choice c;
	const char *why = NULL;
	size_t i;
	int v6;

	if (p->n_gids && !p->gids)
		fuzz_fail("%zu GIDs without a table", p->n_gids);
	for (i = 0; i < p->n_gids; i++) {
		const struct rdma_gid *g = &p->gids[i];

		if (!memchr(g->netdev, 0, sizeof(g->netdev)))
			fuzz_fail("GID %u netdev not terminated", g->index);
		gid_str(g->raw, buf, sizeof(buf));
		gid_ipv4(g->raw, buf, sizeof(buf));
		gid_type_str(g->type);
	}
	for (v6 = 0; v6 < 2; v6++) {
		if (gid_choose(p, v6, NULL, &c) != (c.gid != NULL))
			fuzz_fail("gid_choose's answer and its choice disagree");
		if (c.gid && (c.gid < p->gids || c.gid >= p->gids + p->n_gids))
			fuzz_fail("gid_choose chose outside the table");
		if (!memchr(c.why, 0, sizeof(c.why)) || !memchr(c.fix, 0, sizeof(c.fix)))
			fuzz_fail("gid_choose text not terminated");
		gid_choose(p, v6, p->netdev[0] ? p->netdev : "eth0", &c);
		gid_recommend(p, v6, &why);
	}
}

static void port_sane(const struct ctx *ctx, const struct rdma_port *p)
{
	struct netdev_info ni;

	if (!memchr(p->rate, 0, sizeof(p->rate)) || !memchr(p->netdev, 0, sizeof(p->netdev)))
		fuzz_fail("port %u: rate or netdev not terminated", p->num);
	port_state_str(p->state);
	phys_state_str(p->phys_state);
	link_layer_str(p->link_layer);
	gids_sane(p);
	memset(&ni, 0, sizeof(ni));
	if (p->netdev[0] && !netdev_get(ctx, p->netdev, &ni))
		netdev_info_free(&ni);
}

static void node_sane(const struct ctx *ctx, const struct rdma_node *node)
{
	char buf[512];
	size_t i;
	unsigned int j;

	rdma_dev_names(node, buf, sizeof(buf));
	rdma_dev_names(node, buf, 8);
	for (i = 0; i < node->n; i++) {
		const struct rdma_dev *d = &node->devs[i];

		if (!memchr(d->name, 0, sizeof(d->name)) || !memchr(d->fw_ver, 0, sizeof(d->fw_ver)) ||
		    !memchr(d->pci, 0, sizeof(d->pci)) || !memchr(d->driver, 0, sizeof(d->driver)))
			fuzz_fail("device %zu: a name not terminated", i);
		if (rdma_dev_find(node, d->name) == NULL)
			fuzz_fail("device '%s' cannot be found by its name", d->name);
		guid_str(d->node_guid, buf, sizeof(buf));
		node_type_str(d->node_type);
		if (d->nports && !d->ports)
			fuzz_fail("device %s: %u ports not loaded", d->name, d->nports);
		for (j = 0; j < d->nports; j++) {
			port_sane(ctx, &d->ports[j]);
			if (rdma_port_find(d, d->ports[j].num) == NULL)
				fuzz_fail("port %u of %s cannot be found", d->ports[j].num, d->name);
		}
	}
}

/* FUZZ_VERBOSE=1: what a seed loads, to check it reaches the code it is for. */
static void node_show(const struct rdma_node *node)
{
	size_t i;
	unsigned int j;

	for (i = 0; i < node->n; i++)
		for (j = 0; j < node->devs[i].nports; j++)
			fprintf(stderr, "%s/%u: %zu GIDs, netdev '%s', %s\n", node->devs[i].name,
				node->devs[i].ports[j].num, node->devs[i].ports[j].n_gids,
				node->devs[i].ports[j].netdev,
				port_state_str(node->devs[i].ports[j].state));
}

static void check_node_info(struct ctx *ctx)
{
	static char buf[NODE_INFO_MAX + 1];
	struct json_object *o;

	if (node_info(ctx, buf, sizeof(buf)))
		return;
	if (strlen(buf) > NODE_INFO_MAX)
		fuzz_fail("NODE_INFO of %zu bytes", strlen(buf));
	o = node_info_parse(buf);
	if (!o)
		fuzz_fail("NODE_INFO is not a JSON object: %.80s", buf);
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rdma_node node;
	struct ctx ctx;

	if (size > 65536)
		return 0;
	fuzz_root_init();
	fuzz_tree_write(data, size, prefixes);
	ctx = fuzz_ctx("devices");
	memset(&node, 0, sizeof(node));
	if (!rdma_node_load(&ctx, &node, RDMA_LOAD_GIDS)) {
		node_sane(&ctx, &node);
		if (getenv("FUZZ_VERBOSE"))
			node_show(&node);
		rdma_node_free(&node);
	}
	memset(&node, 0, sizeof(node));
	if (!rdma_node_load(&ctx, &node, 0))
		rdma_node_free(&node);
	check_node_info(&ctx);
	return 0;
}
