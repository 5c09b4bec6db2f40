#!/bin/bash
# nftables works in the lab guests: a rule dropping RoCE v2 (UDP port 4791)
# and a TCP reject rule load and are listed back. Done on lab-b (or the only
# guest); the runner flushes the ruleset after the test.

# lab-seconds: 6
[[ $LAB_ROLE == b || -z $LAB_PEER ]] || exit 0

if ! { nft add table inet f &&
	nft add chain inet f input '{ type filter hook input priority 0; }' &&
	nft add rule inet f input udp dport 4791 drop &&
	nft add rule inet f input tcp dport 18515 reject; }; then
	fail "nft could not add the rules"
fi

rules=$(nft list ruleset)
echo "$rules"
grep -q 'udp dport 4791 drop' <<<"$rules" || fail "the udp dport 4791 drop rule is not listed"
grep -q 'tcp dport 18515 reject' <<<"$rules" || fail "the tcp dport 18515 reject rule is not listed"
