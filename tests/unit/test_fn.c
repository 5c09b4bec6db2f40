// SPDX-License-Identifier: MIT
/*
 * node/fn and node/netns: phys_port_name as devlink forms it, and the
 * functions, representors, DPU side and netns mode of the recorded trees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "node/fn.h"
#include "node/netns.h"
#include "node/rdma.h"
#include "node/rdma_load.h"
#include "test.h"

static char fixture[512];

static struct ctx *root_ctx(const char *name)
{
	static struct ctx ctx;
	const char *dir = getenv("FIXTURES");

	snprintf(fixture, sizeof(fixture), "%s/%s", dir ? dir : "tests/fixtures", name);
	memset(&ctx, 0, sizeof(ctx));
	ctx.root = fixture;
	return &ctx;
}

static void port_names_as_devlink_forms_them(void)
{
	struct rep r;
	char buf[64];

	CHECK(rep_parse_name("p0", &r) && r.flavour == REP_PHYSICAL && r.port == 0);
	CHECK(rep_parse_name("p1s2", &r) && r.flavour == REP_PHYSICAL && r.port == 1);
	CHECK(rep_parse_name("pf0", &r) && r.flavour == REP_PF && r.pf == 0 && r.controller == 0);
	CHECK(rep_parse_name("pf1vf7", &r) && r.flavour == REP_VF && r.pf == 1 && r.vf == 7);
	CHECK(rep_parse_name("pf0sf88", &r) && r.flavour == REP_SF && r.sf == 88);
	/* External controller 1: a DPU's host. */
	CHECK(rep_parse_name("c1pf0vf0", &r) && r.flavour == REP_VF && r.controller == 1);
	CHECK_STR(rep_describe(&r, buf, sizeof(buf)), "host VF 0 of PF 0");
	CHECK(rep_parse_name("c1pf0", &r) && r.flavour == REP_PF);
	CHECK_STR(rep_describe(&r, buf, sizeof(buf)), "host PF 0");
	CHECK(rep_parse_name("c2pf1sf3", &r));
	CHECK_STR(rep_describe(&r, buf, sizeof(buf)), "host 2 SF 3 of PF 1");
	/* Not a devlink port name: a VF's own netdev has none; junk is none. */
	CHECK(!rep_parse_name("", &r));
	CHECK(!rep_parse_name("pf", &r));
	CHECK(!rep_parse_name("pf0vf", &r));
	CHECK(!rep_parse_name("c1p0", &r));
	CHECK(!rep_parse_name("p0x", &r));
	CHECK(!rep_parse_name("pf99999", &r));
	CHECK(!rep_parse_name("eth0", &r));
}

static void sriov_host(void)
{
	struct ctx *ctx = root_ctx("sriov-cx6dx");
	struct rdma_node node;
	struct fn_node f;
	const struct fn *fn;

	CHECK_INT(rdma_node_load(ctx, &node, RDMA_LOAD_PORTS), 0);
	CHECK_INT(fn_load(ctx, &node, &f), 0);
	/* Two PFs and four VFs, those without an RDMA device too. */
	CHECK_INT(f.n, 6);
	fn = fn_find(&f, "0000:3b:00.0");
	CHECK(fn && fn->kind == FN_PF && fn->vfs == 4 && fn->vfs_total == 8);
	CHECK(fn && fn->eswitch == DL_ESWITCH_LEGACY && fn->vendor == 0x15b3 && fn->device == 0x101d);
	CHECK(fn && !strcmp(fn->netdev, "ens1f0np0") && !strcmp(fn->rdma, "mlx5_0"));
	fn = fn_find(&f, "0000:3b:00.5");
	CHECK(fn && fn->kind == FN_VF && fn->num == 3 && !fn->driver[0] && !fn->rdma[0]);
	fn = fn_find(&f, "0000:3b:00.4");
	CHECK(fn && !strcmp(fn->driver, "vfio-pci"));
	fn = fn_of_rdma(&f, "mlx5_3");
	CHECK(fn && fn->kind == FN_VF && fn->num == 1 && !strcmp(fn->parent, "0000:3b:00.0"));
	CHECK_INT(f.nreps, 0);
	CHECK(f.dpu.model == NULL);
	fn_free(&f);
	rdma_node_free(&node);
}

