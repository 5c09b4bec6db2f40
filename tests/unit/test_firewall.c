// SPDX-License-Identifier: MIT
/* nftables JSON and iptables-save text, reduced to what they do to a port. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/firewall.h"
#include "test.h"

#define HDR "{\"nftables\": [{\"metainfo\": {\"version\": \"1.0.6\", \"json_schema_version\": 1}}, "
#define CHAIN(name, hook, policy)                                                         \
	"{\"chain\": {\"family\": \"inet\", \"table\": \"f\", \"name\": \"" name "\", "    \
	"\"handle\": 1, \"type\": \"filter\", \"hook\": \"" hook "\", \"prio\": 0, "       \
	"\"policy\": \"" policy "\"}}"
#define RULE(chain, handle, exprs)                                                        \
	"{\"rule\": {\"family\": \"inet\", \"table\": \"f\", \"chain\": \"" chain "\", "   \
	"\"handle\": " #handle ", \"expr\": [" exprs "]}}"
#define DPORT(proto, right)                                                               \
	"{\"match\": {\"op\": \"==\", \"left\": {\"payload\": {\"protocol\": \"" proto      \
	"\", \"field\": \"dport\"}}, \"right\": " right "}}"
#define SADDR "{\"match\": {\"op\": \"==\", \"left\": {\"payload\": {\"protocol\": \"ip\", " \
	"\"field\": \"saddr\"}}, \"right\": \"10.0.0.1\"}}"

/* `nft -j list ruleset` of: udp dport 4791 drop; tcp dport 18515 reject;
 * tcp dport { 1000-2000, 3000 } counter reject. */
static const char nft_rules[] = HDR CHAIN("input", "input", "accept") ", "
	RULE("input", 2, DPORT("udp", "4791") ", {\"drop\": null}") ", "
	RULE("input", 3, DPORT("tcp", "18515") ", {\"reject\": {\"type\": \"icmpx\", \"expr\": \"port-unreachable\"}}") ", "
	RULE("input", 5, DPORT("tcp", "{\"set\": [{\"range\": [1000, 2000]}, 3000]}")
	     ", {\"counter\": {\"packets\": 0, \"bytes\": 0}}, {\"reject\": {\"type\": \"tcp reset\"}}")
	"]}";

static void nft_rules_block_their_ports(void)
{
	struct fw_rules r;
	const struct fw_rule *hit;
	char buf[256];

	CHECK_INT(fw_parse_nft_json(nft_rules, &r), 0);
	CHECK_INT(r.n, 3);
	hit = fw_blocks(&r, FW_UDP, 4791);
	CHECK(hit && hit->handle == 2 && hit->verdict == FW_DROP && !hit->conditional);
	CHECK_STR(fw_rule_str(hit, buf, sizeof(buf)), "udp dport 4791 drop rule in inet f input (handle 2)");
	hit = fw_blocks(&r, FW_TCP, 18515);
	CHECK(hit && hit->handle == 3 && hit->verdict == FW_REJECT);
	CHECK(fw_blocks(&r, FW_TCP, 4791) == NULL);
	CHECK(fw_blocks(&r, FW_UDP, 18515) == NULL);
	hit = fw_blocks(&r, FW_TCP, 1500);
	CHECK(hit && hit->handle == 5);
	CHECK(fw_blocks(&r, FW_TCP, 3000) == hit);
	CHECK(fw_blocks(&r, FW_TCP, 2500) == NULL);
	fw_rules_free(&r);
}

static void nft_accept_first_wins_unless_conditional(void)
{
	static const char accept_first[] = HDR CHAIN("input", "input", "accept") ", "
		RULE("input", 2, DPORT("udp", "4791") ", {\"accept\": null}") ", "
		RULE("input", 3, DPORT("udp", "4791") ", {\"drop\": null}") "]}";
	static const char cond_accept[] = HDR CHAIN("input", "input", "accept") ", "
		RULE("input", 2, SADDR ", " DPORT("udp", "4791") ", {\"accept\": null}") ", "
		RULE("input", 3, DPORT("udp", "4791") ", {\"drop\": null}") "]}";
	struct fw_rules r;
	const struct fw_rule *hit;

	CHECK_INT(fw_parse_nft_json(accept_first, &r), 0);
	CHECK(fw_blocks(&r, FW_UDP, 4791) == NULL);
	fw_rules_free(&r);
	CHECK_INT(fw_parse_nft_json(cond_accept, &r), 0);
	hit = fw_blocks(&r, FW_UDP, 4791);
	CHECK(hit && hit->handle == 3);
	fw_rules_free(&r);
}

