#!/bin/bash
# `rdmactl doctor -w` on four guests through every launcher: real faults on
# chosen guests, and the report must name exactly those nodes, with the
# same verdicts under srun, pdsh, clush and ssh, and again from pdsh's
# output gathered before (--gathered).
#
#   lab-a  healthy, but its job environment sets NCCL_IB_GID_INDEX=1
#          (sshd's user environment, Slurm's TaskProlog): drift, a warning
#   lab-b  RoCE v2 (UDP 4791) dropped by nftables: the firewall check fails
#   lab-c  eth0 at MTU 1500 where the others run 9000 (eth1 too): a warning,
#          and drift: its netdev MTUs are 1500,9000, the others' 9000
#   lab-d  no rdmactl where the others have it: unreachable, exit 127
#   lab-x  a name that does not resolve: unreachable
# The text report names lab-b as the node --slurm-health --drain would
# drain, and why.  lab-b's health check under slurmd drains it, resumes
# it once fixed, keeps an admin's drain, and leaves it as it was when the
# controller cannot be reached.
# Then lab-c dies in the middle of a run (cut off the network once its doctor
# has started): named as unreachable, the others' verdicts kept.
# The lab's own memlock limits (8 MiB for logins and services) would fail
# every node alike: those checks are left out (--skip, passed to the nodes).
# lab-needs: ssh slurm ps healthcheck
# lab-timeout: 1200

lab_need_guests 4
BIN=/run/lab/bin/rdmactl
HOME_ROOT=$(getent passwd root | cut -d: -f6)


# slurm_hears WHY: slurmd registers with the controller now, and Slurm no
# longer counts this guest not responding, as after the pings it missed
# while cut off.  slurmctld clears the flag when the node answers a ping,
# and pings such a node only every SlurmdTimeout/3 (40 s in the lab; its
# health check passes over it), or when slurmd registers: slurmd's
# reconfigure on SIGHUP sends its registration (Slurm 22.05, slurmd's
# _reconfigure).  It registers whatever the flag says: a ping sent before
# the registration and failed after it no longer sets the flag
# (node_not_resp: the node was heard from since).
slurm_hears() {
	local start=$SECONDS was=responding
	lab_slurm_responding || was="not responding"
	kill -HUP "$(</run/lab/slurm/slurmd.pid)" || return
	# (Not a wait on another guest: no other finishing the test ends it.)
	LAB__FROM="" lab__await "Slurm hearing from lab-$LAB_NODE again" 150 lab_slurm_responding || return
	echo "$1: Slurm counted lab-$LAB_NODE $was; heard from it $((SECONDS - start)) s after its slurmd's SIGHUP"
}

# ---- the faults, each on its guest
case $LAB_NODE in
a)
	echo "NCCL_IB_GID_INDEX=1" >"$HOME_ROOT/.ssh/environment"
	echo "export NCCL_IB_GID_INDEX=1" >/run/lab/task.env
	;;
b)
	lab_block_roce
	;;
c) ;;
esac
[[ $LAB_NODE == c ]] || ip link set eth0 mtu 9000
ip link set eth1 mtu 9000
SKIP=memlock.shell,memlock.login,memlock.systemd
# rdmactl where the nodes' launchers find it, but on lab-d.
if [[ $LAB_NODE != d ]]; then
	mkdir -p /run/lab/bin && ln -sf "$RDMACTL" "$BIN"
fi
lab_barrier faults-set 120

