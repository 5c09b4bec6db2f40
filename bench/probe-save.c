// SPDX-License-Identifier: MIT
/*
 * probe-save: what probe -w --save and --from cost at 1 000 nodes, beside
 * the run they serve.  A full matrix (pairs, one rail: 999 000 links) and
 * a triage run (20 steps, two rails: 40 000 links) of made-up results:
 * one checkpoint (the findings worked out, the whole document written
 * and renamed into place, as runsave_write() does during a run), its
 * size, and the spacing that follows from it (at least 2 s and ten times
 * the checkpoint's time); then the document read back and planned, as
 * --from does before a resumed run starts (CPU seconds of this process:
 * a shared host's load would say more of others).  The reference: a step of 3 s
 * (the figure for a fabric's step), so the steps between two
 * checkpoints and the share of the run's time they take.
 *
 * Usage: probe-save [DIR] (default: $TMPDIR or /tmp); prints one line a
 * case.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "mesh/linkmap.h"
#include "mesh/resume.h"
#include "mesh/runsave.h"

#define NODES 1000
#define STEP_S 3.0

/*
 * CPU time of this process: on a shared, loaded host the wall time says
 * more of the other processes than of this one (the load average is
 * printed beside it).
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every pair of @s on every rail near 97 Gb/s; node 17 at a quarter. */
static int fill(struct linkmap *m, const struct schedule *s, uint32_t rails)
{
	unsigned int seed = 25;
	size_t k, j;
	uint32_t r;
	int ret = 0;

	for (k = 0; k < s->n && !ret; k++)
		for (j = 0; j < s->steps[k].n && !ret; j++)
			for (r = 0; r < rails && !ret; r++) {
				const struct sched_pair *p = &s->steps[k].pairs[j];
				struct link_result l = { .client = p->client, .server = p->server, .rail = r,
							 .round = s->steps[k].round, .ok = true,
							 .lat_us = 2 + rand_r(&seed) % 100 / 100.0 };

				l.gbps = (p->client == 17 || p->server == 17 ? 24 : 97) *
					 (0.98 + rand_r(&seed) % 400 / 10000.0);
				snprintf(l.dev, sizeof(l.dev), "mlx5_%u/1", r);
				ret = linkmap_add(m, &l);
			}
	return ret;
}

static int read_back(const char *path, char *const *names, double *secs)
{
	struct saved_run sv;
	struct resume rs;
	char err[256], *text;
	double t0 = now_s();
	struct stat st;
	FILE *f = fopen(path, "re");
	int ret;

	if (!f || fstat(fileno(f), &st) || !(text = malloc((size_t)st.st_size + 1)) ||
	    fread(text, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		if (f)
			fclose(f);
		return -EIO;
	}
	fclose(f);
	ret = saved_run_read(text, (size_t)st.st_size, &sv, err, sizeof(err));
	free(text);
	if (ret) {
		fprintf(stderr, "probe-save: %s\n", err);
		return ret;
	}
	ret = resume_plan(&sv, names, NODES, &rs);
	saved_run_free(&sv);
	resume_free(&rs);
	*secs = now_s() - t0;
	return ret;
}

static int one(const char *dir, char *const *names, enum pattern p, uint32_t rails)
{
	struct json_object *run = json_object_new_object(), *arr = json_object_new_array();
	struct runsave rs = { 0 };
	struct schedule s;
	struct linkmap m;
	struct stat st;
	char path[4096];
	double t0, w0, write_s, wall = 0, read_s = 0, gap;
	uint32_t i;
	int ret;

	for (i = 0; i < NODES; i++)
		json_object_array_add(arr, json_object_new_string(names[i]));
	json_object_object_add(run, "rails", json_object_new_int((int)rails));
	json_object_object_add(run, "complete", json_object_new_boolean(0));
	json_object_object_add(run, "names", arr);
	snprintf(path, sizeof(path), "%s/probe-save.%d.json", dir, (int)getpid());
	rs.path = path;
	linkmap_init(&m, names, NODES, rails, 0.8);
	ret = schedule_make(p, NODES, &s) ?: fill(&m, &s, rails);
	t0 = now_s();
	w0 = wall_s();
	if (!ret)
		ret = runsave_write(&rs, &m, run);
	write_s = now_s() - t0;
	wall = wall_s() - w0;
	if (!ret)
		ret = stat(path, &st) ? -errno : read_back(path, names, &read_s);
	if (!ret) {
		gap = write_s * 10 > 2 ? write_s * 10 : 2;
		printf("  %-6s %4u nodes, %u rail(s), %7zu links: %6.1f MB; a checkpoint %5.2f s CPU "
		       "(%5.2f s wall here), one every %5.1f s (%5.1f steps of %.0f s, %4.1f%% of the "
		       "run); read back for --from %5.2f s CPU\n", pattern_name(p), NODES, rails, m.n,
		       st.st_size / 1e6, write_s, wall, gap, gap / STEP_S, STEP_S,
		       100 * write_s / (gap + write_s), read_s);
	}
	unlink(path);
	schedule_free(&s);
	linkmap_free(&m);
	json_object_put(run);
	return ret;
}

int main(int argc, char **argv)
{
	static char buf[NODES][8], *names[NODES];
	const char *dir = argc > 1 ? argv[1] : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	double load[1] = { -1 };
	uint32_t i;

	for (i = 0; i < NODES; i++) {
		snprintf(buf[i], sizeof(buf[i]), "n%04u", i + 1);
		names[i] = buf[i];
	}
	getloadavg(load, 1);
	printf("probe-save: probe -w --save and --from at %u nodes, beside steps of %.0f s "
	       "(load average %.1f)\n", NODES, STEP_S, load[0]);
	if (one(dir, names, PATTERN_TRIAGE, 2) || one(dir, names, PATTERN_PAIRS, 1)) {
		fprintf(stderr, "probe-save: failed\n");
		return 1;
	}
	return 0;
}
