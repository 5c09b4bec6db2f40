#!/bin/bash
# Rails sharing one subnet: on lab-a and lab-b, eth1's rail-1 address is
# replaced by one in rail 0's subnet (10.99.0.10I/24 beside eth0's
# 10.99.0.I/24), as GPU nodes put their NICs in one subnet.  On Debian's
# kernel as it comes (no rule per rail; rp_filter, arp_ignore and
# arp_announce 0) traffic from eth1's address leaves by eth0, the main
# table's first connected route: a UDP flow from it to the peer's is
# counted on eth0, not eth1 (a socket's traffic, as NCCL's and UCX's
# bootstrap send it; rxe itself sends by its GID's netdev).  On one switch
# eth0 reaches the peer's eth1 too, and before the fix a guest's eth0 was
# seen holding the peer's eth1 MAC for its address: ARP answered across
# rails.  roce.route fails there, naming it; its
# printed fix, run as printed, makes it pass, and then the flow leaves by
# eth1, the peer's eth1 alone answers ARP for its address (on one switch,
# `tests/lab/lab --one-switch`, both ports hear the request), and
# ib_write_bw over rxe1's GID of the new address is counted on eth1 at both
# ends, next to nothing on eth0.  lab-c and lab-d have nothing to do.
# lab-timeout: 240
# 16 s alone (19 s with --one-switch).

lab_need_guests 2
((LAB_RAILS == 2)) || skip "needs two rails (tests/lab/lab --guests 4 --rails 2)"
if [[ $LAB_NODE != [ab] ]]; then
	lab_barrier rails-ready 120 && lab_barrier rails-fixed 120 && lab_barrier rails-done 120
	exit
