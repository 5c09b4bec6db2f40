#!/bin/bash
# A RoCE port whose address is on a macvlan stacked on its netdev
# (tests/fixtures/macvlan.sh rewrites a copy of doctor-healthy so): the GID
# table's IPv4 entries name the macvlan mv0, whose uevent says no DEVTYPE,
# the port's own netdev has none.  The doctor passes it and judges mv0's
# MTU and link; gids and env give mv0's RoCE v2 IPv4 entry (7) and env's
# sockets mv0; ports names mv0 as the netdev the traffic leaves by and
# judges the MTU verdict on it, as the doctor's mtu check does.  roce.qos
# on a NIC trusting PCP: a macvlan on the port's netdev sends untagged
# (priority 0), one on a VLAN with the VLAN's tag (tests/fixtures/qos.sh's
# macvlan cases).
. "$(dirname "$0")/lib.sh"
unset NCCL_IB_TC NCCL_IB_FIFO_TC NCCL_IB_SL NCCL_IB_HCA UCX_IB_TRAFFIC_CLASS UCX_IB_SL UCX_TLS UCX_NET_DEVICES

MV=sys/devices/virtual/net/mv0

# mv_tree NAME [MTU]: a copy of doctor-healthy rewritten by macvlan.sh.
mv_tree() { healthy_as "$1" macvlan.sh "${2:-9000}"; }

mv_tree mv
run --root "$TREE" -j doctor
check doctor-passes rc_is 0
check doctor-nothing-failed json_ok '[.checks[] | select(.status == "fail" or .status == "warn")] == []'
check ipv4-names-macvlan found roce.ipv4 'mlx5_0/1 mv0 \(stacked on ens19f0np0\) has 192.168.88.1'
check gid-names-macvlan found roce.gid \
	'mlx5_0/1: use GID index 7 \(RoCE v2, 192.168.88.1 on mv0, stacked on ens19f0np0\)'
check mtu-of-macvlan found mtu 'mlx5_0/1 active MTU 4096 \(max 4096\), mv0 \(stacked on ens19f0np0\) MTU 9000'
check route-on-macvlan found roce.route 'mlx5_0/1 192.168.88.1 on mv0: 192.168.88.0/24 is its own'

run --root "$TREE" -j gids --recommend
check recommend-macvlan-entry json_ok '[.recommend[] | select(.dev == "mlx5_0")] |
	length == 1 and .[0].index == 7 and .[0].netdev == "mv0" and .[0].ver == "v2"'

run --root "$TREE" -j env --for nccl -d mlx5_0
check env-runs rc_is 0
check env-index-and-macvlan json_ok '.variables == {"NCCL_IB_HCA": "=mlx5_0:1",
	"NCCL_IB_GID_INDEX": "7", "NCCL_SOCKET_IFNAME": "=mv0"}'

# ports: the port's own netdev, and mv0 as the one its traffic leaves by.
run --root "$TREE" -j ports mlx5_0
check ports-netdev-and-carrier json_ok '.ports[0].netdev == "ens19f0np0" and .ports[0].carrier == "mv0"'
check ports-ok json_ok '.ports[0].mtu_verdict == "ok" and .ports[0].mtu_fix == null'
run --root "$TREE" -j ports mlx5_1
check ports-own-netdev-no-carrier json_ok '.ports[0].netdev == "ens19f1np1" and .ports[0].carrier == null'

# A macvlan MTU below its lower's: RoCE frames on it must fit 1500 (rdma_cm
# takes the path MTU from it), whatever the port's netdev allows.
mv_tree mv-1500 1500
run --root "$TREE" -j doctor --only mtu
check mtu-1500-warns st mtu warn
check mtu-1500-names-macvlan found mtu 'mlx5_0/1: mv0 \(stacked on ens19f0np0\) MTU 1500 limits the RDMA MTU to 1024'
run --root "$TREE" -j ports mlx5_0
check ports-1500-low json_ok '.ports[0].mtu_verdict == "low" and .ports[0].mtu_allowed == 1024'
check ports-1500-fix json_ok '.ports[0].mtu_fix == "ip link set mv0 mtu 9000"'
run --root "$TREE" ports mlx5_0
check ports-1500-text-fix grep -qx '  Fix: ip link set mv0 mtu 9000 (to keep it: nmcli con mod CONN 802-3-ethernet.mtu 9000)' <<<"$OUT"
check ports-1500-text-says grep -q '^mlx5_0/1: netdev mv0 MTU 1500 allows RDMA MTU 1024' <<<"$OUT"

# The macvlan taken down (ip link set mv0 down): the port stays ACTIVE, its traffic cannot leave.
mv_tree mv-down
printf 'down\n' >"$TREE/$MV/operstate"
printf '0x1002\n' >"$TREE/$MV/flags"
run --root "$TREE" -j doctor --only ports
check down-fails st ports fail
check down-said found ports 'mlx5_0/1 is ACTIVE but its traffic leaves by mv0, which is down'
check down-fix json_ok '.checks[0].fix == "ip link set mv0 up"'

# roce.qos, trust PCP: mlx5 tags a GID's frames only when its netdev is a
# VLAN or sits on one (rdma_read_gid_l2_fields()); a macvlan on the port's
# netdev sends untagged, priority 0 whatever the service level.
healthy_as qos-mv qos.sh macvlan-pcp
RC=0
OUT=$(NCCL_IB_SL=3 "$RDMACTL" --root "$TREE" -j doctor --only roce.qos --for nccl) || RC=$?
check qos-untagged qos_found 'mlx5_0/1 ens19f0np0: DSCP 0 on priority 0 \\(trust PCP, untagged\\), no PFC, no ECN: lossy'
check qos-untagged-fix-trust-dscp qos_fix '^export NCCL_IB_TC=106; dcb app add dev ens19f0np0 dscp-prio 26:3'
# A macvlan on a VLAN: tagged with the VLAN's ID, the QP's service level its PCP
# for verbs; rdma_cm maps a TOS only through its GID's own netdev, no VLAN: PCP 0.
healthy_as qos-mv-vlan qos.sh macvlan-vlan-pcp
RC=0
OUT=$(NCCL_IB_SL=3 "$RDMACTL" --root "$TREE" -j doctor --only roce.qos --for nccl) || RC=$?
check qos-vlan-under-sl3 qos_found "mlx5_0/1 ens19f0np0: DSCP 0 on priority 3 \\\\(trust PCP, ens19f0np0.100's PCP is the service level 3\\\\), lossless by PFC"
mkdir -p "$TREE/sys/kernel/config/rdma_cm/mlx5_0/ports/1"
echo 106 >"$TREE/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"
run --root "$TREE" -j doctor --only roce.qos --for perftest
check qos-vlan-under-cm-pcp0 qos_found "perftest -R: rdma_cm's default_roce_tos 106: DSCP 26; mlx5_0/1 ens19f0np0: DSCP 26 on priority 0 \\\\(trust PCP, ens19f0np0.100's tag with rdma_cm's PCP 0"
check qos-vlan-under-cm-no-egress-fix qos_fix 'dcb app add dev ens19f0np0 dscp-prio 26:3'

finish
