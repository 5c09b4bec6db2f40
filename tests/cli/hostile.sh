#!/bin/bash
# Hostile --root trees (tests/tools/hostile-tree): no byte from outside reaches
# the terminal unescaped, JSON stays valid UTF-8, and every read that fails
# or gives junk is a warning naming the path and the reason, with exit 1.
. "$(dirname "$0")/lib.sh"

H=$TMPD/h
mk() { "$TOP/tests/tools/hostile-tree" "$1" "$H/$1"; }
mkdir -p "$H"
ESC=$(printf '\033')

# no_raw_escape: neither stdout nor stderr carries an ESC, BEL or CR byte.
no_raw_escape() { ! grep -q "[$ESC$(printf '\a\r')]" <<<"$OUT$ERR"; }
utf8_ok() { iconv -f UTF-8 -t UTF-8 <<<"$OUT" >/dev/null 2>&1; }
# warn_is PATH REASON: the one warning line, exactly.
warn_is() { grep -qxF "rdmactl $1: warning: cannot read $H/$2: $3" <<<"$ERR"; }

mk escapes
run --root "$H/escapes" devices
check escapes-rc rc_is 0
check escapes-no-raw no_raw_escape
check escapes-fw-shown out_has '1\.0\\x1b\]0;pwned\\x07\\x1b\[2J\\x0d    ok    fake'
check escapes-name-shown out_has '^rxe\\x1b\[2J1 '
run -j --root "$H/escapes" devices
check escapes-json json_ok '.devices | length == 2'
# In JSON the escape is JSON's own \u001b: the bytes never appear raw.
check escapes-json-no-raw no_raw_escape
check escapes-json-value json_ok '.devices[] | select(.name == "rxe0") | .fw_ver | startswith("1.0\u001b]0;pwned")'
run --root "$H/escapes" gids rxe0
check escapes-gids-no-raw no_raw_escape
# env: the device name reaches stderr escaped, stdout gets nothing.
run --root "$H/escapes" env --for nccl
check escapes-env-rc rc_is 1
check escapes-env-stdout-empty out_empty
check escapes-env-no-raw no_raw_escape
check escapes-env-name-shown err_has 'rxe\\x1b\[2J1/1 is DOWN'
check escapes-env-one-fix err_has 'Fix: ip link set eth0 up$'

mk utf8
run -j --root "$H/utf8" devices
check utf8-json-valid utf8_ok
check utf8-json-parses json_ok '.devices[0].fw_ver == "1.0\ufffd\ufffd\ufffd"'
run --root "$H/utf8" devices
check utf8-text-escaped out_has '1\.0\\xff\\xfe\\xc3'
check utf8-text-valid utf8_ok

mk empty
run --root "$H/empty" devices
check empty-rc rc_is 1
check empty-guid-warned warn_is devices empty/sys/class/infiniband/rxe0/node_guid empty
check empty-state-warned warn_is devices empty/sys/class/infiniband/rxe0/ports/1/state empty
run --root "$H/empty" gids
check empty-gid-warned warn_is gids empty/sys/class/infiniband/rxe0/ports/1/gids/1 empty

mk junk
run --root "$H/junk" ports
check junk-rc rc_is 1
check junk-guid warn_is ports junk/sys/class/infiniband/rxe0/node_guid "not a GUID: 'zzzz:not:a:guid'"
check junk-state warn_is ports junk/sys/class/infiniband/rxe0/ports/1/state "not a number: 'junk'"
check junk-link warn_is ports junk/sys/class/infiniband/rxe0/ports/1/link_layer "not a link layer: 'Token Ring'"
check junk-state-unknown out_has '^rxe0 +1 +unknown '
run -j --root "$H/junk" ports
check junk-json-warnings json_ok '[.warnings[] | .errno] == ["EINVAL","EINVAL","EINVAL"]'
check junk-json-path json_ok ".warnings[1] | .path == \"$H/junk/sys/class/infiniband/rxe0/ports/1/state\" and .error == \"not a number: 'junk'\""

mk big
run --root "$H/big" ports
check big-rc rc_is 1
check big-rate warn_is ports big/sys/class/infiniband/rxe0/ports/1/rate "File too large"

mk loop
run -j --root "$H/loop" devices
check loop-rc rc_is 1
check loop-warned warn_is devices loop/sys/class/infiniband/rxe0/node_guid "Too many levels of symbolic links"
check loop-json json_ok '.warnings[0].errno == "ELOOP"'

mk fifo
RC=0
OUT=$(timeout 10 "$RDMACTL" --root "$H/fifo" devices 2>"$TMPD/err") || RC=$?
ERR=$(cat "$TMPD/err")
check fifo-no-hang-rc rc_is 1
check fifo-fw warn_is devices fifo/sys/class/infiniband/rxe0/fw_ver "not a regular file"
check fifo-state warn_is devices fifo/sys/class/infiniband/rxe0/ports/1/state "not a regular file"
RC=0
OUT=$(timeout 10 "$RDMACTL" --root "$H/fifo" env --for ucx 2>"$TMPD/err") || RC=$?
ERR=$(cat "$TMPD/err")
check fifo-env-no-hang-rc rc_is 1
check fifo-env-stdout-empty out_empty
check fifo-env-state warn_is env fifo/sys/class/infiniband/rxe0/ports/1/state "not a regular file"

if [ "$(id -u)" = 0 ]; then
	mk device
	run --root "$H/device" ports
	check device-rc rc_is 1
	check device-state warn_is ports device/sys/class/infiniband/rxe0/ports/1/state "not a regular file"
else
	skip device "mknod needs root"
fi

# Mode 000 read as another user: a warning naming the file, never a verdict.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mk unreadable
	chmod a+rx "$TMPD" "$H"
	as_nobody() {
		RC=0
		OUT=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$RDMACTL" "$@" 2>"$TMPD/err") || RC=$?
		ERR=$(cat "$TMPD/err")
	}
	as_nobody --root "$H/unreadable" gids
	check unreadable-gids-rc rc_is 1
	check unreadable-gids-warned warn_is gids unreadable/sys/class/infiniband/rxe0/ports/1/gids/1 "Permission denied (run as root)"
	as_nobody --root "$H/unreadable" doctor --only ports
	check unreadable-doctor-rc rc_is 1
	check unreadable-doctor-says out_has "^FAIL +ports +cannot read $H/unreadable/sys/class/infiniband/rxe0/node_guid: Permission denied \(run as root\)"
	check unreadable-doctor-fix out_has 'fix: run rdmactl doctor as root'
	no_cable() { ! out_has cable; }
	check unreadable-doctor-no-cable no_cable
else
	skip unreadable "needs root and setpriv (Debian package util-linux) to read as another user"
fi
finish
