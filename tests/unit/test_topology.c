// SPDX-License-Identifier: MIT
/*
 * Slurm's switch tree (lib/mesh/topology.c): topology.conf and `scontrol
 * show topology` read into one tree with the run's nodes on their leaves;
 * every bad input one line naming its value.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/output.h"
#include "mesh/linkmap.h"
#include "mesh/resume.h"
#include "mesh/simfabric.h"
#include "mesh/stepper.h"
#include "mesh/topology.h"
#include "report/html_probe.h"
#include "report/linkview.h"
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

/* ---- the switch findings (lib/mesh/linkmap_switch.c) on made-up links ---- */

static char *lab[] = { "lab-a", "lab-b", "lab-c", "lab-d", "lab-e" };

/* Every directed link of @n nodes at 100 Gb/s, but those rate(a, b) says. */
static void fill(struct linkmap *m, uint32_t n, double (*rate)(uint32_t a, uint32_t b))
{
	uint32_t a, b;

	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++) {
			struct link_result r = { .client = a, .server = b, .ok = true, .lat_us = -1 };

			if (a == b)
				continue;
			r.gbps = rate(a, b);
			r.ok = r.gbps > 0;
			r.cause = r.ok ? CAUSE_NONE : CAUSE_TIMEOUT;
			CHECK_INT(linkmap_add(m, &r), 0);
		}
}

static size_t count_kind(const struct linkmap *m, enum finding_kind k)
{
	size_t i, n = 0;

	for (i = 0; i < m->nfind; i++)
		n += m->find[i].kind == k;
	return n;
}

static const struct finding *first_kind(const struct linkmap *m, enum finding_kind k)
{
	size_t i;

	for (i = 0; i < m->nfind; i++)
		if (m->find[i].kind == k)
			return &m->find[i];
	return NULL;
}

/* The lab's fabric: lab-a and lab-b under leaf1, lab-c under leaf2, lab-d under leaf3. */
static const char lab_conf[] = "SwitchName=leaf1 Nodes=lab-a,lab-b\nSwitchName=leaf2 Nodes=lab-c\n"
			       "SwitchName=leaf3 Nodes=lab-d\nSwitchName=spine Switches=leaf[1-3]\n";

static bool in_leaf1(uint32_t v)
{
	return v < 2;
}

static double uplink1_slow(uint32_t a, uint32_t b)
{
	return in_leaf1(a) != in_leaf1(b) ? 20 : 100;
}

static double node_a_slow(uint32_t a, uint32_t b)
{
	return a == 0 || b == 0 ? 20 : 100;
}

/* lab-c, alone under leaf2: its links to lab-a and lab-b cross leaf1's uplink too. */
static double node_c_slow(uint32_t a, uint32_t b)
{
	return a == 2 || b == 2 ? 20 : 100;
}

static double uplink1_cut(uint32_t a, uint32_t b)
{
	return in_leaf1(a) != in_leaf1(b) ? 0 : 100;
}

/* One run of @rate over the lab's tree, analysed. */
static void lab_run(struct linkmap *m, struct topology *t, double (*rate)(uint32_t a, uint32_t b))
{
	char err[256] = "";

	CHECK_INT(topology_parse(lab_conf, "t", false, lab, 4, t, err, sizeof(err)), 0);
	linkmap_init(m, lab, 4, 1, 0.8);
	m->topo = t;
	fill(m, 4, rate);
	CHECK_INT(linkmap_analyse(m), 0);
}

static void uplink_named(void)
{
	struct topology t;
	struct linkmap m;
	const struct finding *f;

	lab_run(&m, &t, uplink1_slow);
	CHECK_INT(m.nfind, 1);
	f = first_kind(&m, FIND_SLOW_UPLINK);
	CHECK(f != NULL);
	if (f) {
		CHECK_STR(t.sw[f->sw].name, "leaf1");
		CHECK_STR(t.sw[f->parent].name, "spine");
		CHECK_INT(f->npairs, 8);
		CHECK_INT(f->ncand, 1);
		CHECK(strstr(f->text, "uplink leaf1 -> spine is slow: 8 links crossing it slow") != NULL);
	}
	CHECK_INT(count_kind(&m, FIND_SLOW_NODE), 0);
	linkmap_free(&m);
	topology_free(&t);
	/* Cut: failed_uplink, and no node blocked. */
	lab_run(&m, &t, uplink1_cut);
	CHECK_INT(m.nfind, 1);
	CHECK_INT(count_kind(&m, FIND_FAILED_UPLINK), 1);
	linkmap_free(&m);
	topology_free(&t);
}

