#!/bin/bash
# A RoCE port whose address is on a macvlan stacked on its netdev
# (tests/fixtures/macvlan.sh rewrites a copy of doctor-healthy so): the GID
# table's IPv4 entries name the macvlan mv0, whose uevent says no DEVTYPE,
# the port's own netdev has none.  The doctor passes it and judges mv0's
# MTU and link; gids and env give mv0's RoCE v2 IPv4 entry (7) and env's
# sockets mv0; ports names mv0 as the netdev the traffic leaves by and
# judges the MTU verdict on it, as the doctor's mtu check does.
. "$(dirname "$0")/lib.sh"

found() { jq -r ".checks[] | select(.id == \"$1\") | .found" <<<"$OUT" | grep -qE -- "$2"; }
st() { json_ok ".checks[] | select(.id == \"$1\") | .status == \"$2\""; }
MV=sys/devices/virtual/net/mv0

# mv_tree NAME [MTU]: a copy of doctor-healthy rewritten by macvlan.sh.
mv_tree() {
	TREE=$TMPD/$1
	cp -a "$FIXTURES/doctor-healthy" "$TREE"
	bash "$FIXTURES/macvlan.sh" "$TREE" "${2:-9000}"
}

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

finish
