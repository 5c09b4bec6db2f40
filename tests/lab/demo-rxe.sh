#!/bin/bash
# Demo: the lab's RDMA setup as rdmactl sees it. Each guest has a Soft-RoCE
# device, rxe0, on eth0, and the two guests exchange RDMA traffic over
# rdma_cm (rping).

echo "== $(hostname) ($LAB_IP): RDMA links"
rdma link show
echo "== rxe0 through verbs"
ibv_devinfo -d rxe0 | grep -E 'hca_id|transport|state|active_mtu|link_layer'
echo "== rxe0 GID table (index: GID type)"
port=/sys/class/infiniband/rxe0/ports/1
for i in 0 1; do
	echo "$i: $(cat "$port/gids/$i") $(cat "$port/gid_attrs/types/$i")"
done

[[ -n $LAB_PEER ]] || exit 0
echo "== rping over rdma_cm between lab-a (server) and lab-b (client)"
if [[ $LAB_NODE == a ]]; then
	timeout 60 stdbuf -oL rping -s -a "$LAB_IP" -C 3 -v &
	server=$!
	sleep 1 # rdma_cm listens without a socket that ss could show
	lab_put rping-up 1
	wait "$server" || fail "rping server exited with $?"
else
	lab_get rping-up >/dev/null || exit 1
	for _ in 1 2 3; do
		timeout 30 stdbuf -oL rping -c -a "$LAB_PEER_IP" -C 3 -v && exit 0
		sleep 1
	done
	fail "rping client could not reach lab-a"
fi
