# Helpers for CLI tests: run rdmactl, check what it did, print one
# "PASS cli/SUITE/NAME" or "FAIL cli/SUITE/NAME" line per check.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RDMACTL=${RDMACTL:-$TOP/build/rdmactl}
FIXTURES=$TOP/tests/fixtures
SUITE=${SUITE:-$(basename "$0" .sh)}
PREFIX=${TEST_PREFIX:-}
T_FAILED=0
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT

# run ARGS...: run rdmactl; sets OUT, ERR and RC.
run() {
	RC=0
	"$RDMACTL" "$@" >"$TMPD/out" 2>"$TMPD/err" </dev/null || RC=$?
	OUT=$(cat "$TMPD/out")
	ERR=$(cat "$TMPD/err")
}

pass() { echo "PASS ${PREFIX}cli/$SUITE/$1"; }

# fail NAME WHY: a failing check, with the output that shows why.
fail() {
	echo "FAIL ${PREFIX}cli/$SUITE/$1"
	{
		echo "    $2"
		echo "    rc=$RC"
		sed 's/^/    out: /' <<<"$OUT" | head -20
		sed 's/^/    err: /' <<<"$ERR" | head -20
	} >&2
	T_FAILED=$((T_FAILED + 1))
}

# skip NAME WHY: the check could not run; WHY names the missing facility.
skip() { echo "SKIP ${PREFIX}cli/$SUITE/$1: $2"; }

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
# The stderr is one line (an error message, not a dump).
err_one_line() { [ "$(wc -l <<<"$ERR")" -eq 1 ] && [ -n "$ERR" ]; }
# stdout is one valid JSON document; with a jq filter, the filter must hold.
json_ok() { jq -e "${1:-.}" <<<"$OUT" >/dev/null 2>&1; }

finish() { exit $((T_FAILED > 0)); }
