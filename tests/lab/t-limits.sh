#!/bin/bash
# rdmactl limits and snapshot on a real kernel: `ulimit -l 64` in a shell
# makes its rdmactl report 64 KiB, fail and exit 1 once it lacks
# CAP_IPC_LOCK (root's pins past the limit: there it is said not
# enforced, ok, as the doctor says); a process started with
# prlimit --memlock is examined with --pid, and one with a soft limit of
# 2 GiB under an unlimited hard one warns; each figure is checked against
# the kernel's own /proc/PID/limits.  Then the snapshot round trip: the
# extracted copy, read with --root, gives the same limits, devices and GIDs
# as the live node, and holds the guest's sysfs as it is.
# lab-guests: 1
# lab-timeout: 180
# lab-seconds: 35

# proc_memlock PID: "SOFT HARD" of the Max locked memory line, as the kernel says it.
proc_memlock() { awk '/^Max locked memory/ { print $4, $5 }' "/proc/$1/limits"; }
# row_memlock JSON: "SOFT HARD" of the process row, in the kernel's words.
row_memlock() {
	jq -r '.limits[] | select(.scope == "process") |
		"\(.soft_bytes // "unlimited") \(.hard_bytes // "unlimited")"' <<<"$1"
}

# nocap CMD...: CMD without CAP_IPC_LOCK, as a job of a user has it.
nocap() { setpriv --bounding-set -ipc_lock "$@"; }

# --- ulimit -l 64: this process, 64 KiB, a failure ---
(
	ulimit -l 64
	proc_memlock self >kernel.txt	# awk's own limits: the shell's, inherited
	nocap "$RDMACTL" limits >text.out 2>text.err
	echo $? >text.rc
	nocap "$RDMACTL" -j limits >json.out 2>/dev/null
	"$RDMACTL" -j limits >root.json 2>/dev/null
)
# As root, with CAP_IPC_LOCK: the limit does not bind it.
check_eq "ulimit -l 64 as root: not enforced" "ok true" \
	"$(jq -r '.limits[0] | "\(.verdict) \(.reason | test("CAP_IPC_LOCK"))"' root.json)"
cat text.out
check_eq "exit code with ulimit -l 64" 1 "$(<text.rc)"
check_eq "kernel's view under ulimit -l 64" "65536 65536" "$(<kernel.txt)"
check_eq "process row = /proc/self/limits" "$(<kernel.txt)" "$(row_memlock "$(<json.out)")"
grep -Eq '^process +self +64 KiB +64 KiB +fail +/proc/self/limits$' text.out ||
	fail "no '64 KiB ... fail' row for this process"
check_eq "verdict" fail "$(jq -r '.limits[0].verdict' json.out)"
grep -q 'prlimit --pid \$\$ --memlock=unlimited:unlimited' text.out ||
	fail "no prlimit fix for a 64 KiB hard limit"

# --- a process started with prlimit, examined from outside ---
prlimit --memlock=1048576:1048576 sleep 30 &
sleeper=$!
for _ in $(seq 50); do
	[[ $(readlink "/proc/$sleeper/exe") == */sleep ]] && break
	sleep 0.1
done
kernel=$(proc_memlock "$sleeper")
check_eq "kernel's view of the prlimit'd sleep" "1048576 1048576" "$kernel"
out=$("$RDMACTL" -j limits --pid "$sleeper")
check_eq "exit code of --pid (1 MiB fails)" 1 "$?"
check_eq "--pid row = /proc/$sleeper/limits" "$kernel" "$(row_memlock "$out")"
check_eq "--pid row names the pid" "$sleeper" "$(jq -r '.limits[0].pid' <<<"$out")"
"$RDMACTL" limits --pid "$sleeper" | tee pid.out
grep -Eq "^process +pid $sleeper +1 MiB +1 MiB +fail +/proc/$sleeper/limits$" pid.out ||
	fail "no '1 MiB ... fail' row for pid $sleeper"
kill "$sleeper"
wait "$sleeper" 2>/dev/null

# --- soft 2 GiB under an unlimited hard limit: a warning, its fix the
# unlimited soft limit (raising a hard limit needs CAP_SYS_RESOURCE, which
# a guest's root has and a container's may not: the host's CLI test skips
# it there) ---
out=$(prlimit --memlock=2147483648:unlimited setpriv --bounding-set -ipc_lock "$RDMACTL" -j limits)
check_eq "soft 2 GiB, hard unlimited: the process row" "2147483648 unlimited" "$(row_memlock "$out")"
check_eq "soft 2 GiB, hard unlimited: a warning" warn "$(jq -r '.limits[0].verdict' <<<"$out")"
json_one '.limits[0].fix | contains("ulimit -l unlimited")' <<<"$out" ||
	fail "no 'ulimit -l unlimited' fix for a 2 GiB soft limit under an unlimited hard one"
"$RDMACTL" limits --pid "$sleeper" 2>gone.err
check_eq "exit code for a process that is gone" 2 "$?"
grep -q "no such process" gone.err || fail "no 'no such process' for pid $sleeper: $(<gone.err)"

# --- snapshot round trip ---
"$RDMACTL" snapshot -o snap.tar.gz || fail "snapshot failed"
mkdir r && tar xzf snap.tar.gz -C r || fail "tar xzf of the snapshot failed"
# rxe0's sysfs fw_ver is an empty line: the copy must keep it as it is.
check_eq "fw_ver file in the copy" "$(od -c /sys/class/infiniband/rxe0/fw_ver)" \
	"$(od -c r/sys/class/infiniband/rxe0/fw_ver)"
for args in "limits" "gids" "devices" "gids --recommend"; do
	# shellcheck disable=SC2086 # $args is the command and its options
	"$RDMACTL" -j $args >live.json 2>/dev/null
	# shellcheck disable=SC2086
	"$RDMACTL" --root r -j $args >copy.json 2>/dev/null
	[[ -s live.json ]] || fail "rdmactl -j $args printed nothing"
	if cmp -s live.json copy.json; then
		echo "ok: --root copy gives the same '$args'"
	else
		fail "--root copy differs for '$args'"
		jq -S . live.json >live.pretty && jq -S . copy.json >copy.pretty
		diff live.pretty copy.pretty | head -20
	fi
done
# The copy holds the guest's sysfs as it is, links as links.
[[ -L r/sys/class/infiniband/rxe0 ]] || fail "sys/class/infiniband/rxe0 is not a link in the copy"
check_eq "rxe0 link target" "$(readlink /sys/class/infiniband/rxe0)" "$(readlink r/sys/class/infiniband/rxe0)"
# Every readable GID attribute, one grep each side ("FILE:CONTENTS" lines).
port=/sys/class/infiniband/rxe0/ports/1
for t in gids gid_attrs/types gid_attrs/ndevs; do
	live=$(cd "$port/$t" && grep -s -H '' -- *)
	copy=$(cd "r$port/$t" && grep -s -H '' -- *)
	check_eq "readable $t entries recorded" "$(wc -l <<<"$live")" "$(wc -l <<<"$copy")"
	[[ $live == "$copy" ]] || fail "$t differs in the copy"
done
check_eq "eth0 mtu in the copy" "$(</sys/class/net/eth0/mtu)" "$(<r/sys/class/net/eth0/mtu)"
check_eq "proc/self/limits recorded" "$(proc_memlock self)" \
	"$(awk '/^Max locked memory/ { print $4, $5 }' r/proc/self/limits)"
