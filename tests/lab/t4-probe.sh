#!/bin/bash
# `rdmactl probe -w` on four guests: every pair measured, and the report
# names exactly the nodes that were made wrong, under srun and ssh:
#
#   lab-b  RoCE v2 (UDP 4791) dropped by nftables: a blocked node
#   lab-c  loses 3% of the RoCE packets it receives and sends (a bad cable):
#          its links are many times slower, a slow node
#   lab-a, lab-d and their link: fine
#
# The triage pattern names the same nodes as pairs (srun's run) under ssh,
# in the run whose text report is read (its JSON saved with --save).
# Then, on both rails, lab-d loses RoCE packets on eth1 alone: only
# lab-d's second rail is named, by pairs and by triage.  (The loss is
# nftables' random drop, as in t-probe-loss; a queueing shaper such as tc's tbf would be closer to
# a slow port but panics the guests' kernel: see the lab's module list.)  Then lab-d drops off the network in the middle of a
# triage run (cut off, as when it is powered off): it is named
# as down and the run still ends with its report.  pdsh and clush start a short run each.
# After every run, no rdmactl is left on any guest.
#
# The emulated guests' rates vary by a quarter from run to run, so the
# runs here call a link slow below half the median (--slow 0.5): the lossy
# links are many times slower, the noise is not (the launchers' quick
# runs, every link healthy, 0.3: see there).
# Four guests however many the lab has (make check's first lab boots a
# fifth for t4-topology, idle meanwhile).
# lab-guests: 4
# lab-needs: ssh slurm ps
# lab-timeout: 1100
# lab-nice: -5

lab_need_guests 4
# The probe's ACK timeout at this pace, for the agents too (srun passes
# the environment on, ssh as the lab's configuration says): at half pace
# a healthy link's writes sent again after 67 ms made it look slow one
# way ("asymmetric ... (rxe0/1 counted 6 retransmissions)", exit 1).
# Each lossy link loses as many packets, and each loss waits longer: the
# faults still look as slow, or slower.  (Set after the first barrier,
# where every guest's pace is known.)
BIN=/run/lab/bin/rdmactl
mkdir -p /run/lab/bin && ln -sf "$RDMACTL" "$BIN"
# 5 round trips for the latency, whose findings are warnings no check
# here reads (the lab's take 30 to 90 ms each: 20 of them took each step
# a second at half pace, 25 steps in all).  --timeout 5
# is what the runs are tested with, not a guard against a hang: each
# write to a blocked node waits it out (at 5 s stretched by the guests'
# pace, t4-probe took 406 s, not 210).
COMMON=(--rdmactl "$BIN" --slow 0.5 -D 1 --timeout 5 --lat-iters 5)

# leftovers WHAT: no rdmactl on any guest within 3 s of a run's end.
leftovers() { lab_none_left "$1" 3 rdmactl; }

# findings FILE: "kind node[ rail]" a line, sorted, of the failures.
findings() {
	jq -r '.findings[] | select(.failure) |
		"\(.kind) \(.node)\(if .rail != null and .rail != "all" then " rail \(.rail)" else "" end)"' \
		"$1" | sort -u
}

# measured FILE [ROUND]: how many links (writer, reader, rail) of rounds
# ROUND and later (0, the default: every one) were measured ok. A link
# measured again is one link.  Retest steps are round 0: on a busy host a
# healthy link can look slow in its step and its ends be retested against
# a good node, which are other links (seen: quick's 4 links and 4 more
# from 2 retest steps, exit 0); ROUND 1 counts the schedule's alone.
measured() {
	jq --argjson r "${2:-0}" '[.links[] | select(.ok and .round >= $r) | [.client, .server, .rail]] | unique | length' "$1"
}

