#!/bin/bash
# Test runner inside each lab guest, started by init.sh chrooted into the
# host's root: brings up eth0 (and eth1) with their rxe devices, the hosts
# file and whatever launchers the run needs (sshd, munge, Slurm), then runs
# the run's tests in order, in step with the other guests, leaving one result
# file per test in the run share for the harness. Its own stdout is the
# serial console (console-NODE.log on the host); each test's output goes to
# its log.
#
# Usage: guest.sh RUN-DIR NODE
set -u
RUN=$1 NODE=$2

# lab.env (written by the harness) sets LAB_GUESTS LAB_RAILS LAB_SRC LAB_BIN
# LAB_DIR LAB_NODES LAB_HOSTS LAB_IPS LAB_IPS1 LAB__ALL LAB__SSH LAB__SLURM
# LAB__HEALTHCHECK LAB_SYSTEMD LAB_LEAVES LAB__LEAF_OF ("a:1 b:1 c:2 ...",
# with a fabric) and the arrays T_ID T_PATH T_TIMEOUT T_NODES T_PS.
# shellcheck source=/dev/null
. "$RUN/lab.env"
# The runner uses the barrier helpers itself.
# shellcheck source=SCRIPTDIR/lib.sh
. "$LAB_DIR/lib.sh"

# say MSG: to the console, stamped with the guest's uptime.
say() {
	local up
	read -r up _ </proc/uptime
	echo "lab-$NODE [$up]: $*"
}

# The run's guests and rails; LAB__EVERY keeps every guest's letter, as
# LAB__ALL and the rest below may speak of a test's group of guests.
BOOT_RAILS=$LAB_RAILS
LAB__EVERY=$LAB__ALL
# (The runner's own waits are kept as those of boot-N: lib.sh, lab__wait_key.)
LAB__GUESTS_BOOTED=$LAB_GUESTS
export LAB__EVERY