# report LAUNCHER: run the cluster doctor from lab-a and check the verdicts.
report() {
	local l=$1 out rc=0
	out=$(lab_timeout 600 "$RDMACTL" -j doctor -w "$LAB_NODES,lab-x" --launcher "$l" \
		--rdmactl "$BIN" --node-timeout 120 --skip "$SKIP" 2>"$l.err") || rc=$?
	echo "$out" >"$l.json"
	# Kept with the run's logs (share/NN-t4-doctor/): what rdmactl report draws.
	cp "$l.json" "$LAB_SHARE/doctor-$l.json"
	sed "s/^/$l stderr: /" "$l.err"
	check_eq "$l: exit status" 1 "$rc"
	check_eq "$l: failed nodes" '"lab-b"' "$(jq -c .summary.failed_nodes "$l.json")"
	check_eq "$l: warned nodes" '"lab-a,lab-c"' "$(jq -c .summary.warned_nodes "$l.json")"
	check_eq "$l: unreachable nodes" '"lab-d,lab-x"' "$(jq -c .summary.unreachable_nodes "$l.json")"
	check_eq "$l: firewall fails on lab-b" lab-b \
		"$(jq -r '.checks[] | select(.id == "firewall" and (.status | ascii_downcase) == "fail") | .nodes' "$l.json")"
	check_eq "$l: the MTU drift names lab-c" "1500,9000 lab-c" \
		"$(jq -r '.drift[] | select(.fact == "netdev_mtu") | .differs[] | "\(.value) \(.nodes)"' "$l.json")"
	check_eq "$l: the NCCL drift names lab-a" "1 lab-a" \
		"$(jq -r '.drift[] | select(.fact == "env.NCCL_IB_GID_INDEX") | .differs[] |
			select(.nodes == "lab-a") | "\(.value) \(.nodes)"' "$l.json")"
	jq -r '.unreachable[] | "\(.node): \(.error)"' "$l.json" | sed "s/^/$l: /"
	jq -r '.unreachable[] | select(.node == "lab-d") | .error' "$l.json" | grep -q 'not installed' ||
		fail "$l: lab-d's cause does not say rdmactl is missing"
	local why
	[[ $l == srun ]] && why='not a node of this Slurm cluster' || why='resolve'
	jq -r '.unreachable[] | select(.node == "lab-x") | .error' "$l.json" | grep -q "$why" ||
		fail "$l: lab-x's cause does not say '$why'"
}

if [[ $LAB_NODE == a ]]; then
	for l in srun pdsh clush ssh; do
		start=$SECONDS
		report "$l"
		echo "$l: $((SECONDS - start)) s for the cluster doctor"
	done
	# The text report: one line a check, folded, within 100 columns.
	"$RDMACTL" doctor -w "$LAB_NODES" --launcher pdsh --rdmactl "$BIN" --skip "$SKIP" >text.out 2>&1
	cat text.out
	awk 'length > 100 { bad = 1 } END { exit bad }' text.out || fail "text report wider than 100 columns"
	grep -q '^4 nodes: 1 failed, 2 warned, 1 unreachable$' text.out || fail "text summary line"
	# The dry run of a rollout: what --drain would drain, and why.
	grep -q '^lab-b  *rdmactl: firewall: ' text.out || fail "text report: lab-b under WOULD DRAIN"
	# The same verdicts from pdsh's output gathered before.
	pdsh -w "$LAB_NODES,lab-x" "$BIN -j doctor --local --skip $SKIP" >gathered.txt 2>&1
	"$RDMACTL" -j doctor --gathered gathered.txt >gathered.json
	check_eq "gathered: failed nodes" '"lab-b"' "$(jq -c .summary.failed_nodes gathered.json)"
	check_eq "gathered: warned nodes" '"lab-a,lab-c"' "$(jq -c .summary.warned_nodes gathered.json)"
	check_eq "gathered: unreachable nodes" '"lab-d,lab-x"' "$(jq -c .summary.unreachable_nodes gathered.json)"
	# Nothing of rdmactl is left running on any guest.
	lab_none_left reports 3 rdmactl
fi
lab_barrier reports-done 1100