static void bluefield_arm_side(void)
{
	struct ctx *ctx = root_ctx("bluefield2-arm");
	struct rdma_node node;
	struct rdma_netns ns;
	struct fn_node f;
	const struct fn *fn;
	const struct rep *r;

	CHECK_INT(rdma_node_load(ctx, &node, RDMA_LOAD_PORTS), 0);
	CHECK_INT(fn_load(ctx, &node, &f), 0);
	fn = fn_of_rdma(&f, "mlx5_2");
	CHECK(fn && fn->kind == FN_SF && fn->num == 4 && !strcmp(fn->addr, "mlx5_core.sf.4"));
	CHECK(fn && !strcmp(fn->parent, "0000:03:00.0") && !strcmp(fn->driver, "mlx5_core.sf"));
	fn = fn_find(&f, "mlx5_core.sf.5");
	CHECK(fn && fn->kind == FN_SF && fn->num == 5 && !fn->driver[0]);
	fn = fn_find(&f, "0000:03:00.0");
	CHECK(fn && fn->eswitch == DL_ESWITCH_SWITCHDEV && !strcmp(fn->netdev, "p0"));
	CHECK_INT(f.nreps, 7);
	r = rep_of_netdev(&f, "pf0hpf");
	CHECK(r && r->flavour == REP_PF && r->controller == 1 && !strcmp(r->rdma, "mlx5_0") && r->rdma_port == 1);
	r = rep_of_netdev(&f, "en3f0pf0sf4");
	CHECK(r && r->flavour == REP_SF && !strcmp(r->function, "mlx5_2"));
	CHECK(rep_of_netdev(&f, "enp3s0f0s4") == NULL);
	CHECK(rep_of_netdev(&f, "oob_net0") == NULL);
	CHECK_STR(f.dpu.model, "BlueField-2");
	CHECK(f.dpu.arm);
	CHECK_STR(f.dpu.pci, "0000:03:00.0, 0000:03:00.1");
	rdma_netns_load(ctx, &node, &ns);
	CHECK_INT(ns.mode, NETNS_SHARED);
	CHECK_INT(ns.n_hidden, 0);
	fn_free(&f);
	rdma_node_free(&node);
}

static void vf_in_a_container(void)
{
	struct ctx *ctx = root_ctx("container-vf");
	struct rdma_node node;
	struct rdma_netns ns;
	struct fn_node f;
	char why[512], fix[256], buf[64];

	CHECK_INT(rdma_node_load(ctx, &node, RDMA_LOAD_PORTS), 0);
	CHECK_INT(fn_load(ctx, &node, &f), 0);
	CHECK(fn_of_rdma(&f, "mlx5_3") != NULL);
	if (fn_of_rdma(&f, "mlx5_3"))
		CHECK_STR(fn_describe(&f, fn_of_rdma(&f, "mlx5_3"), buf, sizeof(buf)), "VF 1 of 0000:3b:00.0");
	/* The PF's netdev lives in the host's namespace: not seen. */
	CHECK(fn_find(&f, "0000:3b:00.0") && !fn_find(&f, "0000:3b:00.0")->netdev[0]);
	rdma_netns_load(ctx, &node, &ns);
	CHECK_INT(ns.mode, NETNS_EXCLUSIVE);
	CHECK_INT(ns.n_hidden, 3);
	CHECK_STR(ns.hidden[0], "mlx5_0");
	CHECK(rdma_netns_explain(&ns, why, sizeof(why), fix, sizeof(fix)));
	CHECK(strstr(fix, "rdma dev set mlx5_0 netns NS") != NULL);
	ns.mode = NETNS_SHARED;
	CHECK(!rdma_netns_explain(&ns, why, sizeof(why), fix, sizeof(fix)));
	fn_free(&f);
	rdma_node_free(&node);
}

int main(void)
{
	RUN("fn", port_names_as_devlink_forms_them);
	RUN("fn", sriov_host);
	RUN("fn", bluefield_arm_side);
	RUN("fn", vf_in_a_container);
	TEST_EXIT();
}
