#!/bin/bash
# rdmactl probe: option errors, connection failures explained, and a TCP
# transport run over loopback (server --once and client both print the row).
source "$(dirname "$0")/lib.sh"

run probe
check no-peer rc_is 2
check no-peer-message err_has 'give PEER, or --server'
check no-peer-one-line err_one_line

run probe --server 127.0.0.1
check server-with-peer rc_is 2

run probe 127.0.0.1 -n 10 -D 1
check n-and-D rc_is 2
check n-and-D-one-line err_one_line

run probe 127.0.0.1 -s 12Q
check bad-size rc_is 2
check bad-size-quoted err_has "'12Q'"

run probe 127.0.0.1 -s 4G
check size-over-2G rc_is 2

run probe 127.0.0.1 --sweep-max 3K
check sweep-max-not-pow2 rc_is 2

run probe 127.0.0.1 --transport udp
check bad-transport rc_is 2

run probe 127.0.0.1 --transport tcp --rdma-cm
check cm-needs-rdma rc_is 2

run probe 127.0.0.1 --qps 65
check qps-range rc_is 2

run probe 127.0.0.1 --timeout 0
check timeout-range rc_is 2

run probe 127.0.0.1 -d 'rxe0/x'
check bad-device rc_is 2

# A name that does not resolve: said as doctor --peer says it, exit 2 (bad
# input), not "No route to host ... Is TCP port 18600 open?".  Offline, so
# that no DNS query leaves the machine.
if offline_ok; then
	run_offline probe no.such.host.invalid
	check unresolved rc_is 2
	check unresolved-message err_is "rdmactl probe: cannot resolve 'no.such.host.invalid': Name or service not known; give the peer's IP address on the RoCE network"
	run_offline probe nodots
	check unresolved-short-name err_is "rdmactl probe: cannot resolve 'nodots': Name or service not known; give the peer's IP address on the RoCE network"
else
	skip unresolved "needs unshare --mount --net (root) to resolve names offline"
fi

# Nothing listens on this port: refused, with what to check.
PORT=$(free_port)
run probe 127.0.0.1 --port "$PORT" --transport tcp
check refused rc_is 1
check refused-hint err_has "rdmactl probe --server.*TCP port $PORT open"
check refused-one-line err_one_line

# A TCP run over loopback: both ends print the same row.
"$RDMACTL" probe --server --once --port "$PORT" --timeout 5 >"$TMPD/server.out" 2>"$TMPD/server.err" &
server=$!
# wait_listen: until the server listens on PORT.
wait_listen() { waits_for 120 listens "$PORT"; }
wait_listen
# serve_once: a server for one client in the background (its pid in
# $server), listening.
serve_once() {
	"$RDMACTL" probe --server --once --port "$PORT" --timeout 5 >/dev/null 2>&1 &
	server=$!
	wait_listen
}
run -j probe 127.0.0.1 --port "$PORT" --transport tcp -s 8K -n 100 --verify --lat-iters 5
check tcp-loopback rc_is 0
check tcp-json json_ok '.probe.transport == "tcp" and .probe.ok and (.results | length) == 1 and
	.results[0].bytes == 8192 and .results[0].msgs == 100 and .results[0].verify_errors == 0'
wait "$server"
check server-exit [ $? -eq 0 ]
check server-row grep -qE '^ *8192 +100 ' "$TMPD/server.out"

# --expect above what loopback gives: exit 1, explained.
serve_once
run probe 127.0.0.1 --port "$PORT" --transport tcp -s 8K -n 100 --lat-iters 0 --expect 100000
check expect-fails rc_is 1
check expect-message err_has 'expected bandwidth'
wait "$server"

