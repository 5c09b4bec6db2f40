#!/bin/bash
# rdmactl doctor's live firewall and peer paths between two network
# namespaces joined by a veth pair (10.78.0.1 "b", 10.78.0.2 "a"): real
# `nft -j list ruleset` output in b with rules dropping UDP 4791 and
# rejecting the probe's TCP port, each named with the handle nft gives it;
# then from a, `--peer` against b: the refused control port, and a route
# that leaves through a netdev carrying no RDMA port.  Needs root and nft.
set -u
RDMACTL=${RDMACTL:-$(cd "$(dirname "$0")/../.." && pwd)/build/rdmactl}
NSB=rdmactl-doc-b.$$ NSA=rdmactl-doc-a.$$
VB=veth-db$$ VA=veth-da$$
TMPD=$(mktemp -d)
FAILED=0

cleanup() {
	ip netns del "$NSB" 2>/dev/null
	ip netns del "$NSA" 2>/dev/null
	rm -rf "$TMPD"
}
trap cleanup EXIT

ok() { echo "PASS netns/doctor-firewall/$1"; }
ko() {
	echo "FAIL netns/doctor-firewall/$1"
	echo "    $2" >&2
	FAILED=$((FAILED + 1))
}
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else ko "$name" "failed: $* (found: $(field "$CUR" firewall found; field "$CUR" peer found))"; fi
}

if ! command -v nft >/dev/null || ! command -v jq >/dev/null; then
	echo "SKIP netns/doctor-firewall: needs nft and jq (Debian packages nftables, jq)"
	exit 0
fi
ip netns add "$NSB" && ip netns add "$NSA" &&
	ip link add "$VB" netns "$NSB" type veth peer name "$VA" netns "$NSA" &&
	ip -n "$NSB" addr add 10.78.0.1/24 dev "$VB" &&
	ip -n "$NSA" addr add 10.78.0.2/24 dev "$VA" &&
	ip -n "$NSB" link set "$VB" up && ip -n "$NSA" link set "$VA" up &&
	ip -n "$NSB" link set lo up && ip -n "$NSA" link set lo up || {
	echo "FAIL netns/doctor-firewall/setup"
	exit 1
}
if ! ip netns exec "$NSB" nft add table inet t 2>"$TMPD/nft.err"; then
	echo "SKIP netns/doctor-firewall: nftables unusable here ($(head -1 "$TMPD/nft.err"))"
	exit 0
fi

# doctor NS NAME ARGS...: rdmactl -j doctor inside NS; JSON in $TMPD/NAME.json.
doctor() {
	local ns=$1 name=$2
	shift 2
	CUR=$name
	ip netns exec "$ns" env -u NCCL_IB_HCA -u UCX_NET_DEVICES timeout 60 "$RDMACTL" -j doctor "$@" \
		>"$TMPD/$name.json" 2>"$TMPD/$name.err"
	echo $? >"$TMPD/$name.rc"
}
field() { jq -r ".checks[] | select(.id == \"$2\") | .$3 // \"\"" "$TMPD/$1.json"; }
says() { grep -qF -- "$4" <<<"$(field "$1" "$2" "$3")"; }
rc_of() { cat "$TMPD/$1.rc"; }

# ---- no rules: nothing blocks ----
doctor "$NSB" empty --only firewall
check empty-ok [ "$(field empty firewall status)" = ok ]
check empty-found says empty firewall found "no rule blocks UDP 4791, TCP 18600"

# ---- rules in b: UDP 4791 dropped, TCP 18600 rejected ----
ip netns exec "$NSB" nft add chain inet t input '{ type filter hook input priority 0; }' &&
	ip netns exec "$NSB" nft add rule inet t input udp dport 4791 drop &&
	ip netns exec "$NSB" nft add rule inet t input tcp dport 18600 reject || ko nft-rules "nft add rule failed"