static void nft_policies_and_hooks(void)
{
	/* Output policy drop with an accept for RoCE; a forward chain never counts. */
	static const char rules[] = HDR CHAIN("out", "output", "drop") ", "
		CHAIN("fwd", "forward", "drop") ", "
		RULE("out", 4, DPORT("udp", "4791") ", {\"accept\": null}") ", "
		RULE("fwd", 5, DPORT("tcp", "18600") ", {\"drop\": null}") "]}";
	struct fw_rules r;
	const struct fw_rule *hit;
	char buf[256];

	CHECK_INT(fw_parse_nft_json(rules, &r), 0);
	CHECK(fw_blocks(&r, FW_UDP, 4791) == NULL);
	hit = fw_blocks(&r, FW_TCP, 18600);
	CHECK(hit && hit->policy);
	CHECK_STR(fw_rule_str(hit, buf, sizeof(buf)), "policy drop of chain inet f out");
	fw_rules_free(&r);
}

static void nft_rejects_malformed_input(void)
{
	static const char weird[] = HDR RULE("x", 1, "{\"match\": 5}, {\"drop\": null}") ", "
		"{\"rule\": 7}, {\"rule\": {\"family\": 3}}, 42, "
		RULE("y", 2, DPORT("udp", "{\"range\": [9, 1]}") ", {\"drop\": null}") ", "
		RULE("z", 3, DPORT("udp", "\"@ports\"") ", {\"drop\": null}") "]}";
	struct fw_rules r;
	const struct fw_rule *hit;

	CHECK(fw_parse_nft_json("", &r) < 0);
	CHECK(fw_parse_nft_json("{\"nftables\": 5}", &r) < 0);
	CHECK(fw_parse_nft_json("[1,2]", &r) < 0);
	CHECK(fw_parse_nft_json("{\"nftables\": [", &r) < 0);
	CHECK_INT(fw_parse_nft_json("{\"nftables\": []}", &r), 0);
	CHECK_INT(r.n, 0);
	CHECK(fw_blocks(&r, FW_UDP, 4791) == NULL);
	/* Odd shapes are kept as conditional rules, never trusted as "all clear". */
	CHECK_INT(fw_parse_nft_json(weird, &r), 0);
	hit = fw_blocks(&r, FW_UDP, 4791);
	CHECK(hit && hit->conditional);
	fw_rules_free(&r);
}

static const char ipt[] =
	"# Generated by iptables-save v1.8.9\n"
	"*nat\n:PREROUTING ACCEPT [0:0]\n-A PREROUTING -p udp --dport 4791 -j DROP\nCOMMIT\n"
	"*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n"
	"-A INPUT -p udp -m udp --dport 4791 -j ACCEPT\n"
	"-A INPUT -p tcp -m multiport --dports 5000:6000,7000 -j REJECT --reject-with tcp-reset\n"
	"-A INPUT -s 10.0.0.0/8 -p tcp -m tcp --dport 22 -j ACCEPT\n"
	"-A INPUT -p tcp -m tcp ! --dport 80 -j DROP\n"
	"-A FORWARD -p udp --dport 4791 -j DROP\n"
	"COMMIT\n";

static void iptables_save_rules_and_policy(void)
{
	struct fw_rules r;
	const struct fw_rule *hit;

	CHECK_INT(fw_parse_iptables_save(ipt, &r), 0);
	/* nat and FORWARD are not read; the accept for 4791 beats the policy. */
	CHECK(fw_blocks(&r, FW_UDP, 4791) == NULL);
	hit = fw_blocks(&r, FW_TCP, 5500);
	CHECK(hit && hit->verdict == FW_REJECT && hit->handle == 11);
	hit = fw_blocks(&r, FW_TCP, 7000);
	CHECK(hit && hit->handle == 11);
	/* "! --dport 80" matches other ports under conditions: conditional. */
	hit = fw_blocks(&r, FW_TCP, 18600);
	CHECK(hit && hit->conditional && hit->verdict == FW_DROP);
	/* The conditional accept for 22 does not end the chain. */
	hit = fw_blocks(&r, FW_TCP, 22);
	CHECK(hit != NULL);
	hit = fw_blocks(&r, FW_UDP, 53);
	CHECK(hit && hit->policy);
	fw_rules_free(&r);
	CHECK_INT(fw_parse_iptables_save("", &r), 0);
	CHECK_INT(r.n, 0);
	CHECK_INT(fw_parse_iptables_save("*filter\n-A\n-A INPUT -j\n-A INPUT --dport\n:X\n", &r), 0);
	fw_rules_free(&r);
}

