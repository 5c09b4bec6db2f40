#!/bin/bash
# rdmactl snapshot: the archive holds what --root reads, and reading it back
# gives the same answers: live limits, and limits, devices and gids of
# recorded trees (symlinked sysfs, masked systemd drop-ins, SR-IOV VFs,
# SFs and representors, the RDMA netns mode) snapshotted
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
# /proc/net is the kernel's link to self/net: recorded as such, a later
# proc/net/vlan/... entry cannot be unpacked under it (tar: Cannot mkdir).
check live-no-proc-net-link [ ! -L "$X/proc/net" ]
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
# Root on Debian: the copy keeps etc/debian_version, so "*" lines stay not applied.
roundtrip root "$FIXTURES/limits-root"
check root-debian-version [ -f "$X/etc/debian_version" ]
same root-limits "$FIXTURES/limits-root" "$X" limits
# UCX: ucx.conf, libucx0's dpkg stanza (not the rest of dpkg's status) and
# a stand-in of the library are kept, so ucx.ud_dgid on the copy finds the
# release where the node found it.
U=$TMPD/ucx-src
cp -a "$FIXTURES/ucx-rxe" "$U"
mkdir -p "$U/etc/ucx"
printf 'UCX_UD_ETH_DGID_CHECK=y\n' >"$U/etc/ucx/ucx.conf"
roundtrip ucx "$U"
check ucx-conf-kept cmp -s "$U/etc/ucx/ucx.conf" "$X/etc/ucx/ucx.conf"
check ucx-dpkg-stanza-only bash -c '[ "$(grep -c "^Package: " "$1")" = 1 ] && grep -qx "Version: 1.13.1-1" "$1"' _ "$X/var/lib/dpkg/status"
run -j --root "$X" doctor --for ucx --only ucx.ud_dgid
# The library itself is not copied: a stand-in names its release as it does.
check ucx-copy-release json_ok '.checks[0] | (.status | ascii_downcase == "fail") and (.found | startswith("UCX 1.13.1 (/usr/lib/x86_64-linux-gnu/libucp.so.0); rxe0/1 (rxe, not mlx5)"))'
check ucx-copy-standin bash -c '[ -L "$1/libucp.so.0" ] && [ "$(stat -c %s "$1/libucp.so.0.0.0")" -lt 200 ]' _ "$X/usr/lib/x86_64-linux-gnu"
roundtrip sd "$FIXTURES/limits-systemd"
same sd-limits "$FIXTURES/limits-systemd" "$X" limits
check sd-mask-kept [ "$(readlink "$X/etc/systemd/system.conf.d/30-c.conf")" = /dev/null ]
for fx in mlx5-6gids dual-port ib-hca soft-roce container-gid-einval; do
	# A fixture that is gone (renamed, say) is a failure, not a quiet pass.
	check "$fx-fixture" [ -d "$FIXTURES/$fx" ] || continue
	roundtrip "$fx" "$FIXTURES/$fx"
	same "$fx-gids" "$FIXTURES/$fx" "$X" gids
	same "$fx-devices" "$FIXTURES/$fx" "$X" devices
done
# Symlinked device directories stay links, and resolve inside the copy.
check dual-port-class-link [ -L "$TMPD/dual-port/sys/class/infiniband/mlx5_0" ]
check dual-port-driver-link [ "$(basename "$(readlink "$TMPD/dual-port/sys/class/infiniband/mlx5_0/device/driver")")" = \
	"$(basename "$(readlink "$FIXTURES/dual-port/sys/class/infiniband/mlx5_0/device/driver")")" ]

# --- SR-IOV, a DPU's Arm side, a pod: functions, representors, netns mode ---
for fx in sriov-cx6dx bluefield2-arm container-vf; do
	roundtrip "$fx" "$FIXTURES/$fx"
	same "$fx-devices" "$FIXTURES/$fx" "$X" devices
	# The checks of the devices (the node facts hold more than a snapshot records).
	run -j --root "$FIXTURES/$fx" doctor --only devices,ports,functions,roce,mtu
	a=$(jq -c .checks <<<"$OUT")
	run -j --root "$X" doctor --only devices,ports,functions,roce,mtu
	check "$fx-doctor" bash -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$a" "$(jq -c .checks <<<"$OUT")"
done
LIST=$(tar tzf "$TMPD/bluefield2-arm.tar.gz")
check arm-has-sfnum grep -q '/0000:03:00.0/mlx5_core.sf.5/sfnum$' <<<"$LIST"
check arm-has-phys-port-name grep -q '/net/pf0vf0/phys_port_name$' <<<"$LIST"
check arm-has-netns-mode grep -qx 'sys/module/ib_core/parameters/netns_mode' <<<"$LIST"
check sriov-virtfn-link [ -L "$TMPD/sriov-cx6dx/sys/class/infiniband/mlx5_0/device/virtfn3" ]
check pod-uverbs [ "$(cat "$TMPD/container-vf/sys/class/infiniband_verbs/uverbs1/ibdev")" = mlx5_1 ]

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

