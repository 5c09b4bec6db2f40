// SPDX-License-Identifier: MIT
/*
 * rdmactl devices [DEV]: the RDMA devices of this node, what each is on
 * its bus (PF, VF, SF), the representors of a switchdev eswitch, the DPU
 * side, and the RDMA netns mode.
 */
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "cmds.h"
#include "node/fn.h"
#include "node/netns.h"
#include "node/rdma.h"
#include "node/rdma_load.h"

const struct opt devices_opts[] = {
	{ 0 }
};

static const struct column devices_cols[] = {
	{ "name", "DEVICE", 0, NULL },
	{ "provider", NULL, 0, NULL },
	{ "node_type", "TYPE", 0, NULL },
	{ "node_guid", NULL, COL_WIDE, NULL },
	{ "sys_image_guid", NULL, COL_WIDE, NULL },
	{ "role", "FUNCTION", 0, NULL },
	{ "function", NULL, COL_NOTEXT, NULL },
	{ "parent", NULL, COL_NOTEXT, NULL },
	{ "vf", NULL, COL_NOTEXT, NULL },
	{ "sfnum", NULL, COL_NOTEXT, NULL },
	{ "vfs", NULL, COL_NOTEXT, NULL },
	{ "vfs_total", NULL, COL_NOTEXT, NULL },
	{ "eswitch", NULL, COL_NOTEXT, NULL },
	{ "fw_ver", "FIRMWARE", 0, NULL },
	{ "pci", NULL, 0, NULL },
	{ "numa_node", "NUMA", COL_RIGHT, NULL },
	{ "ports", NULL, COL_RIGHT, NULL },
	{ "netdevs", NULL, 0, NULL },
	{ "representors", NULL, COL_NOTEXT, NULL },
	{ 0 }
};

static const struct column reps_cols[] = {
	{ "netdev", "REPRESENTOR", 0, NULL },
	{ "port_name", NULL, 0, NULL },
	{ "represents", NULL, 0, NULL },
	{ "flavour", NULL, COL_NOTEXT, NULL },
	{ "controller", NULL, COL_NOTEXT, NULL },
	{ "pf", NULL, COL_NOTEXT, NULL },
	{ "vf", NULL, COL_NOTEXT, NULL },
	{ "sfnum", NULL, COL_NOTEXT, NULL },
	{ "function_device", "FUNCTION", 0, NULL },
	{ "eswitch", NULL, COL_WIDE, NULL },
	{ "device", NULL, 0, NULL },
	{ "port", NULL, COL_RIGHT, NULL },
	{ "operstate", "OPER", 0, NULL },
	{ 0 }
};

struct view {
	struct rdma_node node;
	struct fn_node fns;
	struct rdma_netns ns;
	const char *only;
};

static void row_int_or_null(struct json_object *row, const char *key, long v)
{
	if (v >= 0)
		row_int(row, key, v);
	else
		row_str(row, key, NULL);
}

/* A representor of a function (not the uplink): listed apart from the device's own netdevs. */
static bool is_fn_rep(const struct view *v, const char *netdev)
{
	const struct rep *r = rep_of_netdev(&v->fns, netdev);

	return r && r->flavour != REP_PHYSICAL;
}

/*
 * The netdev of each port, in port order (null for a port without one);
 * in switchdev mode the ports that are representors of other functions
 * go to "representors" instead, and the representors table says which.
 */
static void row_netdevs(struct json_object *row, const struct view *v, const struct rdma_dev *dev)
{
	unsigned int p;

	if (!dev->ports)
		return;
	row_list(row, "netdevs");
	row_list(row, "representors");
	for (p = 0; p < dev->nports; p++) {
		const char *nd = dev->ports[p].netdev[0] ? dev->ports[p].netdev : NULL;

		if (nd && is_fn_rep(v, nd)) {
			row_list_add(row, "representors", nd);
			nd = NULL;
		}
		row_list_add(row, "netdevs", nd);
	}
}

/* What the device is on its bus: PF (with its VFs), VF or SF, and of which PF. */
static void row_function(struct json_object *row, const struct view *v, const struct rdma_dev *dev)
{
	const struct fn *fn = fn_of_rdma(&v->fns, dev->name);
	char buf[128];

	if (!fn) {
		row_nulls(row, "role", "function", "parent", "vf", "sfnum", "vfs", "vfs_total",
			  "eswitch", NULL);
		return;
	}
	row_str(row, "role", fn_describe(&v->fns, fn, buf, sizeof(buf)));
	row_str(row, "function", fn_kind_str(fn->kind));
	row_str(row, "parent", fn->parent[0] ? fn->parent : NULL);
	row_int_or_null(row, "vf", fn->kind == FN_VF ? fn->num : -1);
	row_int_or_null(row, "sfnum", fn->kind == FN_SF ? fn->num : -1);
	row_int_or_null(row, "vfs", fn->kind == FN_PF && fn->vfs_total > 0 ? fn->vfs : -1);
	row_int_or_null(row, "vfs_total", fn->kind == FN_PF && fn->vfs_total > 0 ? fn->vfs_total : -1);
	row_str(row, "eswitch", fn->kind == FN_PF ? devlink_eswitch_str(fn->eswitch) : NULL);
}

