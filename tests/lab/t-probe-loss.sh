#!/bin/bash
# rdmactl probe on a path that loses packets: nftables on lab-a drops 3% of
# the RoCE v2 packets (UDP 4791) at random.  RC recovers by retransmitting,
# so the probe passes, slower; what tells the loss from a slow link is the
# port counters, which rdmactl reports for the run.  Each end's figures are
# checked against its own sysfs hw_counters read around the run, and a
# clean run first must report none.
# lab-timeout: 180
# lab-seconds: 38

lab_need_peer

port=18600
cnt=/sys/class/infiniband/rxe0/ports/1/hw_counters
[[ -d $cnt ]] || skip "rxe0/1 has no hw_counters in this kernel"

# snap FILE: every counter of rxe0/1 as "name value" lines.
snap() { lab_hwcnt rxe0 1 >"$1"; }
# grown BEFORE AFTER NAME: how much NAME grew.
grown() { join "$1" "$2" | awk -v n="$3" '$1 == n { print $3 - $2 }'; }

if [[ $LAB_ROLE == a ]]; then
	"$RDMACTL" -j probe --server --port $port >server.out 2>server.err &
	server=$!
	lab_wait_listen $port
	lab_put up 1
	lab_get clean-done 120 >/dev/null
	nft add table inet probeloss
	nft add chain inet probeloss in '{ type filter hook input priority 0; policy accept; }'
	nft add rule inet probeloss in udp dport 4791 numgen random mod 100 lt 3 counter drop
	snap a0
	lab_put lossy 1
	lab_get lossy-json 150 >/dev/null
	snap a1
	lab_put snapped 1
	lab_get lossy-done 150 >/dev/null
	nft list table inet probeloss
	dropped=$(nft -j list table inet probeloss | jq '[.nftables[].rule? | select(.) | .expr[] | .counter? | select(.) | .packets] | add')
	nft delete table inet probeloss
	kill "$server"
	wait "$server" 2>/dev/null
	echo "nftables dropped $dropped RoCE packets"
	((dropped > 0)) || fail "the rule dropped nothing: the test proves nothing"
	# The server prints one JSON document per session; the second is the lossy one.
	jq -s -c '.[].probe.port_counters' server.out
	lossy=$(jq -s -c '.[1].probe.port_counters' server.out)
	for n in out_of_seq_request duplicate_request; do
		check_eq "receiver: $n as sysfs counted it" "$(grown a0 a1 $n)" "$(jq -r ".$n // 0" <<<"$lossy")"
	done
	[[ $(jq -r '.out_of_seq_request // 0' <<<"$lossy") -gt 0 ]] ||
		fail "receiver: no out-of-sequence request reported while $dropped packets were dropped"
	check_eq "receiver: clean session reported nothing" "{}" "$(jq -s -c '.[0].probe.port_counters' server.out)"
	exit 0
fi

lab_get up >/dev/null
# A clean run: nothing lost, nothing reported, and the text says so.  Its
# writes wait for their ACKs as long as the guests' pace needs
# (lab_ack_timeout): with the probe's 67 ms, on a loaded host, lab-b sent
# again writes lab-a had had (its clean session counted 129 duplicate
# requests).  The lossy runs keep 67 ms: a loss is seen either way.
snap b0
(lab_ack_timeout && exec "$RDMACTL" probe "$LAB_PEER_IP" -s 64K -n 100 --lat-iters 0) >clean.txt 2>clean.err
check_eq "clean: exit status" 0 "$?"
snap b1
cat clean.txt clean.err
grep -q "^  rxe0/1 counted no retransmission, sequence gap, RNR NAK or congestion mark during the run$" clean.txt ||
	fail "clean: no line saying the port counted no trouble"
check_eq "clean: sysfs agrees (rcvd_seq_err)" 0 "$(grown b0 b1 rcvd_seq_err)"
lab_put clean-done 1

lab_get lossy >/dev/null
snap b0
lab_timeout 120 "$RDMACTL" -j probe "$LAB_PEER_IP" -s 64K -n 150 --lat-iters 0 >lossy.json 2>lossy.err
check_eq "lossy: exit status (RC retransmits)" 0 "$?"
snap b1
cat lossy.err
jq -c '.probe.port_counters, .results[0].bw_avg_MBps' lossy.json
for n in rcvd_seq_err completer_retry_err; do
	check_eq "sender: $n as sysfs counted it" "$(grown b0 b1 $n)" "$(jq -r ".probe.port_counters.$n // 0" lossy.json)"
done
[[ $(jq -r '(.probe.port_counters.rcvd_seq_err // 0) + (.probe.port_counters.completer_retry_err // 0)' lossy.json) -gt 0 ]] ||
	fail "sender: no sequence NAK or retry reported on a lossy path"
lab_put lossy-json 1
lab_get snapped >/dev/null
# The same run in text: the counters and what they mean.
"$RDMACTL" probe "$LAB_PEER_IP" -s 64K -n 50 --lat-iters 0 >lossy.txt 2>&1
cat lossy.txt
grep -q "^  rxe0/1 counters that grew during the run" lossy.txt || fail "lossy text: no counters line"
grep -Eq "^    (rcvd_seq_err|completer_retry_err) \+[0-9]+: " lossy.txt || fail "lossy text: no counter with its meaning"
# doctor --peer runs a one-second probe: the loss is a warning with a fix.
"$RDMACTL" -j doctor --peer "$LAB_PEER_IP" --only peer >doctor.json 2>doctor.err
check_eq "doctor under loss: exit status (a warning)" 0 "$?"
jq -r '.checks[] | select(.id == "peer") | "\(.status)\t\(.found)\t\(.fix)"' doctor.json
check_eq "doctor under loss: peer" warn "$(jq -r '.checks[] | select(.id == "peer") | .status' doctor.json)"
jq -r '.checks[] | select(.id == "peer") | .found' doctor.json |
	grep -Eq "rxe0/1 counted .*(rcvd_seq_err|completer_retry_err) \+[0-9]+.* during the RDMA probe" ||
	fail "doctor under loss: the counters are not named"
jq -r '.checks[] | select(.id == "peer") | .fix' doctor.json | grep -q "lossless path" ||
	fail "doctor under loss: no fix for a lossy path"
lab_put lossy-done 1
exit 0
