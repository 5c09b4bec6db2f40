#!/bin/bash
# SR-IOV hosts, a BlueField's Arm side and a VF in a container (--root):
# what devices says each function is, the representors and the DPU side,
# the RDMA netns mode, and the doctor's checks of them, text and JSON.
. "$(dirname "$0")/lib.sh"

HOST=$FIXTURES/sriov-cx6dx ARM=$FIXTURES/bluefield2-arm POD=$FIXTURES/container-vf

unset NCCL_IB_HCA NCCL_SOCKET_IFNAME NCCL_IB_GID_INDEX NCCL_IB_DISABLE NCCL_IB_ROCE_VERSION_NUM \
	NCCL_IB_ADDR_FAMILY NCCL_IB_ADDR_RANGE UCX_NET_DEVICES UCX_IB_GID_INDEX

# jq_is FILTER VALUE: the filter's raw output is VALUE.
# (jq 1.6 itself: the text compared is rdmactl's, keys in its order, which gojq sorts.)
jq_is() { [ "$(command jq -cr "$1" <<<"$OUT")" = "$2" ]; }
# st ID STATUS / found ID RE / fix ID RE: a doctor check's status and texts.
fix() { jq -r ".checks[] | select(.id == \"$1\") | .fix // \"\"" <<<"$OUT" | grep -qE -- "$2"; }
# Every line of stdout fits 100 columns.
fits_100() { ! awk 'length > 100 { bad = 1 } END { exit !bad }' <<<"$OUT"; }

# ---- a ConnectX-6 Dx host: SR-IOV on PF 0 with 4 VFs ----
run --root "$HOST" -j devices
check host-rc rc_is 0
check host-names jq_is '[.devices[].name]' '["mlx5_0","mlx5_1","mlx5_2","mlx5_3"]'
check host-functions jq_is '[.devices[].function]' '["pf","pf","vf","vf"]'
check host-pf-vfs jq_is '.devices[0] | [.vfs, .vfs_total, .eswitch]' '[4,8,"legacy"]'
check host-pf1-no-vfs jq_is '.devices[1] | [.vfs, .vfs_total, .eswitch]' '[0,8,null]'
check host-vf-parent jq_is '[.devices[2,3] | [.parent, .vf]]' '[["0000:3b:00.0",0],["0000:3b:00.0",1]]'
check host-vf-pci jq_is '[.devices[2,3].pci]' '["0000:3b:00.2","0000:3b:00.3"]'
check host-roles jq_is '[.devices[].role]' '["PF 4/8 VFs","PF 0/8 VFs","VF 0 of mlx5_0","VF 1 of mlx5_0"]'
check host-no-reps json_ok '.representors == null and .dpu == null'
check host-netns jq_is '[.netns_mode, .other_netns_devices]' '["shared",[]]'

run --root "$HOST" devices
check host-text-header out_has '^DEVICE +PROVIDER +TYPE +FUNCTION +FIRMWARE +PCI +NUMA +PORTS +NETDEVS$'
check host-text-pf out_has '^mlx5_0 +mlx5 +CA +PF 4/8 VFs +22\.39\.1002 +0000:3b:00\.0 +0 +1 +ens1f0np0$'
check host-text-vf out_has '^mlx5_3 +mlx5 +CA +VF 1 of mlx5_0 +22\.39\.1002 +0000:3b:00\.3 +0 +1 +ens1f0v1$'
check host-text-netns out_has '^RDMA netns mode: shared \(every network namespace sees every device\)$'
check host-text-100 fits_100

run --root "$HOST" -j doctor
check host-doctor-rc rc_is 0
check host-functions-warn st functions warn
check host-vf-unbound found functions 'VF 3 of mlx5_0 \(0000:3b:00\.5\) has no driver bound'
check host-vf-unbound-fix fix functions '^echo 0000:3b:00\.5 > /sys/bus/pci/drivers/mlx5_core/bind'
check host-vf-vfio found functions 'VF 2 of mlx5_0 \(0000:3b:00\.4\) is bound to vfio-pci'
check host-vf-ok found functions 'VF 0 of mlx5_0 \(0000:3b:00\.2\): mlx5_2 \(ens1f0v0\)'
check host-netns-said found devices 'RDMA netns mode shared$'
check host-others-ok json_ok '[.checks[] | select(.status == "fail")] == []'

# ---- a BlueField-2's Arm side: switchdev, host PF, VF, SFs, representors ----
run --root "$ARM" -j devices
check arm-rc rc_is 0
check arm-functions jq_is '[.devices[] | [.name, .function, .eswitch]]' \
	'[["mlx5_0","pf","switchdev"],["mlx5_1","pf","switchdev"],["mlx5_2","sf",null]]'
