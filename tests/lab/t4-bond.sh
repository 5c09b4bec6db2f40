#!/bin/bash
# rxe over a bond of the two rails: on lab-a and lab-b, eth0 and eth1
# enslaved to bond0 (balance-xor hashing layer3+4, miimon 100), the rail-0
# address on bond0, rxe0 and rxe1 replaced by rxeb over bond0.  The doctor
# passes the node and says the bond (mode, hashing, both slaves up);
# ib_write_bw between the two runs for 6 s over bond0's RoCE v2 GID, and
# while it runs rail 0 fails (eth0 taken down on both, as a switch that
# died): the bonds carry on over eth1 and the transfer completes, its late
# packets counted on eth1; the doctor then warns of the slave down.
# Not active-backup: there the failover (NETDEV_BONDING_FAILOVER) makes the
# kernel delete and re-add the bond's GIDs
# (drivers/infiniband/core/roce_gid_mgmt.c), and Debian 12's rxe failed the running QP ("qp#17
# Failed allocating skb", ib_write_bw's "Failed status 2") in a run of this
# test; a hashing bond keeps its GIDs when a slave goes.
# First, rxe0 left on eth0 beside rxeb: the kernel gives rxe0 bond0's
# addresses too (a hashing bond's slaves all get them), but a packet
# arriving on bond0 goes to the rxe over bond0; `rdmactl probe` without
# -d must take rxeb at both ends, whose netdev the route leaves by, and
# complete (100 writes).  rxe0 is then deleted.
# lab-c and lab-d have nothing to do.
# lab-timeout: 240

lab_need_guests 2
((LAB_RAILS == 2)) || skip "needs two rails (tests/lab/lab --guests 4 --rails 2)"
if [[ $LAB_NODE != [ab] ]]; then
	# Met at every barrier, so lab-a and lab-b's waits are not cut short by their leaving.
	lab_barrier bond-probed 150 && lab_barrier bond-ready 120 && lab_barrier bond-flowing 60 &&
		lab_barrier bond-done 120
	exit
fi
PEER=$(lab_ip "$([[ $LAB_NODE == a ]] && echo b || echo a)")

# Take the bond apart whatever happened; the harness puts eth0, eth1, rxe0 and rxe1 back.
restore() {
	rdma link delete rxeb 2>/dev/null
	ip link del bond0 2>/dev/null
}
trap restore EXIT

rdma link delete rxe1 || fail "cannot delete rxe1"
{
	echo "addr flush dev eth0"
	echo "addr flush dev eth1"
	echo "link add bond0 type bond mode balance-xor xmit_hash_policy layer3+4 miimon 100"
	echo "link set eth0 down"
	echo "link set eth1 down"
	echo "link set eth0 master bond0"
	echo "link set eth1 master bond0"
	echo "link set bond0 up"
	echo "addr add $LAB_IP/24 dev bond0"
} | ip -batch - 2>&1 || fail "cannot make bond0 of eth0 and eth1 (bonding)"
rdma link add rxeb type rxe netdev bond0 || fail "cannot add rxeb over bond0"

PORT=/sys/class/infiniband/rxeb/ports/1
# bond_gid: rxeb ACTIVE, and the index of its RoCE v2 entry of this address.
bond_gid() {
	local state
	read -r state <"$PORT/state" 2>/dev/null && [[ $state == *ACTIVE* ]] || return 1
	lab_v2_gid rxeb "$LAB_IP"
}
# both_up: bond0 has its two slaves up.
both_up() {
	[[ $(</sys/class/net/eth0/bonding_slave/mii_status) == up &&
		$(</sys/class/net/eth1/bonding_slave/mii_status) == up ]] 2>/dev/null
}
lab__await "rxeb ACTIVE with the RoCE v2 GID of $LAB_IP" 30 bond_gid >/dev/null || fail "rxeb has no RoCE v2 GID of $LAB_IP"
lab__await "bond0's two slaves up" 30 both_up || fail "bond0's slaves are not both up"
IDX=$(bond_gid)
echo "== bond0 up, rxeb's RoCE v2 IPv4 entry: index $IDX"

# The probe with rxe0 still on eth0, a slave: rxeb chosen at both ends.
echo "== rxe0 on eth0 has bond0's RoCE v2 entry: index $(lab_v2_gid rxe0 "$LAB_IP" bond0 || echo none)"
lab_ack_timeout
if [[ $LAB_NODE == a ]]; then
	"$RDMACTL" probe --server >probe-server.out 2>probe-server.err &
	probe_pid=$!
	lab_wait_listen 18600
	lab_put bond-probe-server 1
