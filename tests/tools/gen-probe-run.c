// SPDX-License-Identifier: MIT
/*
 * gen-probe-run: the document `rdmactl -j probe -w` would write for a
 * made-up cluster, to test and time the report at any size without one.
 * The schedule is the real one (pairs pattern) and the findings are the
 * link map's own verdicts (linkmap_analyse); only the figures are made up:
 * every link about 97 Gb/s and 2 us, but
 *
 *   --slow NAME     every link of NAME at a quarter of that, with retransmits
 *   --blocked NAME  every link of NAME failed: RoCE v2 dropped on it
 *   --hostile       the second node named with markup and terminal escapes
 *   --rails N       N rails (default 1)
 *   --letters       nodes PREFIXa, PREFIXb, ... (N up to 26), as the lab's lab-a..lab-d
 *   --leaves K      the nodes dealt in order to K leaf switches leaf1..leafK under
 *                   "spine" (probe -w --topology: the tree read by its own parser,
 *                   the switch findings made, run.topology written)
 *   --slow-uplink L every link crossing leaf L's uplink at a quarter
 *   --failed-uplink L every link crossing leaf L's uplink failed: the partner stopped answering
 *   --slow-switch L every link of leaf L's nodes at a quarter, those inside it too
 *
 * Usage: gen-probe-run [OPTIONS] PREFIX N
 * Nodes are PREFIX1..PREFIXN, zero-padded to the width of N (node0001).
 * The links are written one at a time: a 1 000-node run has a million.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "mesh/linkmap.h"
#include "mesh/topology.h"

/* A node name a hostile host could have: markup and the hostile tree's terminal escapes. */
#define HOSTILE_NAME "n<img src=x onerror=alert(1)>\"'&\033]0;pwned\007"

struct gen {
	char **names;
	uint32_t n, rails;
	const char *slow, *blocked;
	unsigned int seed;
	uint32_t leaves;		/* --leaves */
	uint32_t slow_leaf, failed_leaf, slow_sw;	/* --slow-uplink, --failed-uplink, --slow-switch (1-based; 0 none) */
	struct topology topo;
};

/* Node @i's leaf, 1-based, with --leaves. */
static uint32_t leaf_of(const struct gen *g, uint32_t i)
{
	return 1 + (uint32_t)((uint64_t)i * g->leaves / g->n);
}

/* The tree as topology.conf writes it, read by the probe's own parser. */
static int tree(struct gen *g)
{
	char *conf = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&conf, &len);
	uint32_t l, i;
	int ret;

	for (l = 1; f && l <= g->leaves; l++) {
		fprintf(f, "SwitchName=leaf%u Nodes=", l);
		for (i = 0; i < g->n; i++)
			if (leaf_of(g, i) == l)
				fprintf(f, "%s,", g->names[i]);
		fprintf(f, "\n");
	}
	if (f)
		fprintf(f, "SwitchName=spine Switches=leaf[1-%u]\n", g->leaves);
	if (!f || fclose(f))
		return -1;
	/* The lists' trailing commas are an empty item: gone. */
	for (i = 0; conf[i]; i++)
		if (conf[i] == ',' && conf[i + 1] == '\n')
			conf[i] = ' ';
	ret = topology_parse(conf, "leaves", false, g->names, g->n, &g->topo, err, sizeof(err));
	if (ret)
		fprintf(stderr, "gen-probe-run: %s\n", err);
	free(conf);
	return ret;
}

static double noise(struct gen *g, double base, double spread)
{
	return base * (1 + spread * ((double)rand_r(&g->seed) / RAND_MAX * 2 - 1));
}

static bool is(const struct gen *g, uint32_t i, const char *name)
{
	return name && !strcmp(g->names[i], name);
}

/* The link of @p crosses leaf @l's uplink (one end below it, the other not). */
static bool crosses(const struct gen *g, const struct sched_pair *p, uint32_t l)
{
	return l && (leaf_of(g, p->client) == l) != (leaf_of(g, p->server) == l);
}

