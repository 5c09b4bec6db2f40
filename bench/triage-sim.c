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
 *
 * -v says every fault missed and every false finding, with its seed.
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
};

/* Over the seeds of one size and pattern. */
struct total {
	size_t steps_max, rsteps_max, runs;
	double steps_sum;
	struct sim_score sc;
	double cpu_s;
};

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
	int ret = schedule_make(p, n, &s);

	if (ret)
		return ret;
	ret = sim_init(&f, n, cfg->rails, seed, cfg->noise, s.n);
	if (ret) {
		schedule_free(&s);
		return ret;
	}
	linkmap_init(&m, names, n, cfg->rails, cfg->slow);
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
		t->sc.faults += sc.faults;
		t->sc.found += sc.found;
		t->sc.missed += sc.missed;
		t->sc.untested += sc.untested;
		t->sc.node_faults += sc.node_faults;
		t->sc.node_found += sc.node_found;
		t->sc.false_nodes += sc.false_nodes;
		t->sc.false_links += sc.false_links;
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
		{ "verbose", no_argument, NULL, 'v' }, { 0 },
	};
	char sizes[] = "16,64,256,1000", pats[] = "pairs,quick,triage";
	int c;

	*cfg = (struct cfg){ .seeds = 20, .rails = 2, .seed0 = 1, .slow = 0.8, .step_s = 3 };
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
			row(&cfg, cfg.sizes[i], cfg.pats[j], &t);
		}
		names_free(names);
	}
	return 0;
}
