#!/bin/bash
# probe and doctor are several programs behind flags, their modes.  Given
# to a mode that does not take it, an option of another mode is refused
# before anything runs: exit 2, one line naming the option as typed and
# the mode it belongs to, the same with -j (and in its "error" object).
# A mode chosen without being asked (no PEER, no -w, inside a Slurm
# allocation: the allocation's nodes) says so on its first line.
# --agent, internal, is neither in the usage nor completed, and still works.
source "$(dirname "$0")/lib.sh"
unset SLURM_JOB_NODELIST SLURM_JOB_ID SLURM_STEP_ID RDMACTL_LAUNCHER RDMACTL_TOKEN RDMACTL_NODE
OK=$FIXTURES/doctor-healthy
PORT=$(free_port)
# A build that let a refused option through would run the mode: a bound
# on each run keeps that a failed check, not a stuck test.
run_bounded() {
	RC=0
	timeout 20 "$RDMACTL" "$@" >"$TMPD/out" 2>"$TMPD/err" </dev/null || RC=$?
	OUT=$(cat "$TMPD/out")
	ERR=$(cat "$TMPD/err")
}
export RUNNER=run_bounded
# refused NAME LINE ARGS...: rdmactl ARGS is refused with exactly LINE.
refused() { fails_with "$@"; }

# ---- probe: PEER (client), --server, -w, --agent ----
CLIENT=(probe 127.0.0.1 --port "$PORT" --timeout 1)
SERVER=(probe --server --port "$PORT" --timeout 1)
FLEET=(probe -w 'n[1-2]' --launcher ssh --rendezvous 127.0.0.1 --node-timeout 1)
AGENT=(probe --agent 127.0.0.1:1)
P="rdmactl probe:"
refused client-server-opt 2 "$P Failed to start the client: --once is a server option; give it with --server on the other node" \
	"${CLIENT[@]}" --once
refused client-cluster-opt 2 "$P Failed to use --pattern: it is for a run on many nodes; give -w HOSTLIST too" \
	"${CLIENT[@]}" --pattern ring
refused server-client-opt 2 "$P Failed to start the server: --expect is a client option (the client chooses the test); give it to the client, not with --server" \
	"${SERVER[@]}" --expect 1
refused server-cluster-opt 2 "$P Failed to use --html: it is for a run on many nodes; give -w HOSTLIST too" \
	"${SERVER[@]}" --html "$TMPD/x.html"
refused cluster-client-opt 2 "$P Failed to use --expect with probe -w: it is an option of probe PEER" \
	"${FLEET[@]}" --expect 1
refused cluster-server-opt 2 "$P Failed to use --bind with -w: the nodes' agents serve as the schedule says" \
	"${FLEET[@]}" --bind 127.0.0.1
refused agent-client-opt 2 "$P Failed to use -d with probe --agent: it is an option of probe PEER or probe --server" \
	"${AGENT[@]}" -d rxe0
refused agent-server-opt 2 "$P Failed to use --once with probe --agent: it is an option of probe --server" \
	"${AGENT[@]}" --once
refused agent-cluster-opt 2 "$P Failed to use --exclude with probe --agent: it is an option of probe -w" \
	"${AGENT[@]}" --exclude n1
refused agent-token 2 "$P Failed to use --token with probe --agent: it is an option of probe PEER, probe --server or probe -w" \
	"${AGENT[@]}" --token s3cret
# The first option of another mode is the one named, as it was typed.
refused first-named 2 "$P Failed to start the client: --max-size is a server option; give it with --server on the other node" \
	"${CLIENT[@]}" --max-size=1M --once --bind 127.0.0.1

# ---- doctor: this node, -w, --list, --gathered, --metrics, --slurm-health ----
NODE=(--root "$OK" doctor)
DFLEET=(doctor -w 'n[1-2]' --launcher ssh --node-timeout 1)
echo '{}' >"$TMPD/gathered.json"
D="rdmactl doctor:"
refused node-cluster-opt 2 "$D Failed to use --fanout: it is for a run on many nodes; give -w HOSTLIST too" \
	"${NODE[@]}" --fanout 4
refused node-metrics-opt 2 "$D Failed to use --output without --metrics: the table and JSON go to standard output" \
	"${NODE[@]}" --output "$TMPD/x.prom"
refused node-health-opt 2 "$D Failed to use --drain without --slurm-health, which decides when to drain" \
	"${NODE[@]}" --drain
refused node-dry-run-opt 2 "$D Failed to use --dry-run without --slurm-health, which decides when to drain" \
	"${NODE[@]}" --dry-run
refused cluster-node-opt 2 "$D Failed to use --local with doctor -w: it is an option of doctor, doctor --metrics or doctor --slurm-health" \
	"${DFLEET[@]}" --local
refused cluster-token 2 "$D Failed to use --token with -w: it would show in every node's process list; give the nodes RDMACTL_TOKEN in their environment" \
	"${DFLEET[@]}" --peer 127.0.0.1 --token s3cret
refused cluster-metrics-opt 2 "$D Failed to use -o without --metrics: the table and JSON go to standard output" \
	"${DFLEET[@]}" -o "$TMPD/x.prom"
refused cluster-health-opt 2 "$D Failed to use --drain without --slurm-health, which decides when to drain" \
	"${DFLEET[@]}" --drain
refused list-node-opt 2 "$D Failed to list the checks: --list runs none, so --skip would do nothing; leave one of them out" \
	doctor --list --skip mtu
refused list-cluster-opt 2 "$D Failed to list the checks: --list runs none, so -w would do nothing; leave one of them out" \
	doctor --list -w 'n[1-2]'
