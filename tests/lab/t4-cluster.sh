#!/bin/bash
# Four guests make a small cluster: each knows its name and address and every
# other's, has rxe0 ACTIVE on eth0 (and rxe1 on eth1 with two rails), reaches
# every guest by name over ssh, runs commands on all four with pdsh, clush
# and Slurm's srun and salloc, and lab-c writes to lab-d over RDMA with
# `rdmactl probe` (on each rail).
# lab-needs: ssh slurm ps
# lab-timeout: 400

lab_need_guests 4
# How long a guest waits at a barrier for the others to end a phase: on a
# loaded host, four emulated guests on two cores take minutes over ssh.
phase=300

# ---- names, addresses, RDMA devices
echo "== names ($SECONDS s)"
check_eq "hostname" "lab-$LAB_NODE" "$(hostname)"
check_eq "eth0 address" "$LAB_IP/24" "$(ip -4 -o addr show dev eth0 | awk '{ print $4 }')"
for h in $LAB_HOSTS; do
	check_eq "$h resolves to its address" "$(lab_ip "$h")" "$(getent hosts "$h" | awk '{ print $1 }')"
done

# rxe_on DEV NETDEV: DEV's port 1 is ACTIVE on NETDEV.
rxe_on() {
	local link
	link=$(rdma link show "$1/1")
	echo "$link"
	[[ $link == *"state ACTIVE"* && $link == *"netdev $2 "* ]] || fail "$1/1 is not ACTIVE on $2"
}
rxe_on rxe0 eth0
if ((LAB_RAILS == 2)); then
	check_eq "eth1 address" "$LAB_IP1/24" "$(ip -4 -o addr show dev eth1 | awk '{ print $4 }')"
	rxe_on rxe1 eth1
	check_eq "lab-$LAB_NODE-r1 resolves" "$LAB_IP1" "$(getent hosts "lab-$LAB_NODE-r1" | awk '{ print $1 }')"
fi

# ---- ssh: every guest to every other guest by name; to the next one by
# address, with strict host key checking forced on: every host key is known.
echo "== ssh ($SECONDS s)"
next=$(sed "s/.*lab-$LAB_NODE \([^ ]*\).*/\1/; t; s/ .*//" <<<"$LAB_HOSTS")
for h in $LAB_HOSTS; do
	if [[ $h == "$next" ]]; then
		check_eq "ssh -o StrictHostKeyChecking=yes $(lab_ip "$h") hostname" "$h" \
			"$(ssh -o StrictHostKeyChecking=yes "$(lab_ip "$h")" hostname 2>&1)"
	elif [[ $h != "lab-$LAB_NODE" ]]; then
		check_eq "ssh $h hostname" "$h" "$(ssh "$h" hostname 2>&1)"
	fi
done
lab_barrier ssh-done "$phase"

# expected PREFIX: every guest's name, one a line, each after PREFIX.
expected() {
	local h
	for h in $LAB_HOSTS; do
		echo "$1$h"
	done
}

# ---- pdsh from lab-a, clush from lab-b (both over ssh); sinfo from lab-c
echo "== pdsh, clush, sinfo ($SECONDS s)"
case $LAB_NODE in
a)
	out=$(pdsh -w "$LAB_NODES" hostname 2>pdsh.err)
	echo "$out" && cat pdsh.err
	check_eq "pdsh -w $LAB_NODES hostname" "$(expected "" | sed 's/.*/&: &/')" "$(sort <<<"$out")"
	;;
b)
	out=$(clush -w "$LAB_NODES" -b hostname 2>clush.err)
	echo "$out" && cat clush.err
	# -b gathers identical outputs under one header of their nodes: here
	# four blocks, each a node's name and then its output, the same name.
	check_eq "clush -w $LAB_NODES -b hostname" "$(expected "" | sed 's/.*/& &/')" \
		"$(awk '/^-+$/ { getline h; getline; getline o; print h, o }' <<<"$out" | sort)"
	;;
c)
	out=$(sinfo -h -N -o '%N %T' 2>sinfo.err)
	echo "$out" && cat sinfo.err
	check_eq "sinfo: every node idle" "$(expected "" | sed 's/$/ idle/')" "$(sort <<<"$out")"
	;;
