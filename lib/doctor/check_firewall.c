// SPDX-License-Identifier: MIT
/*
 * Doctor check of packet filters: RoCE v2 is UDP port 4791; the probe's
 * control connection and NCCL's bootstrap and proxies are TCP, NCCL on
 * ports from the ephemeral range.  With --peer, real traffic decides
 * (check_peer.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/run.h"
#include "base/sysfs.h"
#include "doctor/check.h"
#include "doctor/checks.h"
#include "node/firewall.h"
#include "probe/probe_proto.h"

#define ROCE_V2_PORT 4791

struct fw_source {
	const char *name;	/* "nftables", "iptables" */
	bool nft;
	struct fw_rules rules;
};

/* The exact command that opens @proto ports @lo-@hi past @rule. */
static void fw_fix(struct check_result *r, const struct fw_source *src, const struct fw_rule *rule,
		   const char *proto, unsigned int lo, unsigned int hi)
{
	const char *chain = strrchr(rule->where, ' ');
	char ports[16];

	chain = chain ? chain + 1 : rule->where;
	if (src->nft && !rule->policy && !rule->conditional) {
		check_fix(r, "nft delete rule %s handle %ld", rule->where, rule->handle);
		return;
	}
	snprintf(ports, sizeof(ports), lo == hi ? "%u" : src->nft ? "%u-%u" : "%u:%u", lo, hi);
	if (src->nft)
		check_fix(r, "nft insert rule %s %s dport %s accept", rule->where, proto, ports);
	else
		check_fix(r, "iptables -I %s -p %s --dport %s -j ACCEPT", chain, proto, ports);
}

/*
 * Note the rule that blocks @proto/@port, if one does; it is returned for
 * the fix.  A rule for one interface blocks for sure on a RoCE port's
 * netdev, where RDMA and its bootstrap arrive, and may elsewhere.  @warn_only: the job may not need the port (a
 * warning at most).
 */
static const struct fw_rule *check_port(const struct node_facts *d, struct check_result *r,
					const struct fw_source *src, enum fw_proto proto,
					unsigned int port, const char *what, bool warn_only)
{
	const char *pname = proto == FW_UDP ? "udp" : "tcp";
	const struct fw_rule *rule = fw_blocks(&src->rules, proto, port);
	bool sure;
	char buf[256];

	if (!rule)
		return NULL;
	/* A port's netdev, or one stacked on it that carries its traffic (a VLAN, a macvlan). */
	sure = !rule->conditional && (!rule->iif[0] ||
				      rdma_port_by_route(&d->node, rule->iif, NULL, NULL, NULL, 0));
	check_note(r, sure && !warn_only ? CHECK_FAIL : CHECK_WARN, "%s: %s %s %s %u (%s%s%s)", src->name,
		   fw_rule_str(rule, buf, sizeof(buf)), sure ? "blocks" : "may block", pname, port, what,
		   rule->iif[0] && sure ? ", arriving on a RoCE netdev" : "",
		   rule->iif[0] && !sure ? ", on that interface only" : "");
	return rule;
}

/* "32768	60999" from /proc/sys/net/ipv4/ip_local_port_range. */
static void ephemeral_range(const struct node_facts *d, unsigned int *lo, unsigned int *hi)
{
	char buf[64];

	*lo = 32768;
	*hi = 60999;
	if (read_line(d->ctx, "/proc/sys/net/ipv4/ip_local_port_range", buf, sizeof(buf)) > 0 &&
	    sscanf(buf, "%u %u", lo, hi) == 2 && *lo <= *hi && *hi <= 65535)
		return;
	*lo = 32768;
	*hi = 60999;
}

static void check_source(struct node_facts *d, struct check_result *r, const struct fw_source *src)
{
	const struct fw_rule *rule;
	unsigned int lo, hi, ports[3], i;
	char what[192];

	ephemeral_range(d, &lo, &hi);
	if ((rule = check_port(d, r, src, FW_UDP, ROCE_V2_PORT, "RoCE v2", false)))
		fw_fix(r, src, rule, "udp", ROCE_V2_PORT, ROCE_V2_PORT);
	if ((rule = check_port(d, r, src, FW_TCP, d->peer_port, "the probe's control port", false)))
		fw_fix(r, src, rule, "tcp", d->peer_port, d->peer_port);
	/*
	 * The range's ends and middle, each rule's fix for the whole range
	 * (check_fix() gives it once).  NCCL's bootstrap listens there on
	 * every rank.  Open MPI over UCX connects its ranks through PMIx
	 * instead: in the lab its collective ran under srun and mpirun on a
	 * node that dropped new connections to the range, so for --for ucx it
	 * is a warning (the node that runs mpirun or srun itself still needs
	 * the range).
	 */
	snprintf(what, sizeof(what), "NCCL bootstrap, ephemeral range %u-%u%s", lo, hi,
		 DOCTOR_FOR_UCX(d) ? "; UCX jobs connect through PMIx, but mpirun's and "
		 "srun's own node listens there" : "");
	ports[0] = lo;
	ports[1] = lo + (hi - lo) / 2;
	ports[2] = hi;
	for (i = 0; i < 3; i++)
		if ((!i || ports[i] != ports[i - 1]) &&
		    (rule = check_port(d, r, src, FW_TCP, ports[i], what, DOCTOR_FOR_UCX(d))))
			fw_fix(r, src, rule, "tcp", lo, hi);
}

