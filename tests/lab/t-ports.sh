#!/bin/bash
# rdmactl ports on the guest's Soft-RoCE port, field by field against
# ibv_devinfo -v, `rdma -j link`, sysfs and `ip -j addr`, in the states the
# field notes met: netdev MTU 1500 and 9000, no IPv4, port down, a second
# IPv4 address.  Every change is undone at the end.
# lab-guests: 1
# lab-timeout: 480
# lab-seconds: 31

sys=/sys/class/infiniband/rxe0
[[ -d $sys ]] || skip "no rxe0 in this guest"
IF=$(<$sys/parent)
MTU0=$(</sys/class/net/"$IF"/mtu)
ADDRS0=$(ip -j -4 addr show dev "$IF" | jq -r '.[0].addr_info[] | "\(.local)/\(.prefixlen)"')
EXTRA=10.99.1.${LAB_IP##*.}/24

restore() {
	ip link set "$IF" up
	ip link set "$IF" mtu "$MTU0"
	ip addr del "$EXTRA" dev "$IF" 2>/dev/null
	for a in $ADDRS0; do
		ip -4 addr show dev "$IF" | grep -q " $a " || ip addr add "$a" dev "$IF"
	done
	wait_port ACTIVE 1024 || true
}
trap restore EXIT

# port_info: ibv_devinfo -v of rxe0 port 1.
port_info() { ibv_devinfo -d rxe0 -i 1 -v; }
# devinfo FIELD: first word of FIELD's value in port_info ("active_mtu: 1024 (3)").
devinfo() { printf '%s\n' "${D[$1]-}"; }

# wait_port STATE [MTU]: until ibv_devinfo reports the port STATE (and active MTU).
wait_port() {
	local i info
	for i in $(seq 100); do
		info=$(port_info)
		if grep -q "state:.*PORT_$1" <<<"$info" &&
			{ [[ -z ${2-} ]] || grep -Eq "active_mtu:[[:space:]]+$2 " <<<"$info"; }; then
			return 0
		fi
		sleep 0.2
	done
	fail "port never reached $1${2:+ with MTU $2}"
	return 1
}

# snapshot NAME: run rdmactl -j ports and read what the guest says, at one
# moment, each tool's output parsed once: a fork per field costs seconds
# in all on the guests' emulated CPUs.
#   J[KEY]  .ports[0].KEY of rdmactl (as jq -r prints a scalar, jq -c an array)
#   D[FIELD] ibv_devinfo's first word of FIELD; L[KEY] .[0].KEY of rdma -j link
#   IPJ and A[inet], A[inet6]: ip -j addr of the netdev and its addresses
declare -A J=() D=() L=() A=()
snapshot() {
	local k v
	OUT=$("$RDMACTL" -j ports rxe0/1) || fail "$1: rdmactl -j ports exited $?"
	echo "$1: $OUT"
	INFO=$(port_info)
	LINK=$(rdma -j link show rxe0/1)
	IPJ=$(ip -j addr show dev "$IF")
	J=() D=() L=() A=()
	eval "$(jq -r '"J[nports]=\(.ports | length)",
		(.ports[0] // {} | to_entries[] |
			"J[\(.key | @sh)]=\(.value | if type == "string" then . else tojson end | @sh)")' <<<"$OUT")"
	while read -r k v _; do
		[[ $k == *: && -z ${D[${k%:}]+set} ]] && D[${k%:}]=$v
	done <<<"$INFO"
	eval "$(jq -r '.[0] | to_entries[] | "L[\(.key | @sh)]=\(.value | tostring | @sh)"' <<<"$LINK")"
	eval "$(jq -r '.[0] | "A[mtu]=\(.mtu)", (["inet", "inet6"][] as $f |
		"A[\($f)]=\([.addr_info[] | select(.family == $f) | "\(.local)/\(.prefixlen)"] | tojson | @sh)")' <<<"$IPJ")"
}
j() { printf '%s\n' "${J[$1]-null}"; }
norm() { local v=${1//_/}; printf '%s\n' "${v,,}"; }
addrs() { printf '%s\n' "${A[$1]}"; }

# check_port NAME: every field against the guest's own tools.
check_port() {
	local n=$1
	check_eq "$n: one port" 1 "${J[nports]}"
	check_eq "$n: state (ibv_devinfo)" "$(devinfo state | sed 's/^PORT_//')" "$(j state)"
	check_eq "$n: state (rdma link)" "${L[state]-null}" "$(j state)"
	check_eq "$n: phys_state (rdma link)" "$(norm "${L[physical_state]-null}")" "$(norm "$(j phys_state)")"
	check_eq "$n: link_layer (ibv_devinfo)" "$(devinfo link_layer)" "$(j link_layer)"
	check_eq "$n: active_mtu (ibv_devinfo)" "$(devinfo active_mtu)" "$(j active_mtu)"
	check_eq "$n: max_mtu (ibv_devinfo)" "$(devinfo max_mtu)" "$(j max_mtu)"
	check_eq "$n: rate (sysfs)" "$(<$sys/ports/1/rate)" "$(j rate)"
	check_eq "$n: rate_gbps (ibv_devinfo speed x width)" \
		"$(awk -v s="$(devinfo active_speed)" -v w="$(devinfo active_width)" 'BEGIN { print s * w }')" "$(j rate_gbps)"
	check_eq "$n: lid on Ethernet (ibv_devinfo port_lid $(devinfo port_lid))" null "$(j lid)"
	check_eq "$n: netdev (rdma link)" "${L[netdev]-null}" "$(j netdev)"
	check_eq "$n: netdev_mtu (ip)" "${A[mtu]}" "$(j netdev_mtu)"
	check_eq "$n: operstate (sysfs)" "$(</sys/class/net/"$IF"/operstate)" "$(j operstate)"
	check_eq "$n: ipv4 (ip addr)" "$(addrs inet)" "$(j ipv4)"
	check_eq "$n: ipv6 (ip addr)" "$(addrs inet6)" "$(j ipv6)"
}

# check_verdict NAME: the verdict follows from the netdev MTU by rdma_rxe's rule.
check_verdict() {
	local mtu allowed=256 m
	mtu=${A[mtu]}
	for m in 512 1024 2048 4096; do ((mtu - 80 >= m)) && allowed=$m; done
	check_eq "$1: mtu_allowed" "$allowed" "$(j mtu_allowed)"
	check_eq "$1: mtu_allowed = active_mtu" "$(devinfo active_mtu)" "$(j mtu_allowed)"
	if ((allowed < 4096)); then
		check_eq "$1: verdict" low "$(j mtu_verdict)"
		check_eq "$1: fix" "ip link set $IF mtu 9000" "$(j mtu_fix)"
	else
		check_eq "$1: verdict" ok "$(j mtu_verdict)"
		check_eq "$1: no fix" null "$(j mtu_fix)"
	fi
}

# 1. The default: netdev MTU 1500, active MTU 1024.
ip link set "$IF" mtu 1500
wait_port ACTIVE 1024
snapshot mtu1500
check_port mtu1500
check_verdict mtu1500
check_eq "mtu1500: active_mtu" 1024 "$(j active_mtu)"
text=$("$RDMACTL" ports) || fail "rdmactl ports exited $?"
echo "$text"
row=$(grep '^rxe0 ' <<<"$text" | tr -s ' ')
check_eq "mtu1500: text row" "rxe0 1 ACTIVE LinkUp Ethernet $(j rate_gbps) 1024 4096 - - $IF 1500 up $(addrs inet | jq -r 'join(",")') low" "$row"
grep -qx "rxe0/1: netdev $IF MTU 1500 allows RDMA MTU 1024 (active 1024); 4096 needs MTU >= 4176." <<<"$text" ||
	fail "mtu1500: no verdict line under the table"
grep -q "^  Fix: ip link set $IF mtu 9000" <<<"$text" || fail "mtu1500: no fix line"

# 2. Netdev MTU 9000: the port follows to 4096.
ip link set "$IF" mtu 9000
wait_port ACTIVE 4096
snapshot mtu9000
check_port mtu9000
check_verdict mtu9000
check_eq "mtu9000: active_mtu" 4096 "$(j active_mtu)"
ip link set "$IF" mtu 1500
wait_port ACTIVE 1024

# 3. No IPv4 on the netdev: only the link-local IPv6 address is left.
ip -4 addr flush dev "$IF"
snapshot noipv4
check_port noipv4
check_eq "noipv4: ipv4 empty" "[]" "$(j ipv4)"
[[ $(jq -r '.ports[0].ipv6[0]' <<<"$OUT") == fe80:* ]] || fail "noipv4: the link-local IPv6 address is missing"
for a in $ADDRS0; do ip addr add "$a" dev "$IF"; done

# 4. A second IPv4 address.
ip addr add "$EXTRA" dev "$IF"
snapshot twoipv4
check_port twoipv4
check_eq "twoipv4: two addresses" 2 "$(jq '.ports[0].ipv4 | length' <<<"$OUT")"
json_one --arg a "$EXTRA" '.ports[0].ipv4 | index($a)' <<<"$OUT" || fail "twoipv4: $EXTRA missing"
ip addr del "$EXTRA" dev "$IF"

# 5. Port down: the netdev down takes the RDMA port down with it.
ip link set "$IF" down
wait_port DOWN
snapshot down
check_port down
check_eq "down: state" DOWN "$(j state)"
check_eq "down: operstate" down "$(j operstate)"
ip link set "$IF" up
wait_port ACTIVE
snapshot up-again
check_eq "up-again: state" ACTIVE "$(j state)"

# Unknown port: names the ones that exist.
rc=0
err=$("$RDMACTL" ports rxe0/2 2>&1 >/dev/null) || rc=$?
check_eq "unknown port: exit" 2 "$rc"
check_eq "unknown port: message" "rdmactl ports: Unknown port 'rxe0/2'. Ports of rxe0: rxe0/1" "$err"