static void device_row(struct table *t, const struct view *v, const struct rdma_dev *dev)
{
	struct json_object *row = table_row(t);
	char buf[32];

	row_str(row, "name", dev->name);
	row_str(row, "provider", dev->driver[0] ? dev->driver : NULL);
	row_str(row, "node_type", node_type_str(dev->node_type));
	row_str(row, "node_guid", guid_str(dev->node_guid, buf, sizeof(buf)));
	row_str(row, "sys_image_guid", guid_str(dev->sys_image_guid, buf, sizeof(buf)));
	row_function(row, v, dev);
	row_str(row, "fw_ver", dev->fw_ver[0] ? dev->fw_ver : NULL);
	row_str(row, "pci", dev->pci[0] ? dev->pci : NULL);
	row_int_or_null(row, "numa_node", dev->numa_node);
	row_int(row, "ports", dev->nports);
	row_netdevs(row, v, dev);
}

static void rep_row(struct table *t, const struct rep *r)
{
	struct json_object *row = table_row(t);
	char buf[64];
	static const char *const flavours[] = { "physical", "pcipf", "pcivf", "pcisf" };

	row_str(row, "netdev", r->netdev);
	row_str(row, "port_name", r->port_name);
	row_str(row, "represents", rep_describe(r, buf, sizeof(buf)));
	row_str(row, "flavour", flavours[r->flavour]);
	row_int_or_null(row, "controller", r->flavour == REP_PHYSICAL ? -1 : r->controller);
	row_int_or_null(row, "pf", r->pf);
	row_int_or_null(row, "vf", r->vf);
	row_int_or_null(row, "sfnum", r->sf);
	row_str(row, "function_device", r->function[0] ? r->function : NULL);
	row_str(row, "eswitch", r->pci[0] ? r->pci : NULL);
	row_str(row, "device", r->rdma[0] ? r->rdma : NULL);
	if (r->rdma[0])
		row_int(row, "port", r->rdma_port);
	else
		row_str(row, "port", NULL);
	row_str(row, "operstate", r->operstate[0] ? r->operstate : NULL);
}

/* Whether @r belongs to what is shown: every device, or DEV's eswitch. */
static bool rep_shown(const struct view *v, const struct rep *r)
{
	const struct rdma_dev *dev = v->only ? rdma_dev_find(&v->node, v->only) : NULL;

	return !v->only || (dev && !strcmp(dev->pci, r->pci)) || !strcmp(r->rdma, v->only);
}

static int emit_reps(struct ctx *ctx, const struct view *v)
{
	struct table *t;
	size_t i;

	if (!v->fns.nreps)
		return 0;
	t = table_new(reps_cols);
	if (!t)
		return -1;
	for (i = 0; i < v->fns.nreps; i++)
		if (rep_shown(v, &v->fns.reps[i]))
			rep_row(t, &v->fns.reps[i]);
	if (table_rows(t) && !ctx->json)
		putchar('\n');
	return table_emit(ctx, t, "representors");
}

/* "0000:03:00.0, 0000:03:00.1" as a JSON array. */
static struct json_object *pci_list(const char *text)
{
	struct json_object *arr = json_object_new_array();
	char buf[sizeof(((struct dpu *)0)->pci)], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
		json_object_array_add(arr, json_object_new_string(tok));
	return arr;
}

/* BlueField: which side of the DPU this is. */
static void emit_dpu(struct ctx *ctx, const struct dpu *d)
{
	struct json_object *o;
	char id[16];

	if (!d->model)
		return;
	snprintf(id, sizeof(id), "15b3:%04x", d->device);
	if (ctx->json) {
		o = json_object_new_object();
		json_object_object_add(o, "model", json_object_new_string(d->model));
		json_object_object_add(o, "pci_id", json_object_new_string(id));
		json_object_object_add(o, "pci", pci_list(d->pci));
		json_object_object_add(o, "side", json_object_new_string(d->arm ? "arm" : "host"));
		json_attach(ctx, "dpu", o);
		return;
	}
	print_text(ctx, "\n%s DPU (%s) at %s: the %s side.\n", d->model, id, d->pci,
		   d->arm ? "Arm" : "host");
	if (d->arm)
		print_text(ctx, "It manages the eswitch: the host's PFs and VFs are reached through "
			   "their representors.\n");
	else
		print_text(ctx, "Its eswitch is managed by the DPU's Arm side: representors, SFs "
			   "and VF policy are set up there.\n");
}

