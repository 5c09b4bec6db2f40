// SPDX-License-Identifier: MIT
/*
 * nftables and iptables rules reduced to "what happens to TCP/UDP port N".
 * Input formats:
 *   nft -j list ruleset:
 *     {"rule":{"family":"inet","table":"f","chain":"input","handle":2,"expr":[
 *       {"match":{"op":"==","left":{"payload":{"protocol":"udp","field":"dport"}},
 *                 "right":4791}},{"drop":null}]}}
 *   iptables-save:
 *     :INPUT DROP [0:0]
 *     -A INPUT -p udp -m udp --dport 4791 -j DROP
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/json.h"
#include "base/root.h"
#include "base/sysfs.h"
#include "node/firewall.h"

void fw_rules_free(struct fw_rules *r)
{
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

static struct fw_rule *rule_add(struct fw_rules *r)
{
	struct fw_rule *nv;

	/* A ruleset of more than 100000 rules is not one we can judge sensibly. */
	if (r->n >= 100000)
		return NULL;
	nv = realloc(r->v, (r->n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	r->v = nv;
	memset(&nv[r->n], 0, sizeof(*nv));
	return &nv[r->n++];
}

/* Append a copy of each rule of @from to @to (chain policies, after the rules). */
static int rules_append(struct fw_rules *to, const struct fw_rules *from)
{
	size_t i;

	for (i = 0; i < from->n; i++) {
		struct fw_rule *rule = rule_add(to);

		if (!rule)
			return -ENOMEM;
		*rule = from->v[i];
	}
	return 0;
}

static void add_range(struct fw_rule *rule, long lo, long hi)
{
	if (rule->nranges >= FW_MAX_RANGES || lo < 0 || hi > 65535 || lo > hi)
		return;
	rule->lo[rule->nranges] = (unsigned int)lo;
	rule->hi[rule->nranges] = (unsigned int)hi;
	rule->nranges++;
}

/* ---- nftables JSON ---- */

/* A port value: 4791, {"range":[a,b]} or {"set":[...]} of those. */
static void nft_ports(struct fw_rule *rule, struct json_object *v, int depth)
{
	struct json_object *x;
	size_t i;

	if (depth > 4)
		return;
	if (json_object_is_type(v, json_type_int)) {
		add_range(rule, json_object_get_int64(v), json_object_get_int64(v));
	} else if (json_object_is_type(v, json_type_array)) {
		for (i = 0; i < json_object_array_length(v); i++)
			nft_ports(rule, json_object_array_get_idx(v, i), depth + 1);
	} else if (json_object_object_get_ex(v, "set", &x)) {
		nft_ports(rule, x, depth + 1);
	} else if (json_object_object_get_ex(v, "range", &x) &&
		   json_object_is_type(x, json_type_array) && json_object_array_length(x) == 2) {
		add_range(rule, json_object_get_int64(json_object_array_get_idx(x, 0)),
			  json_object_get_int64(json_object_array_get_idx(x, 1)));
	} else {
		/* A named set or a variable: ports we cannot see. */
		rule->conditional = true;
	}
}

/*
 * Arriving on interface @name only (iifname, -i): kept apart from other
 * conditions, since the doctor knows which interfaces carry RoCE.  A
 * wildcard, a negation or a second interface is just a condition.
 */
static void match_iif(struct fw_rule *rule, const char *name, bool negate)
{
	if (!name || negate || rule->iif[0] || strpbrk(name, "*+") ||
	    strlen(name) >= sizeof(rule->iif))
		rule->conditional = true;
	else
		strcpy(rule->iif, name);
}

static void nft_match(struct fw_rule *rule, struct json_object *m)
{
	struct json_object *left, *right, *payload, *meta;
	const char *op = jstr(m, "op"), *proto, *field;

	if (json_object_object_get_ex(m, "left", &left) &&
	    json_object_object_get_ex(left, "meta", &meta) && jstr(meta, "key") &&
	    !strcmp(jstr(meta, "key"), "iifname") &&
	    json_object_object_get_ex(m, "right", &right) && json_object_is_type(right, json_type_string)) {
		match_iif(rule, json_object_get_string(right), op && strcmp(op, "=="));
		return;
	}
	if (!json_object_object_get_ex(m, "left", &left) ||
	    !json_object_object_get_ex(m, "right", &right) ||
	    !json_object_object_get_ex(left, "payload", &payload)) {
		rule->conditional = true;
		return;
	}
	proto = jstr(payload, "protocol");
	field = jstr(payload, "field");
	if (!proto || !field || strcmp(field, "dport") ||
	    (strcmp(proto, "udp") && strcmp(proto, "tcp") && strcmp(proto, "th"))) {
		rule->conditional = true;
		return;
	}
	if (!strcmp(proto, "udp"))
		rule->proto = FW_UDP;
	else if (!strcmp(proto, "tcp"))
		rule->proto = FW_TCP;
	if (op && strcmp(op, "==") && strcmp(op, "in")) {
		/* "dport != 4791": some ports, not the listed ones. */
		rule->conditional = true;
		return;
	}
	nft_ports(rule, right, 0);
}

static enum fw_verdict nft_verdict(const char *key)
{
	if (!strcmp(key, "accept"))
		return FW_ACCEPT;
	if (!strcmp(key, "drop"))
		return FW_DROP;
	if (!strcmp(key, "reject"))
		return FW_REJECT;
	return FW_NONE;
}

static void nft_expr(struct fw_rule *rule, struct json_object *e)
{
	json_object_object_foreach(e, key, val) {
		enum fw_verdict v = nft_verdict(key);

		if (v != FW_NONE)
			rule->verdict = v;
		else if (!strcmp(key, "match"))
			nft_match(rule, val);
		else if (strcmp(key, "counter") && strcmp(key, "log") && strcmp(key, "limit"))
			/* jump, goto, meta, ct, ...: not a plain port rule. */
			rule->conditional = true;
	}
}

/* Chains whose hook never sees this host's own traffic are left out. */
static bool nft_hook_counts(const char *hook)
{
	return !hook || strcmp(hook, "forward");
}

static int nft_rule(struct fw_rules *out, struct json_object *r, struct json_object *chains)
{
	const char *family = jstr(r, "family"), *table = jstr(r, "table"),
		   *chain = jstr(r, "chain");
	struct json_object *expr, *h;
	struct fw_rule *rule;
	char key[96];
	size_t i;

	if (!family || !table || !chain)
		return 0;
	snprintf(key, sizeof(key), "%s %s %s", family, table, chain);
	if (json_object_object_get_ex(chains, key, &h) && !json_object_get_boolean(h))
		return 0;
	rule = rule_add(out);
	if (!rule)
		return -ENOMEM;
	memcpy(rule->where, key, sizeof(key));
	if (json_object_object_get_ex(r, "handle", &h))
		rule->handle = (long)json_object_get_int64(h);
	if (json_object_object_get_ex(r, "expr", &expr) &&
	    json_object_is_type(expr, json_type_array))
		for (i = 0; i < json_object_array_length(expr); i++)
			nft_expr(rule, json_object_array_get_idx(expr, i));
	return 0;
}

/* Record in @chains whether each chain counts; add policies of base chains. */
static int nft_chain(struct json_object *c, struct json_object *chains, struct fw_rules *pol)
{
	const char *family = jstr(c, "family"), *table = jstr(c, "table"),
		   *name = jstr(c, "name"), *hook = jstr(c, "hook"),
		   *policy = jstr(c, "policy");
	struct fw_rule *rule;
	char key[96];

	if (!family || !table || !name)
		return 0;
	snprintf(key, sizeof(key), "%s %s %s", family, table, name);
	json_object_object_add(chains, key, json_object_new_boolean(nft_hook_counts(hook)));
	if (!hook || !policy || strcmp(policy, "drop") || !nft_hook_counts(hook))
		return 0;
	rule = rule_add(pol);
	if (!rule)
		return -ENOMEM;
	memcpy(rule->where, key, sizeof(key));
	rule->policy = true;
	rule->verdict = FW_DROP;
	return 0;
}

static int nft_walk(struct json_object *list, struct fw_rules *out)
{
	struct json_object *chains = json_object_new_object(), *o;
	struct fw_rules pol = { 0 };
	size_t i, n = json_object_array_length(list);
	int ret = 0;

	if (!chains)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		if (json_object_object_get_ex(json_object_array_get_idx(list, i), "chain", &o))
			ret = nft_chain(o, chains, &pol);
	for (i = 0; i < n && !ret; i++)
		if (json_object_object_get_ex(json_object_array_get_idx(list, i), "rule", &o))
			ret = nft_rule(out, o, chains);
	/* Policies end their chains: after every rule. */
	if (!ret)
		ret = rules_append(out, &pol);
	fw_rules_free(&pol);
	json_object_put(chains);
	return ret;
}

int fw_parse_nft_json(const char *json, struct fw_rules *out)
{
	struct json_object *root, *list;
	int ret;

	memset(out, 0, sizeof(*out));
	root = json_tokener_parse(json);
	if (!root)
		return -EINVAL;
	if (!json_object_object_get_ex(root, "nftables", &list) ||
	    !json_object_is_type(list, json_type_array)) {
		json_object_put(root);
		return -EINVAL;
	}
	ret = nft_walk(list, out);
	json_object_put(root);
	if (ret)
		fw_rules_free(out);
	return ret;
}

/* ---- iptables-save ---- */

static enum fw_verdict ipt_target(const char *t)
{
	if (!strcmp(t, "ACCEPT"))
		return FW_ACCEPT;
	if (!strcmp(t, "DROP"))
		return FW_DROP;
	if (!strcmp(t, "REJECT"))
		return FW_REJECT;
	return FW_NONE;
}

/* "4791", "1000:2000" or "4791,5000:6000" (multiport). */
static void ipt_ports(struct fw_rule *rule, char *s)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		char *end;
		long lo = strtol(tok, &end, 10), hi = lo;

		if (colon)
			hi = strtol(colon + 1, NULL, 10);
		if (end == tok)
			rule->conditional = true;
		else
			add_range(rule, lo, hi);
	}
}

