// SPDX-License-Identifier: MIT
/*
 * IPv4 routing policy (route.h): rules and routes dumped over rtnetlink
 * with libmnl, or read back from their recording in ip's words; the
 * kernel's lookup over them (net/core/fib_rules.c fib_rules_lookup(),
 * net/ipv4/fib_rules.c fib4_rule_match(), net/ipv4/fib_trie.c's longest
 * prefix);
 * the conf sysctls.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>

#include "base/ctx.h"
#include "base/sysfs.h"
#include "node/route.h"

/* A table's name as ip prints it (/etc/iproute2/rt_tables' three the kernel fixes). */
static const char *table_name(uint32_t t, char *buf, size_t len)
{
	if (t == RT_TABLE_LOCAL)
		return "local";
	if (t == RT_TABLE_MAIN)
		return "main";
	if (t == RT_TABLE_DEFAULT)
		return "default";
	snprintf(buf, len, "%u", t);
	return buf;
}

static int table_parse(const char *s, uint32_t *t, char *name, size_t namelen)
{
	char *end;
	unsigned long v;

	if (!strcmp(s, "local") || !strcmp(s, "main") || !strcmp(s, "default")) {
		*t = s[0] == 'l' ? RT_TABLE_LOCAL : s[0] == 'm' ? RT_TABLE_MAIN : RT_TABLE_DEFAULT;
		return 0;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (!errno && !*end && end != s && v <= UINT32_MAX) {
		*t = (uint32_t)v;
		return 0;
	}
	/*
	 * A name of the node's /etc/iproute2/rt_tables ("lookup rail1" in a
	 * recording made with ip): the same name, the same table, a number
	 * of its own (FNV-1a) above any the snapshot writes.
	 */
	if (!*s || strlen(s) >= namelen)
		return -EINVAL;
	snprintf(name, namelen, "%s", s);
	for (v = 2166136261u; *s; s++)
		v = ((v ^ (unsigned char)*s) * 16777619u) & UINT32_MAX;
	*t = (uint32_t)v | 0x80000000u;
	return 0;
}

/* "10.0.0.0/24", "10.0.0.1" (32), "all"/"default" (0) into host order. */
static int prefix_parse(const char *s, uint32_t *addr, int *len)
{
	char a[INET_ADDRSTRLEN], *slash, *end;
	struct in_addr in;
	long l = 32;

	if (!strcmp(s, "all") || !strcmp(s, "default")) {
		*addr = 0;
		*len = 0;
		return 0;
	}
	if (strlen(s) >= sizeof(a) + 3)
		return -EINVAL;
	snprintf(a, sizeof(a), "%.*s", (int)strcspn(s, "/"), s);
	slash = strchr(s, '/');
	if (slash) {
		l = strtol(slash + 1, &end, 10);
		if (*end || end == slash + 1 || l < 0 || l > 32)
			return -EINVAL;
	}
	if (inet_pton(AF_INET, a, &in) != 1)
		return -EINVAL;
	*addr = ntohl(in.s_addr);
	*len = (int)l;
	return 0;
}

static uint32_t mask_of(int len)
{
	return len <= 0 ? 0 : len >= 32 ? UINT32_MAX : ~(UINT32_MAX >> len);
}

bool route_in_prefix(uint32_t a, uint32_t net, int len)
{
	return ((a ^ net) & mask_of(len)) == 0;
}

const char *route_addr_say(uint32_t a, char *buf)
{
	struct in_addr in = { .s_addr = htonl(a) };

	return inet_ntop(AF_INET, &in, buf, INET_ADDRSTRLEN);
}

/* ip's way: "all"/"default" for /0, the bare address for /32, else a/len. */
static void prefix_say(uint32_t a, int len, const char *zero, char *buf, size_t n)
{
	char s[INET_ADDRSTRLEN];

	if (!len)
		snprintf(buf, n, "%s", zero);
	else if (len == 32)
		snprintf(buf, n, "%s", route_addr_say(a, s));
	else
		snprintf(buf, n, "%s/%d", route_addr_say(a, s), len);
}

/* ---- words ---- */

static const char *const rule_action_words[] = {
	[RULE_BLACKHOLE] = "blackhole", [RULE_UNREACHABLE] = "unreachable",
	[RULE_PROHIBIT] = "prohibit", [RULE_NOP] = "nop",
};

static const char *const route_type_words[] = {
	[ROUTE_UNICAST] = "unicast", [ROUTE_LOCAL] = "local", [ROUTE_BROADCAST] = "broadcast",
	[ROUTE_UNREACHABLE] = "unreachable", [ROUTE_BLACKHOLE] = "blackhole",
	[ROUTE_PROHIBIT] = "prohibit", [ROUTE_THROW] = "throw",
};

const char *route_table_say(const struct route_policy *rp, uint32_t t, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < rp->n_rules; i++)
		if (rp->rules[i].table == t && rp->rules[i].table_name[0])
			return rp->rules[i].table_name;
	for (i = 0; i < rp->n_routes; i++)
		if (rp->routes[i].table == t && rp->routes[i].table_name[0])
			return rp->routes[i].table_name;
	return table_name(t, buf, len);
}

