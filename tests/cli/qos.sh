#!/bin/bash
# roce.qos on ConnectX-6/7 nodes as tests/fixtures/qos.sh records them
# (the dcbnl answers in run/rdmactl/dcb/, mlx5's ecn/ in sysfs, a VLAN's
# egress map): the job's traffic class, its DSCP and the priority the NIC
# gives it; lossless by PFC, by ECN, lossy; trust PCP against DSCP; a
# VLAN's PCP; a netdev without DCB said as cannot be read; each verdict
# the same through a snapshot of the tree; env's class for a job that set
# none, never replacing one it set.
. "$(dirname "$0")/lib.sh"
unset NCCL_IB_TC NCCL_IB_FIFO_TC NCCL_IB_SL NCCL_IB_HCA UCX_IB_TRAFFIC_CLASS UCX_IB_SL UCX_TLS UCX_NET_DEVICES

status() { json_ok ".checks[] | select(.id == \"roce.qos\") | .status == \"$1\""; }
# same A B: two verdicts of roce.qos, the same (and the check ran: its row is there).
same() { [[ $1 == *'"id":"roce.qos"'* ]] && [ "$1" = "$2" ]; }

# tree CASE: a copy of doctor-healthy as qos.sh rewrites it, in $TREE.
tree() { healthy_as "$1" qos.sh "$1"; }

# --- roceOptimized: trust DSCP, PFC on 3 ---
tree pfc
run --root "$TREE" -j doctor --only roce.qos --for ucx
check pfc-ucx-ok status ok
check pfc-ucx-dscp qos_found "UCX_IB_TRAFFIC_CLASS unset \\\\(UCX's auto: 106 on RoCE v2\\\\): DSCP 26"
check pfc-ucx-prio3-pfc qos_found 'mlx5_0/1 ens19f0np0: DSCP 26 on priority 3 \\(trust DSCP\\), lossless by PFC'
# NCCL's own class is 0: DSCP 0, priority 0, lossy; the fix is the variable's value.
run --root "$TREE" -j doctor --only roce.qos --for nccl
check pfc-nccl-default-fails rc_is 1
check pfc-nccl-default-fail status fail
check pfc-nccl-default-lossy qos_found "NCCL_IB_TC unset \\\\(NCCL's 0\\\\): DSCP 0; mlx5_0/1 ens19f0np0: DSCP 0 on priority 0 \\\\(trust DSCP\\\\), no PFC, no ECN: lossy"
check pfc-nccl-fix-tc json_ok '.checks[0].fix == "export NCCL_IB_TC=106"'
RC=0
OUT=$(NCCL_IB_TC=106 "$RDMACTL" --root "$TREE" -j doctor --only roce.qos --for nccl) || RC=$?
check pfc-nccl-106-passes rc_is 0
check pfc-nccl-106-ok status ok
# The CTS messages' own class, from NCCL 2.22.3 on; doctor-healthy's 2.21.5 ignores it.
RC=0
OUT=$(NCCL_IB_TC=106 NCCL_IB_FIFO_TC=0 "$RDMACTL" --root "$TREE" -j doctor --only roce.qos --for nccl) || RC=$?
check fifo-tc-ignored-by-221 qos_found 'NCCL_IB_FIFO_TC is read from NCCL 2.22.3 on \\(this node.s 2.21.5 ignores it\\)'
check fifo-tc-ignored-ok status ok
for f in $(find "$TREE" -name 'libnccl.so.2.21.5'); do mv "$f" "${f%2.21.5}2.23.4"; done
RC=0
OUT=$(NCCL_IB_TC=106 NCCL_IB_FIFO_TC=0 "$RDMACTL" --root "$TREE" -j doctor --only roce.qos --for nccl) || RC=$?
check fifo-tc-223-fails status fail
check fifo-tc-223-lossy qos_found 'NCCL_IB_FIFO_TC=0: DSCP 0; mlx5_0/1 ens19f0np0: DSCP 0 on priority 0'
check fifo-tc-223-fix json_ok '.checks[0].fix == "export NCCL_IB_FIFO_TC=106"'
# A value no library takes.
RC=0
OUT=$(UCX_IB_TRAFFIC_CLASS=300 "$RDMACTL" --root "$TREE" -j doctor --only roce.qos --for ucx) || RC=$?
check ucx-300-fails status fail
check ucx-300-said qos_found 'UCX_IB_TRAFFIC_CLASS=300 is not a traffic class \\(0 to 255\\)'

