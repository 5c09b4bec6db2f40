#!/bin/bash
# rdmactl probe against perftest's ib_write_bw on the same link, same size
# and count, run back to back between the same guests: the two averages
# must be within 25% of each other (these are emulated CPUs; the bench/
# script measures the ratio properly).
# lab-timeout: 240

lab_need_peer

n=300
size=65536
port=18600
bwport=18515

if [[ $LAB_NODE == a ]]; then
	"$RDMACTL" probe --server --once --port $port >probe-server.out 2>&1 &
	probe=$!
	timeout 100 ib_write_bw -d rxe0 -x 1 -F -s $size -n $n -p $bwport >bw-server.out 2>&1 &
	bw=$!
	for _ in $(seq 50); do
		ss -Hltn "sport = :$port" | grep -q . && ss -Hltn "sport = :$bwport" | grep -q . && break
		sleep 0.2
	done
	lab_put servers-up 1
	wait "$probe" || fail "probe server exited with $?"
	wait "$bw" || fail "ib_write_bw server exited with $?"
	cat probe-server.out bw-server.out
	exit 0
fi

lab_get servers-up >/dev/null
timeout 100 "$RDMACTL" -j probe "$LAB_PEER_IP" -s $size -n $n --lat-iters 0 >probe.json ||
	fail "rdmactl probe exited with $?"
for try in 1 2 3; do
	timeout 100 ib_write_bw -d rxe0 -x 1 -F -s $size -n $n -p $bwport "$LAB_PEER_IP" >bw.out 2>&1 && break
	sleep 1
done
cat bw.out
jq -c '.results[0]' probe.json
# ib_write_bw: "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"
bw_mib=$(awk -v s=$size '$1 == s && NF >= 5 { print $4 }' bw.out)
probe_mb=$(jq -r '.results[0].bw_avg_MBps' probe.json)
[[ -n $bw_mib && -n $probe_mb && $probe_mb != null ]] || { fail "no result to compare"; exit 1; }
# perftest's MB/sec is 2^20 B/s: its code divides by 0x100000, and newer
# releases label the same number MiB/sec. rdmactl's MB/s is 10^6 B/s.
unit=MiB
probe_same=$(awk -v m="$probe_mb" 'BEGIN { printf "%.2f", m / 1.048576 }')
ratio=$(awk -v a="$probe_same" -v b="$bw_mib" 'BEGIN { printf "%.3f", a / b }')
echo "ib_write_bw ${bw_mib} $unit/s, rdmactl probe ${probe_same} $unit/s, ratio $ratio"
awk -v r="$ratio" 'BEGIN { exit !(r >= 0.75 && r <= 1.25) }' ||
	fail "averages differ by more than 25%: ratio $ratio"
