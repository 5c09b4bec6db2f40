#!/bin/bash
# RoCE LAG: the two ports of a ConnectX bonded (tests/fixtures/bond.sh
# rewrites a copy of doctor-healthy so), one RDMA device mlx5_bond_0 whose
# GIDs are bond0's.  The doctor passes the bond and says its mode, hashing
# and slaves; ports gives the same words; a slave down and a hash that
# leaves out UDP ports are warned, each with its fix; a bond over the
# port's netdev (a GID stacked on it) is judged by the bond's state.
. "$(dirname "$0")/lib.sh"


# bond_tree NAME ARGS...: a copy of doctor-healthy bonded by bond.sh ARGS.
bond_tree() { healthy_as "$1" bond.sh "${@:2}"; }

bond_tree lag
run --root "$TREE" -j doctor
check lag-passes rc_is 0
check lag-nothing-failed json_ok '[.checks[] | select(.status == "fail" or .status == "warn")] == []'
check lag-bond-said found ports \
	'mlx5_bond_0/1: bond bond0 802.3ad, xmit_hash_policy layer3\+4, slaves ens19f0np0 up, ens19f1np1 up'
check lag-ipv4-on-bond found roce.ipv4 'mlx5_bond_0/1 bond0 has 192.168.88.1'
check lag-mtu-of-bond found mtu 'mlx5_bond_0/1 active MTU 4096 \(max 4096\), bond0 MTU 9000'

run --root "$TREE" -j ports mlx5_bond_0
check ports-bond json_ok '.ports[0].netdev == "bond0" and .ports[0].bond ==
	"bond0 802.3ad, xmit_hash_policy layer3+4, slaves ens19f0np0 up, ens19f1np1 up"'

run --root "$TREE" -j env --for nccl -d mlx5_bond_0
check env-bond json_ok '.variables.NCCL_SOCKET_IFNAME == "=bond0" and .variables.NCCL_IB_HCA == "=mlx5_bond_0:1"'

# active-backup with its active slave's link lost: warned, the slave named, the bond still carries.
bond_tree down active-backup layer3+4 ens19f0np0
run --root "$TREE" -j doctor --only ports,roce.ipv4
check down-warns st ports warn
check down-ipv4-ok st roce.ipv4 ok
check down-said found ports \
	'bond bond0 active-backup, active ens19f1np1, slaves ens19f0np0 down, ens19f1np1 up: 1 of 2 slaves up \(no failover left\)'
check down-fix json_ok '.checks[0].fix | startswith("ip link set ens19f0np0 up")'
run --root "$TREE" -j ports mlx5_bond_0
check ports-down json_ok '.ports[0].bond | test("ens19f0np0 down")'

# 802.3ad hashing by MACs: every RoCE v2 flow to a peer on one slave.
bond_tree l2 802.3ad layer2
run --root "$TREE" -j doctor --only ports
check l2-warns st ports warn
check l2-said found ports 'xmit_hash_policy layer2, .*: layer2 hashes no UDP port'
check l2-fix json_ok '.checks[0].fix | startswith("ip link set bond0 type bond xmit_hash_policy layer3+4")'
# active-backup sends on one slave whatever the policy: nothing to warn.
bond_tree ab-l2 active-backup layer2
run --root "$TREE" -j doctor --only ports
check ab-l2-ok st ports ok

# The port's own netdev a slave, its GIDs the bond's (mlx5 LAG as netlink names it):
# the bond stacked on the port's netdev carries the traffic, and its state is judged.
bond_tree stacked 802.3ad layer3+4 ens19f1np1
ndevs=$TREE/sys/devices/pci0000:af/0000:af:00.0/infiniband/mlx5_bond_0/ports/1/gid_attrs/ndevs
printf 'ens19f0np0\n' >"$ndevs/0"
printf 'ens19f0np0\n' >"$ndevs/1"
run --root "$TREE" -j doctor --only ports,roce.gid,mtu
check stacked-port-netdev found ports 'mlx5_bond_0/1 ACTIVE LinkUp \(ens19f0np0\)'
check stacked-bond-judged found ports 'bond bond0 802.3ad, .*ens19f1np1 down: 1 of 2 slaves up'
check stacked-gid found roce.gid 'use GID index 5 \(RoCE v2, 192.168.88.1 on bond0, a bond of ens19f0np0\)'
check stacked-mtu found mtu 'bond0 \(a bond of ens19f0np0\) MTU 9000'
printf 'down\n' >"$TREE/sys/devices/virtual/net/bond0/operstate"
run --root "$TREE" -j doctor --only ports
check stacked-bond-down st ports fail
check stacked-bond-down-said found ports 'mlx5_bond_0/1 is ACTIVE but its traffic leaves by bond0, which is down'

# Soft-RoCE left on a slave: rxe0 made on eth0, then eth0 enslaved to bond0.
# The kernel moves the port's default GIDs to the bond master
# (drivers/infiniband/core/roce_gid_mgmt.c, is_ndev_for_default_gid_filter()),
# so gid_attrs/ndevs/0 says bond0; rxe0's netdev stays the one it was made
# on, its "parent": a probe must not take it for the port over bond0.
TREE=$TMPD/rxe-slave
cp -a "$FIXTURES/soft-roce" "$TREE"
printf 'bond0\n' >"$TREE/sys/devices/virtual/infiniband/rxe0/ports/1/gid_attrs/ndevs/0"
run --root "$TREE" -j ports rxe0
check rxe-slave-netdev-parent json_ok '.ports[0].netdev == "eth0"'

finish
