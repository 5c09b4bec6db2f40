#!/bin/bash
# `rdmactl probe -w --save FILE` and `--from FILE` with real agents: three
# nodes on this host (127.0.0.1 to .3, all on loopback; an ssh faked on
# PATH runs each agent here under its node's name; the tests over TCP,
# one server a step, so they share the port).  A whole run saves what -j
# prints; a run stopped by SIGINT or SIGTERM mid-run leaves a valid
# document marked incomplete and dies of the signal; --from completes it,
# testing only what it left open; bad --from files are refused before
# any agent starts.
source "$(dirname "$0")/lib.sh"
unset SLURM_JOB_NODELIST SLURM_JOB_ID SLURM_STEP_ID RDMACTL_LAUNCHER RDMACTL_TOKEN

BIN=$TMPD/bin
mkdir -p "$BIN"
# ssh -T -o BatchMode=yes -o ConnectTimeout=N HOST CMD: CMD here, as HOST.
cat >"$BIN/ssh" <<EOF
#!/bin/sh
echo "ssh \$6" >>"$TMPD/ran"
shift 5
host=\$1
shift
SLURMD_NODENAME=\$host exec sh -c "\$*"
EOF
chmod +x "$BIN/ssh"
export PATH="$BIN:$PATH"
launched() { [ -e "$TMPD/ran" ]; }
not_launched() { ! launched; }

NODES='127.0.0.[1-3]'
PORT=$(free_port)
# Loopback rates and latencies vary too much to judge (under ASan more): --slow
# 0.01 and no latency, so that no finding makes a link a suspect; only what a
# run keeps is asserted.
# The agents run rdmactl by a path of this test's own, so that a look for
# them finds none of another suite's run side by side (tests/run-all).
ln -s "$RDMACTL" "$BIN/rdmactl"
W=(-w "$NODES" --launcher ssh --rendezvous 127.0.0.1 --rdmactl "$BIN/rdmactl" --transport tcp
	--port "$PORT" --slow 0.01 --lat-iters 0)
S=$TMPD/saved
mkdir -p "$S"
# doc FILE [JQ-ARGS...] FILTER: the saved document FILE satisfies the jq FILTER.
doc() {
	local f=$1
	shift
	json_one "$@" <"$f"
}
no_temp_left() { [ -z "$(find "$S" -name '*.json.*')" ]; }
no_agent_left() { ! pgrep -f "$BIN/rdmactl probe --agent" >/dev/null; }

# --- a whole run: -j's document, saved; text and the file from one run ---
run -j probe "${W[@]}" -n 200 --save "$S/whole.json"
check whole-rc rc_is 0
check whole-same-as-j bash -c 'diff <(jq -S . <<<"$1") <(jq -S . "$2")' _ "$OUT" "$S/whole.json"
check whole-complete doc "$S/whole.json" '.run.complete == true and .run.stopped == null and
	.run.steps_done == 6 and .run.tests_left == 0 and .run.carried == 0 and
	.summary.links == 6 and .summary.untested == 0 and (.links | length) == 6'
run probe "${W[@]}" -n 200 --save "$S/text.json"
check text-too-rc rc_is 0
check text-too out_has '^6 links measured, 0 failed'
check text-too-saved doc "$S/text.json" '.run.complete and .summary.links == 6'
check whole-no-temp no_temp_left

# --- stopped mid-run: the steps done kept, marked incomplete; then resumed ---
# stopped SIG FILE: a run of 1 s tests saving to FILE, SIG sent once FILE
# holds a step done; RC, OUT, ERR.
stopped() {
	local sig=$1 file=$2 pid
	rm -f "$file"
	env --default-signal="$sig" "$RDMACTL" probe "${W[@]}" -D 1 --save "$file" \
		>"$TMPD/out" 2>"$TMPD/err" </dev/null &
	pid=$!
	for _ in $(seq 300); do
		doc "$file" '.run.steps_done >= 1' && break
		sleep 0.1
	done
	kill -"$sig" "$pid"
	RC=0
	wait "$pid" || RC=$?
	OUT=$(cat "$TMPD/out")
	ERR=$(cat "$TMPD/err")
}
for sig in INT TERM; do
	stopped "$sig" "$S/cut-$sig.json"
	check "sig$sig-died-of-it" rc_is $((128 + $(kill -l "$sig")))
	check "sig$sig-said" err_has "^rdmactl probe: stopped by SIG$sig after [1-5] of 6 step\(s\); the steps done are in '$S/cut-$sig.json': --from it runs the rest$"
	check "sig$sig-no-report" out_empty
	check "sig$sig-incomplete" doc "$S/cut-$sig.json" --arg sig "SIG$sig" '.run.complete == false and
		.run.stopped == $sig and .run.steps_done >= 1 and .run.steps_done < 6 and
		.run.tests_left == 6 - .run.steps_done and .summary.untested == .run.tests_left and
		(.links | length) == .run.steps_done and all(.links[]; .ok)'
	check "sig$sig-no-temp" no_temp_left
	check "sig$sig-no-agent" no_agent_left