else
	lab_get bond-probe-server 60 >/dev/null
	rc=0
	lab_timeout 30 "$RDMACTL" -v -j probe "$PEER" -s 64K -n 100 >probe.json 2>probe.err || rc=$?
	cat probe.err
	check_eq "probe over bond0 without -d exits 0" 0 "$rc"
	check_eq "probe's local device" rxeb "$(jq -r .probe.local.device probe.json)"
	check_eq "probe's remote device" rxeb "$(jq -r .probe.remote.device probe.json)"
	grep -q 'using rxeb/1 (peer .*: the route leaves by its netdev bond0)' probe.err ||
		fail "the probe does not say it took rxeb for the route by bond0"
fi
lab_barrier bond-probed 60
if [[ $LAB_NODE == a ]]; then
	kill "$probe_pid" 2>/dev/null
	wait "$probe_pid" 2>/dev/null
	cat probe-server.err
fi
rdma link delete rxe0 || fail "cannot delete rxe0"

rc=0
"$RDMACTL" doctor --only ports,roce.ipv4,roce.gid,mtu >doctor.out 2>&1 || rc=$?
cat doctor.out
check_eq "doctor passes the bonded node" 0 "$rc"
grep -q 'rxeb/1: bond bond0 balance-xor, xmit_hash_policy layer3+4, slaves eth0 up, eth1 up' doctor.out ||
	fail "the ports check does not say bond0's mode, hashing and slaves"
grep -q 'rxeb/1 bond0 has '"$LAB_IP" doctor.out || fail "roce.ipv4 does not find $LAB_IP on bond0"

# ib_write_bw for 6 s at the guests' pace, -u 18: a QP timeout of 4.096 us
# * 2^18, about 1 s, times 7 retries, rides out the moment one bond has
# failed over and the other not yet.  At half pace a flat 6 s was mostly
# spent by the time both guests had passed the barrier below and failed
# over: eth1 then saw 45 packets of the run's last writes.
rx() { echo $(($(<"/sys/class/net/eth1/statistics/rx_packets"))); }
qp_up() { rdma resource show qp 2>/dev/null | grep -q 'link rxeb/1 .*type RC'; }
lab_barrier bond-ready 120
lab_budget_slowest bw_s 6
bw=(ib_write_bw -d rxeb -x "$IDX" -F -s 65536 -D "$bw_s" -u 18)
if [[ $LAB_NODE == a ]]; then
	lab_timeout 90 "${bw[@]}" >bw.out 2>&1 &
	lab_wait_listen 18515
	lab_put bond-server-up 1
else
	lab_get bond-server-up >/dev/null || exit 1
	lab_timeout 90 "${bw[@]}" "$PEER" >bw.out 2>&1 &
fi
bw_pid=$!
lab__await "ib_write_bw's RC QP on rxeb" 30 qp_up || fail "no RC QP of ib_write_bw on rxeb"
lab_barrier bond-flowing 60
rx0=$(rx)
echo "== rail 0 fails: eth0 down, eth1 rx_packets $rx0"
ip link set eth0 down
wait "$bw_pid" || fail "ib_write_bw exited with $? across the failover"
cat bw.out
[[ $LAB_NODE == b ]] && ! grep -Eq '^ *65536 +[0-9]+ ' bw.out && fail "ib_write_bw client reported no result"
rx1=$(rx)
echo "== eth1 rx_packets: $rx0 -> $rx1"
# Both ends' acks or writes came in on rail 1 after the failover.
((rx1 - rx0 >= 100)) || fail "eth1 received $((rx1 - rx0)) packets after the failover: the traffic did not move to it"

rc=0
"$RDMACTL" doctor --only ports >doctor-down.out 2>&1 || rc=$?
cat doctor-down.out
check_eq "doctor exits 0 on a warning" 0 "$rc"
grep -q '^warn *ports' doctor-down.out || fail "the ports check does not warn of the slave down"
grep -q 'bond bond0 balance-xor, xmit_hash_policy layer3+4, slaves eth0 down, eth1 up: 1 of 2 slaves up (no failover left, and part of its bandwidth)' doctor-down.out ||
	fail "the ports check does not say eth0 down"
grep -q 'fix: ip link set eth0 up' doctor-down.out || fail "no fix bringing eth0 up"
lab_barrier bond-done 120
