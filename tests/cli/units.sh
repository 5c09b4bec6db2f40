#!/bin/bash
# The doctor's systemd unit (contrib/systemd/rdmactl-doctor.service), its
# lines carried out here as systemd would (tests/lab/ts-units.sh runs it
# under a real systemd): the textfile directory is set in one place
# (RDMACTL_TEXTFILE_DIR, Debian's by default, /etc/default/rdmactl over
# it), and a directory the run cannot write fails the unit with one line
# naming it and where to set it, never a skip in silence (no Condition*=).
. "$(dirname "$0")/lib.sh"

UNIT=$TOP/contrib/systemd/rdmactl-doctor.service
DEBIAN_DIR=/var/lib/prometheus/node-exporter

# value KEY: the value of KEY= in the unit (the last one, as systemd takes it).
value() { sed -n "s/^$1=//p" "$UNIT" | tail -1; }
# shell_of KEY: the shell text of an Exec line `/bin/sh -c '...'`, its $$
# made $ as systemd does.
shell_of() { value "$1" | sed "s/^\/bin\/sh -c '//; s/'\$//; s/\\\$\\\$/\$/g"; }

check no-condition [ -z "$(grep -E '^Condition' "$UNIT")" ]
check default-dir [ "$(value Environment)" = "RDMACTL_TEXTFILE_DIR=$DEBIAN_DIR" ]
check env-file-optional [ "$(value EnvironmentFile)" = -/etc/default/rdmactl ]
# The default is writable in the sandbox, and only where it exists.
check default-dir-writable grep -qE "^ReadWritePaths=(.* )?-$DEBIAN_DIR( |\$)" "$UNIT"
check exec-start-in-dir grep -qE '^ExecStart=/usr/bin/rdmactl .* -o \$\{RDMACTL_TEXTFILE_DIR\}/rdmactl\.prom$' "$UNIT"

# pre DIR: the unit's ExecStartPre with the textfile directory DIR; sets RC, ERR.
PRE=$(shell_of ExecStartPre)
pre() {
	RC=0 OUT=''
	ERR=$(RDMACTL_TEXTFILE_DIR=$1 sh -c "$PRE" 2>&1) || RC=$?
}
mkdir "$TMPD/textfile"
pre "$TMPD/textfile"
check pre-writable-dir rc_is 0
check pre-writable-quiet [ -z "$ERR" ]
pre "$TMPD/no-such-dir"
check pre-missing-dir rc_is 1
check pre-missing-dir-says err_is "cannot write the metrics: RDMACTL_TEXTFILE_DIR=$TMPD/no-such-dir is no directory; set it in /etc/default/rdmactl to the --collector.textfile.directory of node_exporter"
pre ''
check pre-empty-dir rc_is 1
# Read-only to the unit (ProtectSystem=strict without ReadWritePaths= for
# it): a read-only bind mount of its own, as root only can make.
if unshare --mount true 2>/dev/null; then
	RC=0
	ERR=$(RDMACTL_TEXTFILE_DIR=$TMPD/textfile unshare --mount sh -c 'mount --bind "$0" "$0" &&
		mount -o remount,bind,ro "$0" && sh -c "$1"' "$TMPD/textfile" "$PRE" 2>&1) || RC=$?
	check pre-read-only-dir rc_is 1
	check pre-read-only-says err_is "cannot write the metrics: $TMPD/textfile is read-only to rdmactl-doctor.service; add ReadWritePaths=$TMPD/textfile (systemctl edit rdmactl-doctor.service)"
else
	skip pre-read-only-dir "needs root (unshare --mount)"
fi

# ExecStart as systemd expands it, into the directory the variable names.
mapfile -t argv < <(value ExecStart | sed "s|^/usr/bin/rdmactl |$RDMACTL --root $FIXTURES/doctor-healthy |; s|\${RDMACTL_TEXTFILE_DIR}|$TMPD/textfile|" | tr ' ' '\n')
RC=0
"${argv[@]}" >"$TMPD/out" 2>"$TMPD/err" || RC=$?
OUT=$(cat "$TMPD/out") ERR=$(cat "$TMPD/err")
check exec-start-runs [ "$RC" -le 1 ]
check exec-start-writes grep -q '^rdmactl_check_status{' "$TMPD/textfile/rdmactl.prom"
finish
