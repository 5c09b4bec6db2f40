// SPDX-License-Identifier: MIT
/* The model's helpers shared by every backend: lookup, parsing, formatting. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "opt.h"
#include "rdma.h"
#include "rdma_backend.h"

int rdma_node_load(const struct ctx *ctx, struct rdma_node *node, unsigned int what)
{
	size_t d;
	unsigned int p;
	int ret;

	memset(node, 0, sizeof(*node));
	ret = ctx->root[0] ? rdma_sysfs_load(ctx, node, what) : rdma_verbs_load(ctx, node);
	for (d = 0; !ret && (what & RDMA_LOAD_GIDS) == RDMA_LOAD_GIDS && d < node->n; d++)
		for (p = 0; !ret && p < node->devs[d].nports; p++)
			ret = rdma_port_load_gids(ctx, &node->devs[d], &node->devs[d].ports[p]);
	if (ret)
		rdma_node_free(node);
	return ret;
}

void rdma_node_free(struct rdma_node *node)
{
	size_t d, p;

	for (d = 0; d < node->n; d++) {
		for (p = 0; p < node->devs[d].nports; p++)
			free(node->devs[d].ports[p].gids);
		free(node->devs[d].ports);
	}
	free(node->devs);
	node->devs = NULL;
	node->n = 0;
}

struct rdma_dev *rdma_dev_find(const struct rdma_node *node, const char *name)
{
	size_t i;

	for (i = 0; i < node->n; i++)
		if (!strcmp(node->devs[i].name, name))
			return &node->devs[i];
	return NULL;
}

char *rdma_dev_names(const struct rdma_node *node, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < node->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					node->devs[i].name);
	return buf;
}

struct rdma_port *rdma_port_find(const struct rdma_dev *dev, unsigned int num)
{
	unsigned int i;

	for (i = 0; i < dev->nports; i++)
		if (dev->ports[i].num == num)
			return &dev->ports[i];
	return NULL;
}

int rdma_parse_devport(const char *s, char *dev, size_t devlen, unsigned int *port)
{
	size_t n = strcspn(s, "/:");
	long v = 0;

	if (n == 0 || n >= devlen)
		return -EINVAL;
	memcpy(dev, s, n);
	dev[n] = '\0';
	*port = 0;
	if (!s[n])
		return 0;
	if (parse_long(s + n + 1, 1, 255, &v))
		return -EINVAL;
	*port = (unsigned int)v;
	return 0;
}

char *guid_str(uint64_t guid, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%04x:%04x:%04x", (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff, (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
	return buf;
}

char *gid_str(const uint8_t raw[16], char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < 16 && off < len; i += 2)
		off += (size_t)snprintf(buf + off, len - off, "%s%02x%02x", i ? ":" : "",
					raw[i], raw[i + 1]);
	return buf;
}

bool gid_ipv4(const uint8_t raw[16], char *buf, size_t len)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	/* Only a true IPv4-mapped address (::ffff:a.b.c.d) carries an IPv4 address. */
	if (memcmp(raw, prefix, sizeof(prefix)))
		return false;
	return inet_ntop(AF_INET, raw + 12, buf, (socklen_t)len) != NULL;
}

bool gid_is_empty(const uint8_t raw[16])
{
	static const uint8_t zero[16];

	return !memcmp(raw, zero, 16);
}

bool gid_is_link_local(const uint8_t raw[16])
{
	/* fe80::/10 */
	return raw[0] == 0xfe && (raw[1] & 0xc0) == 0x80;
}

const char *gid_type_str(enum gid_type t)
{
	switch (t) {
	case GID_TYPE_IB:
		return "IB";
	case GID_TYPE_ROCE_V1:
		return "v1";
	case GID_TYPE_ROCE_V2:
		return "v2";
	default:
		return "unknown";
	}
}

const char *link_layer_str(enum link_layer l)
{
	switch (l) {
	case LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case LINK_LAYER_ETHERNET:
		return "Ethernet";
	default:
		return "unknown";
	}
}

const char *port_state_str(int state)
{
	static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };

	return state >= 0 && state < (int)(sizeof(names) / sizeof(names[0])) ? names[state] : "unknown";
}

const char *phys_state_str(int phys)
{
	static const char *const names[] = { "NOP", "Sleep", "Polling", "Disabled",
		"PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "PhyTest" };

	return phys >= 0 && phys < (int)(sizeof(names) / sizeof(names[0])) ? names[phys] : "unknown";
}

const char *node_type_str(int type)
{
	/* enum ibv_node_type: 1 CA, 2 switch, 3 router, 4 RNIC, 5 usNIC, 6 usNIC UDP, 7 unspecified */
	static const char *const names[] = { "unknown", "CA", "switch", "router", "RNIC",
		"usNIC", "usNIC_UDP", "unspecified" };

	return type >= 0 && type < (int)(sizeof(names) / sizeof(names[0])) ? names[type] : "unknown";
}
