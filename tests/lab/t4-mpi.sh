#!/bin/bash
# The doctor's verdict held against a real collective: Open MPI over UCX,
# pinned to RDMA (UCX_TLS=rc,self,sm: RC with UD for its connections, no
# tcp transport, so a silent fall back to TCP cannot pass for success),
# MPI_Allreduce and MPI_Alltoall with every element checked (coll.c).
#
# First the cluster as the doctor's fixes leave it: netdevs at MTU 9000
# (RDMA MTU 4096), memlock unlimited for logins and services, and the
# job's UCX environment as the doctor asks for it on rxe
# (UCX_UD_VERBS_ETH_DGID_CHECK=n: UCX before 1.19 drops every UD packet of
# an IPv4 GID on a device other than mlx5; tests/lab/README.md).  The
# doctor's row is all ok, the collective runs on four ranks under mpirun
# (ssh) and srun (PMIx), and its bus bandwidth is printed beside
# ucx_perftest's and probe -w's figures for the same links.
#
# Then one fault on each of three nodes, each held three ways: doctor -w,
# a two-rank collective between lab-a and that node, and, once every
# node's fix is applied as the doctor printed it, a collective on them all:
#
#   lab-b  eth0 at MTU 1500 (RDMA MTU 1024 against 4096 elsewhere)
#   lab-c  RoCE v2 (UDP 4791) dropped by nftables
#   lab-d  memlock 64 KiB for logins (limits.d), as ssh gives mpirun's ranks
#
# and again, faults of the job's own setting (section 3):
#
#   lab-b  UCX_NET_DEVICES=mlx_1 in its job environment
#   lab-c  UCX_IB_GID_INDEX=0 (link-local) in its job environment
#   lab-d  new connections to the ephemeral TCP range dropped on eth0
#   lab-b  no IPv4 address on eth1, the job on rail 1
#
# The jobs run as a user, "job" (uid 4791, made here on every guest), as
# jobs do: root's jobs pin memory past any limit (CAP_IPC_LOCK), so a
# memlock fault shows only in a user's.  The doctor runs as root (the
# firewall check reads nftables) and checks that user's logins (--user).
#
# Then lab-d's GID table ordered otherwise (its IPv4 entry at index 2):
# one UCX_IB_GID_INDEX for the job against the doctor and the collective,
# then each node's own value from rdmactl env through Slurm's TaskProlog
# (contrib/slurm/rdmactl-taskprolog) under srun.  Last, lab-d's second
# rail so ordered: MPI_Allreduce over both rails with each node's lines
# from rdmactl env (TaskProlog under srun, the wrapper under mpirun), and
# one index forced for the whole job.
#
# A collective that hangs is killed and counted as failed: after COLL_S
# seconds where it is expected to run, sooner in the fault rounds, where a
# failing job shows why (see there); after every collective no MPI
# process is left on any guest.
# lab-needs: ssh slurm mpi ps
# lab-timeout: 900

lab_need_guests 4
# The build's rdmactl where the jobs' user can run it: the TaskProlog and
# the ranks' wrapper run it as that user, and the checkout may sit under a
# directory only root may enter (root's home).
BIN=/run/lab/bin/rdmactl
mkdir -p /run/lab/bin && chmod 755 /run/lab/bin && install -m 755 "$RDMACTL" "$BIN"
# (A guard against a hang, at this guest's pace: lib.sh, The lab's budgets.)
lab_budget COLL_S 90
# 2 MiB at most, once a size: the emulated links move a few MB/s.
COLL_MAX=2097152

# ---- the well-set node
ip link set eth0 mtu 9000
ip link set eth1 mtu 9000
# The jobs' user (a uid of its own: the host's root may hold 1000): its
# ssh key is the lab's, its home in tmpfs.
JOB_HOME=/run/lab/job JOB_UID=4791
echo "job:*:$JOB_UID:$JOB_UID:job:$JOB_HOME:/bin/bash" >>/run/lab/passwd
mkdir -p "$JOB_HOME/.ssh"
cp "$(getent passwd root | cut -d: -f6)"/.ssh/{id_ed25519,id_ed25519.pub,authorized_keys} "$JOB_HOME/.ssh/"
chown -R $JOB_UID:$JOB_UID "$JOB_HOME" && chmod 700 "$JOB_HOME" "$JOB_HOME/.ssh"
# limits.d as the doctor's fix writes it, bound over /etc/security (the
# guests share the host's root read-only).
sec=/run/lab/security
rm -rf "$sec" && cp -a /etc/security "$sec"
printf '%s\n' '* soft memlock unlimited' '* hard memlock unlimited' \
	'root soft memlock unlimited' 'root hard memlock unlimited' >"$sec/limits.d/99-rdma.conf"
mount --bind "$sec" /etc/security
# systemd's default for services, as its fix writes it.
sd=/run/lab/systemd
rm -rf "$sd" && cp -a /etc/systemd "$sd" && mkdir -p "$sd/system.conf.d"
printf '[Manager]\nDefaultLimitMEMLOCK=infinity\n' >"$sd/system.conf.d/90-memlock.conf"
mount --bind "$sd" /etc/systemd
# The same path on every node, where the jobs' user reaches it: coll.c
# as the harness built it on the host (`# lab-needs: mpi`; the guests run
# the host's libraries).
COLL=/run/lab/mpi/coll
mkdir -p /run/lab/mpi
install -m 755 "$LAB_RUN/coll" $COLL || fail "no coll built by the harness"
lab_barrier set-up 120
[[ $LAB_NODE == a ]] && echo "== set-up at $SECONDS s"

# The job's UCX environment: srun hands it to the doctors, mpirun to the ranks.
export UCX_TLS=rc,self,sm UCX_NET_DEVICES=rxe0:1 UCX_UD_VERBS_ETH_DGID_CHECK=n
# UCX's PML named for srun's ranks as mpirun's --mca pml ucx names it for
# its own: left to choose, Open MPI 4.1 took ob1 over TCP on rxe
# (pml_base_verbose: "selected ob1"), and a collective over TCP proves
# nothing of RDMA; named, a UCX that cannot run ends MPI_Init.
export OMPI_MCA_pml=ucx

