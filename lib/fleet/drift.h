/* SPDX-License-Identifier: MIT */
/*
 * Drift: facts that should be one value across a fleet, read from the
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
 * Null is a value only where it says something (ofed: inbox drivers,
 * env.NAME: unset, rdma_core: libibverbs not found, a set: none).  A node
 * whose kernel, memlock limit or active ports are null, missing, or not a
 * text or number, or whose document lacks the array or object a fact is
 * read from, could not read the fact: it is listed as not read, in no
 * value's group, given no fix and not singled out.  A node with no HCA of
 * a model is left out of that model's fw_ver.  The majority is the value
 * of more than half of the nodes that read the fact; without one (a tie,
 * or minorities only) every value is listed with its nodes and no node is
 * singled out.
 */
#ifndef RDMACTL_DRIFT_H
#define RDMACTL_DRIFT_H

#include <stdbool.h>

struct fleet;
struct json_object;

/*
 * The facts of @fleet's nodes (finished) that are not one value everywhere,
 * or that some node could not read, in the order above, as rows of the
 * report's "drift" table:
 *   {"fact", "majority", "majority_count", "majority_nodes",
 *    "differs": [{"value", "count", "nodes"}], "fix",
 *    "not_read": {"count", "nodes"} or null}
 * majority and majority_nodes are null without a majority (majority_count
 * 0); values are strings or null; nodes are folded hostlists; fix says
 * how to bring the odd nodes in line where one command does, else null.
 * @odd[i] is set for each node fleet->nodes[i] singled out by a majority.
 * NULL when out of memory.
 */
struct json_object *drift_rows(const struct fleet *fleet, bool *odd);

#endif
