// SPDX-License-Identifier: MIT
/* A model of a fabric for the cluster probe's run (see simfabric.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/simfabric.h"

#define RATE_GBPS	100.0

static const char *const kind_names[] = {
	[SIM_SLOW] = "slow node",
	[SIM_SLOW_OUT] = "node slow writing",
	[SIM_SLOW_IN] = "node slow receiving",
	[SIM_BLOCKED] = "blocked node",
	[SIM_DIES] = "node dying",
	[SIM_SLOW_RAIL] = "slow rail",
	[SIM_SLOW_LINK] = "slow link",
	[SIM_SLOW_UPLINK] = "slow uplink",
	[SIM_FAILED_UPLINK] = "cut uplink",
	[SIM_SLOW_LEAF] = "slow leaf",
};

const char *sim_kind_name(enum sim_kind k)
{
	return (unsigned int)k < SIM_KINDS ? kind_names[k] : "unknown";
}

/* splitmix64, as triage.c: the same fabric from the same seed everywhere. */
static uint64_t rnd(struct simfabric *f)
{
	uint64_t z = (f->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double unit(struct simfabric *f)
{
	return (double)(rnd(f) >> 11) / 9007199254740992.0;
}

/* A node with no fault yet, at random (there are always many: at most ~1% are taken). */
static uint32_t healthy(struct simfabric *f)
{
	uint32_t v;

	do
		v = (uint32_t)(rnd(f) % f->nodes);
	while (f->of[v] >= 0);
	return v;
}

static struct sim_fault *fault_add(struct simfabric *f, enum sim_kind k, uint32_t node)
{
	struct sim_fault *x = &f->fault[f->nfault];

	memset(x, 0, sizeof(*x));
	x->kind = k;
	x->node = node;
	x->peer = UINT32_MAX;
	x->rail = UINT32_MAX;
	x->factor = 0.2 + 0.3 * unit(f);	/* a fifth to a half of the rate */
	if (k < SIM_SLOW_LINK)
		f->of[node] = (int32_t)f->nfault;
	f->nfault++;
	return x;
}

/*
 * The mix: of each node fault one, and up to N/300 (three of 1 000 nodes)
 * with its count drawn, so slow and blocked nodes stay at most about 1%;
 * one to three slow links; one node dying.
 */
static void faults_draw(struct simfabric *f, size_t main_steps)
{
	uint32_t cap = f->nodes / 300 ? f->nodes / 300 : 1, i, n;
	enum sim_kind k;

	for (k = SIM_SLOW; k <= SIM_SLOW_RAIL; k++) {
		if (k == SIM_SLOW_IN || (k == SIM_SLOW_RAIL && f->rails < 2))
			continue;
		n = k == SIM_DIES ? 1 : 1 + (uint32_t)(rnd(f) % cap);
		for (i = 0; i < n; i++) {
			/* One way: writing or receiving, drawn. */
			struct sim_fault *x = fault_add(f, k == SIM_SLOW_OUT && rnd(f) % 2 ? SIM_SLOW_IN : k,
							healthy(f));

			if (k == SIM_SLOW_RAIL)
				x->rail = (uint32_t)(rnd(f) % f->rails);
			if (k == SIM_DIES)
				x->at = 1 + (uint32_t)(unit(f) * (double)main_steps);
		}
	}
	n = 1 + (uint32_t)(rnd(f) % 3);
	for (i = 0; i < n; i++) {
		struct sim_fault *x = fault_add(f, SIM_SLOW_LINK, healthy(f));

		do
			x->peer = healthy(f);
		while (x->peer == x->node);
		x->rail = (uint32_t)(rnd(f) % f->rails);
	}
}

/* ---- a Clos ---- */

/* The leaf has no node fault and no end of a slow link: a slow leaf there hides none. */
static bool leaf_clean(const struct simfabric *f, uint32_t l)
{
	uint32_t v;
	size_t i;

	for (v = l * f->clos.per_leaf; v < (l + 1) * f->clos.per_leaf; v++)
		if (f->of[v] >= 0)
			return false;
	for (i = 0; i < f->nfault; i++)
		if (f->fault[i].kind == SIM_SLOW_LINK &&
		    (f->fault[i].node / f->clos.per_leaf == l || f->fault[i].peer / f->clos.per_leaf == l))
			return false;
	return true;
}

/* A leaf no switch fault has yet (@clean: and leaf_clean()); there are always many. */
static uint32_t free_leaf(struct simfabric *f, bool clean)
{
	uint32_t l;
	size_t i;
	bool taken;

	do {
		l = (uint32_t)(rnd(f) % f->leaves);
		for (i = 0, taken = false; i < f->nfault; i++)
			taken |= f->fault[i].kind > SIM_SLOW_LINK && f->fault[i].node == l;
	} while (taken || (clean && !leaf_clean(f, l)));
	return l;
}

static void switch_fault(struct simfabric *f, enum sim_kind k)
{
	struct sim_fault *x = fault_add(f, k, free_leaf(f, k == SIM_SLOW_LEAF));
	uint32_t sp = (uint32_t)(rnd(f) % f->clos.spines);

	x->rail = (uint32_t)(rnd(f) % f->rails);
	if (k == SIM_SLOW_LEAF) {
		f->leaf[x->node * f->rails + x->rail] = x->factor;
		return;
	}
	x->peer = sp;
	f->up[((size_t)x->node * f->clos.spines + sp) * f->rails + x->rail] = k == SIM_FAILED_UPLINK ? 0 : x->factor;
}

/* Both at once: a slow node, drawn as any, under each slow uplink's leaf that has a healthy one. */
static void mixed_nodes(struct simfabric *f)
{
	size_t i, n = f->nfault;
	uint32_t v, k;

	for (i = 0; i < n; i++) {
		if (f->fault[i].kind != SIM_SLOW_UPLINK)
			continue;
		v = f->fault[i].node * f->clos.per_leaf + (uint32_t)(rnd(f) % f->clos.per_leaf);
		for (k = 0; k < f->clos.per_leaf && f->of[v] >= 0; k++)
			v = f->fault[i].node * f->clos.per_leaf + (v + 1) % f->clos.per_leaf;
		if (f->of[v] < 0)
			fault_add(f, SIM_SLOW, v);
	}
}

/* Slurm's tree of the Clos: leaf000.. under "spine". */
static int clos_topology(struct simfabric *f)
{
	struct topology *t = &f->topo;
	uint32_t l, v;

	t->nsw = f->leaves + 1;
	t->root = f->leaves;
	t->nodes = f->nodes;
	t->sw = calloc(t->nsw, sizeof(*t->sw));
	t->leaf = calloc(f->nodes, sizeof(*t->leaf));
	if (!t->sw || !t->leaf)
		return -ENOMEM;
	for (l = 0; l <= f->leaves; l++) {
		struct topo_switch *w = &t->sw[l];

		if (l < f->leaves ? asprintf(&w->name, "leaf%03u", l) < 0 : !(w->name = strdup("spine")))
			return -ENOMEM;
		w->leaf = l < f->leaves;
		w->parent = l < f->leaves ? f->leaves : TOPO_NONE;
		w->depth = l < f->leaves;
	}
	for (v = 0; v < f->nodes; v++)
		t->leaf[v] = v / f->clos.per_leaf;
	return 0;
}

static int clos_init(struct simfabric *f, const struct sim_clos *c)
{
	size_t i, n;
	int k;

	if (!c->per_leaf || f->nodes % c->per_leaf || f->nodes / c->per_leaf < 3 || c->spines < 2 ||
	    c->spines > 64 || !c->qps || c->qps > 16)
		return -EINVAL;
	f->clos = *c;
	f->leaves = f->nodes / c->per_leaf;
	n = (size_t)f->leaves * c->spines * f->rails;
	f->up = malloc(n * sizeof(*f->up));
	f->leaf = malloc((size_t)f->leaves * f->rails * sizeof(*f->leaf));
	if (!f->up || !f->leaf || clos_topology(f))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		f->up[i] = 1;
	for (i = 0; i < (size_t)f->leaves * f->rails; i++)
		f->leaf[i] = 1;
	for (k = (int)(1 + rnd(f) % 2); k > 0; k--)
		switch_fault(f, SIM_SLOW_UPLINK);
	switch_fault(f, SIM_FAILED_UPLINK);
	switch_fault(f, SIM_SLOW_LEAF);
	if (c->mixed)
		mixed_nodes(f);
	return 0;
}

int sim_init(struct simfabric *f, uint32_t nodes, uint32_t rails, uint64_t seed, double noise,
	     size_t main_steps)
{
	return sim_init_clos(f, nodes, rails, seed, noise, main_steps, NULL);
}

int sim_init_clos(struct simfabric *f, uint32_t nodes, uint32_t rails, uint64_t seed, double noise,
		  size_t main_steps, const struct sim_clos *c)
{
	size_t i;
	int ret;

	memset(f, 0, sizeof(*f));
	f->nodes = nodes;
	f->rails = rails ? rails : 1;
	f->rng = seed * 0x2545f4914f6cdd1dULL + 1;
	f->rate = calloc((size_t)nodes * f->rails + 1, sizeof(*f->rate));
	f->of = calloc((size_t)nodes + 1, sizeof(*f->of));
	f->gone = calloc((size_t)nodes + 1, sizeof(*f->gone));
	f->fault = calloc(6 * ((size_t)nodes / 300 + 1) + 8, sizeof(*f->fault));
	if (!f->rate || !f->of || !f->gone || !f->fault || nodes < 16) {
		sim_free(f);
		return nodes < 16 ? -EINVAL : -ENOMEM;
	}
	f->noise = noise > 0 ? noise : 0.10 + 0.15 * unit(f);
	for (i = 0; i < (size_t)nodes * f->rails; i++)
		f->rate[i] = RATE_GBPS * (0.97 + 0.03 * unit(f));
	for (i = 0; i < nodes; i++)
		f->of[i] = -1;
	faults_draw(f, main_steps);
	ret = c ? clos_init(f, c) : 0;
	if (ret)
		sim_free(f);
	return ret;
}

void sim_free(struct simfabric *f)
{
	free(f->rate);
	free(f->of);
	free(f->gone);
	free(f->fault);
	free(f->up);
	free(f->leaf);
	topology_free(&f->topo);
	memset(f, 0, sizeof(*f));
}

static const struct sim_fault *fault_of(const struct simfabric *f, uint32_t v)
{
	return f->of[v] >= 0 ? &f->fault[f->of[v]] : NULL;
}

/* What the faults of @v leave of a test's rate, @v writing (@out) or receiving on @rail. */
static double end_factor(const struct simfabric *f, uint32_t v, uint32_t rail, bool out)
{
	const struct sim_fault *x = fault_of(f, v);

	if (!x)
		return 1;
	switch (x->kind) {
	case SIM_SLOW:
		return x->factor;
	case SIM_SLOW_OUT:
		return out ? x->factor : 1;
	case SIM_SLOW_IN:
		return out ? 1 : x->factor;
	case SIM_SLOW_RAIL:
		return x->rail == rail ? x->factor : 1;
	default:
		return 1;
	}
}

static double link_factor(const struct simfabric *f, uint32_t a, uint32_t b, uint32_t rail)
{
	size_t i;

	for (i = 0; i < f->nfault; i++) {
		const struct sim_fault *x = &f->fault[i];

		if (x->kind == SIM_SLOW_LINK && x->rail == rail &&
		    ((x->node == a && x->peer == b) || (x->node == b && x->peer == a)))
			return x->factor;
	}
	return 1;
}

/* A queue pair's spine: ECMP's hash of its flow (the ends, the rail, the QP's own source port). */
static uint32_t spine_of(const struct simfabric *f, uint32_t c, uint32_t s, uint32_t rail, uint32_t qp)
{
	uint64_t z = ((uint64_t)c << 40) ^ ((uint64_t)s << 16) ^ ((uint64_t)rail << 8) ^ qp;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (uint32_t)((z ^ (z >> 31)) % f->clos.spines);
}

/*
 * What the switches leave of the flow @c -> @s on @rail: the mean over its
 * QPs of each one's path (the slowest switch or cable on it); < 0 when a
 * QP's path is cut (the test fails).  1 without a Clos.
 */
static double path_factor(const struct simfabric *f, uint32_t c, uint32_t s, uint32_t rail)
{
	uint32_t lc, ls, q, R = f->rails, S = f->clos.spines;
	double lf, sum = 0;

	if (!f->clos.per_leaf)
		return 1;
	lc = c / f->clos.per_leaf;
	ls = s / f->clos.per_leaf;
	lf = f->leaf[lc * R + rail] < f->leaf[ls * R + rail] ? f->leaf[lc * R + rail] : f->leaf[ls * R + rail];
	if (lc == ls)
		return lf;
	for (q = 0; q < f->clos.qps; q++) {
		uint32_t sp = spine_of(f, c, s, rail, q);
		double a = f->up[((size_t)lc * S + sp) * R + rail], b = f->up[((size_t)ls * S + sp) * R + rail];
		double p = a < b ? a : b;

		if (p <= 0)
			return -1;
		sum += p < lf ? p : lf;
	}
	return sum / f->clos.qps;
}

static bool blocked(const struct simfabric *f, uint32_t v)
{
	const struct sim_fault *x = fault_of(f, v);

	return x && x->kind == SIM_BLOCKED;
}

/* @v dies during the step running: its tests of the step fail, as node_gone() fails them. */
static bool dies_now(const struct simfabric *f, uint32_t v)
{
	const struct sim_fault *x = fault_of(f, v);

	return x && x->kind == SIM_DIES && x->at == f->steps;
}

static double min3(double a, double b, double c)
{
	return a < b ? (a < c ? a : c) : (b < c ? b : c);
}

/* One test, @c writing to @s on @rail, as the two-node probe would report it. */
static void measure(struct simfabric *f, uint32_t c, uint32_t s, uint32_t rail, struct link_result *r)
{
	double rate = f->rate[c * f->rails + rail], srate = f->rate[s * f->rails + rail], path, k;

	if (dies_now(f, c) || dies_now(f, s)) {
		r->cause = CAUSE_NODE_DOWN;
		snprintf(r->why, sizeof(r->why), "%s went down", dies_now(f, c) ? "the writer" : "the receiver");
		return;
	}
	if (blocked(f, c) || blocked(f, s)) {
		r->cause = CAUSE_ROCE_BLOCKED;
		snprintf(r->why, sizeof(r->why), "no RDMA traffic arrived (model)");
		return;
	}
	path = path_factor(f, c, s, rail);
	if (path < 0) {
		r->cause = CAUSE_TIMEOUT;
		snprintf(r->why, sizeof(r->why), "no completion within the timeout (model: a cut uplink)");
		return;
	}
	/* The slowest thing on the way sets the rate: an end, the pair's link, a switch. */
	k = min3(end_factor(f, c, rail, true), end_factor(f, s, rail, false), link_factor(f, c, s, rail));
	r->ok = true;
	r->gbps = (rate < srate ? rate : srate) * (path < k ? path : k) * (1 + f->noise * (2 * unit(f) - 1));
}

/* The nodes that died in this step: gone, and said to the map, as the coordinator does. */
static int deaths(struct simfabric *f)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < f->nfault && !ret; i++)
		if (f->fault[i].kind == SIM_DIES && f->fault[i].at == f->steps) {
			f->gone[f->fault[i].node] = true;
			ret = linkmap_node_down(f->map, f->fault[i].node,
						"its agent's connection closed (the node or the agent died)");
		}
	return ret;
}

