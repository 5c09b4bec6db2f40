/* SPDX-License-Identifier: MIT */
/*
 * What a node tells `rdmactl doctor --peer` about itself: the probe
 * server answers NODE_INFO_REQ with this node's facts as one compact JSON
 * object (kernel, rdma-core, OFED, software, memlock, and each RoCE port's
 * state, MTUs and recommended GID), so the doctor compares both ends.
 *
 *   {"software":"rdmactl 0.1.0","kernel":"6.1.0-18-amd64","rdma_core":"44.0",
 *    "ofed":null,"memlock_shell":"unlimited",
 *    "ports":[{"dev":"rxe0","port":1,"state":"ACTIVE","netdev":"eth0",
 *              "netdev_mtu":1500,"active_mtu":1024,"max_mtu":4096,
 *              "gid_index":1,"gid":"0000:...:0a63:0002","ipv4":"10.99.0.2"}]}
 */
#ifndef RDMACTL_NODEINFO_H
#define RDMACTL_NODEINFO_H

#include <stddef.h>

struct ctx;
struct json_object;

/* At most this many bytes of JSON: fits one probe frame with its length. */
#define NODE_INFO_MAX 4000

/*
 * This node's facts as JSON text in @buf (NUL-terminated, at most
 * NODE_INFO_MAX bytes; ports are left out, last first, to fit).  The probe
 * server's NODE_INFO_REQ handler calls this.  0 or -errno.
 */
int node_info(struct ctx *ctx, char *buf, size_t len);

struct rdma_node;

enum node_facts_flags {
	/*
	 * Also what a cluster report compares across nodes: "hostname",
	 * "memlock" {shell, pam, systemd}, "env" (the NCCL_* and UCX_*
	 * variables), "devices" [{dev, provider, model, fw_ver}],
	 * "active_ports", and each port's "link_layer".
	 */
	NODE_FACTS_FULL = 1 << 0,
};

/*
 * This node's facts as a JSON object (as above), the ports those of
 * @node (NULL: none); NULL when out of memory.
 */
struct json_object *node_facts_json(struct ctx *ctx, const struct rdma_node *node,
				    unsigned int flags);

/* Parse a NODE_INFO text; NULL when it is not a JSON object. */
struct json_object *node_info_parse(const char *text);

#endif