# no_mpi_left WHAT: no rank, Open MPI daemon or rdmactl on any guest (5 s
# for a killed job's remote ranks to go).
no_mpi_left() { lab_none_left "$1" 5 coll orted rdmactl; }

# as_job CMD...: CMD as the jobs' user, its PAM session opened (runuser's
# pam_limits gives it that user's limits, as a login would).
as_job() {
	(cd /tmp && runuser -u job -- "$@")
}

# collective NAME HOSTS [LIMIT [SHOWN]]: one rank a host under mpirun,
# killed after LIMIT seconds (COLL_S); prints "passed", "timed out after N
# s" or "failed: FIRST ERROR LINE" (its output in NAME.out, its seconds in
# NAME.secs).  SHOWN, a command given NAME, ends the job sooner: once it
# prints why the job cannot run (a look a second), the job is ended and
# that is its outcome ("ended after N s: WHY").
collective() {
	local name=$1 hosts=$2 limit=${3:-$COLL_S} shown=${4-} rc=0 start=$SECONDS pid why=''
	as_job timeout -k 5 "$limit" mpirun -H "$hosts" -np "$(tr , '\n' <<<"$hosts" | wc -l)" \
		--mca pml ucx -x UCX_TLS -x UCX_NET_DEVICES -x UCX_UD_VERBS_ETH_DGID_CHECK \
		$COLL $COLL_MAX 1 >"$name.out" 2>&1 &
	pid=$!
	while [[ -n $shown ]] && kill -0 $pid 2>/dev/null; do
		if why=$("$shown" "$name"); then
			# timeout(1) hands the signal on to mpirun, which ends its
			# ranks; HOSTS tells this job's from the others'.
			pkill -TERM -u job -f "^timeout -k 5 $limit mpirun -H $hosts " || why=''
			break
		fi
		lab_sleep 1
	done
	wait $pid || rc=$?
	sed "s/^/$name: /" "$name.out" >&2
	echo "$name: exit $rc in $((SECONDS - start)) s${why:+, ended: $why}" >&2
	echo $((SECONDS - start)) >"$name.secs"
	if [[ -n $why ]] && ! grep -q '^coll ok on' "$name.out"; then
		echo "ended after $((SECONDS - start)) s: $why"
	else
		outcome "$name" $rc "$limit"
	fi
}

# srun_job NAME LIMIT ARGS...: srun --mpi=pmix ARGS as the jobs' user, its
# output in NAME.out; ended after LIMIT seconds, or 15 s after its ranks
# printed their checks' result if the step has not ended by then (Slurm's
# default PMIx fence left four-rank steps hanging in MPI_Finalize, every
# result right: the lab's mpi.conf makes it a ring; tests/lab/README.md).
# Prints its exit status, 124 when it had to be ended.
srun_job() {
	local name=$1 limit=$2 start=$SECONDS ok_at='' pid rc=0 w
	shift 2
	as_job srun --mpi=pmix "$@" >"$name.out" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		[[ -z $ok_at ]] && grep -q '^coll ok on' "$name.out" && ok_at=$SECONDS
		if ((SECONDS - start >= limit)) || [[ -n $ok_at && $((SECONDS - ok_at)) -ge 15 ]]; then
			# srun cancels its step on the first signal, gives up on the second.
			pkill -TERM -u job -x srun
			lab_sleep 5
			pkill -KILL -u job -x srun
			rc=124
			break
		fi
		lab_sleep 1
	done
	wait $pid
	w=$?
	((rc)) || rc=$w
	sed "s/^/$name: /" "$name.out" >&2
	echo "$name: exit $rc in $((SECONDS - start)) s" >&2
	echo $rc
}

# scollective NAME HOSTS LIMIT: collective() under srun, where each node's
# TaskProlog gives the tasks that node's job environment.
scollective() {
	local rc
	rc=$(srun_job "$1" "$3" -N "$(tr , '\n' <<<"$2" | wc -l)" -w "$2" $COLL $COLL_MAX 1)
	outcome "$1" "$rc" "$3"
}

# agrees WHAT VERDICT OUTCOME: the doctor's VERDICT fails the node iff the
# collective's OUTCOME is not "passed" (a warning is about speed).
agrees() {
	check_eq "$1: the doctor fails the node iff the collective fails on it" \
		"$([[ $3 == passed ]] && echo no || echo yes)" "$([[ $2 == FAIL* ]] && echo yes || echo no)"
}

# outcome NAME RC LIMIT: what a collective that exited RC (its output in
# NAME.out, killed after LIMIT s) came to, as collective() prints it.
outcome() {
	local line
	if (($2 == 0)) && grep -q '^coll ok on' "$1.out"; then
		echo passed
	elif (($2 == 124 || $2 == 137)) && grep -q '^coll ok on' "$1.out"; then
		echo "hung after its checks passed (ended 15 s later)"
	elif (($2 == 124 || $2 == 137)); then
		echo "timed out after $3 s"
	else
		line=$(grep -m 1 -i -E 'error|fatal|abort|fail|refused|unreachable|cannot be' "$1.out")
		echo "failed: ${line:-exit $2}"
	fi
}

# doctor NAME: the cluster doctor for UCX jobs through srun, its JSON in NAME.json.
doctor() {
	local start=$SECONDS
	lab_timeout 300 "$RDMACTL" -j doctor -w "$LAB_NODES" --launcher srun --rdmactl "$BIN" --for ucx --user job \
		>"$1.json" 2>"$1.err" || true
	cp "$1.json" "$LAB_SHARE/doctor-$1.json"
	sed "s/^/$1 stderr: /" "$1.err"
	jq -r '.checks[] | select((.status | ascii_downcase) == "fail" or .status == "warn") |
		"\(.status) \(.id) \(.nodes): \(.found)"' "$1.json" | sed "s/^/$1: /"
	echo "$1: doctor -w took $((SECONDS - start)) s"
}

