/* SPDX-License-Identifier: MIT */
/*
 * The fabric's switch tree (`probe -w --topology FILE|slurm`), as Slurm's
 * topology/tree plugin reads it from topology.conf and `scontrol show
 * topology` prints it (the format NVIDIA topograph writes):
 *
 *   # leaves, then the switch above them
 *   SwitchName=leaf1 Nodes=gpu[001-032] LinkSpeed=400
 *   SwitchName=leaf2 Nodes=gpu[033-064]
 *   SwitchName=spine Switches=leaf[1-2]
 *
 * The link map (linkmap.h) names a switch's uplink (its link to its
 * parent) or a leaf switch by it; the triage pattern pairs nodes inside
 * each leaf and across the tree (triage.c).
 */
#ifndef RDMACTL_TOPOLOGY_H
#define RDMACTL_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOPO_NONE UINT32_MAX

struct topo_switch {
	char *name;
	uint32_t parent;	/* TOPO_NONE: the root */
	uint32_t depth;		/* the root 0 */
	uint64_t link_speed;	/* LinkSpeed= as given (Slurm's unit is the site's), 0 none */
	bool leaf;		/* Nodes= (its nodes hang on it) */
	uint32_t line;		/* where it was defined */
};

struct topology {
	struct topo_switch *sw;
	uint32_t nsw, root;
	uint32_t nodes;		/* the run's */
	uint32_t *leaf;		/* [nodes]: the leaf switch the run's node i hangs on */
};

/*
 * Read @text, topology.conf (@scontrol false) or `scontrol show topology`
 * (@scontrol true: Level= and the other keys scontrol adds are skipped, a
 * switch's Nodes= beside Switches= is the union scontrol prints), for the
 * run's @n nodes @names.  Slurm's rules (src/common/parse_config.c's
 * _get_next_line(): the comment stripped first, then a trailing `\` joins
 * the next line; the topology/tree plugin's keys): keys are
 * case-insensitive, `#` starts a comment, Switches= and Nodes= are
 * hostlists.  Slurm's escapes (`\#` a literal #) are not read: no name
 * of a switch or node holds one.  Keys: SwitchName (first on its line), Switches,
 * Nodes, LinkSpeed.  -EINVAL with one line in @err, prefixed "FILE:LINE: "
 * where a line is to blame, naming the bad value: an unknown key, a switch
 * defined twice, a switch with no Nodes= or Switches= (or, in a file,
 * both), a child switch not defined or under two parents, a loop, two
 * roots (a tree has one top), a node under two leaves, a node of @names
 * under no switch.  Nodes the file names and @names does not are left
 * out.  0 or -ENOMEM; @t for topology_free() either way.
 */
int topology_parse(const char *text, const char *file, bool scontrol, char *const *names,
		   uint32_t n, struct topology *t, char *err, size_t errlen);

void topology_free(struct topology *t);

/* Switch @a is @b or below it. */
bool topology_under(const struct topology *t, uint32_t a, uint32_t b);

/* The lowest switch above (or equal to) both @a and @b. */
uint32_t topology_common(const struct topology *t, uint32_t a, uint32_t b);

/*
 * The run's nodes on leaf switch @s (@names: the run's), folded as a
 * hostlist ("gpu[001-032]") in *@out (owned).  0; -ENOENT when none hangs
 * on @s; -EINVAL when a name cannot be folded (not a host name);
 * -ENOMEM.
 */
int topology_leaf_nodes(const struct topology *t, char *const *names, uint32_t s, char **out);

/*
 * The tree for a document (probe -w's run.topology): [{switch, parent
 * (null: the root), nodes (a leaf's nodes of the run; null above),
 * hostlist (a leaf's nodes by name, topology_leaf_nodes(); null above or
 * when they cannot be folded)}], in the file's order.  NULL when out of
 * memory.
 */
struct json_object;
struct json_object *topology_json(const struct topology *t, char *const *names);

#endif