# run NAME ARGS...: the cluster probe from lab-a, its JSON in NAME.json
# (ARGS after COMMON: an option of its own wins).
run() {
	local name=$1 rc=0 start=$SECONDS
	shift
	lab_timeout 900 "$RDMACTL" -j probe "${COMMON[@]}" "$@" >"$name.json" 2>"$name.err" || rc=$?
	# Kept with the run's logs (share/NN-t4-probe/): what rdmactl report draws.
	cp "$name.json" "$LAB_SHARE/probe-$name.json"
	sed "s/^/$name stderr: /" "$name.err"
	jq -r '.findings[]? | "\(.kind): \(.text)"' "$name.json" | sed "s/^/$name: /"
	jq -c '.run' "$name.json" | sed "s/^/$name: /"
	echo "$name: exit $rc in $((SECONDS - start)) s"
	RC=$rc
}

# lossy NETDEV: drop 3% of the RoCE packets this guest receives and sends on
# NETDEV (t-probe-loss found 3% on the receiver costs a link about 95% of
# its rate: every loss waits for rxe's ACK timeout).
lossy() {
	nft add table inet lossy
	nft add chain inet lossy in '{ type filter hook input priority 0; policy accept; }'
	nft add chain inet lossy out '{ type filter hook output priority 0; policy accept; }'
	nft add rule inet lossy in iifname "$1" udp dport 4791 numgen random mod 100 lt 3 counter drop
	nft add rule inet lossy out oifname "$1" udp dport 4791 numgen random mod 100 lt 3 counter drop
}

# ---- 1. the faults: lab-b blocked, lab-c lossy on eth0
case $LAB_NODE in
b)
	lab_block_roce
	;;
c) lossy eth0 ;;
esac
lab_barrier faults-set 120
lab_ack_timeout
[[ $LAB_NODE == a ]] && echo "RDMACTL_PROBE_ACK_TIMEOUT=$RDMACTL_PROBE_ACK_TIMEOUT"

if [[ $LAB_NODE == a ]]; then
	run faults-srun -w "$LAB_NODES" --launcher srun --rails 1
	check_eq "srun: exit status" 1 "$RC"
	check_eq "srun: findings" "$(printf 'blocked_node lab-b\nslow_node lab-c')" "$(findings faults-srun.json)"
	check_eq "srun: lab-b's cause" roce_blocked \
		"$(jq -r '.findings[] | select(.kind == "blocked_node") | .cause' faults-srun.json)"
	# Both ways, each counted once (a retest measures a link again).
	check_eq "srun: the lab-a/lab-d link measured both ways" 2 \
		"$(jq '[.links[] | select(.ok and ((.client == "lab-a" and .server == "lab-d") or
			(.client == "lab-d" and .server == "lab-a"))) | .client] | unique | length' faults-srun.json)"
	check_eq "srun: four nodes joined" 4 "$(jq .run.joined faults-srun.json)"
	leftovers srun
	# ssh and the triage pattern in one run: the text report on stdout,
	# the -j document saved beside it (--save).  The same two findings,
	# the fine link in the matrix; triage names the same nodes as pairs.
	# At four nodes its strides 1, 2 and 3 cover every link: three steps
	# instead of six, in which every node writes and receives at once.
	rc=0 start=$SECONDS
	"$RDMACTL" probe -w "$LAB_NODES" --launcher ssh --rails 1 --pattern triage \
		--save faults-triage.json "${COMMON[@]}" >text.out 2>&1 || rc=$?
	cat text.out
	echo "faults-triage: exit $rc in $((SECONDS - start)) s"
	cp faults-triage.json "$LAB_SHARE/probe-faults-triage.json"
	check_eq "ssh: exit status" 1 "$rc"
	check_eq "ssh: findings" "$(printf 'lab-b: every link to or from it failed\nlab-c is slow')" \
		"$(sed -n 's/^  FAIL  \(lab-b: every link to or from it failed\|lab-c is slow\).*/\1/p' text.out | sort)"
	check_eq "ssh: two findings" 2 "$(grep -c '^  FAIL  ' text.out)"
	grep -qE '^lab-a +- +FAIL +[0-9.e-]+ +[0-9.e-]+$' text.out || fail "ssh: lab-a's row of the matrix"
	grep -qE '^lab-d +[0-9.e-]+ +FAIL +[0-9.e-]+ +-$' text.out || fail "ssh: lab-d's row of the matrix"
	grep -q '^4 of 4 nodes joined in .* through ssh; 3 round(s)' text.out || fail "ssh: the run's line"
	check_eq "triage: the saved document is the whole run" "true null" \
		"$(jq -r '"\(.run.complete) \(.run.stopped)"' faults-triage.json)"
	check_eq "triage: the nodes pairs names" "$(findings faults-srun.json | grep -E '_node ')" \
		"$(findings faults-triage.json | grep -E '_node ')"
	check_eq "triage: lab-b's cause" roce_blocked \
		"$(jq -r '.findings[] | select(.kind == "blocked_node") | .cause' faults-triage.json)"
	check_eq "triage: three steps" "triage 3" "$(jq -r '"\(.run.pattern) \(.run.steps)"' faults-triage.json)"
	check_eq "triage: no link left untested" 0 "$(jq .summary.untested faults-triage.json)"
	leftovers ssh-triage