# --- no PFC, ECN on every priority: lossless by ECN, CNPs said ---
tree ecn
run --root "$TREE" -j doctor --only roce.qos --for nccl
check ecn-ok status ok
check ecn-by-ecn qos_found 'DSCP 0 on priority 0 \\(trust DSCP\\), lossless by ECN; ens19f0np0 sends CNPs on priority 6, DSCP 48'

# --- no PFC, no ECN: lossy whatever the class; the NIC's settings are the fix ---
tree lossy
run --root "$TREE" -j doctor --only roce.qos --for ucx
check lossy-fails rc_is 1
check lossy-fail status fail
check lossy-said qos_found 'DSCP 26 on priority 3 \\(trust DSCP\\), no PFC, no ECN: lossy'
check lossy-fix-pfc qos_fix '^dcb pfc set dev ens19f0np0 prio-pfc 3:on \\(mlnx_qos -i ens19f0np0 --pfc 0,0,0,1,0,0,0,0\\)'
check lossy-fix-no-variable json_ok '.checks[0].fix | contains("UCX_IB_TRAFFIC_CLASS") | not'

# --- trust PCP: untagged RoCE is priority 0 whatever its DSCP ---
tree pcp
run --root "$TREE" -j doctor --only roce.qos --for ucx
check pcp-fail status fail
check pcp-untagged qos_found 'DSCP 26 on priority 0 \\(trust PCP, untagged\\), no PFC, no ECN: lossy'
check pcp-fix-trust-dscp qos_fix '^dcb app add dev ens19f0np0 dscp-prio 26:3 \\(mlnx_qos -i ens19f0np0 --trust dscp'

# --- trust PCP on a VLAN: verbs send the service level, rdma_cm the egress map's PCP ---
tree vlan-pcp
run --root "$TREE" -j doctor --only roce.qos --for nccl
check vlan-sl0-lossy qos_found "mlx5_0/1 ens19f0np0: DSCP 0 on priority 0 \\\\(trust PCP, ens19f0np0.100's PCP is the service level 0\\\\)"
check vlan-fix-sl qos_fix 'export NCCL_IB_SL=3'
RC=0
OUT=$(NCCL_IB_SL=3 "$RDMACTL" --root "$TREE" -j doctor --only roce.qos --for nccl -j) || RC=$?
check vlan-sl3-pfc qos_found "mlx5_0/1 ens19f0np0: DSCP 0 on priority 3 \\\\(trust PCP, ens19f0np0.100's PCP is the service level 3\\\\), lossless by PFC"
# NCCL's classes are verbs traffic: judged by the service level, never by
# rdma_cm's egress map. That choice once read an unset field (ASan saw it
# once in a full run); valgrind sees every such read.
if [[ ${PREFIX:-} == asan:* ]]; then
	skip vlan-sl3-no-uninitialised "valgrind does not run an ASan build (the plain run checks it)"
elif command -v valgrind >/dev/null; then
	RC=0
	NCCL_IB_SL=3 valgrind -q --error-exitcode=99 "$RDMACTL" --root "$TREE" doctor --only roce.qos \
		--for nccl >/dev/null 2>"$TMPD/valgrind.err" || RC=$?
	check vlan-sl3-no-uninitialised [ "$RC" != 99 ]
else
	skip vlan-sl3-no-uninitialised "valgrind not installed (Debian package valgrind)"
fi
mkdir -p "$TREE/sys/kernel/config/rdma_cm/mlx5_0/ports/1"
echo 106 >"$TREE/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"
run --root "$TREE" -j doctor --only roce.qos --for perftest
check vlan-cm-tos qos_found "perftest -R: rdma_cm's default_roce_tos 106: DSCP 26; mlx5_0/1 ens19f0np0: DSCP 26 on priority 3 \\\\(trust PCP, ens19f0np0.100's egress map\\\\), lossless by PFC"
check vlan-tclass-lossy qos_found 'perftest without --tclass \\(0\\): DSCP 0; mlx5_0/1 ens19f0np0: DSCP 0 on priority 0'
check vlan-perftest-fix qos_fix '^ib_write_bw --tclass=106'
VLANTREE=$TREE

