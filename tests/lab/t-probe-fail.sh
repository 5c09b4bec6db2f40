#!/bin/bash
# rdmactl probe when things are wrong: MTU 9000 on one guest and 1500 on
# the other (path MTU 1024, as both ends' ibv_devinfo imply), RoCE v2's UDP
# port 4791 dropped by nftables on lab-a (an explained failure in bounded
# time, not a hang), then bad clients against a live server (garbage, a
# wrong protocol version, an absurd size, a stalled client, a client killed
# mid-run, a second client while one runs) followed by a good client.
# No fixed sleep stands before a state the test expects: each step waits
# for the event itself (the MTU rxe reports, the server's own log line that
# a client holds it, its session ended, the server closing a connection).
# lab-timeout: 300
# lab-seconds: 36

lab_need_peer
# The QPs wait for ACKs as long as the guests' pace needs: at half pace
# the mtu case's writes, sent again after 67 ms, stopped completing.
lab_ack_timeout

port=18600
small=(-s 64K -n 50 --lat-iters 5)

active_mtu() {
	ibv_devinfo -d rxe0 -i 1 | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'
}

# -v: the server logs each client whose handshake it finished, the word
# part 3 waits for before it expects the server busy.
start_server() {
	"$RDMACTL" -v probe --server --port $port --timeout 3 "$@" >server.out 2>server.err &
	server=$!
	lab_wait_listen $port
}

# --- 1. MTU 9000 on lab-a, 1500 on lab-b ---
if [[ $LAB_ROLE == a ]]; then
	ip link set eth0 mtu 9000
	lab__await "rxe0's active MTU following eth0's 9000" 30 test "$(active_mtu)" = 4096 ||
		fail "mtu: rxe0/1 did not reach active MTU 4096 after eth0 went to 9000"
	start_server
	lab_put mtu-a "$(active_mtu)"
	lab_get mtu-done 120 >/dev/null
	kill "$server"; wait "$server" 2>/dev/null
	ip link set eth0 mtu 1500
else
	mtu_a=$(lab_get mtu-a)
	mtu_b=$(active_mtu)
	echo "active MTU: lab-a $mtu_a, lab-b $mtu_b"
	lab_timeout 60 "$RDMACTL" -j probe "$LAB_PEER_IP" "${small[@]}" >mtu.json 2>mtu.err
	check_eq "mtu: exit status" 0 "$?"
	cat mtu.err
	check_eq "mtu: peer's active MTU (its ibv_devinfo)" "$mtu_a" "$(jq -r .probe.remote.active_mtu mtu.json)"
	check_eq "mtu: own active MTU (ibv_devinfo)" "$mtu_b" "$(jq -r .probe.local.active_mtu mtu.json)"
	check_eq "mtu: path MTU is the smaller" "$((mtu_a < mtu_b ? mtu_a : mtu_b))" "$(jq -r .probe.path_mtu mtu.json)"
	check_eq "mtu: path MTU with a 1500 netdev" 1024 "$(jq -r .probe.path_mtu mtu.json)"
	lab_put mtu-done 1
fi
lab_barrier mtu

# --- 2. UDP 4791 dropped on lab-a ---
if [[ $LAB_ROLE == a ]]; then
	nft add table inet t
	nft add chain inet t in '{ type filter hook input priority 0; }'
	nft add rule inet t in udp dport 4791 drop
	start_server
	lab_put fw-up 1
	lab_get fw-done 120 >/dev/null
	nft delete table inet t
	kill "$server"; wait "$server" 2>/dev/null
	echo "== server"; cat server.err
	[[ -s server.err ]] || fail "firewall: the server said nothing"
else
	lab_get fw-up >/dev/null
	t0=$SECONDS
	lab_timeout 90 "$RDMACTL" probe "$LAB_PEER_IP" "${small[@]}" --timeout 5 >fw.out 2>fw.err
	rc=$?
	echo "== client (rc $rc, $((SECONDS - t0)) s)"; cat fw.err
	check_eq "firewall: exit status" 1 "$rc"
	grep -q 4791 fw.err || fail "firewall: the error does not point at UDP 4791"
	grep -q 'Failed to' fw.err || fail "firewall: no 'Failed to' line"
	lab_budget fw_limit 60
	((SECONDS - t0 < fw_limit)) || fail "firewall: took $((SECONDS - t0)) s, over $fw_limit s (60 at the pace)"
	lab_put fw-done 1
fi
lab_barrier firewall

# --- 3. bad clients, then a good one ---
# handshakes N: the test requests the server has taken so far (its -v line).
handshakes() {
	local n=0 line
	while IFS= read -r line; do
		[[ $line == *"TEST_REQ after the handshake"* ]] && n=$((n + 1))
	done <server.err
	echo "$n"
}

