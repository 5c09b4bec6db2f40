/* SPDX-License-Identifier: MIT */
/*
 * The node's IPv4 routing policy as the kernel applies it to a packet
 * from a local address: its rules (RTM_GETRULE) and the routes of every
 * table (RTM_GETROUTE), dumped over rtnetlink, and the per-netdev
 * sysctls that decide which port answers ARP and accepts a reply
 * (rp_filter, arp_ignore, arp_announce).
 *
 * With --root the rules and routes come from the recorded
 * run/rdmactl/net/ipv4-rules and ipv4-routes, lines as `ip -4 rule show`
 * and `ip -4 route show table all` print them (the snapshot writes them
 * so from the live dump), and the sysctls from the recorded /proc/sys.
 */
#ifndef RDMACTL_ROUTE_H
#define RDMACTL_ROUTE_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctx;

#define ROUTE_RECORDED_RULES "/run/rdmactl/net/ipv4-rules"
#define ROUTE_RECORDED_ROUTES "/run/rdmactl/net/ipv4-routes"

/* What a rule does with a packet it matches (linux/fib_rules.h FR_ACT_*). */
enum rule_action {
	RULE_LOOKUP,		/* lookup TABLE */
	RULE_GOTO,		/* goto PREF */
	RULE_NOP,
	RULE_BLACKHOLE,
	RULE_UNREACHABLE,
	RULE_PROHIBIT,
	RULE_OTHER,		/* an action this model does not take */
};

/* A rule, host byte order; a selector this model cannot match makes @unmodelled true. */
struct route_rule {
	uint32_t pref;
	bool invert;		/* "not" */
	uint32_t src, dst;
	int src_len, dst_len;
	char iif[IF_NAMESIZE], oif[IF_NAMESIZE];
	uint32_t fwmark, fwmask;
	enum rule_action action;
	uint32_t table;		/* RULE_LOOKUP */
	char table_name[32];	/* a recording's name of it (rt_tables), else "" */
	uint32_t goto_pref;	/* RULE_GOTO */
	int suppress_len;	/* suppress_prefixlength, -1 when none */
	bool unmodelled;	/* ipproto, sport, dport, uidrange, tos, l3mdev */
};

/* A route's type (linux/rtnetlink.h RTN_*): those a lookup can end on. */
enum route_type {
	ROUTE_UNICAST,
	ROUTE_LOCAL,
	ROUTE_BROADCAST,
	ROUTE_UNREACHABLE,
	ROUTE_BLACKHOLE,
	ROUTE_PROHIBIT,
	ROUTE_THROW,
	ROUTE_OTHER,		/* multicast, anycast, nat: never the answer to a unicast lookup */
};

struct route_entry {
	enum route_type type;
	uint32_t dst;
	int dst_len;
	uint32_t table;
	char table_name[32];	/* a recording's name of it (rt_tables), else "" */
	char dev[IF_NAMESIZE];	/* the first next hop's; "" for none */
	uint32_t gw, prefsrc;	/* 0 when none */
	uint32_t metric;
	uint8_t scope;		/* RT_SCOPE_*: 0 universe, 253 link, 254 host */
	bool kernel;		/* proto kernel: the connected route of an address */
};

struct route_policy {
	struct route_rule *rules;	/* in the kernel's order: by pref */
	size_t n_rules;
	struct route_entry *routes;	/* in the dump's order, the lookup's among equals */
	size_t n_routes;
};

/*
 * The node's IPv4 rules and routes: live over rtnetlink, with --root from
 * the recordings; 0, -ENODATA when a tree recorded none, -errno.
 */
int route_policy_load(const struct ctx *ctx, struct route_policy *rp);
void route_policy_free(struct route_policy *rp);
/*
 * The rules or routes as text, one line each as `ip -4 rule show` and
 * `ip -4 route show table all` print them (what the snapshot records and
 * --root reads back); a malloc'd string, or NULL.
 */
char *route_rules_text(const struct route_policy *rp);
char *route_routes_text(const struct route_policy *rp);

/*
 * Table @t as the node's commands name it: a recording's rt_tables name
 * of it where one was read, else its number ("main", "103"); @buf.
 */
const char *route_table_say(const struct route_policy *rp, uint32_t t, char *buf, size_t len);
/* One rule or route, in ip's words, into @buf; @buf. */
char *route_rule_say(const struct route_rule *r, char *buf, size_t len);
char *route_entry_say(const struct route_entry *e, char *buf, size_t len);

/* Whether the address @a is in @net/@len (host byte order, as the model keeps them). */
bool route_in_prefix(uint32_t a, uint32_t net, int len);
/* The address @a (host byte order) in dotted quad into @buf, INET_ADDRSTRLEN long; @buf. */
const char *route_addr_say(uint32_t a, char *buf);

/*
 * The route the kernel takes for a packet from the local address @src to
 * @dst (fib_lookup(): the rules by pref, each matching rule's table by
 * longest prefix, lowest metric, dump order); NULL when none or the
 * lookup ends on unreachable, blackhole or prohibit.  @rule, when not
 * NULL, is set to the rule that gave it.
 */
const struct route_entry *route_lookup(const struct route_policy *rp, uint32_t src, uint32_t dst,
				       const struct route_rule **rule);

/*
 * The effective value of net.ipv4.conf.@ifname.@name, the larger of it
 * and conf.all's, as the kernel takes rp_filter, arp_ignore and
 * arp_announce (IN_DEV_MAXCONF); 0 or -errno.
 */
int route_sysctl(const struct ctx *ctx, const char *ifname, const char *name, int *value);

#endif