#define SAY(...) (at += (size_t)snprintf(buf + at, at < len ? len - at : 0, __VA_ARGS__))

char *route_rule_say(const struct route_rule *r, char *buf, size_t len)
{
	char p[INET_ADDRSTRLEN + 4], t[16];
	size_t at = 0;

	buf[0] = '\0';
	prefix_say(r->src, r->src_len, "all", p, sizeof(p));
	SAY("%u:\t%sfrom %s", r->pref, r->invert ? "not " : "", p);
	if (r->dst_len) {
		prefix_say(r->dst, r->dst_len, "all", p, sizeof(p));
		SAY(" to %s", p);
	}
	if (r->fwmark || r->fwmask)
		SAY(r->fwmask == UINT32_MAX ? " fwmark %#x" : " fwmark %#x/%#x", r->fwmark, r->fwmask);
	if (r->iif[0])
		SAY(" iif %s", r->iif);
	if (r->oif[0])
		SAY(" oif %s", r->oif);
	if (r->action == RULE_LOOKUP)
		SAY(" lookup %s", r->table_name[0] ? r->table_name : table_name(r->table, t, sizeof(t)));
	else if (r->action == RULE_GOTO)
		SAY(" goto %u", r->goto_pref);
	else if (r->action != RULE_OTHER)
		SAY(" %s", rule_action_words[r->action]);
	if (r->suppress_len >= 0)
		SAY(" suppress_prefixlength %d", r->suppress_len);
	if (r->unmodelled)
		SAY(" unmodelled");
	return buf;
}

char *route_entry_say(const struct route_entry *e, char *buf, size_t len)
{
	char p[INET_ADDRSTRLEN + 4], s[INET_ADDRSTRLEN], t[16];
	size_t at = 0;

	buf[0] = '\0';
	prefix_say(e->dst, e->dst_len, "default", p, sizeof(p));
	if (e->type != ROUTE_UNICAST && e->type != ROUTE_OTHER)
		SAY("%s ", route_type_words[e->type]);
	SAY("%s", p);
	if (e->gw)
		SAY(" via %s", route_addr_say(e->gw, s));
	if (e->dev[0])
		SAY(" dev %s", e->dev);
	if (e->table != RT_TABLE_MAIN)
		SAY(" table %s", e->table_name[0] ? e->table_name : table_name(e->table, t, sizeof(t)));
	if (e->kernel)
		SAY(" proto kernel");
	if (e->scope == RT_SCOPE_LINK || e->scope == RT_SCOPE_HOST)
		SAY(" scope %s", e->scope == RT_SCOPE_LINK ? "link" : "host");
	else if (e->scope)
		SAY(" scope %u", e->scope);
	if (e->prefsrc)
		SAY(" src %s", route_addr_say(e->prefsrc, s));
	if (e->metric)
		SAY(" metric %u", e->metric);
	return buf;
}

#undef SAY

