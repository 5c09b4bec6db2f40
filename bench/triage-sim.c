// SPDX-License-Identifier: MIT
/*
 * The cluster probe's patterns on a model of a fabric (simfabric.h), side
 * by side: for each number of nodes and each pattern, the same seeded
 * fault mixes run through the probe's own schedule, steps, retests and
 * findings (stepper.h); printed: the steps (the schedule's and the
 * retests'), the time they take at a given cost a step, the faults found
 * and missed, and the healthy nodes and links wrongly named.
 *
 *   triage-sim [-n N,N...] [-p PATTERN,...] [--seeds K] [--seed0 S]
 *              [--noise F] [--rails R] [--slow F] [--step-s S] [-v]
 *              [--clos PER_LEAF [--spines S] [--qps Q] [--mixed]]
 *
 * -v says every fault missed and every false finding, with its seed.
 * --clos: a two-tier Clos of leaves of PER_LEAF nodes under S spines (4),
 * each flow's Q queue pairs (1) hashed over them, with switch faults
 * besides the node faults (simfabric.h); the link map gets its tree (the
 * triage then pairs inside leaves too, triage_topo_make()); --mixed adds
 * a slow node under each slow uplink's leaf (both at once).  Printed:
 * recall for each fault kind, precision for the switch findings and
 * slow_node, the healthy nodes and switches named, and the steps against
 * 2 ceil(log2 N) + 4.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mesh/linkmap.h"
#include "mesh/simfabric.h"
#include "mesh/stepper.h"

struct cfg {
	uint32_t sizes[16];
	size_t nsizes;
	enum pattern pats[4];
	size_t npats;
	unsigned int seeds, rails;
	unsigned long long seed0;
	double noise, slow, step_s;
	bool verbose;
	struct sim_clos clos;		/* per_leaf 0: no Clos */
};

/* Over the seeds of one size and pattern. */
struct total {
	size_t steps_max, rsteps_max, runs;
	double steps_sum;
	struct sim_score sc;
	double cpu_s;
};

