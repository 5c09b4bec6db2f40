// SPDX-License-Identifier: MIT
/*
 * Every local check of `rdmactl doctor` over a recorded node: sysfs,
 * /proc, the limits files, recorded tool output (run/rdmactl/cmd/: nft,
 * iptables-save, ofed_info), library directories, and the NCCL/UCX
 * variables the checks read.  Input: a tree (fuzz.h); a record
 * "== env/NAME" sets the variable NAME to its contents (first line) for
 * the run, instead of writing a file.  The peer check is left out: it
 * needs the network (the probe targets cover what it reads).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/output.h"
#include "base/sysfs.h"
#include "doctor/doctor.h"
#include "fuzz.h"
#include "node/rdma_load.h"

static const char *const prefixes[] = {
	"sys/", "proc/", "etc/", "run/", "usr/", "lib/", "lib64/", "env/", NULL
};

/* The variables the checks read; each run starts with none of them set. */
static const char *const vars[] = {
	"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_IB_GID_INDEX", "NCCL_IB_DISABLE",
	"NCCL_IB_ADDR_FAMILY", "NCCL_IB_ADDR_RANGE", "NCCL_IB_ROCE_VERSION_NUM",
	"UCX_NET_DEVICES", "UCX_IB_GID_INDEX", "LD_LIBRARY_PATH", NULL
};

static void env_from_tree(const struct ctx *ctx)
{
	char path[128], val[4096];
	size_t i;

	for (i = 0; vars[i]; i++) {
		unsetenv(vars[i]);
		snprintf(path, sizeof(path), "/env/%s", vars[i]);
		if (read_line(ctx, path, val, sizeof(val)) >= 0)
			setenv(vars[i], val, 1);
	}
}

static const struct column cols[] = {
	{ "status", NULL, 0, NULL }, { "id", NULL, 0, NULL },
	{ "found", NULL, 0, NULL }, { "fix", NULL, 0, NULL }, { 0 }
};

/* FUZZ_VERBOSE=1: the findings, to check a seed reaches the checks it is for. */
static void show(const struct doctor_counts *c)
{
	fprintf(stderr, "ok %d, warn %d, FAIL %d, skip %d; problems: %s\n", c->n[CHECK_OK],
		c->n[CHECK_WARN], c->n[CHECK_FAIL], c->n[CHECK_SKIP], c->problems);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct doctor_counts counts;
	struct node_facts d;
	struct ctx ctx;
	struct table *t;
	bool sel[64];
	size_t i, n = doctor_count();

	if (size > 65536 || n > 64)
		return 0;
	fuzz_root_init();
	fuzz_tree_write(data, size, prefixes);
	ctx = fuzz_ctx("doctor");
	env_from_tree(&ctx);
	for (i = 0; i < n; i++)
		sel[i] = strcmp(doctor_checks[i].id, "peer") != 0;
	memset(&d, 0, sizeof(d));
	d.ctx = &ctx;
	d.target = (enum job_kind)(size % JOB_KINDS);
	d.node_err = rdma_node_load(&ctx, &d.node, RDMA_LOAD_GIDS);
	t = table_new(cols);
	if (!t)
		abort();
	doctor_run(&d, sel, t, &counts);
	if (!memchr(counts.problems, 0, sizeof(counts.problems)))
		fuzz_fail("problem list not terminated");
	if ((size_t)(counts.n[CHECK_OK] + counts.n[CHECK_WARN] + counts.n[CHECK_FAIL] +
		     counts.n[CHECK_SKIP]) != table_rows(t))
		fuzz_fail("counts and rows differ");
	if (getenv("FUZZ_VERBOSE"))
		show(&counts);
	table_free(t);
	doctor_free(&d);
	if (!d.node_err)
		rdma_node_free(&d.node);
	return 0;
}