/* Options that only say which match module to load. */
static bool ipt_harmless(const char *opt)
{
	return !strcmp(opt, "-m") || !strcmp(opt, "--match");
}

static void ipt_rule(struct fw_rule *rule, char *line)
{
	char *save = NULL, *tok, *arg;
	bool negate = false;

	strtok_r(line, " \t", &save);	/* "-A" */
	tok = strtok_r(NULL, " \t", &save);
	snprintf(rule->where, sizeof(rule->where), "filter %s", tok ? tok : "?");
	while ((tok = strtok_r(NULL, " \t", &save))) {
		if (!strcmp(tok, "!")) {
			negate = true;
			continue;
		}
		arg = strtok_r(NULL, " \t", &save);
		if (!arg)
			break;
		if (!strcmp(tok, "-p") || !strcmp(tok, "--protocol"))
			rule->proto = !strcmp(arg, "udp") ? FW_UDP : !strcmp(arg, "tcp") ? FW_TCP : FW_ANY;
		else if ((!strcmp(tok, "--dport") || !strcmp(tok, "--dports") ||
			  !strcmp(tok, "--destination-port")) && !negate)
			ipt_ports(rule, arg);
		else if (!strcmp(tok, "-j") || !strcmp(tok, "--jump"))
			rule->verdict = ipt_target(arg);
		else if (!strcmp(tok, "-i") || !strcmp(tok, "--in-interface"))
			match_iif(rule, arg, negate);
		else if (!ipt_harmless(tok))
			rule->conditional = true;
		if (negate && strcmp(tok, "-p"))
			rule->conditional = true;
		negate = false;
		/* The target's own options ("--reject-with x") follow -j. */
		if (rule->verdict != FW_NONE)
			break;
	}
}

