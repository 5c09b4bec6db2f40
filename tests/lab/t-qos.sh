#!/bin/bash
# The DSCP the doctor's roce.qos says a job's traffic class gives is the
# one on the wire.  Four classes, three clients: the class NCCL_IB_TC=106
# sets (sent as ib_write_bw --tclass=106 does, through the QP's GRH),
# rdma_cm's default_roce_tos in configfs (ib_write_bw -R, through rdma_cm),
# and UCX's own, UCX_IB_TRAFFIC_CLASS=64 and unset (ucx_perftest over
# rc_verbs: what UCX really sends with, against the doctor's model of it).
# For each, `rdmactl -j doctor --only roce.qos` names the DSCP (and, on
# rxe's virtio netdev, that its DCB cannot be read: a skip, never ok), and
# tcpdump in each guest captures the RoCE v2 packets it receives; every
# one of the job's must carry that DSCP.
# lab-timeout: 300
# lab-seconds: 44

lab_need_peer

TOS=48	# the rdma_cm case: DSCP 12, apart from the verbs case's 26
UCX_TC=64	# UCX's: DSCP 16
# Writes of 64 KiB a run: 1 280 packets at rxe's 1024-byte MTU hold a
# class to its DSCP as well as 6 400 (100 writes, and twice the CPU of
# the test in make check once tcpdump read them all).
N=20
CM=/sys/kernel/config/rdma_cm
cleanup() {
	[[ -z ${CAP-} ]] || kill "$CAP" 2>/dev/null
	rmdir "$CM/rxe0" 2>/dev/null
}
trap cleanup EXIT

# capture TAG: tcpdump keeps the RoCE v2 packets this guest receives on
# eth0 in cap-TAG.pcap (their headers) until capture_end; it returns once
# tcpdump says it listens.
capture() {
	# -Z root: Debian's tcpdump would write the file as its own user.
	# --immediate-mode: else the kernel hands packets over a block at a
	# time, and those of the block under way when it is stopped (the last
	# second's: all of a short run's) are never written.
	tcpdump -i eth0 -Q in -nn -p -s 64 -U --immediate-mode -Z root -w "cap-$1.pcap" 'udp dst port 4791' 2>"cap-$1.err" &
	CAP=$!
	lab__await "tcpdump listening on eth0" 30 grep -q 'listening on eth0' "cap-$1.err" ||
		fail "tcpdump does not start: $(<"cap-$1.err")"
}
capture_end() {
	kill -INT "$CAP" && wait "$CAP"
	CAP=''
}
# count TAG DSCP|all|qp1: the captured packets to a QP other than QP1 (the
# job's own) with that DSCP, all of them, or those to QP1 (connection
# management: rdma_cm's REQ, REP, RTU and DREQ, or a REJ to a client early
# at a server not listening yet; the class of the job's traffic is not
# theirs).  The destination QP is the BTH's bytes 5 to 7, after the 8-byte
# UDP header; the DSCP the IP header's second byte's top six bits.
count() {
	local qp='(udp[12:4] & 0xffffff) != 1'
	case $2 in
	all) ;;
	qp1) qp='(udp[12:4] & 0xffffff) = 1' ;;
	*) qp+=" and (ip[1] & 0xfc) = $(($2 << 2))" ;;
	esac
	tcpdump -r "cap-$1.pcap" -nn "$qp" 2>/dev/null | wc -l
}

