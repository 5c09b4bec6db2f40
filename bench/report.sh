#!/bin/bash
# The HTML report of a 1 000-node probe -w run: the saved document's size,
# what 'rdmactl report' takes to read it and write the page (wall, CPU,
# peak RSS from /usr/bin/time -v), the page's size, and how long headless
# Chromium takes to load and paint it from a file (median of ROUNDS),
# beside issue 25's targets: opens within 10 s, weighs under 10 MB.
# The run is tests/tools/gen-probe-run's (pairs pattern, one slow node): a
# million links.  On a shared machine the wall times are mostly waiting
# for a CPU: the load average is printed with the figures.
#
# Environment: RDMACTL (default build/rdmactl), NODES (default 1000),
# ROUNDS (default 3), CHROMIUM (default chromium).
set -eu -o pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RDMACTL=${RDMACTL:-$TOP/build/rdmactl}
GEN=$(dirname "$RDMACTL")/tests/gen-probe-run
NODES=${NODES:-1000}
ROUNDS=${ROUNDS:-3}
CHROMIUM=${CHROMIUM:-chromium}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for need in /usr/bin/time "$CHROMIUM" "$GEN"; do
	command -v "$need" >/dev/null || { echo "bench/report: $need not found (make unit; Debian packages time, chromium)" >&2; exit 1; }
done

"$GEN" --slow "node$(printf '%0*d' ${#NODES} $((NODES / 2)))" node "$NODES" >"$TMP/run.json"
/usr/bin/time -v "$RDMACTL" report -o "$TMP/page.html" "$TMP/run.json" >/dev/null 2>"$TMP/time"
field() { sed -n "s/^[[:space:]]*$1: //p" "$TMP/time"; }

# load: seconds from start to the DOM after the page's script (Chromium's own start included).
load() {
	local t0=$EPOCHREALTIME
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMP/profile" --proxy-server=127.0.0.1:9 \
		--disable-background-networking --disable-component-update \
		--dump-dom "file://$TMP/page.html" 2>/dev/null | grep -q 'data-ready="1"'
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }'
}
# Chromium alone on an empty page: what the load figure carries of its start.
printf '<!DOCTYPE html><body data-ready="1">' >"$TMP/empty.html"
empty() {
	local t0=$EPOCHREALTIME
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMP/profile" --proxy-server=127.0.0.1:9 \
		--dump-dom "file://$TMP/empty.html" >/dev/null 2>&1
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
LOADS=$(for _ in $(seq "$ROUNDS"); do load; done | median)
EMPTY=$(for _ in $(seq "$ROUNDS"); do empty; done | median)

printf 'report of a %d-node probe -w run (load average %s)\n' "$NODES" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-34s %12s   %s\n' "" "measured" "target / reference"
printf '  %-34s %10.1f MB   %s\n' "saved -j document" "$(stat -c %s "$TMP/run.json" | awk '{ print $1 / 1e6 }')" "(input)"
printf '  %-34s %12s   %s\n' "rdmactl report: wall" "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)')" ""
printf '  %-34s %10s s   %s\n' "rdmactl report: CPU (user + sys)" "$(awk '/User time/ { u = $NF } /System time/ { s = $NF } END { print u + s }' "$TMP/time")" ""
printf '  %-34s %10d MB   %s\n' "rdmactl report: peak RSS" "$(($(field 'Maximum resident set size (kbytes)') / 1024))" ""
printf '  %-34s %10.1f MB   %s\n' "page" "$(stat -c %s "$TMP/page.html" | awk '{ print $1 / 1e6 }')" "under 10 MB"
printf '  %-34s %10s s   %s\n' "Chromium: load and paint (median)" "$LOADS" "within 10 s"
printf '  %-34s %10s s   %s\n' "Chromium: an empty page (median)" "$EMPTY" "(its own start)"