# victim_logged: the server logged a test request since $before.
victim_logged() {
	(($(handshakes) > before))
}

# session_over: the server has no session child left (it reaped it, so it
# takes a test again); /proc's children file keeps a child until reaped.
# (It holds no newline: read ends at EOF with status 1 whatever it read.)
session_over() {
	local f=/proc/$server/task/$server/children kids=''
	[[ -e $f ]] || return 1
	read -r kids <"$f" || :
	[[ -z $kids ]]
}

if [[ $LAB_ROLE == a ]]; then
	start_server --max-size 16M
	lab_put bad-up 1
	# The client killed mid-run: held once the server says it took its
	# request (it counts as a session from that line on).
	# (counted before lab-b starts it, which it does on victim-go)
	lab_get victim-next 200 >/dev/null
	before=$(handshakes)
	lab_put victim-go 1
	lab__await "the server taking the victim's test request" 60 victim_logged ||
		fail "busy: the server never logged the victim's test request"
	lab_put victim-held 1
	lab_get victim-killed 200 >/dev/null
	lab__await "the server's session of the killed client ending" 60 session_over ||
		fail "killed client: the server's session did not end within 60 s"
	lab_put server-free 1
	lab_get bad-done 200 >/dev/null
	kill "$server"; wait "$server" 2>/dev/null
	echo "== server stderr"; cat server.err
	echo "== server stdout"; cat server.out
	grep -q 'HELLO\|handshake' server.err || fail "server: no line about the garbage client"
	grep -q 'version 99' server.err || fail "server: no line about the wrong version"
	grep -q 'max-size' server.err || fail "server: no line about the absurd size"
	grep -q 'timed out' server.err || fail "server: no line about the stalled client"
	grep -Eq '^ *65536 +50 ' server.out || fail "server: the good client's row is missing"
	exit 0
fi
lab_get bad-up >/dev/null
# garbage
exec 3<>"/dev/tcp/$LAB_PEER_IP/$port"
printf 'GET / HTTP/1.0\r\n\r\n' >&3
lab_timeout 10 cat <&3 >garbage.reply
exec 3<&-
# wrong version: a HELLO frame of protocol version 99 (type 1, 10-byte payload)
exec 3<>"/dev/tcp/$LAB_PEER_IP/$port"
printf '\x00\x01\x00\x00\x00\x00\x00\x0a\x52\x50\x42\x31\x00\x63\x00\x00\x00\x00' >&3
lab_timeout 10 cat <&3 >version.reply
exec 3<&-
grep -qa 'version 99' version.reply || fail "wrong version: the ERROR reply does not name version 99"
# absurd size: over the server's --max-size 16M
lab_timeout 30 "$RDMACTL" probe "$LAB_PEER_IP" -s 1G -n 1 >big.out 2>big.err
check_eq "absurd size: exit status" 2 "$?"
cat big.err
grep -q 'max-size' big.err || fail "absurd size: the client was not told about --max-size"
# stalled: connect and say nothing; the server gives up after its --timeout 3
# (the wait ends when the server closes the connection)
exec 3<>"/dev/tcp/$LAB_PEER_IP/$port"
t0=$SECONDS
lab_timeout 30 cat <&3 >stalled.reply
check_eq "stalled: the server closed the silent connection" 0 "$?"
lab_budget limit 20
((SECONDS - t0 < limit)) || fail "stalled: closed after $((SECONDS - t0)) s, not its --timeout 3"
exec 3<&-
# killed mid-run
lab_put victim-next 1
lab_get victim-go 60 >/dev/null
# It only has to hold the server: one 2-byte write in flight, not a flood
# that leaves the emulated guests' shells no CPU while it runs (seen: the
# handshakes here took the whole 20 s of a 64K x 128 run).
"$RDMACTL" probe "$LAB_PEER_IP" -s 2 --depth 1 -D 20 --lat-iters 0 >killed.out 2>&1 &
victim=$!	# rdmactl itself, so kill -9 below ends it mid-run
lab_get victim-held 60 >/dev/null
# busy: a second client while one runs
lab_timeout 30 "$RDMACTL" probe "$LAB_PEER_IP" "${small[@]}" >busy.out 2>busy.err
check_eq "busy: exit status" 1 "$?"
cat busy.err
grep -q busy busy.err || fail "busy: the second client was not told the server is busy"
kill -9 "$victim" 2>/dev/null ||
	fail "busy: the victim had ended before the second client ran: the busy check proved nothing"
wait "$victim" 2>/dev/null
lab_put victim-killed 1
lab_get server-free 90 >/dev/null
# and a good client
lab_timeout 60 "$RDMACTL" probe "$LAB_PEER_IP" "${small[@]}" >good.out 2>good.err
check_eq "good client after bad ones: exit status" 0 "$?"
cat good.out good.err
lab_put bad-done 1