# dscp_named JSON N: the doctor's finding names DSCP N, and says the DCB cannot be read.
dscp_named() {
	json_one ".checks[0].status == \"skip\" and (.checks[0].found | test(\"$2: DSCP $3;\")) and
		(.checks[0].found | test(\"eth0 has no DCB\"))" <"$1"
}

IDX=$("$RDMACTL" -j gids --recommend rxe0 | jq -r '.recommend[0].index')
[[ $IDX =~ ^[0-9]+$ ]] || fail "no recommended GID index for rxe0"

# pair TAG PORT SERVER... -- CLIENT...: SERVER on lab-a, then CLIENT PEER on
# lab-b once the server listens on TCP port PORT (-: rdma_cm, which
# listens on none; the client is tried again until the server is there);
# each guest's output in TAG.out.
pair() {
	local tag=$1 port=$2 i
	local -a server=() client=()
	shift 2
	for ((i = 1; i <= $#; i++)); do
		[[ ${!i} == -- ]] && break
		server+=("${!i}")
	done
	client=("${@:i+1}")
	if [[ $LAB_ROLE == a ]]; then
		lab_timeout 90 "${server[@]}" >"$tag.out" 2>&1 &
		local pid=$!
		[[ $port == - ]] || lab_wait_listen "$port"
		lab_put "qos-up-$tag" 1
		wait "$pid" || fail "$tag: ${server[*]} (server) exited with $?"
	else
		lab_get "qos-up-$tag" >/dev/null || exit 1
		run_client() { lab_timeout 60 "${client[@]}" "$LAB_PEER_IP" >"$tag.out" 2>&1; }
		lab__await "$tag: ${client[*]}" 30 run_client || fail "$tag: ${client[*]} failed"
	fi
	cat "$tag.out"
}
# bw TAG ARGS...: ib_write_bw ARGS between the pair, N writes of 64 KiB.
bw() {
	local tag=$1
	shift
	local cmd=(ib_write_bw -d rxe0 -F -s 65536 -n "$N" "$@")
	pair "$tag" "$([[ $tag == cm ]] && echo - || echo 18515)" "${cmd[@]}" -- "${cmd[@]}"
	grep -Eq "^ *65536 +$N " "$tag.out" || fail "ib_write_bw $* reported no result"
}
# ucx TAG: ucx_perftest's put_bw over rc_verbs between the pair, N of 64 KiB.
ucx() {
	local base=(ucx_perftest -d rxe0:1 -x rc_verbs)
	pair "$1" 13337 "${base[@]}" -- "${base[@]}" -t put_bw -D zcopy -s 65536 -n "$N"
	[[ $LAB_ROLE == a ]] || grep -q '^Final:' "$1.out" || fail "ucx_perftest reported no result"
}

# on_wire TAG DSCP WHAT: capture, run WHAT (a command of this file),
# and hold every captured packet of the job to DSCP.
on_wire() {
	local tag=$1 want=$2 got all
	shift 2
	if [[ ! $want =~ ^[0-9]+$ ]]; then
		fail "$tag: the doctor named no DSCP to look for"
		return
	fi
	capture "$tag"
	lab_barrier "qos-$tag" 60
	"$@"
	lab_barrier "qos-$tag-done" 60
	capture_end
	got=$(count "$tag" "$want") all=$(count "$tag" all)
	echo "== $tag: $got of $all RoCE v2 packets in with DSCP $want ($(count "$tag" qp1) to QP1, connection management)"
	# a receives the N writes of 64 KiB (64 packets each: every one
	# captured), b their acks.
	local least=1
	[[ $LAB_ROLE == b ]] || least=$((N * 64))
	((all >= least && got == all)) || fail "$tag: RoCE v2 in with DSCP $want: $got of $all (at least $least)"
}
# the DSCP roce.qos's finding in FILE gives for the class it names as REGEX.
dscp_of() { jq -r ".checks[0].found | capture(\"$2: DSCP (?<d>[0-9]+)\").d" "$1"; }

# --- NCCL_IB_TC=106, sent as ib_write_bw --tclass=106 sends ---
NCCL_IB_TC=106 "$RDMACTL" -j doctor --only roce.qos --for nccl >nccl.json
cat nccl.json
dscp_named nccl.json 'NCCL_IB_TC=106' 26 || fail "roce.qos does not say NCCL_IB_TC=106 gives DSCP 26"
on_wire tclass "$(dscp_of nccl.json 'NCCL_IB_TC=106')" bw tclass -x "$IDX" --tclass=106

# --- rdma_cm's default_roce_tos, for perftest -R ---
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config ||
	fail "cannot mount configfs"
mkdir -p "$CM/rxe0" || fail "no rdma_cm configfs for rxe0"
echo "$TOS" >"$CM/rxe0/ports/1/default_roce_tos" || fail "cannot set default_roce_tos"
"$RDMACTL" -j doctor --only roce.qos --for perftest >cm.json
cat cm.json
dscp_named cm.json "perftest -R: rdma_cm's default_roce_tos $TOS" $((TOS >> 2)) ||
	fail "roce.qos does not say default_roce_tos $TOS gives DSCP $((TOS >> 2))"
on_wire cm "$(dscp_of cm.json 'default_roce_tos [0-9]+')" bw cm -R

# --- UCX_IB_TRAFFIC_CLASS, set and unset: what UCX itself sends with ---
UCX_IB_TRAFFIC_CLASS=$UCX_TC "$RDMACTL" -j doctor --only roce.qos --for ucx >ucx.json
cat ucx.json
dscp_named ucx.json "UCX_IB_TRAFFIC_CLASS=$UCX_TC" $((UCX_TC >> 2)) ||
	fail "roce.qos does not say UCX_IB_TRAFFIC_CLASS=$UCX_TC gives DSCP $((UCX_TC >> 2))"
export UCX_IB_TRAFFIC_CLASS=$UCX_TC
on_wire ucx-set "$(dscp_of ucx.json "UCX_IB_TRAFFIC_CLASS=$UCX_TC")" ucx ucx-set
unset UCX_IB_TRAFFIC_CLASS
"$RDMACTL" -j doctor --only roce.qos --for ucx >ucx-auto.json
cat ucx-auto.json
on_wire ucx-auto "$(dscp_of ucx-auto.json 'UCX_IB_TRAFFIC_CLASS unset [(][^)]*[)]')" ucx ucx-auto
