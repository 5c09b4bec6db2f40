#!/bin/bash
# A save only gains: `probe -w --from F --save F` stopped at any moment
# (SIGINT, SIGTERM, SIGHUP before any agent joined or after some steps, no
# agent joining, the launcher failing) leaves every link F held, each with
# its latest measurement, and the findings computed from them; a run that
# did not finish is never written complete.  Two runs on one save file:
# the second refuses at start.  --save over an existing file without
# --from is kept unless --force (rdmactl(8), FILES); so is --html.
# --rendezvous that is no address of this host is refused before anything
# starts.  Four nodes of --launcher local over TCP; an agent wrapper gives
# node n4 a --max-size its tests exceed, so the links to it fail as a real
# fault would, and can delay or fail every agent.
source "$(dirname "$0")/lib.sh"
unset SLURM_JOB_NODELIST SLURM_JOB_ID SLURM_STEP_ID RDMACTL_LAUNCHER RDMACTL_TOKEN

S=$TMPD/s
mkdir -p "$S"
MODE=$TMPD/mode
# The agent as the launcher starts it; $MODE says how: n4 (n4 refuses the
# tests), slow (n4, after 2 s), fail (no agent starts), late (no agent
# joins within --node-timeout), hold (no agent joins until the run is
# stopped), ok.
cat >"$TMPD/agent" <<EOF
#!/bin/sh
case \$(cat "$MODE") in
fail) exit 3 ;;
late) sleep 4; exit 0 ;;
hold) exec sleep 120 ;;
slow) : >"$TMPD/started.\$RDMACTL_NODE"; sleep 2 ;;
ok) exec "$RDMACTL" "\$@" ;;
esac
[ "\$RDMACTL_NODE" = n4 ] && exec "$RDMACTL" "\$@" --max-size 1K
exec "$RDMACTL" "\$@"
EOF
chmod +x "$TMPD/agent"
W=(-w 'n[1-4]' --launcher local --rdmactl "$TMPD/agent" --transport tcp --slow 0.01
	--lat-iters 0)

# The last result of every directed link of FILE's first N links (all:
# N absent), {"a>b/rail": {ok, gbps, cause}}.
LAST='def last($n): reduce (.links[:$n][]) as $l ({};
	.["\($l.client)>\($l.server)/\($l.rail)"] = ($l | {ok, gbps, cause}));'
# The findings but the nodes down in this run, as [kind, node, peer, rail];
# of a run that measured links again, the failures only (loopback rates
# vary too much for the slow ones to hold from one run to the next).
FIND='def finds($all): [.findings[] | select(.kind != "down_node") |
	select($all or (.kind | test("failed|blocked"))) | [.kind, .node, .peer, .rail]] | sort;'
# two_docs BEFORE AFTER FILTER: each file is exactly one JSON document
# and FILTER, run with no input (-n: it always runs, and its one value
# decides) and them as $b[0] and $a[0], holds.
two_docs() {
	jq -e -n --slurpfile b "$1" --slurpfile a "$2" \
		'($b | length) == 1 and ($a | length) == 1 and ('"$3"')' >/dev/null
}
# kept BEFORE AFTER: AFTER's first links are BEFORE's, each with its last
# result (what the run tested again comes after them); no link lost.
kept() {
	two_docs "$1" "$2" "$LAST"'
		($b[0] | last(null)) as $was | ($was | length) as $k |
		($a[0] | last($k)) == $was and (($a[0] | last(null)) | keys) == ($was | keys) and
		$a[0].summary.links == $b[0].summary.links'
}
# same_findings BEFORE AFTER: AFTER's findings are BEFORE's (but its
# down nodes); those of failures only when AFTER measured links again.
same_findings() {
	two_docs "$1" "$2" "$FIND"'
		($a[0].run.steps_done == 0) as $all | ($b[0] | finds($all)) == ($a[0] | finds($all))'
}
doc() {
	local f=$1
	shift
	json_one "$@" <"$f"
}

# --- the file before: a whole run, n4's three incoming links failed ---
echo n4 >"$MODE"
run -j probe "${W[@]}" -n 200 --save "$S/before.json"
check before-rc rc_is 1
check before-whole doc "$S/before.json" '.run.complete and .summary.links == 12 and
	.summary.failed == 3 and ([.findings[].kind] == ["failed_link", "failed_link", "failed_link"])'

