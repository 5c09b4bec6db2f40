#!/bin/bash
# rdmactl devices on the guest's Soft-RoCE device, field by field against
# what the guest itself says: sysfs, `rdma -j dev`, `rdma -j link` and
# ibv_devinfo.

# lab-guests: 1
# lab-seconds: 10
sys=/sys/class/infiniband/rxe0
[[ -d $sys ]] || skip "no rxe0 in this guest"

out=$("$RDMACTL" -j devices) || fail "rdmactl -j devices exited $?"
echo "$out"
json_one . <<<"$out" || fail "rdmactl -j devices: not one JSON document"
j() { jq -r "$1" <<<"$out"; }

dev=$(rdma -j dev show rxe0)
link=$(rdma -j link show rxe0/1)
info=$(ibv_devinfo -d rxe0)
# devinfo FIELD: the value ibv_devinfo prints for FIELD ("fw_ver:  0.0.0").
devinfo() { awk -v f="$1" '$1 == f":" { print $2; exit }' <<<"$info"; }

check_eq "device count (sysfs)" "$(find /sys/class/infiniband -mindepth 1 -maxdepth 1 | wc -l)" "$(j '.devices | length')"
check_eq "name" rxe0 "$(j '.devices[0].name')"
check_eq "node_guid (sysfs)" "$(<$sys/node_guid)" "$(j '.devices[0].node_guid')"
check_eq "node_guid (rdma dev)" "$(jq -r '.[0].node_guid' <<<"$dev")" "$(j '.devices[0].node_guid')"
check_eq "node_guid (ibv_devinfo)" "$(devinfo node_guid)" "$(j '.devices[0].node_guid')"
check_eq "sys_image_guid (rdma dev)" "$(jq -r '.[0].sys_image_guid' <<<"$dev")" "$(j '.devices[0].sys_image_guid')"
check_eq "node_type (rdma dev)" "$(jq -r '.[0].node_type | ascii_upcase' <<<"$dev")" "$(j '.devices[0].node_type')"
# rxe has no firmware: sysfs and netlink give an empty string, ibv_devinfo
# prints the zero word as 0.0.0; rdmactl says null for both.
fw=$(<$sys/fw_ver)
check_eq "fw_ver (ibv_devinfo)" 0.0.0 "$(devinfo fw_ver)"
check_eq "fw_ver (sysfs: empty)" "${fw:-null}" "$(j '.devices[0].fw_ver')"
check_eq "ports (ibv_devinfo)" "$(devinfo phys_port_cnt)" "$(j '.devices[0].ports')"
check_eq "ports (sysfs)" "$(ls $sys/ports | wc -l)" "$(j '.devices[0].ports')"
check_eq "netdev of port 1 (rdma link)" "$(jq -r '.[0].netdev' <<<"$link")" "$(j '.devices[0].netdevs[0]')"
check_eq "netdev of port 1 (sysfs parent)" "$(<$sys/parent)" "$(j '.devices[0].netdevs[0]')"
# A Soft-RoCE device: the rdma_rxe module, no PCI parent, no NUMA node.
[[ -d /sys/module/rdma_rxe && ! -e $sys/device ]] || fail "rxe0 is not the rdma_rxe device this test expects"
check_eq "provider (rdma_rxe)" rxe "$(j '.devices[0].provider')"
check_eq "pci (no $sys/device)" null "$(j '.devices[0].pci')"
check_eq "numa_node (no $sys/device)" null "$(j '.devices[0].numa_node')"

text=$("$RDMACTL" devices) || fail "rdmactl devices exited $?"
echo "$text"
row=$(grep '^rxe0 ' <<<"$text")
# A Soft-RoCE device is no PCI function: FUNCTION says "-"; the GUIDs are under -v.
want="rxe0 rxe CA - ${fw:--} - - $(devinfo phys_port_cnt) $(<$sys/parent)"
check_eq "text row" "$want" "$(tr -s ' ' <<<"$row")"
check_eq "netns mode line" "RDMA netns mode: shared (every network namespace sees every device)" \
	"$(grep '^RDMA netns mode' <<<"$text")"
vrow=$("$RDMACTL" -v devices | grep '^rxe0 ')
want="rxe0 rxe CA $(<$sys/node_guid) $(<$sys/sys_image_guid) - ${fw:--} - - $(devinfo phys_port_cnt) $(<$sys/parent)"
check_eq "text row with -v" "$want" "$(tr -s ' ' <<<"$vrow")"
check_eq "function (rdma_rxe: none)" null "$(j '.devices[0].function')"
check_eq "netns_mode (rdma system show)" "$(rdma system show | awk '$1 == "netns" { print $2 }')" "$(j '.netns_mode')"

one=$("$RDMACTL" devices rxe0) || fail "rdmactl devices rxe0 exited $?"
check_eq "devices rxe0: rows" 1 "$(grep -c '^rxe0 ' <<<"$one")"

rc=0
err=$("$RDMACTL" devices mlx5_0 2>&1 >/dev/null) || rc=$?
check_eq "unknown device: exit" 2 "$rc"
check_eq "unknown device: message" "rdmactl devices: Unknown device 'mlx5_0'. Devices: rxe0" "$err"
