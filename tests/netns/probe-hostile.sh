#!/bin/bash
# A probe server that strangers cannot stall: `rdmactl probe --server` in a
# network namespace (10.79.0.1) against tests/tools/hostile-client.c from another
# (10.79.0.2).
#  - crafted inputs (terminal escapes and a fake log line in HELLO's name
#    and in an ERROR, an overlong name, an overlong frame, protocol versions
#    0, 99 and 65535, a bad magic, junk): the exact answer each gets and the
#    exact line the server logs, escaped, no raw ESC byte in the log;
#  - 500 idle connections and 100 that send HELLO a byte a second, each
#    reopened as soon as the server drops it: real clients holding the
#    token (probes and `doctor --peer`, several at once) are all answered,
#    the drops are logged with the client's address, at a bounded rate;
#    then the server's fds come back to where they were;
#  - a server whose hard limit of open files is 200: it says how many
#    handshakes it can hold, drops the oldest past that, and still serves;
#  - --once: junk and an idle connection first do not end it; it serves
#    the first real client and exits 0;
#  - RDMACTL_PROBE_GREET_MS (a test aid) is each handshake message's time;
#  - a server slow after an accept still reads the HELLO that came in time.
# No timing is asserted (bench/probe-server.sh measures it): a real client
# must only finish, within its own --timeout.  Needs root.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
RDMACTL=${RDMACTL:-$SRC/build/rdmactl}
HOSTILE=${HOSTILE:-$(dirname "$RDMACTL")/tests/hostile-client}
PORT=18620
export RDMACTL_TOKEN=hostile-test-token
. "$SRC/tests/netns/lib.bash"
[ -x "$HOSTILE" ] || { echo "FAIL netns/probe-hostile/setup"; echo "    $HOSTILE missing: run make unit" >&2; exit 1; }
netns_pair probe-hostile 10.79.0.

