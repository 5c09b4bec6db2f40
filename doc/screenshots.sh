#!/bin/bash
# The README's picture of the HTML report: a generated 64-node probe -w
# run (node37 slow, node12 blocked) through rdmactl report, shot by
# headless Chromium, as OUTDIR/report-64.png; with FOUR, the four-node
# report of tests/fixtures/report (t4-probe's faults, a doctor -w of
# recorded nodes) as FOUR, for a look.
# Usage: doc/screenshots.sh [OUTDIR [FOUR]] (default doc/); needs make unit and chromium.
set -eu -o pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$TOP/doc}
RDMACTL=${RDMACTL:-$TOP/build/rdmactl}
GEN=$(dirname "$RDMACTL")/tests/gen-probe-run
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

shot() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
		--user-data-dir="$TMP/profile" --proxy-server=127.0.0.1:9 --window-size="$2" \
		--screenshot="$3" "file://$1" >/dev/null 2>&1
}
"$GEN" --slow node37 --blocked node12 node 64 >"$TMP/probe-64.json"
"$RDMACTL" report -o "$TMP/64.html" "$TMP/probe-64.json" >/dev/null
shot "$TMP/64.html" 1080,1450 "$OUT/report-64.png"
ls -l "$OUT/report-64.png"
[ $# -ge 2 ] || exit 0
"$RDMACTL" report -o "$TMP/4.html" "$TOP/tests/fixtures/report/doctor-4.json" \
	"$TOP/tests/fixtures/report/probe-4.json" >/dev/null
shot "$TMP/4.html" 1000,2400 "$2"
ls -l "$2"
