#!/bin/bash
# rdmactl snapshot: the archive holds what --root reads, and reading it back
# gives the same answers: live limits, and limits, devices and gids of
# recorded trees (symlinked sysfs, masked systemd drop-ins) snapshotted
# through --root.  Long names (pax), bad output paths, missing -o.
. "$(dirname "$0")/lib.sh"

if ! command -v tar >/dev/null; then
	skip all "tar not installed (Debian package tar)"
	finish
fi

# roundtrip NAME ROOT: snapshot ROOT ("" = live), extract to $TMPD/NAME; sets X.
roundtrip() {
	local name=$1 root=$2
	X=$TMPD/$name
	mkdir -p "$X"
	if [ -n "$root" ]; then run --root "$root" snapshot -o "$TMPD/$name.tar.gz"
	else run snapshot -o "$TMPD/$name.tar.gz"; fi
	check "$name-rc" rc_is 0
	tar xzf "$TMPD/$name.tar.gz" -C "$X"
}

# same NAME ROOT X ARGS...: `rdmactl -j ARGS` reads the same from ROOT and from X.
same() {
	local name=$1 root=$2 x=$3 a b
	shift 3
	if [ -n "$root" ]; then run -j --root "$root" "$@"; else run -j "$@"; fi
	a=$OUT
	run -j --root "$x" "$@"
	b=$OUT
	check "$name" bash -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$a" "$b"
}

# --- live: limits read back equal the live ones ---
roundtrip live ""
check live-stdout out_has "^Wrote $TMPD/live.tar.gz: [0-9]+ files, [0-9]+ links"
LIST=$(tar tzf "$TMPD/live.tar.gz")
check live-has-limits grep -qx 'proc/self/limits' <<<"$LIST"
check live-has-passwd grep -qx 'etc/passwd' <<<"$LIST"
check live-has-group grep -qx 'etc/group' <<<"$LIST"
check live-no-shadow bash -c '! grep -q shadow <<<"$1"' _ "$LIST"
same live-limits "" "$X" limits
same live-limits-root "" "$X" limits --user root
# sysfs attributes say 4096 bytes; the archive holds their real contents.
if [ -e /sys/class/net/lo/mtu ]; then
	check live-lo-mtu [ "$(cat "$X/sys/class/net/lo/mtu")" = "$(cat /sys/class/net/lo/mtu)" ]
	check live-lo-link [ -L "$X/sys/class/net/lo" ]
else
	skip live-lo-mtu "no /sys/class/net/lo on this machine"
fi
if [ -d /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband)" ]; then
	same live-gids "" "$X" gids
	same live-devices "" "$X" devices
else
	skip live-gids "no RDMA device on this machine (the lab checks it)"
fi

run -j snapshot -o "$TMPD/j.tar.gz"
check json-stats json_ok '.file and (.files > 0) and (.links >= 0) and (.dirs > 0) and (.bytes > 0) and
	(.rdma_devices >= 0) and (.netdevs >= 0)'

# --- recorded trees, snapshotted through --root, read back the same ---
roundtrip pam "$FIXTURES/limits-pam"
for u in alice bob carol dave eve frank; do
	same "pam-$u" "$FIXTURES/limits-pam" "$X" limits --user "$u"
done
check pam-no-readme [ ! -e "$X/etc/security/limits.d/README" ]
roundtrip sd "$FIXTURES/limits-systemd"
same sd-limits "$FIXTURES/limits-systemd" "$X" limits
check sd-mask-kept [ "$(readlink "$X/etc/systemd/system.conf.d/30-c.conf")" = /dev/null ]
for fx in mlx5-6gids dual-port ib-hca soft-roce container-gid-einval; do
	[ -d "$FIXTURES/$fx" ] || continue
	roundtrip "$fx" "$FIXTURES/$fx"
	same "$fx-gids" "$FIXTURES/$fx" "$X" gids
	same "$fx-devices" "$FIXTURES/$fx" "$X" devices
done
# Symlinked device directories stay links, and resolve inside the copy.
if [ -d "$TMPD/dual-port" ]; then
	check dual-port-class-link [ -L "$TMPD/dual-port/sys/class/infiniband/mlx5_0" ]
	check dual-port-driver-link [ "$(basename "$(readlink "$TMPD/dual-port/sys/class/infiniband/mlx5_0/device/driver")")" = \
		"$(basename "$(readlink "$FIXTURES/dual-port/sys/class/infiniband/mlx5_0/device/driver")")" ]
fi

# --- names longer than ustar holds go through pax headers ---
LONG=$TMPD/long
mkdir -p "$LONG/etc/security/limits.d"
cp -r "$FIXTURES/limits-fixed/." "$LONG/"
rm "$LONG/etc/security/limits.d/99-rdma.conf"
name=$(printf 'x%.0s' $(seq 1 200)).conf
printf '* soft memlock unlimited\n* hard memlock unlimited\n' >"$LONG/etc/security/limits.d/$name"
roundtrip longname "$LONG"
check longname-file [ -f "$X/etc/security/limits.d/$name" ]
same longname-limits "$LONG" "$X" limits

# --- bad input ---
run snapshot
check no-output-rc rc_is 2
check no-output-msg err_has 'missing --output FILE'
check no-output-one-line err_one_line
run snapshot -o "$TMPD/no/such/dir/s.tar.gz"
check bad-dir-rc rc_is 1
check bad-dir-msg err_has "Failed to write snapshot '$TMPD/no/such/dir/s.tar.gz': No such file or directory"
check bad-dir-one-line err_one_line
run snapshot -o "$TMPD/j.tar.gz" extra
check no-positional rc_is 2
before=$(ls "$TMPD" | wc -l)
chmod 500 "$TMPD/pam" && run snapshot -o "$TMPD/pam/ro.tar.gz"; chmod 700 "$TMPD/pam"
if [ "$(id -u)" != 0 ]; then
	check ro-dir-rc rc_is 1
fi
check no-temp-left [ -z "$(ls "$TMPD" | grep -F '.tar.gz.')" ]
check no-temp-count [ "$(ls "$TMPD" | wc -l)" -eq "$before" ]

finish
