#!/bin/bash
# The cluster report of 1 000 gathered node documents against running the
# per-node checks 1 000 times in sequence.  The documents are real
# 'rdmactl -j doctor --root FIXTURE' output of recorded nodes, varied (a
# healthy node with three ports, the field notes' broken node, an old
# NCCL, one variable set otherwise, a node where rdmactl is missing),
# each named after its node and gathered as pdsh prints them.  Prints the
# median wall and CPU (user + system) times and the peak RSS of 'rdmactl
# doctor --gathered' (text and -j) from /usr/bin/time -v, and the times of
# the sequence.  Target (issue 13): the report under 1 s and under 200 MB.
# On a shared machine the wall time is mostly waiting for a CPU: the load
# average is printed with the figures, and the verdict rests on CPU time.
#
# Environment: RDMACTL (default build/rdmactl), ROUNDS (default 5),
# NODES (default 1000), SEQ_RUNS (default NODES: runs of the sequence
# actually made; fewer are scaled up to NODES, and it says so).
set -eu -o pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RDMACTL=${RDMACTL:-$TOP/build/rdmactl}
ROUNDS=${ROUNDS:-5}
NODES=${NODES:-1000}
SEQ_RUNS=${SEQ_RUNS:-$NODES}
FIX=$TOP/tests/fixtures
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ ! -x /usr/bin/time ]; then
	echo "bench/doctor-report: /usr/bin/time not installed (Debian package time)" >&2
	exit 1
fi
unset NCCL_IB_HCA NCCL_SOCKET_IFNAME NCCL_IB_GID_INDEX UCX_NET_DEVICES UCX_IB_GID_INDEX

# variant NAME ROOT [VAR=VALUE...]: one real document, on one line.
variant() {
	local name=$1 root=$2
	shift 2
	env "$@" "$RDMACTL" -j --root "$root" doctor >"$TMP/$name.json" || [ $? -eq 1 ]
}
variant healthy "$FIX/doctor-healthy" NCCL_IB_HCA==mlx5_0
variant broken "$FIX/doctor-broken" NCCL_IB_HCA==mlx5_0
variant oldnccl "$FIX/doctor-nccl-old" NCCL_IB_HCA==mlx5_0
variant odd "$FIX/doctor-healthy" NCCL_IB_HCA=mlx5_0

# Node i: mostly healthy; every 97th broken, every 89th an old NCCL, every
# 71st with its own NCCL_IB_HCA, every 211th without rdmactl.  Each
# document names its node (node.hostname), as on a live node.
awk -v n="$NODES" -v dir="$TMP" '
function load(name,   line) { getline line < (dir "/" name ".json"); return line }
BEGIN {
	doc["healthy"] = load("healthy"); doc["broken"] = load("broken")
	doc["oldnccl"] = load("oldnccl"); doc["odd"] = load("odd")
	for (i = 1; i <= n; i++) {
		host = sprintf("node%04d", i)
		if (i % 211 == 0) {
			print host ": bash: line 1: rdmactl: command not found"
			print "pdsh@login: " host ": ssh exited with exit code 127"
			continue
		}
		v = i % 97 == 0 ? "broken" : i % 89 == 0 ? "oldnccl" : i % 71 == 0 ? "odd" : "healthy"
		d = doc[v]
		sub(/"hostname":null/, "\"hostname\":\"" host "\"", d)
		print host ": " d
	}
}' >"$TMP/pdsh.out"

# The report must find what was made, or the timing means nothing.
want="$NODES nodes: $((NODES / 97 - NODES / (97 * 211))) failed"
"$RDMACTL" doctor --gathered "$TMP/pdsh.out" >"$TMP/report" || [ $? -eq 1 ]
if ! grep -q "^$want" "$TMP/report"; then
	echo "bench/doctor-report: the report says '$(grep ' nodes: ' "$TMP/report")', expected '$want, ...'" >&2
	exit 1
fi

# timed OUT CMD...: run CMD under /usr/bin/time -v; appends "wall_ms cpu_ms kB" to OUT.
timed() {
	local out=$1
	shift
	/usr/bin/time -v -o "$TMP/time" "$@" >/dev/null || [ $? -eq 1 ]
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
			for (i = 1; i <= n; i++) s = s * 60 + t[i]; ms = s * 1000 }
		/User time|System time/ { cpu += $2 * 1000 }
		/Maximum resident set size/ { kb = $2 }
		END { printf "%.0f %.0f %d\n", ms, cpu, kb }' "$TMP/time" >>"$out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$TMP/text"
: >"$TMP/json"
for ((i = 0; i < ROUNDS; i++)); do
	timed "$TMP/text" "$RDMACTL" doctor --gathered "$TMP/pdsh.out"
	timed "$TMP/json" "$RDMACTL" -j doctor --gathered "$TMP/pdsh.out"
done

# The per-node checks, one node after another (no launcher): SEQ_RUNS runs.
: >"$TMP/seq"
timed "$TMP/seq" bash -c 'for ((i = 0; i < $2; i++)); do
	"$0" -j --root "$1" doctor >/dev/null || [ $? -eq 1 ]; done' "$RDMACTL" "$FIX/doctor-healthy" "$SEQ_RUNS"

col() { cut -d' ' -f"$1" "$2" | median; }
awk -v n="$NODES" -v r="$ROUNDS" -v bytes="$(wc -c <"$TMP/pdsh.out")" \
	-v tw="$(col 1 "$TMP/text")" -v tc="$(col 2 "$TMP/text")" -v tk="$(col 3 "$TMP/text")" \
	-v jw="$(col 1 "$TMP/json")" -v jc="$(col 2 "$TMP/json")" -v jk="$(col 3 "$TMP/json")" \
	-v sw="$(col 1 "$TMP/seq")" -v sc="$(col 2 "$TMP/seq")" -v sr="$SEQ_RUNS" \
	-v load="$(cut -d' ' -f1 /proc/loadavg)" -v cpus="$(nproc)" 'BEGIN {
	printf "doctor report: %d gathered node documents (%.1f MB of pdsh output), %d rounds, load %s on %d CPUs\n", n, bytes / 1e6, r, load, cpus
	printf "  %-44s %9s %9s %10s\n", "", "wall", "CPU", "peak RSS"
	printf "  %-44s %6.0f ms %6.0f ms %7.1f MB\n", "rdmactl doctor --gathered FILE (median)", tw, tc, tk / 1024
	printf "  %-44s %6.0f ms %6.0f ms %7.1f MB\n", "rdmactl -j doctor --gathered FILE (median)", jw, jc, jk / 1024
	k = n / sr
	printf "  %-44s %6.0f ms %6.0f ms\n", sprintf("%d x rdmactl -j doctor --root FIX, in turn", n), sw * k, sc * k
	if (sr != n)
		printf "    (%d runs made, scaled up to %d)\n", sr, n
	printf "  the report costs %.1f%% of the CPU time of the checks in turn\n", 100 * (tc > jc ? tc : jc) / (sc * k)
	met = tc < 1000 && jc < 1000 && tk < 200 * 1024 && jk < 200 * 1024
	printf "  target (< 1 s of CPU, < 200 MB): %s%s\n", met ? "met" : "NOT met",
		tw < 1000 && jw < 1000 ? "; wall time too" : "; the wall time waited for a CPU"
}'
