/* SPDX-License-Identifier: MIT */
/*
 * The node's RDMA model: devices, their ports and GID tables, as every
 * command sees them.  Loaded from the live kernel (verbs, RDMA netlink) or,
 * with --root, from a captured sysfs tree (node/rdma_load.h); GID tables
 * are loaded and chosen in node/gids.h.
 */
#ifndef RDMACTL_RDMA_H
#define RDMACTL_RDMA_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctx;

enum link_layer {
	LINK_LAYER_UNKNOWN,
	LINK_LAYER_INFINIBAND,
	LINK_LAYER_ETHERNET,	/* RoCE */
};

enum gid_type {
	GID_TYPE_UNKNOWN,	/* the kernel would not say (EINVAL in containers) */
	GID_TYPE_IB,
	GID_TYPE_ROCE_V1,
	GID_TYPE_ROCE_V2,
};

struct rdma_gid {
	unsigned int index;
	uint8_t raw[16];
	enum gid_type type;
	char netdev[IF_NAMESIZE];	/* "" when none or unknown */
	bool stacked;			/* netdev is stacked on the port's (a VLAN): netdev_stacked_on() */
};

struct rdma_port {
	unsigned int num;
	int state;		/* enum ibv_port_state: 4 = ACTIVE */
	int phys_state;		/* 5 = LinkUp */
	enum link_layer link_layer;
	int active_mtu;		/* bytes: 256 .. 4096; 0 unknown */
	int max_mtu;
	double rate_gbps;	/* speed x width; 0 unknown */
	char rate[32];		/* "100 Gb/sec (4X EDR)", as sysfs writes it */
	bool mtu_derived;	/* active/max MTU derived from the netdev MTU (--root) */
	uint16_t lid, sm_lid;
	uint64_t subnet_prefix;	/* host order */
	char netdev[IF_NAMESIZE];	/* "" when none (InfiniBand) or unknown */
	int gid_tbl_len;
	struct rdma_gid *gids;	/* the non-empty entries */
	size_t n_gids;
	/*
	 * The lowest index whose entry, RoCE type or netdev could not be
	 * read (permission, a bad value), plus one; 0 when every file read.
	 * A choice past it may be wrong: gid_choose() says so.
	 */
	unsigned int gid_unread;
	char gid_unread_why[96];	/* "gid_attrs/ndevs/5: Permission denied" */
};

struct rdma_dev {
	char name[64];
	char driver[32];	/* provider: mlx5, rxe, ... */
	int node_type;		/* enum ibv_node_type */
	uint64_t node_guid;	/* host order of the big-endian GUID */
	uint64_t sys_image_guid;
	char fw_ver[64];
	char pci[32];		/* "0000:3b:00.0"; "" for virtual devices */
	int numa_node;		/* -1 unknown */
	char protocol[16];	/* "roce", "ib", "iw" (RDMA netlink); "" unknown */
	unsigned int nl_index;	/* RDMA netlink device index; 0 unknown */
	unsigned int nports;	/* set even when ports are not loaded */
	struct rdma_port *ports;	/* nports entries, or NULL without RDMA_LOAD_PORTS */
};

struct rdma_node {
	struct rdma_dev *devs;
	size_t n;
};

enum rdma_load {
	RDMA_LOAD_PORTS = 1 << 0,
	RDMA_LOAD_GIDS = 1 << 1 | RDMA_LOAD_PORTS,
};

/* Loading it: node/rdma_load.h. */
void rdma_node_free(struct rdma_node *node);

struct rdma_dev *rdma_dev_find(const struct rdma_node *node, const char *name);
/*
 * A software device (rxe, siw): its "NIC" is a CPU, its rate is the CPU's
 * and its ACKs come from a kernel thread.
 */
