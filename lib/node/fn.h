/* SPDX-License-Identifier: MIT */
/*
 * Functions and representors: what each RDMA device is on its bus, and
 * what an SR-IOV host or a DPU's eswitch exposes besides.
 *
 * From sysfs (so --root reads a copy the same way), below the root:
 *   /sys/class/infiniband/DEV/device -> ../../../0000:3b:00.2  a PCI function
 *     .../0000:3b:00.2/physfn -> ../0000:3b:00.0              a VF, and its PF
 *     .../0000:3b:00.0/virtfn3 -> ../0000:3b:00.5             the PF's VF 3
 *     .../0000:3b:00.0/sriov_numvfs, sriov_totalvfs           "4", "8"
 *   /sys/bus/auxiliary/devices/mlx5_core.sf.4/sfnum            "4": an SF, whose
 *     directory sits in its parent PF's (.../0000:03:00.0/mlx5_core.sf.4)
 *   /sys/class/net/IF/phys_port_name                         a representor's name
 *     as devlink forms it: "p0" (uplink), "pf0vf1", "pf0sf4", "c1pf0" (the
 *     PF of controller 1: a DPU's host), "c1pf0vf0"
 * and, live, devlink (node/devlink.h) for the eswitch mode, and for SFs
 * that were added but not activated.
 */
#ifndef RDMACTL_FN_H
#define RDMACTL_FN_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

#include "node/devlink.h"

struct ctx;
struct rdma_node;

enum fn_kind {
	FN_NONE,	/* software device (rxe, siw) or unknown */
	FN_PF,
	FN_VF,
	FN_SF,
};

struct fn {
	enum fn_kind kind;
	/* PCI address; an SF's auxiliary device ("mlx5_core.sf.4"); an SF
	 * not activated: its devlink port ("pci/0000:03:00.0/32769"). */
	char addr[64];
	char parent[32];	/* VF, SF: the PF's PCI address */
	int num;		/* VF index (virtfnN) or SF number; -1 */
	char driver[32];	/* the driver bound to it; "" none */
	char rdma[64];		/* its RDMA device in this namespace; "" */
	char netdev[IF_NAMESIZE];	/* its netdev (a PF's uplink, not a representor); "" */
	int vfs, vfs_total;	/* PF: sriov_numvfs, sriov_totalvfs; -1 without SR-IOV */
	enum dl_eswitch eswitch;	/* PF: from devlink, else from its representors */
	unsigned int vendor, device;	/* PCI IDs; 0 unknown */
	int sf_state;		/* SF: devlink's function state, 1 active, 0 inactive; -1 */
	char path[256];		/* where its sysfs directory is reached (through links) */
};

enum rep_flavour {
	REP_PHYSICAL,	/* "p0": the uplink */
	REP_PF,		/* "pf0", "c1pf0" */
	REP_VF,		/* "pf0vf1", "c1pf0vf0" */
	REP_SF,		/* "pf0sf4", "c1pf0sf4" */
};

struct rep {
	char netdev[IF_NAMESIZE];
	char port_name[32];	/* phys_port_name */
	enum rep_flavour flavour;
	int controller;		/* 0: this side's functions; >= 1: an external host's */
	int pf, vf, sf, port;	/* -1 where not of that kind */
	char pci[32];		/* the eswitch manager: the PCI function of the netdev */
	char rdma[64];		/* the RDMA device whose port it is; "" */
	unsigned int rdma_port;
	char operstate[16];
	char function[64];	/* the represented function's RDMA device, when local */
};

struct dpu {
	const char *model;	/* "BlueField-2"; NULL: no DPU */
	unsigned int device;	/* PCI device ID (vendor 15b3) */
	char pci[96];		/* "0000:03:00.0, 0000:03:00.1" */
	bool arm;		/* the DPU's Arm side: it manages an external host's functions */
};

struct fn_node {
	struct fn *fns;		/* sorted by address */
	size_t n;
	struct rep *reps;	/* representors, by eswitch, controller and function */
	size_t nreps;
	struct dpu dpu;
};

/* Load the functions of @node's devices, their VFs and SFs, representors and DPU; 0 or -ENOMEM. */
int fn_load(const struct ctx *ctx, const struct rdma_node *node, struct fn_node *out);
void fn_free(struct fn_node *f);

const struct fn *fn_find(const struct fn_node *f, const char *addr);
const struct fn *fn_of_rdma(const struct fn_node *f, const char *rdma);
const struct rep *rep_of_netdev(const struct fn_node *f, const char *netdev);

/*
 * Parse a phys_port_name as devlink forms it ("p0", "p0s1", "pf0",
 * "pf0vf1", "pf0sf4", each maybe after "cN") into @r's flavour, controller
 * and numbers; false for anything else (a VF's own netdev has none).
 */
bool rep_parse_name(const char *name, struct rep *r);
/* What @r stands for: "uplink port 0", "host PF 0", "host VF 0 of PF 0", "SF 4 of PF 0". */
char *rep_describe(const struct rep *r, char *buf, size_t len);

const char *fn_kind_str(enum fn_kind k);	/* "pf", "vf", "sf"; NULL */
/*
 * What @fn is, for a table or a message: "PF 4/8 VFs", "PF", "PF,
 * switchdev", "VF 0 of mlx5_0" (the PF's RDMA device, else its PCI
 * address), "SF 4 of mlx5_0".
 */
char *fn_describe(const struct fn_node *f, const struct fn *fn, char *buf, size_t len);

#endif
