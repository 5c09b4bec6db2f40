#!/bin/bash
# `make demo`: what rdmactl says on a real Soft-RoCE pair.  Each guest has
# rxe0 on eth0 (10.99.0.1 and 10.99.0.2); lab-a serves the probe, lab-b
# measures to it, then both are checked by doctor.
# lab-timeout: 240

say() { printf '\n$ %s\n' "$*"; "$@"; }

say rdmactl devices
say rdmactl ports
say rdmactl gids
say rdmactl gids --recommend
say rdmactl limits

[[ -n $LAB_PEER ]] || exit 0
if [[ $LAB_NODE == a ]]; then
	rdmactl probe --server --once >"$LAB_SHARE/server.out" 2>&1 &
	server=$!
	sleep 1
	lab_put probe-up 1
	wait "$server"
	echo
	echo "$ rdmactl probe --server --once"
	cat "$LAB_SHARE/server.out"
	lab_barrier probe-done
else
	lab_get probe-up >/dev/null || exit 1
	say rdmactl probe "$LAB_PEER_IP" -n 200
	lab_barrier probe-done
fi
