// SPDX-License-Identifier: MIT
/*
 * Firewall rulesets as doctor reads them: the JSON of `nft -j list
 * ruleset` (first byte even) or the text of `iptables-save` (odd).  Each
 * parsed ruleset is asked about the ports RDMA and the probe use, and
 * every rule is printed, as check_firewall does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "node/firewall.h"

static void rules_sane(const struct fw_rules *r)
{
	char buf[256];
	size_t i, j;

	for (i = 0; i < r->n; i++) {
		const struct fw_rule *rule = &r->v[i];

		if (rule->nranges > FW_MAX_RANGES)
			fuzz_fail("rule %zu has %zu port ranges", i, rule->nranges);
		if (!memchr(rule->where, 0, sizeof(rule->where)))
			fuzz_fail("rule %zu: chain name not terminated", i);
		for (j = 0; j < rule->nranges; j++)
			if (rule->lo[j] > rule->hi[j] || rule->hi[j] > 65535)
				fuzz_fail("rule %zu: port range %u-%u", i, rule->lo[j], rule->hi[j]);
		if (fw_rule_str(rule, buf, sizeof(buf)) != buf || !memchr(buf, 0, sizeof(buf)))
			fuzz_fail("rule %zu does not print", i);
		fw_rule_str(rule, buf, 8);
	}
}

static void ask(const struct fw_rules *r)
{
	static const unsigned int ports[] = { 0, 1, 4791, 18515, 18600, 32768, 65535, 70000 };
	const struct fw_rule *hit;
	size_t i;

	for (i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
		hit = fw_blocks(r, FW_UDP, ports[i]);
		if (hit && (hit < r->v || hit >= r->v + r->n))
			fuzz_fail("fw_blocks gave a rule outside the ruleset");
		if (hit && hit->verdict != FW_DROP && hit->verdict != FW_REJECT)
			fuzz_fail("fw_blocks gave a rule that does not block");
		fw_blocks(r, FW_TCP, ports[i]);
		fw_blocks(r, FW_ANY, ports[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fw_rules r;
	char *s;
	int ret;

	if (size < 1)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	memset(&r, 0xa5, sizeof(r));
	if (data[0] & 1)
		ret = fw_parse_iptables_save(s, &r);
	else
		ret = fw_parse_nft_json(s, &r);
	if (ret && ret != -EINVAL && ret != -ENOMEM)
		fuzz_fail("parse gave undocumented %d", ret);
	/* check_firewall frees only what parsed: a failure must leave nothing. */
	if (ret && (r.v || r.n))
		fuzz_fail("a failed parse (%d) left %zu rules", ret, r.n);
	if (!ret) {
		rules_sane(&r);
		ask(&r);
		fw_rules_free(&r);
	}
	free(s);
	return 0;
}