/* Every line of @n items said by @say, "\n" after each. */
static char *lines_text(const void *items, size_t n, size_t size,
			char *(*say)(const void *item, char *buf, size_t len))
{
	char line[256], *text = NULL;
	size_t i, at = 0;
	FILE *f;

	f = open_memstream(&text, &at);
	if (!f)
		return NULL;
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", say((const char *)items + i * size, line, sizeof(line)));
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static char *say_rule(const void *r, char *buf, size_t len)
{
	return route_rule_say(r, buf, len);
}

static char *say_route(const void *e, char *buf, size_t len)
{
	return route_entry_say(e, buf, len);
}

char *route_rules_text(const struct route_policy *rp)
{
	return lines_text(rp->rules, rp->n_rules, sizeof(*rp->rules), say_rule);
}

char *route_routes_text(const struct route_policy *rp)
{
	return lines_text(rp->routes, rp->n_routes, sizeof(*rp->routes), say_route);
}

/* ---- growing the lists ---- */

static struct route_rule *rule_new(struct route_policy *rp)
{
	struct route_rule *n = realloc(rp->rules, (rp->n_rules + 1) * sizeof(*n));

	if (!n)
		return NULL;
	rp->rules = n;
	n = &n[rp->n_rules++];
	memset(n, 0, sizeof(*n));
	n->suppress_len = -1;
	return n;
}

static struct route_entry *route_new(struct route_policy *rp)
{
	struct route_entry *n = realloc(rp->routes, (rp->n_routes + 1) * sizeof(*n));

	if (!n)
		return NULL;
	rp->routes = n;
	n = &n[rp->n_routes++];
	memset(n, 0, sizeof(*n));
	n->table = RT_TABLE_MAIN;
	return n;
}

void route_policy_free(struct route_policy *rp)
{
	free(rp->rules);
	free(rp->routes);
	memset(rp, 0, sizeof(*rp));
}

/* ---- reading ip's words back (--root) ---- */

/* Selectors ip prints that this model does not match a flow by. */
static const char *const rule_unmodelled[] = {
	"tos", "dsfield", "ipproto", "sport", "dport", "uidrange", "l3mdev", "realms", "protocol",
	"proto", NULL,
};

static bool word_in(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list))
			return true;
	return false;
}

static int iface_copy(char *dst, const char *w)
{
	if (!w || strlen(w) >= IF_NAMESIZE)
		return -EINVAL;
	memcpy(dst, w, strlen(w) + 1);
	return 0;
}

/* The words after "PREF:" of one `ip rule` line. */
static int rule_words(struct route_rule *r, char **w, size_t n)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		const char *v = i + 1 < n ? w[i + 1] : NULL;
		char *end;

		if (!strcmp(w[i], "not"))
			r->invert = true;
		else if (!strcmp(w[i], "from") && v && ++i)
			ret = prefix_parse(v, &r->src, &r->src_len);
		else if (!strcmp(w[i], "to") && v && ++i)
			ret = prefix_parse(v, &r->dst, &r->dst_len);
		else if ((!strcmp(w[i], "iif") || !strcmp(w[i], "oif")) && ++i)
			ret = iface_copy(w[i - 1][0] == 'i' ? r->iif : r->oif, v);
		else if (!strcmp(w[i], "fwmark") && v && ++i) {
			r->fwmark = (uint32_t)strtoul(v, &end, 0);
			r->fwmask = *end == '/' ? (uint32_t)strtoul(end + 1, NULL, 0) : UINT32_MAX;
		} else if ((!strcmp(w[i], "lookup") || !strcmp(w[i], "table")) && v && ++i) {
			r->action = RULE_LOOKUP;
			ret = table_parse(v, &r->table, r->table_name, sizeof(r->table_name));
		} else if (!strcmp(w[i], "goto") && v && ++i) {
			r->action = RULE_GOTO;
			r->goto_pref = (uint32_t)strtoul(v, NULL, 10);
		} else if (!strcmp(w[i], "suppress_prefixlength") && v && ++i)
			r->suppress_len = atoi(v);
		else if (!strcmp(w[i], "blackhole"))
			r->action = RULE_BLACKHOLE;
		else if (!strcmp(w[i], "unreachable"))
			r->action = RULE_UNREACHABLE;
		else if (!strcmp(w[i], "prohibit"))
			r->action = RULE_PROHIBIT;
		else if (!strcmp(w[i], "nop"))
			r->action = RULE_NOP;
		else if (word_in(w[i], rule_unmodelled) || !strcmp(w[i], "unmodelled")) {
			r->unmodelled = true;
			i += v && strcmp(w[i], "l3mdev") && strcmp(w[i], "unmodelled");
		}
	}
	return ret;
}

static const char *const route_keys[] = {
	"via", "dev", "table", "proto", "scope", "src", "metric", "mtu", "advmss", "pref",
	"expires", "error", "weight", "realm", "realms", "tos", "dsfield", "nhid", "from", NULL,
};

