#!/bin/bash
# Test runner inside each lab guest, started by init.sh chrooted into the
# host's root: brings up eth0 and the rxe0 Soft-RoCE device, then runs the
# run's tests in order, in step with the other guest, leaving one result file
# per test in the run share for the harness. Its own stdout is the serial
# console (console-NODE.log on the host); each test's output goes to its log.
#
# Usage: guest.sh RUN-DIR NODE
set -u
RUN=$1 NODE=$2

# lab.env (written by the harness) sets LAB_GUESTS LAB_SRC LAB_BIN LAB_DIR
# and the arrays T_ID T_PATH T_TIMEOUT.
# shellcheck source=/dev/null
. "$RUN/lab.env"
# The runner uses the barrier helpers itself.
# shellcheck source=SCRIPTDIR/lib.sh
. "$LAB_DIR/lib.sh"

# say MSG: to the console, stamped with the guest's uptime.
say() {
	local up
	read -r up _ </proc/uptime
	echo "lab-$NODE [$up]: $*"
}

case $NODE in
a) LAB_IP=10.99.0.1 LAB_PEER=b LAB_PEER_IP=10.99.0.2 ;;
b) LAB_IP=10.99.0.2 LAB_PEER=a LAB_PEER_IP=10.99.0.1 ;;
esac
if ((LAB_GUESTS == 1)); then
	LAB_PEER='' LAB_PEER_IP=''
fi
export LAB_NODE=$NODE LAB_RUN=$RUN LAB_IP LAB_PEER LAB_PEER_IP LAB_GUESTS LAB_SRC LAB_BIN
export RDMACTL=$LAB_BIN/rdmactl
export PATH=$LAB_BIN:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# The shared root is read-only; home and temp files live in the guest's tmpfs.
export HOME=/tmp/home TMPDIR=/tmp LANG=C.UTF-8
mkdir -p "$HOME" /tmp/lab-state "$RUN/log/$NODE"
# RDMA memory registration pins pages; the default 8 MiB limit is too low.
ulimit -l unlimited

# rxe_ready: port 1 of rxe0 is ACTIVE and its GID table holds the
# IPv4-mapped GID of LAB_IP (RoCE v2 over IPv4 needs it).
rxe_ready() {
	local port=/sys/class/infiniband/rxe0/ports/1 state gid
	# shellcheck disable=SC2086 # LAB_IP's dots split it into octets
	gid=$(IFS=. && printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $LAB_IP)
	read -r state <"$port/state" 2>/dev/null &&
		[[ $state == *ACTIVE* ]] &&
		grep -qx "$gid" "$port"/gids/* 2>/dev/null
}

# net_up: (re)establish the state every test starts from. Idempotent, so it
# also undoes what the previous test did: link down, other MTU, address
# removed, rxe0 deleted, nft rules, netns. Every process started costs time
# on the emulated CPU, hence one batch for ip and the checks in sysfs.
net_up() {
	ip -batch - <<-EOF || return
		link set lo up
		link set eth0 mtu 1500 up
		addr replace $LAB_IP/24 dev eth0
	EOF
	if [[ ! -e /sys/class/infiniband/rxe0 ]]; then
		rdma link add rxe0 type rxe netdev eth0 || return
	fi
	if command -v nft >/dev/null; then
		nft flush ruleset || return
	fi
	if compgen -G '/run/netns/*' >/dev/null; then
		ip -all netns delete
	fi
	lab__await "rxe0 ACTIVE with the IPv4 GID of $LAB_IP" 30 rxe_ready
}

# put_result ID VERDICT...: atomically publish this guest's verdict.
put_result() {
	local id=$1
	shift
	mkdir -p "$RUN/res"
	echo "$*" >"$RUN/res/.$id.$NODE" && mv "$RUN/res/.$id.$NODE" "$RUN/res/$id.$NODE"
}

# run_test I: run test I with its timeout, then publish its verdict.
run_test() {
	local i=$1 id=${T_ID[$1]} limit=${T_TIMEOUT[$1]} pid rc nfail reason verdict start=$SECONDS
	local log=$RUN/log/$NODE/$id.log share=$RUN/t/$id failfile=/tmp/lab-state/$id.failed
	local work=/tmp/lab-work/$id
	mkdir -p "$share" "$work"
	: >"$failfile"
	echo "$id" >"$RUN/cur.$NODE"
	say "running $id (limit $limit s)"
	(
		export LAB_TEST_ID=$id LAB_SHARE=$share LAB_FAILFILE=$failfile BASH_ENV=$LAB_DIR/lib.sh
		cd "$work" && exec timeout -k 5 "$limit" bash "${T_PATH[$i]}" >"$log" 2>&1 </dev/null
	) &
	pid=$!
	wait "$pid"
	rc=$?
	# timeout(1) leads its own process group: end what the test left behind
	# (servers in the background...) so it cannot disturb the next test.
	kill -KILL -- "-$pid" 2>/dev/null
	nfail=$(wc -l <"$failfile")
	if ((rc == 124 || rc == 137)); then
		echo "lab: test killed after its $limit s limit" >>"$log"
		verdict="fail timed out after $limit s"
	elif ((nfail > 0)); then
		verdict="fail $nfail check(s) failed, exit $rc"
	elif ((rc == 77)); then
		reason=$(sed -n 's/^SKIP: *//p' "$log" | tail -n 1)
		verdict="skip ${reason:-exit 77}"
	elif ((rc == 0)); then
		verdict=pass
	else
		verdict="fail exit $rc"
	fi
	# Before the verdict is out, so the harness's report of it includes this.
	[[ $verdict == pass ]] || wire_report >>"$log"
	put_result "$id" "$verdict"
	say "$id done in $((SECONDS - start)) s: $verdict"
}