static struct link_result result(struct gen *g, const struct sched_pair *p, uint32_t round,
				 uint32_t rail)
{
	struct link_result r = { .client = p->client, .server = p->server, .rail = rail,
				 .round = round, .ok = true, .lat_us = noise(g, 2.0, 0.05) };

	snprintf(r.dev, sizeof(r.dev), "mlx5_%u/1", rail);
	if (crosses(g, p, g->failed_leaf)) {
		r.ok = false;
		r.lat_us = -1;
		r.cause = CAUSE_TIMEOUT;
		snprintf(r.why, sizeof(r.why), "the partner stopped answering");
		return r;
	}
	if (is(g, p->client, g->blocked) || is(g, p->server, g->blocked)) {
		r.ok = false;
		r.lat_us = -1;
		r.cause = CAUSE_ROCE_BLOCKED;
		snprintf(r.why, sizeof(r.why), "the control connection works but no RDMA packet "
			 "arrives: UDP port 4791 (RoCE v2) is blocked on the path or on a node");
		return r;
	}
	r.gbps = noise(g, 97.0, 0.02);
	if (crosses(g, p, g->slow_leaf) ||
	    (g->slow_sw && (leaf_of(g, p->client) == g->slow_sw || leaf_of(g, p->server) == g->slow_sw)))
		r.gbps = noise(g, 24.0, 0.05);
	if (is(g, p->client, g->slow) || is(g, p->server, g->slow)) {
		r.gbps = noise(g, 24.0, 0.05);
		r.lat_us = noise(g, 9.0, 0.1);
		r.retrans = 1200 + (uint64_t)(rand_r(&g->seed) % 400);
		r.seq_err = r.retrans / 3;
	}
	return r;
}

static int links(struct gen *g, struct linkmap *m)
{
	struct schedule s = { 0 };
	size_t i, k;
	uint32_t rail;
	int ret = schedule_make(PATTERN_PAIRS, g->n, &s);

	for (i = 0; !ret && i < s.n; i++)
		for (k = 0; !ret && k < s.steps[i].n; k++)
			for (rail = 0; !ret && rail < g->rails; rail++) {
				struct link_result r = result(g, &s.steps[i].pairs[k],
							      s.steps[i].round, rail);

				ret = linkmap_add(m, &r);
			}
	schedule_free(&s);
	return ret;
}

static struct json_object *num(double v, int decimals)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

static struct json_object *run(const struct gen *g)
{
	struct json_object *o = json_object_new_object(), *names = json_object_new_array();
	uint32_t i, rounds = g->n % 2 ? g->n : g->n - 1;

	json_object_object_add(o, "launcher", json_object_new_string("srun"));
	json_object_object_add(o, "pattern", json_object_new_string("pairs"));
	json_object_object_add(o, "nodes", json_object_new_int64(g->n));
	json_object_object_add(o, "joined", json_object_new_int64(g->n));
	json_object_object_add(o, "rails", json_object_new_int64(g->rails));
	json_object_object_add(o, "rounds", json_object_new_int64(rounds));
	json_object_object_add(o, "steps", json_object_new_int64(rounds * 2));
	json_object_object_add(o, "retest_steps", json_object_new_int64(0));
	json_object_object_add(o, "start_s", num(3.2, 1));
	json_object_object_add(o, "probe_s", num(rounds * 2 * 2.5, 1));
	json_object_object_add(o, "round_s", num(5.0, 1));
	json_object_object_add(o, "version", json_object_new_string(RDMACTL_VERSION));
	for (i = 0; i < g->n; i++)
		json_object_array_add(names, json_object_new_string(g->names[i]));
	json_object_object_add(o, "names", names);
	if (g->leaves)
		json_object_object_add(o, "topology", topology_json(&g->topo, g->names));
	return o;
}

static void put(struct json_object *o)
{
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						   JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
	json_object_put(o);
}