static enum route_type route_type_parse(const char *w)
{
	size_t i;

	for (i = 0; i < sizeof(route_type_words) / sizeof(*route_type_words); i++)
		if (route_type_words[i] && !strcmp(w, route_type_words[i]))
			return (enum route_type)i;
	if (!strcmp(w, "multicast") || !strcmp(w, "anycast") || !strcmp(w, "nat"))
		return ROUTE_OTHER;
	return ROUTE_UNICAST;
}

/* One `ip route` line's words: [TYPE] DST then KEY VALUE pairs and flags. */
static int route_words(struct route_entry *e, char **w, size_t n)
{
	struct in_addr in;
	size_t i = 0;
	int ret;

	if (n && (route_type_parse(w[0]) != ROUTE_UNICAST || !strcmp(w[0], "unicast")))
		e->type = route_type_parse(w[i++]);
	if (i >= n)
		return -EINVAL;
	ret = prefix_parse(w[i++], &e->dst, &e->dst_len);
	for (; i < n && !ret; i++) {
		const char *v = i + 1 < n ? w[i + 1] : NULL;

		if (!word_in(w[i], route_keys) || !v)
			continue;	/* a flag: linkdown, onlink, ... */
		i++;
		if (!strcmp(w[i - 1], "via") || !strcmp(w[i - 1], "src")) {
			if (inet_pton(AF_INET, v, &in) != 1)
				return -EINVAL;
			*(w[i - 1][0] == 'v' ? &e->gw : &e->prefsrc) = ntohl(in.s_addr);
		} else if (!strcmp(w[i - 1], "dev"))
			ret = iface_copy(e->dev, v);
		else if (!strcmp(w[i - 1], "table"))
			ret = table_parse(v, &e->table, e->table_name, sizeof(e->table_name));
		else if (!strcmp(w[i - 1], "proto"))
			e->kernel = !strcmp(v, "kernel");
		else if (!strcmp(w[i - 1], "scope"))
			e->scope = !strcmp(v, "link") ? RT_SCOPE_LINK : !strcmp(v, "host") ? RT_SCOPE_HOST
				   : !strcmp(v, "global") ? 0 : (uint8_t)strtoul(v, NULL, 10);
		else if (!strcmp(w[i - 1], "metric"))
			e->metric = (uint32_t)strtoul(v, NULL, 10);
	}
	return ret;
}

#define WORDS_MAX 48

static size_t split(char *line, char **w)
{
	char *save = NULL, *t;
	size_t n = 0;

	for (t = strtok_r(line, " \t", &save); t && n < WORDS_MAX; t = strtok_r(NULL, " \t", &save))
		w[n++] = t;
	return n;
}

static int parse_rule_line(struct route_policy *rp, char *line)
{
	struct route_rule *r;
	char *w[WORDS_MAX], *end;
	size_t n = split(line, w);
	unsigned long pref;

	if (!n)
		return 0;
	pref = strtoul(w[0], &end, 10);
	if (end == w[0] || strcmp(end, ":"))
		return -EINVAL;
	r = rule_new(rp);
	if (!r)
		return -ENOMEM;
	r->pref = (uint32_t)pref;
	r->action = RULE_OTHER;
	return rule_words(r, w + 1, n - 1);
}

static int parse_route_line(struct route_policy *rp, char *line)
{
	struct route_entry *e;
	char *w[WORDS_MAX];
	size_t n = split(line, w);

	/* A multipath route's "nexthop via ..." lines follow it; its first dev is enough. */
	if (!n || !strcmp(w[0], "nexthop"))
		return 0;
	e = route_new(rp);
	return e ? route_words(e, w, n) : -ENOMEM;
}

static int parse_file(const struct ctx *ctx, const char *path, struct route_policy *rp,
		      int (*one)(struct route_policy *rp, char *line))
{
	char *text = NULL, *line, *save = NULL;
	size_t n;
	int ret;

	ret = read_file(ctx, path, 1 << 22, &text, &n);
	if (ret)
		return ret == -ENOENT ? -ENODATA : ret;
	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		char why[160];

		snprintf(why, sizeof(why), "not a line of ip's: '%.100s'", line);
		ret = one(rp, line);
		if (ret == -EINVAL)
			read_warning(ctx, path, ret, why);
	}
	free(text);
	return ret;
}

