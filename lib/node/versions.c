// SPDX-License-Identifier: MIT
/*
 * The software versions both ends of a job must share: rdma-core (its
 * libibverbs.so.1.ABI.RELEASE.0 carries the release: libibverbs.so.1.14.44.0
 * is rdma-core 44.0), MLNX_OFED when installed (`ofed_info -s`), NCCL.
 */
#include <errno.h>
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/root.h"
#include "base/run.h"
#include "base/sysfs.h"
#include "node/envparse.h"
#include "node/versions.h"

/* The library directories the dynamic loader searches, and CUDA's. */
const char *const lib_dirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
	"/lib/x86_64-linux-gnu", "/lib64", "/usr/local/lib", "/usr/local/cuda/lib64",
	"/usr/local/nccl/lib", NULL
};

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of @dir below the root that match @pattern, sorted as glob() sorts them. */
struct names {
	char **v;
	size_t n;
};

static void names_free(struct names *ns)
{
	while (ns->n)
		free(ns->v[--ns->n]);
	free(ns->v);
	ns->v = NULL;
}

/* Fill @ns (empty on any failure); links are followed inside the root, not on this host. */
static void names_matching(const struct ctx *ctx, const char *dir, const char *pattern,
			   struct names *ns)
{
	DIR *d = root_opendir(ctx, dir);
	struct dirent *de;
	char **nv;

	ns->v = NULL;
	ns->n = 0;
	while (d && (de = readdir(d))) {
		if (fnmatch(pattern, de->d_name, FNM_PERIOD))
			continue;
		nv = realloc(ns->v, (ns->n + 1) * sizeof(*nv));
		if (!nv)
			break;
		ns->v = nv;
		if ((ns->v[ns->n] = strdup(de->d_name)))
			ns->n++;
	}
	if (d)
		closedir(d);
	if (ns->n)
		qsort(ns->v, ns->n, sizeof(*ns->v), cmp_names);
}

/* Highest libnccl.so.X.Y.Z in @dir below the root; 0 or the version code. */
static int nccl_in_dir(const struct ctx *ctx, const char *dir, char *where, size_t len)
{
	struct names g;
	size_t i;
	int best = 0;

	names_matching(ctx, dir, "libnccl.so.*.*.*", &g);
	for (i = 0; i < g.n; i++) {
		const char *base = g.v[i];
		int v = nccl_version_from_soname(base);

		if (v > best) {
			best = v;
			snprintf(where, len, "%s/%s", dir, base);
		}
	}
	names_free(&g);
	return best;
}

int nccl_find(const struct ctx *ctx, char *where, size_t len)
{
	const char *ldpath = getenv("LD_LIBRARY_PATH");
	size_t i;
	int v;

	/* LD_LIBRARY_PATH first: what the job would load (live only). */
	if (ldpath && !ctx->root[0] && strlen(ldpath) < 4096) {
		char copy[4096], *save = NULL, *dir;

		snprintf(copy, sizeof(copy), "%s", ldpath);
		for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
			if ((v = nccl_in_dir(ctx, dir, where, len)) > 0)
				return v;
	}
	for (i = 0; lib_dirs[i]; i++)
		if ((v = nccl_in_dir(ctx, lib_dirs[i], where, len)) > 0)
			return v;
	return -1;
}

/* "44.0" from the newest libibverbs.so.1.*.*.* below the root. */
bool rdma_core_version(const struct ctx *ctx, char *ver, size_t len, char *file, size_t flen)
{
	unsigned int abi, major, minor;
	struct names g;
	size_t i, k;
	bool found = false;

	for (i = 0; lib_dirs[i] && !found; i++) {
		names_matching(ctx, lib_dirs[i], "libibverbs.so.1.*.*.*", &g);
		for (k = 0; k < g.n && !found; k++) {
			const char *base = g.v[k];

			if (sscanf(base, "libibverbs.so.1.%u.%u.%u", &abi, &major, &minor) == 3) {
				snprintf(ver, len, "%u.%u", major, minor);
				snprintf(file, flen, "%s/%s", lib_dirs[i], base);
				found = true;
			}
		}
		names_free(&g);
	}
	return found;
}

/* "MLNX_OFED_LINUX-5.8-1.0.1.1:" -> "MLNX_OFED_LINUX-5.8-1.0.1.1" */
/*
 * ofed_info is a script that may take its time, and doctor -j asks twice
 * (the versions check, the node's facts): run once per root (tests and
 * fuzzers read many roots in one process).
 */
int ofed_version(const struct ctx *ctx, char *buf, size_t len)
{
	static char known[128], root[4096];
	static int state;	/* 0 not asked, 1 found, -1 absent, -2 not recorded */
	char *out = NULL, *line;
	int ret;

	if (state && strcmp(root, ctx->root))
		state = 0;
	if (!state) {
		snprintf(root, sizeof(root), "%s", ctx->root);
		state = -1;
		ret = run_node_cmd(ctx, NODE_CMD_OFED, &out);
		if (!ret) {
			line = strtrim(out);
			line[strcspn(line, "\n")] = '\0';
			if (*line && line[strlen(line) - 1] == ':')
				line[strlen(line) - 1] = '\0';
			snprintf(known, sizeof(known), "%s", line);
			state = known[0] ? 1 : -1;
		} else if (ret == -ENODATA) {
			state = -2;
		}
		free(out);
	}
	snprintf(buf, len, "%s", state > 0 ? known : "");
	return state > 0 ? 1 : state == -2 ? -ENODATA : 0;
}