# RDMACTL_PROBE_TCP_PACE (a test aid; lib.sh sets 2000): the sending end's
# streams are paced to it.  Unpaced the loopback carries tens of Gb/s.
serve_once
RDMACTL_PROBE_TCP_PACE=50 run -j probe 127.0.0.1 --port "$PORT" --transport tcp -s 64K -n 40 --lat-iters 0
check pace-rc rc_is 0
check pace-takes json_ok '.results[0].bytes == 65536 and .results[0].bw_avg_MBps < 12'
wait "$server"
serve_once
pace=$RDMACTL_PROBE_TCP_PACE
unset RDMACTL_PROBE_TCP_PACE
run -j probe 127.0.0.1 --port "$PORT" --transport tcp -s 64K -n 400 --lat-iters 0
export RDMACTL_PROBE_TCP_PACE=$pace
check unpaced-rc rc_is 0
check unpaced-faster json_ok '.results[0].bw_avg_MBps > 30'
wait "$server"
for bad in 0 abc 30001 -5 " 10" 10x; do
	RDMACTL_PROBE_TCP_PACE=$bad fails_with "pace-bad-${bad// /_}" 2 \
		"rdmactl probe: Failed to use RDMACTL_PROBE_TCP_PACE '$bad': expected Mb/s, a whole number from 1 to 30000" \
		probe 127.0.0.1 --port "$PORT" --transport tcp
done
# A value from the environment is escaped where it is said.
RDMACTL_PROBE_TCP_PACE=$'\e]0;x\a' fails_with pace-bad-escaped 2 \
	"rdmactl probe: Failed to use RDMACTL_PROBE_TCP_PACE '\\x1b]0;x\\x07': expected Mb/s, a whole number from 1 to 30000" \
	probe 127.0.0.1 --port "$PORT" --transport tcp
# RDMACTL_PROBE_ACK_TIMEOUT (a test aid, the lab's at a slow pace): the
# RDMA QPs' ACK timeout exponent, 1 to 31; a run with one is a run.
serve_once
RDMACTL_PROBE_ACK_TIMEOUT=17 run -j probe 127.0.0.1 --port "$PORT" --transport tcp -s 8K -n 20 --lat-iters 0
check ack-timeout-rc rc_is 0
wait "$server"
for bad in 0 32 abc " 16" 16x; do
	RDMACTL_PROBE_ACK_TIMEOUT=$bad fails_with "ack-timeout-bad-${bad// /_}" 2 \
		"rdmactl probe: Failed to use RDMACTL_PROBE_ACK_TIMEOUT '$bad': expected an ACK timeout exponent, a whole number from 1 to 31" \
		probe 127.0.0.1 --port "$PORT" --transport tcp
done
# doctor --peer's RDMA probe takes the same aid (the lab's healthy pairs
# at a slow pace); only --peer reads it, as RDMACTL_TOKEN.
for bad in 0 32; do
	RDMACTL_PROBE_ACK_TIMEOUT=$bad fails_with "doctor-ack-timeout-bad-$bad" 2 \
		"rdmactl doctor: Failed to use RDMACTL_PROBE_ACK_TIMEOUT '$bad': expected an ACK timeout exponent, a whole number from 1 to 31" \
		doctor --peer 127.0.0.1 --port "$PORT" --only versions
done
RDMACTL_PROBE_ACK_TIMEOUT=0 run --root "$FIXTURES/doctor-healthy" doctor --only mtu
check doctor-ack-timeout-without-peer rc_is 0
# RDMACTL_PROBE_BUSY_POLL (a test aid, the lab's comparison with
# ib_write_bw): 1 polls as ib_write_bw does, 0 is the default.
for ok in 0 1; do
	serve_once
	RDMACTL_PROBE_BUSY_POLL=$ok run -j probe 127.0.0.1 --port "$PORT" --transport tcp -s 8K -n 20 --lat-iters 0
	check "busy-poll-$ok-rc" rc_is 0
	wait "$server"
done
for bad in 2 -1 yes " 1" 1x; do
	RDMACTL_PROBE_BUSY_POLL=$bad fails_with "busy-poll-bad-${bad// /_}" 2 \
		"rdmactl probe: Failed to use RDMACTL_PROBE_BUSY_POLL '$bad': expected a switch, a whole number from 0 to 1" \
		probe 127.0.0.1 --port "$PORT" --transport tcp
done
# RDMACTL_PROBE_GREET_MS (a test aid, the lab's server for a client under
# valgrind): what the server's handshake gets is netns/probe-hostile's.
for bad in 99 600001 0 -1 3s " 500"; do
	RDMACTL_PROBE_GREET_MS=$bad fails_with "greet-bad-${bad// /_}" 2 \
		"rdmactl probe: Failed to use RDMACTL_PROBE_GREET_MS '$bad': expected milliseconds, a whole number from 100 to 600000" \
		probe --server --port "$PORT" --once
done
finish
