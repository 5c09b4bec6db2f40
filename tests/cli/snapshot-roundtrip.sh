#!/bin/bash
# A snapshot is the node, for every check: each fixture, snapshotted
# through --root and unpacked, gives the doctor's statuses and findings
# check by check (and the node's facts drift compares), for every --for,
# and the same -j output of every other command with a verdict, as the
# tree itself.  This machine, live, against its own snapshot.  A command
# output a tree did not record (run/rdmactl/cmd/) is "not recorded",
# never ok; one recorded as failed reads back as that failure.
. "$(dirname "$0")/lib.sh"

if ! command -v tar >/dev/null; then
	skip all "tar not installed (Debian package tar)"
	finish
fi

# jqe FILTER FILE: FILE is one JSON document and the filter holds on it.
jqe() { json_one "$1" <"$2"; }

# one_doc FILE: FILE holds exactly one non-empty JSON document.
one_doc() { [ -s "$1" ] && [ "$(jq -s 'length' "$1" 2>/dev/null)" = 1 ]; }

# checks_of FILE: the doctor's checks, one line each: id, status (any case),
# found; then the node's facts, hostname aside (null with --root).  One jq
# a file (each costs a process start): "not one doctor document" unless
# FILE holds exactly one, with checks.
checks_of() {
	jq -cs 'if length == 1 and (.[0].checks | length > 0) then .[0] |
		(.checks[] | [.id, (.status | ascii_downcase), .found]), (.node | del(.hostname))
		else "not one doctor document" end' "$1" 2>/dev/null || echo "not JSON"
}

# doc NAME ARGS...: `rdmactl -j ARGS` on the tree and on its copy, stdout in
# $TMPD/NAME.tree and $TMPD/NAME.copy (ROOT and COPY set by the caller).
doc() {
	local name=$1
	shift
	"$RDMACTL" -j ${ROOT:+--root "$ROOT"} "$@" >"$TMPD/$name.tree" 2>/dev/null </dev/null
	"$RDMACTL" -j --root "$COPY" "$@" >"$TMPD/$name.copy" 2>/dev/null </dev/null
}

# same_checks NAME: the doctor documents of doc NAME agree check by check.
same_checks() {
	local a b
	a=$(checks_of "$TMPD/$1.tree")
	b=$(checks_of "$TMPD/$1.copy")
	if [ "$a" = "$b" ] && [ "${a#\"not}" = "$a" ] && [ "$a" != "not JSON" ]; then
		pass "$1"
	else
		fail "$1" "tree < > copy: $(diff <(echo "$a") <(echo "$b") | cut -c1-400)"
	fi
}

# same_doc NAME: the documents of doc NAME are one and the same.
same_doc() {
	local a=$TMPD/$1.tree b=$TMPD/$1.copy
	if cmp -s "$a" "$b" && one_doc "$a"; then
		pass "$1"
	else
		fail "$1" "tree < > copy: $(diff "$a" "$b" | head -20 | cut -c1-400)"
	fi
}

# snap NAME ROOT: snapshot ROOT ("" = this machine) unpacked in $TMPD/NAME; sets COPY.
snap() {
	COPY=$TMPD/$1
	mkdir -p "$COPY"
	if [ -n "$2" ]; then run --root "$2" snapshot -o "$COPY.tar.gz"; else run snapshot -o "$COPY.tar.gz"; fi
	check "$1-snapshot-rc" rc_is 0
	tar xzf "$COPY.tar.gz" -C "$COPY"
}

# --- every fixture, every command with a verdict ---
# And the trees the fixture scripts write: a VLAN, a macvlan, a bond, a bond with a
# slave down, rails sharing a subnet wrong and right.
mkdir -p "$TMPD/gen"
for g in vlan macvlan bond bond-down shared-wrong shared-right; do
	cp -a "$FIXTURES/doctor-healthy" "$TMPD/gen/$g"
done
bash "$FIXTURES/vlan.sh" "$TMPD/gen/vlan"
bash "$FIXTURES/macvlan.sh" "$TMPD/gen/macvlan" 1500
bash "$FIXTURES/bond.sh" "$TMPD/gen/bond"
bash "$FIXTURES/bond.sh" "$TMPD/gen/bond-down" active-backup layer2 ens19f0np0
bash "$FIXTURES/shared-subnet.sh" "$TMPD/gen/shared-wrong" wrong
bash "$FIXTURES/shared-subnet.sh" "$TMPD/gen/shared-right" right
n=0
for ROOT in "$FIXTURES"/*/ "$TMPD"/gen/*/; do
	ROOT=${ROOT%/}
	fx=$(basename "$ROOT")
	# Saved cluster runs, not a node's tree.
	[ "$fx" = report ] && continue
	n=$((n + 1))
	snap "$fx" "$ROOT"
	doc "$fx-doctor" doctor
	same_checks "$fx-doctor"
	for target in nccl ucx perftest; do
		doc "$fx-doctor-$target" doctor --for "$target"
		same_checks "$fx-doctor-$target"
	done
	doc "$fx-ports" ports
	same_doc "$fx-ports"
	doc "$fx-gids-recommend" gids --recommend
	same_doc "$fx-gids-recommend"
	doc "$fx-limits" limits
	same_doc "$fx-limits"
	for job in nccl ucx mpi; do
		doc "$fx-env-$job" env --for "$job"
		same_doc "$fx-env-$job"
	done
	# Prometheus text, not JSON: the same lines.
	"$RDMACTL" --root "$ROOT" doctor --metrics >"$TMPD/$fx-metrics.tree" 2>/dev/null </dev/null
	"$RDMACTL" --root "$COPY" doctor --metrics >"$TMPD/$fx-metrics.copy" 2>/dev/null </dev/null
	check "$fx-metrics" bash -c 'grep -q "^rdmactl_" "$1" && cmp -s "$1" "$2"' _ "$TMPD/$fx-metrics.tree" \
		"$TMPD/$fx-metrics.copy"