static void node_not_switch(void)
{
	struct topology t;
	struct linkmap m;
	const struct finding *f;

	lab_run(&m, &t, node_a_slow);
	CHECK_INT(m.nfind, 1);
	f = first_kind(&m, FIND_SLOW_NODE);
	CHECK(f && f->node == 0);
	linkmap_free(&m);
	topology_free(&t);
	/* A slow node of its own leaf: half the links across leaf1's uplink
	 * are slow, all of them lab-c's, and lab-c is slow to lab-d too: the
	 * node, not leaf1's uplink (seen in the lab, t4-topology). */
	lab_run(&m, &t, node_c_slow);
	CHECK_INT(m.nfind, 1);
	f = first_kind(&m, FIND_SLOW_NODE);
	CHECK(f && f->node == 2);
	CHECK_INT(count_kind(&m, FIND_SLOW_UPLINK), 0);
	linkmap_free(&m);
	topology_free(&t);
}

/*
 * Both at once (t4-topology's "both"): leaf1's uplink at 20 and lab-d
 * much slower, at 4: lab-d's one link that crosses no slow uplink is to
 * lab-c, so which links are slow cannot tell lab-d from lab-c; their
 * rates can: lab-d's links across leaf1's uplink run at a fifth of
 * lab-c's, more than the uplink explains.
 */
static double uplink1_and_d(uint32_t a, uint32_t b)
{
	double r = uplink1_slow(a, b);

	return a == 3 || b == 3 ? (r < 4 ? r : 4) : r;
}

/*
 * Up to +-10% of @base, the same for the same link: the simulator's
 * least noise (more and the links inside leaf1 fall under --slow 0.8).
 */
static double noisy(uint32_t a, uint32_t b, double base)
{
	return base * (0.9 + 0.2 * (double)((a * 7 + b * 13) % 11) / 10.0);
}

/* leaf1's uplink alone at 20, every link noisy: lab-c's links across it the slowest. */
static double uplink1_noisy(uint32_t a, uint32_t b)
{
	return noisy(a, b, uplink1_slow(a, b));
}

/* lab-d alone, under its own leaf, at 20. */
static double node_d_slow(uint32_t a, uint32_t b)
{
	return noisy(a, b, a == 3 || b == 3 ? 20 : 100);
}

static bool is_named(const struct linkmap *m, uint32_t v)
{
	size_t i;

	for (i = 0; i < m->nfind; i++)
		if (m->find[i].failure && (m->find[i].node == v || m->find[i].peer == v))
			return true;
	return false;
}

static void uplink_and_node(void)
{
	struct topology t;
	struct linkmap m;
	const struct finding *f;

	lab_run(&m, &t, uplink1_and_d);
	CHECK_INT(m.nfind, 2);
	f = first_kind(&m, FIND_SLOW_UPLINK);
	CHECK(f && !strcmp(t.sw[f->sw].name, "leaf1") && f->ncand == 1);
	/* lab-c's four links across are the uplink's; lab-d's are lab-d's. */
	CHECK(f && f->npairs == 4 && strstr(f->text, "4 links crossing it slow") != NULL);
	f = first_kind(&m, FIND_SLOW_NODE);
	CHECK(f && f->node == 3);
	CHECK(f && strstr(f->text, "lab-d is slow: its 6 links to 3 partners average 4.00 Gb/s, 4% of the median "
				   "100.0 Gb/s; its 4 links across the slow uplink leaf1 -> spine average 4.00 Gb/s, "
				   "20% of the 20.0 Gb/s of the uplink's other slow links: slower than the uplink "
				   "explains (--slow 0.8)") != NULL);
	CHECK(!is_named(&m, 0) && !is_named(&m, 1) && !is_named(&m, 2));
	linkmap_free(&m);
	topology_free(&t);
	/* The uplink alone, with noise: lab-c's links across it slower than lab-d's, but no node. */
	lab_run(&m, &t, uplink1_noisy);
	CHECK_INT(m.nfind, 1);
	CHECK_INT(count_kind(&m, FIND_SLOW_UPLINK), 1);
	CHECK_INT(count_kind(&m, FIND_SLOW_NODE), 0);
	linkmap_free(&m);
	topology_free(&t);
	/* lab-d alone, with noise: the node, no switch. */
	lab_run(&m, &t, node_d_slow);
	CHECK_INT(m.nfind, 1);
	f = first_kind(&m, FIND_SLOW_NODE);
	CHECK(f && f->node == 3);
	CHECK(f && !strstr(f->text, "uplink"));
	CHECK_INT(count_kind(&m, FIND_SLOW_UPLINK) + count_kind(&m, FIND_FAILED_UPLINK) +
			  count_kind(&m, FIND_SLOW_SWITCH), 0);
	linkmap_free(&m);
	topology_free(&t);
}

