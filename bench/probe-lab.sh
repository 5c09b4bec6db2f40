#!/bin/bash
# Guest side of bench/probe.sh (run by tests/lab/lab in both guests):
# lab-b runs `rdmactl probe` and `ib_write_bw` alternately against lab-a,
# same size and count, over a short sweep of sizes, and prints
# "RESULT tool size value MiB" lines, both tools in perftest's unit.
# rdmactl polls as ib_write_bw does (RDMACTL_PROBE_BUSY_POLL=1), as in
# tests/lab/t-probe-perf.sh: the guest's one CPU runs the writer and the
# device it measures (rxe), and a writer that polls takes that CPU from it.
# lab-timeout: 900

lab_need_peer
rounds=${BENCH_ROUNDS:-3}
bytes=${BENCH_BYTES:-$((48 << 20))}
read -ra sizes <<<"${BENCH_SIZES:-65536 4096 262144}"
port=18600
bwport=18515

# iters SIZE: writes per run, about BENCH_BYTES of data, 200 at least.
iters() {
	local n=$((bytes / $1))
	echo $((n < 200 ? 200 : n))
}

# order ROUND: the tools in the order lab-b runs them in ROUND (which goes
# first alternates from round to round).
order() {
	if (($1 % 2)); then echo rdmactl ib_write_bw; else echo ib_write_bw rdmactl; fi
}

# Both tools get the same choreography, so neither peer is busier during
# one tool's runs than the other's: for every run lab-a starts that tool's
# server afresh (rdmactl's with --once), says so, and waits for it to end
# without polling anything.
serve() {
	local i s tool
	for i in $(seq "$rounds"); do
		for s in "${sizes[@]}"; do
			for tool in $(order "$i"); do
				lab_get "go-$i-$s-$tool" 600 >/dev/null
				if [[ $tool == rdmactl ]]; then
					timeout 300 "$RDMACTL" probe --server --once --port $port >/dev/null 2>&1 &
					lab_wait_listen $port
				else
					timeout 300 ib_write_bw -d rxe0 -x 1 -F -s "$s" -n "$(iters "$s")" -p $bwport >/dev/null 2>&1 &
					lab_wait_listen $bwport
				fi
				lab_put "up-$i-$s-$tool" 1
				wait $!
			done
		done
	done
}

# serving ROUND SIZE TOOL: have lab-a start TOOL's server, wait until it is up.
serving() {
	lab_put "go-$1-$2-$3" 1
	lab_get "up-$1-$2-$3" 600 >/dev/null
}

# run_probe ROUND SIZE N: rdmactl's average in MB/s (10^6 B/s).
run_probe() {
	serving "$1" "$2" rdmactl
	RDMACTL_PROBE_BUSY_POLL=1 timeout 300 "$RDMACTL" -j probe "$LAB_PEER_IP" --port $port -s "$2" -n "$3" --lat-iters 0 |
		jq -r '.results[0].bw_avg_MBps'
}

# run_bw ROUND SIZE N: ib_write_bw's output.
run_bw() {
	serving "$1" "$2" ib_write_bw
	timeout 300 ib_write_bw -d rxe0 -x 1 -F -s "$2" -n "$3" -p $bwport "$LAB_PEER_IP" 2>&1
}

# perftest's figure is 2^20 B/s whatever its label (MB/sec in older
# releases, MiB/sec in newer): rdmactl's bw_avg_MBps (10^6 B/s) is
# converted to it.  Which tool goes first alternates from round to round.
measure() {
	local i s n out bw pr tool
	sleep 2
	for i in $(seq "$rounds"); do
		for s in "${sizes[@]}"; do
			n=$(iters "$s")
			for tool in $(order "$i"); do
				if [[ $tool == rdmactl ]]; then
					pr=$(run_probe "$i" "$s" "$n")
				else
					out=$(run_bw "$i" "$s" "$n")
				fi
			done
			bw=$(awk -v s="$s" '$1 == s && NF >= 5 { print $4 }' <<<"$out")
			pr=$(awk -v m="${pr:-0}" 'BEGIN { printf "%.2f", m / 1.048576 }')
			echo "RESULT rdmactl $s $pr MiB"
			echo "RESULT ib_write_bw $s ${bw:-0} MiB"
		done
	done
}

if [[ $LAB_NODE == a ]]; then serve; else measure; fi
