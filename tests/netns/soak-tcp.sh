#!/bin/bash
# Soak: one `rdmactl probe --server` (TCP transport) in a network namespace
# (10.78.0.1) driven by 1000 sessions from another (10.78.0.2), good and bad
# mixed (tests/soak/drive.py: garbage, a wrong protocol version, an absurd
# size, connect-and-close, half a header, sessions abandoned after the
# server's set-up, stalled clients, and good TCP-transport clients).  The
# server's open fds must return exactly to their starting level, its RSS
# within SLACK_KB, no child process may be left, and every good client must
# succeed.  The baseline is taken after a warm-up round of every kind, so
# one-time allocations (stdio buffers, resolver state) are not counted as
# growth.  Needs root.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
RDMACTL=${RDMACTL:-$SRC/build/rdmactl}
DRIVE=$SRC/tests/soak/drive.py
PORT=18610
SESSIONS=1000
SLACK_KB=256 # RSS may differ by this much (page-granular heap, stack touch)
[ "$(id -u)" = 0 ] || { echo "SKIP netns/soak-tcp: missing facility: root (network namespaces)"; exit 0; }
command -v python3 >/dev/null || { echo "SKIP netns/soak-tcp: missing facility: python3"; exit 0; }

. "$SRC/tests/netns/lib.bash"
netns_pair soak-tcp 10.78.0.

# The server at its default --timeout: a stalled client is closed after
# the 3 s its handshake's message has (twelve stalls: 36 s of waiting, no
# CPU).  With 0.5 s, in a make check whose two cores the labs kept busy,
# a good client of this suite (at nice 10) was closed while it waited for
# a CPU between two messages of its handshake.
ip netns exec "$NS1" "$RDMACTL" probe --server --port $PORT --max-size 1M \
	>"$TMPD/server.out" 2>"$TMPD/server.err" &
SERVER=$!
waits_for 120 listens "$PORT" "$NS1"

good=("$RDMACTL" probe 10.78.0.1 --port $PORT --transport tcp -s 4K -n 20 --lat-iters 2 --timeout 5)
drive() { ip netns exec "$NS2" python3 "$DRIVE" 10.78.0.1 $PORT "$@" -- "${good[@]}"; }

# The server's figures: "RSS_KB FDS CHILDREN".
figures() {
	local rss fds kids
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$SERVER/status")
	fds=$(ls "/proc/$SERVER/fd" | wc -l)
	kids=$(cat /proc/"$SERVER"/task/*/children | wc -w)
	echo "$rss $fds $kids"
}

# Wait for the server's session children to be gone (a minute at most).
no_children() { [ "$(cat /proc/"$SERVER"/task/*/children | wc -w)" = 0 ]; }
settle() {
	waits_for 60 no_children
	sleep 0.5
}

start=$SECONDS
# Warm-up: every kind once (and a stall), then the baseline.
drive 16 --good-every 8 --stall-every 7 --transport tcp >"$TMPD/warm.out" 2>&1
check warmup [ $? = 0 ]
settle
read -r rss0 fds0 kids0 <<<"$(figures)"

drive $SESSIONS --good-every 20 --stall-every 97 --transport tcp >"$TMPD/soak.out" 2>&1
drive_rc=$?
cat "$TMPD/soak.out"
settle
read -r rss1 fds1 kids1 <<<"$(figures)"
echo "server's messages, by kind:"
sed -E 's/client [0-9.:]+/client X/; s/[0-9]+/N/g' "$TMPD/server.err" | sort | uniq -c | sort -rn | head -15
echo "server before: VmRSS $rss0 kB, fds $fds0, children $kids0"
echo "server after:  VmRSS $rss1 kB, fds $fds1, children $kids1  ($((SECONDS - start)) s)"

check server-alive kill -0 "$SERVER"
check good-clients-succeeded [ "$drive_rc" = 0 ]
check sessions-run [ "$(sed -n 's/^sessions \([0-9]*\) .*/\1/p' "$TMPD/soak.out")" = $SESSIONS ]
check good-clients-ran [ "$(awk '$1 == "good" && NF == 2 {print $2}' "$TMPD/soak.out")" = $((SESSIONS / 20)) ]
check fds-back [ "$fds1" = "$fds0" ]
check rss-back [ $((rss1 - rss0)) -le $SLACK_KB ]
check no-children [ "$kids1" = 0 ]
# Every good session printed its row on the server: 4096-byte rows, 20 msgs.
check server-rows [ "$(grep -cE '^ *4096 +20 ' "$TMPD/server.out")" -ge $((SESSIONS / 20)) ]
# Every bad session was explained in one line: no crash dump, no sanitizer report.
no_dumps() { ! grep -qE 'AddressSanitizer|runtime error|Segmentation|Aborted' "$TMPD/server.err"; }
check server-no-dumps no_dumps

kill "$SERVER"
wait "$SERVER" 2>/dev/null
SERVER=
[ "$FAILED" = 0 ] || tail -20 "$TMPD/server.err" >&2
exit $((FAILED > 0))