/* ":INPUT DROP [0:0]" */
static int ipt_policy(struct fw_rules *pol, char *line, long lineno)
{
	char name[32], verdict[16];
	struct fw_rule *rule;

	if (sscanf(line, ":%31s %15s", name, verdict) != 2 || strcmp(verdict, "DROP") ||
	    !strcmp(name, "FORWARD"))
		return 0;
	rule = rule_add(pol);
	if (!rule)
		return -ENOMEM;
	snprintf(rule->where, sizeof(rule->where), "filter %s", name);
	rule->handle = lineno;
	rule->policy = true;
	rule->verdict = FW_DROP;
	return 0;
}

static int ipt_line(struct fw_rules *out, struct fw_rules *pol, char *line, long lineno,
		    bool *in_filter)
{
	struct fw_rule *rule;

	if (line[0] == '*')
		*in_filter = !strcmp(line, "*filter");
	if (!*in_filter)
		return 0;
	if (line[0] == ':')
		return ipt_policy(pol, line, lineno);
	if (strncmp(line, "-A ", 3) || strstr(line, "-A FORWARD ") == line)
		return 0;
	rule = rule_add(out);
	if (!rule)
		return -ENOMEM;
	rule->handle = lineno;
	ipt_rule(rule, line);
	return 0;
}

