#!/bin/bash
# The fleet probe's time (issue: a full matrix of N nodes in about
# (N-1) rounds plus the launcher's start, not N(N-1) tests in a row), on
# the lab's four guests: `rdmactl probe -w` through srun and ssh against
# the same twelve directed two-node probes run one after the other.  From
# the measured start and round, it computes the time of 64 and 1 000 nodes
# both ways.  The pairs of a round share the lab's two host CPUs, so a lab
# round is slower than a real fabric's, where the pairs of a round run on
# separate links; the estimate for many nodes takes the measured round as
# is.  BUILD=DIR picks the binary (default build).  It takes the lab lock
# itself: do not wrap it in flock.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir "$out/t"
cp "$TOP/bench/probe-fleet-lab.sh" "$out/t/"
read -r load _ </proc/loadavg
flock /tmp/rdmactl-lab.lock "$TOP/tests/lab/lab" --guests 4 --bin "$BUILD" --out "$out" \
	--timeout 1200 "$out/t/probe-fleet-lab.sh" >/dev/null 2>&1
res=$(grep -h "^RESULT" "$out"/a/*.log 2>/dev/null)
if [ -z "$res" ]; then
	echo "probe-fleet: the lab gave no result (see tests/lab/README.md)"
	exit 1
fi
echo "probe-fleet: 4 lab guests, host load average $load before, $(cut -d' ' -f1 /proc/loadavg) after"
seq=$(awk '/RESULT sequential/ { print $4 }' <<<"$res")
awk -v seq="$seq" '
/RESULT cluster/ {
	l = $3; wall = $5; start = $7; round = $11; rounds = $13
	printf "  %-5s full matrix of 4: %3d s (agents joined in %.1f s, %d rounds of %.1f s); sequential: %d s\n",
		l, wall, start, rounds, round, seq
	per = seq / 12
	for (n = 64; n <= 1000; n = (n == 64 ? 1000 : 2000))
		printf "  %-5s %4d nodes: about %6.0f s (%.1f h) with -w; %9.0f s (%.0f days) in sequence\n",
			l, n, start + (n - 1) * round, (start + (n - 1) * round) / 3600, n * (n - 1) * per,
			n * (n - 1) * per / 86400
}' <<<"$res"
grep -q 'RESULT seqfail' <<<"$res" && grep 'RESULT seqfail' <<<"$res"
exit 0