check arm-sf jq_is '.devices[2] | [.parent, .sfnum, .pci, .role]' '["0000:03:00.0",4,null,"SF 4 of mlx5_0"]'
# The representor ports are listed apart; the uplink stays the device's netdev.
check arm-netdevs jq_is '.devices[0].netdevs' '[null,null,null,null,"p0"]'
check arm-dev-reps jq_is '.devices[0].representors' '["pf0hpf","pf0vf0","en3f0pf0sf4","en3f0pf0sf5"]'
check arm-reps jq_is '[.representors[] | [.netdev, .port_name, .represents]]' \
	'[["p0","p0","uplink port 0"],["en3f0pf0sf4","pf0sf4","SF 4 of PF 0"],["en3f0pf0sf5","pf0sf5","SF 5 of PF 0"],["pf0hpf","c1pf0","host PF 0"],["pf0vf0","c1pf0vf0","host VF 0 of PF 0"],["p1","p1","uplink port 1"],["pf1hpf","c1pf1","host PF 1"]]'
check arm-rep-flavours jq_is '[.representors[] | .flavour] | unique' '["pcipf","pcisf","pcivf","physical"]'
check arm-rep-host jq_is '.representors[] | select(.netdev == "pf0vf0") | [.controller, .pf, .vf, .device, .port]' \
	'[1,0,0,"mlx5_0",2]'
check arm-rep-sf-function jq_is '.representors[] | select(.netdev == "en3f0pf0sf4") | [.controller, .sfnum, .function_device]' \
	'[0,4,"mlx5_2"]'
check arm-dpu jq_is '.dpu' '{"model":"BlueField-2","pci_id":"15b3:a2d6","pci":["0000:03:00.0","0000:03:00.1"],"side":"arm"}'

run --root "$ARM" devices
check arm-text-pf out_has '^mlx5_0 +mlx5 +CA +PF, switchdev +24\.35\.2000 +0000:03:00\.0 +- +5 +p0$'
check arm-text-sf out_has '^mlx5_2 +mlx5 +CA +SF 4 of mlx5_0 +24\.35\.2000 +- +- +1 +enp3s0f0s4$'
check arm-text-rep-header out_has '^REPRESENTOR +PORT_NAME +REPRESENTS +FUNCTION +DEVICE +PORT +OPER$'
check arm-text-rep-vf out_has '^pf0vf0 +c1pf0vf0 +host VF 0 of PF 0 +- +mlx5_0 +2 +up$'
check arm-text-dpu out_has '^BlueField-2 DPU \(15b3:a2d6\) at 0000:03:00\.0, 0000:03:00\.1: the Arm side\.$'
check arm-text-100 fits_100
run --root "$ARM" devices mlx5_1
check arm-one-dev-reps bash -c '[ "$(grep -c "^p1 \|^pf1hpf " <<<"$0")" = 2 ] && ! grep -q "^pf0hpf " <<<"$0"' "$OUT"

run --root "$ARM" -j doctor
check arm-doctor-rc rc_is 0
check arm-sf-unbound found functions 'SF 5 of mlx5_0 \(mlx5_core\.sf\.5\) has no driver bound'
check arm-sf-unbound-fix fix functions '^echo mlx5_core\.sf\.5 > /sys/bus/auxiliary/drivers/mlx5_core\.sf/bind$'
check arm-sf-ok found functions 'SF 4 of mlx5_0 \(mlx5_core\.sf\.4\): mlx5_2 \(enp3s0f0s4\)'
# Representor ports are switch ports: not judged as this node's ports or RoCE ports.
check arm-ports-reps found ports '5 representor ports not judged'
check arm-ports-uplink found ports 'mlx5_0/5 ACTIVE LinkUp \(p0\)'
check arm-roce-sf-only found roce.ipv4 '^mlx5_2/1 enp3s0f0s4 has 192\.168\.101\.1$'