int sim_start(struct simfabric *f, struct linkmap *map)
{
	uint32_t v;
	int ret = 0;

	f->map = map;
	for (v = 0; v < f->nodes && !ret; v++)
		if (f->gone[v])
			ret = linkmap_node_down(map, v, "its agent did not reach this host (model)");
	return ret;
}

int sim_step(void *arg, const struct sched_step *st, uint32_t round)
{
	struct simfabric *f = arg;
	size_t k;
	uint32_t r;
	int ret;

	f->steps++;
	/* Pairs with a node gone before the step are not run (the coordinator's jobs_make()). */
	for (k = 0; k < st->n; k++) {
		const struct sched_pair *p = &st->pairs[k];

		if (f->gone[p->client] || f->gone[p->server])
			continue;
		for (r = 0; r < f->rails; r++) {
			struct link_result res = { .client = p->client, .server = p->server, .rail = r,
						   .round = round, .lat_us = -1 };

			measure(f, p->client, p->server, r, &res);
			ret = linkmap_add(f->map, &res);
			if (ret)
				return ret;
		}
	}
	return deaths(f);
}

/* ---- scoring ---- */

static bool dir_matches(const struct sim_fault *x, const struct finding *fd)
{
	bool out = strstr(fd->text, " is slow writing") != NULL;
	bool in = strstr(fd->text, " is slow receiving") != NULL;

	return x->kind == SIM_SLOW ? !out && !in : x->kind == SIM_SLOW_OUT ? out : in;
}

