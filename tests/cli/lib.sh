# Helpers for CLI tests: run rdmactl, check what it did, print one
# "PASS cli/SUITE/NAME" or "FAIL cli/SUITE/NAME" line per check.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RDMACTL=${RDMACTL:-$TOP/build/rdmactl}
FIXTURES=$TOP/tests/fixtures
SUITE=${SUITE:-$(basename "$0" .sh)}
PREFIX=${TEST_PREFIX:-}
# The suites' area in the verdict lines: cli, browser for tests/browser/, prom
# for tests/prom/.
AREA=${AREA:-cli}
T_FAILED=0
# doctor keeps its text to $COLUMNS: the checks compare whole lines.
unset COLUMNS
# Every TCP stream a probe sends on is paced to 2 Gb/s (a test aid,
# rdmactl-probe(8)): flat out on the loopback one second of -D 1 took two
# cores for it, 8.6 s of CPU a three-node run, and the suites run beside
# the lab.  No check here judges a rate; probe.sh checks that the pacing
# takes, that with the variable unset there is none, and that a bad value
# is refused.
export RDMACTL_PROBE_TCP_PACE=2000
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
# jq is gojq where it is installed (make deps installs it), as in the lab
# (tests/lab/lib.sh): jq 1.6 compiles its builtins at every start, about
# 30 ms a call on a 2-core host against gojq's 3.5, and the suites read
# JSON thousands of times (a third of cli/env-invariant's CPU).  The
# programs the tests give it are ones both read alike; where the order of
# an object's keys matters (gojq sorts them), the tests call jq 1.6
# itself, `command jq`.
if command -v gojq >/dev/null; then
	jq() { gojq "$@"; }
fi

# run ARGS...: run rdmactl; sets OUT, ERR and RC.
run() {
	RC=0
	"$RDMACTL" "$@" >"$TMPD/out" 2>"$TMPD/err" </dev/null || RC=$?
	OUT=$(cat "$TMPD/out")
	ERR=$(cat "$TMPD/err")
}

# run_offline ARGS...: as run, in a network and mount namespace of its own
# whose nsswitch.conf takes host names from /etc/hosts only: a name that is
# not there fails at once ("Name or service not known") and no DNS query
# leaves the machine.  With OFFLINE_DNS=1, DNS is asked too, of a server
# the empty namespace cannot reach ("Temporary failure in name
# resolution").  Needs root (unshare); see offline_ok.
run_offline() {
	if [ "${OFFLINE_DNS:-0}" = 1 ]; then
		printf 'hosts: files dns\n' >"$TMPD/nsswitch.conf"
	else
		printf 'hosts: files\n' >"$TMPD/nsswitch.conf"
	fi
	printf 'nameserver 192.0.2.1\noptions timeout:1 attempts:1\n' >"$TMPD/resolv.conf"
	RC=0
	unshare --mount --net sh -c 'mount --bind "$0/nsswitch.conf" /etc/nsswitch.conf &&
		mount --bind "$0/resolv.conf" /etc/resolv.conf && exec "$@"' \
		"$TMPD" ${OFFLINE_WRAP:-} "$RDMACTL" "$@" >"$TMPD/out" 2>"$TMPD/err" </dev/null || RC=$?
	OUT=$(cat "$TMPD/out")
	ERR=$(cat "$TMPD/err")
}
offline_ok() { unshare --mount --net true 2>/dev/null; }

pass() { echo "PASS ${PREFIX}$AREA/$SUITE/$1"; }

# fail NAME WHY: a failing check, with the output that shows why.
fail() {
	echo "FAIL ${PREFIX}$AREA/$SUITE/$1"
	{
		echo "    $2"
		echo "    rc=$RC"
		sed 's/^/    out: /' <<<"$OUT" | head -20
		sed 's/^/    err: /' <<<"$ERR" | head -20
	} >&2
	T_FAILED=$((T_FAILED + 1))
}

# skip NAME WHY: the check could not run; WHY names the missing facility.
skip() { echo "SKIP ${PREFIX}$AREA/$SUITE/$1: $2"; }

# check NAME COND...: pass when the command COND succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "failed: $*"; fi
}

