#!/bin/bash
# A fleet of 64 nodes on this machine (--launcher local: each node a real
# rdmactl process started by pdsh's exec module): `probe -w` over TCP on
# the loopback and `doctor -w` on a fixture root hear from every node and
# name every one in their reports; an agent killed in the run is named
# down, by its name, and the others' links are kept.  bench/fleet.sh runs
# the same at up to 1 000 nodes and measures what it costs.
source "$(dirname "$0")/lib.sh"
unset SLURM_JOB_NODELIST SLURM_JOB_ID SLURM_STEP_ID RDMACTL_LAUNCHER RDMACTL_TOKEN RDMACTL_NODE
if ! command -v pdsh >/dev/null; then
	skip local-launcher "pdsh is not installed (Debian package pdsh)"
	finish
fi
N=64
LIST="node[01-$N]"
# The nodes' servers listen on 127.1.0.1 to 127.1.0.64 at this port.
PORT=$((30000 + $$ % 20000))
names() { printf 'node%02d\n' $(seq 1 $N); }

# --- doctor -w: 64 documents, one report line per check naming them all ---
run --root "$FIXTURES/doctor-healthy" -j doctor -w "$LIST" --launcher local --rdmactl "$RDMACTL" \
	--fanout 64
check doctor-rc rc_is 0
check doctor-every-node json_ok "(.nodes | keys) == ($(names | jq -R . | jq -sc .))"
check doctor-all-documents json_ok '([.nodes[] | select(.summary.ok == 11)] | length) == 64 and .summary.nodes == 64'
run --root "$FIXTURES/doctor-healthy" doctor -w "$LIST" --launcher local --rdmactl "$RDMACTL" \
	--fanout 64
check doctor-report-folds out_has "^ok +devices +node\[01-64\] "
check doctor-report-counts out_has "^64 nodes: 0 failed, 0 warned, 0 unreachable$"

# --- probe -w: node17's agent is killed once every agent runs ---
# (before it joined, or in a step: either way it is down, by name).
agent_of() {
	local p
	for p in $(pgrep -x rdmactl); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "RDMACTL_NODE=$1" &&
			grep -q -- '--agent' "/proc/$p/cmdline" 2>/dev/null && echo "$p"
	done
}
(
	for _ in $(seq 200); do
		pid=$(agent_of node17)
		[ -n "$pid" ] && kill -KILL "$pid" && exit 0
		sleep 0.05
	done
) &
killer=$!
run -j probe -w "$LIST" --launcher local --rdmactl "$RDMACTL" --transport tcp --pattern quick \
	-D 2 --lat-iters 0 --port "$PORT" --slow 0.05 --node-timeout 60
wait "$killer"
check probe-killed-one rc_is 1
check probe-names-every-node json_ok "(.run.names | sort) == ($(names | jq -R . | jq -sc .))"
check probe-the-rest-joined json_ok '.run.nodes == 64 and .run.joined >= 63'
check probe-names-the-dead json_ok '.summary.down == 1 and ([.findings[] | select(.kind == "down_node") | .node] == ["node17"])'
check probe-kept-the-others json_ok '([.links[] | select(.ok)] | length) >= 60'
# The run over, none of its 64 agents is left.
none_left() { [ -z "$(pgrep -f -- "--port $PORT")" ]; }
check probe-no-agent-left none_left
finish
