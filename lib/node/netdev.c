// SPDX-License-Identifier: MIT
/*
 * Network interfaces through libnl-route-3: the link (MTU, flags,
 * operstate), its addresses from the address cache, and the kernel's own
 * route lookup (RTM_GETROUTE) for a peer.
 *
 * With --root the facts come from the recorded /sys/class/net/IF/{mtu,
 * operstate,flags,ifindex}; sysfs has no addresses, so none are listed,
 * and there is no routing table to ask (-EOPNOTSUPP).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/nexthop.h>
#include <netlink/route/route.h>

#include "base/ctx.h"
#include "base/root.h"
#include "base/sysfs.h"
#include "node/envparse.h"
#include "node/netdev.h"

/* libnl's error codes are not errno values. */
static int nlerr(int err)
{
	switch (-err) {
	case NLE_OBJ_NOTFOUND:
	case NLE_NODEV:
		return -ENODEV;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	default:
		return -EIO;
	}
}

static int route_socket(struct nl_sock **out)
{
	struct nl_sock *sk = nl_socket_alloc();
	int err;

	if (!sk)
		return -ENOMEM;
	err = nl_connect(sk, NETLINK_ROUTE);
	if (err < 0) {
		nl_socket_free(sk);
		return nlerr(err);
	}
	*out = sk;
	return 0;
}

static bool is_link_local(int family, const void *bin)
{
	const uint8_t *b = bin;

	if (family == AF_INET6)
		return b[0] == 0xfe && (b[1] & 0xc0) == 0x80;
	return b[0] == 169 && b[1] == 254;
}

