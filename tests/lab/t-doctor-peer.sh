#!/bin/bash
# rdmactl doctor --peer between the two guests: lab-b runs the probe server,
# lab-a checks the pair three times.  A healthy pair (MTU 9000 on both ends)
# exits 0; then lab-b's MTU drops to 1500 (the MTUs no longer agree); then
# lab-b's nftables drops UDP 4791 with TCP still open ("TCP reaches the peer
# but RoCE does not").  Each verdict is checked against what the guests
# themselves say: ibv_devinfo on both ends, `ip route get`, the nft counter
# of the drop rule on lab-b, a plain TCP connect to the server's port.
#
# memlock.login and memlock.systemd are skipped: the guests run on the
# host's own /etc, so their verdict is the host's (see t-doctor-local.sh).
# lab-timeout: 300
# lab-seconds: 36

lab_need_peer
IF=eth0
PORT=18600
SKIP=memlock.login,memlock.systemd
unset NCCL_IB_HCA NCCL_SOCKET_IFNAME NCCL_IB_GID_INDEX UCX_NET_DEVICES UCX_IB_GID_INDEX

restore() {
	nft flush ruleset 2>/dev/null
	ip link set "$IF" mtu 1500
}
trap restore EXIT

active_mtu() { ibv_devinfo -d rxe0 -i 1 | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'; }

# set_mtu N EXPECTED: set the netdev MTU and wait until rxe0/1 reports EXPECTED.
set_mtu() {
	ip link set "$IF" mtu "$1"
	for _ in $(seq 100); do
		[[ $(active_mtu) == "$2" ]] && return 0
		sleep 0.2
	done
	fail "rxe0/1 did not reach active MTU $2 at netdev MTU $1"
}

doctor() {
	local name=$1
	shift
	lab_timeout 120 "$RDMACTL" -j doctor --peer "$LAB_PEER_IP" "$@" >"$name.json" 2>"$name.err"
	echo $? >"$name.rc"
	echo "== $name: rc $(<"$name.rc")"
	jq -r '.checks[] | "\(.status)\t\(.id)\t\(.found)\t\(.fix)"' "$name.json"
	cat "$name.err"
}
field() { jq -r ".checks[] | select(.id == \"$2\") | .$3 // \"\"" "$1.json"; }
has() {
	local v
	v=$(field "$1" "$2" found)
	[[ $v == *"$3"* ]] || fail "$1: $2 does not say '$3': $v"
}

set_mtu 9000 4096
lab_put "mtu-$LAB_ROLE" "$(active_mtu)"

if [[ $LAB_ROLE == b ]]; then
	"$RDMACTL" probe --server --port $PORT >server.out 2>server.err &
	server=$!
	lab_wait_listen $PORT
	lab_put server-up 1
	lab_get a-healthy 200 >/dev/null

	set_mtu 1500 1024
	lab_put mtu-b-low "$(active_mtu)"
	lab_get a-mismatch 200 >/dev/null

	nft add table inet t && nft add chain inet t input '{ type filter hook input priority 0; }' &&
		nft add rule inet t input udp dport 4791 counter drop || fail "nft could not add the rule"
	lab_put nft-up 1
	lab_get a-nft 200 >/dev/null
	dropped=$(nft -j list ruleset | jq -r '.nftables[] | select(.rule) | .rule.expr[] | select(.counter) | .counter.packets')
	echo "RoCE v2 packets dropped here: $dropped"
	[[ $dropped -gt 0 ]] || fail "the drop rule saw no RoCE v2 packet: the doctor's probe never sent one"
	kill "$server"
	wait "$server" 2>/dev/null
	echo "== server"
	cat server.out server.err
	lab_barrier done
	exit 0
fi

# ---- lab-a: the doctor ----
lab_get server-up 60 >/dev/null
# The doctor's probe waits for ACKs as long as the guests' pace needs: at
# half pace a healthy pair's writes were sent again 4 times in about 300
# packets, ACKs late, and its peer line warned of losses.
lab_ack_timeout
peer_mtu=$(lab_get mtu-b)
route_if=$(ip -j route get "$LAB_PEER_IP" | jq -r '.[0].dev')
src=$(ip -j route get "$LAB_PEER_IP" | jq -r '.[0].prefsrc')
plen=$(ip -j -4 addr show dev "$route_if" | jq -r ".[0].addr_info[] | select(.local == \"$src\") | .prefixlen")
software=$("$RDMACTL" version)

doctor healthy --skip $SKIP
check_eq "healthy pair: exit status" 0 "$(<healthy.rc)"
check_eq "healthy pair: nothing failed" 0 "$(jq -r .summary.failed healthy.json)"
check_eq "healthy pair: peer" ok "$(field healthy peer status)"
has healthy peer "route to $LAB_PEER_IP via $route_if (rxe0/1)"
has healthy peer "same subnet ($src/$plen)"
has healthy peer "control connection to $LAB_PEER_IP ($software)"
has healthy peer "RDMA probe"
check_eq "healthy pair: mtu" ok "$(field healthy mtu status)"
check_eq "healthy pair: both ends 4096 (ibv_devinfo)" "4096 4096" "$(active_mtu) $peer_mtu"
has healthy mtu "peer $LAB_PEER_IP: active MTU $(active_mtu) on both ends"
has healthy firewall "peer $LAB_PEER_IP: TCP and RoCE traffic both pass"
lab_put a-healthy 1

low=$(lab_get mtu-b-low)
doctor mismatch --only mtu,peer
check_eq "MTU mismatch: exit status" 1 "$(<mismatch.rc)"
check_eq "MTU mismatch: mtu" fail "$(field mismatch mtu status)"
has mismatch mtu "peer $LAB_PEER_IP: active MTU $(active_mtu) here, $low there"
lab_put a-mismatch 1

lab_get nft-up 60 >/dev/null
# TCP to the server's port still passes: the control connection is not the problem.
lab_timeout 5 bash -c "exec 3<>/dev/tcp/$LAB_PEER_IP/$PORT" || fail "TCP $PORT on the peer does not answer"
doctor nft --only firewall,peer
check_eq "RoCE blocked: exit status" 1 "$(<nft.rc)"
check_eq "RoCE blocked: firewall" fail "$(field nft firewall status)"
has nft firewall "peer $LAB_PEER_IP: TCP reaches the peer but RoCE does not"
check_eq "RoCE blocked: peer" fail "$(field nft peer status)"
has nft peer "the RDMA probe failed"
lab_put a-nft 1
lab_barrier done
exit 0