# verdict NAME NODE [IDS]: the doctor's word on NODE: FAIL/warn and the
# checks, or ok; only the checks whose id matches the regex IDS if given.
verdict() {
	jq -r --arg n "$2" --arg ids "${3:-.}" '[.checks[] | select(((.nodes // "") | split(",") | index($n))
		and (.id | test($ids)))] as $c
		| ([$c[] | select((.status | ascii_downcase) == "fail") | .id] | join(",")) as $f
		| ([$c[] | select(.status == "warn") | .id] | join(",")) as $w
		| if $f != "" then "FAIL \($f)" elif $w != "" then "warn \($w)" else "ok" end' "$1.json"
}

declare -A TABLE
row() { TABLE[$1]=$(printf '%-24s | %-24s | %-40s | %s' "$1" "$2" "$3" "$4"); }

if [[ $LAB_NODE == a ]]; then
	# ---- 1. healthy: the doctor all ok, the collective on four ranks
	doctor healthy
	check_eq "healthy: the doctor fails no node" '""' "$(jq -c '.summary.failed_nodes // ""' healthy.json)"
	check_eq "healthy: the doctor warns no node" '""' "$(jq -c '.summary.warned_nodes // ""' healthy.json)"
	out=$(collective healthy-mpirun "$LAB_NODES")
	check_eq "healthy: allreduce and alltoall on four ranks (mpirun)" passed "$out"
	row healthy "$(jq -r 'if .summary.failed == 0 and .summary.warned == 0 then "ok (4 nodes)"
		else "FAIL \(.summary.failed_nodes) warn \(.summary.warned_nodes)" end' healthy.json)" "$out" "-"
	no_mpi_left healthy-mpirun
	# Slurm's PMIx starts the same four ranks.
	rc=$(srun_job healthy-srun $COLL_S -N4 -w "$LAB_NODES" $COLL $COLL_MAX 1)
	check_eq "healthy: allreduce and alltoall on four ranks (srun --mpi=pmix)" yes \
		"$(grep -q '^coll ok on 4 ranks' healthy-srun.out && echo yes)"
	check_eq "healthy: the four-rank srun step ends" passed "$(outcome healthy-srun "$rc" $COLL_S)"
	no_mpi_left healthy-srun
	# The figures side by side: busbw of the largest allreduce, ucx_perftest
	# lab-a -> lab-b (200 writes of 64 KiB, 2 s; 1 000 took 9 s for the
	# same figure), probe -w's ring.
	busbw=$(awk '$1 == "allreduce" { v = $(NF - 1) } END { print v }' healthy-mpirun.out)
	step=$SECONDS
	lab_put perftest-up 1
	lab_get perftest-ready 60 >/dev/null
	lab_timeout 60 ucx_perftest -d rxe0:1 -x rc_verbs -t put_bw -D zcopy -s 65536 -n 200 \
		"$(lab_ip b)" >perftest.out 2>&1 || fail "ucx_perftest lab-a -> lab-b"
	cat perftest.out
	echo "perftest: took $((SECONDS - step)) s"
	step=$SECONDS
	# Final: ITER  lat...  bandwidth(MB/s) average overall  msgrate...
	perf=$(awk '$1 == "Final:" { print $(NF - 2) }' perftest.out)
	# Exit 1 is a finding (a link the emulation slowed): the median stands.
	rc=0
	"$RDMACTL" -j probe -w "$LAB_NODES" --launcher srun --rdmactl "$BIN" --pattern ring --rails 1 \
		-D 1 --lat-iters 0 >ring.json 2>ring.err || rc=$?
	sed 's/^/ring stderr: /' ring.err
	jq -r '.findings[]? | "ring: \(.kind): \(.text)"' ring.json
	((rc <= 1)) || fail "probe -w ring exited with $rc"
	ring=$(jq -r '.median_gbps' ring.json)
	echo "ring: took $((SECONDS - step)) s"
	echo "FIGURES allreduce busbw ${busbw:-?} GB/s (4 ranks, 2 MiB); ucx_perftest put_bw ${perf:-?} MB/s" \
		"(64 KiB, lab-a -> lab-b); probe -w ring median ${ring:-?} Gb/s"
	[[ -n $busbw && -n $perf && $ring != null ]] || fail "a figure is missing"
	lab_put healthy-done 1
fi
if [[ $LAB_NODE == b ]]; then
	lab_get perftest-up 300 >/dev/null
	lab_timeout 90 ucx_perftest -d rxe0:1 -x rc_verbs >perftest-server.out 2>&1 &
	# Ready when it listens (ucx_perftest's default port), not a fixed
	# while after its start.
	listening() { ss -Hltn "sport = :13337" | grep -q .; }
	lab__await "ucx_perftest's server listening on 13337" 60 listening ||
		fail "ucx_perftest's server does not listen on 13337"
	lab_put perftest-ready 1
	wait
fi
lab_barrier healthy-done 600
[[ $LAB_NODE == a ]] && echo "== healthy-done at $SECONDS s"

# ---- 2. one fault a node
case $LAB_NODE in
b) ip link set eth0 mtu 1500 ;;
c)
	lab_block_roce
	;;
d) printf '%s\n' '* soft memlock 64' '* hard memlock 64' \
	'root soft memlock unlimited' 'root hard memlock unlimited' >/etc/security/limits.d/99-rdma.conf ;;
esac
lab_barrier faults-set 120
[[ $LAB_NODE == a ]] && echo "== faults-set at $SECONDS s"

# fssh ARGS...: ssh as fix() uses it, one connection a node kept for the
# test (ControlPersist): a handshake costs an emulated CPU 1.5 s, and a
# fix can take five steps.
fssh() { ssh -o ControlMaster=auto -o ControlPath=/tmp/fix-%h -o ControlPersist=900 "$@"; }

