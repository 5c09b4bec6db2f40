#!/bin/bash
# Every command's text keeps to the width (rdmactl(8), OUTPUT WIDTH): with
# COLUMNS=80, and 60, no line of any command on any recorded node is
# longer; into a pipe without COLUMNS a row stays one line, for scripts; a
# COLUMNS that is not a number is ignored; a terminal that does not say
# its width counts as 80.  Lines a shell or Slurm reads whole (env's
# "export" lines, the health mode's one line) are the documented exception.
source "$(dirname "$0")/lib.sh"
unset SLURM_JOB_NODELIST SLURM_JOB_ID SLURM_STEP_ID RDMACTL_LAUNCHER RDMACTL_TOKEN RDMACTL_NODE

# Every recorded node: the fixture trees, and the two the scripts make.
ROOTS=()
for d in "$FIXTURES"/*/; do
	[ "$(basename "$d")" = report ] || ROOTS+=("${d%/}")
done
bash "$FIXTURES/many-gids.sh" "$TMPD/many-gids" 4 2 16
cp -a "$FIXTURES/doctor-healthy" "$TMPD/vlan" && bash "$FIXTURES/vlan.sh" "$TMPD/vlan"
ROOTS+=("$TMPD/many-gids" "$TMPD/vlan")
check roots-found [ "${#ROOTS[@]}" -ge 20 ]

CMDS=("devices" "devices -v" "ports" "ports -v" "gids" "gids -v" "gids --recommend" "limits"
	"doctor" "doctor -v" "doctor --list" "doctor --for nccl" "doctor --for ucx"
	"env --for nccl" "env --for mpi" "snapshot -o $TMPD/s.tgz -f")

# widest: the longest line of stdin but the lines a shell reads whole.
widest() { awk '!/^ *export / && length($0) > n { n = length($0) } END { print n + 0 }'; }

# within WIDTH: OUT is not empty, no line of it wider than WIDTH.
within() { [ -n "$OUT" ] && [ "$(widest <<<"$OUT")" -le "$1" ]; }
# between LOW HIGH: OUT's widest line is LOW to HIGH long (folded to a width near HIGH).
between() { local w; w=$(widest <<<"$OUT"); [ "$w" -ge "$1" ] && [ "$w" -le "$2" ]; }

# fits WIDTH CMD: CMD (words) on every root keeps to WIDTH; the roots it
# does not, with their widest line, in $WIDE.
fits() {
	local width=$1 root w
	shift
	WIDE=
	for root in "${ROOTS[@]}"; do
		w=$(COLUMNS=$width "$RDMACTL" --root "$root" "$@" 2>/dev/null </dev/null | widest)
		[ "$w" -le "$width" ] || WIDE+=" $(basename "$root"):$w"
	done
	[ -z "$WIDE" ]
}
# every command on every root at 80; at 60, on four roots, to show it follows COLUMNS
ALL=("${ROOTS[@]}")
for width in 80 60; do
	[ "$width" = 60 ] && ROOTS=("$FIXTURES/doctor-broken" "$FIXTURES/limits-root" \
		"$FIXTURES/bluefield2-arm" "$TMPD/many-gids")
	for c in "${CMDS[@]}"; do
		# shellcheck disable=SC2086 # the command's words
		if fits "$width" $c; then
			pass "columns-$width/${c%% -o *}"
		else
			OUT='' ERR='' RC=0 fail "columns-$width/${c%% -o *}" "wider than $width:$WIDE"
		fi
	done
done
ROOTS=("${ALL[@]}")

# The many-node report: doctor -w through the local launcher on every root.
if command -v pdsh >/dev/null; then
	if fits 80 doctor -w 'w[1-3]' --launcher local --rdmactl "$RDMACTL"; then
		pass columns-80/doctor-w
	else
		OUT='' ERR='' RC=0 fail columns-80/doctor-w "wider than 80:$WIDE"
	fi
	# probe -w over TCP on the loopback: its matrix, findings and summary.
	OUT=$(COLUMNS=60 "$RDMACTL" probe -w 'w[1-3]' --launcher local --rdmactl "$RDMACTL" \
		--transport tcp -n 50 --lat-iters 0 --node-timeout 20 2>"$TMPD/err" </dev/null)
	check columns-60/probe-w within 60
else
	skip columns-80/doctor-w "pdsh is not installed (Debian package pdsh)"
fi

# A probe between two ends: both ends' text.
PORT=$(free_port)
COLUMNS=60 "$RDMACTL" probe --server --once --port "$PORT" --timeout 10 >"$TMPD/server.out" 2>/dev/null &
server=$!
waits_for 120 listens "$PORT"
OUT=$(COLUMNS=60 "$RDMACTL" probe 127.0.0.1 --port "$PORT" --transport tcp -s 8K -n 100 --lat-iters 5 2>/dev/null)
wait "$server"
check columns-60/probe-client within 60
OUT=$(cat "$TMPD/server.out")
check columns-60/probe-server within 60

# The report's line, at 40.
OUT=$(COLUMNS=40 "$RDMACTL" report -f -o "$TMPD/r.html" "$FIXTURES/report/doctor-4.json" \
	"$FIXTURES/report/probe-4.json" 2>/dev/null)
check columns-40/report within 40

# --- into a pipe without COLUMNS: a row is a line ---
HEALTHY=$FIXTURES/doctor-healthy
run --root "$HEALTHY" ports -v
ports_rows() { [ "$(grep -c '^mlx5_[0-9]* ' <<<"$OUT")" -eq 3 ] && [ "$(wc -l <<<"$OUT")" -eq 4 ]; }
check pipe-ports-row-a-line ports_rows
check pipe-ports-unfolded [ "$(widest <<<"$OUT")" -gt 100 ]
run --root "$HEALTHY" -j ports
check pipe-ports-json json_ok '(.ports | length) == 3'
run --root "$HEALTHY" limits
limits_rows() { [ "$(grep -cE '^(process|pam|systemd) ' <<<"$OUT")" -eq 3 ] && [ "$(wc -l <<<"$OUT")" -eq 4 ]; }
check pipe-limits-row-a-line limits_rows
run --root "$HEALTHY" doctor --list
n=$("$RDMACTL" --root "$HEALTHY" -j doctor --list | jq '.checks | length')
check pipe-list-checks [ "$n" -gt 10 ]
check pipe-list-check-a-line [ "$(wc -l <<<"$OUT")" -eq $((n + 1)) ]
# As COLUMNS does when it is set: the same rows, folded.
OUT=$(COLUMNS=80 "$RDMACTL" --root "$HEALTHY" ports -v)
check columns-ports-folds [ "$(wc -l <<<"$OUT")" -gt 4 ]
check columns-ports-fit within 80

# --- a COLUMNS that is not a width is ignored, as if unset ---
PIPED=$("$RDMACTL" --root "$HEALTHY" ports -v)
for bad in abc -5 0 '' ' 80' 80x 99999999999999999999999; do
	OUT=$(COLUMNS=$bad "$RDMACTL" --root "$HEALTHY" ports -v 2>&1) RC=$?
	check "columns-bad-ignored/${bad:-empty}" [ "$RC/$OUT" = "0/$PIPED" ]
done

# --- a terminal: its width, and 80 when it does not say ---
if command -v script >/dev/null; then
	tty_run() {
		env -u COLUMNS script -qec "stty $1; '$RDMACTL' --color never --root '$HEALTHY' ports -v" \
			/dev/null | tr -d '\r'
	}
	OUT=$(tty_run "cols 70 rows 50")
	check terminal-70 between 61 70
	OUT=$(tty_run "cols 0 rows 0")
	check terminal-unknown-80 between 71 80
else
	skip terminal-70 "script not installed (Debian package bsdutils)"
fi
finish