done
check fixtures-seen [ "$n" -ge 20 ]

# The two of the issue, by name: the FAILs stay FAILs, the oks stay ok.
ROOT=$FIXTURES/doctor-broken COPY=$TMPD/doctor-broken
doc broken-nccl doctor --for nccl
check broken-copy-firewall-fail jqe '.checks[] | select(.id == "firewall") | .status | ascii_downcase == "fail"' \
	"$TMPD/broken-nccl.copy"
check broken-copy-gpudirect-fail jqe '.checks[] | select(.id == "gpudirect") | .status | ascii_downcase == "fail"' \
	"$TMPD/broken-nccl.copy"
ROOT=$FIXTURES/doctor-healthy COPY=$TMPD/doctor-healthy
doc healthy-nccl doctor --for nccl
check healthy-copy-ok jqe '[.checks[] | select(.id == "roce.gid" or .id == "versions") | .status |
	ascii_downcase] == ["ok", "ok"]' "$TMPD/healthy-nccl.copy"

# --- this machine, live, against its snapshot ---
ROOT=""
snap live ""
doc live-doctor doctor
same_checks live-doctor
doc live-limits limits
same_doc live-limits

# --- the devices libibverbs opened: recorded, and read back ---
V=$TMPD/verbs
cp -a "$FIXTURES/doctor-healthy" "$V"
mkdir -p "$V/run/rdmactl"
printf 'mlx5_0\nmlx5_1\n' >"$V/run/rdmactl/verbs-devices"
run -j --root "$V" doctor --only devices
check verbs-unopened json_ok '.checks[0] | (.status | ascii_downcase == "fail") and
	(.found | contains("the kernel has mlx5_10") and contains("libibverbs could not open it"))'
ROOT=$V
snap verbs-copy "$V"
doc verbs-doctor doctor
same_checks verbs-doctor
check live-verbs-recorded [ -f "$TMPD/live/run/rdmactl/verbs-devices" ]