# fix NODE DOCTOR: every fix the doctor (its JSON DOCTOR.json) printed for
# NODE, applied there as its text says, step by step ("; " between steps):
# a command runs as it stands ("CMD on every node ..." names where: CMD
# runs); "write FILE: LINE; LINE" writes those lines; "change FILE:N to:
# TEXT" replaces line N; "then log in again" is what the next collective's
# ssh does; "export NAME=VALUE" and "unset NAME" change the job's
# environment on NODE, which is what its TaskProlog gives (/run/lab/task.env).
# (ssh -n: the loop reads the fixes on stdin.)
# shellcheck disable=SC2029 # the fix is expanded here, run there, as printed
fix() {
	local f step file dev n=0
	local -a steps lines
	while IFS= read -r -d '' f; do
		echo "fix for $1: $f"
		n=$((n + 1))
		mapfile -t steps <<<"${f//; /$'\n'}"
		if [[ ${steps[0]} == "write "*": "* ]]; then
			file=${steps[0]#write } && file=${file%%: *}
			lines=("${steps[0]#*: }")
			for step in "${steps[@]:1}"; do
				[[ $step == "then "* ]] && break
				lines+=("$step")
			done
			printf '%s\n' "${lines[@]}" | fssh "$1" "cat >$file"
			continue
		fi
		for step in "${steps[@]}"; do
			case $step in
			"change "*:*" to: "*)
				file=${step#change } && file=${file%% to: *}
				fssh -n "$1" "sed -i '${file##*:}c\\${step#* to: }' ${file%:*}" ;;
			"ip addr add ADDRESS/PREFIX dev "*)
				# The address is the site's to know: here the lab's for that rail.
				dev=${step#ip addr add ADDRESS/PREFIX dev } && dev=${dev%% *}
				fssh -n "$1" "ip addr add $(lab_ip "$1" "${dev#eth}")/24 dev $dev" ;;
			"export "*=*)
				fssh -n "$1" "sed -i '/^export ${step%%=*}=/d' /run/lab/task.env; echo '$step' >>/run/lab/task.env" ;;
			"unset "*)
				fssh -n "$1" "sed -i '/^export ${step#unset }=/d' /run/lab/task.env" ;;
			"then "*) ;;
			*) fssh -n "$1" "${step%% on every node*}" ;;
			esac
		done
	done < <(jq -j --arg n "$1" '.checks[] | select(((.status | ascii_downcase) == "fail" or .status == "warn") and .fix != null
		and (.nodes | split(",") | index($n))) | .fix + "\u0000"' "$2.json")
	fssh "$1" 'cat /etc/security/limits.d/99-rdma.conf; cat /run/lab/task.env 2>/dev/null' |
		sed "s/^/$1 after the fix: /"
	((n > 0))
}

if [[ $LAB_NODE == a ]]; then
	doctor faults
	# The link faults through probe -w too (as root, whom memlock does not
	# bind): lab-c blocked, no other node named but lab-b, whose smaller
	# MTU the probe may call slow (links alone are not asserted: the
	# emulated links vary).  --slow 0.3, as the lab's other runs over
	# healthy links: at half pace (LAB_CPUS=1) lab-d, healthy for root,
	# was "slow receiving" at 32% of the median under 0.5.
	rc=0 step=$SECONDS
	"$RDMACTL" -j probe -w "$LAB_NODES" --launcher srun --rdmactl "$BIN" --pattern triage --rails 1 \
		-D 1 --timeout 5 --lat-iters 0 --slow 0.3 >faults-probe.json 2>faults-probe.err || rc=$?
	sed 's/^/faults-probe stderr: /' faults-probe.err
	jq -r '.findings[]? | "faults-probe: \(.kind) \(.node): \(.text)"' faults-probe.json
	echo "faults-probe: took $((SECONDS - step)) s"
	check_eq "faults: probe -w exits 1" 1 "$rc"
	check_eq "faults: probe -w finds lab-c blocked" roce_blocked \
		"$(jq -r '.findings[] | select(.kind == "blocked_node" and .node == "lab-c") | .cause' faults-probe.json)"
	check_eq "faults: probe -w names no other node but lab-b" "" \
		"$(jq -r '.findings[] | select(.failure and (.kind | test("_(node|rail)$")) and
			(.node | IN("lab-c", "lab-b") | not)) | .node' faults-probe.json)"
	# A two-rank collective that takes three times what the healthy
	# four-rank one took (a minute at least) has hung: the job-setting
	# round below, where one may, waits no longer (COLL_S stays for the
	# jobs expected to run).
	hung_s=$((3 * $(<healthy-mpirun.secs)))
	((hung_s >= 60)) || hung_s=60
	# The fault round's failing jobs spin on both their CPUs until they
	# are ended: lab-c's and lab-d's, which the doctor fails, are ended
	# once each has shown why it cannot run, not only that it did not
	# end: lab-c's firewall dropped its RoCE packets (every one of which
	# it drops: lab-c says so), lab-d's registrations were refused
	# (checked again below).  They were ended at twice the healthy job's
	# time (38 s of a quiet run's round), spinning until then; each has
	# shown its reason well before.  Twice the healthy four-rank job's
	# time (half a minute at least) stays the guard.  lab-b's, whose
	# fault is a warning, has COLL_S as every job expected to run.
	#
	# One after the other, lab-c's first (lab-c waits a minute for its
	# drops): side by side, the three jobs' ranks on lab-a shared its one
	# CPU, each spinning while it waited for the others' turn, and the
	# round took 29 to 42 s a job in a make check (the jobs of the
	# setting round below, one at a time: 9 to 16 s).
	fault_s=$((2 * $(<healthy-mpirun.secs)))
	((fault_s >= 30)) || fault_s=30
	c_shown() { lab_has fault-c-dropping && echo "lab-c's firewall dropped its RoCE packets"; }
	d_shown() {
		grep -q 'ibv_reg_mr.*failed: Cannot allocate memory' "$1.out" &&
			echo "lab-d refused its registrations (memlock)"
	}
	declare -A shown=([b]='' [c]=c_shown [d]=d_shown)
	lab_put fault-jobs 1
	drops0=$(lab_get fault-c-drops0 60)
	for n in c d b; do
		limit=$fault_s
		[[ $n == b ]] && limit=$COLL_S
		collective "fault-$n" "lab-a,lab-$n" $limit "${shown[$n]}" >"fault-$n.outcome"
		no_mpi_left "fault-$n"
	done
	lab_put fault-jobs-done 1
	drops=$(lab_get fault-c-drops 60)
	echo "lab-c's firewall dropped $((drops - drops0)) RoCE packets during the fault round"
	check_eq "lab-c: the collective's RoCE packets dropped (firewall)" yes \
		"$(((drops > drops0)) && echo yes)"
	check_eq "lab-d: the collective's registrations refused (memlock)" yes \
		"$(grep -q 'ibv_reg_mr.*failed: Cannot allocate memory' fault-d.out && echo yes)"
	no_mpi_left faults
	step=$SECONDS
	for n in b c d; do
		fix "lab-$n" faults || fail "no fix printed for lab-$n"
	done
	echo "fixes: took $((SECONDS - step)) s"
	# Every node fixed: one four-rank collective holds each fix (it
	# connects every pair; three two-rank ones side by side took lab-a's
	# one CPU twice as long).
	collective fixed "$LAB_NODES" >fixed.outcome
	for n in b c d; do cp fixed.outcome "fixed-$n.outcome"; done
	no_mpi_left fixed
	row "lab-b MTU 1500" "$(verdict faults lab-b)" "$(<fault-b.outcome)" "$(<fixed-b.outcome)"
	row "lab-c UDP 4791 dropped" "$(verdict faults lab-c)" "$(<fault-c.outcome)" "$(<fixed-c.outcome)"
	row "lab-d memlock 64 KiB" "$(verdict faults lab-d)" "$(<fault-d.outcome)" "$(<fixed-d.outcome)"
	for n in b c d; do
		agrees "lab-$n" "$(verdict faults lab-$n)" "$(<fault-$n.outcome)"
		check_eq "lab-$n: the collective runs after the doctor's fix" passed "$(<fixed-$n.outcome)"
	done
	check_eq "the doctor fails only nodes whose collective fails" \
		"\"$(for n in b c d; do [[ $(<fault-$n.outcome) == passed ]] || printf 'lab-%s,' $n; done | sed 's/,$//')\"" \
		"$(jq -c '.summary.failed_nodes' faults.json)"