/*
 * make check's first lab: five guests, lab-c and lab-d together on leaf2,
 * lab-e alone on leaf3.  Both at once as t4-topology makes it: leaf1's
 * uplink at 5 and lab-d at 2 (the lab's shaped links run at 1 to 2% of
 * its others), lab-d's links across that uplink at 40% of the uplink's
 * other links, over --slow 0.3, so their rates cannot tell lab-d (four
 * guests could not: lab-c and lab-d explained the same links).  Here
 * which links are slow does: lab-d's to lab-c and to lab-e cross no slow
 * uplink, and theirs to each other is fine.  lab-d's one link inside
 * leaf2 must not be taken for the background noise of links inside
 * leaves, half of them then.
 */
static const char lab5_conf[] = "SwitchName=leaf1 Nodes=lab-a,lab-b\nSwitchName=leaf2 Nodes=lab-c,lab-d\n"
				"SwitchName=leaf3 Nodes=lab-e\nSwitchName=spine Switches=leaf[1-3]\n";

static double uplink1_and_d5(uint32_t a, uint32_t b)
{
	double r = in_leaf1(a) != in_leaf1(b) ? 5 : 100;

	return noisy(a, b, a == 3 || b == 3 ? (r < 2 ? r : 2) : r);
}

static double uplink1_five(uint32_t a, uint32_t b)
{
	return noisy(a, b, in_leaf1(a) != in_leaf1(b) ? 5 : 100);
}

static double node_c_five(uint32_t a, uint32_t b)
{
	return noisy(a, b, a == 2 || b == 2 ? 5 : 100);
}

/* One run of @rate over the five guests' tree, analysed with --slow 0.3; the failures as "kind node". */
static void lab5_run(double (*rate)(uint32_t a, uint32_t b), const char *want)
{
	struct topology t;
	struct linkmap m;
	char err[256] = "", got[512] = "";
	size_t i, len = 0;

	CHECK_INT(topology_parse(lab5_conf, "t", false, lab, 5, &t, err, sizeof(err)), 0);
	linkmap_init(&m, lab, 5, 1, 0.3);
	m.topo = &t;
	fill(&m, 5, rate);
	CHECK_INT(linkmap_analyse(&m), 0);
	for (i = 0; i < m.nfind && len < sizeof(got); i++) {
		const struct finding *f = &m.find[i];

		if (!f->failure)
			continue;
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%s %s", len ? "; " : "",
					finding_kind_name(f->kind),
					f->sw != TOPO_NONE ? t.sw[f->sw].name : lab[f->node]);
	}
	CHECK_STR(got, want);
	linkmap_free(&m);
	topology_free(&t);
}

static void five_guests_both(void)
{
	lab5_run(uplink1_five, "slow_uplink leaf1");
	lab5_run(node_c_five, "slow_node lab-c");
	lab5_run(uplink1_and_d5, "slow_node lab-d; slow_uplink leaf1");
}

/* The document linkmap_write_json() writes, in memory. */
struct doc_buf {
	char *text;
	size_t len;
};

