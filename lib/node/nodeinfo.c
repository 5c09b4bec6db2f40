// SPDX-License-Identifier: MIT
/* This node's facts for a peer's `rdmactl doctor --peer` (see nodeinfo.h). */
#include <errno.h>
#include <stdio.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/sysfs.h"
#include "node/gids.h"
#include "node/limits.h"
#include "node/netdev.h"
#include "node/nodeinfo.h"
#include "node/rdma_load.h"
#include "node/versions.h"

#ifndef RDMACTL_VERSION
#define RDMACTL_VERSION "unknown"
#endif

static void add_str(struct json_object *o, const char *key, const char *val)
{
	json_object_object_add(o, key, val && *val ? json_object_new_string(val) : NULL);
}

static struct json_object *port_info(const struct ctx *ctx, const struct rdma_dev *dev,
				     const struct rdma_port *p, unsigned int flags)
{
	struct json_object *o = json_object_new_object();
	char gs[48], v4[INET_ADDRSTRLEN] = "";
	struct gid_choice c;
	int mtu = 0;

	if (!o)
		return NULL;
	add_str(o, "dev", dev->name);
	json_object_object_add(o, "port", json_object_new_int((int)p->num));
	add_str(o, "state", port_state_str(p->state));
	if (flags & NODE_FACTS_FULL)
		add_str(o, "link_layer", link_layer_str(p->link_layer));
	add_str(o, "netdev", p->netdev);
	if (p->netdev[0] && !netdev_sysfs_mtu(ctx, p->netdev, &mtu))
		json_object_object_add(o, "netdev_mtu", json_object_new_int(mtu));
	json_object_object_add(o, "active_mtu", json_object_new_int(p->active_mtu));
	json_object_object_add(o, "max_mtu", json_object_new_int(p->max_mtu));
	if (gid_choose(p, false, p->netdev[0] ? p->netdev : NULL, &c)) {
		json_object_object_add(o, "gid_index", json_object_new_int((int)c.gid->index));
		add_str(o, "gid", gid_str(c.gid->raw, gs, sizeof(gs)));
		gid_ipv4(c.gid->raw, v4, sizeof(v4));
		add_str(o, "ipv4", v4);
	}
	return o;
}

static void node_facts(const struct ctx *ctx, struct json_object *o)
{
	char kernel[128] = "", core[32] = "", lib[256], ofed[128] = "", lim[32];
	struct memlock m;

	add_str(o, "software", "rdmactl " RDMACTL_VERSION);
	read_line(ctx, "/proc/sys/kernel/osrelease", kernel, sizeof(kernel));
	add_str(o, "kernel", kernel);
	if (!rdma_core_version(ctx, core, sizeof(core), lib, sizeof(lib)))
		core[0] = '\0';
	add_str(o, "rdma_core", core);
	/* null: no MLNX_OFED; left out when a --root tree did not record it (unknown). */
	if (ofed_version(ctx, ofed, sizeof(ofed)) != -ENODATA)
		add_str(o, "ofed", ofed);
	if (!limits_process(ctx, 0, &m))
		add_str(o, "memlock_shell", memlock_str(m.soft, lim, sizeof(lim)));
}

/* Ports, dropping the last ones until the text fits @len. */
static int render(struct json_object *o, struct json_object *ports, char *buf, size_t len)
{
	const char *text;
	size_t n;

	for (;;) {
		text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							    JSON_C_TO_STRING_NOSLASHESCAPE);
		if (strlen(text) < len && strlen(text) <= NODE_INFO_MAX) {
			memcpy(buf, text, strlen(text) + 1);
			return 0;
		}
		n = json_object_array_length(ports);
		if (!n)
			return -E2BIG;
		json_object_array_del_idx(ports, n - 1, 1);
	}
}

/* "MT4125 fw 22.36.1010": the HCA model (hca_type, else board_id) of @dev. */
static struct json_object *dev_info(const struct ctx *ctx, const struct rdma_dev *dev)
{
	struct json_object *o = json_object_new_object();
	char path[256], model[64] = "";