fi
if [[ $LAB_NODE == c ]]; then
	# What lab-c's firewall drops while lab-a's fault round runs (only
	# lab-c's own job sends it RoCE then).
	lab_get fault-jobs 600 >/dev/null
	drops0=$(lab_roce_drops)
	lab_put fault-c-drops0 "$drops0"
	# Said as soon as the firewall drops the job's packets: lab-a ends the
	# job then.
	dropping() { (($(lab_roce_drops) > drops0)); }
	lab__await "lab-c's firewall dropping the fault round's RoCE" 60 dropping &&
		lab_put fault-c-dropping 1
	lab_get fault-jobs-done 600 >/dev/null
	lab_put fault-c-drops "$(lab_roce_drops)"
fi
lab_barrier fixed-done 600
[[ $LAB_NODE == a ]] && echo "== fixed-done at $SECONDS s"

# ---- 3. faults of the job's own setting, one a node, run one after the
# other (Slurm gives each guest one CPU):
#
#   lab-b  UCX_NET_DEVICES=mlx_1 in its job environment (the notes' typo)
#   lab-c  UCX_IB_GID_INDEX=0 in its job environment (the link-local GID)
#   lab-d  new TCP connections to the ephemeral range dropped on eth0, its
#          RoCE netdev, while established ones and UDP 4791 pass: where
#          NCCL's bootstrap and mpirun's daemons listen
#   lab-b  no IPv4 address on eth1 (rxe1 has its link-local GID only), the
#          job on rail 1 (UCX_NET_DEVICES=rxe1:1)
#
# A node's job environment is what its TaskProlog gives the tasks of srun
# (here /run/lab/task.env, as a site's prolog would), so lab-b and lab-c
# run under srun; lab-d and rail 1 under mpirun.
case $LAB_NODE in
b)
	echo 'export UCX_NET_DEVICES=mlx_1' >/run/lab/task.env
	ip addr del "$(lab_ip b 1)/24" dev eth1
	lab__await "no IPv4 GID on rxe1" 30 bash -c '! cat /sys/class/infiniband/rxe1/ports/1/gids/* | grep -q :ffff:'
	;;
c) echo 'export UCX_IB_GID_INDEX=0' >/run/lab/task.env ;;
d)
	nft -f - <<-'EOF'
		table inet bootfw {
			chain in {
				type filter hook input priority filter; policy accept;
				ct state established,related accept
				iifname "eth0" tcp dport 32768-60999 drop
			}
		}
	EOF
	;;
