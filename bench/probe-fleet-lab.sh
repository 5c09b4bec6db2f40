#!/bin/bash
# Guest side of bench/probe-fleet.sh (run by tests/lab/lab in four
# guests): lab-a runs the fleet probe of the four guests (the pairs
# pattern, both directions, every size 2 s) through srun and ssh, then the
# same twelve directed tests as two-node probes one after the other over
# ssh, the way they are run without -w; it prints "RESULT" lines.
# lab-needs: ssh slurm
# lab-timeout: 900

lab_need_guests 4
BIN=/run/lab/bin/rdmactl
mkdir -p /run/lab/bin && ln -sf "$RDMACTL" "$BIN"
lab_barrier bench-ready 120
if [[ $LAB_NODE == a ]]; then
	for l in srun ssh; do
		start=$SECONDS
		"$RDMACTL" -j probe -w "$LAB_NODES" --launcher "$l" --rails 1 --rdmactl "$BIN" -D 2 \
			--lat-iters 200 --slow 0.5 >"$l.json" 2>/dev/null
		wall=$((SECONDS - start))
		jq -r --arg l "$l" --arg wall "$wall" '.run |
			"RESULT cluster \($l) wall \($wall) start \(.start_s) probe \(.probe_s) round \(.round_s) rounds \(.rounds) steps \(.steps) median \(.median_gbps // 0)"' \
			"$l.json"
		jq -r '"RESULT median_gbps \(.median_gbps)"' "$l.json"
	done
	# The reference: the same 12 directed tests, one after the other.
	start=$SECONDS
	for c in $LAB_HOSTS; do
		for s in $LAB_HOSTS; do
			[[ $c == "$s" ]] && continue
			ssh "$s" "timeout 120 $BIN probe --server --once --port 18650" >/dev/null 2>&1 &
			ssh "$c" "for i in \$(seq 50); do $BIN probe $s --port 18650 -D 2 --lat-iters 200 \
				>/dev/null 2>&1 && exit 0; sleep 0.2; done; exit 1" || echo "RESULT seqfail $c $s"
			wait
		done
	done
	echo "RESULT sequential wall $((SECONDS - start)) tests 12"
fi
lab_barrier bench-done 900
rm -f "$BIN"
