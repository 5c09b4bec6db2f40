/* SPDX-License-Identifier: MIT */
/*
 * Network interfaces behind RDMA ports, read with libnl-route-3: MTU,
 * state and addresses; and the route the kernel would take to a peer.
 */
#ifndef RDMACTL_NETDEV_H
#define RDMACTL_NETDEV_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

struct ctx;

struct netdev_addr {
	int family;			/* AF_INET or AF_INET6 */
	char addr[INET6_ADDRSTRLEN];	/* "10.99.0.1" */
	int prefixlen;
	bool link_local;		/* fe80::/10 or 169.254/16 */
};

struct netdev_info {
	char name[IF_NAMESIZE];
	int ifindex;
	int mtu;
	bool up;			/* IFF_UP */
	char operstate[16];		/* "up", "down", "lowerlayerdown", ... */
	struct netdev_addr *addrs;
	size_t n_addrs;
};

/* One interface by name; 0, -ENODEV, or -errno. */
int netdev_get(const struct ctx *ctx, const char *name, struct netdev_info *out);
void netdev_info_free(struct netdev_info *info);
/* True when @info has an address of @family that is not link-local. */
bool netdev_has_global_addr(const struct netdev_info *info, int family);

/*
 * The interface and source address the kernel routes @peer (an IPv4 or
 * IPv6 literal) through; 0, -EINVAL for a bad address, -ENETUNREACH.
 */
int netdev_route_to(const struct ctx *ctx, const char *peer, char *ifname, size_t iflen,
		    char *src, size_t srclen);

/*
 * The netdev's MTU and operstate from sysfs (what --root trees record);
 * 0 or -errno.
 */
int netdev_sysfs_mtu(const struct ctx *ctx, const char *ifname, int *mtu);
int netdev_sysfs_state(const struct ctx *ctx, const char *ifname, char *buf, size_t len);

/*
 * Whether the entry @name of /sys/class/net is a netdev: a link to its
 * directory.  Not bonding_masters, the file the bonding module puts there
 * (drivers/net/bonding/bond_sysfs.c), whose "attributes" read ENOTDIR.
 */
bool netdev_class_entry(const struct ctx *ctx, const char *name);
/*
 * Whether the netdev @upper is stacked on @lower (a VLAN, bond, macvlan,
 * or a chain of them): the kernel's /sys/class/net/UPPER/lower_* links
 * followed down; false for the same name.  A port's GID table holds the
 * entries of its netdev and of every netdev stacked on it.
 */
bool netdev_stacked_on(const struct ctx *ctx, const char *upper, const char *lower);
/*
 * How @upper sits on @lower, in words, into @buf: "VLAN 100 on
 * ens19f0np0" (uevent's DEVTYPE, the ID from /proc/net/vlan/config),
 * "a bond of eth0"; "stacked on eth0" for one whose uevent names no
 * DEVTYPE, as a macvlan's does not (drivers/net/macvlan.c sets none); @buf.
 */
char *netdev_stack_say(const struct ctx *ctx, const char *upper, const char *lower, char *buf,
		       size_t len);

/*
 * The VLAN whose tag RoCE frames of a GID on @ifname carry, into @buf:
 * @ifname when it is a VLAN, else the first VLAN its lower_* links lead
 * down to (a macvlan on a VLAN), as rdma_read_gid_l2_fields() of
 * drivers/infiniband/core/cache.c finds the GID's VLAN ID; false when
 * they go untagged (a macvlan or bond on the port's own netdev).
 */
bool netdev_tagging_vlan(const struct ctx *ctx, const char *ifname, char *buf, size_t len);

/* A bond's slaves it is believed to have at most (a LAG of a NIC has 2 to 4). */
#define NETDEV_BOND_SLAVES 16

/*
 * A bond as /sys/class/net/BOND/bonding/ shows it: mode ("802.3ad"),
 * xmit_hash_policy ("layer3+4"), active_slave (active-backup's), slaves,
 * and each slave's link (bonding_slave/mii_status, else its operstate).
 */
struct netdev_bond {
	char mode[32];
	char hash_policy[32];
	char active[IF_NAMESIZE];
	size_t n;			/* slaves */
	size_t n_up;
	struct {
		char name[IF_NAMESIZE];
		bool up;
	} slaves[NETDEV_BOND_SLAVES];
};

/* The bond @ifname; 0, -ENOENT when it is not a bond (no bonding/mode), -errno. */
int netdev_bond_get(const struct ctx *ctx, const char *ifname, struct netdev_bond *b);
/*
 * Whether the bond picks a slave per flow by xmit_hash_policy (balance-xor,
 * 802.3ad: drivers/net/bonding/bond_main.c's bond_xmit_hash()), and whether
 * that policy hashes UDP ports: only layer3+4 (and encap3+4) spread RoCE
 * v2's flows, whose UDP source port differs per QP; layer2 and layer2+3
 * send every flow to one peer on one slave.
 */
bool netdev_bond_hashes(const struct netdev_bond *b);
bool netdev_bond_spreads_udp(const struct netdev_bond *b);
/*
 * The bond in words, into @buf: "bond0 802.3ad, xmit_hash_policy
 * layer3+4, slaves ens19f0np0 up, ens19f1np1 down"; @buf.
 */
char *netdev_bond_say(const char *ifname, const struct netdev_bond *b, char *buf, size_t len);

#endif
