/* SPDX-License-Identifier: MIT */
/*
 * devlink over generic netlink, as iproute2's `devlink` reads it: the
 * instances (`devlink dev`: pci/0000:03:00.0, auxiliary/mlx5_core.sf.4),
 * their ports (`devlink port`: flavour physical, pcipf, pcivf or pcisf,
 * the netdev, the PF/VF/SF numbers, the controller and whether it is an
 * external host's) and each PCI instance's eswitch mode (`devlink dev
 * eswitch`: legacy or switchdev).  A kernel or container without devlink
 * gives nothing; callers fall back on sysfs (node/fn.h).
 */
#ifndef RDMACTL_DEVLINK_H
#define RDMACTL_DEVLINK_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctx;

enum dl_eswitch {
	DL_ESWITCH_UNKNOWN = -1,
	DL_ESWITCH_LEGACY = 0,		/* DEVLINK_ESWITCH_MODE_LEGACY */
	DL_ESWITCH_SWITCHDEV = 1,	/* DEVLINK_ESWITCH_MODE_SWITCHDEV */
};

struct dl_dev {
	char bus[16];		/* "pci", "auxiliary" */
	char name[64];		/* "0000:03:00.0", "mlx5_core.sf.4" */
	enum dl_eswitch eswitch;
};

struct dl_port {
	char bus[16], dev[64];	/* the instance the port belongs to */
	uint32_t index;
	int flavour;		/* enum devlink_port_flavour; -1 absent */
	char netdev[IF_NAMESIZE];	/* "" when none */
	int number;		/* physical port number; -1 */
	int pf, vf;		/* PCI PF / VF number; -1 */
	long sf;		/* SF number; -1 */
	long controller;	/* 0 local, >= 1 another host's; -1 absent */
	bool external;		/* the function is an external host's (a DPU's host) */
	int fn_state;		/* DEVLINK_PORT_FN_STATE_*: 0 inactive, 1 active; -1 */
	int fn_opstate;		/* 0 detached, 1 attached (driver bound); -1 */
};

struct dl_node {
	struct dl_dev *devs;
	size_t ndevs;
	struct dl_port *ports;
	size_t nports;
};

/*
 * Every instance, port and eswitch mode the kernel reports.  0; -ENOENT
 * when the kernel has no devlink family, -errno when netlink fails.
 * An instance whose eswitch mode cannot be read (no eswitch, or not
 * root: the kernel wants CAP_NET_ADMIN) keeps DL_ESWITCH_UNKNOWN.
 */
int devlink_load(const struct ctx *ctx, struct dl_node *out);
void devlink_free(struct dl_node *dl);

const struct dl_dev *devlink_dev_find(const struct dl_node *dl, const char *bus, const char *name);
const struct dl_port *devlink_port_by_netdev(const struct dl_node *dl, const char *netdev);

/* "physical", "pcipf", "pcivf", "pcisf", ... as devlink(8) prints them; "unknown". */
const char *devlink_flavour_str(int flavour);
const char *devlink_eswitch_str(enum dl_eswitch mode);	/* "legacy", "switchdev"; NULL */

/*
 * The replies the kernel sends, parsed as devlink_load() parses them, for
 * tests and fuzzing: @buf holds netlink messages as recv() returns them.
 * devlink_parse_family(): CTRL_CMD_GETFAMILY's reply, the family id (or
 * -ENOENT).  devlink_parse(): replies of DEVLINK_CMD_GET, _PORT_GET or
 * _ESWITCH_GET (one message's command says which), added to @dl.
 * 0 or -errno (-ENOMEM; an error message's errno).
 */
int devlink_parse_family(const void *buf, size_t len);
int devlink_parse(const void *buf, size_t len, struct dl_node *dl);

#endif