# --- a netdev without DCB: cannot be read, never ok; the DSCP still said ---
tree nodcb
run --root "$TREE" -j doctor --only roce.qos --for nccl
check nodcb-skip status skip
check nodcb-said qos_found "NCCL_IB_TC unset \\\\(NCCL's 0\\\\): DSCP 0; ens19f0np0 has no DCB \\\\(its driver answers dcbnl: not supported\\\\): its priority, PFC and ECN cannot be read"
# A tree that never recorded DCB says so.
run --root "$FIXTURES/doctor-healthy" -j doctor --only roce.qos --for nccl
check unrecorded-skip status skip
check unrecorded-said qos_found 'ens19f0np0 has no DCB recording in this tree'
# Without --for, only a class the job set is judged.
run --root "$FIXTURES/doctor-healthy" -j doctor --only roce.qos
check nofor-unset-skip qos_found '^no NCCL_IB_TC, NCCL_IB_FIFO_TC or UCX_IB_TRAFFIC_CLASS set'

# --- rdmactl env: the class that lands on the lossless priority, for a job that set none ---
run --root "$TMPD/pfc" -j env --for nccl
check env-pfc-exports-106 json_ok '.variables.NCCL_IB_TC == "106"'
RC=0
OUT=$(NCCL_IB_TC=0 "$RDMACTL" --root "$TMPD/pfc" -j env --for nccl) || RC=$?
check env-never-replaces-job-tc json_ok '.variables | has("NCCL_IB_TC") | not'
run --root "$TMPD/ecn" -j env --for nccl
check env-ecn-lossless-nothing json_ok '.variables | has("NCCL_IB_TC") | not'
run --root "$TMPD/lossy" -j env --for nccl
check env-lossy-no-lossless-nothing json_ok '.variables | has("NCCL_IB_TC") | not'
run --root "$TMPD/nodcb" -j env --for nccl
check env-nodcb-nothing json_ok '.variables | has("NCCL_IB_TC") | not'
# What env exports, the doctor passes.
RC=0
OUT=$(eval "$("$RDMACTL" --root "$TMPD/pfc" env --for nccl)"; "$RDMACTL" --root "$TMPD/pfc" -j doctor --only roce.qos --for nccl) || RC=$?
check env-then-doctor-passes status ok

# --- a snapshot of each tree gives the same verdict ---
for c in pfc lossy pcp nodcb; do
	run --root "$TMPD/$c" snapshot -o "$TMPD/$c.tar.gz"
	mkdir -p "$TMPD/$c.copy"
	tar xzf "$TMPD/$c.tar.gz" -C "$TMPD/$c.copy"
	for f in nccl ucx; do
		a=$("$RDMACTL" --root "$TMPD/$c" -j doctor --only roce.qos --for $f 2>/dev/null | jq -c .checks)
		b=$("$RDMACTL" --root "$TMPD/$c.copy" -j doctor --only roce.qos --for $f 2>/dev/null | jq -c .checks)
		check "snapshot-$c-$f" same "$a" "$b"
	done
done
check snapshot-records-dcb grep -qx 'prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off' \
	"$TMPD/pfc.copy/run/rdmactl/dcb/ens19f0np0"
run --root "$VLANTREE" snapshot -o "$TMPD/vlan.tar.gz"
mkdir -p "$TMPD/vlan.copy"
tar xzf "$TMPD/vlan.tar.gz" -C "$TMPD/vlan.copy"
a=$("$RDMACTL" --root "$VLANTREE" -j doctor --only roce.qos --for perftest 2>/dev/null | jq -c .checks)
b=$("$RDMACTL" --root "$TMPD/vlan.copy" -j doctor --only roce.qos --for perftest 2>/dev/null | jq -c .checks)
check snapshot-vlan-egress-tos same "$a" "$b"

finish