fi
lab_barrier faults-done 1200
nft delete table inet rocefw 2>/dev/null || true
nft delete table inet lossy 2>/dev/null || true

# ---- 2. two rails: lab-d lossy on eth1, only its rail 1 named
[[ $LAB_NODE == d ]] && lossy eth1
lab_barrier rail-set 120
if [[ $LAB_NODE == a ]]; then
	# --slow 0.3, as the quick runs: lab-d's rail 1 comes to 3 to 5% of
	# the median, and two healthy links at 44 and 49% were named once.
	run rails -w "$LAB_NODES" --launcher srun --slow 0.3
	check_eq "rails: two rails probed" 2 "$(jq .run.rails rails.json)"
	check_eq "rails: findings" "slow_rail lab-d rail 1" "$(findings rails.json)"
	leftovers rails
	run rails-triage -w "$LAB_NODES" --launcher srun --pattern triage --slow 0.3
	check_eq "rails triage: the nodes and rails pairs names" "$(findings rails.json | grep -E '_(node|rail) ')" \
		"$(findings rails-triage.json | grep -E '_(node|rail) ')"
	leftovers rails-triage
fi
lab_barrier rail-done 600
nft delete table inet lossy 2>/dev/null || true

# ---- 3. lab-d drops off the network mid-run
if [[ $LAB_NODE == d ]]; then
	# The rdmactl the launcher starts on lab-d for this run starts the
	# agent and cuts lab-d off the network once the agent holds a QP, that
	# is, has joined and is in a test: a step into the run every time (a
	# look for the agent's process from here, a second apart, once found
	# it with the run over; a fixed 4 s assumed it had joined).  lab-d stays
	# cut off until the agent has ended on its own, the coordinator silent
	# for it (rdv.h), and the run on lab-a has ended.
	lab_bin_drops_off "$BIN" qp || fail "lab-d's rdmactl that cuts it off"
	lab_put down-armed 1
	lab__await "the run's agent on lab-d" 120 pgrep -f 'probe --agent' >/dev/null
	lab__await "lab-d's agent ending while it is cut off" 120 bash -c '! pgrep -x rdmactl >/dev/null'
	lab__await "the down run's end on lab-a" 900 test -e "$LAB_SHARE/down-ended"
	lab_back_online || fail "lab-d was not cut off"
	ln -sf "$RDMACTL" "$BIN"
fi
if [[ $LAB_NODE == a ]]; then
	lab_get down-armed 120 >/dev/null
	run down -w "$LAB_NODES" --launcher ssh --rails 1 --pattern triage
	check_eq "down: exit status" 1 "$RC"
	# Only nodes are asserted here: with lab-d gone, some steps run one pair
	# and others two, and a healthy link measured beside another can fall
	# under half the median (seen once: lab-b -> lab-c at 39%, a slow_link).
	check_eq "down: the nodes named" "down_node lab-d" "$(findings down.json | grep '_node ')"
	jq -r '.findings[] | select(.kind == "down_node") | .text' down.json | grep -q 'answering\|closed' ||
		fail "down: lab-d's finding does not say it stopped answering"
	: >"$LAB_SHARE/down-ended"