esac
lab_barrier env-set 120
[[ $LAB_NODE == a ]] && echo "== env-set at $SECONDS s"
if [[ $LAB_NODE == a ]]; then
	doctor setting
	# The job environment's faults under srun (the TaskProlog's), the
	# firewall under mpirun (its daemons' own connections).
	for n in b c; do
		scollective "setting-$n" "lab-a,lab-$n" $hung_s >"setting-$n.outcome"
		no_mpi_left "setting-$n"
	done
	collective setting-d lab-a,lab-d $hung_s >setting-d.outcome
	no_mpi_left setting-d
	UCX_NET_DEVICES=rxe1:1 collective setting-ip lab-a,lab-b $hung_s >setting-ip.outcome
	no_mpi_left setting-ip
	for n in b c d; do
		fix "lab-$n" setting || fail "no fix printed for lab-$n (setting)"
	done
	# lab-b's and lab-c's job environments fixed: one srun job on both
	# (and lab-a) holds the two fixes.
	scollective set-bc lab-a,lab-b,lab-c $COLL_S >set-bc.outcome
	cp set-bc.outcome set-b.outcome && cp set-bc.outcome set-c.outcome
	no_mpi_left set-bc
	# lab-d's firewall and lab-b's rail 1 fixed: one mpirun job on rail 1
	# across both (and lab-a) holds the two fixes (mpirun's daemons
	# connect over eth0 whichever rail the ranks use).
	UCX_NET_DEVICES=rxe1:1 collective set-dip lab-a,lab-b,lab-d >set-dip.outcome
	cp set-dip.outcome set-d.outcome && cp set-dip.outcome set-ip.outcome
	no_mpi_left set-dip
	# lab-b has two faults here: each row holds the checks of its own.
	declare -A node=([b]=lab-b [c]=lab-c [d]=lab-d [ip]=lab-b) ids=([b]=^env [c]=. [d]=. [ip]=^roce)
	row "lab-b UCX_NET_DEVICES=mlx_1" "$(verdict setting lab-b "${ids[b]}")" "$(<setting-b.outcome)" \
		"$(<set-b.outcome)"
	row "lab-c UCX_IB_GID_INDEX=0" "$(verdict setting lab-c)" "$(<setting-c.outcome)" "$(<set-c.outcome)"
	row "lab-d bootstrap ports dropped" "$(verdict setting lab-d)" "$(<setting-d.outcome)" "$(<set-d.outcome)"
	row "lab-b no IPv4 on eth1" "$(verdict setting lab-b "${ids[ip]}")" "$(<setting-ip.outcome)" \
		"$(<set-ip.outcome)"
	for n in b c d ip; do
		agrees "${node[$n]} ($n)" "$(verdict setting "${node[$n]}" "${ids[$n]}")" "$(<setting-$n.outcome)"
		check_eq "${node[$n]} ($n): the collective runs after the doctor's fix" passed "$(<set-$n.outcome)"
	done
fi
lab_barrier setting-done 900
[[ $LAB_NODE == a ]] && echo "== setting-done at $SECONDS s"
rm -f /run/lab/task.env
nft delete table inet bootfw 2>/dev/null || true
[[ $LAB_NODE == b ]] && ip addr replace "$(lab_ip b 1)/24" dev eth1

# ---- 4. lab-d's GID table in another order (UCX issue 7785): its IPv4
# address went away and came back after an IPv6 one, so its IPv4 entry is
# index 2 where the others have it at 1.  One UCX_IB_GID_INDEX=1 for the
# job is IPv4 on three nodes and IPv6 (fd99::4) on lab-d.  The doctor,
# given the job's environment as srun passes it, and the collective are
# held against each other (the collective fails in ibv_create_ah, IPv6 to
# IPv4; the doctor fails lab-d's index); then contrib/slurm's TaskProlog,
# run by Slurm, gives every node its own value from rdmactl env and the
# collective runs (tests/lab/README.md, Collectives).
gid_at() { cat "/sys/class/infiniband/rxe0/ports/1/gids/$1"; }
if [[ $LAB_NODE == d ]]; then
	ip addr del "$LAB_IP/24" dev eth0 && ip -6 addr add fd99::4/64 dev eth0 nodad &&
		ip addr add "$LAB_IP/24" dev eth0 || fail "could not reorder lab-d's addresses"
	lab__await "lab-d's IPv4 GID at index 2" 30 bash -c \
		"grep -q ':ffff:0a63:0004\$' /sys/class/infiniband/rxe0/ports/1/gids/2"
	echo "lab-d GID 1 $(gid_at 1), GID 2 $(gid_at 2)"
fi
# Slurm's TaskProlog on every node (a copy the jobs' user can read, as
# rdmactl above); RDMACTL_ENV_FOR=none turns it off.
install -m 755 "$LAB_SRC/contrib/slurm/rdmactl-taskprolog" /run/lab/taskprolog
lab_barrier order-set 120
[[ $LAB_NODE == a ]] && echo "== order-set at $SECONDS s"
if [[ $LAB_NODE == a ]]; then
	# The job's environment, the TaskProlog off (its srun tasks would get
	# each node's own values).
	UCX_IB_GID_INDEX=1 RDMACTL_ENV_FOR=none doctor order
	# srun passes the caller's environment to the tasks (--export=ALL).
	rc=$(UCX_IB_GID_INDEX=1 RDMACTL_ENV_FOR=none srun_job order-one $hung_s -N2 -w lab-a,lab-d \
		$COLL $COLL_MAX 1)
	one=$(outcome order-one "$rc" "$hung_s")
	no_mpi_left order-one
	# The fix: each node's own values, through the TaskProlog (rdmactl env),
	# for rail 0's port, which the job's UCX_NET_DEVICES names (env keeps
	# the job's own list and fills in the index; both rails, whose indexes
	# differ on lab-d, are section 5's).
	rc=$(RDMACTL_BIN=$BIN RDMACTL_ENV_FOR=ucx RDMACTL_ENV_DEVICES=rxe0/1 srun_job order-env $COLL_S \
		-N2 -w lab-a,lab-d \
		sh -c 'echo "$(hostname): UCX_IB_GID_INDEX=$UCX_IB_GID_INDEX"; exec "$@"' sh $COLL $COLL_MAX 1)
	no_mpi_left order-env
	v=$(verdict order lab-d)
	# What the doctor says of the cluster: lab-d's routable GID is at
	# another index than the others', set the variables per node.
	check_eq "gid order: the drift names lab-d's GID index" "lab-d per node" \
		"$(jq -r '.drift[] | select(.fact == "gid_index") | "\(.differs[0].nodes) \(.fix | if test("per node") then "per node" else . end)"' order.json)"
	agrees "gid order, one index: lab-d" "$v" "$one"
	check_eq "gid order: each node's index from the TaskProlog" "lab-a: UCX_IB_GID_INDEX=1 lab-d: UCX_IB_GID_INDEX=2" \
		"$(grep -o '^lab-[ad]: UCX_IB_GID_INDEX=[0-9]*' order-env.out | sort | xargs)"
	env_out=$(outcome order-env "$rc" $COLL_S)
	check_eq "gid order: the collective runs with the TaskProlog's values" passed "$env_out"
	row "lab-d GID order, one index" "$v; drift gid_index" "$one" \
		"$env_out (rdmactl env in TaskProlog)"
