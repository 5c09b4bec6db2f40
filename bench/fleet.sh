#!/bin/bash
# The coordinator at a fleet's size, on this one machine: `rdmactl probe
# -w` and `rdmactl doctor -w` against N real rdmactl processes started by
# pdsh's exec module (--launcher local), the probe's tests over TCP on the
# loopback (each node's server on its own 127.1.x.y), the doctor on a
# fixture root.  For each size it prints what the coordinator costs: the
# time for every agent to join, beside pdsh alone starting N commands
# that do nothing (the launcher's own share); the coordinator's peak RSS
# and open descriptors; its CPU while the steps run (it only waits on the
# agents then); the time from the last step to the report's end; the
# report's widest line; and the doctor's time, RSS and descriptors.
# Sizes of more than a few hundred take minutes on two cores.
#
#   bench/fleet.sh [N...]        default: 128 256 1000
#
# Runs under the open-files limit a login gets (ulimit -Sn 1024: rdmactl
# raises its own), at nice 10.  BUILD=DIR picks the binary (default
# build); PATTERN (default quick) and DURATION (default 1) the probe's.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
R=$BUILD/rdmactl
PATTERN=${PATTERN:-quick}
DURATION=${DURATION:-1}
FIXTURE=$TOP/tests/fixtures/doctor-healthy
[ $# -gt 0 ] || set -- 128 256 1000
command -v pdsh >/dev/null || { echo "fleet: pdsh is not installed (Debian package pdsh)"; exit 1; }
[ -x "$R" ] || { echo "fleet: no $R; run make first"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
hz=$(getconf CLK_TCK)

# Samples of process $1 every 0.2 s until it ends: time, VmHWM (kB), open
# descriptors, CPU ticks (user + system).
watch() {
	local pid=$1 f=$2 hwm fds t
	while [ -d "/proc/$pid" ]; do
		hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
		t=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null)
		[ -n "$hwm" ] && [ -n "$t" ] && echo "$(date +%s.%N) $hwm $fds $t" >>"$f"
		sleep 0.2
	done
}

# Run rdmactl with the arguments, its stdout and stderr into $out/$1.*,
# watched; the wall time into $out/$1.wall.
measure() {
	local name=$1 pid t0
	shift
	t0=$(date +%s.%N)
	(
		ulimit -Sn 1024
		exec nice -n 10 "$R" "$@"
	) >"$out/$name.out" 2>"$out/$name.err" &
	pid=$!
	: >"$out/$name.samples"
	watch "$pid" "$out/$name.samples" &
	wait "$pid"
	echo $? >"$out/$name.rc"
	wait
	echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f\n", $2 - $1 }' >"$out/$name.wall"
}

peak() { awk -v c="$2" 'BEGIN { m = 0 } $c > m { m = $c } END { print m }' "$out/$1.samples"; }

printf '%-6s %-8s %9s %9s %9s %9s %7s %9s %9s %7s %9s %9s %7s\n' nodes joined "join_s" "pdsh_s" \
	"steps_s" "rss_MB" fds "cpu_steps" "report_s" width "doctor_s" "doc_MB" "doc_fd"
for n in "$@"; do
	list=$(printf 'node[%04d-%04d]' 1 "$n")
	# The launcher alone: N commands that do nothing, all at once.
	t0=$(date +%s.%N)
	(ulimit -Sn 4096 && nice -n 10 pdsh -R exec -f "$n" -w "$list" true >/dev/null 2>&1)
	pdsh_s=$(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
	measure "probe$n" probe -w "$list" --launcher local --rdmactl "$R" --transport tcp \
		--pattern "$PATTERN" -D "$DURATION" --lat-iters 0 --port $((20000 + n)) --node-timeout 600
	read -r joined _ _ _ _ _ join_s _ _ _ _ _ _ steps_s _ < <(grep -m1 ' nodes joined in ' "$out/probe$n.out")
	# The coordinator's CPU over the steps: between the samples at their start and end.
	cpu=$(awk -v hz="$hz" -v a="$join_s" -v b="$steps_s" '
		NR == 1 { t0 = $1 }
		$1 - t0 <= a { c0 = $4 }
		$1 - t0 <= a + b { c1 = $4 }
		END { if (b > 0) printf "%.1f%%", (c1 - c0) / hz / b * 100; else print "-" }' "$out/probe$n.samples")
	report_s=$(awk -v w="$(cat "$out/probe$n.wall")" -v a="$join_s" -v b="$steps_s" \
		'BEGIN { printf "%.1f", w - a - b }')
	width=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$out/probe$n.out")
	measure "doctor$n" --root "$FIXTURE" doctor -w "$list" --launcher local --rdmactl "$R" \
		--fanout 64
	printf '%-6s %-8s %9s %9s %9s %9s %7s %9s %9s %7s %9s %9s %7s\n' "$n" "${joined:-0}/$n" \
		"${join_s:--}" "$pdsh_s" "${steps_s:--}" \
		"$(awk -v k="$(peak "probe$n" 2)" 'BEGIN { printf "%.1f", k / 1024 }')" \
		"$(peak "probe$n" 3)" "$cpu" "$report_s" "$width" "$(cat "$out/doctor$n.wall")" \
		"$(awk -v k="$(peak "doctor$n" 2)" 'BEGIN { printf "%.1f", k / 1024 }')" \
		"$(peak "doctor$n" 3)"
	# Exit 1 is a finding (a thousand tests at once on two cores make slow
	# links); what the run could not do is worth its lines.
	down=$(grep -o '[0-9]* nodes down' "$out/probe$n.out" | cut -d' ' -f1)
	if [ "$(cat "$out/probe$n.rc")" -gt 1 ] || [ "$(cat "$out/doctor$n.rc")" -gt 1 ] ||
		[ -n "$down" ] || [ "${joined:-0}" != "$n" ]; then
		echo "  probe exit $(cat "$out/probe$n.rc"), doctor exit $(cat "$out/doctor$n.rc"), ${down:-0} node(s) down:"
		grep -h 'did not take part' "$out/probe$n.out" | sed 's/node[0-9]*/NODE/g' | sort | uniq -c |
			sort -rn | head -3
		grep -hv '^\s*$' "$out/probe$n.err" "$out/doctor$n.err" | sort | uniq -c | sort -rn | head -3
	fi
	[ -n "${KEEP:-}" ] && cp "$out"/*"$n".* "$KEEP"/ 2>/dev/null
done
echo "join_s: every agent joined; pdsh_s: pdsh alone, the same nodes running 'true'; cpu_steps:"
echo "the coordinator's CPU over the steps; report_s: from the last step to the report's end"
echo "(the agents' goodbye, the launcher's end, the analysis, the printing); width: its widest line."
