#!/bin/bash
# The DSCP the doctor's roce.qos says a job's traffic class gives is the
# one on the wire.  Two classes, two paths: the class NCCL_IB_TC=106 sets
# (sent as ib_write_bw --tclass=106 does, through the QP's GRH) and rdma_cm's
# default_roce_tos in configfs (ib_write_bw -R, through rdma_cm).  For each,
# `rdmactl -j doctor --only roce.qos` names the DSCP (and, on rxe's
# virtio netdev, that its DCB cannot be read: a skip, never ok), and the
# peer's kernel counts the RoCE v2 packets it receives by their IP DSCP
# (nftables counters on UDP 4791 in the input hook: what tcpdump would
# read of each packet's header, without a capture tool in the guest).
# lab-timeout: 240
# lab-seconds: 31

lab_need_peer

TOS=48	# the rdma_cm case: DSCP 12, apart from the verbs case's 26
CM=/sys/kernel/config/rdma_cm

# Counters on the RoCE v2 packets coming in, by DSCP: the job's own, those
# to a QP other than QP1. QP1's are connection management (rdma_cm's REQ,
# REP, RTU and DREQ, or a REJ to a client early at a server not listening
# yet): counted apart, as the class of the job's traffic is not theirs. The
# destination QP is the BTH's bytes 5 to 7, after the 8-byte UDP header.
nft -f - <<-'EOF' || fail "cannot load the DSCP counters"
	table inet qoswatch {
		chain in {
			type filter hook input priority filter; policy accept;
			udp dport 4791 @th,104,24 != 1 ip dscp 26 counter comment "d26"
			udp dport 4791 @th,104,24 != 1 ip dscp 12 counter comment "d12"
			udp dport 4791 @th,104,24 != 1 counter comment "all"
			udp dport 4791 @th,104,24 1 counter comment "qp1"
		}
	}
EOF
cleanup() {
	nft delete table inet qoswatch 2>/dev/null
	rmdir "$CM/rxe0" 2>/dev/null
}
trap cleanup EXIT

# count DSCP|all: the packets counted so far (nft names DSCPs: 26 is af31, so the rules' comments).
count() {
	local rules line n=0 tag=d$1
	[[ $1 == all || $1 == qp1 ]] && tag=$1
	rules=$(nft list table inet qoswatch)
	while IFS= read -r line; do
		if [[ $line == *"counter packets "*"comment \"$tag\""* ]]; then
			n=${line##*packets }
			n=${n%% *}
		fi
	done <<<"$rules"
	echo "$n"
}
# dscp_named JSON N: the doctor's finding names DSCP N, and says the DCB cannot be read.
dscp_named() {
	json_one ".checks[0].status == \"skip\" and (.checks[0].found | test(\"$2: DSCP $3;\")) and
		(.checks[0].found | test(\"eth0 has no DCB\"))" <"$1"
}

IDX=$("$RDMACTL" -j gids --recommend rxe0 | jq -r '.recommend[0].index')
[[ $IDX =~ ^[0-9]+$ ]] || fail "no recommended GID index for rxe0"

# --- NCCL_IB_TC=106: the doctor's DSCP, then the class on the wire through verbs ---
NCCL_IB_TC=106 "$RDMACTL" -j doctor --only roce.qos --for nccl >nccl.json
cat nccl.json
dscp_named nccl.json 'NCCL_IB_TC=106' 26 || fail "roce.qos does not say NCCL_IB_TC=106 gives DSCP 26"
WANT_V=$(jq -r '.checks[0].found | capture("NCCL_IB_TC=106: DSCP (?<d>[0-9]+)").d' nccl.json)

# bw TAG ARGS...: ib_write_bw between the pair, server on a; its output in bw.out.
bw() {
	local tag=$1
	shift
	local cmd=(ib_write_bw -d rxe0 -F -s 65536 -n 100 "$@")
	if [[ $LAB_ROLE == a ]]; then
		lab_timeout 90 "${cmd[@]}" >bw.out 2>&1 &
		local server=$!
		# rdma_cm listens on no TCP port: the client retries until the server is there.
		[[ $tag == cm ]] || lab_wait_listen 18515
		lab_put "qos-up$tag" 1
		wait "$server" || fail "ib_write_bw $* server exited with $?"
	else
		lab_get "qos-up$tag" >/dev/null || exit 1
		client() { lab_timeout 60 "${cmd[@]}" "$LAB_PEER_IP" >bw.out 2>&1; }
		lab__await "ib_write_bw $* client" 30 client || fail "ib_write_bw $* client failed"
	fi
	grep -Eq '^ *65536 +100 ' bw.out || { cat bw.out; fail "ib_write_bw $* reported no result"; }
}

before=$(count "$WANT_V")
all0=$(count all)
lab_barrier qos-tclass 60
bw tclass -x "$IDX" --tclass=106
lab_barrier qos-tclass-done 60
got=$(($(count "$WANT_V") - before)) all=$(($(count all) - all0))
echo "== --tclass=106: $got of $all RoCE v2 packets in with DSCP $WANT_V"
# a receives the 100 writes of 64 KiB (6400 packets at rxe's 1024-byte MTU); b their acks.
((all > 0 && got == all)) || fail "RoCE v2 in with DSCP $WANT_V: $got of $all"

# --- rdma_cm's default_roce_tos: the doctor's DSCP for perftest -R, then on the wire ---
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config ||
	fail "cannot mount configfs"
mkdir -p "$CM/rxe0" || fail "no rdma_cm configfs for rxe0"
echo "$TOS" >"$CM/rxe0/ports/1/default_roce_tos" || fail "cannot set default_roce_tos"
"$RDMACTL" -j doctor --only roce.qos --for perftest >cm.json
cat cm.json
dscp_named cm.json "perftest -R: rdma_cm's default_roce_tos $TOS" $((TOS >> 2)) ||
	fail "roce.qos does not say default_roce_tos $TOS gives DSCP $((TOS >> 2))"
WANT_C=$(jq -r '.checks[0].found | capture("default_roce_tos [0-9]+: DSCP (?<d>[0-9]+)").d' cm.json)

before=$(count "$WANT_C")
all0=$(count all) qp10=$(count qp1)
lab_barrier qos-cm 60
bw cm -R
lab_barrier qos-cm-done 60
got=$(($(count "$WANT_C") - before)) all=$(($(count all) - all0))
echo "== -R with default_roce_tos $TOS: $got of $all RoCE v2 packets in with DSCP $WANT_C" \
	"($(($(count qp1) - qp10)) to QP1, connection management)"
((all > 0 && got == all)) || fail "RoCE v2 through rdma_cm in with DSCP $WANT_C: $got of $all"