fi
lab_barrier order-done 600
[[ $LAB_NODE == a ]] && echo "== order-done at $SECONDS s"
if [[ $LAB_NODE == d ]]; then
	# Back to the order the other tests know: IPv4 at index 1.
	ip addr del "$LAB_IP/24" dev eth0 && ip -6 addr del fd99::4/64 dev eth0 &&
		ip addr add "$LAB_IP/24" dev eth0 || fail "could not restore lab-d's addresses"
	lab__await "lab-d's IPv4 GID back at index 1" 30 bash -c \
		"grep -q ':ffff:0a63:0004\$' /sys/class/infiniband/rxe0/ports/1/gids/1"
fi

# ---- 5. two rails, lab-d's second rail ordered otherwise: its eth1 got
# an IPv6 address (fd99:1::4) before its IPv4 one, so rxe1's IPv4 entry is
# index 2 where rxe0's, and every other node's on both rails, is 1.  No
# one UCX_IB_GID_INDEX is right on lab-d; rdmactl env leaves it out there
# (UCX 1.7 and later pick each port's RoCE v2 IPv4 entry themselves) and
# names both rails in UCX_NET_DEVICES.  Held: the doctor passes lab-d and
# MPI_Allreduce runs over both rails with each node's own lines, through
# the TaskProlog under srun and through the wrapper of rdmactl-env(8)
# under mpirun; one UCX_IB_GID_INDEX=1 forced for the whole job fails the
# collective and the doctor fails lab-d; the TaskProlog, given that
# forced index, stops the job with the doctor's reason.  The rails are
# two subnets: UCX_IB_ROCE_LOCAL_SUBNET=y keeps UCX from pairing rxe0 of
# one node with rxe1 of another (UCX 1.13 assumes every RoCE v2 address
# reachable from any port otherwise).
RAILS_START=$SECONDS
if [[ $LAB_NODE == d ]]; then
	ip addr del "$LAB_IP1/24" dev eth1 && ip -6 addr add fd99:1::4/64 dev eth1 nodad &&
		ip addr add "$LAB_IP1/24" dev eth1 || fail "could not reorder lab-d's eth1 addresses"
	lab__await "lab-d's rail-1 IPv4 GID at index 2" 30 bash -c \
		"grep -q ':ffff:0a63:0104\$' /sys/class/infiniband/rxe1/ports/1/gids/2"
	echo "lab-d rxe1 GID 1 $(cat /sys/class/infiniband/rxe1/ports/1/gids/1), GID 2 $(cat /sys/class/infiniband/rxe1/ports/1/gids/2)"
	# What a job that names no devices of its own gets here.
	env -u UCX_NET_DEVICES "$BIN" -v env --for mpi 2>&1 | sed 's/^/lab-d rdmactl env --for mpi: /'