bool rdma_dev_is_soft(const struct rdma_dev *dev);
/* "rxe0, mlx5_0": the device names, for messages naming what exists. */
char *rdma_dev_names(const struct rdma_node *node, char *buf, size_t len);
struct rdma_port *rdma_port_find(const struct rdma_dev *dev, unsigned int num);
/* The port whose netdev is @netdev, its device in *@dev (if @dev); NULL when none. */
const struct rdma_port *rdma_port_by_netdev(const struct rdma_node *node, const char *netdev,
					    const struct rdma_dev **dev);

/*
 * The port whose traffic leaves by the netdev @ifname, for a connection
 * from the address @local (either may be NULL): the port whose own netdev
 * @ifname is; else one with entries of @ifname stacked on its netdev (a
 * VLAN, a macvlan, the bond of mlx5's RoCE LAG over a slave: the kernel
 * gave the port that netdev's addresses); else one with a RoCE v2 GID of
 * @local.  GIDs loaded.  Its device in *@dev (if @dev), how it was found
 * in @how (if @how: "the route leaves by its netdev eth1", "the route
 * leaves by mv0, stacked on its netdev eth1"); NULL when none.
 */
const struct rdma_port *rdma_port_by_route(const struct rdma_node *node, const char *ifname,
					   const char *local, const struct rdma_dev **dev,
					   char *how, size_t len);

/*
 * "DEV" or "DEV/PORT" (also "DEV:PORT", as NCCL and UCX write it).
 * @port is 0 when absent.  0 or -EINVAL.
 */
int rdma_parse_devport(const char *s, char *dev, size_t devlen, unsigned int *port);

/* "5aa2:e1ff:feb0:3772" (as sysfs and ibv_devinfo print GUIDs). */
char *guid_str(uint64_t guid, char *buf, size_t len);
/* Full GID as show_gids prints it: 8 groups of 4 hex digits; @len >= GID_STR_LEN. */
#define GID_STR_LEN 40
char *gid_str(const uint8_t raw[16], char *buf, size_t len);
/* True for ::ffff:a.b.c.d; writes the dotted quad. */
bool gid_ipv4(const uint8_t raw[16], char *buf, size_t len);
bool gid_is_empty(const uint8_t raw[16]);
bool gid_is_link_local(const uint8_t raw[16]);

const char *gid_type_str(enum gid_type t);	/* "v1", "v2", "IB", "unknown" */
const char *link_layer_str(enum link_layer l);	/* "InfiniBand", "Ethernet" */
const char *port_state_str(int state);		/* "ACTIVE", "DOWN", ... */
const char *phys_state_str(int phys);		/* "LinkUp", "Disabled", ... */
const char *node_type_str(int type);		/* "CA", "RNIC", ... */

/* Bytes of an enum ibv_mtu (1 = 256 .. 5 = 4096); 0 for anything else. */
int ib_mtu_bytes(int mtu_enum);
/*
 * The port rate from enum ibv_port_speed and ibv_port_width bits, as the
 * kernel's sysfs "rate" file writes it ("100 Gb/sec (4X EDR)"); Gb/s in
 * *@gbps.  0, or -EINVAL for an unknown width.
 */
int ib_rate_str(unsigned int speed, unsigned int width, char *buf, size_t len, double *gbps);

/*
 * The RDMA MTU (bytes) a RoCE port of @provider gets on a netdev of MTU
 * @netdev_mtu, as the kernel computes it; 0 when none fits.
 */
int roce_mtu_for_netdev(const char *provider, int netdev_mtu);
/* The smallest netdev MTU giving @provider's RoCE ports RDMA MTU @rdma_mtu. */
int roce_netdev_mtu_needed(const char *provider, int rdma_mtu);

/* Provider of a kernel driver ("mlx5_core" -> "mlx5"); NULL if unknown. */
const char *provider_from_driver(const char *kdriver);
/* Provider of an enum rdma_driver_id (RDMA netlink); NULL if unknown. */
const char *provider_from_driver_id(unsigned int id);

#endif
