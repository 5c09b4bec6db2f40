#!/bin/bash
# rdmactl env as the TaskProlog runs it before every task, on a generated
# node of 8 devices x 1 port x 64 GIDs (many-gids.sh; each port's netdev
# made present), for nccl and for mpi: the median wall time of ROUNDS runs
# each, and the same with the ports needing different GID indexes (every
# other rail's table with its IPv4 entries moved up, so the plan that
# leaves the index to the library runs too).  Target: under 50 ms.
#
# Environment: RDMACTL (default build/rdmactl), ROUNDS (default 21).
set -eu -o pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RDMACTL=${RDMACTL:-$TOP/build/rdmactl}
ROUNDS=${ROUNDS:-21}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

FIX=$TMP/node
"$TOP/tests/fixtures/many-gids.sh" "$FIX" 8 1 64
for ((d = 0; d < 8; d++)); do
	mkdir -p "$FIX/sys/class/net/ens$((d + 1))f0np0"
	echo up >"$FIX/sys/class/net/ens$((d + 1))f0np0/operstate"
done
# A libnccl of 2.21 or later, so that differing indexes have a plan.
mkdir -p "$FIX/usr/lib/x86_64-linux-gnu"
: >"$FIX/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5"

# ms CMD...: run CMD, stdout to a file; print its wall time in ms.
ms() {
	local t0 t1
	t0=$EPOCHREALTIME
	"$@" >"$TMP/out" 2>/dev/null
	t1=$EPOCHREALTIME
	echo $(((${t1/./} - ${t0/./}))) | awk '{ printf "%.3f\n", $1 / 1000 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run LABEL FOR: the median of ROUNDS runs of env --for FOR; the lines must be there.
run() {
	: >"$TMP/t"
	for ((i = 0; i < ROUNDS; i++)); do
		ms "$RDMACTL" --root "$FIX" env --for "$2" >>"$TMP/t"
	done
	"$RDMACTL" --root "$FIX" env --for "$2" >"$TMP/out"
	grep -q '^export ' "$TMP/out" || { echo "bench/env: no lines for --for $2" >&2; exit 1; }
	printf '  %-34s median %7.1f ms\n' "$1" "$(median <"$TMP/t")"
	median <"$TMP/t" >>"$TMP/all"
}

: >"$TMP/all"
echo "env: 8 devices x 1 port x 64 GIDs, $ROUNDS runs each"
run "--for nccl, one index" nccl
run "--for mpi, one index" mpi
# Odd rails: an IPv6 address before the IPv4 one (entries 2,3 swapped with
# 4,5), so their first RoCE v2 IPv4 entry is index 5, the others' 3.
for ((d = 1; d < 8; d += 2)); do
	g=$FIX/sys/class/infiniband/mlx5_$d/ports/1/gids
	for i in 2 3; do
		mv "$g/$i" "$TMP/x" && mv "$g/$((i + 2))" "$g/$i" && mv "$TMP/x" "$g/$((i + 2))"
	done
done
"$RDMACTL" --root "$FIX" -v env --for nccl 2>&1 >/dev/null | grep -q 'need GID indexes 3 and 5' ||
	{ echo "bench/env: the rails do not differ as meant" >&2; exit 1; }
run "--for nccl, indexes 3 and 5" nccl
worst=$(sort -n "$TMP/all" | tail -1)
awk -v w="$worst" 'BEGIN { printf "  target (< 50 ms): %s (worst median %.1f ms)\n", w < 50 ? "met" : "NOT met", w }'
