// SPDX-License-Identifier: MIT
/*
 * doctor_load(), the one loader of the node's facts that the doctor, env
 * and gids use (lib/doctor/check.c): what it loads, what it leaves to its
 * caller, and that doctor_free() frees only what it loaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "doctor/doctor.h"
#include "node/rdma_load.h"
#include "test.h"

static struct ctx ctx;

static void root(const char *name)
{
	memset(&ctx, 0, sizeof(ctx));
	ctx.cmd = "doctor";
	ctx.root = fixture_path(name);
}

/* A recorded node: its devices loaded, the job kind set, the rest left for first use. */
static void loads_the_node(void)
{
	struct node_facts d;

	root("doctor-healthy");
	d.fns_loaded = true;	/* garbage before the load: every field starts from zero */
	doctor_load(&d, &ctx, JOB_NCCL, NULL);
	CHECK(d.ctx == &ctx);
	CHECK_INT(d.target, JOB_NCCL);
	CHECK_INT(d.node_err, 0);
	CHECK(d.node.n >= 1 && d.node.devs != NULL);
	CHECK(d.node_owned);
	CHECK(!d.fns_loaded && !d.ucx_loaded && !d.ns_loaded && !d.peer && !d.user);
	doctor_free(&d);
	CHECK(!d.node_owned);
}

/* A node the caller loaded (gids): used as is, and still the caller's after doctor_free(). */
static void takes_a_loaded_node(void)
{
	struct rdma_node node;
	struct node_facts d;

	root("doctor-healthy");
	CHECK_INT(rdma_node_load(&ctx, &node, RDMA_LOAD_GIDS), 0);
	doctor_load(&d, &ctx, JOB_ANY, &node);
	CHECK(d.node.devs == node.devs && d.node.n == node.n);
	CHECK(!d.node_owned);
	doctor_free(&d);
	/* Still there: ASan (make check) reads freed memory here if doctor_free() took it. */
	CHECK(node.n >= 1 && node.devs[0].name[0] != '\0');
	rdma_node_free(&node);
}

int main(void)
{
	RUN("facts", loads_the_node);
	RUN("facts", takes_a_loaded_node);
	TEST_EXIT();
}
