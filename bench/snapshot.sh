#!/bin/bash
# rdmactl snapshot of a large node: 8 rails (mlx5 devices of one port, a
# full 256-entry GID table and 48 hw_counters each) and a firewall of
# 10 000 rules, recorded as nft -j list ruleset and iptables-save print
# them.  Prints the archive's size and the time it took, then checks that
# the copy gives the doctor's verdicts of the tree.  Target: under 5 MB
# compressed and 10 s.
#
# The ruleset is made live in a network namespace of its own when nft and
# unshare can (root), so its JSON is nft's own; else the bench says so and
# stops.
#
# Environment: RDMACTL (default build/rdmactl), RULES (default 10000).
set -eu -o pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RDMACTL=${RDMACTL:-$TOP/build/rdmactl}
RULES=${RULES:-10000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if ! command -v nft >/dev/null || ! unshare -n true 2>/dev/null; then
	echo "bench/snapshot: needs nft and root (unshare -n) to make the ruleset" >&2
	exit 77
fi

TREE=$TMP/node
"$TOP/tests/fixtures/many-gids.sh" "$TREE" 8 1 256
for d in "$TREE"/sys/class/infiniband/*; do
	mkdir -p "$d/ports/1/hw_counters"
	for c in $(seq 1 48); do echo $((c * 1000003)) >"$d/ports/1/hw_counters/counter_$c"; done
done
mkdir -p "$TREE/run/rdmactl/cmd" "$TREE/proc/sys/kernel"
echo 6.1.0-18-amd64 >"$TREE/proc/sys/kernel/osrelease"

# Rules of four kinds, as a site's firewall has them.
{
	echo 'table inet filter {'
	echo ' chain input {'
	echo '  type filter hook input priority filter; policy accept;'
	for ((i = 0; i < RULES; i++)); do
		a=$((i % 251)) b=$((i / 251 % 251)) c=$((i % 253 + 1))
		case $((i % 4)) in
		0) echo "  ip saddr 10.$a.$b.$c tcp dport $((1024 + i % 60000)) counter accept" ;;
		1) echo "  iifname \"eth$((i % 8))\" ip saddr 172.16.$a.0/24 udp dport $((5000 + i % 50000)) counter drop" ;;
		2) printf '  ip6 saddr 2001:db8:%x:%x::%x tcp dport { %d, %d } accept\n' $a $b $c $((i % 1000 + 1)) $((i % 1000 + 2000)) ;;
		3) echo "  ct state established,related counter accept comment \"rule $i\"" ;;
		esac
	done
	echo ' }'
	echo '}'
} >"$TMP/rules.nft"
unshare -n sh -c 'nft -f "$1" && nft -j list ruleset' _ "$TMP/rules.nft" \
	>"$TREE/run/rdmactl/cmd/nft-list-ruleset.json"
{
	echo '*filter'
	echo ':INPUT ACCEPT [0:0]'
	for ((i = 0; i < RULES; i++)); do
		echo "-A INPUT -s 10.$((i % 251)).$((i / 251 % 251)).0/24 -p tcp -m tcp --dport $((1024 + i % 60000)) -j ACCEPT"
	done
	echo 'COMMIT'
} >"$TREE/run/rdmactl/cmd/iptables-save"

start=$(date +%s%N)
"$RDMACTL" --root "$TREE" snapshot -o "$TMP/node.tar.gz" >/dev/null
ms=$((($(date +%s%N) - start) / 1000000))
size=$(stat -c %s "$TMP/node.tar.gz")
echo "ruleset: $RULES rules, nft -j $(stat -c %s "$TREE/run/rdmactl/cmd/nft-list-ruleset.json") bytes, iptables-save $(stat -c %s "$TREE/run/rdmactl/cmd/iptables-save") bytes"
echo "snapshot: $(tar tzf "$TMP/node.tar.gz" | wc -l) entries, $size bytes compressed, $ms ms"

mkdir "$TMP/copy" && tar xzf "$TMP/node.tar.gz" -C "$TMP/copy"
verdicts() { "$RDMACTL" -j --root "$1" doctor | jq -c '.checks[] | [.id, .status, .found]' || true; }
if [ "$(verdicts "$TREE")" = "$(verdicts "$TMP/copy")" ]; then
	echo "copy: the doctor's verdicts of the tree"
else
	echo "copy: the doctor's verdicts differ from the tree's" >&2
	exit 1
fi
[ "$size" -lt 5000000 ] && [ "$ms" -lt 10000 ]
