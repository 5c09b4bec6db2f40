#!/bin/bash
# rdmactl ports on recorded trees (--root): every field, the MTU verdict,
# and the errors naming what exists.
. "$(dirname "$0")/lib.sh"

# out_lacks RE: stdout has no line matching RE.
out_lacks() { ! out_has "$1"; }

IB=$FIXTURES/ib-hca DUAL=$FIXTURES/dual-port SOFT=$FIXTURES/soft-roce

run --root "$IB" -j ports
check ib-rc rc_is 0
check ib-one-port json_ok '.ports | length == 1'
check ib-device json_ok '.ports[0].device == "mlx5_0" and .ports[0].port == 1'
check ib-state json_ok '.ports[0].state == "ACTIVE"'
check ib-phys json_ok '.ports[0].phys_state == "LinkUp"'
check ib-link-layer json_ok '.ports[0].link_layer == "InfiniBand"'
check ib-rate json_ok '.ports[0].rate_gbps == 100 and .ports[0].rate == "100 Gb/sec (4X EDR)"'
check ib-lid json_ok '.ports[0].lid == "0x11"'
check ib-sm-lid json_ok '.ports[0].sm_lid == "0x1"'
check ib-subnet-prefix json_ok '.ports[0].subnet_prefix == "fec0:0000:0000:0011"'
# sysfs has no MTU files and an IB MTU does not follow a netdev: unknown.
check ib-mtu-unknown json_ok '.ports[0].active_mtu == null and .ports[0].max_mtu == null'
check ib-no-netdev json_ok '.ports[0].netdev == null and .ports[0].netdev_mtu == null'
check ib-no-verdict json_ok '.ports[0].mtu_verdict == null and .ports[0].mtu_fix == null'

run --root "$IB" ports
check ib-text-row out_has '^mlx5_0 +1 +ACTIVE +LinkUp +InfiniBand +100 +- +- +0x11 +0x1 '

run --root "$DUAL" -j ports
check dual-two-ports json_ok '[.ports[] | "\(.device)/\(.port)"] == ["mlx5_0/1", "mlx5_1/1"]'
check dual-rate json_ok '[.ports[].rate_gbps] == [25, 25]'
check dual-ethernet-no-lid json_ok '.ports[0].lid == null and .ports[0].subnet_prefix == null'
check dual-netdevs json_ok '[.ports[].netdev] == ["ens19f0np0", "ens19f1np1"]'
check dual-netdev-mtu json_ok '[.ports[].netdev_mtu] == [9000, 1500]'
check dual-operstate json_ok '[.ports[].operstate] == ["up", "up"]'
# No netlink in a tree: IPv4 read from the GID table, as the doctor's
# roce.ipv4 reads it (each address once); IPv6 unknown (null), not none.
check dual-ipv4-from-gids json_ok '[.ports[].ipv4] == [["192.168.88.1"], ["192.168.88.2"]]'
check dual-ipv6-unknown json_ok '.ports[0].ipv6 == null'
# Derived from the netdev MTU with the kernel's iboe_get_mtu (96 header bytes).
check dual-mtu-9000 json_ok '.ports[0].active_mtu == 4096 and .ports[0].max_mtu == 4096 and .ports[0].mtu_derived'
check dual-mtu-1500 json_ok '.ports[1].active_mtu == 1024'
check dual-verdict-ok json_ok '.ports[0].mtu_verdict == "ok" and .ports[0].mtu_fix == null'
check dual-verdict-low json_ok '.ports[1].mtu_verdict == "low" and .ports[1].mtu_allowed == 1024'
check dual-needed json_ok '.ports[1].netdev_mtu_needed == 4192'
check dual-fix json_ok '.ports[1].mtu_fix == "ip link set ens19f1np1 mtu 9000"'