fi
lab_barrier down-done 600
# Its agent ended on its own once the coordinator fell silent (rdv.h).
[[ $LAB_NODE == d ]] && lab__await "no agent left on lab-d" 60 bash -c '! pgrep -x rdmactl >/dev/null'

# ---- 4. pdsh and clush start the agents too; strangers on the rendezvous
# port hold up nothing; a name that does not resolve is a node down, named
# with the launcher's reason, and the rest still run.
if [[ $LAB_NODE == a ]]; then
	# Strangers on the rendezvous port hold up no agent: for as long as the
	# run lasts (a minute at most), 70 silent connections are kept open
	# there (more than the 64 handshakes the coordinator holds at once; it
	# gives each message 3 s).  They wake only when the coordinator
	# closes one (select): looking at all 70 five times a second took
	# lab-a's emulated CPU from its own agent, and at half pace a healthy
	# link into lab-a measured 38% of the other way (an asymmetric
	# finding, exit 1).
	python3 - "$LAB_IP" 18700 strangers.stop >strangers.out 2>&1 <<-'PY' &
		import os, select, socket, sys, time
		socks, made, end = [], 0, time.time() + 60
		while time.time() < end and not os.path.exists(sys.argv[3]):
		    while len(socks) < 70:
		        try:
		            socks.append(socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1))
		            made += 1
		        except OSError:
		            break
		    # Until one is closed or sent to, or a second (the stop file).
		    for s in select.select(socks, [], [], 1)[0]:
		        try:
		            if s.recv(1, socket.MSG_DONTWAIT) != b"":
		                continue
		        except BlockingIOError:
		            continue
		        except OSError:
		            pass
		        socks.remove(s)
		        s.close()
		print("connections made", made)
	PY
	# The quick runs hold the launchers, every link healthy: --slow 0.3,
	# as the host's load can change between the two steps, each of which
	# measures one way (seen: lab-a -> lab-c 0.0498 Gb/s, the other way
	# 0.0996 in the next step, "asymmetric", the quick-pdsh run before it
	# 0.1 to 0.12 every way).  The faults above keep 0.5.
	run quick-pdsh -w "$LAB_NODES" --launcher pdsh --pattern quick --rails 1 --rendezvous "$LAB_IP:18700" \
		--slow 0.3
	: >strangers.stop
	wait
	cat strangers.out
	made=$(sed -n 's/^connections made \([0-9]*\)$/\1/p' strangers.out)
	((${made:-0} >= 70)) || fail "pdsh: the strangers held fewer than 70 connections (${made:-none})"
	check_eq "pdsh: exit status" 0 "$RC"
	check_eq "pdsh: four nodes joined among strangers" 4 "$(jq .run.joined quick-pdsh.json)"
	# The quick schedule's four tests (round 1), as for clush below: the
	# retests a link slowed by the host's load brings are other links
	# (seen: 4 more from 2 retest steps, exit 0, no finding).
	check_eq "pdsh: four links measured" 4 "$(measured quick-pdsh.json 1)"
	leftovers pdsh
	run quick-clush -w "lab-a,lab-b,lab-x,lab-c,lab-d" --launcher clush --pattern quick --rails 1 --slow 0.3
	check_eq "clush: exit status" 1 "$RC"
	check_eq "clush: findings" "down_node lab-x" "$(findings quick-clush.json)"
	jq -r '.findings[] | select(.kind == "down_node") | .text' quick-clush.json | grep -qi 'resolve' ||
		fail "clush: lab-x's finding does not say its name does not resolve"
	# The quick schedule's four tests (round 1); on a loaded host a slow
	# link's ends may be retested against a good node (round 0), which
	# measures more links.
	check_eq "clush: the others' links measured" 4 "$(measured quick-clush.json 1)"
	leftovers clush
fi
lab_barrier launchers-done 600
rm -f "$BIN"