# peer_answers: lab-PEER's kernel answers on the wire. A connection to a
# closed port is refused by the peer itself (its RST proves ARP and both
# directions work); "No route to host" or a timeout means the link is dead.
peer_answers() {
	local out
	out=$(timeout 3 bash -c "exec 3<>/dev/tcp/$LAB_PEER_IP/9" 2>&1)
	[[ $? == 0 || $out == *"Connection refused"* ]]
}

# wire_report: after a failed two-node test, say whether the link still
# works and, if not, record this guest's view of it (and the host's view of
# QEMU's socket between the guests) in the console, for a failure that can
# only be understood in the state it left.
wire_report() {
	local n dev
	[[ -n $LAB_PEER_IP ]] || return 0
	peer_answers && return 0
	say "lab-$LAB_PEER does not answer on the wire; link state in the test's log"
	echo "lab: lab-$LAB_PEER does not answer on the wire after this test; link state:"
	: >"$RUN/wire-ask.$NODE"
	lab__await "the host's view of the link" 5 test ! -e "$RUN/wire-ask.$NODE"
	{
		ip -s -s link show dev eth0
		ethtool -S eth0 | grep -v ': 0$'
		ip neigh show dev eth0
		tc -s qdisc show dev eth0
		echo "softnet_stat:" && cat /proc/net/softnet_stat
		dev=$(basename "$(readlink -f /sys/class/net/eth0/device)")
		grep -E "CPU|$dev-" /proc/interrupts
		for n in /sys/class/net/eth0/queues/tx-*/byte_queue_limits/inflight; do
			echo "$n: $(cat "$n")"
		done
		echo "hw_counters:" && lab_hwcnt rxe0 1
		rdma resource show
		dmesg -l emerg,alert,crit,err,warn | grep -v 'speed is unknown' | tail -n 80
		cat "$RUN/wire-state.$NODE" 2>/dev/null
	} 2>&1 | sed "s/^/wire: /"
}

say "bringing up eth0 $LAB_IP and rxe0"
net_up || {
	say "network setup failed"
	exit 1
}
say "ready"

# Before each test both guests meet, so two-node tests start together. The
# slower guest may still be inside the previous test up to its time limit.
wait_limit=60
for i in "${!T_ID[@]}"; do
	if ! lab__rendezvous "$RUN/sync/${T_ID[$i]}" "$wait_limit"; then
		say "lab-$LAB_PEER did not reach ${T_ID[$i]}, stopping"
		put_result "${T_ID[$i]}" fail "lab-$LAB_PEER never reached the start of the test"
		exit 1
	fi
	run_test "$i"
	net_up || say "warning: could not restore the network state after ${T_ID[$i]}"
	wait_limit=$((T_TIMEOUT[i] + 60))
done
: >"$RUN/done.$NODE"
say "all tests done"