fi
# The wrapper of rdmactl-env(8): env's status ends the rank on a refusal.
# shellcheck disable=SC2016 # the wrapper's own text
printf '#!/bin/sh\nvars=$(%s env --for mpi) && eval "$vars" && exec "$@"\n' "$BIN" >/run/lab/mpi/envrun
chmod 755 /run/lab/mpi/envrun
lab_barrier rails-set 120
[[ $LAB_NODE == a ]] && echo "== rails-set at $SECONDS s"
if [[ $LAB_NODE == a ]]; then
	# rails_doctor NAME: the doctor of the GID and env checks for Open MPI
	# jobs, given the job's environment as it stands (its srun steps are
	# tasks too: the TaskProlog off, or it would judge them first).
	rails_doctor() {
		local start=$SECONDS
		RDMACTL_ENV_FOR=none lab_timeout 300 "$RDMACTL" -j doctor -w "$LAB_NODES" --launcher srun \
			--rdmactl "$BIN" --for mpi --only roce,env >"$1.json" 2>"$1.err" || true
		sed "s/^/$1 stderr: /" "$1.err"
		jq -r '.checks[] | "\(.status) \(.id) \(.nodes // ""): \(.found)"' "$1.json" | sed "s/^/$1: /"
		echo "$1: doctor -w took $((SECONDS - start)) s"
	}
	# rxe_pkts DEV: packets lab-a's rxe DEV sent.
	rxe_pkts() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts"; }
	(
		unset UCX_NET_DEVICES UCX_IB_GID_INDEX
		export UCX_IB_ROCE_LOCAL_SUBNET=y
		rails_doctor rails-env
		# Each node's lines from the TaskProlog (srun), then from the wrapper (mpirun).
		p0=$(rxe_pkts rxe0) p1=$(rxe_pkts rxe1)
		# shellcheck disable=SC2016 # expanded by the task's shell
		rc=$(RDMACTL_BIN=$BIN RDMACTL_ENV_FOR=mpi srun_job rails-srun $COLL_S -N2 -w lab-a,lab-d \
			sh -c 'echo "$(hostname): UCX_NET_DEVICES=$UCX_NET_DEVICES UCX_IB_GID_INDEX=${UCX_IB_GID_INDEX-unset}"; exec "$@"' \
			sh $COLL $COLL_MAX 1)
		outcome rails-srun "$rc" $COLL_S >rails-srun.outcome
		echo "$(($(rxe_pkts rxe0) - p0)) $(($(rxe_pkts rxe1) - p1))" >rails-srun.pkts
		no_mpi_left rails-srun
		rc=0 start=$SECONDS
		as_job timeout -k 5 $COLL_S mpirun -H lab-a,lab-d -np 2 --mca pml ucx \
			-x UCX_TLS -x UCX_IB_ROCE_LOCAL_SUBNET -x UCX_UD_VERBS_ETH_DGID_CHECK \
			/run/lab/mpi/envrun $COLL $COLL_MAX 1 >rails-mpirun.out 2>&1 || rc=$?
		sed "s/^/rails-mpirun: /" rails-mpirun.out >&2
		echo "rails-mpirun: exit $rc in $((SECONDS - start)) s" >&2
		outcome rails-mpirun "$rc" $COLL_S >rails-mpirun.outcome
		no_mpi_left rails-mpirun
		# One index for the whole job: the TaskProlog off, then on.
		export UCX_NET_DEVICES=rxe0:1,rxe1:1 UCX_IB_GID_INDEX=1
		rails_doctor rails-one
		p0=$(rxe_pkts rxe0) p1=$(rxe_pkts rxe1)
		rc=$(RDMACTL_ENV_FOR=none srun_job rails-one "$hung_s" -N2 -w lab-a,lab-d $COLL $COLL_MAX 1)
		outcome rails-one "$rc" "$hung_s" >rails-one.outcome
		echo "$(($(rxe_pkts rxe0) - p0)) $(($(rxe_pkts rxe1) - p1))" >rails-one.pkts
		# UCX leaves out a lane whose GIDs are of two families (rxe1's
		# IPv6 entry on lab-d against IPv4 elsewhere): the job asked for
		# both rails and ran on one.
		read -r d0 d1 <rails-one.pkts
		if [[ $(<rails-one.outcome) == passed ]] && ((d1 == 0)); then
			echo "ran on rail 0 only (lab-a's rxe1 sent no packet)" >rails-one.outcome
		fi
		no_mpi_left rails-one
		rc=$(RDMACTL_BIN=$BIN RDMACTL_ENV_FOR=mpi srun_job rails-refused 60 -K1 -N2 -w lab-a,lab-d \
			$COLL $COLL_MAX 1)
		echo "$rc" >rails-refused.rc
		no_mpi_left rails-refused
	)
	echo "lab-a rxe0, rxe1 packets sent during the TaskProlog's collective: $(<rails-srun.pkts)," \
		"during the one-index one: $(<rails-one.pkts)"
	for n in rails-env rails-one; do
		cp "$n.json" "$LAB_SHARE/doctor-$n.json"
		check_eq "$n: the doctor reached lab-d" yes "$(json_one '.nodes["lab-d"]' <"$n.json" && echo yes)"
	done
	sed 's/^/TASKPROLOG REFUSAL: /' rails-refused.out
	env_v=$(verdict rails-env lab-d)
	one_v=$(verdict rails-one lab-d)
	check_eq "rails: the doctor passes lab-d with no index set" ok "$env_v"
	check_eq "rails: the doctor says UCX finds each port's entry on lab-d" yes \
		"$(jq -r '.nodes["lab-d"].checks[] | select(.id == "roce.gid") | .found' \
			rails-env.json | grep -q "rxe0/1 and rxe1/1 need GID indexes 1 and 2: no UCX_IB_GID_INDEX, UCX 1.7 and later pick each port's entry themselves" && echo yes)"
	check_eq "rails: each node's lines from the TaskProlog" \
		"lab-a: UCX_NET_DEVICES=rxe0:1,rxe1:1 UCX_IB_GID_INDEX=1 lab-d: UCX_NET_DEVICES=rxe0:1,rxe1:1 UCX_IB_GID_INDEX=unset" \
		"$(grep -o '^lab-[ad]: UCX_NET_DEVICES=.*' rails-srun.out | sort | xargs)"
	check_eq "rails: allreduce over both rails with the TaskProlog's lines (srun)" passed "$(<rails-srun.outcome)"
	read -r d0 d1 <rails-srun.pkts
	check_eq "rails: both of lab-a's rails carried the collective" yes "$( ((d0 > 0 && d1 > 0)) && echo yes)"
	check_eq "rails: allreduce over both rails with the wrapper's lines (mpirun)" passed "$(<rails-mpirun.outcome)"
	agrees "rails, no index: lab-d" "$env_v" "$(<rails-srun.outcome)"
	agrees "rails, one index: lab-d" "$one_v" "$(<rails-one.outcome)"
	check_eq "rails: the doctor fails lab-d's forced index" "FAIL env.ucx" "$one_v"
	check_eq "rails: the TaskProlog stops the job with one index forced" yes \
		"$(grep -q "rdmactl-taskprolog: rdmactl env: Failed to keep the job's UCX variables: .*UCX_IB_GID_INDEX=1: rxe1/1 GID 1 is IPv6" rails-refused.out &&
			grep -q 'the task is stopped' rails-refused.out && [[ $(<rails-refused.rc) != 0 ]] && echo yes)"
	row "lab-d rail 1 GID order" "$env_v; one index: $one_v" "$(<rails-one.outcome)" \
		"$(<rails-srun.outcome) (both rails; rdmactl env in TaskProlog and mpirun wrapper)"
	echo "rails: section took $((SECONDS - RAILS_START)) s"
	echo "TABLE $(printf '%-24s | %-24s | %-40s | %s' scenario doctor collective 'after the fix')"
	for k in healthy "lab-b MTU 1500" "lab-c UDP 4791 dropped" "lab-d memlock 64 KiB" "lab-b UCX_NET_DEVICES=mlx_1" \
		"lab-c UCX_IB_GID_INDEX=0" "lab-d bootstrap ports dropped" "lab-b no IPv4 on eth1" \
		"lab-d GID order, one index" "lab-d rail 1 GID order"; do
		echo "TABLE ${TABLE[$k]}"
	done
fi
lab_barrier all-done 600
[[ $LAB_NODE == a ]] && echo "== all-done at $SECONDS s"
rm -f /run/lab/taskprolog
if [[ $LAB_NODE == d ]]; then
	ip addr del "$LAB_IP1/24" dev eth1 && ip -6 addr del fd99:1::4/64 dev eth1 &&
		ip addr add "$LAB_IP1/24" dev eth1 || fail "could not restore lab-d's eth1 addresses"
	lab__await "lab-d's rail-1 IPv4 GID back at index 1" 30 bash -c \
		"grep -q ':ffff:0a63:0104\$' /sys/class/infiniband/rxe1/ports/1/gids/1"
fi
nft delete table inet rocefw 2>/dev/null || true
# The fixes' ssh connections.
[[ $LAB_NODE == a ]] && for n in b c d; do fssh -O exit "lab-$n" 2>/dev/null; done
umount /etc/security /etc/systemd
sed -i '/^job:/d' /run/lab/passwd
rm -rf "$JOB_HOME" "$BIN" /run/lab/mpi