refused list-metrics-opt 2 "$D Failed to list the checks: --list runs none, so --metrics would do nothing; leave one of them out" \
	doctor --list --metrics
refused list-health-opt 2 "$D Failed to list the checks: --list runs none, so --slurm-health would do nothing; leave one of them out" \
	doctor --list --slurm-health
refused gathered-node-opt 2 "$D Failed to use --for with --gathered: the documents were made with the options their nodes ran; give --for to rdmactl doctor there" \
	doctor --gathered "$TMPD/gathered.json" --for nccl
refused gathered-cluster-opt 2 "$D Failed to use --launcher with --gathered: one runs the nodes, the other reads what they printed" \
	doctor --gathered "$TMPD/gathered.json" --launcher ssh
refused gathered-list 2 "$D Failed to use --list with --gathered: the documents were made with the options their nodes ran; give --list to rdmactl doctor there" \
	doctor --gathered "$TMPD/gathered.json" --list
refused gathered-metrics-opt 2 "$D Failed to use --metrics with --gathered: the documents were made with the options their nodes ran; give --metrics to rdmactl doctor there" \
	doctor --gathered "$TMPD/gathered.json" --metrics
refused gathered-health-opt 2 "$D Failed to use --drain with --gathered: the documents were made with the options their nodes ran; give --drain to rdmactl doctor there" \
	doctor --gathered "$TMPD/gathered.json" --drain
refused metrics-cluster-opt 2 "$D Failed to use --metrics with --slurm-health, -w, --gathered or --list: it reports this node's checks" \
	"${NODE[@]}" --metrics -w 'n[1-2]'
refused metrics-health-opt 2 "$D Failed to use --metrics with --slurm-health, -w, --gathered or --list: it reports this node's checks" \
	"${NODE[@]}" --metrics --drain
refused health-node-opt 2 "$D Failed to use --slurm-health with --peer: it runs the local checks" \
	"${NODE[@]}" --slurm-health --peer 127.0.0.1
refused health-cluster-opt 2 "$D Failed to use --slurm-health with -w: it checks this node alone" \
	"${NODE[@]}" --slurm-health -w 'n[1-2]'
refused health-metrics-opt 2 "$D Failed to use -o without --metrics: the table and JSON go to standard output" \
	"${NODE[@]}" --slurm-health -o "$TMPD/x.prom"

# ---- --agent: internal, out of sight, still an option ----
run probe --help
check agent-not-in-usage bash -c '! grep -q -- "--agent" <<<"$0" && grep -q -- "--node-timeout" <<<"$0"' "$OUT"
run __complete 2 rdmactl probe --a
check agent-not-completed [ "$OUT" = "" ]
run __complete 2 rdmactl probe --no
check others-completed [ "$OUT" = $'--nodes\n--node-timeout\n--no-retest' ]
run probe --agent 127.0.0.1:1
check agent-still-parsed err_has "no token on stdin"
# Nor suggested for a typo, as a shown option would be.
run probe --agnet 127.0.0.1:1
check agent-not-suggested err_is "rdmactl probe: unknown option '--agnet'. See 'rdmactl probe --help'."
run probe --no-retset
check others-suggested err_is "rdmactl probe: unknown option '--no-retset'. Did you mean '--no-retest'?"

# ---- a mode chosen without being asked says so first ----
# probe with no PEER inside an allocation measures its nodes (two nodes of
# this machine through pdsh's exec module, over TCP on the loopback).
if command -v pdsh >/dev/null; then
	NODES="m$$n[1-2]"
	RC=0
	SLURM_JOB_NODELIST=$NODES SLURM_JOB_ID=4242 timeout 120 "$RDMACTL" -j probe --launcher local \
		--transport tcp --pattern quick -D 1 --lat-iters 0 --port "$PORT" --node-timeout 60 \
		>"$TMPD/out" 2>"$TMPD/err" </dev/null || RC=$?
	OUT=$(cat "$TMPD/out")
	ERR=$(cat "$TMPD/err")
	check probe-slurm-said [ "$(head -n 1 <<<"$ERR")" = "rdmactl probe: no PEER inside Slurm allocation 4242: measuring its nodes (probe -w $NODES)" ]
	check probe-slurm-ran json_ok '.run.nodes == 2 and ([.links[] | select(.ok)] | length) >= 1'
	RC=0
	SLURM_JOB_NODELIST=$NODES timeout 120 "$RDMACTL" --root "$OK" -j doctor --launcher local \
		--rdmactl "$RDMACTL" >"$TMPD/out" 2>"$TMPD/err" </dev/null || RC=$?
	OUT=$(cat "$TMPD/out")
	ERR=$(cat "$TMPD/err")
	check doctor-slurm-said [ "$(head -n 1 <<<"$ERR")" = "rdmactl doctor: no -w inside Slurm allocation: checking its nodes (doctor -w $NODES); --local checks this node alone" ]
	check doctor-slurm-ran json_ok '.summary.nodes == 2 and .summary.unreachable == 0'
else
	skip slurm-implicit "needs pdsh (Debian package pdsh)"
fi
# Asked for (--local, PEER), or outside an allocation: not a word of it.
SLURM_JOB_NODELIST='n[1-2]' run --root "$OK" doctor --local --only devices
check doctor-local-quiet bash -c '[ "$0" = 0 ] && [ -z "$1" ]' "$RC" "$ERR"
run --root "$OK" doctor --only devices
check doctor-no-allocation-quiet bash -c '[ "$0" = 0 ] && [ -z "$1" ]' "$RC" "$ERR"
finish
