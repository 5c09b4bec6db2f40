#!/bin/bash
# RoCE on a VLAN: eth0's address moved to eth0.100 (802.1Q, ID 100) in both
# guests, so the rail's only IPv4 address, and rxe0's only IPv4 GIDs, are
# the VLAN's. `rdmactl ports` lists the address, the doctor passes the node, `rdmactl env --for nccl` and
# `gids --recommend` name the VLAN's RoCE v2 IPv4 entry, ib_write_bw with
# -x that index runs between the guests, and the traffic is tagged: the
# VLAN device's receive counters grow on both ends.
# lab-timeout: 240
# lab-seconds: 12

lab_need_peer

VLAN=eth0.100
ADDR=$(ip -o -4 addr show dev eth0 | awk '{print $4; exit}')
[[ -n $ADDR ]] || fail "eth0 has no IPv4 address to move"

# Put the address back on eth0 and drop the VLAN, whatever happened.
restore() {
	ip link del "$VLAN" 2>/dev/null
	ip -4 addr show dev eth0 | grep -q "inet $ADDR" || ip addr add "$ADDR" dev eth0
}
trap restore EXIT

ip link add link eth0 name "$VLAN" type vlan id 100 || fail "cannot add $VLAN (8021q)"
ip addr del "$ADDR" dev eth0
ip link set "$VLAN" up
ip addr add "$ADDR" dev "$VLAN"

PORT=/sys/class/infiniband/rxe0/ports/1
# vlan_gid: the index of the RoCE v2 entry of this address on the VLAN, from sysfs alone.
vlan_gid() { lab_v2_gid rxe0 "$LAB_IP" "$VLAN"; }
lab__await "rxe0's RoCE v2 GID of $LAB_IP on $VLAN" 30 vlan_gid >/dev/null ||
	fail "no RoCE v2 GID of $LAB_IP on $VLAN in rxe0's table"
IDX=$(vlan_gid)
echo "== the VLAN's RoCE v2 IPv4 entry: index $IDX"
grep -H . "$PORT"/gid_attrs/ndevs/* 2>/dev/null

# rdmactl ports lists the VLAN's address among the port's, live from netlink.
"$RDMACTL" ports
"$RDMACTL" -j ports >ports.json || fail "ports exited $?"
json_one ".ports[0].ipv4 == [\"$ADDR\"]" <ports.json || fail "ports does not list $ADDR: $(<ports.json)"

# The doctor's verdicts on the node's port, its address, GID and MTU.
rc=0
"$RDMACTL" doctor --only ports,roce.ipv4,roce.gid,mtu >doctor.out 2>&1 || rc=$?
cat doctor.out
check_eq "doctor passes the VLAN node" 0 "$rc"
grep -q "use GID index $IDX (RoCE v2, $LAB_IP on $VLAN, VLAN 100 on eth0)" doctor.out ||
	fail "roce.gid does not name index $IDX on $VLAN"

"$RDMACTL" -j env --for nccl -d rxe0 >env.json 2>env.err || fail "env --for nccl exited $?: $(<env.err)"
cat env.json
json_one ".variables.NCCL_IB_GID_INDEX == \"$IDX\"" <env.json ||
	fail "env --for nccl does not export NCCL_IB_GID_INDEX=$IDX"
json_one ".variables.NCCL_SOCKET_IFNAME == \"=$VLAN\"" <env.json ||
	fail "env --for nccl does not name $VLAN for NCCL's sockets"
"$RDMACTL" -j gids --recommend rxe0 >rec.json || fail "gids --recommend exited $?"
json_one ".recommend[0].index == $IDX and .recommend[0].netdev == \"$VLAN\"" <rec.json ||
	fail "gids --recommend does not name index $IDX: $(<rec.json)"

# RDMA WRITEs over the VLAN's GID, server on a, client on b.
rx() { echo $(($(<"/sys/class/net/$VLAN/statistics/rx_packets"))); }
rx0=$(rx)
lab_barrier vlan-ready 90
bw=(ib_write_bw -d rxe0 -x "$IDX" -F -s 65536 -n 200)
if [[ $LAB_ROLE == a ]]; then
	lab_timeout 90 "${bw[@]}" >server.out 2>&1 &
	server=$!
	lab_wait_listen 18515
	lab_put vlan-server-up 1
	wait "$server" || fail "ib_write_bw server exited with $?"
	cat server.out
else
	lab_get vlan-server-up >/dev/null || exit 1
	client() { lab_timeout 60 "${bw[@]}" "$LAB_PEER_IP" >client.out 2>&1; }
	lab__await "ib_write_bw client over $VLAN" 30 client || { cat client.out; fail "ib_write_bw client failed"; }
	cat client.out
	grep -Eq '^ *65536 +200 ' client.out || fail "ib_write_bw client reported no result"
fi
lab_barrier vlan-done 120
# 200 writes of 64 KiB are 12800 packets of RoCE's 1024-byte MTU to the
# server, and their acks (220 in a run) back to the client: through the
# VLAN device, so tagged on the wire, or it would not have counted them.
rx1=$(rx)
echo "== $VLAN rx_packets: $rx0 -> $rx1"
want=100
[[ $LAB_ROLE == a ]] && want=12800
((rx1 - rx0 >= want)) ||
	fail "$VLAN received $((rx1 - rx0)) packets, not $want: the RDMA traffic was not tagged"
