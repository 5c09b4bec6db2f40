#!/bin/bash
# rdmactl probe against the reference tools:
#  - RDMA: `rdmactl probe` and perftest's `ib_write_bw`, alternately, on the
#    lab's Soft-RoCE link (two QEMU guests), at 64 KiB, 4 KiB and 256 KiB,
#    in ib_write_bw's unit (2^20 B/s, labelled MB/sec by older perftest);
#  - TCP: `rdmactl probe --transport tcp` and `iperf3` on a host veth pair
#    between two network namespaces (root).
# Prints each figure and the ratio rdmactl / reference (targets: >= 0.95
# for RDMA, >= 0.9 for TCP).  BUILD=DIR picks the binary (default build);
# BENCH_ROUNDS (default 3), BENCH_BYTES (per run, default 48 MiB) and
# BENCH_SIZES (default "65536 4096 262144") size the RDMA rounds.  It
# takes the lab lock itself: do not wrap it in flock.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
RDMACTL=$BUILD/rdmactl

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'; }

tcp_bench() {
	local ns1=bench-probe-s.$$ ns2=bench-probe-c.$$ pr ip
	ip netns add $ns1 && ip netns add $ns2 || { echo "tcp: needs root and ip netns"; return; }
	trap 'ip netns del '$ns1' 2>/dev/null; ip netns del '$ns2' 2>/dev/null' RETURN
	ip link add vb-s$$ netns $ns1 type veth peer name vb-c$$ netns $ns2
	ip -n $ns1 addr add 10.77.0.1/24 dev vb-s$$ && ip -n $ns2 addr add 10.77.0.2/24 dev vb-c$$
	ip -n $ns1 link set vb-s$$ up && ip -n $ns2 link set vb-c$$ up
	ip netns exec $ns1 "$RDMACTL" probe --server >/dev/null 2>&1 &
	ip netns exec $ns1 iperf3 -s >/dev/null 2>&1 &
	sleep 1
	local ratios=()
	for _ in $(seq "${TCP_ROUNDS:-5}"); do
		pr=$(ip netns exec $ns2 "$RDMACTL" -j probe 10.77.0.1 --transport tcp -s 128K -D 3 --lat-iters 0 |
			jq -r .results[0].bw_avg_gbps)
		ip=$(ip netns exec $ns2 iperf3 -J -c 10.77.0.1 -t 3 | jq -r '.end.sum_received.bits_per_second / 1e9')
		ratios+=("$(ratio "$pr" "$ip")")
		printf 'tcp veth   128K  rdmactl %8.3f Gb/s  iperf3 %8.3f Gb/s  ratio %s\n' "$pr" "$ip" "${ratios[-1]}"
	done
	# The host is shared: one round can be unlucky, the median says more.
	printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "tcp veth   median ratio %s over %d rounds\n", v[int((NR + 1) / 2)], NR }'
	ip netns pids $ns1 | xargs -r kill
}

rdma_bench() {
	local out rounds=${BENCH_ROUNDS:-3} limit load
	out=$(mktemp -d)
	# The guests get only the lab's environment, not ours: BENCH_ROUNDS and
	# BENCH_BYTES reach probe-lab.sh through a wrapper the lab runs instead,
	# its time limit grown with the rounds (a round takes about a minute).
	limit=$((120 + 180 * rounds))
	mkdir "$out/t"
	{
		echo "# lab-timeout: $limit"
		printf 'BENCH_ROUNDS=%q BENCH_BYTES=%q BENCH_SIZES=%q\n' "$rounds" "${BENCH_BYTES:-$((48 << 20))}" \
			"${BENCH_SIZES:-65536 4096 262144}"
		printf '. %q\n' "$TOP/bench/probe-lab.sh"
	} >"$out/t/probe-lab.sh"
	# The guests share the host's CPUs with whatever else runs: its load
	# says how far to trust the figures.
	read -r load _ </proc/loadavg
	flock /tmp/rdmactl-lab.lock "$TOP/tests/lab/lab" --bin "$BUILD" --out "$out" --timeout $((limit + 120)) \
		"$out/t/probe-lab.sh" >/dev/null
	echo "rdma lab   $rounds rounds; host load average $load before, $(cut -d' ' -f1 /proc/loadavg) after, on $(nproc) CPUs"
	# Per size: each tool's runs and mean, the ratio of the means, and the
	# median of the per-round ratios (the link is noisy: rounds differ).
	grep -h '^RESULT' "$out"/b/*probe-lab.log | awk '
		function median(s,   i, j, n, t, v) {
			n = split(s, v, " ")
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}
		{ u = $5 }
		$2 == "rdmactl" { r[$3] = r[$3] " " $4; rs[$3] += $4; rn[$3]++; last[$3] = $4 }
		$2 == "ib_write_bw" { p[$3] = p[$3] " " $4; ps[$3] += $4; pn[$3]++; if ($4 > 0) q[$3] = q[$3] " " last[$3] / $4 }
		function spread(s,   i, n, v, lo, hi) {
			n = split(s, v, " ")
			lo = hi = v[1]
			for (i = 2; i <= n; i++) { if (v[i] + 0 < lo + 0) lo = v[i]; if (v[i] + 0 > hi + 0) hi = v[i] }
			return sprintf("%.2f-%.2f", lo, hi)
		}
		END { for (s in rs) printf "rdma lab %7d B  rdmactl %.2f %s/s (%s )  ib_write_bw %.2f %s/s (%s )  ratio of means %.3f, median ratio %.3f (rounds %s)\n",
			s, rs[s] / rn[s], u, r[s], ps[s] / pn[s], u, p[s], (rs[s] / rn[s]) / (ps[s] / pn[s]), median(q[s]), spread(q[s]) }'
	rm -rf "$out"
}

case ${1:-all} in
tcp) tcp_bench ;;
rdma) rdma_bench ;;
*) tcp_bench; rdma_bench ;;
esac