NCCL_IB_HCA=pf0vf0 run --root "$ARM" -j doctor --only env.nccl
check nccl-rep st env.nccl fail
check nccl-rep-why found env.nccl "'pf0vf0' is the representor of host VF 0 of PF 0"
check nccl-rep-fix fix env.nccl '^export NCCL_IB_HCA=mlx5_2$'
NCCL_IB_HCA=mlx5_0 run --root "$ARM" -j doctor --only env.nccl
check nccl-rep-ports st env.nccl warn
check nccl-rep-ports-why found env.nccl "'mlx5_0' selects representor ports mlx5_0:1 \(pf0hpf\), mlx5_0:2 \(pf0vf0\)"
check nccl-rep-ports-fix fix env.nccl '^export NCCL_IB_HCA=mlx5_0:5 '
NCCL_IB_HCA=enp3s0f0s4 run --root "$ARM" -j doctor --only env.nccl
check nccl-netdev found env.nccl "'enp3s0f0s4' is the netdev of mlx5_2:1; NCCL_IB_HCA names RDMA devices"
check nccl-netdev-fix fix env.nccl '^export NCCL_IB_HCA=mlx5_2:1$'
NCCL_IB_HCA=oob_net0 run --root "$ARM" -j doctor --only env.nccl
check nccl-no-rdma found env.nccl "'oob_net0' is a netdev with no RDMA device behind it"
# The field notes' UCX setting: an SF's netdev and the SF's device.
UCX_NET_DEVICES=enp3s0f0s4,mlx5_2:1 run --root "$ARM" -j doctor --only env.ucx
check ucx-notes st env.ucx ok
UCX_NET_DEVICES=pf0hpf run --root "$ARM" -j doctor --only env.ucx
check ucx-rep st env.ucx fail
check ucx-rep-why found env.ucx "'pf0hpf' is the representor of host PF 0"
check ucx-rep-fix fix env.ucx '^export UCX_NET_DEVICES=mlx5_2:1$'
UCX_NET_DEVICES=mlx5_0:2 run --root "$ARM" -j doctor --only env.ucx
check ucx-rep-port found env.ucx 'mlx5_0:2 is a representor port \(pf0vf0, host VF 0 of PF 0\)'
UCX_NET_DEVICES=oob_net0 run --root "$ARM" -j doctor --only env.ucx
check ucx-no-rdma st env.ucx warn
check ucx-no-rdma-why found env.ucx 'interface oob_net0 has no RDMA device behind it: UCX uses only TCP on it'

# ---- a VF passed into a container: exclusive netns mode, its PF down ----
run --root "$POD" -j devices
check pod-rc rc_is 0
check pod-vf jq_is '.devices[0] | [.name, .function, .parent, .vf, .role]' \
	'["mlx5_3","vf","0000:3b:00.0",1,"VF 1 of 0000:3b:00.0"]'
check pod-netns jq_is '[.netns_mode, .other_netns_devices]' '["exclusive",["mlx5_0","mlx5_1","mlx5_2"]]'
run --root "$POD" devices
check pod-text-netns out_has '^RDMA netns mode: exclusive \(each device belongs to one network namespace\)$'
check pod-text-hidden out_has '^In other network namespaces: mlx5_0, mlx5_1, mlx5_2$'

run --root "$POD" -j doctor
check pod-doctor-rc rc_is 1
check pod-devices found devices 'RDMA netns mode exclusive, other namespaces hold mlx5_0, mlx5_1, mlx5_2'
check pod-pf-down st functions fail
check pod-pf-down-why found functions 'VF 1 of 0000:3b:00\.0 \(0000:3b:00\.3\): net1 is up but has no link: .*its PF 0000:3b:00\.0 \(in another network namespace, not seen here\) is down'
check pod-pf-down-fix fix functions 'on the host: bring up the netdev of PF 0000:3b:00\.0'
check pod-port-down found ports 'net1 is up but has no link \(down\): a VF.s link follows its PF 0000:3b:00\.0'
check pod-port-fix fix ports '^bring up the link of PF 0000:3b:00\.0'

# ---- exclusive mode and no device in this namespace ----
NONE=$TMPD/pod-empty
mkdir -p "$NONE/sys/class/infiniband" "$NONE/sys/module/ib_core/parameters" "$NONE/sys/class/infiniband_verbs/uverbs0"
echo N >"$NONE/sys/module/ib_core/parameters/netns_mode"
echo rxe0 >"$NONE/sys/class/infiniband_verbs/uverbs0/ibdev"
run --root "$NONE" devices
check none-rc rc_is 1
check none-why err_has "No RDMA device in this network namespace: the RDMA netns mode is exclusive \(rdma system show\): .*rxe0 belongs to another one"
check none-fix err_has 'Fix: rdma system set netns shared .*rdma dev set rxe0 netns NS'
check none-one-line err_one_line
run --root "$NONE" -j devices
check none-json jq_is '[.netns_mode, .other_netns_devices]' '["exclusive",["rxe0"]]'
run --root "$NONE" -j doctor --only devices
check none-doctor st devices fail
check none-doctor-why found devices '^no RDMA device in this network namespace: the RDMA netns mode is exclusive'
check none-doctor-fix fix devices '^rdma system set netns shared'
echo Y >"$NONE/sys/module/ib_core/parameters/netns_mode"
run --root "$NONE" devices
check none-shared-generic err_has '^rdmactl devices: No RDMA devices found\.'

finish
