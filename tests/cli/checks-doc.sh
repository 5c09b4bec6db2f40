#!/bin/bash
# doc/checks.md, the doctor's check reference, is what doc/checks.sh makes
# from this rdmactl's `doctor --list` table: a check added or reworded in
# lib/doctor/doctor.c without the page made again fails here.
. "$(dirname "$0")/lib.sh"

RC=0
sh "$TOP/doc/checks.sh" "$RDMACTL" >"$TMPD/checks.md" 2>"$TMPD/err" || RC=$?
OUT='' ERR=$(cat "$TMPD/err")
check made rc_is 0
check every-check [ "$(grep -c '^## ' "$TMPD/checks.md")" = "$("$RDMACTL" -j doctor --list | jq '.checks | length')" ]
OUT=$(diff -u "$TOP/doc/checks.md" "$TMPD/checks.md")
check page-up-to-date [ -z "$OUT" ]
finish