# enter_group LETTERS RAILS: the guests that run the coming test and the
# rails it sees, in the variables the test and the barriers read: this
# guest's addresses; its peer with exactly two guests (what the two-node
# tests use); the group as host lists.
enter_group() {
	local n
	LAB__ALL=$1 LAB_RAILS=$2 LAB__OTHERS='' LAB_GUESTS=0
	LAB_HOSTS='' LAB_IPS='' LAB_IPS1=''
	for n in $LAB__ALL; do
		LAB_GUESTS=$((LAB_GUESTS + 1))
		[[ $n == "$NODE" ]] || LAB__OTHERS+=" $n"
		LAB_HOSTS+=" lab-$n" LAB_IPS+=" $(lab_ip "$n")"
		((LAB_RAILS == 2)) && LAB_IPS1+=" $(lab_ip "$n" 1)"
	done
	LAB_HOSTS=${LAB_HOSTS# } LAB_IPS=${LAB_IPS# } LAB_IPS1=${LAB_IPS1# }
	LAB_NODES=${LAB_HOSTS// /,}
	LAB_IP=$(lab_ip "$NODE") || return
	LAB_IP1=''
	((LAB_RAILS == 2)) && LAB_IP1=$(lab_ip "$NODE" 1)
	LAB_PEER='' LAB_PEER_IP='' LAB_ROLE=$NODE
	if ((LAB_GUESTS == 2)); then
		LAB_PEER=${LAB__OTHERS# }
		LAB_PEER_IP=$(lab_ip "$LAB_PEER")
		# A two-node test's roles are a and b, whichever pair runs it.
		LAB_ROLE=b
		[[ $LAB__ALL == "$NODE "* ]] && LAB_ROLE=a
	fi
	GID0=$(lab_gid_of "$LAB_IP") GID1=''
	[[ -n $LAB_IP1 ]] && GID1=$(lab_gid_of "$LAB_IP1")
	return 0
}
enter_group "$LAB__EVERY" "$BOOT_RAILS" || exit 1
export LAB_NODE=$NODE LAB_SYSTEMD LAB_ROLE LAB_RUN=$RUN LAB_IP LAB_IP1 LAB_PEER LAB_PEER_IP LAB_GUESTS LAB_RAILS
export LAB_SRC LAB_BIN LAB_NODES LAB_HOSTS LAB_IPS LAB_IPS1 LAB__ALL LAB__OTHERS
export LAB_LEAVES LAB__LEAF_OF LAB_TOPOLOGY=''
export RDMACTL=$LAB_BIN/rdmactl
export PATH=$LAB_BIN:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# The shared root is read-only; home and temp files live in the guest's tmpfs.
export HOME=/tmp/home TMPDIR=/tmp LANG=C.UTF-8
mkdir -p "$HOME" /tmp/lab-state "$RUN/log/$NODE" "$RUN/fin"
# RDMA memory registration pins pages; the default 8 MiB limit is too low.
ulimit -l unlimited

# measure_pace: LAB_PACE (lib.sh, The lab's budgets) from the time this
# guest takes now for a loop of bash arithmetic, all CPU, the work an
# emulated CPU is slowed in by a busy or slower host.  PACE_REF_MS is that
# loop's time in a guest of a quiet run on the machine the budgets were set
# on (2 cores, TCG, four guests booted: 38 to 45 ms, the largest kept).
# Measured at boot and again at each test's start, as the host's load
# changes during a run: the budgets follow the slowest look so far, which
# a look descheduled by a burst only stretches, never shortens.
PACE_REF_MS=45 PACE_CAP=800
measure_pace() {
	local t0=${EPOCHREALTIME/./} t1 i ms
	for ((i = 0; i < 2000; i++)); do :; done
	t1=${EPOCHREALTIME/./}
	ms=$(((t1 - t0) / 1000))
	LAB__PACE_MS=$ms
	LAB_PACE=$((ms * 100 / PACE_REF_MS))
	# The slowest pace of the run so far: one look is a moment, and a
	# budget too short for a moment's slowness fails a healthy test.  At
	# most PACE_CAP: a look the host held up for most of a second (seen:
	# 1973% under LAB_CPUS=1 beside other work) would stretch every guard
	# against a hang twentyfold.
	((LAB_PACE > PACE_CAP)) && LAB_PACE=$PACE_CAP
	((LAB_PACE > ${PACE_MAX:-100})) && PACE_MAX=$LAB_PACE
	LAB_PACE=${PACE_MAX:-100}
	export LAB_PACE
}
measure_pace


# rxe_ready: port 1 of rxe0 (and rxe1 on two rails) is ACTIVE and its GID
# table holds the IPv4-mapped GID of the guest's address on that rail
# (RoCE v2 over IPv4 needs it).
rxe_ready() {
	local port=/sys/class/infiniband/rxe0/ports/1 state
	read -r state <"$port/state" 2>/dev/null &&
		[[ $state == *ACTIVE* ]] &&
		grep -qx "$GID0" "$port"/gids/* 2>/dev/null || return
	[[ -n $GID1 ]] || return 0
	port=/sys/class/infiniband/rxe1/ports/1
	read -r state <"$port/state" 2>/dev/null &&
		[[ $state == *ACTIVE* ]] &&
		grep -qx "$GID1" "$port"/gids/* 2>/dev/null
}

# net_up: (re)establish the state every test starts from. Idempotent, so it
# also undoes what the previous test did: link down, other MTU, address
# removed, rxe device deleted, nft rules, netns. Every process started costs
# time on the emulated CPU, hence one batch for ip and the checks in sysfs.
net_up() {
	{
		echo "link set lo up"
		echo "link set eth0 mtu 1500 up"
		echo "addr replace $LAB_IP/24 dev eth0"
		# What a test taught the neighbour table goes: t4-rails's rails on
		# one L2 leave other guests' addresses at the MACs of the ports
		# that answered across rails, wrong once the rails are parted.
		echo "neigh flush dev eth0"
		if [[ -n $LAB_IP1 ]]; then
			echo "link set eth1 mtu 1500 up"
			echo "addr replace $LAB_IP1/24 dev eth1"
			echo "neigh flush dev eth1"
		elif ((BOOT_RAILS == 2)); then
			# A one-rail test in a two-rail boot: rail 1 is not there for it.
			echo "link set eth1 mtu 1500 down"
			echo "addr flush dev eth1"
		fi
	} | ip -batch - || return
	if [[ ! -e /sys/class/infiniband/rxe0 ]]; then
		rdma link add rxe0 type rxe netdev eth0 || return
	fi
	if [[ -n $LAB_IP1 && ! -e /sys/class/infiniband/rxe1 ]]; then
		rdma link add rxe1 type rxe netdev eth1 || return
	elif [[ -z $LAB_IP1 && -e /sys/class/infiniband/rxe1 ]]; then
		rdma link delete rxe1 || return
	fi
	NET_RAILS=$LAB_RAILS
	if command -v nft >/dev/null; then
		nft flush ruleset || return
	fi
	if compgen -G '/run/netns/*' >/dev/null; then
		ip -all netns delete
	fi
	lab__await "rxe devices ACTIVE with the IPv4 GIDs of $LAB_IP $LAB_IP1" 30 rxe_ready
}

# ---------------------------------------------------------------------------
# Names and launchers. The root is the host's, read-only: every file a
# launcher needs written is made in this guest's tmpfs (/run/lab) and bound
# over the host's path, so the tools find their usual configuration.

# setup_hosts: every guest's name (lab-X, and lab-X-r1 on rail 1) resolves.
setup_hosts() {
	mkdir -p /run/lab &&
		cp "$RUN/hosts" /run/lab/hosts &&
		mount --bind /run/lab/hosts /etc/hosts
}

# setup_fastfiles: what every process opens at its start, in tmpfs bound
# over the shared root's copy: the dynamic linker's cache and the C.UTF-8
# locale (LANG below), a dozen files, each open over 9p a round trip to
# the host on an emulated CPU.  Measured in a guest, ten starts each: cat
# 90 -> 68 ms a start, sed 99 -> 80, grep 101 -> 93, gojq 66 -> 61.
# And libibverbs' provider list: a process that lists the devices loads
# every provider /etc/libibverbs.d names (Debian's seventeen), 55 ms of
# an emulated CPU in each (rdmactl devices 173 -> 115 ms, ibv_devinfo 135
# -> 77; rdmactl, perftest, UCX's ranks).  The guests' only device is
# rxe: their list names rxe alone, loaded as before.
setup_fastfiles() {
	local f d=/run/lab/fast/etc/libibverbs.d
	for f in /etc/ld.so.cache /usr/lib/locale/C.utf8; do
		[[ -e $f ]] || continue
		mkdir -p "/run/lab/fast$(dirname "$f")" &&
			cp -a "$f" "/run/lab/fast$f" &&
			mount --bind "/run/lab/fast$f" "$f" || return
	done
	[[ -e /etc/libibverbs.d/rxe.driver ]] || return 0
	mkdir -p "$d" && cp -a /etc/libibverbs.d/rxe.driver "$d/" &&
		mount --bind "$d" /etc/libibverbs.d
}

# setup_ssh: sshd with a host key made now; root logs in with the run's lab
# key (one for every guest). Root's home is /run/lab/root here (a copy of
# /etc/passwd saying so is bound over it): ~/.ssh is writable, and the
# host's own dotfiles stay out of the guests' ssh sessions (an emulated CPU
# takes seconds over a shell setup made for the host). The host's ssh
# configuration, with the lab's additions, is bound over /etc/ssh; pdsh's
# default remote command is ssh. The host key's public half goes to the run
# share, for ssh_known_hosts.
setup_ssh() {
	local d=/run/lab/ssh home=/run/lab/root
	mkdir -p "$d" /run/sshd /run/lab/pdsh "$home/.ssh" "$RUN/hostkeys" &&
		chmod 700 "$home" "$home/.ssh" || return
	sed "s|^root:\([^:]*:[^:]*:[^:]*:[^:]*\):[^:]*:|root:\1:$home:|" /etc/passwd >/run/lab/passwd &&
		mount --bind /run/lab/passwd /etc/passwd || return
	install -m 600 "$RUN/keys/id_ed25519" "$home/.ssh/id_ed25519" &&
		install -m 644 "$RUN/keys/id_ed25519.pub" "$home/.ssh/id_ed25519.pub" &&
		install -m 600 "$RUN/keys/id_ed25519.pub" "$home/.ssh/authorized_keys" || return
	cp -a /etc/ssh/. "$d/" && rm -f "$d"/ssh_host_* || return
	ssh-keygen -q -t ed25519 -N '' -C "lab-$NODE" -f "$d/ssh_host_ed25519_key" || return
	mkdir -p "$d/sshd_config.d" "$d/ssh_config.d" || return
	# The first value read wins, and both configurations include these
	# first.
	cat >"$d/sshd_config.d/00-rdmactl-lab.conf" <<-EOF || return
		HostKey /etc/ssh/ssh_host_ed25519_key
		PermitRootLogin prohibit-password
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		UseDNS no
		PrintMotd no
		PrintLastLog no
		# A test gives one node a job environment of its own (~/.ssh/environment).
		PermitUserEnvironment NCCL_*,UCX_*
		# The lab's job environment for UCX on rxe (lib.sh).
		SetEnv UCX_UD_VERBS_ETH_DGID_CHECK=n
		# The probe's ACK timeout at the guests' pace, for the agents a
		# test's probe -w starts over ssh, pdsh and clush (lab_ack_timeout).
		AcceptEnv RDMACTL_PROBE_ACK_TIMEOUT
	EOF
	# curve25519 alone: OpenSSH 9.2's first choice, the post-quantum
	# sntrup761x25519, costs an emulated CPU 1.4 s of each connection's
	# 2.8 s (measured in the lab: 1.45 s with this line); every launcher the
	# tests drive (ssh, pdsh, clush, mpirun) pays it once per node.
	cat >"$d/ssh_config.d/00-rdmactl-lab.conf" <<-EOF || return
		Host lab-* 10.99.*
		    BatchMode yes
		    KexAlgorithms curve25519-sha256
		    SendEnv RDMACTL_PROBE_ACK_TIMEOUT
	EOF
	: >"$d/ssh_known_hosts"
	mount --bind "$d" /etc/ssh || return
	echo ssh >/run/lab/pdsh/rcmd_default && mount --bind /run/lab/pdsh /etc/pdsh || return
	/usr/sbin/sshd -E /run/lab/sshd.log || return
	cp "$d/ssh_host_ed25519_key.pub" "$RUN/hostkeys/.$NODE" &&
		mv "$RUN/hostkeys/.$NODE" "$RUN/hostkeys/$NODE"
}

# ssh_known_hosts: every guest's host key under its names and addresses,
# once all guests made theirs: strict host key checking holds as it is.
ssh_known_hosts() {
	local n names key
	for n in $LAB__ALL; do
		names="lab-$n,$(lab_ip "$n")"
		[[ -n $LAB_IP1 ]] && names+=",lab-$n-r1,$(lab_ip "$n" 1)"
		read -r key <"$RUN/hostkeys/$n" || return
		echo "$names ${key% *}"
	done >/etc/ssh/ssh_known_hosts
}

# setup_topology: with a fabric (--leaves), its topology.conf at
# /run/lab/topology.conf, LAB_TOPOLOGY, for `rdmactl probe --topology`
# and for Slurm.
setup_topology() {
	[[ $LAB_LEAVES != 0 ]] || return 0
	mkdir -p /run/lab && cp "$RUN/topology.conf" /run/lab/topology.conf &&
		LAB_TOPOLOGY=/run/lab/topology.conf
}

# setup_munge: munged with the run's key, its socket where libmunge looks
# (/run/munge); key, seed and log in this guest's tmpfs.
setup_munge() {
	local d=/run/lab/munge
	mkdir -p "$d" /run/munge &&
		chown munge:munge "$d" /run/munge && chmod 700 "$d" &&
		install -m 400 -o munge -g munge "$RUN/keys/munge.key" "$d/munge.key" || return
	runuser -u munge -- /usr/sbin/munged --key-file="$d/munge.key" --seed-file="$d/munged.seed" \
		--log-file="$d/munged.log" --pid-file=/run/munge/munged.pid
}

# setup_slurm: a slurm.conf for this run's guests (one CPU each, one
# partition), bound over /etc/slurm with the host's other files there;
# slurmctld on lab-a, slurmd on every guest; state and logs in tmpfs.
setup_slurm() {
	local d=/run/lab/slurm i=1 n
	mkdir -p "$d/etc" "$d/ctld" "$d/d" && cp -a /etc/slurm/. "$d/etc/" || return
	{
		cat <<-EOF
			# Made by the rdmactl lab for this run's $LAB_GUESTS guest(s).
			ClusterName=lab
			SlurmctldHost=lab-a(10.99.0.1)
			SlurmUser=root
			SlurmdUser=root
			AuthType=auth/munge
			CredType=cred/munge
			MpiDefault=none
			ProctrackType=proctrack/linuxproc
			TaskPlugin=task/none
			JobAcctGatherType=jobacct_gather/none
			AccountingStorageType=accounting_storage/none
			SchedulerType=sched/builtin
			SelectType=select/cons_tres
			SelectTypeParameters=CR_CPU
			ReturnToService=2
			StateSaveLocation=$d/ctld
			SlurmdSpoolDir=$d/d
			SlurmctldPidFile=$d/slurmctld.pid
			SlurmdPidFile=$d/slurmd.pid
			SlurmctldLogFile=$d/slurmctld.log
			SlurmdLogFile=$d/slurmd.log
			SlurmctldTimeout=60
			SlurmdTimeout=120
			MessageTimeout=30
			KillWait=5
			InactiveLimit=0
			MinJobAge=60
			TaskProlog=$d/taskprolog
		EOF
		# slurmctld asks every slurmd for a pass each interval: only in a
		# run with a test that uses it (`# lab-needs: healthcheck`).
		if [[ $LAB__HEALTHCHECK ]]; then
			printf '%s\n' "HealthCheckProgram=$d/healthcheck" HealthCheckInterval=10 \
				HealthCheckNodeState=ANY
		fi
		for n in $LAB__ALL; do
			echo "NodeName=lab-$n NodeAddr=10.99.0.$i CPUs=1 State=UNKNOWN"
			i=$((i + 1))
		done
		echo "PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
		# The fabric's switches (--leaves): topology/tree reads them from
		# topology.conf beside slurm.conf.
		# (An if: without the fabric, a false test would end the block failed.)
		if [[ $LAB_TOPOLOGY ]]; then echo "TopologyPlugin=topology/tree"; fi
	} >"$d/etc/slurm.conf" || return
	if [[ $LAB_TOPOLOGY ]]; then
		cp "$LAB_TOPOLOGY" "$d/etc/topology.conf" || return
	fi
	# A test gives one node's tasks an environment of their own: the lines
	# "export NAME=VALUE" of /run/lab/task.env (Slurm's TaskProlog protocol),
	# or what a TaskProlog it puts at /run/lab/taskprolog prints.
	printf '#!/bin/sh\n[ -r /run/lab/task.env ] && cat /run/lab/task.env\n%s\nexit 0\n' \
		'[ -x /run/lab/taskprolog ] && exec /run/lab/taskprolog' >"$d/taskprolog" &&
		chmod 755 "$d/taskprolog" || return
	# Slurm's health check runs what a test puts at /run/lab/healthcheck,
	# under /run/lab/healthcheck.lock: a test that takes its script away
	# under that lock (lab_healthcheck_stop) knows no pass is left running
	# it, one that would act on what the test changes next.
	printf '#!/bin/sh\nexec flock /run/lab/healthcheck.lock sh -c %s\n' \
		"'[ -x /run/lab/healthcheck ] || exit 0; exec /run/lab/healthcheck'" >"$d/healthcheck" &&
		chmod 755 "$d/healthcheck" || return
	# slurmd sets up its cgroup plugin whatever the proctrack and task
	# plugins: cgroup v2 is mounted as systemd would, and no systemd is asked
	# for a scope.
	printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' >"$d/etc/cgroup.conf" || return
	# PMIx's fence of srun --mpi=pmix as a ring: with the default, Open MPI
	# over UCX on four guests hung in MPI_Init or MPI_Finalize's fence in 15
	# of 18 runs, as a tree in 2 of 3, as a ring in none of 3 (and in none
	# of the lab's runs since; tests/lab/README.md, Collectives).
	printf 'PMIxCollFence=ring\n' >"$d/etc/mpi.conf" || return
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup || return
	mkdir -p /sys/fs/cgroup/system.slice || return
	mount --bind "$d/etc" /etc/slurm || return
	if [[ $NODE == a ]]; then
		/usr/sbin/slurmctld || return
	fi
	/usr/sbin/slurmd -v
}

# slurm_ready: Slurm counts this guest's node idle (registered, usable).
slurm_ready() {
	[[ $(scontrol -o show node "lab-$NODE" 2>/dev/null) =~ \ State=IDLE\  ]]
}

# put_result ID VERDICT...: atomically publish this guest's verdict.
put_result() {
	local id=$1
	shift
	mkdir -p "$RUN/res"
	echo "$*" >"$RUN/res/.$id.$NODE" && mv "$RUN/res/.$id.$NODE" "$RUN/res/$id.$NODE"
}

# serve_ps DIR: answer lab_ps's asks put in DIR (the test's share) while the
# test runs: for each new ask.ID, this guest's processes of the names it
# holds, in DIR/ID.NODE.  Looks with no process started, a quarter second
# apart for 5 s after an ask (lab_none_left asks each second until nothing
# is left), a second apart otherwise: a look, a guest woken and a 9p
# directory read, costs the host 9 ms of CPU, and four a second on every
# guest through every test were a seventh of a host core.  From inside
# DIR (run in a subshell of its own): 9p walks a path a name at a time,
# and looks from the run share's top had an idle guest's QEMU open, stat
# and close files about 65 times a second, 18 from here (strace).
serve_ps() {
	local dir=.ps f id pat seen=' ' asked=-10
	local -a names
	cd "$1" || return
	while :; do
		for f in "$dir"/ask.*; do
			[[ -e $f ]] || continue
			id=${f##*/ask.}
			[[ $seen == *" $id "* ]] && continue
			seen+="$id "
			read -r -a names <"$f" || continue
			# One pgrep for all: -x anchors the alternation as a whole.
			printf -v pat '%s|' "${names[@]}"
			# (It warns of a pattern over 15 characters, which matches all the same.)
			pgrep -a -x "${pat%|}" >"$dir/.$id.$NODE" 2>/dev/null
			mv "$dir/.$id.$NODE" "$dir/$id.$NODE"
			asked=$SECONDS
		done
		if ((SECONDS - asked < 5)); then lab_sleep 0.25; else lab_sleep 1; fi
	done
}

# wire_watch: reset a transmit queue QEMU stopped taking frames from.  On a
# loaded host QEMU 7.2 now and then stops reading a guest's virtio-net TX
# ring for good: the ring fills, the kernel stops the queue and its
# watchdog counts a timeout every 5 s ("NETDEV WATCHDOG: eth0 (virtio_net):
# transmit queue 0 timed out"), and every later test of that guest failed.
# The tap's counters showed QEMU had sent on all it had taken, the guest's
# qdisc holding thousands more.  A ring resize (ethtool -G) makes the
# driver reset the queue (VIRTIO_F_RING_RESET), and QEMU with it purges
# what it held: the frames in the ring are lost, as on a flapped link, and
# TCP and RoCE send them again.  Looks every 2 s (sysfs, no process
# started); each reset is said on the console and in
# $RUN/wire-resets.NODE, from which run_test adds it to the test's log and
# the harness reports it at the end.
wire_watch() {
	local f dev n id
	local -A seen
	while :; do
		for f in /sys/class/net/eth*/queues/tx-0/tx_timeout; do
			[[ -r $f ]] || continue
			read -r n <"$f" || continue
			dev=${f#/sys/class/net/}
			dev=${dev%%/*}
			if ((n > ${seen[$dev]:-0})); then
				read -r id <"$RUN/cur.$NODE" 2>/dev/null || id=setup
				say "$dev: transmit queue stalled ($n watchdog timeout(s)); resetting it"
				ethtool -G "$dev" tx 128 && ethtool -G "$dev" tx 256 &&
					echo "$id $dev" >>"$RUN/wire-resets.$NODE"
			fi
			seen[$dev]=$n
		done
		lab_sleep 2
	done
}

# run_test I: run test I with its timeout, then publish its verdict.
run_test() {
	local i=$1 id=${T_ID[$1]} limit pid ps_pid rc nfail reason verdict start=$SECONDS
	local log=$RUN/log/$NODE/$id.log share=$RUN/t/$id failfile=/tmp/lab-state/$id.failed
	local work=/tmp/lab-work/$id
	mkdir -p "$share" "$work"
	: >"$failfile"
	echo "$id" >"$RUN/cur.$NODE"
	lab_budget limit "${T_TIMEOUT[$1]}"
	say "running $id (limit $limit s: ${T_TIMEOUT[$1]} s at pace $LAB_PACE%; the pace loop took $LAB__PACE_MS ms)"
	# Only for a test that asks (`# lab-needs: ps`): the looks cost an
	# idle guest's QEMU 0.75% of a host core, half of what it takes.
	ps_pid=''
	if ((T_PS[i])); then
		serve_ps "$share" &
		ps_pid=$!
	fi
	(
		export LAB_TEST_ID=$id LAB_SHARE=$share LAB_FAILFILE=$failfile BASH_ENV=$LAB_DIR/lib.sh
		export LAB__PS=${ps_pid:+1} LAB__HEALTHCHECK
		cd "$work" && exec timeout -k 5 "$limit" bash "${T_PATH[$i]}" >"$log" 2>&1 </dev/null
	) &
	pid=$!
	wait "$pid"
	rc=$?
	# Out of the test: the others' waits on this guest end now
	# (lab__hopeless), not after the wire report below, which may wait
	# the test's limit for them.
	: >"$RUN/fin/$id.$NODE"
	# The fabric back as it was, once, by the group's first guest, before
	# it comes to the next test's start (where the others wait for it).
	if [[ -e $RUN/link/changed.$id && $NODE == "${LAB__ALL%% *}" ]]; then
		lab__link_ask all all restore >/dev/null || say "warning: could not restore the fabric after $id"
	fi
	# timeout(1) leads its own process group: end what the test left behind
	# (servers in the background...) so it cannot disturb the next test.
	kill -KILL -- "-$pid" 2>/dev/null
	[[ -z $ps_pid ]] || { kill "$ps_pid" && wait "$ps_pid" 2>/dev/null; }
	grep -s "^$id " "$RUN/wire-resets.$NODE" | while read -r _ dev; do
		echo "lab: $dev's transmit queue stalled during the test (QEMU took no frame for 5 s) and was reset"
	done >>"$log"
	nfail=$(wc -l <"$failfile")
	if ((rc == 124 || rc == 137)); then
		echo "lab: test killed after its $limit s limit (${T_TIMEOUT[$i]} s at pace $LAB_PACE%;" \
			"$(LAB_TEST_ID=$id lab__last_wait "(the whole test)"))" >>"$log"
		verdict="fail timed out after $limit s"
	elif ((nfail > 0)); then
		verdict="fail $nfail check(s) failed, exit $rc"
	elif ((rc == 77)); then
		reason=$(sed -n 's/^SKIP: *//p' "$log" | tail -n 1)
		verdict="skip ${reason:-exit 77}"
	elif ((rc == 0)); then
		verdict=pass
	else
		verdict="fail exit $rc"
	fi
	# Back to the start state (the test may have left a link down), and say
	# so: another guest checks the wire only against guests that did.
	net_up || say "warning: could not restore the network state after $id"
	mkdir -p "$RUN/restored" && : >"$RUN/restored/$id.$NODE"
	# Before the verdict is out, so the harness's report of it includes this.
	[[ $verdict == pass ]] || wire_report "$id" "$limit" >>"$log"
	# Its seconds first: the harness reads them when the verdict is in.
	mkdir -p "$RUN/secs" && echo $((SECONDS - start)) >"$RUN/secs/$id.$NODE"
	put_result "$id" "$verdict"
	say "$id done in $((SECONDS - start)) s: $verdict"
}

# slurm_rejoin: where this boot runs Slurm, its slurmd registers now and
# Slurm counts this guest responding: a test that cut the guest off
# (t4-bond's bond over both rails, t4-doctor's) leaves it "idle*" until
# the controller's next ping, SlurmdTimeout/3 (40 s) on, and so does a
# ping missed on a loaded host.  slurmd's reconfigure on SIGHUP sends its
# registration (Slurm 22.05).  Called once every guest of the next test
# is at its start, not after the last test: after it, lab-c and lab-d
# waited 16 s for lab-a and lab-b at t4-probe's start, were counted not
# responding then, and srun's run named both down ("Slurm says it is
# idle*").
slurm_rejoin() {
	local pid
	pid=$(cat /run/lab/slurm/slurmd.pid 2>/dev/null) && [[ $pid ]] || return 0
	kill -HUP "$pid" 2>/dev/null || return 0
	LAB__FROM="" lab__await "Slurm hearing from lab-$NODE" 30 lab_slurm_responding "$NODE"
}

# answers IP: the guest at IP answers on the wire. A connection to a closed
# port is refused by that guest's kernel itself (its RST proves ARP and both
# directions work); "No route to host" or a timeout means the link is dead.
answers() {
	local out
	out=$(timeout 3 bash -c "exec 3<>/dev/tcp/$1/9" 2>&1)
	[[ $? == 0 || $out == *"Connection refused"* ]]
}

# wire_report ID LIMIT: after failed test ID, say whether every other guest
# still answers on each rail and, if one does not, record this guest's view
# of that link (and the host's view of the switch) in the test's log, for a
# failure that can only be understood in the state it left. A guest is
# asked once it has restored its own network after the test (it may still
# be in it, its link down on purpose, for up to the test's LIMIT).
wire_report() {
	local id=$1 limit=$2 n r ip dev silent=() devs=()
	for n in $LAB__OTHERS; do
		lab__await "lab-$n's network after $id" $((limit + 30)) test -e "$RUN/restored/$id.$n"
		for ((r = 0; r < LAB_RAILS; r++)); do
			ip=$(lab_ip "$n" "$r")
			answers "$ip" && continue
			silent+=("lab-$n ($ip)")
			[[ " ${devs[*]} " == *" eth$r "* ]] || devs+=("eth$r")
		done
	done
	((${#silent[@]})) || return 0
	say "no answer on the wire from ${silent[*]}; link state in the test's log"
	echo "lab: no answer on the wire from ${silent[*]} after this test; link state:"
	: >"$RUN/wire-ask.$NODE"
	lab__await "the host's view of the switch" 5 test ! -e "$RUN/wire-ask.$NODE"
	{
		for dev in "${devs[@]}"; do
			r=${dev#eth}
			ip -s -s link show dev "$dev"
			ethtool -S "$dev" | grep -v ': 0$'
			ip neigh show dev "$dev"
			tc -s qdisc show dev "$dev"
			n=$(basename "$(readlink -f "/sys/class/net/$dev/device")")
			grep -E "CPU|$n-" /proc/interrupts
			for n in /sys/class/net/"$dev"/queues/tx-*/byte_queue_limits/inflight; do
				echo "$n: $(cat "$n")"
			done
			echo "hw_counters of rxe$r:" && lab_hwcnt "rxe$r" 1
		done
		echo "softnet_stat:" && cat /proc/net/softnet_stat
		rdma resource show
		dmesg -l emerg,alert,crit,err,warn | grep -v 'speed is unknown' | tail -n 80
		cat "$RUN/wire-state.$NODE" 2>/dev/null
	} 2>&1 | sed "s/^/wire: /"
}

# keep_setup_logs: the launchers' logs go with the run's logs (NODE/setup/).
keep_setup_logs() {
	mkdir -p "$RUN/log/$NODE/setup" &&
		cp /run/lab/*.log /run/lab/*/*.log "$RUN/log/$NODE/setup/" 2>/dev/null
}

# Names, network, launchers, then a first meeting of all guests: after it,
# every host key is known and every daemon started; Slurm's nodes are idle
# before the first test.
say "bringing up the network ($LAB_IP${LAB_IP1:+ $LAB_IP1}) and rxe"
setup_hosts || {
	say "cannot bind the lab's hosts file over /etc/hosts"
	exit 1
}
setup_fastfiles || {
	say "cannot bind the dynamic linker's cache, the locale and libibverbs' providers over the shared root's"
	exit 1
}
net_up || {
	say "network setup failed"
	exit 1
}
setup_topology || {
	say "cannot copy the fabric's topology.conf"
	exit 1
}
if [[ $LAB__SSH ]]; then
	say "starting sshd"
	setup_ssh || {
		say "sshd setup failed"
		exit 1
	}
fi
if [[ $LAB__SLURM ]]; then
	say "starting munged and slurm"
	setup_munge || {
		say "munged setup failed; its log is in the run's $NODE/setup"
		keep_setup_logs
		exit 1
	}
	setup_slurm || {
		say "slurm setup failed; its logs are in the run's $NODE/setup"
		keep_setup_logs
		exit 1
	}
fi
if ! lab__rendezvous "$RUN/sync/.setup" 300; then
	say "the other guests did not come up, stopping"
	exit 1
fi
if [[ $LAB__SSH ]]; then
	ssh_known_hosts || {
		say "cannot write ssh_known_hosts"
		exit 1
	}
fi
if [[ $LAB__SLURM ]]; then
	lab__await "slurm: lab-$NODE idle" 120 slurm_ready || {
		say "slurm did not make lab-$NODE idle: $(scontrol show node "lab-$NODE" 2>&1 | grep -E 'State|Reason')"
		keep_setup_logs
		exit 1
	}
fi
say "ready"
wire_watch </dev/null &

# meet KEY LIMIT WHY: every guest of test i at $RUN/sync/KEY within LIMIT
# s; else the test fails, its reason the guests missing and WHY, and this
# guest stops.
meet() {
	local missing
	lab__rendezvous "$RUN/sync/$1" "$2" && return 0
	lab__missing "$RUN/sync/$1"
	# shellcheck disable=SC2086 # a list of letters
	missing=$(printf 'lab-%s ' $LAB__FROM)
	say "${missing}did not reach $1, stopping"
	put_result "${T_ID[$i]}" fail "${missing}$3"
	exit 1
}

# Before each test its guests meet, so multi-node tests start together. A
# test runs on the guests T_NODES names (the harness deals two-guest tests
# out to pairs, one-guest tests to single guests); this guest skips the
# others, and waits at the next test's start for guests that may still be
# in any test before it, each ended by its own time limit: the wait is
# bounded by those limits summed.
wait_limit=60
for i in "${!T_ID[@]}"; do
	if [[ " ${T_NODES[i]} " != *" $NODE "* ]]; then
		wait_limit=$((wait_limit + T_TIMEOUT[i]))
		continue
	fi
	rails=$BOOT_RAILS
	# Two guests (or one) of a larger run: a lane's test, on rail 0 alone;
	# a larger group (`# lab-guests: N`) has the boot's rails.
	read -ra tnodes <<<"${T_NODES[i]}"
	[[ ${T_NODES[i]} != "$LAB__EVERY" ]] && ((${#tnodes[@]} <= 2)) && rails=1
	enter_group "${T_NODES[i]}" "$rails" || exit 1
	if ((NET_RAILS != LAB_RAILS)) && ! net_up; then
		say "could not set up the network for ${T_ID[$i]} ($rails rail(s))"
		exit 1
	fi
	# The pace this guest starts the test at, written before the guests
	# meet: once met, every guest of the test finds the others' there
	# (lab_budget_slowest, lab_ack_timeout), from the test's first line.
	measure_pace
	mkdir -p "$RUN/pace" && echo "$LAB_PACE" >"$RUN/pace/${T_ID[$i]}.$NODE"
	meet "${T_ID[$i]}" "$wait_limit" "never reached the start of the test"
	# Where Slurm runs: it hears from every guest of the test before any
	# starts it (slurm_rejoin).
	if [[ -e /run/lab/slurm/slurmd.pid ]]; then
		slurm_rejoin || say "warning: Slurm does not hear from lab-$NODE before ${T_ID[$i]}"
		meet "${T_ID[$i]}.slurm" 60 "did not rejoin Slurm before the test"
	fi
	run_test "$i"
	wait_limit=$((wait_limit + T_TIMEOUT[i]))
done
enter_group "$LAB__EVERY" "$BOOT_RAILS"
: >"$RUN/done.$NODE"
# Stay up until every guest is done: a guest checking the wire after its
# failed last test would otherwise find the others powered off and report
# a dead wire that was only a finished run (seen after t4-probe failed).
# (A guest that went down never ends: 120 s at most.)
all_done() {
	local n
	for n in $LAB__ALL; do
		[[ -e $RUN/done.$n || -e $RUN/down.$n ]] || return 1
	done
}
for ((i = 0; i < 600; i++)); do
	all_done && break
	lab_sleep 0.2
done
say "all tests done"