	if (!o)
		return NULL;
	add_str(o, "dev", dev->name);
	add_str(o, "provider", dev->driver);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/hca_type", dev->name);
	if (read_line(ctx, path, model, sizeof(model)) <= 0) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/board_id", dev->name);
		if (read_line(ctx, path, model, sizeof(model)) <= 0)
			model[0] = '\0';
	}
	add_str(o, "model", model);
	add_str(o, "fw_ver", dev->fw_ver);
	return o;
}

/* The variables a job started from this shell would see, for drift. */
static struct json_object *job_env(void)
{
	struct json_object *o = json_object_new_object();
	extern char **environ;
	char **e;

	for (e = environ; o && e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char name[128];

		if (!eq || (strncmp(*e, "NCCL_", 5) && strncmp(*e, "UCX_", 4)) ||
		    (size_t)(eq - *e) >= sizeof(name))
			continue;
		memcpy(name, *e, (size_t)(eq - *e));
		name[eq - *e] = '\0';
		json_object_object_add(o, name, json_object_new_string(eq + 1));
	}
	return o;
}

static void memlock_facts(const struct ctx *ctx, struct json_object *o)
{
	struct json_object *m = json_object_new_object();
	struct memlock l;
	char lim[32];

	if (!m)
		return;
	if (!limits_process(ctx, 0, &l))
		add_str(m, "shell", memlock_str(l.soft, lim, sizeof(lim)));
	if (!limits_pam(ctx, NULL, &l))
		add_str(m, "pam", memlock_str(l.soft, lim, sizeof(lim)));
	if (!limits_systemd(ctx, &l))
		add_str(m, "systemd", memlock_str(l.soft, lim, sizeof(lim)));
	json_object_object_add(o, "memlock", m);
}

/* What a cluster report compares across nodes (NODE_FACTS_FULL). */
static void full_facts(const struct ctx *ctx, const struct rdma_node *node,
		       struct json_object *o)
{
	struct json_object *devs = json_object_new_array();
	char host[256] = "";
	size_t i;
	unsigned int j, active = 0;

	gethostname(host, sizeof(host) - 1);
	add_str(o, "hostname", ctx->root[0] ? NULL : host);
	memlock_facts(ctx, o);
	json_object_object_add(o, "env", job_env());
	for (i = 0; node && i < node->n; i++) {
		json_object_array_add(devs, dev_info(ctx, &node->devs[i]));
		for (j = 0; node->devs[i].ports && j < node->devs[i].nports; j++)
			active += node->devs[i].ports[j].state == 4;	/* IBV_PORT_ACTIVE */
	}
	json_object_object_add(o, "devices", devs);
	json_object_object_add(o, "active_ports", json_object_new_int((int)active));
}

struct json_object *node_facts_json(struct ctx *ctx, const struct rdma_node *node,
				    unsigned int flags)
{
	struct json_object *o = json_object_new_object(), *ports = json_object_new_array();
	size_t i;
	unsigned int j;

	if (!o || !ports) {
		json_object_put(o);
		json_object_put(ports);
		return NULL;
	}
	node_facts(ctx, o);
	if (flags & NODE_FACTS_FULL)
		full_facts(ctx, node, o);
	for (i = 0; node && i < node->n; i++)
		for (j = 0; node->devs[i].ports && j < node->devs[i].nports; j++)
			json_object_array_add(ports, port_info(ctx, &node->devs[i],
							       &node->devs[i].ports[j], flags));
	json_object_object_add(o, "ports", ports);
	return o;
}

int node_info(struct ctx *ctx, char *buf, size_t len)
{
	struct rdma_node node;
	struct json_object *o, *ports;
	int ret, node_err;

	node_err = rdma_node_load(ctx, &node, RDMA_LOAD_GIDS);
	o = node_facts_json(ctx, node_err ? NULL : &node, 0);
	if (!node_err)
		rdma_node_free(&node);
	if (!o)
		return -ENOMEM;
	json_object_object_get_ex(o, "ports", &ports);
	ret = render(o, ports, buf, len);
	json_object_put(o);
	return ret;
}

struct json_object *node_info_parse(const char *text)
{
	struct json_object *o = json_tokener_parse(text);

	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
