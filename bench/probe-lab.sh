#!/bin/bash
# Guest side of bench/probe.sh (run by tests/lab/lab in both guests):
# lab-b runs `rdmactl probe` and `ib_write_bw` alternately against lab-a,
# same size and count, over a short sweep of sizes, and prints
# "RESULT tool size value MiB" lines, both tools in perftest's unit.
# lab-timeout: 900

lab_need_peer
rounds=${BENCH_ROUNDS:-3}
bytes=${BENCH_BYTES:-$((48 << 20))}
sizes=(65536 4096 262144)
port=18600
bwport=18515

# iters SIZE: writes per run, about BENCH_BYTES of data, 200 at least.
iters() {
	local n=$((bytes / $1))
	echo $((n < 200 ? 200 : n))
}

serve() {
	local i s
	"$RDMACTL" probe --server --port $port >/dev/null 2>&1 &
	for i in $(seq "$rounds"); do
		for s in "${sizes[@]}"; do
			lab_get "go-$i-$s" 600 >/dev/null
			timeout 300 ib_write_bw -d rxe0 -x 1 -F -s "$s" -n "$(iters "$s")" -p $bwport >/dev/null 2>&1 &
			sleep 1
			lab_put "up-$i-$s" 1
			wait $!
		done
	done
	# With an even number of rounds the last run is rdmactl's, after the
	# last ib_write_bw: keep its server up until lab-b is done.
	lab_get measured 600 >/dev/null
	kill %1
}

# run_probe SIZE N: rdmactl's average in MB/s (10^6 B/s).
run_probe() {
	timeout 300 "$RDMACTL" -j probe "$LAB_PEER_IP" --port $port -s "$1" -n "$2" --lat-iters 0 |
		jq -r '.results[0].bw_avg_MBps'
}

# run_bw ROUND SIZE N: ib_write_bw's output, its server started on lab-a.
run_bw() {
	lab_put "go-$1-$2" 1
	lab_get "up-$1-$2" 600 >/dev/null
	timeout 300 ib_write_bw -d rxe0 -x 1 -F -s "$2" -n "$3" -p $bwport "$LAB_PEER_IP" 2>&1
}

# perftest's figure is 2^20 B/s whatever its label (MB/sec in older
# releases, MiB/sec in newer): rdmactl's bw_avg_MBps (10^6 B/s) is
# converted to it.  Which tool goes first alternates from round to round.
measure() {
	local i s n out bw pr
	sleep 2
	for i in $(seq "$rounds"); do
		for s in "${sizes[@]}"; do
			n=$(iters "$s")
			if ((i % 2)); then
				pr=$(run_probe "$s" "$n")
				out=$(run_bw "$i" "$s" "$n")
			else
				out=$(run_bw "$i" "$s" "$n")
				pr=$(run_probe "$s" "$n")
			fi
			bw=$(awk -v s="$s" '$1 == s && NF >= 5 { print $4 }' <<<"$out")
			pr=$(awk -v m="${pr:-0}" 'BEGIN { printf "%.2f", m / 1.048576 }')
			echo "RESULT rdmactl $s $pr MiB"
			echo "RESULT ib_write_bw $s ${bw:-0} MiB"
		done
	done
	lab_put measured 1
}

if [[ $LAB_NODE == a ]]; then serve; else measure; fi
