/* SPDX-License-Identifier: MIT */
/*
 * Drift: facts that should be one value across a cluster, read from the
 * "node" object of each node's doctor document (node/nodeinfo.h), and the
 * nodes that differ.  Each fact is one value per node, a text (numbers as
 * decimals, sets sorted and joined with ","), or null for none:
 *
 *   kernel, rdma_core, ofed      the versions (ofed null: inbox drivers)
 *   fw_ver MODEL                 firmware of the node's HCAs of that model
 *                                (hca_type, else board_id; else the provider)
 *   provider, link_layer         the set of providers, of link layers
 *   active_mtu, netdev_mtu       the set of the ports' MTUs
 *   gid_index                    the set of the ports' recommended GID indexes
 *   memlock.shell|pam|systemd    the soft limits
 *   env.NAME                     each NCCL_* and UCX_* variable any node has
 *                                (null where unset: set on some nodes only is drift)
 *   active_ports                 how many ports are ACTIVE
 *
 * A node without the fact (an older document, no HCA of that model) is
 * left out of it.  The majority is the value of more than half of the
 * nodes that have the fact; without one (a tie, or minorities only) every
 * value is listed with its nodes and no node is singled out.
 */
#ifndef RDMACTL_DRIFT_H
#define RDMACTL_DRIFT_H

#include <stdbool.h>

struct cluster;
struct json_object;

/*
 * The facts of @cl's nodes (finished) that are not one value everywhere,
 * in the order above, as rows of the report's "drift" table:
 *   {"fact", "majority", "majority_count", "majority_nodes",
 *    "differs": [{"value", "count", "nodes"}], "fix"}
 * majority and majority_nodes are null without a majority (majority_count
 * 0); values are strings or null; nodes are folded hostlists; fix says
 * how to bring the odd nodes in line where one command does, else null.
 * @odd[i] is set for each node cl->nodes[i] singled out by a majority.
 * NULL when out of memory.
 */
struct json_object *drift_rows(const struct cluster *cl, bool *odd);

#endif