# --- files that cannot be recorded are left out, listed, and exit 1 ---
# Read as an unprivileged user (setpriv as nobody when we are root), so
# that mode 000 means EACCES; the FIFOs must not hang the walk.
H=$TMPD/hostile
cp -r "$FIXTURES/limits-pam" "$H"
D=$H/etc/security/limits.d
bad=$(printf 'e\033]0;pwned\007.conf')
echo '* soft memlock 1' >"$D/$bad"
chmod 000 "$D/05-dave.conf" "$D/$bad"
mkfifo "$D/fifo.conf"
truncate -s 50M "$D/big.conf"
ln -s loop2.conf "$D/loop1.conf"
ln -s loop1.conf "$D/loop2.conf"
chmod 000 "$H/etc/systemd/system.conf.d"
mkdir -p "$H/sys/class/net/eth0"
echo up >"$H/sys/class/net/eth0/operstate"
mkfifo "$H/sys/class/net/eth0/mtu"
echo 0x1003 >"$H/sys/class/net/eth0/flags"
chmod 000 "$H/sys/class/net/eth0/flags"
n_left=9
if [ "$(id -u)" = 0 ]; then
	mknod "$D/null.conf" c 1 3
	n_left=10
fi
OUTD=$TMPD/snapshots
mkdir -p "$OUTD"
chmod 755 "$TMPD"
chmod 1777 "$OUTD"
# as_user ARGS...: rdmactl as nobody (as ourselves when not root), at most 20 s.
as_user() {
	local who=()
	[ "$(id -u)" = 0 ] && who=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	RC=0
	timeout 20 "${who[@]}" "$RDMACTL" "$@" >"$TMPD/out.txt" 2>"$TMPD/err.txt" </dev/null || RC=$?
	OUT=$(cat "$TMPD/out.txt")
	ERR=$(cat "$TMPD/err.txt")
}
as_user --root "$H" snapshot -o "$OUTD/h.tar.gz"
W2="rdmactl snapshot: warning:"
W="$W2 left out"
expect=$({
	cat <<-END
	$W $D/05-dave.conf: Permission denied (run as root)
	$W $D/e\\x1b]0;pwned\\x07.conf: Permission denied (run as root)
	$W $D/fifo.conf: a FIFO where a regular file belongs
	$W $D/big.conf: File too large (over the 1 MiB cap)
	$W $D/loop1.conf: Too many levels of symbolic links
	$W $D/loop2.conf: Too many levels of symbolic links
	$W $H/etc/systemd/system.conf.d: Permission denied (run as root)
	$W $H/sys/class/net/eth0/mtu: a FIFO where a regular file belongs
	$W $H/sys/class/net/eth0/flags: Permission denied (run as root)
	$W2 $n_left files left out (listed above, and in rdmactl-snapshot.json in the archive)
	END
	[ "$n_left" = 10 ] && echo "$W $D/null.conf: a character device where a regular file belongs"
} | sort)
check leftout-rc rc_is 1
check leftout-lines [ "$(sort <<<"$ERR")" = "$expect" ]
check leftout-no-escape bash -c '! grep -q $'"'"'[\x01-\x1f\x7f]'"'"' <<<"$1"' _ "$ERR"
check leftout-written out_has "^Wrote $OUTD/h.tar.gz: "
LIST=$(tar tzf "$OUTD/h.tar.gz")
check leftout-good-kept grep -qx 'etc/security/limits.d/10-group.conf' <<<"$LIST"
check leftout-operstate-kept grep -qx 'sys/class/net/eth0/operstate' <<<"$LIST"
check leftout-bad-absent bash -c '! grep -qE "(05-dave|fifo|big|null)\.conf|eth0/(mtu|flags)" <<<"$1"' _ "$LIST"
# The archive says what it lacks, as -j does.
MANI=$(tar xzOf "$OUTD/h.tar.gz" rdmactl-snapshot.json)
as_user -j --root "$H" snapshot -o "$OUTD/j.tar.gz"
check leftout-json-rc rc_is 1
check leftout-json json_ok "(.warnings | length) == $n_left and
	(.warnings | map(select(.path == \"$D/05-dave.conf\"))[0] ==
		{path: \"$D/05-dave.conf\", error: \"Permission denied (run as root)\", errno: \"EACCES\"}) and
	(.warnings | map(select(.path == \"$D/fifo.conf\"))[0] ==
		{path: \"$D/fifo.conf\", error: \"a FIFO where a regular file belongs\", errno: \"ENXIO\"}) and
	(.warnings | map(select(.path == \"$D/big.conf\"))[0].errno == \"EFBIG\") and
	(.warnings | map(select(.path == \"$D/loop1.conf\"))[0].errno == \"ELOOP\") and
	(.warnings | map(select(.path == \"$H/etc/systemd/system.conf.d\"))[0].errno == \"EACCES\") and
	(.warnings | map(select(.path | endswith(\"pwned\\u0007.conf\")))[0].errno == \"EACCES\") and
	.files > 0"
# The same entries, each named as on the node (the copy reads them back so, root.h).
check leftout-manifest bash -c 'json_one --argjson w "$(jq --arg h "$3" '"'"'.warnings |
	map(.path |= (if startswith($h + "/") then .[($h | length):] else "not below the root: " + . end))'"'"' <<<"$2")" \
	".rdmactl != null and (.warnings | sort_by(.path)) == (\$w | sort_by(.path))" <<<"$1"' \
	_ "$MANI" "$OUT" "$H"
# One FIFO left out, by whoever runs the tests: one line, then the count.
ONE=$TMPD/one
cp -r "$FIXTURES/limits-pam" "$ONE"
mkfifo "$ONE/etc/security/limits.d/50-fifo.conf"
run_one() { RC=0; timeout 20 "$RDMACTL" "$@" >"$TMPD/out" 2>"$TMPD/err" </dev/null || RC=$?; ERR=$(cat "$TMPD/err"); }
run_one --root "$ONE" snapshot -o "$TMPD/one.tar.gz"
check one-rc rc_is 1
check one-lines [ "$ERR" = "$W $ONE/etc/security/limits.d/50-fifo.conf: a FIFO where a regular file belongs
$W2 1 file left out (listed above, and in rdmactl-snapshot.json in the archive)" ]
# A tree with nothing left out: rc 0, no warnings, an empty list in the archive.
run -j --root "$FIXTURES/limits-pam" snapshot -o "$TMPD/clean.tar.gz"
check clean-rc rc_is 0
check clean-warnings json_ok 'has("warnings") | not'
check clean-quiet [ -z "$ERR" ]
check clean-manifest bash -c 'set -o pipefail; tar xzOf "$1" rdmactl-snapshot.json | json_one ".warnings == []"' _ \
	"$TMPD/clean.tar.gz"
chmod 700 "$TMPD"

# --- the hostile sysfs trees of tests/tools/hostile-tree, read as nobody ---
# leftout_case KIND WHAT...: snapshot a tree of KIND; each WHAT is
# "PATH: REASON" (PATH below the tree) of a file it must leave out, and
# nothing else may be left out.
leftout_case() {
	local kind=$1 x=$TMPD/ht-$1 want line
	shift
	"$TOP/tests/tools/hostile-tree" "$kind" "$x"
	chmod 755 "$TMPD"
	as_user --root "$x" snapshot -o "$OUTD/$kind.tar.gz"
	chmod 700 "$TMPD"
	want=$({
		for line in "$@"; do echo "$W $x/$line"; done
		echo "$W2 $# file$([ $# = 1 ] || echo s) left out (listed above, and in rdmactl-snapshot.json in the archive)"
	} | sort)
	check "tree-$kind-rc" rc_is 1
	check "tree-$kind-lines" [ "$(sort <<<"$ERR")" = "$want" ]
	check "tree-$kind-manifest" bash -c 'set -o pipefail; tar xzOf "$1" rdmactl-snapshot.json | json_one ".warnings | length == $2"' \
		_ "$OUTD/$kind.tar.gz" $#
}
RXE=sys/devices/virtual/infiniband/rxe0
leftout_case unreadable "$RXE/node_guid: Permission denied (run as root)" \
	"$RXE/ports/1/state: Permission denied (run as root)" "$RXE/ports/1/gids/1: Permission denied (run as root)"
leftout_case loop "sys/class/infiniband/rxe0/node_guid: Too many levels of symbolic links"
leftout_case fifo "$RXE/fw_ver: a FIFO where a regular file belongs" \
	"$RXE/ports/1/state: a FIFO where a regular file belongs"
leftout_case big "$RXE/ports/1/rate: File too large (over the 1 MiB cap)" \
	"etc/security/limits.conf: File too large (over the 1 MiB cap)"
if [ "$(id -u)" = 0 ]; then
	leftout_case device "$RXE/ports/1/state: a character device where a regular file belongs"
else
	skip tree-device "not root: mknod needs CAP_MKNOD"
fi
# Hostile names and values are recorded as they are, and nothing is left out.
for kind in escapes utf8; do
	"$TOP/tests/tools/hostile-tree" "$kind" "$TMPD/ht-$kind"
	run --root "$TMPD/ht-$kind" snapshot -o "$TMPD/ht-$kind.tar.gz"
	check "tree-$kind-rc" rc_is 0
	check "tree-$kind-quiet" [ -z "$ERR" ]
done
mkdir "$TMPD/ht-escapes.x" && tar xzf "$TMPD/ht-escapes.tar.gz" -C "$TMPD/ht-escapes.x"
check tree-escapes-name-kept [ -L "$TMPD/ht-escapes.x/sys/class/infiniband/$(printf 'rxe\033[2J1')" ]

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