# --- what a tree did not record is not recorded, never ok ---
T=$TMPD/unrecorded
cp -a "$FIXTURES/doctor-healthy" "$T"
rm -f "$T"/run/rdmactl/cmd/*
run -j --root "$T" doctor --only firewall,versions
check unrecorded-firewall-skip json_ok '[.checks[] | select(.id == "firewall") | (.status | ascii_downcase),
	(.found | startswith("not recorded in this snapshot"))] == ["skip", true]'
check unrecorded-ofed json_ok '.checks[] | select(.id == "versions") | .found | contains("OFED: not recorded in this snapshot")'
check unrecorded-ofed-fact json_ok '.node | has("ofed") | not'
# ... and stays so through a snapshot of that tree.
snap unrecorded "$T"
check unrecorded-copy-none [ -z "$(ls -A "$COPY/run/rdmactl/cmd" 2>/dev/null)" ]
# A tool recorded as not installed reads back as not installed, one that
# failed as that failure.
printf 'ENOENT: No such file or directory\n' >"$T/run/rdmactl/cmd/nft-list-ruleset.json.error"
printf 'ENOENT: No such file or directory\n' >"$T/run/rdmactl/cmd/iptables-save.error"
printf 'ENOENT: No such file or directory\n' >"$T/run/rdmactl/cmd/ofed_info-s.error"
run -j --root "$T" doctor --only firewall,versions
check absent-firewall-ok json_ok '.checks[] | select(.id == "firewall") | (.status | ascii_downcase == "ok") and
	(.found == "neither nft nor iptables-save is installed")'
check absent-ofed json_ok '(.checks[] | select(.id == "versions") | .found | contains("no MLNX_OFED (inbox drivers)")) and
	(.node | has("ofed") and .ofed == null)'
printf 'EIO: Input/output error\n' >"$T/run/rdmactl/cmd/nft-list-ruleset.json.error"
run -j --root "$T" doctor --only firewall
check failed-firewall-warn json_ok '.checks[] | select(.id == "firewall") | (.status | ascii_downcase == "warn") and
	(.found | startswith("could not list the nftables rules (Input/output error)"))'
# The snapshot keeps the failure, and says the ruleset is not in it (exit 1).
mkdir "$TMPD/failed"
run --root "$T" snapshot -o "$TMPD/failed.tar.gz"
check failed-snapshot-rc rc_is 1
check failed-snapshot-says err_has "left out $T/run/rdmactl/cmd/nft-list-ruleset.json: nft failed: Input/output error"
tar xzf "$TMPD/failed.tar.gz" -C "$TMPD/failed"
check failed-recorded [ "$(cat "$TMPD/failed/run/rdmactl/cmd/nft-list-ruleset.json.error")" = "EIO: Input/output error" ]

# --- links that leave the directory: resolved inside the root, as chroot would ---
# The site keeps its limits and UCX under /opt and links them in with
# absolute targets.  Read through --root (the tree, and its snapshot)
# they lead to the tree's /opt, never to this machine's.
A=$TMPD/abslinks
cp -a "$FIXTURES/doctor-healthy" "$A"
mkdir -p "$A/opt/site" "$A/opt/ucx/lib"
mv "$A/etc/security/limits.d/99-nccl.conf" "$A/opt/site/memlock.conf"
ln -s /opt/site/memlock.conf "$A/etc/security/limits.d/99-nccl.conf"
# Not unlimited by systemd: the login limit is the linked file's or nothing.
rm "$A/etc/systemd/system.conf.d/90-memlock.conf"
echo 'a stand-in' >"$A/opt/ucx/lib/libucp.so.0.0.0"
ln -s /opt/ucx/lib/libucp.so.0.0.0 "$A/usr/lib/x86_64-linux-gnu/libucp.so.0"
# ".." above the root stays at the root, as in a chroot.
ln -s ../../../../opt/site/memlock.conf "$A/etc/security/limits.d/98-up.conf"
ROOT=$A
snap abslinks "$A"
doc abslinks-doctor doctor --for ucx
same_checks abslinks-doctor
for side in tree copy; do
	check "abslinks-$side-login-ok" jqe '.checks[] | select(.id == "memlock.login") |
		(.status | ascii_downcase == "ok") and (.found | contains("/etc/security/limits.d/99-nccl.conf:1"))' \
		"$TMPD/abslinks-doctor.$side"
	check "abslinks-$side-ucx-found" jqe '.checks[] | select(.id == "ucx.ud_dgid") |
		(.status | ascii_downcase != "skip") and (.found | contains("/usr/lib/x86_64-linux-gnu/libucp.so.0"))' \
		"$TMPD/abslinks-doctor.$side"
done
doc abslinks-limits limits
same_doc abslinks-limits
check abslinks-copy-linked [ "$(readlink "$COPY/etc/security/limits.d/99-nccl.conf")" = /opt/site/memlock.conf ]

# --- what the snapshot could not read reads back as unreadable, not absent ---
# The user who ran `rdmactl snapshot` could not read a GID's netdev and
# another port's GID type: on the node the doctor fails roce.gid ("cannot
# read ..."), env refuses; the copy, read by anyone, must say the same.
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip unreadable "needs root and setpriv (util-linux) to run the snapshot as nobody"
else
	# nobody's own copies of the binary and the tree, outside the checkout.
	U=$(mktemp -d /tmp/rdmactl-roundtrip-user.XXXXXX)
	chmod 755 "$U"
	cp "$RDMACTL" "$U/rdmactl"
	cp -a "$FIXTURES/doctor-healthy" "$U/tree"
	chmod -R a+rX "$U/tree"
	mkdir -m 1777 "$U/out"
	chmod 000 "$U/tree/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/5" \
		"$U/tree/sys/class/infiniband/mlx5_10/ports/1/gid_attrs/types/3"
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$U/rdmactl" "$@"; }
	for job in nccl ucx; do
		nobody -j --root "$U/tree" doctor --for $job >"$TMPD/unreadable-$job.tree" 2>/dev/null </dev/null
	done
	nobody --root "$U/tree" snapshot -o "$U/out/u.tar.gz" >/dev/null 2>&1 </dev/null
	COPY=$TMPD/unreadable
	mkdir -p "$COPY"
	tar xzf "$U/out/u.tar.gz" -C "$COPY"
	check unreadable-recorded jqe '[.warnings[] | select(.errno == "EACCES") | .path | split("/") | .[-3:] | join("/")] |
		sort == ["gid_attrs/ndevs/5", "gid_attrs/types/3"]' "$COPY/rdmactl-snapshot.json"
	for job in nccl ucx; do
		"$RDMACTL" -j --root "$COPY" doctor --for $job >"$TMPD/unreadable-$job.copy" 2>/dev/null </dev/null
		same_checks "unreadable-$job"
	done
	check unreadable-copy-fails jqe '.checks[] | select(.id == "roce.gid") | (.status | ascii_downcase == "fail") and
		(.found | contains("mlx5_0/1: cannot read gid_attrs/ndevs/5: Permission denied") and
		contains("mlx5_10/1: cannot read gid_attrs/types/3: Permission denied"))' "$TMPD/unreadable-nccl.copy"
	run --root "$COPY" env --for nccl
	check unreadable-env-refuses rc_is 1
	check unreadable-env-says err_has "cannot read gid_attrs/ndevs/5: Permission denied"
	rm -rf "$U"
fi

finish
