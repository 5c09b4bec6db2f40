#!/bin/bash
# rdmactl devices on recorded trees (--root): every field, text and JSON.
. "$(dirname "$0")/lib.sh"

# out_lacks RE: stdout has no line matching RE.
out_lacks() { ! out_has "$1"; }

IB=$FIXTURES/ib-hca DUAL=$FIXTURES/dual-port SOFT=$FIXTURES/soft-roce

run --root "$IB" -j devices
check ib-json-rc rc_is 0
check ib-json-one-device json_ok '.devices | length == 1'
check ib-name json_ok '.devices[0].name == "mlx5_0"'
check ib-provider-from-driver json_ok '.devices[0].provider == "mlx5"'
check ib-node-type json_ok '.devices[0].node_type == "CA"'
check ib-node-guid json_ok '.devices[0].node_guid == "b859:9f03:00d4:6a10"'
check ib-sys-image-guid json_ok '.devices[0].sys_image_guid == "b859:9f03:00d4:6a10"'
check ib-fw json_ok '.devices[0].fw_ver == "20.35.2000"'
check ib-pci json_ok '.devices[0].pci == "0000:3b:00.0"'
check ib-numa json_ok '.devices[0].numa_node == 0'
check ib-ports json_ok '.devices[0].ports == 1'
# An InfiniBand port has no netdev of its own (ib0 is IPoIB, not the port's).
check ib-netdevs-null json_ok '.devices[0].netdevs == [null]'

run --root "$IB" devices
check ib-text-header out_has '^DEVICE +PROVIDER +TYPE +FUNCTION +FIRMWARE +PCI +NUMA +PORTS +NETDEVS$'
check ib-text-row out_has '^mlx5_0 +mlx5 +CA +PF +20\.35\.2000 +0000:3b:00\.0 +0 +1 +-$'
run --root "$IB" -v devices
check ib-verbose-sys-image-guid out_has 'SYS_IMAGE_GUID'
# The GUIDs moved to -v to leave room for the function on 100 columns.
check ib-verbose-header out_has '^DEVICE +PROVIDER +TYPE +NODE_GUID +SYS_IMAGE_GUID +FUNCTION +FIRMWARE +PCI +NUMA +PORTS +NETDEVS$'
check ib-verbose-row out_has '^mlx5_0 +mlx5 +CA +b859:9f03:00d4:6a10 +b859:9f03:00d4:6a10 +PF +20\.35\.2000 '


run --root "$DUAL" -j devices
check dual-two-devices json_ok '[.devices[].name] == ["mlx5_0", "mlx5_1"]'
check dual-same-card json_ok '.devices[0].sys_image_guid == .devices[1].sys_image_guid'
check dual-own-guids json_ok '.devices[1].node_guid == "5aa2:e1ff:feb0:3773"'
check dual-pci json_ok '[.devices[].pci] == ["0000:af:00.0", "0000:af:00.1"]'
check dual-numa json_ok '[.devices[].numa_node] == [1, 1]'
check dual-netdevs json_ok '[.devices[].netdevs[0]] == ["ens19f0np0", "ens19f1np1"]'

run --root "$DUAL" devices mlx5_1
check one-device-rc rc_is 0
check one-device-row out_has '^mlx5_1 '
check one-device-only out_lacks '^mlx5_0 '
check one-device-netdev out_has 'ens19f1np1$'

# A software device: no PCI parent, provider from what the kernel records.
run --root "$SOFT" -j devices
check soft-provider json_ok '.devices[0].provider == "rxe"'
check soft-pci-null json_ok '.devices[0].pci == null'
check soft-numa-null json_ok '.devices[0].numa_node == null'
check soft-fw-null json_ok '.devices[0].fw_ver == null'
check soft-netdev json_ok '.devices[0].netdevs == ["eth0"]'

run --root "$DUAL" devices mlx5_9
check unknown-dev-rc rc_is 2
check unknown-dev-names-existing err_has "Unknown device 'mlx5_9'. Devices: mlx5_0, mlx5_1"
check unknown-dev-one-line err_one_line
check unknown-dev-no-stdout out_empty

EMPTY=$TMPD/empty
mkdir -p "$EMPTY/sys"
run --root "$EMPTY" devices
check none-rc rc_is 1
check none-message err_has 'No RDMA devices found'
check none-causes err_has 'rdma link add rxe0 type rxe netdev IF'
check none-text-no-table out_empty
run --root "$EMPTY" -j devices
check none-json-still-one-document json_ok '.'
# The key is there, empty, as on a node with devices: a reader need not test for it.
check none-json-devices-empty json_ok '.devices == [] and .error.code == 1'
check none-json-rc rc_is 1

finish