static int doc_put(void *arg, const char *buf, size_t len)
{
	struct doc_buf *b = arg;
	char *n = realloc(b->text, b->len + len + 1);

	if (!n)
		return -ENOMEM;
	memcpy(n + b->len, buf, len);
	b->len += len;
	n[b->len] = '\0';
	b->text = n;
	return 0;
}

static char *printed(const struct linkmap *m, bool json, int *rc)
{
	struct ctx ctx = { .root = "", .json = json };
	struct capture cap;

	capture_begin(&cap);
	*rc = linkmap_print(&ctx, m);
	CHECK_INT(output_finish(&ctx), 0);
	return capture_end(&cap);
}

/* The report: the tree with the bad uplink marked; -j's finding with its switch, parent and pairs. */
static void uplink_reported(void)
{
	struct topology t;
	struct linkmap m;
	char *out;
	int rc;

	lab_run(&m, &t, uplink1_slow);
	out = printed(&m, false, &rc);
	CHECK_INT(rc, 1);
	CHECK(out && strstr(out, "Switch tree (--topology):\n  spine\n    leaf1 (2 nodes: lab-a,lab-b)  <== uplink slow "
				 "(slow_uplink)\n    leaf2 (1 node: lab-c)\n    leaf3 (1 node: lab-d)\n"));
	CHECK(out && strstr(out, "; 1 switch finding (no node to drain for them)"));
	free(out);
	out = printed(&m, true, &rc);
	CHECK(out && strstr(out, "\"kind\":\"slow_uplink\",\"failure\":true,\"node\":null,\"peer\":null"));
	CHECK(out && strstr(out, "\"switch\":\"leaf1\",\"parent\":\"spine\",\"candidates\":[{\"switch\":"
				 "\"leaf1\",\"parent\":\"spine\"}],\"pairs\":[[\"lab-a\",\"lab-c\"]"));
	CHECK(out && strstr(out, "\"switch_findings\":1"));
	/* The report reads the document back: the switch's finding, of no node. */
	if (out) {
		struct linkview v;
		struct json_object *doc = NULL;
		char err[256] = "";

		CHECK_INT(linkview_read(&v, &doc, out, strlen(out), err, sizeof(err)), 0);
		CHECK_STR(err, "");
		CHECK(v.nfind == 1 && !strcmp(v.find[0].kind, "slow_uplink") && v.find[0].node == UINT32_MAX);
		linkview_free(&v);
		json_object_put(doc);
	}
	/* The page: the tree from run.topology, the uplink marked, the same from the map as from -j. */
	{
		struct json_object *run = json_object_new_object();
		struct linkview v;
		char *page = NULL;
		size_t len = 0;
		FILE *f;

		json_object_object_add(run, "topology", topology_json(&t, m.names));
		CHECK_INT(linkview_from_map(&v, &m, run), 0);
		json_object_put(run);
		f = open_memstream(&page, &len);
		CHECK_INT(html_probe(f, &v, 0, NULL), 0);
		fclose(f);
		CHECK(page && strstr(page, "<h3>Switch tree</h3>\n<ul class=\"tree\"><li>spine<ul><li>leaf1 "
					   "<span class=\"muted\">(2 nodes: lab-a,lab-b)</span> <b class=\"fail\">&#9664; uplink "
					   "(slow_uplink)</b></li>\n<li>leaf2 <span class=\"muted\">(1 node: lab-c)</span></li>"));
		free(page);
		linkview_free(&v);
	}
	/* --from reads it too: the switch's finding names no node to reopen (its slow links are). */
	{
		struct saved_run sv;
		struct json_object *run = json_object_new_object(), *nm = json_object_new_array();
		struct doc_buf b = { 0 };
		char err[256] = "";
		uint32_t i;

		for (i = 0; i < 4; i++)
			json_object_array_add(nm, json_object_new_string(lab[i]));
		json_object_object_add(run, "names", nm);
		CHECK_INT(linkmap_write_json(&m, run, doc_put, &b), 0);
		json_object_put(run);
		CHECK_INT(saved_run_read(b.text ? b.text : "", b.len, &sv, err, sizeof(err)), 0);
		free(b.text);
		CHECK_STR(err, "");
		CHECK_INT(sv.nfind, 0);
		CHECK_INT(sv.nres, 12);
		saved_run_free(&sv);
	}
	free(out);
	linkmap_free(&m);
	topology_free(&t);
}

