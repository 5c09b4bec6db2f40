// SPDX-License-Identifier: MIT
/*
 * Slurm's switch tree (lib/mesh/topology.c): topology.conf and `scontrol
 * show topology` read into one tree with the run's nodes on their leaves;
 * every bad input one line naming its value.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mesh/topology.h"
#include "test.h"

static char *names[] = { "gpu01", "gpu02", "gpu03", "gpu04", "gpu05", "gpu06" };

static void conf_tree(void)
{
	static const char conf[] =
		"# a two-tier fabric\n"
		"SwitchName=leaf1 Nodes=gpu[01-02] LinkSpeed=400  # rack 1\n"
		"switchname=leaf2 nodes=gpu[03-04],other9\n"
		"SwitchName=leaf3 \\\n"
		"   Nodes=gpu[05-06]\n"
		"\n"
		"SwitchName=spine Switches=leaf[1-3]\n";
	struct topology t;
	char err[512] = "";

	CHECK_INT(topology_parse(conf, "topology.conf", false, names, 6, &t, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_INT(t.nsw, 4);
	CHECK_STR(t.sw[t.root].name, "spine");
	CHECK_STR(t.sw[t.leaf[0]].name, "leaf1");
	CHECK_STR(t.sw[t.leaf[3]].name, "leaf2");
	CHECK_STR(t.sw[t.leaf[5]].name, "leaf3");
	CHECK_INT(t.sw[t.leaf[5]].line, 4);
	CHECK_INT(t.sw[t.leaf[0]].link_speed, 400);
	CHECK_INT(t.sw[t.leaf[0]].depth, 1);
	CHECK(t.sw[t.leaf[0]].leaf && !t.sw[t.root].leaf);
	CHECK_INT(topology_common(&t, t.leaf[0], t.leaf[4]), t.root);
	CHECK(topology_under(&t, t.leaf[2], t.root));
	topology_free(&t);
}

static void scontrol_tree(void)
{
	static const char out[] =
		"SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=gpu[01-03]\n"
		"SwitchName=leaf2 Level=0 LinkSpeed=1 Nodes=gpu[04-06]\n"
		"SwitchName=top Level=1 LinkSpeed=1 Nodes=gpu[01-06] Switches=leaf[1-2]\n";
	struct topology t;
	char err[512] = "";

	CHECK_INT(topology_parse(out, "scontrol show topology", true, names, 6, &t, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_STR(t.sw[t.root].name, "top");
	CHECK_STR(t.sw[t.leaf[2]].name, "leaf1");
	CHECK_STR(t.sw[t.leaf[3]].name, "leaf2");
	topology_free(&t);
	/* The same lines are no topology.conf: Level= is scontrol's. */
	CHECK_INT(topology_parse(out, "f", false, names, 6, &t, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "f:1: unknown key 'Level' (SwitchName, Switches, Nodes, LinkSpeed)");
	topology_free(&t);
}

static void bad_one(const char *text, const char *want)
{
	struct topology t;
	char err[512] = "";

	CHECK_INT(topology_parse(text, "f", false, names, 6, &t, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, want);
	topology_free(&t);
}

static void conf_errors(void)
{
	bad_one("SwitchName=a Nodes=gpu[01-05]\n", "f: node 'gpu06' of -w is under no switch");
	bad_one("SwitchName=a Nodes=gpu[01-06]\nSwitchName=a Switches=a\n",
		"f:2: switch 'a' is defined twice (first on line 1)");
	bad_one("SwitchName=a Nodes=gpu[01-03]\nSwitchName=b Nodes=gpu[03-06]\nSwitchName=c Switches=a,b\n",
		"f:2: node 'gpu03' is under two leaves, 'a' (line 1) and 'b'");
	bad_one("SwitchName=a Nodes=gpu[01-03]\nSwitchName=b Nodes=gpu[04-06]\n",
		"f:2: two roots, 'a' and 'b': a tree has one top switch");
	bad_one("SwitchName=a Nodes=gpu[01-06]\nSwitchName=b Switches=a,c\nSwitchName=c Switches=b\n",
		"f:3: switch 'c' is in a loop: it is below itself");
	bad_one("SwitchName=a Nodes=gpu[01-06]\nSwitchName=b Switches=a\nSwitchName=c Switches=a\n",
		"f:3: switch 'a' is under both 'b' and 'c'");
	bad_one("SwitchName=a Nodes=gpu[01-06] Speed=1\n",
		"f:1: unknown key 'Speed' (SwitchName, Switches, Nodes, LinkSpeed)");
	bad_one("Nodes=gpu[01-06] SwitchName=a\n", "f:1: expected SwitchName=, not 'Nodes=gpu[01-06]'");
	bad_one("SwitchName=a Nodes=gpu[01-06]\nSwitchName=b Switches=a,x\n",
		"f:2: switch 'x' of 'b' is not defined");
	bad_one("SwitchName=a\n", "f:1: switch 'a' has neither Nodes= nor Switches=");
	bad_one("SwitchName=a Nodes=gpu[3-1]\n", "f:1: Nodes= invalid hostlist 'gpu[3-1]': range 3-1 goes down");
	bad_one("SwitchName=a Nodes=gpu[01-06] LinkSpeed=fast\n", "f:1: bad LinkSpeed 'fast': a whole number");
	bad_one("# nothing\n\n", "f: no SwitchName= line");
	bad_one("SwitchName=a Nodes=gpu[01-06] Switches=b\nSwitchName=b Nodes=x\n",
		"f:1: switch 'a' has both Nodes= and Switches=: a leaf holds nodes, the switches above hold switches");
}

int main(void)
{
	RUN("topology", conf_tree);
	RUN("topology", scontrol_tree);
	RUN("topology", conf_errors);
	TEST_EXIT();
}
