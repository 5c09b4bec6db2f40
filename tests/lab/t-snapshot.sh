#!/bin/bash
# A snapshot is the node: lab-a, with three faults of the field notes
# (nftables dropping RoCE v2's UDP 4791, netdev MTU 1500, `ulimit -l 64`
# in a shell without CAP_IPC_LOCK), runs the doctor live and takes a
# snapshot from that same shell; lab-b, as a support engineer would,
# unpacks it and runs the doctor on the copy.  Every check's status and
# finding are the same on both, the firewall and memlock.shell FAILs and
# the mtu warning among them.
# lab-timeout: 240
# lab-seconds: 16

lab_need_peer
IF=eth0
NOCAP=(setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock)

# checks_of FILE: each check as "id status found", the node's facts but its name.
checks_of() {
	jq -c '.checks[] | [.id, (.status | ascii_downcase), .found]' "$1"
	jq -c '.node | del(.hostname)' "$1"
}

if [[ $LAB_ROLE == a ]]; then
	restore() {
		nft delete table inet rocefw 2>/dev/null
		ip link set "$IF" mtu 1500
	}
	trap restore EXIT
	lab_block_roce
	ip link set "$IF" mtu 1500
	for _ in $(seq 50); do
		ibv_devinfo -d rxe0 -i 1 | grep -Eq "active_mtu:[[:space:]]+1024 " && break
		lab_sleep 0.2
	done
	# One shell for both: the same limit, the same capabilities.
	(
		ulimit -l 64 &&
			"${NOCAP[@]}" "$RDMACTL" -j doctor >live.json 2>live.err
		echo $? >live.rc
		"${NOCAP[@]}" "$RDMACTL" snapshot -o "$LAB_SHARE/a.tar.gz" 2>snap.err
		echo $? >snap.rc
	)
	cat live.err snap.err
	cp live.json "$LAB_SHARE/live.json"
	check_eq "live doctor exits 1" 1 "$(<live.rc)"
	check_eq "snapshot written, nothing left out" 0 "$(<snap.rc)"
	lab_put taken "$(<snap.rc)"
	lab_barrier read 120
else
	lab_get taken 120 >/dev/null
	mkdir copy && tar xzf "$LAB_SHARE/a.tar.gz" -C copy || fail "could not unpack lab-a's snapshot"
	"$RDMACTL" -j --root copy doctor >copy.json 2>copy.err
	echo "copy: rc $?"
	cat copy.err
	cp "$LAB_SHARE/live.json" live.json
	for f in live copy; do
		jq -r '.checks[] | [.status, .id, .found] | @tsv' $f.json | sed "s/^/$f: /"
	done
	status() { jq -r --arg id "$2" '.checks[] | select(.id == $id) | .status | ascii_downcase' "$1"; }
	for f in live copy; do
		check_eq "$f: firewall" fail "$(status $f.json firewall)"
		check_eq "$f: memlock.shell" fail "$(status $f.json memlock.shell)"
		check_eq "$f: mtu" warn "$(status $f.json mtu)"
	done
	if [[ "$(checks_of live.json)" == "$(checks_of copy.json)" ]]; then
		echo "ok: every check the same on the copy"
	else
		fail "the copy differs: $(diff <(checks_of live.json) <(checks_of copy.json))"
	fi
	lab_barrier read 120
fi