ip netns exec "$NSB" nft -j list ruleset >"$TMPD/ruleset.json"
h_udp=$(jq -r '.nftables[] | select(.rule) | .rule | select(.expr[0].match.left.payload.protocol == "udp") | .handle' "$TMPD/ruleset.json")
h_tcp=$(jq -r '.nftables[] | select(.rule) | .rule | select(.expr[0].match.left.payload.protocol == "tcp") | .handle' "$TMPD/ruleset.json")
doctor "$NSB" rules --only firewall
check rules-rc [ "$(rc_of rules)" = 1 ]
check rules-fail [ "$(field rules firewall status)" = fail ]
check rules-udp says rules firewall found "udp dport 4791 drop rule in inet t input (handle $h_udp) blocks udp 4791 (RoCE v2)"
check rules-tcp says rules firewall found "tcp dport 18600 reject rule in inet t input (handle $h_tcp) blocks tcp 18600"
check rules-fix-udp says rules firewall fix "nft delete rule inet t input handle $h_udp"
check rules-fix-tcp says rules firewall fix "nft delete rule inet t input handle $h_tcp"
# --port moves the TCP port looked at.
doctor "$NSB" port --only firewall --port 18601
check port-moves bash -c '! grep -q "tcp 18601" <<<"$0" && ! grep -q "tcp dport 18600" <<<"$0"' "$(field port firewall found)"

# An accept for RoCE before the drop wins.
ip netns exec "$NSB" nft insert rule inet t input udp dport 4791 accept
doctor "$NSB" accept --only firewall
check accept-first bash -c '! grep -q "blocks udp 4791" <<<"$0"' "$(field accept firewall found)"

# ---- a drop of new connections to the ephemeral range arriving on one
# interface (the veth, which carries no RDMA port here: "may block"),
# after an accept of established ones; one fix opens the whole range.
read -r lo hi <"/proc/sys/net/ipv4/ip_local_port_range"
ip netns exec "$NSB" nft add table inet boot &&
	ip netns exec "$NSB" nft add chain inet boot in '{ type filter hook input priority 0; }' &&
	ip netns exec "$NSB" nft add rule inet boot in ct state established,related accept &&
	ip netns exec "$NSB" nft add rule inet boot in iifname "$VB" tcp dport "$lo-$hi" drop ||
	ko nft-boot "nft add rule failed"
h_boot=$(ip netns exec "$NSB" nft -j list table inet boot |
	jq -r '.nftables[] | select(.rule) | .rule | select(.expr[0].match.left.meta.key == "iifname") | .handle')
doctor "$NSB" boot --only firewall
check boot-warn says boot firewall found "iifname $VB tcp dport $lo-$hi drop rule in inet boot in (handle $h_boot) may block tcp $lo (NCCL bootstrap, ephemeral range $lo-$hi, on that interface only)"
check boot-fix-once [ "$(field boot firewall fix | grep -o 'inet boot in' | wc -l)" = 1 ]
check boot-fix says boot firewall fix "nft delete rule inet boot in handle $h_boot"
# The same drop on every interface fails, but only warns for UCX jobs
# (Open MPI over UCX connects its ranks through PMIx).
ip netns exec "$NSB" nft flush chain inet boot in &&
	ip netns exec "$NSB" nft add rule inet boot in tcp dport "$lo-$hi" drop || ko nft-boot-all "nft failed"
doctor "$NSB" boot-all --only firewall --port 18601
check boot-all-fail [ "$(field boot-all firewall status)" = fail ]
doctor "$NSB" boot-ucx --only firewall --for ucx --port 18601
check boot-ucx-warn [ "$(field boot-ucx firewall status)" = warn ]
check boot-ucx-why says boot-ucx firewall found "UCX jobs connect through PMIx"
ip netns exec "$NSB" nft delete table inet boot

# ---- from a: --peer b, whose control port rejects ----
doctor "$NSA" peer --only firewall,peer --peer 10.78.0.1
check peer-rc [ "$(rc_of peer)" = 1 ]
check peer-refused says peer firewall found "peer 10.78.0.1: TCP port 18600 does not answer"
check peer-refused-fix says peer firewall fix "on 10.78.0.1: rdmactl probe --server"
# The route leaves through the veth, which carries no RDMA port (ip says which).
dev=$(ip -n "$NSA" -j route get 10.78.0.1 | jq -r '.[0].dev')
check peer-route-dev [ "$dev" = "$VA" ]
check peer-route says peer peer found "the route to 10.78.0.1 leaves through $dev, which carries no RDMA port"
check peer-fail [ "$(field peer peer status)" = fail ]
doctor "$NSA" badhost --only peer --peer no-such-host.invalid
check peer-unresolved says badhost peer found "cannot resolve 'no-such-host.invalid'"

exit $((FAILED > 0))