int fw_parse_iptables_save(const char *text, struct fw_rules *out)
{
	struct fw_rules pol = { 0 };
	char *copy, *rest, *line;
	bool in_filter = false;
	long lineno = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	/* strsep, not strtok: blank lines count, so line numbers are the file's. */
	for (rest = copy; (line = strsep(&rest, "\n")) && !ret;) {
		lineno++;
		ret = ipt_line(out, &pol, line, lineno, &in_filter);
	}
	if (!ret)
		ret = rules_append(out, &pol);
	fw_rules_free(&pol);
	free(copy);
	if (ret)
		fw_rules_free(out);
	return ret;
}

/* ---- questions ---- */

static bool rule_matches(const struct fw_rule *rule, enum fw_proto proto, unsigned int port)
{
	size_t i;

	if (rule->proto != FW_ANY && rule->proto != proto)
		return false;
	if (!rule->nranges)
		return true;
	for (i = 0; i < rule->nranges; i++)
		if (port >= rule->lo[i] && port <= rule->hi[i])
			return true;
	return false;
}

static bool chain_done(const struct fw_rules *r, const bool *done, const char *where)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (done[i] && !strcmp(r->v[i].where, where))
			return true;
	return false;
}

const struct fw_rule *fw_blocks(const struct fw_rules *r, enum fw_proto proto, unsigned int port)
{
	const struct fw_rule *hit = NULL;
	bool *done;
	size_t i;

	if (!r->n)
		return NULL;
	done = calloc(r->n, sizeof(*done));
	if (!done)
		return NULL;
	for (i = 0; i < r->n && !hit; i++) {
		const struct fw_rule *rule = &r->v[i];

		if (rule->verdict == FW_NONE || !rule_matches(rule, proto, port) ||
		    chain_done(r, done, rule->where))
			continue;
		if (rule->verdict == FW_ACCEPT)
			done[i] = !rule->conditional && !rule->iif[0];
		else
			hit = rule;
	}
	free(done);
	return hit;
}

static const char *verdict_str(enum fw_verdict v)
{
	switch (v) {
	case FW_ACCEPT:
		return "accept";
	case FW_DROP:
		return "drop";
	case FW_REJECT:
		return "reject";
	default:
		return "continue";
	}
}

char *fw_rule_str(const struct fw_rule *rule, char *buf, size_t len)
{
	const char *proto = rule->proto == FW_UDP ? "udp " : rule->proto == FW_TCP ? "tcp " : "";
	char ports[64] = "";

	if (rule->policy) {
		snprintf(buf, len, "policy drop of chain %s", rule->where);
		return buf;
	}
	if (rule->nranges == 1 && rule->lo[0] == rule->hi[0])
		snprintf(ports, sizeof(ports), "dport %u ", rule->lo[0]);
	else if (rule->nranges)
		snprintf(ports, sizeof(ports), "dport %u-%u%s ", rule->lo[0], rule->hi[0],
			 rule->nranges > 1 ? ",..." : "");
	snprintf(buf, len, "%s%s%s%s%s%s%s rule in %s (%s %ld)", rule->iif[0] ? "iifname " : "",
		 rule->iif, rule->iif[0] ? " " : "", proto, ports, verdict_str(rule->verdict),
		 rule->conditional ? " (with other conditions)" : "", rule->where,
		 strchr(rule->where, ' ') == strrchr(rule->where, ' ') ? "line" : "handle",
		 rule->handle);
	return buf;
}

/* /proc/PID/comm of every process, below the root. */
static bool process_running(const struct ctx *ctx, const char *name)
{
	char path[4096], comm[64];
	struct dirent *de;
	bool found = false;
	DIR *d;

	d = root_opendir(ctx, "/proc");
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		found = read_line(ctx, path, comm, sizeof(comm)) > 0 && !strcmp(comm, name);
	}
	closedir(d);
	return found;
}

bool firewalld_running(const struct ctx *ctx, bool *enabled)
{
	struct stat st;

	/* The link itself: its target is outside a recorded root. */
	*enabled = !root_stat(ctx, "/etc/systemd/system/multi-user.target.wants/firewalld.service",
			      true, &st);
	return process_running(ctx, "firewalld");
}
