// SPDX-License-Identifier: MIT
/*
 * Check roce.route: whether traffic from a RoCE port's IPv4 address to
 * its subnet leaves by that port and is accepted on it, where rails share
 * a subnet (eight NICs in one /16).  Three things decide it:
 *   - the route the kernel takes from the address (route.h's model of
 *     fib_lookup()): without a rule "from ADDR" the main table's first
 *     connected route wins, the first rail's, for every rail;
 *   - rp_filter: strict (1) drops a reply arriving on a port its source's
 *     route does not leave by (fib_validate_source());
 *   - arp_ignore 0 lets every port answer ARP for every local address,
 *     arp_announce 0 lets a request leave one port with another's
 *     address: peers learn the wrong port's MAC and RoCE for one rail
 *     lands on another, whose device drops it (the QP times out: NCCL's
 *     "completion with error 12").
 * The fix is the commands that make it right, and how to keep them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/check.h"
#include "doctor/checks.h"
#include "base/ctx.h"
#include "base/sysfs.h"
#include "doctor/port_rules.h"
#include "node/gids.h"
#include "node/route.h"

/* Where the kept sysctls go (sysctl.d(5): read at boot by systemd-sysctl and procps). */
#define ROUTE_SYSCTL_FILE "/etc/sysctl.d/90-rdma-rails.conf"
/* The first table number the fix offers for a rail, plus its netdev's ifindex. */
#define ROUTE_TABLE_BASE 100

/* The rules and routes the port function reads: loaded once per run of the check. */
static struct route_policy *policy;
/* The tables this run's fix has offered rails: never one twice (rail_table()). */
static uint32_t offered[64];
static size_t n_offered;

/* What one RoCE port's address is and where its traffic should go. */
struct rail {
	uint32_t addr;			/* the chosen GID's IPv4 */
	char ifname[IF_NAMESIZE];	/* the netdev holding it */
	uint32_t net;
	int len;			/* its subnet; 0 when no route says it */
	char other[IF_NAMESIZE];	/* another netdev with a route to that subnet */
};

/*
 * The subnet of @ra: the connected route the kernel made for the address
 * (proto kernel, src ADDR, dev IF), else the longest main-table route on
 * the netdev that holds it; and another netdev with a route to the same.
 */
static void rail_subnet(const struct route_policy *rp, struct rail *ra)
{
	const struct route_entry *best = NULL;
	size_t i;

	for (i = 0; i < rp->n_routes; i++) {
		const struct route_entry *e = &rp->routes[i];

		if (e->type != ROUTE_UNICAST || e->dst_len == 0 || e->dst_len >= 32 ||
		    strcmp(e->dev, ra->ifname) || !route_in_prefix(ra->addr, e->dst, e->dst_len))
			continue;
		if (!best || (e->kernel && e->prefsrc == ra->addr && !(best->kernel &&
		    best->prefsrc == ra->addr)) || e->dst_len > best->dst_len)
			best = e;
	}
	if (!best)
		return;
	ra->net = best->dst;
	ra->len = best->dst_len;
	for (i = 0; i < rp->n_routes && !ra->other[0]; i++) {
		const struct route_entry *e = &rp->routes[i];

		if (e->type == ROUTE_UNICAST && e->dst == ra->net && e->dst_len == ra->len &&
		    e->dev[0] && strcmp(e->dev, ra->ifname))
			snprintf(ra->other, sizeof(ra->other), "%s", e->dev);
	}
}

static bool is_local(const struct route_policy *rp, uint32_t a)
{
	size_t i;

	for (i = 0; i < rp->n_routes; i++)
		if (rp->routes[i].type == ROUTE_LOCAL && route_in_prefix(a, rp->routes[i].dst,
		    rp->routes[i].dst_len))
			return true;
	return false;
}

/* A peer's address in @ra's subnet: neither this node's, nor the network's or broadcast. */
static uint32_t peer_in(const struct route_policy *rp, const struct rail *ra)
{
	uint32_t k, size = ra->len >= 31 ? 1 : (1u << (32 - ra->len)) - 2;

	for (k = 1; k <= size && k < 1024; k++)
		if (!is_local(rp, ra->net + k) && ra->net + k != ra->addr)
			return ra->net + k;
	return 0;
}

/* sysctl(8) writes a dot in an interface name as '/': net.ipv4.conf.eth0/100.rp_filter. */
static const char *sysctl_if(const char *ifname, char *buf, size_t len)
{
	char *c;

	snprintf(buf, len, "%s", ifname);
	for (c = buf; *c; c++)
		if (*c == '.')
			*c = '/';
	return buf;
}

static bool table_used(const struct route_policy *rp, uint32_t t)
{
	size_t i;

	for (i = 0; i < rp->n_rules; i++)
		if (rp->rules[i].action == RULE_LOOKUP && rp->rules[i].table == t)
			return true;
	for (i = 0; i < rp->n_routes; i++)
		if (rp->routes[i].table == t)
			return true;
	return false;
}