static void score_add(struct sim_score *t, const struct sim_score *sc)
{
	size_t k;

	t->faults += sc->faults;
	t->found += sc->found;
	t->missed += sc->missed;
	t->untested += sc->untested;
	t->node_faults += sc->node_faults;
	t->node_found += sc->node_found;
	t->false_nodes += sc->false_nodes;
	t->false_links += sc->false_links;
	t->false_switches += sc->false_switches;
	for (k = 0; k < SIM_KINDS; k++) {
		t->kind_faults[k] += sc->kind_faults[k];
		t->kind_found[k] += sc->kind_found[k];
	}
	for (k = 0; k < FIND_KINDS; k++) {
		t->find_total[k] += sc->find_total[k];
		t->find_true[k] += sc->find_true[k];
	}
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static char **names_make(uint32_t n)
{
	char **v = calloc(n + 1, sizeof(*v));
	uint32_t i;

	for (i = 0; v && i < n; i++)
		if (asprintf(&v[i], "node%04u", i) < 0)
			v[i] = NULL;
	return v;
}

static void names_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

struct say_ctx {
	uint32_t n;
	const char *pat;
	unsigned long long seed;
};

static void say(void *arg, const char *what, const char *text)
{
	const struct say_ctx *c = arg;

	printf("    N=%u %s seed %llu: %s: %s\n", c->n, c->pat, c->seed, what, text);
}

/* One run: a schedule of @p for @n nodes over the fabric of @seed. */
static int run_one(const struct cfg *cfg, char **names, uint32_t n, enum pattern p,
		   unsigned long long seed, struct total *t)
{
	struct schedule s;
	struct simfabric f;
	struct linkmap m;
	struct sim_score sc;
	struct say_ctx sctx = { n, pattern_name(p), seed };
	struct stepper sp = { .step = sim_step, .arg = &f, .map = &m };
	size_t rsteps = 0;
	double t0 = now_s();
	int ret;

	/* A Clos: the fabric first, its tree makes the triage's schedule (as many steps as without). */
	if (cfg->clos.per_leaf) {
		ret = sim_init_clos(&f, n, cfg->rails, seed, cfg->noise, triage_steps(n), &cfg->clos);
		if (ret)
			return ret;
		ret = p == PATTERN_TRIAGE ? triage_topo_make(n, &f.topo, &s) : schedule_make(p, n, &s);
		if (ret) {
			sim_free(&f);
			return ret;
		}
	} else {
		ret = schedule_make(p, n, &s);
		if (ret)
			return ret;
		ret = sim_init(&f, n, cfg->rails, seed, cfg->noise, s.n);
		if (ret) {
			schedule_free(&s);
			return ret;
		}
	}
	linkmap_init(&m, names, n, cfg->rails, cfg->slow);
	m.topo = cfg->clos.per_leaf ? &f.topo : NULL;
	f.map = &m;
	ret = stepper_run(&sp, &s, true, &rsteps) ?: linkmap_analyse(&m);
	if (!ret) {
		sim_score(&f, &m, &sc, cfg->verbose ? say : NULL, &sctx);
		t->runs++;
		t->steps_sum += (double)(s.n + rsteps);
		if (s.n > t->steps_max)
			t->steps_max = s.n;
		if (rsteps > t->rsteps_max)
			t->rsteps_max = rsteps;
		score_add(&t->sc, &sc);
	}
	t->cpu_s += now_s() - t0;
	linkmap_free(&m);
	sim_free(&f);
	schedule_free(&s);
	return ret;
}

static void header(const struct cfg *cfg)
{
	char noise[64];

	if (cfg->noise > 0)
		snprintf(noise, sizeof(noise), "up to %.0f%%", cfg->noise * 100);
	else
		snprintf(noise, sizeof(noise), "up to 10-25%% (drawn a mix)");
	printf("%u rail(s); each test: its rate times 1 +- %s; --slow %.2f; %.0f s a step\n",
	       cfg->rails, noise, cfg->slow, cfg->step_s);
	printf("%6s %-7s %5s %13s %10s %11s %11s %8s %6s %6s %7s\n", "nodes", "pattern", "mixes",
	       "steps+retest", "time", "node faults", "slow links", "untested", "false", "false", "sim");
	printf("%6s %-7s %5s %13s %10s %11s %11s %8s %6s %6s %7s\n", "", "", "", "(most)", "(most)",
	       "found", "found", "links", "nodes", "links", "wall s");
}

static void row(const struct cfg *cfg, uint32_t n, enum pattern p, const struct total *t)
{
	char steps[32], tm[32], nodes[32], links[32];
	double secs = (double)(t->steps_max + t->rsteps_max) * cfg->step_s;

	snprintf(steps, sizeof(steps), "%zu+%zu", t->steps_max, t->rsteps_max);
	if (secs >= 3600)
		snprintf(tm, sizeof(tm), "%.1f h", secs / 3600);
	else if (secs >= 120)
		snprintf(tm, sizeof(tm), "%.1f min", secs / 60);
	else
		snprintf(tm, sizeof(tm), "%.0f s", secs);
	snprintf(nodes, sizeof(nodes), "%zu/%zu", t->sc.node_found, t->sc.node_faults);
	snprintf(links, sizeof(links), "%zu/%zu", t->sc.found - t->sc.node_found,
		 t->sc.faults - t->sc.node_faults);
	printf("%6u %-7s %5zu %13s %10s %11s %11s %8zu %6zu %6zu %7.1f\n", n, pattern_name(p), t->runs,
	       steps, tm, nodes, links, t->sc.untested, t->sc.false_nodes, t->sc.false_links, t->cpu_s);
	fflush(stdout);
}

static uint32_t ceil_log2(uint32_t n)
{
	uint32_t k = 0;

	while ((1u << k) < n)
		k++;
	return k;
}

static void clos_header(const struct cfg *cfg)
{
	printf("two-tier Clos: leaves of %u nodes, %u spines, %u QP(s) a flow hashed over them; %u rail(s);\n"
	       "--slow %.2f%s; found/faults per kind, then findings true/all per kind\n", cfg->clos.per_leaf,
	       cfg->clos.spines, cfg->clos.qps, cfg->rails, cfg->slow,
	       cfg->clos.mixed ? "; a slow node under each slow uplink's leaf" : "");
	printf("%6s %-7s %5s %9s %9s %8s %8s %8s %8s %8s %8s %9s %9s %9s %6s %6s\n", "nodes", "pattern", "mixes",
	       "steps", "2lgN+4", "nodes", "links", "upl.slow", "upl.cut", "leaf", "slow_node", "slow_upl",
	       "fail_upl", "slow_sw", "false", "false");
	printf("%6s %-7s %5s %9s %9s %8s %8s %8s %8s %8s %8s %9s %9s %9s %6s %6s\n", "", "", "", "(most)", "",
	       "found", "found", "found", "found", "found", "true", "true", "true", "true", "nodes", "sw");
}

static void ratio(char *buf, size_t len, size_t a, size_t b)
{
	snprintf(buf, len, "%zu/%zu", a, b);
}

static void clos_row(const struct cfg *cfg, uint32_t n, enum pattern p, const struct total *t)
{
	const struct sim_score *c = &t->sc;
	char st[32], nd[32], ln[32], us[32], uc[32], lf[32], p1[32], p2[32], p3[32], p4[32];
	size_t nf = 0, nfound = 0, k;

	(void)cfg;
	for (k = SIM_SLOW; k < SIM_SLOW_LINK; k++) {
		nf += c->kind_faults[k];
		nfound += c->kind_found[k];
	}
	snprintf(st, sizeof(st), "%zu+%zu", t->steps_max, t->rsteps_max);
	ratio(nd, sizeof(nd), nfound, nf);
	ratio(ln, sizeof(ln), c->kind_found[SIM_SLOW_LINK], c->kind_faults[SIM_SLOW_LINK]);
	ratio(us, sizeof(us), c->kind_found[SIM_SLOW_UPLINK], c->kind_faults[SIM_SLOW_UPLINK]);
	ratio(uc, sizeof(uc), c->kind_found[SIM_FAILED_UPLINK], c->kind_faults[SIM_FAILED_UPLINK]);
	ratio(lf, sizeof(lf), c->kind_found[SIM_SLOW_LEAF], c->kind_faults[SIM_SLOW_LEAF]);
	ratio(p1, sizeof(p1), c->find_true[FIND_SLOW_NODE], c->find_total[FIND_SLOW_NODE]);
	ratio(p2, sizeof(p2), c->find_true[FIND_SLOW_UPLINK], c->find_total[FIND_SLOW_UPLINK]);
	ratio(p3, sizeof(p3), c->find_true[FIND_FAILED_UPLINK], c->find_total[FIND_FAILED_UPLINK]);
	ratio(p4, sizeof(p4), c->find_true[FIND_SLOW_SWITCH], c->find_total[FIND_SLOW_SWITCH]);
	printf("%6u %-7s %5zu %9s %9u %8s %8s %8s %8s %8s %8s %9s %9s %9s %6zu %6zu\n", n, pattern_name(p),
	       t->runs, st, 2 * ceil_log2(n) + 4, nd, ln, us, uc, lf, p1, p2, p3, p4, c->false_nodes,
	       c->false_switches);
	fflush(stdout);
}

static int list_sizes(struct cfg *cfg, char *arg)
{
	char *save = NULL, *tok, *end;

	cfg->nsizes = 0;
	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long v = strtoul(tok, &end, 10);

		if (*end || v < 16 || v > 100000 || cfg->nsizes == 16) {
			fprintf(stderr, "triage-sim: bad size '%s': 16 to 100000, at most 16 of them\n", tok);
			return -EINVAL;
		}
		cfg->sizes[cfg->nsizes++] = (uint32_t)v;
	}
	return cfg->nsizes ? 0 : -EINVAL;
}

