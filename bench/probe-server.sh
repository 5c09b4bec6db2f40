#!/bin/bash
# How long a real client waits for `rdmactl probe --server` while strangers
# hold connections open: 0, 100 and 500 connections that say nothing, and
# 500 that send HELLO a byte a second (tests/tools/hostile-client.c, which opens
# each one again as soon as the server drops it), before and after the
# server read every handshake at once.  Server and clients run in two
# network namespaces joined by a veth pair (root).
#
# The real client is `rdmactl probe PEER --transport tcp -s 4K -n 10
# --lat-iters 0` (default --timeout 10); its time is from start to exit,
# the median of BENCH_ROUNDS (default 3) runs, each against a fresh server
# with the strangers connected a second before.  "before" is the binary
# built from BENCH_BASE (default: the tree before the concurrent
# handshake, the parent of the commit that added its reader's tests) in a
# temporary worktree, or BENCH_OLD=PATH; "after" is BUILD (default build),
# whose tests/tools/hostile-client is used for both.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
NEW=$BUILD/rdmactl
HOSTILE=$BUILD/tests/hostile-client
ROUNDS=${BENCH_ROUNDS:-3}
PORT=18630
NS1=bench-server-s.$$ NS2=bench-server-c.$$
WT=

[ "$(id -u)" = 0 ] || { echo "probe-server: needs root (network namespaces)"; exit 0; }
[ -x "$NEW" ] && [ -x "$HOSTILE" ] || { echo "probe-server: build first: make all unit"; exit 2; }

cleanup() {
	ip netns pids "$NS1" 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns pids "$NS2" 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del "$NS1" 2>/dev/null
	ip netns del "$NS2" 2>/dev/null
	[ -n "$WT" ] && git -C "$TOP" worktree remove --force "$WT"
}
trap cleanup EXIT

# The binary from before: BENCH_OLD, or built from BENCH_BASE in a temporary worktree.
old_binary() {
	local base
	if [ -n "${BENCH_OLD:-}" ]; then
		OLD=$BENCH_OLD
		OLD_NAME=$BENCH_OLD
		return
	fi
	# The tree before this work: the parent of the first commit of it.
	base=${BENCH_BASE:-$(git -C "$TOP" log --diff-filter=A --format=%H -- \
		tests/unit/test_probe_ctl.c lib/probe/probe_server.c | tail -1)^}
	WT=$(mktemp -d)
	git -C "$TOP" worktree add --detach "$WT" "$base" >/dev/null 2>&1 &&
		make -s -C "$WT" BUILD=build build/rdmactl >/dev/null 2>&1 || {
		echo "probe-server: cannot build $base"
		exit 1
	}
	OLD=$WT/build/rdmactl
	OLD_NAME="$(git -C "$TOP" log -1 --format=%h "$base"), built in a temporary worktree"
}

netns() {
	ip netns add "$NS1" && ip netns add "$NS2" &&
		ip link add "vbs$$" netns "$NS1" type veth peer name "vbc$$" netns "$NS2" &&
		ip -n "$NS1" addr add 10.81.0.1/24 dev "vbs$$" &&
		ip -n "$NS2" addr add 10.81.0.2/24 dev "vbc$$" &&
		ip -n "$NS1" link set "vbs$$" up && ip -n "$NS2" link set "vbc$$" up &&
		ip -n "$NS1" link set lo up && ip -n "$NS2" link set lo up
}

# serve_time BIN KIND N: one real client's time against a fresh server of
# BIN with N strangers of KIND (idle, dribble) connected: "SECONDS RC".
serve_time() {
	local bin=$1 kind=$2 n=$3 server hostile= t0 t1 rc
	ip netns exec "$NS1" "$bin" probe --server --port $PORT >/dev/null 2>&1 &
	server=$!
	for _ in $(seq 50); do
		ip netns exec "$NS1" ss -Hltn "sport = :$PORT" | grep -q . && break
		sleep 0.1
	done
	if [ "$n" -gt 0 ]; then
		ip netns exec "$NS2" "$HOSTILE" 10.81.0.1 $PORT "$kind" "$n" 30 >/dev/null &
		hostile=$!
		sleep 1
	fi
	t0=$EPOCHREALTIME
	ip netns exec "$NS2" "$bin" probe 10.81.0.1 --port $PORT --transport tcp -s 4K -n 10 \
		--lat-iters 0 >/dev/null 2>&1 </dev/null
	rc=$?
	t1=$EPOCHREALTIME
	[ -n "$hostile" ] && kill "$hostile" 2>/dev/null && wait "$hostile" 2>/dev/null
	kill "$server" 2>/dev/null
	wait "$server" 2>/dev/null
	echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $rc"
}

# cell BIN KIND N: the median time of ROUNDS runs, and how many failed.
cell() {
	local times=() fails=0 t rc
	for _ in $(seq "$ROUNDS"); do
		read -r t rc <<<"$(serve_time "$@")"
		times+=("$t")
		[ "$rc" = 0 ] || fails=$((fails + 1))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk -v f=$fails -v r="$ROUNDS" '
		{ v[NR] = $1 }
		END { m = v[int((NR + 1) / 2)]; if (f) printf "%7.3f s, %d/%d failed", m, f, r; else printf "%7.3f s", m }'
}

old_binary
netns || { echo "probe-server: cannot make the network namespaces"; exit 1; }
read -r load _ </proc/loadavg
echo "probe server: a real client's time to be served (median of $ROUNDS) while strangers hold connections"
echo "before: $OLD_NAME"
echo "after:  ${NEW#"$TOP"/} ($(git -C "$TOP" log -1 --format=%h))"
printf '%-28s  %-26s  %s\n' "STRANGERS" "BEFORE" "AFTER"
for row in "idle 0" "idle 100" "idle 500" "dribble 500"; do
	set -- $row
	printf '%-28s  %-26s  %s\n' "$2 $([ "$1" = idle ] && echo idle || echo 'byte-a-second')" \
		"$(cell "$OLD" "$1" "$2")" "$(cell "$NEW" "$1" "$2")"
done
echo "host load average $load before, $(cut -d' ' -f1 /proc/loadavg) after, on $(nproc) CPUs"