/* ---- the live dump (rtnetlink, libmnl) ---- */

static enum rule_action rule_action_of(uint8_t a)
{
	switch (a) {
	case FR_ACT_TO_TBL: return RULE_LOOKUP;
	case FR_ACT_GOTO: return RULE_GOTO;
	case FR_ACT_NOP: return RULE_NOP;
	case FR_ACT_BLACKHOLE: return RULE_BLACKHOLE;
	case FR_ACT_UNREACHABLE: return RULE_UNREACHABLE;
	case FR_ACT_PROHIBIT: return RULE_PROHIBIT;
	default: return RULE_OTHER;
	}
}

static uint32_t attr_v4(const struct nlattr *a)
{
	uint32_t be;

	memcpy(&be, mnl_attr_get_payload(a), sizeof(be));
	return ntohl(be);
}

static bool attr_ok(const struct nlattr *a, size_t size)
{
	return mnl_attr_get_payload_len(a) >= size;
}

static int on_rule_attr(const struct nlattr *a, void *data)
{
	struct route_rule *r = data;

	switch (mnl_attr_get_type(a)) {
	case FRA_PRIORITY: if (attr_ok(a, 4)) r->pref = mnl_attr_get_u32(a); break;
	case FRA_SRC: if (attr_ok(a, 4)) r->src = attr_v4(a); break;
	case FRA_DST: if (attr_ok(a, 4)) r->dst = attr_v4(a); break;
	case FRA_FWMARK: if (attr_ok(a, 4)) r->fwmark = mnl_attr_get_u32(a); break;
	case FRA_FWMASK: if (attr_ok(a, 4)) r->fwmask = mnl_attr_get_u32(a); break;
	case FRA_TABLE: if (attr_ok(a, 4)) r->table = mnl_attr_get_u32(a); break;
	case FRA_GOTO: if (attr_ok(a, 4)) r->goto_pref = mnl_attr_get_u32(a); break;
	case FRA_SUPPRESS_PREFIXLEN:
		if (attr_ok(a, 4) && (int32_t)mnl_attr_get_u32(a) >= 0)
			r->suppress_len = (int)mnl_attr_get_u32(a);
		break;
	case FRA_IIFNAME:
	case FRA_OIFNAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			iface_copy(mnl_attr_get_type(a) == FRA_IIFNAME ? r->iif : r->oif,
				   mnl_attr_get_str(a));
		break;
	case FRA_L3MDEV: case FRA_IP_PROTO: case FRA_SPORT_RANGE: case FRA_DPORT_RANGE:
	case FRA_UID_RANGE:
		r->unmodelled = true;
		break;
	}
	return MNL_CB_OK;
}

static int on_rule(const struct nlmsghdr *nlh, void *data)
{
	const struct fib_rule_hdr *h = mnl_nlmsg_get_payload(nlh);
	struct route_rule *r;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*h) || h->family != AF_INET)
		return MNL_CB_OK;
	r = rule_new(data);
	if (!r)
		return MNL_CB_ERROR;
	r->src_len = h->src_len;
	r->dst_len = h->dst_len;
	r->invert = h->flags & FIB_RULE_INVERT;
	r->action = rule_action_of(h->action);
	r->table = h->table;
	r->unmodelled = h->tos != 0;
	mnl_attr_parse(nlh, sizeof(*h), on_rule_attr, r);
	if (r->fwmark && !r->fwmask)
		r->fwmask = UINT32_MAX;
	return MNL_CB_OK;
}

static enum route_type route_type_of(uint8_t t)
{
	switch (t) {
	case RTN_UNICAST: return ROUTE_UNICAST;
	case RTN_LOCAL: return ROUTE_LOCAL;
	case RTN_BROADCAST: return ROUTE_BROADCAST;
	case RTN_UNREACHABLE: return ROUTE_UNREACHABLE;
	case RTN_BLACKHOLE: return ROUTE_BLACKHOLE;
	case RTN_PROHIBIT: return ROUTE_PROHIBIT;
	case RTN_THROW: return ROUTE_THROW;
	default: return ROUTE_OTHER;
	}
}

static void set_dev(struct route_entry *e, uint32_t ifindex)
{
	char name[IF_NAMESIZE];

	if (!e->dev[0] && ifindex && if_indextoname(ifindex, name))
		iface_copy(e->dev, name);
}