# stop SIG WHEN NAME: resume $S/NAME.json (a copy of before.json) into
# itself with 2 s tests, SIG sent WHEN: "gather" (agents not joined yet),
# (the launcher has started an agent), or after N steps of this run are
# saved and two at least are left; RC, ERR.  The save is written at most
# every 2 s (and ten times as long as a write takes), so on a loaded
# machine the run may be further on than the file says: a run whose
# report came before the signal (its file complete) is tried again, twice.
stop() {
	local sig=$1 when=$2 f=$S/$3.json pid try
	for try in 1 2 3; do
		cp "$S/before.json" "$f"
		rm -f "$TMPD"/started.*
		if [ "$when" = gather ]; then echo slow >"$MODE"; else echo n4 >"$MODE"; fi
		env --default-signal="$sig" "$RDMACTL" probe "${W[@]}" -D 2 --from "$f" --save "$f" \
			>"$TMPD/out" 2>"$TMPD/err" </dev/null &
		pid=$!
		for _ in $(seq 300); do
			if [ "$when" = gather ]; then
				ls "$TMPD"/started.* >/dev/null 2>&1 && break
			else
				doc "$f" --argjson n "$when" '.run.complete == false and .run.steps_done >= $n and
					.run.steps_done <= .run.steps - 2' && break
			fi
			sleep 0.1
		done
		kill -"$sig" "$pid" 2>/dev/null
		RC=0
		{ wait "$pid"; } 2>/dev/null || RC=$?
		doc "$f" '.run.complete' || break
	done
	ERR=$(cat "$TMPD/err")
}
# stopped NAME SIG: the checks of a resume of before.json stopped by SIG into NAME.json.
stopped() {
	local name=$1 sig=$2 f=$S/$1.json
	check "$name-died-of-it" rc_is $((128 + $(kill -l "$sig")))
	check "$name-said" err_has "^rdmactl probe: stopped by SIG$sig after [0-9] of 6 step\(s\)"
	check "$name-incomplete" doc "$f" --arg sig "SIG$sig" '.run.complete == false and .run.stopped == $sig'
	check "$name-kept-every-link" kept "$S/before.json" "$f"
	check "$name-same-findings" same_findings "$S/before.json" "$f"
	check "$name-no-lock-left" [ ! -e "$f.lock" ]
}
for sig in INT TERM HUP; do
	stop "$sig" gather "gather-$sig"
	stopped "gather-$sig" "$sig"
	check "gather-$sig-no-step" doc "$S/gather-$sig.json" '.run.steps_done == 0'
	stop "$sig" 1 "step-$sig"
	stopped "step-$sig" "$sig"
	check "step-$sig-some-steps" doc "$S/step-$sig.json" '.run.steps_done >= 1 and .run.steps_done < 6'
done
stop TERM 3 step3-TERM
stopped step3-TERM TERM
check step3-TERM-measured-again doc "$S/step3-TERM.json" '(.links | length) > 12'
# A stopped resume of a stopped resume: still nothing lost.
cp "$S/step-INT.json" "$S/again.json"
echo n4 >"$MODE"
run probe "${W[@]}" -n 200 --from "$S/again.json" --save "$S/again.json"
check again-rc rc_is 1
check again-complete doc "$S/again.json" '.run.complete and .summary.links == 12 and .summary.failed == 3'
check again-kept kept "$S/step-INT.json" "$S/again.json"

# --- no agent joins, or the launcher fails: the file keeps all, never complete ---
for mode in late fail; do
	cp "$S/before.json" "$S/$mode.json"
	echo "$mode" >"$MODE"
	run probe "${W[@]}" -n 200 --node-timeout 1 --from "$S/$mode.json" --save "$S/$mode.json"
	check "$mode-rc" rc_is 1
	check "$mode-incomplete" doc "$S/$mode.json" '.run.complete == false and .run.steps_done == 0 and
		.run.stopped == null and .summary.down == 4'
	check "$mode-kept-every-link" kept "$S/before.json" "$S/$mode.json"
	check "$mode-same-findings" same_findings "$S/before.json" "$S/$mode.json"
done

# --- SIGTERM as the agents leave: the save finished either way, no lock left ---
# The window between the agents' end and the final save, widened: every
# rename(2) of the run waits 1 s (strace's inject; LeakSanitizer does
# not run under ptrace).  Signalled the moment its agents are gone, the
# run ends of the signal with its save complete (the report came first)
# or marked stopped with its line, its lock removed.  Before the signals
# were held for the whole run, three runs in three left the lock (one its
# save neither complete nor marked stopped).
# (The coordinator: strace's child; its agents: its children.)
coordinator() { pgrep -P "$1" | head -1; }
agents_gone() { [ -z "$(cat /proc/"$1"/task/*/children 2>/dev/null)" ]; }
agents_there() { ! agents_gone "$1"; }
if command -v strace >/dev/null; then
	cp "$S/before.json" "$S/end-TERM.json"
	echo ok >"$MODE"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -o /dev/null -e trace=rename \
		-e inject=rename:delay_enter=1000000 env --default-signal=TERM "$RDMACTL" probe "${W[@]}" -D 1 \
		--from "$S/end-TERM.json" --save "$S/end-TERM.json" >"$TMPD/out" 2>"$TMPD/err" </dev/null &
	spid=$!
	cpid=''
	waits_for 60 eval 'cpid=$(coordinator "$spid"); [ -n "$cpid" ] && agents_there "$cpid"' || true
	if [ -n "$cpid" ]; then
		while [ -d "/proc/$cpid" ] && ! agents_gone "$cpid"; do sleep 0.01; done
		kill -TERM "$cpid" 2>/dev/null
	fi
	RC=0
	wait "$spid" || RC=$?
	ERR=$(cat "$TMPD/err")
	check end-TERM-died-of-it rc_is 143
	check end-TERM-no-lock-left [ ! -e "$S/end-TERM.json.lock" ]
	check end-TERM-finished doc "$S/end-TERM.json" '.run.complete or .run.stopped == "SIGTERM"'
	check end-TERM-said-if-stopped bash -c '[ "$(jq -r .run.complete "$1")" = true ] || grep -q "^rdmactl probe: stopped by SIGTERM" "$2"' \
		_ "$S/end-TERM.json" "$TMPD/err"
