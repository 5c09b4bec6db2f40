#!/bin/bash
# `rdmactl probe -w --topology FILE|slurm`: Slurm's switch tree, read
# before anything starts on a node.  Bad trees are one line naming the
# value, exit 2; `slurm` asks scontrol (a fake here); a tree read makes the
# run count switch findings.  (The findings themselves: unit/topology on
# made-up links and the Clos model; the lab's fabric runs them for real.)
source "$(dirname "$0")/lib.sh"
unset SLURM_JOB_NODELIST SLURM_JOB_ID RDMACTL_LAUNCHER RDMACTL_TOKEN
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# bad NAME LINE CONF: --topology with CONF fails with LINE, before the launcher.
bad() {
	local name=$1 line=$2
	printf '%b' "$3" >"$TMP/$name.conf"
	fails_with "topology-$name" 2 "rdmactl probe: Failed to read --topology: $TMP/$name.conf$line" \
		probe -w 'n[1-4]' --launcher ssh --topology "$TMP/$name.conf"
}
bad no-switch ": node 'n4' of -w is under no switch" 'SwitchName=s1 Nodes=n[1-3]\n'
bad loop ":3: switch 's3' is in a loop: it is below itself" \
	'SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 Switches=s1,s3\nSwitchName=s3 Switches=s2\n'
bad twice ":2: switch 's1' is defined twice (first on line 1)" \
	'SwitchName=s1 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[3-4]\n'
bad two-roots ":2: two roots, 's1' and 's2': a tree has one top switch" \
	'SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4]\n'
bad two-leaves ":2: node 'n2' is under two leaves, 's1' (line 1) and 's2'" \
	'SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[2-4]\nSwitchName=top Switches=s[1-2]\n'
bad unknown-key ":1: unknown key 'Level' (SwitchName, Switches, Nodes, LinkSpeed)" \
	'SwitchName=s1 Level=0 Nodes=n[1-4]\n'
bad bad-child ":2: switch 's9' of 'top' is not defined" \
	'SwitchName=s1 Nodes=n[1-4]\nSwitchName=top Switches=s1,s9\n'
fails_with topology-missing 2 "rdmactl probe: Failed to read --topology '$TMP/none': No such file or directory" \
	probe -w 'n[1-4]' --launcher ssh --topology "$TMP/none"
fails_with topology-alone 2 "rdmactl probe: Failed to use --topology: it is for a run on many nodes; give -w HOSTLIST too" \
	probe 127.0.0.1 --topology "$TMP/none"

# --topology slurm: scontrol show topology's lines (Level= and the
# leaves' union on the switch above), or scontrol's own complaint.
mkdir -p "$TMP/bin"
cat >"$TMP/bin/scontrol" <<'EOS'
#!/bin/sh
[ "$*" = "show topology" ] || exit 3
if [ -n "$SCONTROL_FAILS" ]; then
	echo "slurm_load_topo error: Unable to contact slurm controller (connect failure)"
	exit 1
fi
echo "SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=n[01-08]"
echo "SwitchName=leaf2 Level=0 LinkSpeed=1 Nodes=n[09-16]"
echo "SwitchName=spine Level=1 LinkSpeed=1 Nodes=n[01-16] Switches=leaf[1-2]"
EOS
chmod +x "$TMP/bin/scontrol"
# ssh: a fake that reaches no node.
printf '#!/bin/sh\necho "ssh: not reached" >&2\nexit 255\n' >"$TMP/bin/ssh"
chmod +x "$TMP/bin/ssh"
SCONTROL_FAILS=1 PATH="$TMP/bin:$PATH" fails_with topology-slurm-down 2 \
	"rdmactl probe: Failed to read --topology slurm: scontrol show topology: slurm_load_topo error: Unable to contact slurm controller (connect failure)" \
	probe -w 'n[01-16]' --launcher ssh --topology slurm
PATH="$TMP/bin:$PATH" fails_with topology-slurm-short 2 \
	"rdmactl probe: Failed to read --topology: scontrol show topology: node 'n17' of -w is under no switch" \
	probe -w 'n[01-17]' --launcher ssh --topology slurm

# A tree read: the triage's steps as many as without one (8 for 16
# nodes: 5 across the tree, 3 inside each leaf of 8), nodes that never
# join are down, and the summary counts switch findings (none).
PATH="$TMP/bin:$PATH" run -j probe -w 'n[01-16]' --launcher ssh --pattern triage --topology slurm \
	--rendezvous 127.0.0.1 --node-timeout 5
check topology-run-rc rc_is 1
check topology-run-estimate err_has "16 nodes, triage: 8 round\(s\), 8 step\(s\), 128 tests"
check topology-run json_ok '.summary.down == 16 and .summary.switch_findings == 0'
finish