static void emit_netns(struct ctx *ctx, const struct rdma_netns *ns)
{
	struct json_object *arr;
	char list[512];
	size_t i;

	if (ctx->json) {
		json_attach(ctx, "netns_mode", ns->mode == NETNS_UNKNOWN ? NULL :
			    json_object_new_string(rdma_netns_mode_str(ns->mode)));
		arr = json_object_new_array();
		for (i = 0; i < ns->n_hidden; i++)
			json_object_array_add(arr, json_object_new_string(ns->hidden[i]));
		json_attach(ctx, "other_netns_devices", arr);
		return;
	}
	if (ns->mode == NETNS_SHARED)
		print_text(ctx, "\nRDMA netns mode: shared (every network namespace sees every device)\n");
	else if (ns->mode == NETNS_EXCLUSIVE)
		print_text(ctx, "\nRDMA netns mode: exclusive (each device belongs to one network "
			   "namespace)\n%s%s%s", ns->n_hidden ? "In other network namespaces: " : "",
			   rdma_netns_hidden_list(ns, list, sizeof(list)), ns->n_hidden ? "\n" : "");
}

/*
 * No device here: exclusive mode may be why.  The table is emitted all the
 * same, empty, so that a JSON reader finds "devices": [] as on any node.
 */
static void no_devices(struct ctx *ctx, const struct rdma_netns *ns)
{
	struct table *t = table_new(devices_cols);
	char why[512], fix[256];

	if (t)
		table_emit(ctx, t, "devices");

	if (rdma_netns_explain(ns, why, sizeof(why), fix, sizeof(fix)))
		log_err(ctx, "No RDMA device in this network namespace: %s. Fix: %s", why, fix);
	else
		log_err(ctx, "%s", rdma_no_devices_msg);
	emit_netns(ctx, ns);
}

static int emit(struct ctx *ctx, const struct view *v)
{
	struct table *t = table_new(devices_cols);
	size_t i;

	if (!t)
		return RC_PROBLEM;
	for (i = 0; i < v->node.n; i++)
		if (!v->only || !strcmp(v->only, v->node.devs[i].name))
			device_row(t, v, &v->node.devs[i]);
	table_emit(ctx, t, "devices");
	if (emit_reps(ctx, v))
		return RC_PROBLEM;
	emit_dpu(ctx, &v->fns.dpu);
	emit_netns(ctx, &v->ns);
	return RC_OK;
}

static int show(struct ctx *ctx, struct view *v)
{
	char names[256];
	int ret;

	rdma_netns_load(ctx, &v->node, &v->ns);
	if (!v->node.n) {
		no_devices(ctx, &v->ns);
		return RC_PROBLEM;
	}
	if (v->only && !rdma_dev_find(&v->node, v->only)) {
		log_err(ctx, "Unknown device '%s'. Devices: %s", v->only,
			rdma_dev_names(&v->node, names, sizeof(names)));
		return RC_USAGE;
	}
	ret = fn_load(ctx, &v->node, &v->fns);
	if (ret) {
		log_err(ctx, "Failed to read the PCI functions of the RDMA devices: %s", strerror(-ret));
		return RC_PROBLEM;
	}
	ret = emit(ctx, v);
	fn_free(&v->fns);
	return ret;
}

int cmd_devices(struct ctx *ctx, int argc, char **argv)
{
	struct optparser p;
	struct view v;
	int c, ret;

	memset(&v, 0, sizeof(v));
	if (opt_init(&p, ctx, command_find("devices"), argc, argv))
		return RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END)
		return c == OPT_HELP ? RC_OK : RC_USAGE;
	if (opt_check_args(&p))
		return RC_USAGE;
	if (p.optind < argc)
		v.only = argv[p.optind];

	/* Ports too: the netdev behind each is part of the answer. */
	ret = rdma_node_load(ctx, &v.node, RDMA_LOAD_PORTS);
	if (ret) {
		log_err_errno(ctx, ret, "Failed to read RDMA devices: %s", strerror(-ret));
		return RC_PROBLEM;
	}
	ret = show(ctx, &v);
	rdma_node_free(&v.node);
	return ret;
}
