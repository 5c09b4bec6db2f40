#!/bin/bash
# Peak memory of 'rdmactl doctor --gathered' against the size of its input
# (issue 27): many ordinary node documents, and a few documents near the
# 4 MiB a node may send: long findings, as many checks as a document may
# hold (FLEET_DOC_OBJECTS_MAX objects), and the smallest JSON objects
# past that (which cost json-c the most memory per byte; each node is
# refused as no doctor document, unparsed).  Prints for each input its size, the peak RSS and the seconds of
# the report (text and -j) from /usr/bin/time -v, and the same of REF (an
# older rdmactl) beside them when given.
#
# Reference (before the report read one document at a time): 65 536
# documents, 107 MB in, peaked at 1.24 GB and 13.7 s; ten 4 MB documents
# at 1.41 GB.
#
# Environment: RDMACTL (default build/rdmactl), REF (an rdmactl to
# compare with; none by default), NODES (default 65536), BIG (documents
# near 4 MiB, default 10).
set -eu -o pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RDMACTL=${RDMACTL:-$TOP/build/rdmactl}
REF=${REF:-}
NODES=${NODES:-65536}
BIG=${BIG:-10}
FIX=$TOP/tests/fixtures
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for tool in /usr/bin/time jq; do
	if [ ! -x "$tool" ] && ! command -v "$tool" >/dev/null; then
		echo "bench/doctor-gathered-memory: $tool not installed (Debian packages time, jq)" >&2
		exit 1
	fi
done
unset NCCL_IB_HCA NCCL_SOCKET_IFNAME NCCL_IB_GID_INDEX UCX_NET_DEVICES UCX_IB_GID_INDEX

# One real document on one line: a recorded healthy node with three ports.
NCCL_IB_HCA==mlx5_0 "$RDMACTL" -j --root "$FIX/doctor-healthy" doctor >"$TMP/doc.json" || [ $? -eq 1 ]

# NODES nodes as pdsh prints them, each document naming its node.
awk -v n="$NODES" -v doc="$TMP/doc.json" 'BEGIN {
	getline d < doc
	for (i = 1; i <= n; i++) {
		host = sprintf("node%05d", i); x = d
		sub(/"hostname":null/, "\"hostname\":\"" host "\"", x)
		print host ": " x
	}
}' >"$TMP/ordinary.out"

# big NAME JQ: BIG nodes, each with the document JQ makes of the real one.
big() {
	jq -c "$2" "$TMP/doc.json" >"$TMP/$1.json"
	for ((i = 1; i <= BIG; i++)); do
		printf 'big%02d: ' "$i"
		cat "$TMP/$1.json"
	done >"$TMP/$1.out"
}
big long-found '.checks |= map(.found = (.found * 2500))'
big many-checks '.checks as $c | .checks = [range(16000) as $i | $c[$i % ($c | length)]]'
big tiny-objects '.checks = [range(150000) | {id: "c", status: "ok"}]'

# measure BIN FILE [-j]: "peak_kB seconds" of one report.
measure() {
	local bin=$1 file=$2
	shift 2
	/usr/bin/time -v -o "$TMP/time" "$bin" "$@" doctor --gathered "$file" >/dev/null || [ $? -eq 1 ]
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
			for (i = 1; i <= n; i++) s = s * 60 + t[i] }
		/Maximum resident set size/ { kb = $2 }
		END { printf "%d %.1f\n", kb, s }' "$TMP/time"
}

# row LABEL FILE [-j]: one line of the table.
row() {
	local label=$1 file=$2 bytes m r=""
	shift 2
	bytes=$(wc -c <"$file")
	m=$(measure "$RDMACTL" "$file" "$@")
	[ -n "$REF" ] && r=$(measure "$REF" "$file" "$@")
	awk -v l="$label" -v b="$bytes" -v m="$m" -v r="$r" 'BEGIN {
		split(m, a, " "); mb = a[1] / 1024
		printf "  %-28s %8.1f MB %9.1f MB %6.1fx %7.1f s", l, b / 1e6, mb, mb * 1048576 / b, a[2]
		if (r != "") { split(r, c, " "); printf "   | %9.1f MB %6.1fx %7.1f s", c[1] / 1024, c[1] * 1024 / b, c[2] }
		printf "\n"
	}'
}

echo "doctor --gathered: peak RSS against the input, load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs"
printf "  %-28s %11s %12s %7s %9s%s\n" "input" "in" "peak RSS" "x in" "time" "${REF:+   | REF: peak RSS, x in, time}"
row "$NODES documents" "$TMP/ordinary.out"
row "$NODES documents, -j" "$TMP/ordinary.out" -j
row "$BIG x 4 MB, long findings" "$TMP/long-found.out"
row "$BIG x 4 MB, long findings, -j" "$TMP/long-found.out" -j
row "$BIG x 16 000 checks" "$TMP/many-checks.out"
row "$BIG x 16 000 checks, -j" "$TMP/many-checks.out" -j
row "$BIG x 4 MB, tiny objects" "$TMP/tiny-objects.out"
