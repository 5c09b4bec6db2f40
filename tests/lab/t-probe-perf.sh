#!/bin/bash
# rdmactl probe beside perftest's ib_write_bw on the same link, same size
# and count: both must take the same path (GID index, MTU) and put at least
# the packets their writes need on the wire, as the writer's rxe counters
# count them. So rdmactl's figure is of the same work the reference does.
# How the two rates compare is a measurement, not a check: the emulated
# link's rate swings 2x with the host's load, so bench/probe.sh measures
# the ratio over many rounds (this prints it only).
# lab-timeout: 240
# lab-seconds: 7

lab_need_peer

n=300
size=65536
port=18600
bwport=18515

if [[ $LAB_ROLE == a ]]; then
	"$RDMACTL" probe --server --port $port >probe-server.out 2>&1 &
	probe=$!
	lab_wait_listen $port || fail "rdmactl probe server does not listen"
	timeout 100 ib_write_bw -d rxe0 -x 1 -F -s $size -n $n -p $bwport >bw-server.out 2>&1 &
	bw=$!
	lab_wait_listen $bwport || fail "ib_write_bw server does not listen"
	lab_put up 1
	wait "$bw" || fail "ib_write_bw server exited with $?"
	lab_get client-done 200 >/dev/null
	kill "$probe"
	wait "$probe" 2>/dev/null
	cat probe-server.out bw-server.out
	exit 0
fi

# sent: the writer's rxe0 packets sent so far (retransmissions included).
sent() { lab_hwcnt rxe0 1 | awk '$1 == "sent_pkts" { print $2 }'; }

lab_get up >/dev/null
s0=$(sent)
timeout 100 "$RDMACTL" -j probe "$LAB_PEER_IP" -s $size -n $n --lat-iters 0 >probe.json ||
	fail "rdmactl probe exited with $?"
s1=$(sent)
for _ in 1 2 3; do
	timeout 100 ib_write_bw -d rxe0 -x 1 -F -s $size -n $n -p $bwport "$LAB_PEER_IP" >bw.out 2>&1 && break
	lab_sleep 1
done
s2=$(sent)
lab_put client-done 1
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
pr=$(jqv '.results[0].bw_avg_MBps / 1.048576 | . * 100 | round / 100')
echo "for information (bench/probe.sh measures it): ib_write_bw ${bw_rate:-none} MiB/s, rdmactl probe ${pr:-none} MiB/s"