static bool switch_matches(const struct sim_fault *x, const struct finding *fd, uint32_t sw)
{
	if (x->node != sw || (fd->rail != UINT32_MAX && fd->rail != x->rail))
		return false;
	if (fd->kind == FIND_SLOW_SWITCH)
		return x->kind == SIM_SLOW_LEAF;
	return x->kind == SIM_SLOW_UPLINK || x->kind == SIM_FAILED_UPLINK;
}

/* A switch finding: the switch fault it names (any of its candidates'), or NULL. */
static struct sim_fault *switch_found(struct simfabric *f, const struct finding *fd, bool *faulty)
{
	size_t i, c;

	*faulty = false;
	for (i = 0; i < f->nfault; i++)
		for (c = 0; c < (fd->ncand ? fd->ncand : 1); c++)
			if (switch_matches(&f->fault[i], fd, fd->ncand ? fd->cand[c] : fd->sw)) {
				*faulty = true;
				return &f->fault[i];
			}
	return NULL;
}

/* The fault @fd finds, or NULL; *@faulty: it names a node or link with a fault, found or not. */
static struct sim_fault *fault_found(struct simfabric *f, const struct finding *fd, bool *faulty)
{
	struct sim_fault *x;
	size_t i;

	if (fd->sw != TOPO_NONE)
		return switch_found(f, fd, faulty);
	x = f->of[fd->node] >= 0 ? &f->fault[f->of[fd->node]] : NULL;
	*faulty = x != NULL;
	switch (fd->kind) {
	case FIND_DOWN_NODE:
		return x && x->kind == SIM_DIES ? x : NULL;
	case FIND_BLOCKED_NODE:
		return x && x->kind == SIM_BLOCKED ? x : NULL;
	case FIND_SLOW_NODE:
		return x && x->kind <= SIM_SLOW_IN && dir_matches(x, fd) ? x : NULL;
	case FIND_SLOW_RAIL:
		return x && x->kind == SIM_SLOW_RAIL && x->rail == fd->rail ? x : NULL;
	default:
		break;
	}
	/* A link: its own fault, or one of its ends' (which then was not named). */
	*faulty |= f->of[fd->peer] >= 0;
	for (i = 0; i < f->nfault; i++) {
		x = &f->fault[i];
		if (x->kind == SIM_SLOW_LINK && x->rail == fd->rail &&
		    ((x->node == fd->node && x->peer == fd->peer) || (x->node == fd->peer && x->peer == fd->node))) {
			*faulty = true;
			return x;
		}
	}
	return NULL;
}