else
	skip end-TERM "needs strace"
fi

# --- resumed to the end: the failed links measured again, the file whole ---
cp "$S/step-TERM.json" "$S/end.json"
echo ok >"$MODE"
run -j probe "${W[@]}" -n 200 --from "$S/end.json" --save "$S/end.json"
check end-rc rc_is 0
check end-complete doc "$S/end.json" '.run.complete and .summary.links == 12 and
	.summary.failed == 0 and .findings == []'

# --- two runs on one save file: the second refuses at start ---
# The first holds the file until it is stopped (its agents never join),
# however slowly the second starts.
cp "$S/before.json" "$S/busy.json"
echo hold >"$MODE"
env --default-signal=TERM "$RDMACTL" probe "${W[@]}" --node-timeout 120 --from "$S/busy.json" \
	--save "$S/busy.json" >/dev/null 2>"$S/busy-first.err" </dev/null &
pid=$!
# Held once the lock file names it (runsave_lock() writes its id after
# the flock): the file alone may be there before the lock is taken.  For
# two minutes at most (the first run's --node-timeout) or until it ends:
# a guard, not a pace.  (The wait was 10 s for the file; in one make
# check-fast the second run then ran as if alone, its 60 s, exit 1.)
held() { [ "$(cat "$S/busy.json.lock" 2>/dev/null)" = "$pid" ]; }
held_or_gone() { held || ! kill -0 "$pid" 2>/dev/null; }
waits_for 120 held_or_gone
if held; then
	pass busy-held
else
	fail busy-held "the first run (process $pid) holds no lock; it said: $(tr '\n' ' ' <"$S/busy-first.err")"
fi
fails_with busy 2 "rdmactl probe: Failed to save to '$S/busy.json': another run saves to it (process $pid); wait for it to end, or --save another file" \
	probe "${W[@]}" -n 200 --save "$S/busy.json" --force
kill -TERM "$pid"
wait "$pid"
check busy-first-kept kept "$S/before.json" "$S/busy.json"

# Resumed into itself with a node left out, the file would lose its links: refused.
cp "$S/before.json" "$S/fewer.json"
fails_with fewer-nodes-into-itself 2 "rdmactl probe: Failed to resume into --save '$S/fewer.json': 6 of its links are of nodes -w leaves out, and the file would lose them; --save another file" \
	probe -w 'n[1-3]' "${W[@]:2}" -n 200 --from "$S/fewer.json" --save "$S/fewer.json"
check fewer-nodes-kept cmp -s "$S/before.json" "$S/fewer.json"

# --- the file rule: an existing --save or --html kept unless --force ---
cp "$S/before.json" "$S/old.json"
ERRNO=EEXIST fails_with save-exists 2 "rdmactl probe: Failed to write the run's document (--save) '$S/old.json': File exists. Use --force to replace it" \
	probe "${W[@]}" -n 200 --save "$S/old.json"
check save-exists-kept cmp -s "$S/before.json" "$S/old.json"
ERRNO=EEXIST fails_with html-exists 2 "rdmactl probe: Failed to write report '$S/old.json': File exists. Use --force to replace it" \
	probe "${W[@]}" -n 200 --html "$S/old.json"
check html-exists-kept cmp -s "$S/before.json" "$S/old.json"
echo ok >"$MODE"
run probe "${W[@]}" -n 200 --save "$S/old.json" --force
check save-force-rc rc_is 0
check save-force-replaced doc "$S/old.json" '.run.complete and .summary.failed == 0 and .run.carried == 0'
# Failing to write is exit 1 for --save as for every file (rdmactl(8), FILES).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$TMPD/ro"
	chmod 755 "$TMPD"
	RC=0
	setpriv --reuid=65534 --regid=65534 --clear-groups "$RDMACTL" probe "${W[@]}" -n 200 \
		--save "$TMPD/ro/x.json" >/dev/null 2>"$TMPD/err" </dev/null || RC=$?
	ERR=$(cat "$TMPD/err")
	chmod 700 "$TMPD"
	check eacces-rc rc_is 1
	check eacces-msg err_is "rdmactl probe: Failed to write the run's document (--save) '$TMPD/ro/x.json': Permission denied"
else
	skip eacces "not root, or no setpriv (Debian package util-linux), to run as nobody"
fi

# --- --rendezvous: an address of no interface of this host ---
fails_with rendezvous-not-here 2 "rdmactl probe: Failed to use --rendezvous '192.0.2.7:45678': it is no address of this host's interfaces, so no agent could reach this run (the agents connect to it); give this host's own address as the nodes reach it (ip -4 addr)" \
	probe "${W[@]}" --rendezvous 192.0.2.7:45678
finish
