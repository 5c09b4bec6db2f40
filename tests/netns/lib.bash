# Shared by the network-namespace tests: two namespaces joined by a veth
# pair, the PASS/FAIL helpers, and a clean-up that stops the test's server
# and removes the namespaces even when the test fails.
# shellcheck shell=bash
. "${BASH_SOURCE[0]%/*}/../tools/json-one.sh"
. "${BASH_SOURCE[0]%/*}/../tools/waits.sh"

# netns_pair NAME PREFIX: namespaces rdmactl-NAME-s.PID (PREFIX.1) and
# rdmactl-NAME-c.PID (PREFIX.2), e.g. netns_pair probe 10.77.0.
netns_pair() {
	SUITE=$1
	NS1=rdmactl-$1-s.$$ NS2=rdmactl-$1-c.$$
	TMPD=$(mktemp -d)
	FAILED=0
	SERVER=
	trap netns_cleanup EXIT
	ip netns add "$NS1" && ip netns add "$NS2" &&
		ip link add "v$$s" netns "$NS1" type veth peer name "v$$c" netns "$NS2" &&
		ip -n "$NS1" addr add "${2}1/24" dev "v$$s" &&
		ip -n "$NS2" addr add "${2}2/24" dev "v$$c" &&
		ip -n "$NS1" link set "v$$s" up && ip -n "$NS2" link set "v$$c" up &&
		ip -n "$NS1" link set lo up && ip -n "$NS2" link set lo up || {
		echo "FAIL netns/$SUITE/setup"
		exit 1
	}
}

netns_cleanup() {
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
	ip netns del "$NS1" 2>/dev/null
	ip netns del "$NS2" 2>/dev/null
	rm -rf "$TMPD"
}

ok() { echo "PASS netns/$SUITE/$1"; }
# ko NAME WHY: a failing check, with the last client's exit status and
# output when the suite keeps them (RC, OUT, ERR), indented as make check
# shows a failure's detail.
ko() {
	echo "FAIL netns/$SUITE/$1"
	{
		echo "    $2"
		[ -z "${RC+set}" ] || echo "    rc=$RC"
		[ -z "${OUT-}" ] || sed 's/^/    out: /' <<<"$OUT" | head -20
		[ -z "${ERR-}" ] || sed 's/^/    err: /' <<<"$ERR" | head -20
	} >&2
	FAILED=$((FAILED + 1))
}
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else ko "$name" "failed: $*"; fi
}