rc_is() { [ "$RC" -eq "$1" ]; }
out_has() { grep -qE -- "$1" <<<"$OUT"; }
err_has() { grep -qE -- "$1" <<<"$ERR"; }
out_empty() { [ -z "$OUT" ]; }
# The stderr is exactly LINE.
err_is() { [ "$ERR" = "$1" ]; }
# The stderr is one line (an error message, not a dump).
err_one_line() { [ "$(wc -l <<<"$ERR")" -eq 1 ] && [ -n "$ERR" ]; }
. "$TOP/tests/tools/json-one.sh"
. "$TOP/tests/tools/waits.sh"
# For the checks that run in a bash -c of their own.
export -f json_one

# stdout is exactly one JSON document (not empty, not two); with a jq
# filter, the filter must hold.
json_ok() { json_one "${1:-.}" <<<"$OUT"; }
# found ID REGEX: the doctor's -j document in OUT has check ID, its found
# text matching the extended REGEX.
found() { jq -r ".checks[] | select(.id == \"$1\") | .found" <<<"$OUT" | grep -qE -- "$2"; }
# st ID STATUS: check ID's status in OUT is STATUS.
st() { json_ok ".checks[] | select(.id == \"$1\") | .status == \"$2\""; }
# qos_found REGEX, qos_fix REGEX: roce.qos's found text, its fix, in OUT
# match REGEX (jq's test: its escapes).
qos_found() { json_ok ".checks[] | select(.id == \"roce.qos\") | .found | test(\"$1\")"; }
qos_fix() { json_ok ".checks[] | select(.id == \"roce.qos\") | .fix // \"\" | test(\"$1\")"; }
# healthy_as NAME SCRIPT [ARGS...]: TREE is a copy of doctor-healthy in
# the scratch dir, NAME, rewritten by tests/fixtures/SCRIPT ARGS (vlan.sh,
# bond.sh, macvlan.sh, qos.sh, shared-subnet.sh: configurations built on
# the healthy node).
healthy_as() {
	TREE=$TMPD/$1
	cp -a "$FIXTURES/doctor-healthy" "$TREE" && bash "$FIXTURES/$2" "$TREE" "${@:3}"
}

# json_error CODE MESSAGE [ERRNO]: stdout is one JSON document whose "error"
# object is exactly {code, message[, errno]}.
json_error() {
	json_one --argjson code "$1" --arg msg "$2" --arg errno "${3:-}" \
		'.error == ({code: $code, message: $msg} + (if $errno == "" then {} else {errno: $errno} end))' \
		<<<"$OUT"
}

# fails_with NAME RC LINE ARGS...: rdmactl ARGS exits RC with exactly LINE on
# stderr; with -j the same, and stdout is a JSON document whose "error" says
# it too (LINE without "rdmactl CMD: ", and ERRNO when set in the environment).
# RUNNER=run_offline runs them offline.
fails_with() {
	local name=$1 rc=$2 line=$3
	shift 3
	${RUNNER:-run} "$@"
	check "$name-rc" rc_is "$rc"
	check "$name-message" err_is "$line"
	${RUNNER:-run} -j "$@"
	check "$name-json-rc" rc_is "$rc"
	check "$name-json-message" err_is "$line"
	check "$name-json-error" json_error "$rc" "${line#rdmactl*: }" "${ERRNO:-}"
}

# eventually CMD...: CMD succeeds now or within 60 s (waits_for, every 50 ms):
# a wait on the state a check expects, where a fixed sleep would either
# be too short on a loaded machine or waste its length on a quiet one.
eventually() { waits_for 60 "$@"; }

finish() { exit $((T_FAILED > 0)); }

# free_port: a TCP port nothing on this host uses, below the ephemeral
# range (32768-60999), where any outgoing connection may hold a port for
# a while; from this shell's pid on, so that tests side by side differ.
free_port() {
	local p=$((20000 + $$ % 12000)) i
	for i in $(seq 200); do
		ss -Hatn "sport = :$p" | grep -q . || { echo $p; return; }
		p=$((20000 + (p - 20000 + 7) % 12000))
	done
	echo $p
}