in2() { ip netns exec "$NS2" "$@"; }
hostile() { in2 "$HOSTILE" 10.79.0.1 "$@"; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
children() { cat /proc/"$1"/task/*/children 2>/dev/null | wc -w; }

# start_server NAME PORT [PREFIX...] -- ARGS...: a server in NS1; sets SERVER.
start_server() {
	local name=$1 port=$2 pre=()
	shift 2
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	ip netns exec "$NS1" "${pre[@]}" "$RDMACTL" probe --server --port "$port" "$@" \
		>"$TMPD/$name.out" 2>"$TMPD/$name.err" &
	SERVER=$!
	waits_for 120 listens "$port" "$NS1"
}

stop_server() {
	kill "$SERVER" 2>/dev/null
	wait "$SERVER" 2>/dev/null
	SERVER=
}

# wait_until SECONDS CMD...: until CMD succeeds, SECONDS at most.
wait_until() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

# client NAME ARGS...: a real TCP-transport probe from NS2; its exit in $TMPD/NAME.rc.
client() {
	local name=$1 port=$PORT
	shift
	[ "${1:-}" = --port ] && { port=$2; shift 2; }
	in2 timeout 60 "$RDMACTL" probe 10.79.0.1 --port "$port" --transport tcp -s 4K -n 100 --lat-iters 0 \
		--timeout 5 "$@" >"$TMPD/$name.out" 2>"$TMPD/$name.err" </dev/null
	echo $? >"$TMPD/$name.rc"
}
rc_of() { cat "$TMPD/$1.rc"; }
logged() { grep -qxF -- "rdmactl probe: $1" "$TMPD/$2.err"; }

start_server main $PORT -- --timeout 10
base_fds=$(fds "$SERVER")

# ---- crafted inputs: each one's answer, and the server's line ----
# sent KIND LINE...: the lines hostile-client prints for KIND (the server's
# frames, then "closed") are exactly LINE...
sent() {
	local kind=$1
	shift
	[ "$(hostile $PORT send "$kind")" = "$(printf '%s\n' "$@")" ]
}
version_reply() {
	echo "reply ERROR 1: Failed to handshake: peer '$1' speaks probe protocol version $2, this end speaks 1; run the same rdmactl version on both nodes"
}
evil_escaped='\x1b]0;pwned\x07\x1b[2J\x0ardmactl probe: client 10.0.0.9: ok'
# The reply's own escaping (hostile-client shows a backslash as \x5c) around the server's.
check escapes-reply sent escapes "$(version_reply "${evil_escaped//\\/\\x5c}" 99)" closed
check version-0-reply sent version-0 "$(version_reply hostile 0)" closed
check version-65535-reply sent version-65535 "$(version_reply hostile 65535)" closed
check overlong-name-closed sent overlong-name closed
check overlong-frame-closed sent overlong-frame closed
check bad-magic-closed sent bad-magic closed
check junk-closed sent junk closed
check error-escapes-hello sent error-escapes "reply HELLO" closed
# Each message of the handshake has its own 3 s: HELLO answered, then the
# token's proof awaited 3 s, then an ERROR saying so.
check silence-after-hello sent hello-then-silence "reply HELLO" \
	"reply ERROR 8: Failed to read the token's proof: timed out: a client has 3.0 s for each message of its handshake" closed
sleep 0.3
c='client 10.79.0.2'
check escapes-logged logged "$c: Failed to handshake: peer '$evil_escaped' speaks probe protocol version 99, this end speaks 1; run the same rdmactl version on both nodes" main
check version-0-logged logged "$c: Failed to handshake: peer 'hostile' speaks probe protocol version 0, this end speaks 1; run the same rdmactl version on both nodes" main
check overlong-name-logged logged "$c: Failed to read HELLO: malformed frame" main
check overlong-frame-logged logged "$c: Failed to read HELLO: frame longer than the protocol allows" main
check bad-magic-logged logged "$c: Failed to handshake: the peer is not an rdmactl probe (bad magic 0x1b5b324a); check the port" main
check error-escapes-logged logged "$c: $evil_escaped" main
check silence-after-hello-logged logged "$c: Failed to read the token's proof: timed out: a client has 3.0 s for each message of its handshake" main
no_raw_escape() { ! grep -q $'\e' "$TMPD/main.err"; }
check log-has-no-raw-escape no_raw_escape
no_forged_line() { ! grep -q '^rdmactl probe: client 10\.0\.0\.9' "$TMPD/main.err"; }
check log-has-no-forged-line no_forged_line

# ---- 500 idle and 100 byte-a-second connections; real clients meanwhile ----
hostile $PORT idle 500 10 >"$TMPD/idle.out" &
idle=$!
hostile $PORT dribble 100 10 >"$TMPD/dribble.out" &
dribble=$!
holding() { [ "$(fds "$SERVER")" -ge $((base_fds + 500)) ]; }
check flood-held wait_until 5 holding
held=$(($(fds "$SERVER") - base_fds))
client one
check flood-client-served [ "$(rc_of one)" = 0 ]
check flood-client-row grep -qE '^ *4096 +100 ' "$TMPD/one.out"
# Several at once, as a cluster probe will: each one gets its answer (a
# run, or the one-test-at-a-time "busy"), none waits out its timeout.
pids=()
for i in 1 2 3 4 5 6; do
	client "many$i" &
	pids+=($!)
done
for i in 1 2 3; do
	in2 timeout 60 "$RDMACTL" doctor --peer 10.79.0.1 --port $PORT --only versions -j \
		>"$TMPD/doctor$i.out" 2>"$TMPD/doctor$i.err" </dev/null &
	pids+=($!)
done
wait "${pids[@]}"
answered() {
	local i ran=0
	for i in 1 2 3 4 5 6; do
		case $(rc_of "many$i") in
		0) ran=$((ran + 1)) ;;
		1) grep -q 'the server is busy with another client' "$TMPD/many$i.err" || return 1 ;;
		*) return 1 ;;
		esac
	done
	[ $ran -ge 1 ]
}
check flood-clients-together-answered answered
doctors_answered() {
	local i
	for i in 1 2 3; do
		json_one '.checks[0].found | contains("peer 10.79.0.1: the same kernel and rdma-core")' \
			<"$TMPD/doctor$i.out" || return 1
	done
}
check flood-doctors-answered doctors_answered
wait $idle $dribble
check idle-were-dropped grep -qE '^idle: 500 held for 10 s, [1-9][0-9]+ reopened' "$TMPD/idle.out"
check dribblers-were-dropped grep -qE '^dribble: 100 held for 10 s, [1-9][0-9]* reopened' "$TMPD/dribble.out"
check drops-logged logged "$c: Failed to read HELLO: timed out: a client has 3.0 s for each message of its handshake" main
check drops-rate-limited grep -qE '^rdmactl probe: \.\.\. and [0-9]+ more failed or dropped handshakes, not shown \(at most 20 such lines a second\)$' "$TMPD/main.err"
back() { [ "$(fds "$SERVER")" = "$base_fds" ] && [ "$(children "$SERVER")" = 0 ]; }
check fds-back wait_until 10 back
RDMACTL_TOKEN=wrong-token client wrong
check wrong-token-refused [ "$(rc_of wrong)" = 1 ]
check wrong-token-logged logged "$c: authentication failed: wrong token; both ends need the same token (RDMACTL_TOKEN or --token: one token file, the same on every node)" main
check server-alive kill -0 "$SERVER"
no_dumps() { ! grep -qE 'AddressSanitizer|runtime error|Segmentation|Aborted' "$TMPD/main.err"; }
check no-dumps no_dumps
echo "    held $held hostile connections while the clients ran; fds $base_fds before and $(fds "$SERVER") after" >&2
stop_server

# ---- at the fd limit: hard limit 200, so at most 136 handshakes held ----
# 300 connections from another address (10.79.0.3) keep the server at its
# cap, each one dropped opened again: the flood drops its own connections,
# a real client from 10.79.0.2 is served.
ip -n "$NS2" addr add 10.79.0.3/24 dev "v$$c"
start_server fdlimit $((PORT + 1)) prlimit --nofile=200:200 -- --timeout 10
base_fds=$(fds "$SERVER")
check fdlimit-warns logged "warning: only 200 open files are allowed (ulimit -Hn): the server holds at most 136 connections in their handshake instead of 1024; raise the hard limit (LimitNOFILE=) for more" fdlimit
in2 "$HOSTILE" -b 10.79.0.3 10.79.0.1 $((PORT + 1)) idle 300 4 >"$TMPD/idle2.out" &
idle=$!
sleep 1
client capped --port $((PORT + 1))
check fdlimit-client-served [ "$(rc_of capped)" = 0 ]
wait $idle
check fdlimit-flood-dropped-its-own grep -qE '^rdmactl probe: client 10\.79\.0\.3: Failed to read HELLO: dropped to make room: 136 connections were in their handshake, the most this server keeps; this was the oldest of the 1[0-3][0-9] from its address$' "$TMPD/fdlimit.err"
client_kept() { ! grep -q "client 10.79.0.2: .*dropped" "$TMPD/fdlimit.err"; }
check fdlimit-client-not-dropped client_kept
check fdlimit-fds-back wait_until 10 back
stop_server

# ---- --once: junk and an idle connection first do not end it ----
start_server once $((PORT + 2)) -- --once --timeout 10
hostile $((PORT + 2)) send junk >/dev/null
hostile $((PORT + 2)) send version-0 >/dev/null
hostile $((PORT + 2)) idle 1 3 >/dev/null &
idle=$!
sleep 0.3
client first --port $((PORT + 2))
check once-client-served [ "$(rc_of first)" = 0 ]
once_exit() { wait "$SERVER"; }
check once-server-exit-0 once_exit
SERVER=
check once-server-row grep -qE '^ *4096 +100 ' "$TMPD/once.out"
check once-junk-logged logged "$c: Failed to read HELLO: malformed frame" once
wait $idle

# ---- RDMACTL_PROBE_GREET_MS (a test aid): each message's time is its ----
start_server greet $((PORT + 2)) env RDMACTL_PROBE_GREET_MS=1500 -- --timeout 10
check greet-aid-reply [ "$(hostile $((PORT + 2)) send hello-then-silence)" = "$(printf '%s\n' "reply HELLO" \
	"reply ERROR 8: Failed to read the token's proof: timed out: a client has 1.5 s for each message of its handshake" closed)" ]
stop_server

# ---- a server slow after an accept: a HELLO that arrived in time is read ----
# Its first accept(2) returns 3.5 s late (strace's inject), as a server
# under valgrind on a starved CPU ran over 3 s from an accept to its next
# poll: the client's HELLO, sent at once, waited unread past its 3 s, and
# the server dropped it for time before it read it.
if command -v strace >/dev/null; then
	start_server slow $((PORT + 3)) strace -f -qq -o /dev/null -e trace=accept4 \
		-e inject=accept4:delay_exit=3500000:when=1 -- --timeout 10
	client slow --port $((PORT + 3))
	check slow-accept-served [ "$(rc_of slow)" = 0 ]
	not_dropped() { ! grep -q 'timed out' "$TMPD/slow.err"; }
	check slow-accept-not-dropped not_dropped
	pkill -TERM -P "$SERVER"	# the server, strace's child: strace ends with it
	stop_server
else
	echo "SKIP netns/probe-hostile/slow-accept: missing facility: strace (Debian package strace)"
fi

[ "$FAILED" = 0 ] || { grep -v 'timed out' "$TMPD/main.err" | tail -20 >&2; }
exit $((FAILED > 0))