/* RTA_MULTIPATH: the first next hop's interface and gateway. */
static void first_hop(struct route_entry *e, const struct nlattr *a)
{
	const struct rtnexthop *nh = mnl_attr_get_payload(a);
	const struct nlattr *in;

	if (!attr_ok(a, sizeof(*nh)) || nh->rtnh_len < sizeof(*nh) ||
	    nh->rtnh_len > mnl_attr_get_payload_len(a))
		return;
	set_dev(e, (uint32_t)nh->rtnh_ifindex);
	for (in = (const struct nlattr *)((const char *)nh + RTNH_LENGTH(0));
	     mnl_attr_ok(in, (int)((const char *)nh + nh->rtnh_len - (const char *)in));
	     in = mnl_attr_next(in))
		if (mnl_attr_get_type(in) == RTA_GATEWAY && attr_ok(in, 4) && !e->gw)
			e->gw = attr_v4(in);
}

static int on_route_attr(const struct nlattr *a, void *data)
{
	struct route_entry *e = data;

	switch (mnl_attr_get_type(a)) {
	case RTA_DST: if (attr_ok(a, 4)) e->dst = attr_v4(a); break;
	case RTA_GATEWAY: if (attr_ok(a, 4)) e->gw = attr_v4(a); break;
	case RTA_PREFSRC: if (attr_ok(a, 4)) e->prefsrc = attr_v4(a); break;
	case RTA_PRIORITY: if (attr_ok(a, 4)) e->metric = mnl_attr_get_u32(a); break;
	case RTA_TABLE: if (attr_ok(a, 4)) e->table = mnl_attr_get_u32(a); break;
	case RTA_OIF: if (attr_ok(a, 4)) set_dev(e, mnl_attr_get_u32(a)); break;
	case RTA_MULTIPATH: first_hop(e, a); break;
	}
	return MNL_CB_OK;
}

static int on_route(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *m = mnl_nlmsg_get_payload(nlh);
	struct route_entry *e;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*m) || m->rtm_family != AF_INET ||
	    (m->rtm_flags & RTM_F_CLONED))
		return MNL_CB_OK;
	e = route_new(data);
	if (!e)
		return MNL_CB_ERROR;
	e->type = route_type_of(m->rtm_type);
	e->dst_len = m->rtm_dst_len;
	e->table = m->rtm_table;
	e->kernel = m->rtm_protocol == RTPROT_KERNEL;
	e->scope = m->rtm_scope;
	mnl_attr_parse(nlh, sizeof(*m), on_route_attr, e);
	return MNL_CB_OK;
}

/* One dump request of @type, every reply through @cb; 0 or -errno. */
static int dump(struct mnl_socket *sk, uint16_t type, mnl_cb_t cb, struct route_policy *rp)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	unsigned int seq = (unsigned int)time(NULL) + type, portid = mnl_socket_get_portid(sk);
	struct rtmsg *m;
	ssize_t n;
	int ret;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	/* struct fib_rule_hdr and struct rtmsg both begin with the family. */
	m = mnl_nlmsg_put_extra_header(nlh, sizeof(*m));
	m->rtm_family = AF_INET;
	if (mnl_socket_sendto(sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(sk, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, cb, rp);
	} while (ret > MNL_CB_STOP);
	return ret < 0 ? (errno ? -errno : -EIO) : 0;
}

