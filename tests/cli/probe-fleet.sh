#!/bin/bash
# `rdmactl probe -w` and `--agent`: bad input of every kind is one line
# naming the value, exit 2, before anything starts on a node; the agent
# refuses to run without the run's token on stdin and says why when the
# coordinator is not there or does not prove the token.  (Runs with nodes
# are lab tests: tests/lab/t4-probe.sh.)
source "$(dirname "$0")/lib.sh"
unset SLURM_JOB_NODELIST SLURM_JOB_ID RDMACTL_LAUNCHER RDMACTL_TOKEN
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

fails_with bad-pattern 2 "rdmactl probe: invalid --pattern value 'mesh': use pairs, ring, quick or triage" \
	probe -w 'n[1-4]' --pattern mesh
fails_with bad-slow 2 "rdmactl probe: Failed to parse --slow '1.5': expected a fraction of the median, 0.01 to 0.99" \
	probe -w 'n[1-4]' --slow 1.5
fails_with bad-rails 2 "rdmactl probe: Failed to parse --rails '0': expected a whole number from 1 to 16" \
	probe -w 'n[1-4]' --rails 0
fails_with bad-hostlist 2 "rdmactl probe: Failed to read -w: invalid hostlist 'n[1-4': '[' is not closed" \
	probe -w 'n[1-4'
fails_with peer-and-w 2 "rdmactl probe: Failed to use n9: -w measures the nodes of its list; give PEER without -w" \
	probe -w 'n[1-4]' n9
fails_with server-and-w 2 "rdmactl probe: Failed to use --server with -w: the nodes' agents serve as the schedule says" \
	probe -w 'n[1-4]' --server
fails_with token-and-w 2 "rdmactl probe: Failed to use --token or RDMACTL_TOKEN with -w: the run makes a token of its own and hands it to the agents on stdin" \
	probe -w 'n[1-4]' --token s3cret
fails_with one-node 2 "rdmactl probe: Failed to probe a cluster of one: -w 'n1' names one node; give two or more" \
	probe -w n1 --launcher ssh
fails_with cluster-option-alone 2 "rdmactl probe: Failed to use --pattern: it is for a run on many nodes; give -w HOSTLIST too" \
	probe 127.0.0.1 --pattern ring
fails_with bad-launcher 2 "rdmactl probe: invalid --launcher value 'mpirun': use srun, pdsh, clush, ssh or local" \
	probe -w 'n[1-2]' --launcher mpirun
fails_with bad-rendezvous 2 "rdmactl probe: Failed to parse --rendezvous 'here:99999': expected an IPv4 address of this host, with :PORT if a firewall leaves only that port open" \
	probe -w 'n[1-2]' --launcher ssh --rendezvous here:99999 --node-timeout 1

# The triage pattern: 2 ceil(log2 16) = 8 steps for 16 nodes, said before
# the launcher starts; nodes that never join are down, and the links
# between the nodes that took part (none) leave nothing untested.
run -j probe -w 'n[01-16].invalid' --launcher ssh --pattern triage --rendezvous 127.0.0.1 --node-timeout 5
check triage-rc rc_is 1
check triage-estimate err_has "16 nodes, triage: 8 round\(s\), 8 step\(s\), 128 tests"
check triage-run json_ok '.run.pattern == "triage" and .run.steps == 8 and .summary.down == 16 and .summary.untested == 0'

# -x is probe's GID index (as perftest's); a hostlist there says where --exclude is.
fails_with x-is-gid-index 2 "rdmactl probe: Failed to parse -x 'n2': expected a GID index from 0 to 255 (in probe, -x is --gid-index, as in perftest; --exclude leaves nodes out)" \
	probe -w 'n[1-4]' -x n2
fails_with bad-exclude 2 "rdmactl probe: Failed to read --exclude: invalid hostlist 'n[1-4': '[' is not closed" \
	probe -w 'n[1-4]' --exclude 'n[1-4'

# The same test option forty times: refused, not cut.
run probe -w 'n[1-2]' --launcher ssh $(for _ in $(seq 45); do printf -- '-s 1K '; done)
check many-options-rc rc_is 2
check many-options err_has "too many; give each once"

# --pairs: the file's bad line is named with its value.
printf '1 n1 n2\n2 n1 n7\n' >"$TMP/pairs"
run probe -w 'n[1-4]' --launcher ssh --pairs "$TMP/pairs"
check pairs-unknown-rc rc_is 2
check pairs-unknown err_has "pairs:2: .*'n7'"
check pairs-unknown-one-line err_one_line
run probe -w 'n[1-4]' --launcher ssh --pairs "$TMP/nonexistent"
check pairs-missing-rc rc_is 2
check pairs-missing err_has "nonexistent"

# A schedule of 1 000 hours is refused before anything starts (ssh is a
# fake that would only fail).
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "ssh: not reached" >&2\nexit 255\n' >"$TMP/bin/ssh"
chmod +x "$TMP/bin/ssh"
awk 'BEGIN { for (i = 1; i <= 400000; i++) print i, "n1", "n2" }' >"$TMP/pairs-long"
PATH="$TMP/bin:$PATH" run probe -w 'n[1-2]' --launcher ssh --pairs "$TMP/pairs-long" --rendezvous 127.0.0.1
check pairs-too-long-rc rc_is 2
check pairs-too-long err_is "rdmactl probe: Failed to run --pairs '$TMP/pairs-long': 400000 round(s), 800000 step(s) of about 4.5 s would take about 1000 hours, over the 24 hours a run may take; split the schedule or shorten the tests (-D, -n, sizes)"
PATH="$TMP/bin:$PATH" run probe -w 'n[1-40]' --launcher ssh -D 3600 --rendezvous 127.0.0.1
check pattern-too-long-rc rc_is 2
check pattern-too-long err_has "^rdmactl probe: Failed to run --pattern 'pairs': 39 round\(s\), 78 step\(s\) of about 3602.5 s would take about 78 hours, over the 24 hours"