static bool table_offered(uint32_t t)
{
	size_t i;

	for (i = 0; i < n_offered; i++)
		if (offered[i] == t)
			return true;
	return false;
}

/*
 * The table the rail's rule looks up: the one a rule "from ADDR" already
 * names, else one of its own, unused, from its netdev's ifindex (one
 * rail, one table; two rails never get the same).  *@have: the rule is there.
 */
static uint32_t rail_table(struct node_facts *d, const struct route_policy *rp,
			   const struct rail *ra, bool *have)
{
	char path[64 + IF_NAMESIZE], buf[16];
	uint32_t t;
	size_t i;

	*have = false;
	for (i = 0; i < rp->n_rules; i++) {
		const struct route_rule *r = &rp->rules[i];

		if (r->action == RULE_LOOKUP && !r->invert && r->src_len == 32 && r->src == ra->addr &&
		    r->table != 253 && r->table != 254 && r->table != 255) {
			*have = true;
			return r->table;
		}
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", ra->ifname);
	t = ROUTE_TABLE_BASE + (read_line(d->ctx, path, buf, sizeof(buf)) > 0 ?
				(uint32_t)strtoul(buf, NULL, 10) : 0);
	/* Unique even where no ifindex can be read (a copy without it). */
	while (table_used(rp, t) || table_offered(t))
		t += table_offered(t) ? 1 : 1000;
	if (n_offered < sizeof(offered) / sizeof(offered[0]))
		offered[n_offered++] = t;
	return t;
}

/* The effective conf value, -1 when it cannot be read. */
static int conf(struct node_facts *d, const char *ifname, const char *name)
{
	int v;

	return route_sysctl(d->ctx, ifname, name, &v) ? -1 : v;
}

/* What is wrong with a rail that shares its subnet, as words and fixes. */
struct verdict {
	char why[768];
	size_t at;
	bool bad;
};

static void why(struct verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why(struct verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->at >= sizeof(v->why))
		return;
	if (v->at)
		v->at += (size_t)snprintf(v->why + v->at, sizeof(v->why) - v->at, "; ");
	if (v->at >= sizeof(v->why))
		return;
	va_start(ap, fmt);
	v->at += (size_t)vsnprintf(v->why + v->at, sizeof(v->why) - v->at, fmt, ap);
	va_end(ap);
}

/* The route from the address: the rule and table the kernel takes, or the fix that makes them. */
static void judge_route(struct node_facts *d, struct check_result *r, const struct rail *ra,
			struct verdict *v, bool *route_ok)
{
	const struct route_rule *rule = NULL;
	const struct route_entry *e;
	char a[INET_ADDRSTRLEN], n[INET_ADDRSTRLEN], p[INET_ADDRSTRLEN], say[160], tab[32];
	uint32_t peer = peer_in(policy, ra), t;
	bool have;

	e = peer ? route_lookup(policy, ra->addr, peer, &rule) : NULL;
	*route_ok = e && !strcmp(e->dev, ra->ifname);
	t = rail_table(d, policy, ra, &have);
	if (*route_ok && have)
		return;
	v->bad = true;
	if (*route_ok)
		why(v, "traffic from %s leaves by %s only while its route comes first in %s table "
		    "(no rule from %s: a link that flaps puts its route after the others')",
		    route_addr_say(ra->addr, a), ra->ifname,
		    rule && rule->table == 254 ? "the main" : "its", a);
	else if (e)
		why(v, "traffic from %s to %s leaves by %s (%s), not %s",
		    route_addr_say(ra->addr, a), route_addr_say(peer, p), e->dev,
		    route_entry_say(e, say, sizeof(say)), ra->ifname);
	else
		why(v, "traffic from %s to %s has no route", route_addr_say(ra->addr, a),
		    route_addr_say(peer, p));
	if (!have)
		check_fix(r, "ip rule add from %s table %s", a,
			  route_table_say(policy, t, tab, sizeof(tab)));
	check_fix(r, "ip route add %s/%d dev %s src %s table %s", route_addr_say(ra->net, n),
		  ra->len, ra->ifname, a, route_table_say(policy, t, tab, sizeof(tab)));
}

/* The fix that sets net.ipv4.conf.@k.@name to @value, and its lasting line appended to @keep. */
static void fix_sysctl(struct check_result *r, const char *k, const char *name, int value,
		       char *keep, size_t keeplen)
{
	size_t at = strlen(keep);

	check_fix(r, "sysctl -w net.ipv4.conf.%s.%s=%d", k, name, value);
	snprintf(keep + at, keeplen - at, " 'net.ipv4.conf.%s.%s = %d'", k, name, value);
}

/* rp_filter, arp_ignore, arp_announce of the rail's netdev; @keep gathers the lasting lines. */
static void judge_sysctls(struct node_facts *d, struct check_result *r, const struct rail *ra,
			  struct verdict *v, bool route_ok, char *keep, size_t keeplen)
{
	int rp = conf(d, ra->ifname, "rp_filter"), ai = conf(d, ra->ifname, "arp_ignore");
	int an = conf(d, ra->ifname, "arp_announce");
	char k[IF_NAMESIZE];

	sysctl_if(ra->ifname, k, sizeof(k));
	if (rp == 1 && !route_ok) {
		why(v, "rp_filter 1 (strict) on %s drops the replies that come back on it", ra->ifname);
		fix_sysctl(r, k, "rp_filter", 2, keep, keeplen);
	}
	if (ai == 0) {
		v->bad = true;
		why(v, "arp_ignore 0: %s answers ARP for the other rails' addresses, so their RoCE "
		    "can land on it", ra->ifname);
		fix_sysctl(r, k, "arp_ignore", 1, keep, keeplen);
	}
	if (an == 0) {
		v->bad = true;
		why(v, "arp_announce 0: its ARP requests may carry another rail's address");
		fix_sysctl(r, k, "arp_announce", 2, keep, keeplen);
	}
	if (rp < 0 || ai < 0 || an < 0)
		why(v, "net.ipv4.conf.%s's rp_filter, arp_ignore or arp_announce cannot be read", k);
}

/* The lasting lines the fixes of the check gathered, and the ports judged: see check_roce_route(). */
static char keep[1024];
static bool keep_routes;
static unsigned int seen, judged;

static void route_port(struct node_facts *d, struct check_result *r, const struct rdma_dev *dev,
		       const struct rdma_port *p)
{
	struct verdict v = { .at = 0 };
	char a[INET_ADDRSTRLEN], n[INET_ADDRSTRLEN];
	struct gid_choice c;
	struct rail ra = { 0 };
	struct in_addr in;
	bool route_ok;

	seen++;
	if (!doctor_gid_choose(p, &c) || !gid_ipv4(c.gid->raw, a, sizeof(a)) ||
	    inet_pton(AF_INET, a, &in) != 1)
		return;
	judged++;
	ra.addr = ntohl(in.s_addr);
	snprintf(ra.ifname, sizeof(ra.ifname), "%s",
		 c.gid->stacked || !p->netdev[0] ? c.gid->netdev : p->netdev);
	rail_subnet(policy, &ra);
	if (!ra.len) {
		check_note(r, CHECK_WARN, "%s/%u %s on %s: no route on %s covers it", dev->name,
			   p->num, a, ra.ifname, ra.ifname);
		check_fix(r, "ip addr replace %s/PREFIX dev %s", a, ra.ifname);
		return;
	}
	if (!ra.other[0]) {
		check_note(r, CHECK_OK, "%s/%u %s on %s: %s/%d is its own", dev->name, p->num, a,
			   ra.ifname, route_addr_say(ra.net, n), ra.len);
		return;
	}
	judge_route(d, r, &ra, &v, &route_ok);
	keep_routes |= !route_ok;
	judge_sysctls(d, r, &ra, &v, route_ok, keep, sizeof(keep));
	check_note(r, v.bad ? CHECK_FAIL : CHECK_OK, "%s/%u %s on %s shares %s/%d with %s%s%s",
		   dev->name, p->num, a, ra.ifname, route_addr_say(ra.net, n), ra.len, ra.other,
		   v.at ? ": " : ", and its traffic leaves and is answered by it",
		   v.at ? v.why : "");
}

void check_roce_route(struct node_facts *d, struct check_result *r)
{
	struct route_policy rp;
	int ret;

	ret = route_policy_load(d->ctx, &rp);
	if (ret) {
		if (ret == -ENODATA)
			check_skip(r, "rules and routes not recorded in this snapshot (%s)",
				   ROUTE_RECORDED_ROUTES);
		else
			check_skip(r, "cannot %s rules and routes: %s",
				   d->ctx->root[0] ? "read the recorded" : "dump the", strerror(-ret));
		return;
	}
	policy = &rp;
	keep[0] = '\0';
	keep_routes = false;
	seen = judged = 0;
	n_offered = 0;
	doctor_each_roce_port(d, r, route_port, "no RoCE port (InfiniBand only)");
	if (seen && !judged)
		check_skip(r, "no RoCE port has an IPv4 address (see roce.ipv4)");
	if (keep[0])
		check_fix(r, "to keep it: printf '%%s\\n'%s >>" ROUTE_SYSCTL_FILE, keep);
	if (keep_routes)
		check_fix(r, "and each rule and route in its netdev's configuration (netplan: "
			  "routing-policy from/table and routes to/table; ifupdown: the ip lines as "
			  "post-up; NetworkManager: ipv4.routing-rules and ipv4.routes table=N)");
	policy = NULL;
	route_policy_free(&rp);
}