/* Slow links that no test crossed. */
static void mark_untested(struct simfabric *f, const struct linkmap *m)
{
	size_t i, j;

	for (j = 0; j < f->nfault; j++)
		f->fault[j].untested = f->fault[j].kind == SIM_SLOW_LINK;
	for (i = 0; i < m->n; i++)
		for (j = 0; j < f->nfault; j++) {
			struct sim_fault *x = &f->fault[j];

			if (x->untested && x->rail == m->res[i].rail &&
			    ((x->node == m->res[i].client && x->peer == m->res[i].server) ||
			     (x->node == m->res[i].server && x->peer == m->res[i].client)))
				x->untested = false;
		}
}

void sim_score(struct simfabric *f, const struct linkmap *m, struct sim_score *sc,
	       void (*say)(void *arg, const char *what, const char *text), void *arg)
{
	size_t i;

	memset(sc, 0, sizeof(*sc));
	mark_untested(f, m);
	for (i = 0; i < f->nfault; i++)
		f->fault[i].found = false;
	for (i = 0; i < m->nfind; i++) {
		const struct finding *fd = &m->find[i];
		struct sim_fault *x;
		bool faulty, link = fd->peer != UINT32_MAX;

		if (!fd->failure)
			continue;
		x = fault_found(f, fd, &faulty);
		sc->find_total[fd->kind]++;
		sc->find_true[fd->kind] += x != NULL;
		if (x)
			x->found = true;
		else if (!faulty && fd->sw != TOPO_NONE) {
			sc->false_switches++;
			if (say)
				say(arg, "false switch", fd->text);
		} else if (!faulty) {
			*(link ? &sc->false_links : &sc->false_nodes) += 1;
			if (say)
				say(arg, link ? "false link" : "false node", fd->text);
		}
	}
	for (i = 0; i < f->nfault; i++) {
		const struct sim_fault *x = &f->fault[i];
		bool node = x->kind < SIM_SLOW_LINK;
		char text[160];

		sc->kind_faults[x->kind]++;
		sc->kind_found[x->kind] += x->found;
		sc->faults++;
		sc->node_faults += node;
		sc->found += x->found;
		sc->node_found += node && x->found;
		sc->untested += x->untested;
		if (x->found)
			continue;
		sc->missed++;
		if (!say)
			continue;
		if (x->kind > SIM_SLOW_LINK)
			snprintf(text, sizeof(text), "%s: leaf%03u (spine %u) on rail %u, %.0f%%",
				 sim_kind_name(x->kind), x->node, x->kind == SIM_SLOW_LEAF ? 0 : x->peer, x->rail,
				 x->kind == SIM_FAILED_UPLINK ? 0 : x->factor * 100);
		else if (x->kind == SIM_SLOW_LINK)
			snprintf(text, sizeof(text), "%s: %u <-> %u on rail %u, %.0f%%%s", sim_kind_name(x->kind),
				 x->node, x->peer, x->rail, x->factor * 100, x->untested ? ", not tested" : "");
		else if (x->kind == SIM_BLOCKED || x->kind == SIM_DIES)
			snprintf(text, sizeof(text), "%s: %u", sim_kind_name(x->kind), x->node);
		else
			snprintf(text, sizeof(text), "%s: %u, %.0f%%", sim_kind_name(x->kind), x->node,
				 x->factor * 100);
		say(arg, "missed", text);
	}
}
