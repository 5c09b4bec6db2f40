#!/bin/bash
# A RoCE port whose address is on a VLAN stacked on its netdev
# (tests/fixtures/vlan.sh rewrites a copy of doctor-healthy so): the GID
# table's IPv4 entries name the VLAN, the port's own netdev has none.  The
# doctor passes it and names the VLAN, judges the VLAN's MTU, gids and env
# give the VLAN's RoCE v2 IPv4 entry (7) and env's sockets the VLAN, and
# the TaskProlog starts the task.
. "$(dirname "$0")/lib.sh"


healthy_as vlan vlan.sh

run --root "$TREE" -j doctor
check doctor-passes rc_is 0
check doctor-nothing-failed json_ok '[.checks[] | select(.status == "fail" or .status == "warn")] == []'
check gid-ok st roce.gid ok
check gid-names-vlan found roce.gid \
	'mlx5_0/1: use GID index 7 \(RoCE v2, 192.168.88.1 on ens19f0np0.100, VLAN 100 on ens19f0np0\)'
check ipv4-names-vlan found roce.ipv4 'mlx5_0/1 ens19f0np0.100 \(VLAN 100 on ens19f0np0\) has 192.168.88.1'
check mtu-of-vlan found mtu 'mlx5_0/1 active MTU 4096 \(max 4096\), ens19f0np0.100 \(VLAN 100 on ens19f0np0\) MTU 9000'

run --root "$TREE" -j gids --recommend
check recommend-vlan-entry json_ok '[.recommend[] | select(.dev == "mlx5_0")] |
	length == 1 and .[0].index == 7 and .[0].netdev == "ens19f0np0.100" and .[0].ver == "v2"'

run --root "$TREE" -j env --for nccl -d mlx5_0
check env-runs rc_is 0
check env-index-and-vlan json_ok '.variables == {"NCCL_IB_HCA": "=mlx5_0:1",
	"NCCL_IB_GID_INDEX": "7", "NCCL_SOCKET_IFNAME": "=ens19f0np0.100"}'

# contrib/slurm's TaskProlog, as slurmstepd runs it: the task starts with the VLAN's index.
RC=0
OUT=$(env -i RDMACTL_BIN="$RDMACTL" RDMACTL_ROOT="$TREE" RDMACTL_ENV_FOR=nccl \
	RDMACTL_ENV_DEVICES=mlx5_0/1 /bin/sh "$TOP/contrib/slurm/rdmactl-taskprolog" 2>"$TMPD/err") || RC=$?
ERR=$(cat "$TMPD/err")
check taskprolog-starts rc_is 0
check taskprolog-exports-index grep -qx 'export NCCL_IB_GID_INDEX=7' <<<"$OUT"

# A VLAN MTU below its lower's: RoCE frames on it must fit 1500, whatever the port says.
healthy_as vlan-1500 vlan.sh 1500
run --root "$TREE" -j doctor --only mtu
check mtu-1500-warns st mtu warn
check mtu-1500-names-vlan found mtu \
	'mlx5_0/1: ens19f0np0.100 \(VLAN 100 on ens19f0np0\) MTU 1500 limits the RDMA MTU to 1024'
check mtu-1500-fix-vlan json_ok '.checks[0].fix | test("^ip link set ens19f0np0.100 mtu 9000")'
# ports judges its MTU verdict on the VLAN too, and names it.
run --root "$TREE" -j ports mlx5_0
check ports-1500-carrier json_ok '.ports[0].netdev == "ens19f0np0" and .ports[0].carrier == "ens19f0np0.100"'
check ports-1500-low json_ok '.ports[0].mtu_verdict == "low" and .ports[0].mtu_fix == "ip link set ens19f0np0.100 mtu 9000"'

finish