static int add_addr(struct netdev_info *info, struct rtnl_addr *a)
{
	struct nl_addr *local = rtnl_addr_get_local(a);
	int family = rtnl_addr_get_family(a);
	struct netdev_addr *na;

	if (!local || (family != AF_INET && family != AF_INET6))
		return 0;
	na = realloc(info->addrs, (info->n_addrs + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	info->addrs = na;
	na = &na[info->n_addrs];
	memset(na, 0, sizeof(*na));
	na->family = family;
	na->prefixlen = rtnl_addr_get_prefixlen(a);
	na->link_local = is_link_local(family, nl_addr_get_binary_addr(local));
	if (!inet_ntop(family, nl_addr_get_binary_addr(local), na->addr, sizeof(na->addr)))
		return 0;
	info->n_addrs++;
	return 0;
}

/* Every address of the interface, IPv4 then IPv6, in the kernel's order. */
static int load_addrs(struct nl_sock *sk, struct netdev_info *info)
{
	struct nl_cache *cache;
	struct nl_object *obj;
	int err, ret = 0;

	err = rtnl_addr_alloc_cache(sk, &cache);
	if (err < 0)
		return nlerr(err);
	for (obj = nl_cache_get_first(cache); obj && !ret; obj = nl_cache_get_next(obj)) {
		struct rtnl_addr *a = (struct rtnl_addr *)obj;

		if (rtnl_addr_get_ifindex(a) == info->ifindex)
			ret = add_addr(info, a);
	}
	nl_cache_free(cache);
	return ret;
}

static int live_get(const char *name, struct netdev_info *out)
{
	struct rtnl_link *link;
	struct nl_sock *sk;
	int err, ret;

	ret = route_socket(&sk);
	if (ret)
		return ret;
	err = rtnl_link_get_kernel(sk, 0, name, &link);
	if (err < 0) {
		ret = nlerr(err);
		goto err_sock;
	}
	out->ifindex = rtnl_link_get_ifindex(link);
	out->mtu = (int)rtnl_link_get_mtu(link);
	out->up = rtnl_link_get_flags(link) & IFF_UP;
	rtnl_link_operstate2str(rtnl_link_get_operstate(link), out->operstate,
				sizeof(out->operstate));
	rtnl_link_put(link);
	ret = load_addrs(sk, out);
err_sock:
	nl_socket_free(sk);
	return ret;
}

/* /sys/class/net/IF/flags holds "0x1003"; operstate "up", "down", ... */
static int root_get(const struct ctx *ctx, const char *name, struct netdev_info *out)
{
	char path[512], buf[64];

	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", name);
	if (read_line(ctx, path, buf, sizeof(buf)) <= 0)
		return -ENODEV;
	out->mtu = atoi(buf);
	snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", name);
	if (read_line(ctx, path, buf, sizeof(buf)) > 0)
		out->ifindex = atoi(buf);
	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", name);
	if (read_line(ctx, path, buf, sizeof(buf)) > 0)
		out->up = strtoul(buf, NULL, 16) & IFF_UP;
	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", name);
	if (read_line(ctx, path, buf, sizeof(buf)) <= 0)
		snprintf(buf, sizeof(buf), "unknown");
	snprintf(out->operstate, sizeof(out->operstate), "%.15s", buf);
	return 0;
}

int netdev_get(const struct ctx *ctx, const char *name, struct netdev_info *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	/* A name the kernel could not have given (and no path tricks below the root). */
	if (!name[0] || strlen(name) >= sizeof(out->name) || strchr(name, '/') ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return -ENODEV;
	memcpy(out->name, name, strlen(name) + 1);
	ret = ctx->root[0] ? root_get(ctx, name, out) : live_get(name, out);
	if (ret)
		netdev_info_free(out);
	return ret;
}

void netdev_info_free(struct netdev_info *info)
{
	free(info->addrs);
	info->addrs = NULL;
	info->n_addrs = 0;
}

bool netdev_has_global_addr(const struct netdev_info *info, int family)
{
	size_t i;

	for (i = 0; i < info->n_addrs; i++)
		if (info->addrs[i].family == family && !info->addrs[i].link_local)
			return true;
	return false;
}

/* The first next hop's interface and the preferred source of a looked-up route. */
static int route_result(struct rtnl_route *route, char *ifname, size_t iflen, char *src,
			size_t srclen)
{
	struct rtnl_nexthop *nh = rtnl_route_nexthop_n(route, 0);
	struct nl_addr *pref = rtnl_route_get_pref_src(route);
	char name[IF_NAMESIZE];

	if (!nh || !if_indextoname((unsigned int)rtnl_route_nh_get_ifindex(nh), name))
		return -ENETUNREACH;
	snprintf(ifname, iflen, "%s", name);
	src[0] = '\0';
	if (pref)
		inet_ntop(nl_addr_get_family(pref), nl_addr_get_binary_addr(pref), src,
			  (socklen_t)srclen);
	return 0;
}

int netdev_route_to(const struct ctx *ctx, const char *peer, char *ifname, size_t iflen,
		    char *src, size_t srclen)
{
	struct rtnl_route *route = NULL;
	unsigned char bin[16];
	struct nl_addr *dst;
	struct nl_sock *sk;
	int family, err, ret;

	family = inet_pton(AF_INET, peer, bin) == 1 ? AF_INET
		 : inet_pton(AF_INET6, peer, bin) == 1 ? AF_INET6 : 0;
	if (!family)
		return -EINVAL;
	if (ctx->root[0])
		return -EOPNOTSUPP;
	dst = nl_addr_build(family, bin, family == AF_INET ? 4 : 16);
	if (!dst)
		return -ENOMEM;
	ret = route_socket(&sk);
	if (ret)
		goto err_addr;
	err = rtnl_route_lookup(sk, dst, &route);
	if (err < 0) {
		ret = err == -NLE_NOMEM ? -ENOMEM : -ENETUNREACH;
		goto err_sock;
	}
	ret = route_result(route, ifname, iflen, src, srclen);
	rtnl_route_put(route);
err_sock:
	nl_socket_free(sk);
err_addr:
	nl_addr_put(dst);
	return ret;
}

/* ---- from sysfs, which --root trees record ---- */

int netdev_sysfs_mtu(const struct ctx *ctx, const char *ifname, int *mtu)
{
	char path[128], buf[32];
	long v;
	int ret;

	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", ifname);
	ret = read_line(ctx, path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	if (env_parse_long(buf, 0, 1 << 20, &v))
		return -EINVAL;
	*mtu = (int)v;
	return 0;
}

int netdev_sysfs_state(const struct ctx *ctx, const char *ifname, char *buf, size_t len)
{
	char path[128];
	int ret;

	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", ifname);
	ret = read_line(ctx, path, buf, len);
	return ret < 0 ? ret : 0;
}

bool netdev_class_entry(const struct ctx *ctx, const char *name)
{
	char path[64 + 256];
	struct stat st;

	if (name[0] == '.' || strchr(name, '/'))
		return false;
	snprintf(path, sizeof(path), "/sys/class/net/%s", name);
	return !root_stat(ctx, path, false, &st) && S_ISDIR(st.st_mode);
}

/* ---- stacked netdevs: VLANs, bonds, macvlans over a port's netdev ---- */

/* Below this many links down, a chain of uppers is believed (VLAN on bond on port is 2). */
#define NETDEV_STACK_MAX 4

/*
 * Whether @hit holds for @ifname or a netdev below it, down the kernel's
 * netdev_adjacent links (/sys/class/net/IF/lower_LOWER), at most
 * NETDEV_STACK_MAX deep.
 */
static bool down_lowers(const struct ctx *ctx, const char *ifname, int depth,
			bool (*hit)(const struct ctx *ctx, const char *ifname, const void *arg),
			const void *arg)
{
	char path[64 + 2 * IF_NAMESIZE];
	struct dirent *de;
	bool found = false;
	DIR *dir;

	if (depth >= NETDEV_STACK_MAX || strchr(ifname, '/'))
		return false;
	if (hit(ctx, ifname, arg))
		return true;
	snprintf(path, sizeof(path), "/sys/class/net/%s", ifname);
	dir = root_opendir(ctx, path);
	if (!dir)
		return false;
	while (!found && (de = readdir(dir)))
		if (!strncmp(de->d_name, "lower_", 6) && de->d_name[6])
			found = down_lowers(ctx, de->d_name + 6, depth + 1, hit, arg);
	closedir(dir);
	return found;
}

/* Whether @upper has the link lower_@lower (@lower a netdev name). */
static bool has_lower(const struct ctx *ctx, const char *upper, const void *lower)
{
	char path[64 + 2 * IF_NAMESIZE];

	snprintf(path, sizeof(path), "/sys/class/net/%s/lower_%s", upper, (const char *)lower);
	return root_exists(ctx, path);
}

bool netdev_stacked_on(const struct ctx *ctx, const char *upper, const char *lower)
{
	return upper[0] && lower[0] && strcmp(upper, lower) && !strchr(lower, '/') &&
	       down_lowers(ctx, upper, 0, has_lower, lower);
}

/* DEVTYPE= of /sys/class/net/IF/uevent ("vlan", "bond", "macvlan"); "" when it has none. */
static void netdev_devtype(const struct ctx *ctx, const char *ifname, char *buf, size_t len)
{
	char path[64 + IF_NAMESIZE], *text = NULL, *line, *save = NULL;
	size_t n;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/net/%s/uevent", ifname);
	if (read_file(ctx, path, 4096, &text, &n))
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "DEVTYPE=", 8))
			snprintf(buf, len, "%s", line + 8);
	free(text);
}

/*
 * A VLAN's ID from /proc/net/vlan/config, whose lines after two of
 * headers are "ens19f0np0.100  | 100  | ens19f0np0"; -1 when not there.
 */
static int vlan_id(const struct ctx *ctx, const char *ifname)
{
	char *text = NULL, *line, *save = NULL, name[IF_NAMESIZE + 1];
	int vid, id = -1;
	size_t n;

	if (read_file(ctx, "/proc/net/vlan/config", 1 << 16, &text, &n))
		return -1;
	for (line = strtok_r(text, "\n", &save); line && id < 0; line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%16s | %d", name, &vid) == 2 && !strcmp(name, ifname))
			id = vid;
	free(text);
	return id;
}

char *netdev_stack_say(const struct ctx *ctx, const char *upper, const char *lower, char *buf,
		       size_t len)
{
	char type[16];
	int vid;

	netdev_devtype(ctx, upper, type, sizeof(type));
	if (!strcmp(type, "vlan") && (vid = vlan_id(ctx, upper)) >= 0)
		snprintf(buf, len, "VLAN %d on %s", vid, lower);
	else if (!strcmp(type, "vlan"))
		snprintf(buf, len, "a VLAN on %s", lower);
	else if (!strcmp(type, "bond"))
		snprintf(buf, len, "a bond of %s", lower);
	else if (type[0])
		snprintf(buf, len, "a %s on %s", type, lower);
	else
		snprintf(buf, len, "stacked on %s", lower);
	return buf;
}

struct name_buf {
	char *buf;
	size_t len;
};

/* Whether @ifname is a VLAN; its name into @arg's buffer when it is. */
static bool is_vlan(const struct ctx *ctx, const char *ifname, const void *arg)
{
	const struct name_buf *nb = arg;
	char type[16];

	netdev_devtype(ctx, ifname, type, sizeof(type));
	if (strcmp(type, "vlan"))
		return false;
	snprintf(nb->buf, nb->len, "%s", ifname);
	return true;
}

bool netdev_tagging_vlan(const struct ctx *ctx, const char *ifname, char *buf, size_t len)
{
	const struct name_buf nb = { buf, len };

	return ifname[0] && down_lowers(ctx, ifname, 0, is_vlan, &nb);
}

/* ---- bonds: /sys/class/net/BOND/bonding ---- */

/* The first word of /sys/class/net/@ifname/@attr ("802.3ad 4" -> "802.3ad"); "" when none. */
static int first_word(const struct ctx *ctx, const char *ifname, const char *attr, char *buf,
		      size_t len)
{
	char path[64 + 2 * IF_NAMESIZE];
	int ret;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	ret = read_line(ctx, path, buf, len);
	if (ret < 0)
		return ret;
	buf[strcspn(buf, " \t")] = '\0';
	return 0;
}

/* A slave's link as the bond sees it (miimon's verdict), else its operstate. */
static bool slave_up(const struct ctx *ctx, const char *slave)
{
	char state[32];

	if (!first_word(ctx, slave, "bonding_slave/mii_status", state, sizeof(state)))
		return !strcmp(state, "up");
	return !netdev_sysfs_state(ctx, slave, state, sizeof(state)) && !strcmp(state, "up");
}

/* bonding/slaves: "eth0 eth1", space-separated. */
static void bond_slaves(const struct ctx *ctx, const char *ifname, struct netdev_bond *b)
{
	char path[64 + IF_NAMESIZE], list[NETDEV_BOND_SLAVES * (IF_NAMESIZE + 1)], *w, *save = NULL;

	snprintf(path, sizeof(path), "/sys/class/net/%s/bonding/slaves", ifname);
	if (read_line(ctx, path, list, sizeof(list)) < 0)
		return;
	for (w = strtok_r(list, " \t", &save); w && b->n < NETDEV_BOND_SLAVES;
	     w = strtok_r(NULL, " \t", &save)) {
		if (strlen(w) >= IF_NAMESIZE || strchr(w, '/'))
			continue;
		snprintf(b->slaves[b->n].name, IF_NAMESIZE, "%s", w);
		b->slaves[b->n].up = slave_up(ctx, w);
		b->n_up += b->slaves[b->n].up;
		b->n++;
	}
}

int netdev_bond_get(const struct ctx *ctx, const char *ifname, struct netdev_bond *b)
{
	int ret;

	memset(b, 0, sizeof(*b));
	if (!ifname[0] || strchr(ifname, '/'))
		return -ENOENT;
	ret = first_word(ctx, ifname, "bonding/mode", b->mode, sizeof(b->mode));
	if (ret)
		return ret;
	if (!b->mode[0])
		return -ENOENT;
	first_word(ctx, ifname, "bonding/xmit_hash_policy", b->hash_policy, sizeof(b->hash_policy));
	first_word(ctx, ifname, "bonding/active_slave", b->active, sizeof(b->active));
	bond_slaves(ctx, ifname, b);
	return 0;
}

bool netdev_bond_hashes(const struct netdev_bond *b)
{
	return !strcmp(b->mode, "balance-xor") || !strcmp(b->mode, "802.3ad");
}

bool netdev_bond_spreads_udp(const struct netdev_bond *b)
{
	return !strcmp(b->hash_policy, "layer3+4") || !strcmp(b->hash_policy, "encap3+4");
}

char *netdev_bond_say(const char *ifname, const struct netdev_bond *b, char *buf, size_t len)
{
	size_t i, at;

	at = (size_t)snprintf(buf, len, "%s %s", ifname, b->mode);
	if (netdev_bond_hashes(b) && b->hash_policy[0] && at < len)
		at += (size_t)snprintf(buf + at, len - at, ", xmit_hash_policy %s", b->hash_policy);
	if (b->active[0] && at < len)
		at += (size_t)snprintf(buf + at, len - at, ", active %s", b->active);
	for (i = 0; i < b->n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s %s %s", i ? "," : ", slaves",
				       b->slaves[i].name, b->slaves[i].up ? "up" : "down");
	if (!b->n && at < len)
		snprintf(buf + at, len - at, ", no slaves");
	return buf;
}