run --root "$DUAL" -j doctor --only roce.ipv4
check dual-ipv4-as-doctor json_ok '.checks[0].found == "mlx5_0/1 ens19f0np0 has 192.168.88.1; mlx5_1/1 ens19f1np1 has 192.168.88.2"'
run --root "$DUAL" -v ports
check dual-text-ipv4 out_has '^mlx5_0 .* 192\.168\.88\.1 .* unknown '
# GID entries that could not be read (a FIFO where each file of the
# address was): unknown, never "-" (none); the doctor says "cannot read".
UNR=$TMPD/unread-gids
cp -a "$DUAL" "$UNR"
G=$(readlink -f "$UNR/sys/class/infiniband/mlx5_1/ports/1/gids")
for f in $(grep -l '0000:0000:0000:0000:0000:ffff:' "$G"/*); do
	rm "$f"
	mkfifo "$f"
done
run --root "$UNR" -j ports
check unread-ipv4-unknown json_ok '.ports[0].ipv4 == ["192.168.88.1"] and .ports[1].ipv4 == null'
run --root "$UNR" ports
check unread-text-unknown out_has '^mlx5_1 .* ens19f1np1 .* unknown +low$'
# Read, and no IPv4 GID: none.
NONE=$TMPD/no-ipv4
cp -a "$DUAL" "$NONE"
G=$(readlink -f "$NONE/sys/class/infiniband/mlx5_1/ports/1/gids")
for f in "$G"/*; do
	grep -q '0000:0000:0000:0000:0000:ffff:' "$f" && echo '0000:0000:0000:0000:0000:0000:0000:0000' >"$f"
done
run --root "$NONE" -j ports
check none-ipv4-empty json_ok '.ports[1].ipv4 == []'
run --root "$NONE" ports
check none-text-dash out_has '^mlx5_1 .* ens19f1np1 .* up +- +low$'

run --root "$DUAL" ports
check dual-text-fix-line out_has '^mlx5_1/1: netdev ens19f1np1 MTU 1500 allows RDMA MTU 1024 \(active 1024\); 4096 needs MTU >= 4192\.$'
check dual-text-fix-command out_has '^  Fix: ip link set ens19f1np1 mtu 9000'
check dual-text-ok-no-fix out_lacks 'ens19f0np0 mtu 9000'

run --root "$DUAL" ports mlx5_1/1
check devport-rows out_has '^mlx5_1 +1 '
check devport-only out_lacks '^mlx5_0 '
run --root "$DUAL" -j ports mlx5_0:1
check devport-colon json_ok '(.ports | length) == 1 and .ports[0].device == "mlx5_0"'
run --root "$DUAL" -j ports mlx5_0
check dev-only json_ok '[.ports[].device] == ["mlx5_0"]'

# rxe keeps 80 bytes of headers: 4176 is exactly enough for 4096 (mlx5 would need 4192).
run --root "$SOFT" -j ports
check soft-rxe-rule json_ok '.ports[0].active_mtu == 4096 and .ports[0].netdev_mtu == 4176 and .ports[0].netdev_mtu_needed == 4176'
check soft-down json_ok '.ports[0].state == "DOWN" and .ports[0].phys_state == "Disabled"'
check soft-operstate json_ok '.ports[0].operstate == "down"'
check soft-rate json_ok '.ports[0].rate_gbps == 2.5'

run --root "$DUAL" ports mlx5_7
check unknown-dev-rc rc_is 2
check unknown-dev-names err_has "Unknown device 'mlx5_7'. Devices: mlx5_0, mlx5_1"
check unknown-dev-one-line err_one_line
run --root "$DUAL" ports mlx5_0/2
check unknown-port-rc rc_is 2
check unknown-port-names err_has "Unknown port 'mlx5_0/2'. Ports of mlx5_0: mlx5_0/1"
run --root "$DUAL" ports mlx5_0/x
check bad-port-rc rc_is 2
check bad-port-named err_has "Failed to parse port 'mlx5_0/x'"
run --root "$DUAL" ports /1
check empty-dev-rc rc_is 2

EMPTY=$TMPD/empty
mkdir -p "$EMPTY/sys"
run --root "$EMPTY" ports
check none-rc rc_is 1
check none-message err_has 'No RDMA devices found'

finish