static int live_load(struct route_policy *rp)
{
	struct mnl_socket *sk = mnl_socket_open(NETLINK_ROUTE);
	int ret;

	if (!sk)
		return -errno;
	if (mnl_socket_bind(sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto err_socket;
	}
	ret = dump(sk, RTM_GETRULE, on_rule, rp);
	if (!ret)
		ret = dump(sk, RTM_GETROUTE, on_route, rp);
err_socket:
	mnl_socket_close(sk);
	return ret;
}

/* The kernel keeps its rules in pref order; a recording is put back in it. */
static int by_pref(const void *a, const void *b)
{
	const struct route_rule *x = a, *y = b;

	return x->pref < y->pref ? -1 : x->pref > y->pref;
}

int route_policy_load(const struct ctx *ctx, struct route_policy *rp)
{
	int ret;

	memset(rp, 0, sizeof(*rp));
	if (ctx->root[0]) {
		ret = parse_file(ctx, ROUTE_RECORDED_RULES, rp, parse_rule_line);
		if (!ret)
			ret = parse_file(ctx, ROUTE_RECORDED_ROUTES, rp, parse_route_line);
	} else {
		ret = live_load(rp);
	}
	if (ret)
		route_policy_free(rp);
	else if (rp->n_rules)
		qsort(rp->rules, rp->n_rules, sizeof(*rp->rules), by_pref);
	return ret;
}

/* ---- the lookup ---- */

/*
 * fib4_rule_match() for a packet a local socket sends: its iif is the
 * loopback ("iif lo" matches), no oif (an oif rule does not), mark 0.
 */
static bool rule_matches(const struct route_rule *r, uint32_t src, uint32_t dst)
{
	bool m = !r->unmodelled && route_in_prefix(src, r->src, r->src_len) &&
		 route_in_prefix(dst, r->dst, r->dst_len) &&
		 (!r->iif[0] || !strcmp(r->iif, "lo")) && !r->oif[0] && !(r->fwmark & r->fwmask);

	return r->invert ? !m : m;
}

/* The table's route for @dst: longest prefix, then lowest metric, then the first. */
static const struct route_entry *table_lookup(const struct route_policy *rp, uint32_t table,
					      uint32_t dst)
{
	const struct route_entry *best = NULL;
	size_t i;

	for (i = 0; i < rp->n_routes; i++) {
		const struct route_entry *e = &rp->routes[i];

		if (e->table != table || e->type == ROUTE_OTHER ||
		    !route_in_prefix(dst, e->dst, e->dst_len))
			continue;
		if (!best || e->dst_len > best->dst_len ||
		    (e->dst_len == best->dst_len && e->metric < best->metric))
			best = e;
	}
	return best;
}

static size_t rule_at_pref(const struct route_policy *rp, size_t from, uint32_t pref)
{
	size_t i;

	for (i = from; i < rp->n_rules; i++)
		if (rp->rules[i].pref == pref)
			return i;
	return rp->n_rules;
}

const struct route_entry *route_lookup(const struct route_policy *rp, uint32_t src, uint32_t dst,
				       const struct route_rule **rule)
{
	const struct route_entry *e;
	size_t i;

	for (i = 0; i < rp->n_rules; i++) {
		const struct route_rule *r = &rp->rules[i];

		if (!rule_matches(r, src, dst))
			continue;
		if (rule)
			*rule = r;
		switch (r->action) {
		case RULE_LOOKUP:
			e = table_lookup(rp, r->table, dst);
			if (!e || e->type == ROUTE_THROW ||
			    (r->suppress_len >= 0 && e->dst_len <= r->suppress_len))
				continue;
			return e->type == ROUTE_UNREACHABLE || e->type == ROUTE_BLACKHOLE ||
			       e->type == ROUTE_PROHIBIT ? NULL : e;
		case RULE_GOTO:
			/* The target must come later; the loop's i++ lands on it. */
			if (rule_at_pref(rp, i + 1, r->goto_pref) < rp->n_rules)
				i = rule_at_pref(rp, i + 1, r->goto_pref) - 1;
			continue;
		case RULE_BLACKHOLE:
		case RULE_UNREACHABLE:
		case RULE_PROHIBIT:
			return NULL;
		default:
			continue;
		}
	}
	return NULL;
}

/* ---- conf sysctls ---- */

static int conf_read(const struct ctx *ctx, const char *ifname, const char *name, int *value)
{
	char path[96 + IF_NAMESIZE], buf[32], *end;
	long v;
	int ret;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/%s", ifname, name);
	ret = read_line(ctx, path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	v = strtol(buf, &end, 10);
	if (end == buf || v < 0 || v > 255)
		return -EINVAL;
	*value = (int)v;
	return 0;
}

int route_sysctl(const struct ctx *ctx, const char *ifname, const char *name, int *value)
{
	int all, own, ret;

	if (!ifname[0] || strchr(ifname, '/') || !strcmp(ifname, ".") || !strcmp(ifname, ".."))
		return -ENODEV;
	ret = conf_read(ctx, "all", name, &all);
	if (!ret)
		ret = conf_read(ctx, ifname, name, &own);
	if (ret)
		return ret;
	*value = all > own ? all : own;
	return 0;
}