fi
PEER=$([[ $LAB_NODE == a ]] && echo b || echo a)
PEER_IP=$(lab_ip "$PEER")
SHARED=10.99.0.$((100 + ${LAB_IP##*.}))
PEER_SHARED=10.99.0.$((100 + ${PEER_IP##*.}))
echo "== rails: eth0 $LAB_IP, eth1 $SHARED (was $LAB_IP1), one switch: ${LAB_ONE_SWITCH:-no}"

# Undo the address, the fix's rules and tables and its sysctls; the harness puts LAB_IP1 back.
restore() {
	local t
	while ip rule del from "$SHARED" 2>/dev/null; do :; done
	while ip rule del from "$LAB_IP" 2>/dev/null; do :; done
	for t in ${TABLES:-}; do
		ip route flush table "$t" 2>/dev/null
	done
	for t in eth0 eth1; do
		sysctl -qw "net.ipv4.conf.$t.rp_filter=0" "net.ipv4.conf.$t.arp_ignore=0" \
			"net.ipv4.conf.$t.arp_announce=0"
	done
	ip addr del "$SHARED/24" dev eth1 2>/dev/null
}
trap restore EXIT

ip addr del "$LAB_IP1/24" dev eth1 && ip addr add "$SHARED/24" dev eth1 ||
	fail "cannot put $SHARED on eth1"
# shellcheck disable=SC2086 # the dots split the address into octets
WANT=$(IFS=. && printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $SHARED)
PORT=/sys/class/infiniband/rxe1/ports/1
shared_gid() {
	local f i
	for f in "$PORT"/gids/*; do
		i=${f##*/}
		[[ $(<"$f") == "$WANT" && $(<"$PORT/gid_attrs/types/$i") == "RoCE v2" ]] 2>/dev/null || continue
		echo "$i"
		return 0
	done
	return 1
}
lab__await "rxe1's RoCE v2 GID of $SHARED" 30 shared_gid >/dev/null || fail "rxe1 has no RoCE v2 GID of $SHARED"
IDX=$(shared_gid)

tx() { echo $(($(<"/sys/class/net/$1/statistics/tx_packets"))); }
rx() { echo $(($(<"/sys/class/net/$1/statistics/rx_packets"))); }
# udp_out: 200 datagrams from eth1's address to the peer's; the packets eth0 and eth1 sent meanwhile.
udp_out() {
	local e0=$(tx eth0) e1=$(tx eth1)
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 0))
for _ in range(200):
    s.sendto(b"rail", (sys.argv[2], 9))' "$SHARED" "$PEER_SHARED" || fail "python3 could not send from $SHARED"
	echo "$(($(tx eth0) - e0)) $(($(tx eth1) - e1))"
}
lab_barrier rails-ready 120

# As Debian leaves it: the doctor fails the shared subnet, and the flow takes eth0.
rc=0
"$RDMACTL" -j doctor --only roce.route >before.json 2>before.err || rc=$?
"$RDMACTL" doctor --only roce.route || true
check_eq "doctor fails the shared subnet" 1 "$rc"
found=$(jq -r '.checks[0].found' before.json)
[[ $found == *"rxe1/1 $SHARED on eth1 shares 10.99.0.0/24 with eth0: traffic from $SHARED to "*" leaves by eth0 "* ]] ||
	fail "roce.route does not say that eth1's traffic leaves by eth0"
read -r out0 out1 < <(udp_out)
echo "== before the fix, 200 datagrams from $SHARED: eth0 sent $out0, eth1 $out1"
((out0 >= 200 && out1 < 50)) || fail "the flow from $SHARED did not leave by eth0 (eth0 $out0, eth1 $out1)"
[[ $LAB_ONE_SWITCH ]] && echo "== one switch: $PEER_SHARED is at $(ip neigh show "$PEER_SHARED" dev eth0)"

# The fix, as printed: the commands before "; to keep it:", run by the shell.
fix=$(jq -r '.checks[0].fix' before.json)
echo "== fix: $fix"
[[ $fix == *"; to keep it: printf '%s\n' "*"/etc/sysctl.d/90-rdma-rails.conf"* ]] || fail "the fix does not say how to keep it"
TABLES=$(grep -o 'table [0-9]*' <<<"$fix" | cut -d' ' -f2 | sort -u | tr '\n' ' ')
sh -ec "${fix%%; to keep it:*}" || fail "the printed fix did not run: ${fix%%; to keep it:*}"
ip neigh flush dev eth0
ip neigh flush dev eth1
lab_barrier rails-fixed 120

rc=0
"$RDMACTL" doctor --only roce.route >after.out 2>&1 || rc=$?
cat after.out
check_eq "doctor passes once the fix ran" 0 "$rc"
read -r out0 out1 < <(udp_out)
echo "== after the fix, 200 datagrams from $SHARED: eth0 sent $out0, eth1 $out1"
((out1 >= 200 && out0 < 50)) || fail "the flow from $SHARED did not leave by eth1 (eth0 $out0, eth1 $out1)"
peer_mac=$(printf '52:54:00:99:01:%02x' "${PEER_IP##*.}")
neigh=$(ip neigh show "$PEER_SHARED" dev eth1)
echo "== $PEER_SHARED on eth1: $neigh"
[[ $neigh == *"lladdr $peer_mac "* ]] || fail "$PEER_SHARED resolved to another port than the peer's eth1 ($peer_mac)"

# RDMA writes over rxe1's GID of the shared address, server on a: eth1 carries them.
r1=$(rx eth1) r0=$(rx eth0) t1=$(tx eth1)
bw=(ib_write_bw -d rxe1 -x "$IDX" -F -s 65536 -n 200)
if [[ $LAB_NODE == a ]]; then
	lab_timeout 90 "${bw[@]}" >bw.out 2>&1 &
	server=$!
	lab_wait_listen 18515
	lab_put rails-server-up 1
	wait "$server" || fail "ib_write_bw server exited with $?"
else
	lab_get rails-server-up >/dev/null || exit 1
	client() { lab_timeout 60 "${bw[@]}" "$PEER_IP" >bw.out 2>&1; }
	lab__await "ib_write_bw client over rxe1" 30 client || { cat bw.out; fail "ib_write_bw client failed"; }
	grep -Eq '^ *65536 +200 ' bw.out || fail "ib_write_bw client reported no result"
fi
cat bw.out
lab_barrier rails-done 120
echo "== eth1 rx $(($(rx eth1) - r1)), tx $(($(tx eth1) - t1)); eth0 rx $(($(rx eth0) - r0))"
# 200 writes of 64 KiB are 12800 packets of 1024 bytes from b to a, and a's acks back.
if [[ $LAB_NODE == a ]]; then
	(($(rx eth1) - r1 >= 12800)) || fail "eth1 received $(($(rx eth1) - r1)) packets, not the 12800 writes"
else
	(($(tx eth1) - t1 >= 12800)) || fail "eth1 sent $(($(tx eth1) - t1)) packets, not the 12800 writes"
fi
(($(rx eth0) - r0 < 2000)) || fail "eth0 received $(($(rx eth0) - r0)) packets: RDMA of rail 1 landed on rail 0"
