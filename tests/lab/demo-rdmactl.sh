#!/bin/bash
# `make demo`: what rdmactl says on a real Soft-RoCE pair.  Each guest has
# rxe0 on eth0 (10.99.0.1 and 10.99.0.2); lab-a serves the probe, lab-b
# measures to it and runs doctor against it.
# lab-timeout: 240

say() { printf '\n$ %s\n' "$*"; "$@"; }

say rdmactl devices
say rdmactl ports
say rdmactl gids
say rdmactl gids --recommend
say rdmactl limits

[[ -n $LAB_PEER ]] || exit 0
if [[ $LAB_NODE == a ]]; then
	rdmactl probe --server >"$LAB_SHARE/server.out" 2>&1 &
	server=$!
	sleep 1
	lab_put probe-up 1
	lab_barrier client-done
	kill "$server"
	wait "$server"
	echo
	echo "$ rdmactl probe --server"
	cat "$LAB_SHARE/server.out"
else
	lab_get probe-up >/dev/null || exit 1
	say rdmactl probe "$LAB_PEER_IP" -n 200
	# The guests share the host's /etc, so its PAM and systemd limits are not theirs.
	say rdmactl doctor --peer "$LAB_PEER_IP" --skip memlock.login,memlock.systemd
	lab_barrier client-done
fi
