#!/bin/bash
# Guest side of bench/probe.sh (run by tests/lab/lab in both guests):
# lab-b runs `rdmactl probe` and `ib_write_bw` alternately against lab-a,
# same size and count, and prints "RESULT tool size MiB/s" lines.
# lab-timeout: 900

lab_need_peer
rounds=${BENCH_ROUNDS:-3}
n=${BENCH_ITERS:-1000}
sizes=(65536 4096 262144)
port=18600

serve() {
	local i s
	"$RDMACTL" probe --server --port $port >/dev/null 2>&1 &
	for i in $(seq "$rounds"); do
		for s in "${sizes[@]}"; do
			lab_get "go-$i-$s" 600 >/dev/null
			timeout 300 ib_write_bw -d rxe0 -x 1 -F -s "$s" -n "$n" >/dev/null 2>&1 &
			sleep 1
			lab_put "up-$i-$s" 1
			wait $!
		done
	done
	kill %1
}

measure() {
	local i s bw pr
	sleep 2
	for i in $(seq "$rounds"); do
		for s in "${sizes[@]}"; do
			pr=$(timeout 300 "$RDMACTL" -j probe "$LAB_PEER_IP" -s "$s" -n "$n" --lat-iters 0 |
				jq -r '.results[0].bw_avg_MBps / 1.048576')
			lab_put "go-$i-$s" 1
			lab_get "up-$i-$s" 600 >/dev/null
			bw=$(timeout 300 ib_write_bw -d rxe0 -x 1 -F -s "$s" -n "$n" "$LAB_PEER_IP" 2>/dev/null |
				awk -v s="$s" '$1 == s && NF >= 5 { print $4 }')
			echo "RESULT rdmactl $s $pr"
			echo "RESULT ib_write_bw $s $bw"
		done
	done
}

if [[ $LAB_NODE == a ]]; then serve; else measure; fi