esac
lab_barrier shells-done "$phase"

# ---- Slurm: srun across all four from every guest at once (the jobs queue
# for the nodes' one CPU each, and run one after the other)
echo "== srun ($SECONDS s)"
out=$(lab_timeout 180 srun -N4 -w "$LAB_NODES" hostname 2>srun.err)
echo "$out" && cat srun.err
check_eq "srun -N4 -w $LAB_NODES hostname" "$(expected "")" "$(sort <<<"$out")"
lab_barrier srun-done "$phase"

echo "== salloc ($SECONDS s)"
# salloc from lab-d: an allocation of the four, its node list in the
# environment, a step in it.
if [[ $LAB_NODE == d ]]; then
	# shellcheck disable=SC2016 # expanded in the allocation
	out=$(lab_timeout 180 salloc -N4 bash -c 'echo "nodelist $SLURM_JOB_NODELIST nnodes $SLURM_JOB_NUM_NODES"
		scontrol show hostnames "$SLURM_JOB_NODELIST"
		srun hostname | sed "s/^/step /"' 2>salloc.err)
	echo "$out" && cat salloc.err
	check_eq "salloc -N4: SLURM_JOB_NUM_NODES" 4 "$(sed -n 's/^nodelist .* nnodes //p' <<<"$out")"
	check_eq "salloc -N4: SLURM_JOB_NODELIST" "$(expected "")" "$(grep '^lab-' <<<"$out" | sort)"
	check_eq "salloc -N4: srun in the allocation" "$(expected "step ")" "$(grep '^step ' <<<"$out" | sort)"
fi
lab_barrier salloc-done "$phase"

# ---- RDMA: lab-c writes to lab-d with rdmactl probe, on each rail
echo "== probe ($SECONDS s)"
port=18600
for ((r = 0; r < LAB_RAILS; r++)); do
	case $LAB_NODE in
	d)
		lab_timeout 120 "$RDMACTL" probe --server --once --port $port >"server$r.out" 2>&1 &
		server=$!
		lab_wait_listen $port || fail "rail $r: the probe server does not listen"
		lab_put "server-up-$r" 1
		wait "$server" || fail "rail $r: probe server exited with $?"
		cat "server$r.out"
		;;
	c)
		lab_get "server-up-$r" >/dev/null
		to=$(lab_ip d "$r")
		lab_timeout 120 "$RDMACTL" -j probe "$to" --port $port -s 64K -n 200 --lat-iters 10 --verify \
			>"probe$r.json" 2>"probe$r.err"
		check_eq "rail $r: probe lab-c -> lab-d ($to): exit status" 0 "$?"
		cat "probe$r.err"
		jq -c '.probe, .results' "probe$r.json"
		check_eq "rail $r: transport" rdma "$(jq -r .probe.transport "probe$r.json")"
		check_eq "rail $r: local device" "rxe$r" "$(jq -r .probe.local.device "probe$r.json")"
		check_eq "rail $r: writes" 200 "$(jq -r '.results[0].msgs' "probe$r.json")"
		check_eq "rail $r: wrong bytes" 0 "$(jq -r '.results[0].verify_errors' "probe$r.json")"
		[[ $(jq -r '.results[0].bw_avg_gbps > 0' "probe$r.json") == true ]] ||
			fail "rail $r: no bandwidth measured"
		;;
	esac
	lab_barrier "probe-$r-done" "$phase"
done

# ---- the harness's own look at the guests' processes (lab_ps, which the
# tests' checks that nothing is left rely on): it sees one on every guest.
echo "== lab_ps ($SECONDS s)"
sleep 29.75 &
marker=$!
lab_barrier marker-up "$phase"
if [[ $LAB_NODE == a ]]; then
	check_eq "lab_ps: the marker on every guest" "$(expected "" | sed 's/$/: sleep 29.75/')" \
		"$(lab_ps sleep | sed -n 's/: [0-9]* \(sleep 29\.75\)$/: \1/p' | sort)"
fi
lab_barrier marker-seen "$phase"
kill "$marker"
echo "== done ($SECONDS s)"
exit 0
