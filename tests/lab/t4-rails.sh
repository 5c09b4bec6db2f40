#!/bin/bash
# Rails sharing one subnet: on lab-a and lab-b, eth1's rail-1 address is
# replaced by one in rail 0's subnet (10.99.0.10I/24 beside eth0's
# 10.99.0.I/24), as GPU nodes put their NICs in one subnet.  Two rounds:
# on two switches, then with the rails joined into one L2 domain
# (`lab_link rails join`: one switch, as such rails often are).  In each,
# on Debian's kernel as it comes (no rule per rail; rp_filter, arp_ignore
# and arp_announce 0) traffic from eth1's address leaves by eth0, the main
# table's first connected route: a UDP flow from it to the peer's is
# counted on eth0, not eth1 (a socket's traffic, as NCCL's and UCX's
# bootstrap send it; rxe itself sends by its GID's netdev), and the peer's
# eth0 answers ARP for the peer's eth1 address; on one switch the request
# from eth0 reaches the peer's eth1 too, and it answers as well: ARP
# answered across rails.  roce.route fails there, naming it; its printed
# fix, run as printed, makes it pass, and then the flow leaves by eth1,
# the peer's eth1 alone answers ARP for its address (on one switch both
# of its ports hear the request), and ib_write_bw over rxe1's GID of the
# new address is counted on eth1 at both ends, next to nothing on eth0.
# Between the rounds the fix is undone.  lab-c and lab-d have nothing to
# do.
# lab-timeout: 240
# 20 and 24 s alone in a four-guest lab on 3 leaves (pace 268 and 404%):
# 8 to 10 s the two-switch round, 10 to 13 s the one-switch round; 16 s
# before it had the one-switch round.

ROUNDS=(two one)
lab_need_guests 2
((LAB_RAILS == 2)) || skip "needs two rails (tests/lab/lab --guests 4 --rails 2)"
if [[ $LAB_NODE != [ab] ]]; then
	for round in "${ROUNDS[@]}"; do
		lab_barrier "rails-$round-ready" 120 && lab_barrier "rails-$round-seen" 120 &&
			lab_barrier "rails-$round-fixed" 120 && lab_barrier "rails-$round-done" 120
	done
	exit
