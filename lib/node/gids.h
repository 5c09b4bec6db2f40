/* SPDX-License-Identifier: MIT */
/*
 * GID tables: loading them (verbs live, sysfs with --root) and choosing the
 * entry a job should use, with the reason and the fix when there is none.
 */
#ifndef RDMACTL_GIDS_H
#define RDMACTL_GIDS_H

#include <stdbool.h>
#include <stdint.h>

#include "node/rdma.h"

struct ctx;

/*
 * Load the GID tables of every port of @dev: live with one
 * ibv_query_gid_table() call (sysfs when verbs fails), with --root from
 * sysfs.  0 or -errno.
 */
int rdma_dev_load_gids(const struct ctx *ctx, struct rdma_dev *dev);

/*
 * The same for every device of @node (only the one named @only when not
 * NULL), devices read side by side.  0 or -errno, with *@failed naming the
 * device that failed.
 */
int rdma_node_load_gids(const struct ctx *ctx, struct rdma_node *node, const char *only,
			const char **failed);

/* "RoCE v2", "IB/RoCE v1" (gid_attrs/types/N) on a port of link layer @ll. */
enum gid_type gid_type_parse(const char *s, enum link_layer ll);
/* "fe80:0000:0000:0000:5aa2:e1ff:feb0:3772" -> 16 bytes; 0 or -EINVAL. */
int gid_parse(const char *s, uint8_t raw[16]);
/* An entry the kernel has not filled: all zero, or fe80:: with a zero interface ID. */
bool gid_unset(const uint8_t raw[16]);

/* Why no GID could be chosen. */
enum gid_problem {
	GID_FOUND,
	GID_NO_ENTRIES,		/* the table (on that netdev) is empty */
	GID_NO_ADDRESS,		/* no GID carries an address of the family */
	GID_TYPES_UNKNOWN,	/* the kernel would not say which are RoCE v2 */
	GID_NO_ROCE_V2,		/* the addresses sit only on RoCE v1 entries */
	GID_UNREADABLE,		/* an entry at or below the one to choose could not be read */
};

struct gid_choice {
	const struct rdma_gid *gid;	/* NULL when none */
	enum gid_problem problem;
	unsigned int candidates;	/* entries that qualify; the first is chosen */
	char why[192];
	char fix[128];			/* a command to run, or "" */
};

/*
 * The GID a job should use on @port: RoCE v2, IPv4 (IPv6 with @ipv6), never
 * link-local, the lowest index of those; only entries on @netdev when it is
 * not NULL, and where @netdev is the port's own, on the netdevs stacked on
 * it too (rdma_gid.stacked: a VLAN carrying the address).  On InfiniBand,
 * the port GID.  Fills @c; true when one was found.
 */
bool gid_choose(const struct rdma_port *port, bool ipv6, const char *netdev,
		struct gid_choice *c);

/*
 * Read the GID table of @port (its non-empty entries) into port->gids;
 * entries whose type or netdev the kernel will not give are kept with
 * GID_TYPE_UNKNOWN.  0 or -errno.
 */
int rdma_port_load_gids(const struct ctx *ctx, const struct rdma_dev *dev,
			struct rdma_port *port);

/*
 * The GID a job should use on @port: RoCE v2, IPv4 unless @ipv6, never
 * link-local; NULL when there is none.  *@why says why this one, or why none.
 */
const struct rdma_gid *gid_recommend(const struct rdma_port *port, bool ipv6, const char **why);

#endif
