#!/bin/bash
# rdmactl probe between the two guests over Soft-RoCE: A->B and B->A, the
# device, GID and path MTU it chose checked against what the guest's own
# sysfs and ibv_devinfo say; --verify, --rdma-cm, a short --sweep, --bidir
# and --qps 2; both ends print the same rows.
# lab-timeout: 300
# lab-seconds: 50

lab_need_peer
# The ACK timeout at the slower guest's pace: a verdict on a healthy
# link, not on how fast the guests answer (lib.sh).
lab_barrier paced
lab_ack_timeout
echo "RDMACTL_PROBE_ACK_TIMEOUT=$RDMACTL_PROBE_ACK_TIMEOUT at pace ${LAB_PACE:-100}%"

port=18600
small=(-s 64K -n 100 --lat-iters 10)

# The GID index of this guest's IPv4 address on rxe0/1, from sysfs.
my_gid_index() {
	local f want
	want=$(lab_gid_of "$LAB_IP")
	for f in /sys/class/infiniband/rxe0/ports/1/gids/*; do
		[[ $(cat "$f" 2>/dev/null) == "$want" ]] && { basename "$f"; return; }
	done
}

active_mtu() {
	ibv_devinfo -d rxe0 -i 1 | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'
}

lab_put "gid-$LAB_NODE" "$(my_gid_index)"
lab_put "mtu-$LAB_NODE" "$(active_mtu)"

"$RDMACTL" probe --server --port $port >server.out 2>server.err &
server=$!
lab_wait_listen $port
lab_barrier servers-up

# client NAME ARGS...: run a probe against the peer, JSON into NAME.json;
# with TIMED set, its user CPU seconds and voluntary context switches
# (the times it slept) into NAME.time ("0.52 340", GNU time's %U %w).
client() {
	local name=$1 timed=()
	shift
	[[ ${TIMED-} ]] && timed=(/usr/bin/time -f '%U %w' -o "$name.time")
	lab_timeout 120 "${timed[@]}" "$RDMACTL" -j probe "$LAB_PEER_IP" "$@" >"$name.json" 2>"$name.err"
	echo "$?" >"$name.rc"
	echo "== $name: rc $(<"$name.rc")"
	cat "$name.err"
	jq -c '.results[]? | [.bytes, .msgs, .bw_avg_gbps, .lat_median_us, .verify_errors]' "$name.json"
}

jqv() { jq -r "$2" "$1.json"; }

run_clients() {
	client basic "${small[@]}"
	check_eq "basic: exit status" 0 "$(<basic.rc)"
	check_eq "basic: transport" rdma "$(jqv basic .probe.transport)"
	check_eq "basic: local device" rxe0 "$(jqv basic .probe.local.device)"
	check_eq "basic: local GID index (sysfs)" "$(my_gid_index)" "$(jqv basic .probe.local.gid_index)"
	check_eq "basic: remote GID index (peer's sysfs)" "$(lab_get "gid-$LAB_PEER")" \
		"$(jqv basic .probe.remote.gid_index)"
	check_eq "basic: local GID type" v2 "$(jqv basic .probe.local.gid_type)"
	check_eq "basic: local active MTU (ibv_devinfo)" "$(active_mtu)" "$(jqv basic .probe.local.active_mtu)"
	local m1 m2
	m1=$(active_mtu)
	m2=$(lab_get "mtu-$LAB_PEER")
	check_eq "basic: path MTU = min of both ends" "$((m1 < m2 ? m1 : m2))" "$(jqv basic .probe.path_mtu)"
	check_eq "basic: size" 65536 "$(jqv basic '.results[0].bytes')"
	check_eq "basic: messages" 100 "$(jqv basic '.results[0].msgs')"
	[[ $(jqv basic '.results[0].bw_avg_gbps > 0 and .results[0].lat_median_us > 0') == true ]] ||
		fail "basic: no bandwidth or latency measured"
	# Gb/s and MB/s columns are the same measurement in two units.
	[[ $(jqv basic '(.results[0].bw_avg_gbps * 125 - .results[0].bw_avg_MBps) | fabs < 1') == true ]] ||
		fail "basic: Gb/s and MB/s disagree"

	client verify "${small[@]}" --verify
	check_eq "verify: exit status" 0 "$(<verify.rc)"
	check_eq "verify: no wrong bytes" 0 "$(jqv verify '.results[0].verify_errors')"

	# Corrupt data must not pass: RDMACTL_PROBE_CORRUPT (a test aid) makes
	# this end write every message with its first byte flipped.  The peer
	# checks its receive region once the writes are done: one wrong byte.
	RDMACTL_PROBE_CORRUPT=1 client corrupt "${small[@]}" --verify
	check_eq "corrupt: exit status" 1 "$(<corrupt.rc)"
	check_eq "corrupt: wrong bytes the peer found" 1 "$(jqv corrupt '.results[0].verify_errors')"
	grep -q '1 byte(s) differ from the pattern' corrupt.err || fail "corrupt: no verify failure message"

	local t0 t1 msgs base dur busy ubase udur ubusy
	# What a run costs besides its writes (its start, the latency ping-pong,
	# which polls): ten writes, then the same latency.
	TIMED=1 client base -s 64K -n 10 --lat-iters 10
	check_eq "base: exit status" 0 "$(<base.rc)"
	t0=$(date +%s%N)
	TIMED=1 client duration -s 64K -D 2 --lat-iters 10
	t1=$(date +%s%N)
	check_eq "duration: exit status" 0 "$(<duration.rc)"
	msgs=$(jqv duration '.results[0].msgs')
	((msgs > 0)) || fail "duration: no messages"
	(((t1 - t0) / 1000000 >= 2000)) || fail "duration: -D 2 ended after $(((t1 - t0) / 1000000)) ms"
	# The same run with the writer polling all along, as ib_write_bw does
	# (RDMACTL_PROBE_BUSY_POLL=1).  By default it polls only while
	# completions come less than 0.2 ms apart, and sleeps on the CQ's
	# channel between the emulated link's, milliseconds apart.  Judged by
	# the times it slept (its voluntary context switches, each run less
	# the base run's), not by its CPU: a guest's CPU time is charged by
	# its ticks, and the host's time it does not get is charged to
	# whatever ran when the tick came, the writer spinning a burst of
	# completions or not; at half pace (LAB_CPUS=1) the default run was
	# charged 1 549 ms of user CPU for its 2 s, the polling one 2 075.
	RDMACTL_PROBE_BUSY_POLL=1 TIMED=1 client busy -s 64K -D 2 --lat-iters 10
	check_eq "busy poll: exit status" 0 "$(<busy.rc)"
	read -r ubase base < <(tail -n 1 base.time)
	read -r udur dur < <(tail -n 1 duration.time)
	read -r ubusy busy < <(tail -n 1 busy.time)
	echo "duration: $msgs writes in 2 s; slept $((dur - base)) times, polling all along" \
		"$((busy - base)) (each less the base run's $base); user CPU s: base $ubase," \
		"default $udur, polling $ubusy"
	# Quiet, it slept once in two writes or so (465 of 854, 539 of 1 146),
	# with the host kept busy more often (332 of 412, 210 of 309); polling
	# all along, no more than the base run (it sleeps only once completions
	# stop for 100 ms).  So: at least once in ten writes, and the polling
	# run, the measure's control, under half as often.
	if [[ $base =~ ^[0-9]+$ && $dur =~ ^[0-9]+$ && $busy =~ ^[0-9]+$ ]]; then
		(((dur - base) * 10 >= msgs)) || fail "duration: the writer slept $((dur - base)) times in" \
			"$msgs writes (once in ten at least expected): it polls between completions milliseconds apart"
		(((busy - base) * 2 < dur - base)) || fail "duration: polling all along slept $((busy - base))" \
			"times, the default $((dur - base)): the count does not tell them apart"
	else
		fail "duration: no context switch counts (GNU time): '$base' '$dur' '$busy'"
	fi
	lab_put "dur-msgs-$LAB_NODE" "$msgs"

	client cm "${small[@]}" --rdma-cm
	check_eq "rdma-cm: exit status" 0 "$(<cm.rc)"
	check_eq "rdma-cm: transport" rdma-cm "$(jqv cm .probe.transport)"
	check_eq "rdma-cm: device rdma_cm chose" rxe0 "$(jqv cm .probe.local.device)"

	client sweep --sweep-max 1K -n 50 --lat-iters 5
	check_eq "sweep: exit status" 0 "$(<sweep.rc)"
	check_eq "sweep: sizes" "2 4 8 16 32 64 128 256 512 1024" "$(jqv sweep '[.results[].bytes] | map(tostring) | join(" ")')"

	client bidir "${small[@]}" --bidir --verify
	check_eq "bidir: exit status" 0 "$(<bidir.rc)"
	check_eq "bidir: messages both ways" 200 "$(jqv bidir '.results[0].msgs')"

	client qps2 "${small[@]}" --qps 2
	check_eq "qps 2: exit status" 0 "$(<qps2.rc)"
	check_eq "qps 2: messages on both QPs" 200 "$(jqv qps2 '.results[0].msgs')"
}

# b probes a first, then a probes b.
if [[ $LAB_ROLE == b ]]; then
	run_clients
	lab_put b-done 1
	lab_get a-done 240 >/dev/null
else
	lab_get b-done 240 >/dev/null
	run_clients
	lab_put a-done 1
fi
lab_barrier clients-done
kill "$server"
wait "$server" 2>/dev/null
echo "== server output"
cat server.out server.err
# Both ends print the result: the server's table has the peer's rows.
grep -Eq '^ *65536 +100 ' server.out || fail "server did not print the 64 KiB row"
grep -Eq '^ *1024 +50 ' server.out || fail "server did not print the sweep's 1 KiB row"
grep -Eq "^ *65536 +$(lab_get "dur-msgs-$LAB_PEER") " server.out || fail "server did not print the -D row"
exit 0