fi
PEER=$([[ $LAB_NODE == a ]] && echo b || echo a)
PEER_IP=$(lab_ip "$PEER")
SHARED=10.99.0.$((100 + ${LAB_IP##*.}))
PEER_SHARED=10.99.0.$((100 + ${PEER_IP##*.}))
PEER_MAC0=$(printf '52:54:00:99:00:%02x' "${PEER_IP##*.}")
PEER_MAC1=$(printf '52:54:00:99:01:%02x' "${PEER_IP##*.}")
echo "== rails: eth0 $LAB_IP, eth1 $SHARED (was $LAB_IP1)"

# unfix: undo the fix's rules, tables and sysctls.
unfix() {
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
}
# Undo the fix and the address; the harness puts LAB_IP1 back and parts the rails.
restore() {
	unfix
	ip addr del "$SHARED/24" dev eth1 2>/dev/null
}
trap restore EXIT

if ! { ip addr del "$LAB_IP1/24" dev eth1 && ip addr add "$SHARED/24" dev eth1; }; then
	fail "cannot put $SHARED on eth1"
fi
shared_gid() { lab_v2_gid rxe1 "$SHARED"; }
lab__await "rxe1's RoCE v2 GID of $SHARED" 30 shared_gid >/dev/null || fail "rxe1 has no RoCE v2 GID of $SHARED"
IDX=$(shared_gid)

tx() { echo $(($(<"/sys/class/net/$1/statistics/tx_packets"))); }
rx() { echo $(($(<"/sys/class/net/$1/statistics/rx_packets"))); }
# udp_out: 200 datagrams from eth1's address to the peer's; the packets eth0 and eth1 sent meanwhile.
udp_out() {
	local e0 e1
	e0=$(tx eth0) e1=$(tx eth1)
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 0))
for _ in range(200):
    s.sendto(b"rail", (sys.argv[2], 9))' "$SHARED" "$PEER_SHARED" || fail "python3 could not send from $SHARED"
	echo "$(($(tx eth0) - e0)) $(($(tx eth1) - e1))"
}

# arp_who DEV GRACE MAC...: the MACs that answer an ARP request for the
# peer's shared address sent on DEV from ours (as the kernel asks for the
# flow from $SHARED), sorted, on one line. It asks once a second until
# every MAC named answered (10 s at this pace at most), then listens GRACE
# seconds more (at this pace) for others: a port that should not answer
# answers the same broadcast at once, beside the one that should.
arp_who() {
	local dev=$1 grace budget
	lab_budget grace "$2"
	lab_budget budget 10
	shift 2
	python3 -c 'import select, socket, struct, sys, time
dev, src, dst, grace, budget = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
want = set(sys.argv[6:])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0806))
s.bind((dev, 0))
mac = s.getsockname()[4]
ask = (b"\xff" * 6 + mac + b"\x08\x06" + struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + mac +
       socket.inet_aton(src) + bytes(6) + socket.inet_aton(dst)).ljust(60, b"\0")
seen, end, again = set(), time.monotonic() + budget, 0
while True:
    now = time.monotonic()
    if want <= seen:
        end, want = min(end, now + grace), set()
    if now >= end:
        break
    if want and now >= again:
        s.send(ask)
        again = now + 1
    if select.select([s], [], [], min(end, again) - now if want else end - now)[0]:
        f = s.recv(128)
        if f[12:14] == b"\x08\x06" and f[20:22] == b"\x00\x02" and f[28:32] == socket.inet_aton(dst):
            seen.add(":".join("%02x" % b for b in f[22:28]))
print(" ".join(sorted(seen)))' "$dev" "$SHARED" "$PEER_SHARED" "$grace" "$budget" "$@" ||
		fail "python3 could not ask ARP on $dev"
}

# rails_round ROUND: the shared subnet as Debian leaves it, the doctor's
# verdict and fix, and the traffic after it, on two switches (ROUND two)
# or one (one); the fix undone at the end.
rails_round() {
	local round=$1 rc found fix out0 out1 neigh who r0 r1 t1 server bw start=$SECONDS
	local where="two switches"
	[[ $round == one ]] && where="one switch"
	echo "== round $round: $(lab_link rails show)"
	ip neigh flush dev eth0
	ip neigh flush dev eth1
	lab_barrier "rails-$round-ready" 120

	# As Debian leaves it: the doctor fails the shared subnet, the flow
	# takes eth0, and the peer's eth0 answers for its eth1's address.
	rc=0
	"$RDMACTL" -j doctor --only roce.route >"before-$round.json" 2>"before-$round.err" || rc=$?
	"$RDMACTL" doctor --only roce.route || true
	check_eq "$where: doctor fails the shared subnet" 1 "$rc"
	found=$(jq -r '.checks[0].found' "before-$round.json")
	[[ $found == *"rxe1/1 $SHARED on eth1 shares 10.99.0.0/24 with eth0: traffic from $SHARED to "*" leaves by eth0 "* ]] ||
		fail "$where: roce.route does not say that eth1's traffic leaves by eth0"
	read -r out0 out1 < <(udp_out)
	echo "== before the fix, 200 datagrams from $SHARED: eth0 sent $out0, eth1 $out1"
	((out0 >= 200 && out1 < 50)) || fail "$where: the flow from $SHARED did not leave by eth0 (eth0 $out0, eth1 $out1)"
	if [[ $round == one ]]; then
		who=$(arp_who eth0 0 "$PEER_MAC0" "$PEER_MAC1")
		echo "== one switch, before the fix: $PEER_SHARED asked on eth0, answered by $who (peer's eth0 $PEER_MAC0, eth1 $PEER_MAC1)"
		[[ $who == "$PEER_MAC0 $PEER_MAC1" ]] ||
			fail "one switch: the peer's eth0 and eth1 did not both answer ARP for $PEER_SHARED (answered by '$who'): not across rails"
	else
		who=$(arp_who eth0 0 "$PEER_MAC0")
		echo "== two switches, before the fix: $PEER_SHARED asked on eth0, answered by $who (peer's eth0 $PEER_MAC0)"
		[[ $who == "$PEER_MAC0" ]] || fail "two switches: the peer's eth0 did not answer ARP for $PEER_SHARED (answered by '$who')"
	fi
	lab_barrier "rails-$round-seen" 120

	# The fix, as printed: the commands before "; to keep it:", run by the shell.
	fix=$(jq -r '.checks[0].fix' "before-$round.json")
	echo "== fix: $fix"
	[[ $fix == *"; to keep it: printf '%s\n' "*"/etc/sysctl.d/90-rdma-rails.conf"* ]] || fail "the fix does not say how to keep it"
	TABLES=$(grep -o 'table [0-9]*' <<<"$fix" | cut -d' ' -f2 | sort -u | tr '\n' ' ')
	sh -ec "${fix%%; to keep it:*}" || fail "the printed fix did not run: ${fix%%; to keep it:*}"
	ip neigh flush dev eth0
	ip neigh flush dev eth1
	lab_barrier "rails-$round-fixed" 120

	rc=0
	"$RDMACTL" doctor --only roce.route >"after-$round.out" 2>&1 || rc=$?
	cat "after-$round.out"
	check_eq "$where: doctor passes once the fix ran" 0 "$rc"
	read -r out0 out1 < <(udp_out)
	echo "== after the fix, 200 datagrams from $SHARED: eth0 sent $out0, eth1 $out1"
	((out1 >= 200 && out0 < 50)) || fail "$where: the flow from $SHARED did not leave by eth1 (eth0 $out0, eth1 $out1)"
	neigh=$(ip neigh show "$PEER_SHARED" dev eth1)
	echo "== $PEER_SHARED on eth1: $neigh"
	[[ $neigh == *"lladdr $PEER_MAC1 "* ]] || fail "$where: $PEER_SHARED resolved to another port than the peer's eth1 ($PEER_MAC1)"
	# On two switches the peer's eth0 cannot hear it: no time to listen for it.
	who=$(arp_who eth1 "$([[ $round == one ]] && echo 1 || echo 0)" "$PEER_MAC1")
	echo "== after the fix: $PEER_SHARED asked on eth1, answered by $who"
	[[ $who == "$PEER_MAC1" ]] || fail "$where: ARP for $PEER_SHARED answered by '$who', not the peer's eth1 alone ($PEER_MAC1)"

	# RDMA writes over rxe1's GID of the shared address, server on a: eth1 carries them.
	r1=$(rx eth1) r0=$(rx eth0) t1=$(tx eth1)
	bw=(ib_write_bw -d rxe1 -x "$IDX" -F -s 65536 -n 200)
	if [[ $LAB_NODE == a ]]; then
		lab_timeout 90 "${bw[@]}" >"bw-$round.out" 2>&1 &
		server=$!
		lab_wait_listen 18515
		lab_put "rails-$round-server-up" 1
		wait "$server" || fail "$where: ib_write_bw server exited with $?"
	else
		lab_get "rails-$round-server-up" >/dev/null || exit 1
		client() { lab_timeout 60 "${bw[@]}" "$PEER_IP" >"bw-$round.out" 2>&1; }
		lab__await "ib_write_bw client over rxe1" 30 client || { cat "bw-$round.out"; fail "$where: ib_write_bw client failed"; }
		grep -Eq '^ *65536 +200 ' "bw-$round.out" || fail "$where: ib_write_bw client reported no result"
	fi
	cat "bw-$round.out"
	lab_barrier "rails-$round-done" 120
	echo "== eth1 rx $(($(rx eth1) - r1)), tx $(($(tx eth1) - t1)); eth0 rx $(($(rx eth0) - r0))"
	# 200 writes of 64 KiB are 12800 packets of 1024 bytes from b to a, and a's acks back.
	if [[ $LAB_NODE == a ]]; then
		(($(rx eth1) - r1 >= 12800)) || fail "$where: eth1 received $(($(rx eth1) - r1)) packets, not the 12800 writes"
	else
		(($(tx eth1) - t1 >= 12800)) || fail "$where: eth1 sent $(($(tx eth1) - t1)) packets, not the 12800 writes"
	fi
	(($(rx eth0) - r0 < 2000)) || fail "$where: eth0 received $(($(rx eth0) - r0)) packets: RDMA of rail 1 landed on rail 0"
	unfix
	echo "== round $round took $((SECONDS - start)) s"
}

rails_round two
# One L2 domain: lab-a joins the rails (every guest's eth0 hears its
# eth1's broadcasts) before it comes to the round's first barrier.
if [[ $LAB_NODE == a ]]; then
	lab_link rails join || fail "lab_link rails join failed"
fi
rails_round one
