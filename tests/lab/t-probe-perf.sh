#!/bin/bash
# rdmactl probe beside perftest's ib_write_bw on the same link, same size
# and count: both must take the same path (GID index, MTU) and put at least
# the packets their writes need on the wire, as the writer's rxe counters
# count them. So rdmactl's figure is of the same work the reference does.
# Then the rates: rdmactl's must be ib_write_bw's within 0.7 to 1.3 (the
# medians of three rounds, the two tools taking turns, so that the
# emulated link's swings with the host's load fall on both alike), and no
# more than the bytes it wrote over the time the whole command took could
# carry.  bench/probe.sh measures the ratio over many rounds.
# lab-timeout: 240
# lab-seconds: 9

lab_need_peer

n=300
size=65536
port=18600
bwport=18515
ROUNDS=3

if [[ $LAB_ROLE == a ]]; then
	"$RDMACTL" probe --server --port $port >probe-server.out 2>&1 &
	probe=$!
	lab_wait_listen $port || fail "rdmactl probe server does not listen"
	# One ib_write_bw server a round: it serves one client and ends.
	for r in $(seq $ROUNDS); do
		timeout 100 ib_write_bw -d rxe0 -x 1 -F -s $size -n $n -p $bwport >>bw-server.out 2>&1 &
		bw=$!
		lab_wait_listen $bwport || fail "ib_write_bw server does not listen (round $r)"
		lab_put "up$r" 1
		wait "$bw" || fail "ib_write_bw server exited with $? (round $r)"
	done
	lab_get client-done 200 >/dev/null
	kill "$probe"
	wait "$probe" 2>/dev/null
	cat probe-server.out bw-server.out
	exit 0
fi

# sent: the writer's rxe0 packets sent so far (retransmissions included).
sent() { lab_hwcnt rxe0 1 | awk '$1 == "sent_pkts" { print $2 }'; }

# now: seconds since the epoch, to the microsecond (bash's own clock).
now() { echo "$EPOCHREALTIME"; }

# A round: rdmactl probe, then ib_write_bw, each counted on the wire and
# rdmactl's timed as a whole.  The first round's files are the ones the
# path and packet checks read.
for r in $(seq $ROUNDS); do
	lab_get "up$r" >/dev/null
	s0=$(sent)
	t0=$(now)
	timeout 100 "$RDMACTL" -j probe "$LAB_PEER_IP" -s $size -n $n --lat-iters 0 >"probe$r.json" ||
		fail "rdmactl probe exited with $? (round $r)"
	t1=$(now)
	s1=$(sent)
	for _ in 1 2 3; do
		timeout 100 ib_write_bw -d rxe0 -x 1 -F -s $size -n $n -p $bwport "$LAB_PEER_IP" >"bw$r.out" 2>&1 && break
		lab_sleep 1
	done
	s2=$(sent)
	echo "$t0 $t1" >"time$r"
	[[ $r == 1 ]] && { s0_1=$s0 s1_1=$s1 s2_1=$s2; }
done
s0=$s0_1 s1=$s1_1 s2=$s2_1
lab_put client-done 1
cp probe1.json probe.json
cp bw1.out bw.out
cat bw.out

# ib_write_bw: " Mtu : 1024[B]", " GID index : 1", then
# "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]".
bw_mtu=$(sed -n 's/.*Mtu *: *\([0-9]*\)\[B\].*/\1/p' bw.out | head -n 1)
bw_gid=$(sed -n 's/.*GID index *: *\([0-9]*\).*/\1/p' bw.out | head -n 1)
bw_row=$(awk -v s=$size '$1 == s && NF >= 5 { print $2, $4 }' bw.out)
[[ -n $bw_mtu && -n $bw_gid && -n $bw_row ]] || fail "ib_write_bw printed no result (its output is above)"
read -r bw_iters bw_rate <<<"$bw_row"
check_eq "ib_write_bw ran $n writes" $n "$bw_iters"

jqv() { jq -r "$1" probe.json; }
check_eq "rdmactl: size" $size "$(jqv '.results[0].bytes')"
check_eq "rdmactl: writes" $n "$(jqv '.results[0].msgs')"
check_eq "same GID index as ib_write_bw -x $bw_gid" "$bw_gid" "$(jqv .probe.local.gid_index)"
check_eq "same path MTU as ib_write_bw" "$bw_mtu" "$(jqv .probe.path_mtu)"

# Each tool's writes were on the wire: at least size/MTU packets apiece
# (more when some were sent again).
[[ $s0$s1$s2 =~ ^[0-9]+$ ]] || fail "rxe0 has no sent_pkts counter: '$s0' '$s1' '$s2'"
mtu=${bw_mtu:-1024}
need=$((n * ((size + mtu - 1) / mtu)))
echo "packets sent: rdmactl $((s1 - s0)), ib_write_bw $((s2 - s1)), $need needed for $n x $size B at MTU $mtu"
((s1 - s0 >= need)) || fail "rdmactl's writes sent $((s1 - s0)) packets, fewer than the $need they need"
((s2 - s1 >= need)) || fail "ib_write_bw's writes sent $((s2 - s1)) packets, fewer than the $need they need"

# perftest's MB/sec is 2^20 B/s: its code divides by 0x100000, and newer
# releases label the same number MiB/sec. rdmactl's MB/s is 10^6 B/s.
# Each round: rdmactl's MiB/s and ib_write_bw's, and rdmactl's bound.
rates_p=() rates_b=()
for r in $(seq $ROUNDS); do
	p=$(jq -r '.results[0].bw_avg_MBps / 1.048576 | . * 100 | round / 100' "probe$r.json")
	b=$(awk -v s=$size '$1 == s && NF >= 5 { print $4 }' "bw$r.out")
	[[ $p =~ ^[0-9.]+$ && $b =~ ^[0-9.]+$ ]] || { fail "round $r: no rate (rdmactl '$p', ib_write_bw '$b')"; continue; }
	rates_p+=("$p") rates_b+=("$b")
	read -r t0 t1 <"time$r"
	# The writes took no longer than the whole command: its average rate
	# is at least the bytes over the command's wall time.
	floor=$(awk -v b=$((size * n)) -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.2f", b / (t1 - t0) / 1048576 }')
	echo "round $r: rdmactl $p MiB/s, ib_write_bw $b MiB/s, rdmactl's bytes over its wall time $floor MiB/s"
	awk -v p="$p" -v f="$floor" 'BEGIN { exit !(p >= f) }' ||
		fail "round $r: rdmactl says $p MiB/s, less than its $((size * n)) bytes over the command's own time ($floor MiB/s)"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
if ((${#rates_p[@]} == ROUNDS)); then
	mp=$(median "${rates_p[@]}") mb=$(median "${rates_b[@]}")
	ratio=$(awk -v p="$mp" -v b="$mb" 'BEGIN { printf "%.2f", p / b }')
	echo "medians of $ROUNDS rounds: rdmactl $mp MiB/s, ib_write_bw $mb MiB/s, ratio $ratio"
	awk -v r="$ratio" 'BEGIN { exit !(r >= 0.7 && r <= 1.3) }' ||
		fail "rdmactl's rate is $ratio of ib_write_bw's on the same link (medians: $mp and $mb MiB/s), outside 0.7 to 1.3"
fi