static int list_patterns(struct cfg *cfg, char *arg)
{
	char *save = NULL, *tok;

	cfg->npats = 0;
	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (cfg->npats == 4 || pattern_parse(tok, &cfg->pats[cfg->npats++])) {
			fprintf(stderr, "triage-sim: bad pattern '%s': pairs, quick, triage\n", tok);
			return -EINVAL;
		}
	return cfg->npats ? 0 : -EINVAL;
}

static int parse(int argc, char **argv, struct cfg *cfg)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'n' }, { "patterns", required_argument, NULL, 'p' },
		{ "seeds", required_argument, NULL, 'k' }, { "seed0", required_argument, NULL, 'S' },
		{ "noise", required_argument, NULL, 'N' }, { "rails", required_argument, NULL, 'r' },
		{ "slow", required_argument, NULL, 'w' }, { "step-s", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' }, { "clos", required_argument, NULL, 'C' },
		{ "spines", required_argument, NULL, 's' }, { "qps", required_argument, NULL, 'q' },
		{ "mixed", no_argument, NULL, 'm' }, { 0 },
	};
	char sizes[] = "16,64,256,1000", pats[] = "pairs,quick,triage";
	int c;

	*cfg = (struct cfg){ .seeds = 20, .rails = 2, .seed0 = 1, .slow = 0.8, .step_s = 3,
			     .clos = { .spines = 4, .qps = 1 } };
	if (list_sizes(cfg, sizes) || list_patterns(cfg, pats))
		return -EINVAL;
	while ((c = getopt_long(argc, argv, "n:p:v", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (list_sizes(cfg, optarg))
				return -EINVAL;
			break;
		case 'p':
			if (list_patterns(cfg, optarg))
				return -EINVAL;
			break;
		case 'k':
			cfg->seeds = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'S':
			cfg->seed0 = strtoull(optarg, NULL, 10);
			break;
		case 'N':
			cfg->noise = strtod(optarg, NULL);
			break;
		case 'r':
			cfg->rails = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'w':
			cfg->slow = strtod(optarg, NULL);
			break;
		case 't':
			cfg->step_s = strtod(optarg, NULL);
			break;
		case 'v':
			cfg->verbose = true;
			break;
		case 'C':
			cfg->clos.per_leaf = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 's':
			cfg->clos.spines = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'q':
			cfg->clos.qps = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'm':
			cfg->clos.mixed = true;
			break;
		default:
			return -EINVAL;
		}
	}
	if (!cfg->seeds || cfg->rails < 1 || cfg->rails > 16 || cfg->noise < 0 || cfg->noise >= 1 ||
	    cfg->slow <= 0 || cfg->slow >= 1 || optind != argc) {
		fprintf(stderr, "triage-sim: bad arguments (see the comment at the top of bench/triage-sim.c)\n");
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cfg cfg;
	size_t i, j;
	unsigned int k;

	if (parse(argc, argv, &cfg))
		return 2;
	if (cfg.clos.per_leaf)
		clos_header(&cfg);
	else
		header(&cfg);
	for (i = 0; i < cfg.nsizes; i++) {
		char **names = names_make(cfg.sizes[i]);

		for (j = 0; names && j < cfg.npats; j++) {
			struct total t = { 0 };

			for (k = 0; k < cfg.seeds; k++) {
				int ret = run_one(&cfg, names, cfg.sizes[i], cfg.pats[j], cfg.seed0 + k, &t);

				if (ret) {
					fprintf(stderr, "triage-sim: %u nodes, %s: %s\n", cfg.sizes[i],
						pattern_name(cfg.pats[j]), strerror(-ret));
					names_free(names);
					return 1;
				}
			}
			if (cfg.clos.per_leaf)
				clos_row(&cfg, cfg.sizes[i], cfg.pats[j], &t);
			else
				row(&cfg, cfg.sizes[i], cfg.pats[j], &t);
		}
		names_free(names);
	}
	return 0;
}