enum load { LOADED, ABSENT, UNRECORDED };

/* Load one ruleset: LOADED, or ABSENT (the tool is not installed, or a note says why not). */
static enum load load_source(struct node_facts *d, struct check_result *r, struct fw_source *src,
			     enum node_cmd cmd)
{
	char *text = NULL;
	int ret;

	memset(&src->rules, 0, sizeof(src->rules));
	ret = run_node_cmd(d->ctx, cmd, &text);
	if (ret == -ENOENT)
		return ABSENT;
	if (ret == -ENODATA)
		return UNRECORDED;
	if (ret) {
		check_note(r, CHECK_WARN, "could not list the %s rules (%s): run as root to check them",
			   src->name, strerror(-ret));
		check_fix(r, "sudo rdmactl doctor --only firewall");
		return ABSENT;
	}
	ret = src->nft ? fw_parse_nft_json(text, &src->rules)
		       : fw_parse_iptables_save(text, &src->rules);
	free(text);
	if (ret) {
		check_note(r, CHECK_WARN, "could not parse the %s rules: %s", src->name, strerror(-ret));
		return ABSENT;
	}
	return LOADED;
}

static void check_firewalld(struct node_facts *d, struct check_result *r)
{
	bool enabled;

	if (!firewalld_running(d->ctx, &enabled)) {
		if (enabled)
			check_note(r, CHECK_WARN, "firewalld is stopped but enabled: it comes back at boot");
		if (enabled)
			check_fix(r, "systemctl disable firewalld, or open the ports for good: "
				  "firewall-cmd --permanent --add-port=4791/udp --add-port=%u/tcp",
				  d->peer_port);
		return;
	}
	check_note(r, CHECK_WARN, "firewalld is running%s: its zone rejects ports it was not told "
		   "about", enabled ? " (and starts at boot)" : "");
	check_fix(r, "firewall-cmd --permanent --add-port=4791/udp --add-port=%u/tcp "
		  "--add-port=32768-60999/tcp && firewall-cmd --reload (or: systemctl disable --now "
		  "firewalld)", d->peer_port);
}

void check_firewall(struct node_facts *d, struct check_result *r)
{
	struct fw_source nft = { "nftables", true }, ipt = { "iptables", false };
	enum load have_nft, have_ipt;

	check_firewalld(d, r);
	have_nft = load_source(d, r, &nft, NODE_CMD_NFT);
	have_ipt = load_source(d, r, &ipt, NODE_CMD_IPTABLES);
	if (have_nft == LOADED)
		check_source(d, r, &nft);
	if (have_ipt == LOADED)
		check_source(d, r, &ipt);
	/* A ruleset nobody recorded is unknown: never "nothing blocks". */
	if (r->status == CHECK_OK && have_nft == UNRECORDED && have_ipt == UNRECORDED) {
		check_skip(r, "not recorded in this snapshot: the output of nft -j list ruleset and "
			   "iptables-save (" RECORDED_CMD_DIR ")");
		fw_rules_free(&nft.rules);
		fw_rules_free(&ipt.rules);
		return;
	}
	if (r->status == CHECK_OK && have_nft != LOADED && have_ipt != LOADED)
		check_note(r, CHECK_OK, "neither nft nor iptables-save is installed");
	else if (r->status == CHECK_OK)
		check_note(r, CHECK_OK, "no rule blocks UDP 4791, TCP %u or the ephemeral ports (%s%s%s)",
			   d->peer_port, have_nft == LOADED ? "nftables" : "",
			   have_nft == LOADED && have_ipt == LOADED ? ", " : "",
			   have_ipt == LOADED ? "iptables" : "");
	if (have_nft == UNRECORDED || have_ipt == UNRECORDED)
		check_note(r, CHECK_OK, "%s: not recorded in this snapshot",
			   have_nft == UNRECORDED ? "nft -j list ruleset" : "iptables-save");
	fw_rules_free(&nft.rules);
	fw_rules_free(&ipt.rules);
	doctor_peer_firewall(d, r);
}
