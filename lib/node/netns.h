/* SPDX-License-Identifier: MIT */
/*
 * The RDMA subsystem's network-namespace mode and what it hides.  In
 * shared mode (the default) every network namespace sees every RDMA
 * device; in exclusive mode (`rdma system set netns exclusive`, what
 * Kubernetes' RDMA CNI wants) each device belongs to one namespace, and a
 * container's namespace sees only the devices moved into it
 * (`rdma dev set DEV netns NS`).  The verbs character devices are not
 * namespaced: /sys/class/infiniband_verbs/uverbsN/ibdev still names the
 * devices of other namespaces, which is how this tells "none here" from
 * "none at all".
 */
#ifndef RDMACTL_NETNS_H
#define RDMACTL_NETNS_H

#include <stdbool.h>
#include <stddef.h>

struct ctx;
struct rdma_node;

enum rdma_netns_mode {
	NETNS_UNKNOWN = -1,
	NETNS_EXCLUSIVE = 0,
	NETNS_SHARED = 1,
};

#define NETNS_HIDDEN_MAX 64

struct rdma_netns {
	enum rdma_netns_mode mode;
	/* Devices the kernel has that @node (this namespace) does not list. */
	char hidden[NETNS_HIDDEN_MAX][64];
	size_t n_hidden;
};

/*
 * The mode from RDMA netlink (`rdma system show`), else from ib_core's
 * netns_mode parameter (/sys/module/ib_core/parameters/netns_mode, "Y" or
 * "N", which the kernel keeps in step; all --root has); and the devices
 * of other namespaces.  Never fails: what cannot be read stays unknown.
 */
void rdma_netns_load(const struct ctx *ctx, const struct rdma_node *node, struct rdma_netns *out);

const char *rdma_netns_mode_str(enum rdma_netns_mode mode);	/* "shared", "exclusive", NULL */
/*
 * Why this namespace sees no RDMA device, and the fix, when exclusive mode
 * explains it: false (and nothing written) in any other mode.
 */
bool rdma_netns_explain(const struct rdma_netns *ns, char *why, size_t wlen, char *fix, size_t flen);

/* "mlx5_0, mlx5_1": the hidden devices, for messages. */
char *rdma_netns_hidden_list(const struct rdma_netns *ns, char *buf, size_t len);

#endif