/* The recorded ruleset of the doctor-broken fixture parses to its one drop rule. */
static void recorded_fixture_ruleset(void)
{
	const char *dir = getenv("FIXTURES");
	char path[4096], buf[8192];
	struct fw_rules r;
	const struct fw_rule *hit;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/doctor-broken/run/rdmactl/cmd/nft-list-ruleset.json",
		 dir ? dir : "tests/fixtures");
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	CHECK_INT(fw_parse_nft_json(buf, &r), 0);
	hit = fw_blocks(&r, FW_UDP, 4791);
	CHECK(hit && hit->handle == 7 && !strcmp(hit->where, "inet filter input"));
	fw_rules_free(&r);
}

#define IIF(op, name) "{\"match\": {\"op\": \"" op "\", \"left\": {\"meta\": {\"key\": " \
	"\"iifname\"}}, \"right\": \"" name "\"}}"

/*
 * A rule for one input interface keeps the interface apart from other
 * conditions (the doctor knows which carry RoCE); a wildcard, a negation
 * or a second interface is a condition like any other.  An accept for one
 * interface does not end the chain for the others.
 */
static void iif_rules(void)
{
	static const char rules[] = HDR CHAIN("input", "input", "accept") ", "
		RULE("input", 2, IIF("==", "eth1") ", " DPORT("udp", "4791") ", {\"accept\": null}") ", "
		RULE("input", 3, IIF("==", "eth0") ", " DPORT("tcp", "{\"range\": [32768, 60999]}")
		     ", {\"drop\": null}") ", "
		RULE("input", 4, IIF("==", "eth*") ", " DPORT("udp", "4791") ", {\"drop\": null}") ", "
		RULE("input", 5, IIF("!=", "lo") ", " DPORT("tcp", "22") ", {\"drop\": null}") "]}";
	static const char ipt_iif[] = "*filter\n:INPUT ACCEPT [0:0]\n"
		"-A INPUT -i eth0 -p tcp -m tcp --dport 32768:60999 -j DROP\n"
		"-A INPUT -i ib+ -p udp --dport 4791 -j DROP\nCOMMIT\n";
	struct fw_rules r;
	const struct fw_rule *hit;
	char buf[256];

	CHECK_INT(fw_parse_nft_json(rules, &r), 0);
	hit = fw_blocks(&r, FW_TCP, 40000);
	CHECK(hit && hit->handle == 3 && !hit->conditional && !strcmp(hit->iif, "eth0"));
	CHECK_STR(fw_rule_str(hit, buf, sizeof(buf)),
		  "iifname eth0 tcp dport 32768-60999 drop rule in inet f input (handle 3)");
	hit = fw_blocks(&r, FW_UDP, 4791);
	CHECK(hit && hit->handle == 4 && hit->conditional && !hit->iif[0]);
	hit = fw_blocks(&r, FW_TCP, 22);
	CHECK(hit && hit->handle == 5 && hit->conditional);
	fw_rules_free(&r);
	CHECK_INT(fw_parse_iptables_save(ipt_iif, &r), 0);
	hit = fw_blocks(&r, FW_TCP, 32768);
	CHECK(hit && !hit->conditional && !strcmp(hit->iif, "eth0"));
	hit = fw_blocks(&r, FW_UDP, 4791);
	CHECK(hit && hit->conditional && !hit->iif[0]);
	fw_rules_free(&r);
}

int main(void)
{
	RUN("test_firewall", nft_rules_block_their_ports);
	RUN("test_firewall", nft_accept_first_wins_unless_conditional);
	RUN("test_firewall", nft_policies_and_hooks);
	RUN("test_firewall", nft_rejects_malformed_input);
	RUN("test_firewall", iptables_save_rules_and_policy);
	RUN("test_firewall", recorded_fixture_ruleset);
	RUN("test_firewall", iif_rules);
	TEST_EXIT();
}