# --slurm-health on the faulty node: its line, then slurmd running it as the
# cluster's HealthCheckProgram (every 10 s in the lab) drains the node.
# Then, as NHC does with its own drains: fixed, the next pass resumes it;
# an admin's drain stays through healthy passes; a controller that cannot
# be reached leaves the node as it was, exit 1.
if [[ $LAB_NODE == b ]]; then
	out=$("$RDMACTL" doctor --slurm-health --skip "$SKIP" 2>&1)
	rc=$?
	echo "$out"
	check_eq "slurm-health exit" 1 "$rc"
	grep -q '^ERROR: rdmactl: firewall: ' <<<"$out" || fail "health line"
	grep -q '^scontrol update nodename=lab-b state=drain reason="rdmactl: firewall: ' <<<"$out" ||
		fail "drain command line"
	check_eq "not drained without --drain" idle "$(sinfo -h -n lab-b -o '%t')"
	# The health check slurmd runs, its lines kept for the log.
	lab_healthcheck "$(printf '#!/bin/sh\n%s doctor --slurm-health --drain --skip %s >>%s 2>&1' \
		"$RDMACTL" "$SKIP" "$PWD/healthcheck.log")"
	drained() { [[ $(sinfo -h -n lab-b -o '%t') == drain* ]]; }
	resumed() { ! drained; }
	lab__await "slurmd's health check drains lab-b" 90 drained || fail "lab-b was not drained"
	lab_healthcheck_stop
	reason=$(sinfo -h -n lab-b -o '%E')
	echo "Reason: $reason"
	[[ $reason == "rdmactl: firewall: "* ]] || fail "drain reason '$reason'"

	# Fixed.  A controller that cannot be reached, for this one call (its
	# slurm.conf names lab-b, where no slurmctld runs): the node stays
	# drained, exit 1, one line that says so.
	nft delete table inet rocefw
	sed -e 's/^SlurmctldHost=.*/SlurmctldHost=lab-b(10.99.0.2)/' \
		-e 's/^MessageTimeout=.*/MessageTimeout=2/' /etc/slurm/slurm.conf >wrong.conf
	rc=0
	SLURM_CONF=$PWD/wrong.conf lab_timeout 60 "$RDMACTL" doctor --slurm-health --drain \
		--skip "$SKIP" >unreached.out 2>unreached.err || rc=$?
	cat unreached.out unreached.err
	check_eq "unreachable controller: exit" 1 "$rc"
	check_eq "unreachable controller: one line" 1 "$(wc -l <unreached.err)"
	[[ $(<unreached.err) == "rdmactl doctor: Failed to read the Slurm state of lab-b: sinfo: "*"; the node is left as it was" ]] ||
		fail "unreachable controller: the line"
	check_eq "unreachable controller: still drained" "drained $reason" \
		"$(sinfo -h -n lab-b -o '%T %E')"
	# The dry run says what the next pass will do, and does not.
	out=$("$RDMACTL" doctor --slurm-health --dry-run --skip "$SKIP" 2>&1)
	rc=$?
	echo "$out"
	check_eq "dry run: exit" 0 "$rc"
	[[ $out == "would resume: scontrol update nodename=lab-b state=resume (drained by rdmactl: 'rdmactl: firewall: "* ]] ||
		fail "dry run: the resume line"
	drained || fail "dry run: lab-b resumed"
	# slurmd's next pass resumes it.
	lab_healthcheck "$(printf '#!/bin/sh\n%s doctor --slurm-health --drain --skip %s >>%s 2>&1' \
		"$RDMACTL" "$SKIP" "$PWD/healthcheck.log")"
	lab__await "slurmd's health check resumes lab-b" 90 resumed || fail "lab-b was not resumed"
	lab_healthcheck_stop
	# Resumed by rdmactl.  Slurm 22.05 counts a drained node it resumes
	# not responding until its slurmd registers again ("idle*";
	# its node manager's update_node, _require_node_reg), and asks for the
	# registration at once (ping_nodes_now): under TCG on a loaded host
	# (pace 666%) it was not yet there when looked at right after.
	start=$SECONDS
	LAB__FROM="" lab__await "Slurm hearing from lab-b after its resume" 60 lab_slurm_responding ||
		fail "Slurm still counts lab-b not responding"
	echo "resumed: Slurm heard from lab-b $((SECONDS - start)) s after"
	check_eq "resumed: state and reason" "idle none" "$(sinfo -h -n lab-b -o '%t %E')"
	# An admin's drain: healthy passes leave it.
	scontrol update nodename=lab-b state=drain reason="lab: admin maintenance"
	for pass in 1 2; do
		out=$("$RDMACTL" doctor --slurm-health --drain --skip "$SKIP" 2>&1)
		rc=$?
		echo "$out"
		check_eq "admin's drain, pass $pass: exit" 0 "$rc"
		check_eq "admin's drain, pass $pass: line" \
			"left drained: its reason 'lab: admin maintenance' is not rdmactl's" "$out"
	done
	check_eq "admin's drain kept" "drained lab: admin maintenance" "$(sinfo -h -n lab-b -o '%T %E')"
	sed 's/^/healthcheck: /' healthcheck.log
	scontrol update nodename=lab-b state=resume
	# lab-b fails again for the rest of the test (the cluster doctor below).
	lab_block_roce