# No agent joins (the launcher ends at once, silent): said once, with the
# nodes, and no round is run.
mkdir -p "$TMP/bin/silent"
printf '#!/bin/sh\nexit 0\n' >"$TMP/bin/silent/ssh"
chmod +x "$TMP/bin/silent/ssh"
PATH="$TMP/bin/silent:$PATH" run probe -w 'n[1-3]' --launcher ssh --rendezvous 127.0.0.1
check none-joined-rc rc_is 1
check none-joined-said err_has "^rdmactl probe: Failed to probe: no agent joined, of n\[1-3\]; no round ran \(each node's cause is in the findings\)$"
check none-joined-no-round out_has "^0 of 3 nodes joined in [0-9.]+ s through ssh: no round ran$"
check none-joined-causes out_has "FAIL +n3 did not take part: "

# The agent: no token on stdin, a bad address, nobody there, a wrong token.
run probe --agent 127.0.0.1:1 </dev/null
check agent-no-token-rc rc_is 1
check agent-no-token err_has "no token on stdin"
RC=0; ERR=$(echo tok | "$RDMACTL" probe --agent nowhere 2>&1 >/dev/null) || RC=$?
# Bad input, exit 2 like every parse error (an empty value too).
check agent-bad-address-rc rc_is 2
check agent-bad-address err_has "Failed to parse --agent 'nowhere': expected HOST:PORT"
RC=0; ERR=$(echo tok | "$RDMACTL" probe --agent '' 2>&1 >/dev/null) || RC=$?
check agent-empty-rc rc_is 2
# A name that does not resolve is said so, with getaddrinfo's words.
if offline_ok; then
	run_offline probe --agent nx.invalid:1
	check agent-unresolved-rc rc_is 2
	check agent-unresolved-message err_is "rdmactl probe: Failed to reach the coordinator at --agent 'nx.invalid:1': cannot resolve 'nx.invalid': Name or service not known"
else
	skip agent-unresolved "needs unshare (root) for a resolver of its own"
fi
PORT=$(free_port)
RC=0; ERR=$(echo tok | "$RDMACTL" probe --agent "127.0.0.1:$PORT" 2>&1 >"$TMP/agent.out") || RC=$?
check agent-refused-rc rc_is 1
check agent-refused err_has "Failed to reach the coordinator at 127.0.0.1:$PORT: Connection refused"
check agent-refused-one-line err_one_line
# Its last line on stdout says why, for the coordinator, through the launcher.
check agent-refused-says-why grep -qxF "rdmactl-agent: ended early: Failed to reach the coordinator at 127.0.0.1:$PORT: Connection refused" "$TMP/agent.out"
# A coordinator that cannot prove the token: the agent leaves at once.
python3 - "$PORT" >"$TMP/fake.out" 2>&1 <<'PY' &
import socket, sys, os
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
c, _ = s.accept(); f = c.makefile("rw")
print(f.readline().split()[0])
f.write("CHALLENGE %s %s\n" % (os.urandom(32).hex(), os.urandom(32).hex())); f.flush()
print(repr(f.readline()))
PY
for _ in $(seq 50); do ss -Hltn "sport = :$PORT" | grep -q . && break; sleep 0.1; done
RC=0; ERR=$(echo tok | timeout 20 "$RDMACTL" probe --agent "127.0.0.1:$PORT" 2>&1 >/dev/null) || RC=$?
wait
check agent-bad-proof-rc rc_is 1
check agent-bad-proof err_has "did not prove the token"
check agent-bad-proof-no-auth grep -qx "''" <(tail -1 "$TMP/fake.out")

# An agent that gave up before it joined (here n2's, as an agent says it
# when the coordinator did not answer in time) is down at once with its
# reason, not waited for until --node-timeout while n1's agent, which
# joined, keeps the launcher running.  ssh is a fake that runs n1's
# command here.
mkdir -p "$TMP/bin/early"
cat >"$TMP/bin/early/ssh" <<'EOF'
#!/bin/sh
# ssh -T -o BatchMode=yes -o ConnectTimeout=N HOST CMD
[ "$6" = n2 ] || RDMACTL_NODE=$6 exec sh -c "$7"
echo "rdmactl-agent: ended early: Failed to join the cluster probe as n2: the coordinator did not answer within 10 s (--timeout)"
exit 1
EOF
chmod +x "$TMP/bin/early/ssh"
PATH="$TMP/bin/early:$PATH" run -j probe -w 'n[1-2]' --launcher ssh --rdmactl "$RDMACTL" --transport tcp \
	--rendezvous 127.0.0.1 --node-timeout 120 -D 1
check early-agent-rc rc_is 1
check early-agent-joined json_ok '.run.joined == 1'
check early-agent-why json_ok '[.findings[] | select(.kind == "down_node") | .text] == ["n2 did not take part: its agent ended early: Failed to join the cluster probe as n2: the coordinator did not answer within 10 s (--timeout)"]'
finish