/* Two leaves: either uplink explains the same links; both are candidates. */
static void two_leaves_candidates(void)
{
	static const char conf[] = "SwitchName=l1 Nodes=lab-a,lab-b\nSwitchName=l2 Nodes=lab-c,lab-d\n"
				   "SwitchName=top Switches=l[1-2]\n";
	struct topology t;
	struct linkmap m;
	char err[256] = "";
	const struct finding *f;

	CHECK_INT(topology_parse(conf, "t", false, lab, 4, &t, err, sizeof(err)), 0);
	linkmap_init(&m, lab, 4, 1, 0.8);
	m.topo = &t;
	fill(&m, 4, uplink1_slow);
	CHECK_INT(linkmap_analyse(&m), 0);
	CHECK_INT(m.nfind, 1);
	f = first_kind(&m, FIND_SLOW_UPLINK);
	CHECK(f && f->ncand == 2);
	CHECK(f && strstr(f->text, "the topology cannot tell it from the uplink of") != NULL);
	CHECK_INT(count_kind(&m, FIND_SLOW_NODE), 0);
	linkmap_free(&m);
	topology_free(&t);
}

/*
 * The simulator at 256 nodes (8 leaves of 32, 4 spines): every uplink and
 * leaf fault of a few seeded mixes named, no healthy node or switch, in
 * at most 2 ceil(log2 N) + 4 steps; the last two with a slow node under
 * each slow uplink's leaf too (both at once), each named.
 * bench/triage-sim --clos runs 1 024 and 4 096.
 */
static void clos_sim(void)
{
	uint64_t seed;

	for (seed = 1; seed <= 4; seed++) {
		const struct sim_clos c = { .per_leaf = 32, .spines = 4, .qps = 1, .mixed = seed > 2 };
		struct simfabric f;
		struct schedule s;
		struct linkmap m;
		struct sim_score sc;
		struct stepper sp = { .step = sim_step, .arg = &f, .map = &m };
		size_t rsteps = 0, k;
		char **nm = calloc(257, sizeof(*nm));
		uint32_t i;

		for (i = 0; i < 256; i++)
			CHECK(asprintf(&nm[i], "n%03u", i) > 0);
		CHECK_INT(sim_init_clos(&f, 256, 2, seed, 0.10, triage_steps(256), &c), 0);
		CHECK_INT(triage_topo_make(256, &f.topo, &s), 0);
		linkmap_init(&m, nm, 256, 2, 0.8);
		m.topo = &f.topo;
		f.map = &m;
		CHECK_INT(stepper_run(&sp, &s, true, &rsteps), 0);
		CHECK_INT(linkmap_analyse(&m), 0);
		sim_score(&f, &m, &sc, NULL, NULL);
		for (k = SIM_SLOW_UPLINK; k < SIM_KINDS; k++)
			CHECK_INT(sc.kind_found[k], sc.kind_faults[k]);
		CHECK_INT(sc.kind_found[SIM_SLOW], sc.kind_faults[SIM_SLOW]);
		CHECK(sc.kind_faults[SIM_SLOW_UPLINK] >= 1 && sc.kind_faults[SIM_SLOW_LEAF] == 1);
		CHECK_INT(sc.false_nodes, 0);
		CHECK_INT(sc.false_switches, 0);
		CHECK(s.n + rsteps <= 2 * 8 + 4);
		linkmap_free(&m);
		schedule_free(&s);
		sim_free(&f);
		for (i = 0; i < 256; i++)
			free(nm[i]);
		free(nm);
	}
}

int main(void)
{
	RUN("topology", conf_tree);
	RUN("topology", scontrol_tree);
	RUN("topology", conf_errors);
	RUN("topology", uplink_named);
	RUN("topology", node_not_switch);
	RUN("topology", uplink_and_node);
	RUN("topology", five_guests_both);
	RUN("topology", uplink_reported);
	RUN("topology", two_leaves_candidates);
	RUN("topology", clos_sim);
	TEST_EXIT();
}