fi
# ---- a node that dies in the middle of the cluster doctor's run: lab-c
# drops off the network (nothing in or out of its links, as when it is
# powered off) once its doctor has started.  It is reported by name, with
# why, after the node timeout; the others' results are kept.  The rdmactl
# the launcher starts there cuts lab-c off itself once the doctor is
# started: a look for the doctor's process from the test raced its
# half-second run.
if [[ $LAB_NODE == c ]]; then
	lab_bin_drops_off "$BIN" 0 || fail "lab-c's rdmactl that cuts it off"
fi
lab_barrier health-done 300

if [[ $LAB_NODE == c ]]; then
	lab__await "the run's end on lab-a" 300 test -e "$LAB_SHARE/dies-ended"
	lab_back_online || fail "lab-c was not cut off"
fi
if [[ $LAB_NODE == a ]]; then
	rc=0 start=$SECONDS
	# (--node-timeout is what the run waits for lab-c, cut off: not
	# stretched by the pace, which would make every run wait longer.)
	lab_timeout 300 "$RDMACTL" -j doctor -w "$LAB_NODES" --launcher pdsh --rdmactl "$BIN" \
		--node-timeout 20 --skip "$SKIP" >dies.json 2>dies.err || rc=$?
	: >"$LAB_SHARE/dies-ended"
	sed 's/^/dies stderr: /' dies.err
	jq -r '.unreachable[] | "dies: \(.node): \(.error)"' dies.json
	echo "dies: exit $rc in $((SECONDS - start)) s"
	check_eq "dies: exit status" 1 "$rc"
	check_eq "dies: unreachable nodes" '"lab-c,lab-d"' "$(jq -c .summary.unreachable_nodes dies.json)"
	jq -r '.unreachable[] | select(.node == "lab-c") | .error' dies.json | grep -qiE 'no answer within 20 s|timeout|timed out' ||
		fail "dies: lab-c's cause does not say it stopped answering"
	# (lab-a's NCCL drift needs a majority: with lab-c gone, one node of two.)
	check_eq "dies: the others' verdicts kept" '"lab-b" lab-a,lab-b' \
		"$(jq -c .summary.failed_nodes dies.json) $(jq -r '.checks[] | select(.id == "devices") | .nodes' dies.json)"
fi
lab_barrier dies-done 300
# Slurm may have counted lab-c not responding while it was cut off
# ("idle*"), and the next test's srun would be refused it until Slurm
# hears from it again: leave Slurm as found.
if [[ $LAB_NODE == c ]]; then
	slurm_hears "back online" || fail "Slurm still counts lab-c not responding"
fi
# Undo what the test changed outside its scratch dir.
rm -f "$HOME_ROOT/.ssh/environment" /run/lab/task.env "$BIN"
nft delete table inet rocefw 2>/dev/null || true
ip link set eth0 mtu 1500
ip link set eth1 mtu 1500
