#!/bin/bash
# `make demo`: what rdmactl says on real Soft-RoCE nodes, in two parts.
#
# A pair: lab-b looks at its own node (devices, ports, GIDs, limits), then
# measures to lab-a, which serves the probe, and runs the doctor against it.
#
# The cluster, four guests: every eth0 goes to MTU 9000 (the fix the pair's
# ports and doctor gave) and lab-c's firewall drops RoCE v2 (UDP 4791), the
# one node made wrong.  lab-a runs `doctor -w` and `probe -w` over all four
# through Slurm's srun, then draws both runs into one HTML page in this
# test's share, which demo.sh hands to the host.  The doctor names lab-c's
# firewall rule and the probe lab-c as a blocked node; when they do not,
# the demo fails rather than show a cluster that is not what it says.
#
# Run with two guests, only the pair part runs.
# lab-timeout: 300

# say CMD ARG...: show the command as it would be typed, then run it.  An
# argument with a space or a shell character in it is shown quoted, so
# every line can be pasted back into a shell.
say() {
	local a line=''
	for a; do
		if [[ $a =~ ^[][A-Za-z0-9_./:,=@%+-]+$ ]]; then
			line+=" $a"
		else
			line+=" '$a'"
		fi
	done
	printf '\n$%s\n' "$line"
	"$@"
}

# note TEXT: a comment line between the commands.
note() { printf '\n# %s\n' "$*"; }

# say_to FILE CMD ARG...: the same, the command's output going to FILE.
say_to() {
	local f=$1
	shift
	printf '\n$ %s >%s\n' "$*" "$f"
	"$@" >"$f"
}

# ---- the pair: lab-b against lab-a
case $LAB_NODE in
a)
	rdmactl probe --server >"$LAB_SHARE/server.out" 2>&1 &
	server=$!
	lab_wait_listen 18600 || fail "the probe server did not start"
	lab_put probe-up 1
	lab_barrier client-done 240
	kill "$server"
	wait "$server"
	echo
	echo "$ rdmactl probe --server"
	cat "$LAB_SHARE/server.out"
	;;
b)
	say rdmactl devices
	say rdmactl ports
	say rdmactl gids
	say rdmactl gids --recommend
	say rdmactl limits
	lab_get probe-up >/dev/null
	say rdmactl probe lab-a -n 200
	note "the guests share the host's /etc: its PAM and systemd memlock limits are not theirs"
	say rdmactl doctor --peer lab-a --skip memlock.login,memlock.systemd
	lab_barrier client-done 240
	;;
*)
	lab_barrier client-done 240
	;;
esac
((LAB_GUESTS >= 4)) || exit 0
# The server's side shown before the cluster's first line.
lab_barrier pair-shown 60

# ---- the cluster: lab-c made wrong, the four looked at from lab-a
[[ $LAB_NODE == a ]] && note "the cluster: every node at MTU 9000, and lab-c's firewall drops RoCE v2"
lab_barrier cluster 60
say ip link set eth0 mtu 9000
[[ $LAB_NODE == c ]] &&
	say nft 'add table inet rocefw { chain in { type filter hook input priority filter; policy accept; udp dport 4791 drop; }; }'
lab_barrier cluster-set 60
if [[ $LAB_NODE == a ]]; then
	# Kept in the share, which the host keeps after the run.
	cd "$LAB_SHARE" || exit 1
	# As for the pair: the host's PAM and systemd limits are not the guests'.
	skip=memlock.login,memlock.systemd
	say rdmactl doctor -w "$LAB_NODES" --launcher srun --skip "$skip"
	say_to doctor.json rdmactl -j doctor -w "$LAB_NODES" --launcher srun --skip "$skip"
	# One step per stride is every link of four nodes, in three steps;
	# the guests' rates vary by a quarter from run to run, so a link is
	# slow below half the median (t4-probe.sh).
	say rdmactl probe -w "$LAB_NODES" --launcher srun --pattern triage -D 1 --timeout 5 \
		--lat-iters 20 --slow 0.5 --save probe.json
	say rdmactl report -o report.html doctor.json probe.json
	# Not a test, but no lie either: the wrong node is the one named.
	[[ $(jq -r .summary.failed_nodes doctor.json) == lab-c ]] ||
		fail "the doctor did not fail lab-c alone"
	[[ $(jq -r '[.findings[] | select(.failure) | "\(.kind) \(.node)"] | join(",")' probe.json) == "blocked_node lab-c" ]] ||
		fail "the probe did not name lab-c alone, as blocked"
fi
lab_barrier cluster-done 240
