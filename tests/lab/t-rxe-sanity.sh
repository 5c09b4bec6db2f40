#!/bin/bash
# Soft-RoCE works in the lab guests: rxe0 is a verbs device, RDMA netlink
# reports its port ACTIVE and, with two guests, an RDMA WRITE bandwidth run
# over RoCE v2 (GID index 1, the IPv4-mapped GID) goes from lab-b to lab-a.

# lab-seconds: 11
devices=$(ibv_devices)
echo "$devices"
grep -qw rxe0 <<<"$devices" || fail "ibv_devices does not list rxe0"

link=$(rdma link show rxe0/1)
echo "$link"
[[ $link == *"state ACTIVE"* ]] || fail "rdma link show does not say rxe0/1 is ACTIVE"

if [[ -z $LAB_PEER ]]; then
	echo "one guest: no bandwidth run"
	exit 0
fi

bw=(ib_write_bw -d rxe0 -x 1 -F -s 65536 -n 200)
port=18515 # ib_write_bw's default port for exchanging QP details

if [[ $LAB_ROLE == a ]]; then
	lab_timeout 60 "${bw[@]}" >server.out 2>&1 &
	server=$!
	# Tell lab-b to connect once the server listens.
	lab_wait_listen $port
	lab_put server-up 1
	wait "$server" || fail "ib_write_bw server exited with $?"
	cat server.out
else
	lab_get server-up >/dev/null || exit 1
	# The server may still be a moment from accepting: retry refused connects.
	for try in 1 2 3 4 5; do
		"${bw[@]}" "$LAB_PEER_IP" >client.out 2>&1 && break
		echo "client attempt $try failed:"
		cat client.out
		sleep 1
	done
	cat client.out
	grep -Eq '^ *65536 +200 ' client.out || fail "ib_write_bw client reported no result"
fi
