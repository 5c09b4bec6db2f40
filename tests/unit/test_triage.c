// SPDX-License-Identifier: MIT
/*
 * The triage pattern (lib/mesh/triage.c) and the model of a fabric
 * (lib/mesh/simfabric.c): every step a permutation, every node meeting
 * 2K different partners in K = 2 ceil(log2 N) steps, no link twice, one
 * schedule for each N; then, on the model, the probe's own steps, retests
 * and findings: every node fault of a few seeded mixes found at 64 nodes,
 * no healthy node named, and the steps within 2 ceil(log2 N) plus retests.
 * bench/triage-sim.sh runs the same at up to 1 000 nodes beside pairs and
 * quick.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/linkmap.h"
#include "mesh/simfabric.h"
#include "mesh/stepper.h"
#include "test.h"

static uint32_t ceil_log2(uint32_t n)
{
	uint32_t k = 0;

	while ((1u << k) < n)
		k++;
	return k;
}

/*
 * Each node once a client and once a server in every step; no directed
 * link twice; @partners[v]: the nodes v met, counted once each.
 */
static void check_triage(const struct schedule *s, uint32_t n, uint32_t *partners)
{
	unsigned char *link = calloc((size_t)n * n, 1), *met = calloc((size_t)n * n, 1);
	uint32_t *out = calloc(n, sizeof(*out)), *in = calloc(n, sizeof(*in)), v;
	size_t i, j, twice = 0, bad = 0;

	for (i = 0; i < s->n; i++) {
		const struct sched_step *st = &s->steps[i];

		memset(out, 0, n * sizeof(*out));
		memset(in, 0, n * sizeof(*in));
		CHECK_INT(st->n, n);
		CHECK_INT(st->round, i + 1);
		for (j = 0; j < st->n; j++) {
			uint32_t c = st->pairs[j].client, sv = st->pairs[j].server;

			if (c >= n || sv >= n || c == sv) {
				bad++;
				continue;
			}
			out[c]++;
			in[sv]++;
			twice += link[(size_t)c * n + sv]++ > 0;
			met[(size_t)c * n + sv] = met[(size_t)sv * n + c] = 1;
		}
		for (v = 0; v < n; v++)
			bad += out[v] != 1 || in[v] != 1;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(twice, 0);
	for (v = 0; v < n; v++) {
		partners[v] = 0;
		for (j = 0; j < n; j++)
			partners[v] += met[(size_t)v * n + j];
	}
	free(link);
	free(met);
	free(out);
	free(in);
}

static void triage_for(uint32_t n)
{
	uint32_t *partners = calloc(n, sizeof(*partners)), k = 2 * ceil_log2(n), v, want;
	struct schedule s, again;
	char *a, *b;
	size_t fewer = 0;

	if (k > n - 1)
		k = n - 1;
	CHECK_INT(triage_steps(n), k);
	CHECK_INT(schedule_make(PATTERN_TRIAGE, n, &s), 0);
	CHECK_INT(s.n, k);
	CHECK_INT(s.rounds, k);
	check_triage(&s, n, partners);
	/* 2K different partners, or every other node once that is N - 1 or more. */
	want = 2 * k < n - 1 ? 2 * k : n - 1;
	for (v = 0; v < n; v++)
		fewer += partners[v] != want;
	if (fewer)
		fprintf(stderr, "  %u nodes: %zu nodes do not meet %u partners\n", n, fewer, want);
	CHECK_INT(fewer, 0);
	/* One schedule for each N, and one the agents' string carries. */
	CHECK_INT(schedule_make(PATTERN_TRIAGE, n, &again), 0);
	a = schedule_encode(&s);
	b = schedule_encode(&again);
	CHECK_STR(a, b);
	schedule_free(&again);
	CHECK_INT(schedule_decode(a, n, &again), 0);
	CHECK_INT(again.n, s.n);
	free(a);
	free(b);
	schedule_free(&again);
	schedule_free(&s);
	free(partners);
}

static void triage_schedule(void)
{
	struct schedule s;
	enum pattern p;
	uint32_t n;

	for (n = 2; n <= 40; n++)
		triage_for(n);
	triage_for(1000);
	CHECK_INT(triage_steps(16), 8);
	CHECK_INT(triage_steps(64), 12);
	CHECK_INT(triage_steps(256), 16);
	CHECK_INT(triage_steps(1000), 20);
	CHECK_INT(triage_steps(4), 3);
	CHECK_INT(pattern_parse("triage", &p), 0);
	CHECK_INT(p, PATTERN_TRIAGE);
	CHECK_STR(pattern_name(PATTERN_TRIAGE), "triage");
	CHECK_INT(schedule_make(PATTERN_TRIAGE, 1, &s), -EINVAL);
}

static char **names_make(uint32_t n)
{
	char **v = calloc(n + 1, sizeof(*v));
	uint32_t i;

	for (i = 0; i < n; i++)
		CHECK(asprintf(&v[i], "n%02u", i) > 0);
	return v;
}

/* What went wrong with a node, for the failure's detail (links are not asserted). */
static void say(void *arg, const char *what, const char *text)
{
	if (!strcmp(what, "false link") || !strncmp(text, "slow link", 9))
		return;
	fprintf(stderr, "  seed %llu: %s: %s\n", *(unsigned long long *)arg, what, text);
}

/*
 * The triage pattern on the model, through the probe's own run
 * (stepper_run(), the retests, linkmap_analyse()): every node fault
 * found, no healthy node named, the steps within bounds.
 */
static void sim_run(uint32_t n, unsigned long long seed, double noise, double slow, char **names)
{
	struct schedule s;
	struct simfabric f;
	struct linkmap m;
	struct sim_score sc;
	struct stepper sp = { .step = sim_step, .arg = &f, .map = &m };
	size_t rsteps = 0;
	uint32_t i, down = 0;

	CHECK_INT(schedule_make(PATTERN_TRIAGE, n, &s), 0);
	CHECK_INT(sim_init(&f, n, 2, seed, noise, s.n), 0);
	linkmap_init(&m, names, n, 2, slow);
	f.map = &m;
	CHECK_INT(stepper_run(&sp, &s, true, &rsteps), 0);
	CHECK_INT(linkmap_analyse(&m), 0);
	sim_score(&f, &m, &sc, say, &seed);
	CHECK(sc.node_faults >= 5);
	CHECK_INT(sc.node_found, sc.node_faults);
	CHECK_INT(sc.false_nodes, 0);
	CHECK_INT(s.n, 2 * ceil_log2(n));
	/*
	 * Retests only for what the steps left open: a batch of two steps
	 * here at most, and a step measuring slow directions again.
	 */
	CHECK(rsteps <= 3);
	/* The dying node is down, as the coordinator reports a node gone mid-run. */
	for (i = 0; i < n; i++)
		down += m.down && m.down[i];
	CHECK_INT(down, 1);
	linkmap_free(&m);
	sim_free(&f);
	schedule_free(&s);
}

static void triage_finds_node_faults(void)
{
	char **names = names_make(64);
	unsigned long long seed;
	uint32_t i;

	for (seed = 1; seed <= 5; seed++) {
		/* Noise of a quarter at --slow 0.8 puts healthy links under the line now and then. */
		sim_run(64, seed, 0.25, 0.8, names);
		sim_run(64, seed, 0, 0.65, names);
	}
	/*
	 * Sixteen nodes, five of them faulty, noise of a quarter: a slow
	 * rail's node has most of its links slow, and a node slow writing
	 * meets slow writers (seed 19).
	 */
	for (seed = 1; seed <= 20; seed++)
		sim_run(16, seed, 0.25, 0.8, names);
	for (i = 0; i < 64; i++)
		free(names[i]);
	free(names);
}

/* The model, and what the stepper said of the retests to come. */
struct counted {
	struct simfabric f;
	size_t said;
};

static int counted_step(void *arg, const struct sched_step *st, uint32_t round)
{
	return sim_step(&((struct counted *)arg)->f, st, round);
}

static void counted_more(void *arg, size_t n)
{
	((struct counted *)arg)->said += n;
}

/*
 * The stepper's retests, on the model: quick gives every node one partner,
 * so the ends of each slow or failed link are retested against a node
 * known good, said through more() beforehand; without retests, only the
 * schedule's steps run.
 */
static void stepper_retests(void)
{
	char **names = names_make(64);
	unsigned long long seed = 3;
	struct schedule s;
	struct counted c;
	struct linkmap m;
	struct sim_score sc;
	struct stepper sp = { .step = counted_step, .more = counted_more, .arg = &c, .map = &m };
	size_t rsteps = 0;
	bool retest;
	uint32_t i;

	CHECK_INT(schedule_make(PATTERN_QUICK, 64, &s), 0);
	for (retest = true;; retest = false) {
		c.said = 0;
		CHECK_INT(sim_init(&c.f, 64, 2, seed, 0.10, s.n), 0);
		linkmap_init(&m, names, 64, 2, 0.8);
		c.f.map = &m;
		CHECK_INT(stepper_run(&sp, &s, retest, &rsteps), 0);
		CHECK_INT(c.said, rsteps);
		CHECK_INT(c.f.steps, s.n + rsteps);
		CHECK(retest ? rsteps >= 2 : rsteps == 0);
		CHECK_INT(linkmap_analyse(&m), 0);
		sim_score(&c.f, &m, &sc, retest ? say : NULL, &seed);
		CHECK_INT(sc.false_nodes, 0);
		if (retest)
			CHECK_INT(sc.node_found, sc.node_faults);
		linkmap_free(&m);
		sim_free(&c.f);
		if (!retest)
			break;
	}
	schedule_free(&s);
	for (i = 0; i < 64; i++)
		free(names[i]);
	free(names);
}

/* The model keeps its word: a fault drawn is where it says, and the same seed draws the same. */
static void sim_same_seed(void)
{
	struct simfabric a, b;
	size_t i, kinds[SIM_KINDS] = { 0 };

	CHECK_INT(sim_init(&a, 1000, 2, 7, 0, 20), 0);
	CHECK_INT(sim_init(&b, 1000, 2, 7, 0, 20), 0);
	CHECK_INT(a.nfault, b.nfault);
	CHECK(a.noise >= 0.10 && a.noise <= 0.25);
	for (i = 0; i < a.nfault && i < b.nfault; i++) {
		CHECK_INT(a.fault[i].kind, b.fault[i].kind);
		CHECK_INT(a.fault[i].node, b.fault[i].node);
		CHECK(a.fault[i].factor <= 0.5);
		kinds[a.fault[i].kind]++;
	}
	/* Slow and blocked nodes at most about 1% of 1 000. */
	CHECK(kinds[SIM_SLOW] + kinds[SIM_SLOW_OUT] + kinds[SIM_SLOW_IN] + kinds[SIM_BLOCKED] <= 10);
	CHECK_INT(kinds[SIM_DIES], 1);
	CHECK(kinds[SIM_SLOW_RAIL] >= 1);
	CHECK(kinds[SIM_SLOW_LINK] >= 1 && kinds[SIM_SLOW_LINK] <= 3);
	sim_free(&a);
	sim_free(&b);
	CHECK_INT(sim_init(&a, 8, 1, 1, 0, 4), -EINVAL);
}

int main(void)
{
	RUN("triage", triage_schedule);
	RUN("triage", triage_finds_node_faults);
	RUN("triage", stepper_retests);
	RUN("triage", sim_same_seed);
	TEST_EXIT();
}
