/* SPDX-License-Identifier: MIT */
/*
 * Packet filters that can stand between two RDMA nodes: nftables rulesets
 * (the JSON of `nft -j list ruleset`), iptables rules (`iptables-save`
 * text) and whether firewalld runs.  Only what decides the fate of a TCP or
 * UDP destination port is kept.
 */
#ifndef RDMACTL_FIREWALL_H
#define RDMACTL_FIREWALL_H

#include <stdbool.h>
#include <stddef.h>

struct ctx;

enum fw_verdict {
	FW_NONE,	/* the rule does not end the chain (counter, log, jump...) */
	FW_ACCEPT,
	FW_DROP,
	FW_REJECT,
};

enum fw_proto {
	FW_ANY,
	FW_TCP,
	FW_UDP,
};

#define FW_MAX_RANGES 16

/* One rule or chain policy, reduced to what it does to destination ports. */
struct fw_rule {
	char where[96];		/* "inet filter input" or "filter INPUT" */
	long handle;		/* nft handle, or the line number of iptables-save */
	enum fw_proto proto;	/* FW_ANY: every protocol (policies, bare rules) */
	size_t nranges;		/* 0: every port */
	unsigned int lo[FW_MAX_RANGES], hi[FW_MAX_RANGES];
	bool conditional;	/* other matches too (addresses, states, interfaces but iif) */
	char iif[16];		/* only packets arriving on this one interface ("": any) */
	bool policy;		/* the chain's policy, not a rule */
	enum fw_verdict verdict;
};

struct fw_rules {
	struct fw_rule *v;
	size_t n;
};

void fw_rules_free(struct fw_rules *r);

/* Parse the output of `nft -j list ruleset`; 0 or -EINVAL / -ENOMEM. */
int fw_parse_nft_json(const char *json, struct fw_rules *out);
/* Parse the output of `iptables-save` (filter table); 0 or -EINVAL / -ENOMEM. */
int fw_parse_iptables_save(const char *text, struct fw_rules *out);

/*
 * The first rule (in chain order, per chain) that drops or rejects
 * @proto/@port arriving or leaving; NULL when none does.  An earlier
 * unconditional accept for the port in the same chain wins.
 */
const struct fw_rule *fw_blocks(const struct fw_rules *r, enum fw_proto proto, unsigned int port);

/* "udp dport 4791 drop in inet f input (handle 3)" */
char *fw_rule_str(const struct fw_rule *rule, char *buf, size_t len);

/*
 * Whether firewalld runs: a process named "firewalld" in /proc (below the
 * root), and, in @enabled, whether systemd starts it at boot.
 */
bool firewalld_running(const struct ctx *ctx, bool *enabled);

#endif