/* The document, in the order and with the keys probe -w writes (linkmap_print). */
static void print(const struct gen *g, const struct linkmap *m)
{
	size_t i;

	fputs("{\"run\":", stdout);
	put(run(g));
	printf(",\"median_gbps\":%.2f,\"median_lat_us\":%.2f,\"slow\":%.2f,\"links\":[",
	       m->median_gbps, m->median_lat_us, m->slow);
	for (i = 0; i < m->n; i++) {
		fputs(i ? "," : "", stdout);
		put(linkmap_link_json(m, &m->res[i]));
	}
	fputs("],\"findings\":[", stdout);
	for (i = 0; i < m->nfind; i++) {
		fputs(i ? "," : "", stdout);
		put(linkmap_finding_json(m, &m->find[i]));
	}
	printf("],\"summary\":{\"nodes\":%u,\"links\":%zu,\"findings\":%zu}}\n", g->n, m->n,
	       m->nfind);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "slow", required_argument, NULL, 's' }, { "blocked", required_argument, NULL, 'b' },
		{ "rails", required_argument, NULL, 'r' }, { "hostile", no_argument, NULL, 'h' },
		{ "letters", no_argument, NULL, 'l' }, { "leaves", required_argument, NULL, 'L' },
		{ "slow-uplink", required_argument, NULL, 'U' },
		{ "failed-uplink", required_argument, NULL, 'F' },
		{ "slow-switch", required_argument, NULL, 'S' },
		{ 0 }
	};
	struct gen g = { .rails = 1, .seed = 25 };
	struct linkmap m;
	bool hostile = false, letters = false;
	int c, width;
	uint32_t i;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's')
			g.slow = optarg;
		else if (c == 'b')
			g.blocked = optarg;
		else if (c == 'r')
			g.rails = (uint32_t)atoi(optarg);
		else if (c == 'h')
			hostile = true;
		else if (c == 'l')
			letters = true;
		else if (c == 'L')
			g.leaves = (uint32_t)atoi(optarg);
		else if (c == 'U')
			g.slow_leaf = (uint32_t)atoi(optarg);
		else if (c == 'F')
			g.failed_leaf = (uint32_t)atoi(optarg);
		else if (c == 'S')
			g.slow_sw = (uint32_t)atoi(optarg);
		else
			return 2;
	}
	if (argc - optind != 2 || atoi(argv[optind + 1]) < 2 || g.rails < 1 || g.rails > 16 ||
	    (letters && atoi(argv[optind + 1]) > 26)) {
		fprintf(stderr, "usage: gen-probe-run [--slow NAME] [--blocked NAME] [--rails N] "
			"[--hostile] [--letters] [--leaves K [--slow-uplink L] [--failed-uplink L] [--slow-switch L]] PREFIX N (N >= 2)\n");
		return 2;
	}
	g.n = (uint32_t)atoi(argv[optind + 1]);
	width = snprintf(NULL, 0, "%u", g.n);
	g.names = calloc(g.n, sizeof(*g.names));
	for (i = 0; g.names && i < g.n; i++)
		if ((letters ? asprintf(&g.names[i], "%s%c", argv[optind], 'a' + i)
			     : asprintf(&g.names[i], "%s%0*u", argv[optind], width, i + 1)) < 0)
			return 1;
	if (!g.names)
		return 1;
	if (hostile) {
		free(g.names[1]);
		g.names[1] = strdup(HOSTILE_NAME);
	}
	if (g.leaves && (g.leaves > g.n || g.slow_leaf > g.leaves || g.failed_leaf > g.leaves ||
			 g.slow_sw > g.leaves || tree(&g)))
		return 2;
	linkmap_init(&m, g.names, g.n, g.rails, 0.8);
	m.topo = g.leaves ? &g.topo : NULL;
	if (links(&g, &m) || linkmap_analyse(&m)) {
		fprintf(stderr, "gen-probe-run: out of memory\n");
		return 1;
	}
	print(&g, &m);
	linkmap_free(&m);
	if (g.leaves)
		topology_free(&g.topo);
	for (i = 0; i < g.n; i++)
		free(g.names[i]);
	free(g.names);
	return fflush(stdout) ? 1 : 0;
}