done

cp "$S/cut-INT.json" "$S/cut.json"
done_before=$(jq '.links | length' "$S/cut.json")
run -j probe "${W[@]}" -n 200 --from "$S/cut.json" --save "$S/cut.json"
check resume-rc rc_is 0
check resume-said err_has "^rdmactl probe: resumed \(--from\): $done_before link\(s\) of the saved run carried over, 0 of its links to test again, 3 of its nodes in this run$"
check resume-fewer-steps err_has "3 nodes, pairs: 3 round\(s\), $((6 - done_before)) step\(s\), $((6 - done_before)) tests"
check resume-complete doc "$S/cut.json" --argjson k "$done_before" '.run.complete == true and
	.run.carried == $k and .run.steps == 6 - $k and .summary.links == 6 and
	.summary.untested == 0 and (.links | length) == 6'
check resume-carried-unchanged bash -c 'diff <(jq -c ".links[:$3]" "$1") <(jq -c ".links[:$3]" "$2")' \
	_ "$S/cut-INT.json" "$S/cut.json" "$done_before"
check resume-same-as-j bash -c 'diff <(jq -S . <<<"$1") <(jq -S . "$2")' _ "$OUT" "$S/cut.json"

# Another node list: the nodes in common carry over, nothing else.
command jq -c '.findings = [] | .links[].gbps = 10 | .median_gbps = 10' "$S/whole.json" >"$S/even.json"
run -j probe -w '127.0.0.[1-2]' "${W[@]:2}" -n 200 --from "$S/even.json"
check fewer-nodes-rc rc_is 0
check fewer-nodes json_ok '.run.carried == 2 and .run.steps == 0 and .summary.links == 2 and
	.summary.untested == 0'

# --- a bad --from or --save: one line, exit 2, no agent started ---
rm -f "$TMPD/ran"
from_fails() {
	local name=$1 file=$2 line=$3
	fails_with "from-$name" 2 "rdmactl probe: Failed to read --from '$file': $line" probe "${W[@]}" --from "$file"
}
from_fails missing "$S/nope.json" "No such file or directory"
from_fails directory "$S" "not a regular file"
from_fails device /dev/zero "not a regular file"
printf 'not json' >"$S/text"
from_fails not-json "$S/text" "not a JSON object"
printf '{"nodes": {}, "checks": []}' >"$S/doctor.json"
from_fails doctor "$S/doctor.json" "no \"links\" array: not the document of 'rdmactl -j probe -w'"
# Cut in its first link (a disk that filled, a copy cut short).
at=$(grep -bo '"links":\[' "$S/whole.json" | cut -d: -f1)
head -c $((at + 40)) "$S/whole.json" >"$S/cut-short.json"
from_fails truncated "$S/cut-short.json" "links at byte $((at + 9)): the document ends early"
command jq -c '.links[0].server = "\u001b]0;pwned\u0007x"' "$S/whole.json" >"$S/hostile.json"
from_fails hostile "$S/hostile.json" "links[0]: server '\\x1b]0;pwned\\x07x' is not in run.names"
truncate -s 3G "$S/huge.json"
from_fails huge "$S/huge.json" "larger than 2 GiB: not a saved run"
rm -f "$S/huge.json"
command jq -c '.run.names = ["x1", "x2", "127.0.0.1"] | .links = [] | .findings = []' "$S/whole.json" >"$S/other.json"
fails_with from-other-cluster 2 "rdmactl probe: Failed to resume --from '$S/other.json': it shares fewer than two nodes with -w; it is the run of other nodes" \
	probe "${W[@]}" --from "$S/other.json"
fails_with save-directory 2 "rdmactl probe: Failed to write the run's document (--save) '$S': Is a directory. Name a file in it" \
	probe "${W[@]}" --save "$S"
fails_with from-alone 2 "rdmactl probe: Failed to use --from: it is for a run on many nodes; give -w HOSTLIST too" \
	probe 127.0.0.1 --from "$S/whole.json"
check bad-input-no-launcher not_launched
finish
