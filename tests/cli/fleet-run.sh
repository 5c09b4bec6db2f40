#!/bin/bash
# `rdmactl doctor -w` and `probe -w` as a careless user or an adversary
# runs them, against launchers faked on PATH (they test rdmactl's own
# handling, not the launchers'): an empty list never runs the local
# doctor, a bad option starts no launcher, the limit of open files is
# raised or the fan-out fitted to it, a signal leaves none of the
# launcher's children behind, and unreachable nodes fold by cause.
source "$(dirname "$0")/lib.sh"
unset SLURM_JOB_NODELIST SLURM_JOB_ID SLURM_STEP_ID RDMACTL_LAUNCHER RDMACTL_TOKEN

BIN=${TMPD:?}/bin
mkdir -p "$BIN"
# Every fake launcher notes that it ran.  ssh (as rdmactl runs it:
# ssh -T -o BatchMode=yes -o ConnectTimeout=N HOST CMD) fails as ssh does
# for a name that does not resolve, or for f1 and f2 a refused connection,
# after SSH_DELAY seconds.  pdsh, with PDSH_CHILDREN set, starts three
# long commands each in a session of its own, as pdsh runs ssh, and notes
# their pids; else it fails at once.
for l in ssh pdsh clush srun; do
	cat >"$BIN/$l" <<EOF
#!/bin/sh
echo "$l \$*" >>"$TMPD/ran"
EOF
	chmod +x "$BIN/$l"
done
cat >>"$BIN/ssh" <<'EOF'
sleep "${SSH_DELAY:-0}"
case $6 in
f1 | f2) echo "ssh: connect to host $6 port 22: Connection refused" >&2 ;;
*) echo "ssh: Could not resolve hostname $6: Name or service not known" >&2 ;;
esac
exit 255
EOF
cat >>"$BIN/pdsh" <<EOF
[ -n "\${PDSH_CHILDREN:-}" ] || exit 1
for _ in 1 2 3; do
	setsid sh -c 'echo \$\$ | tee -a "$TMPD/all-children" >>"$TMPD/children"; exec sleep 300' &
done
wait
EOF
export PATH="$BIN:$PATH"
# Whatever rdmactl leaves, the test does not: the fake pdsh's children end with it.
trap 'kill -KILL $(cat "$TMPD/all-children" 2>/dev/null) 2>/dev/null; rm -rf "$TMPD"' EXIT
launched() { [ -e "$TMPD/ran" ]; }
not_launched() { ! launched; }

# --- an empty list is refused as -w ' ' is, never the local doctor ---
: >"$TMPD/empty"
printf '# the nodes of rack 3, one day\n\n   # none yet\n' >"$TMPD/comments"
for f in empty comments; do
	for slurm in '' 'n[1-2]'; do
		for launcher in '' '--launcher ssh'; do
			name=empty-$f${slurm:+-slurm}${launcher:+-ssh}
			# shellcheck disable=SC2086
			SLURM_JOB_NODELIST=$slurm fails_with "$name" 2 \
				"rdmactl doctor: Failed to read -w: invalid hostlist file '$TMPD/$f': names no host" \
				doctor -w "@$TMPD/$f" --only devices $launcher
			# shellcheck disable=SC2086
			SLURM_JOB_NODELIST=$slurm fails_with "probe-$name" 2 \
				"rdmactl probe: Failed to read -w: invalid hostlist file '$TMPD/$f': names no host" \
				probe -w "@$TMPD/$f" $launcher
		done
	done
done
# -w's whole-number options are read once (launch_opt()) for both commands: one line each.
for cmd in doctor probe; do
	fails_with "$cmd-bad-node-timeout" 2 \
		"rdmactl $cmd: Failed to parse --node-timeout '0': expected a whole number from 1 to 3600" \
		"$cmd" -w 'n[1-2]' --node-timeout 0
done
fails_with bad-fanout 2 "rdmactl doctor: Failed to parse --fanout '4097': expected a whole number from 1 to 4096" \
	doctor -w 'n[1-2]' --fanout 4097
: >"$TMPD/empty"
fails_with empty-exclude 2 "rdmactl doctor: Failed to read --exclude: invalid hostlist file '$TMPD/empty': names no host" \
	doctor -w 'n[1-2]' --exclude "@$TMPD/empty"
check empty-no-launcher not_launched
# Not a regular file: refused at once, never read (a FIFO nobody writes waits for ever).
mkfifo "$TMPD/fifo"
# run_10 ARGS...: as run, but a hang is rc 124 instead of a stuck test.
run_10() {
	RC=0
	timeout 10 "$RDMACTL" "$@" >"$TMPD/out" 2>"$TMPD/err" </dev/null || RC=$?
	OUT=$(cat "$TMPD/out")
	ERR=$(cat "$TMPD/err")
}
for cmd in doctor probe; do
	RUNNER=run_10 fails_with "fifo-$cmd" 2 "rdmactl $cmd: Failed to read -w: Failed to read hostlist file '$TMPD/fifo': it is a FIFO, not a regular file" \
		"$cmd" -w "@$TMPD/fifo"
done
fails_with device-exclude 2 "rdmactl doctor: Failed to read --exclude: Failed to read hostlist file '/dev/zero': it is a character device, not a regular file" \
	doctor -w 'n[1-2]' --exclude @/dev/zero
# -x means one thing in every command: the GID index, as perftest's (probe
# -x, gids --recommend's perftest line); doctor's --exclude has no short form.
fails_with doctor-no-x 2 "rdmactl doctor: unknown option '-x'. See 'rdmactl doctor --help'." \
	doctor -w 'n[1-2]' -x n2
check doctor-no-x-no-launcher not_launched
check fifo-no-launcher not_launched

# --- what the nodes would refuse is refused here, before any starts ---
fails_with only-typo 2 "rdmactl doctor: Unknown check 'foo' in --only. 'rdmactl doctor --list' lists the checks." \
	doctor -w 'n[1-3]' --launcher ssh --only foo
fails_with skip-typo 2 "rdmactl doctor: Unknown check 'prots' in --skip. Did you mean 'ports'? ('rdmactl doctor --list' lists them)" \
	doctor -w 'n[1-3]' --launcher pdsh --skip prots
fails_with only-skip-none 2 "rdmactl doctor: Failed to select checks: --skip 'ports' removes every check --only 'ports' picks; leave one of them out" \
	doctor -w 'n[1-3]' --launcher ssh --only ports --skip ports
fails_with skip-all-default-launcher 2 "rdmactl doctor: Unknown check 'foo' in --only. 'rdmactl doctor --list' lists the checks." \
	doctor -w 'n[1-3]' --only foo
check bad-option-no-launcher not_launched

# --- unreachable nodes: one row a cause in text, one a node under -j ---
run doctor -w 'f[1-40]' --launcher ssh
check fold-rc rc_is 1
check fold-resolve out_has '^f\[3-40\] +ssh failed: ssh: Could not resolve hostname <node>: Name or service not known$'
check fold-refused out_has '^f\[1-2\] +ssh failed: ssh: connect to host <node> port 22: Connection refused$'
check fold-two-rows [ "$(grep -c 'ssh failed' <<<"$OUT")" = 2 ]
check fold-summary out_has '^40 nodes: 0 failed, 0 warned, 40 unreachable'
run doctor -w 'f[1-2],f7' --launcher ssh
check fold-one-node-own-words out_has '^f7 +ssh failed: ssh: Could not resolve hostname f7: Name'
run -j doctor -w 'f[1-40]' --launcher ssh
check fold-json-per-node json_ok '(.unreachable | length) == 40 and
	.unreachable[2] == {node: "f3", error: "ssh failed: ssh: Could not resolve hostname f3: Name or service not known", rc: null}'

# --- progress on a terminal only ---
if command -v script >/dev/null; then
	RC=0
	ERR=$(script -qec "'$RDMACTL' doctor -w 'f[1-40]' --launcher ssh >/dev/null" /dev/null) || RC=$?
	check progress-tty grep -qF 'doctor: 40 of 40 nodes done' <<<"$ERR"
	check progress-cleared grep -qF $'\r\033[K' <<<"$ERR"
else
	skip progress-tty "script (util-linux) not installed"
fi
run doctor -w 'f[1-40]' --launcher ssh
check progress-not-on-pipe bash -c '! grep -q "nodes done" <<<"$1"' _ "$ERR"

# --- open files: the soft limit raised, the fan-out fitted to the hard one ---
# run_limit ULIMIT-OPTION N ARGS...: run with ulimit ULIMIT-OPTION N.
run_limit() {
	local opt=$1 n=$2
	shift 2
	RC=0
	(ulimit "$opt" "$n" && exec "$RDMACTL" "$@") >"$TMPD/out" 2>"$TMPD/err" </dev/null || RC=$?
	OUT=$(cat "$TMPD/out")
	ERR=$(cat "$TMPD/err")
}
if [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 2048 ]; then
	SSH_DELAY=0.3 run_limit -Sn 128 doctor -w 'f[1-300]' --launcher ssh --fanout 1500
	check fd-soft-rc rc_is 1
	check fd-soft-no-emfile bash -c '! grep -q "Too many open files" <<<"$1$2"' _ "$OUT" "$ERR"
	check fd-soft-all-resolved [ "$(grep -c 'f\[3-300\] .*Could not resolve' <<<"$OUT")" = 1 ]
	check fd-soft-no-warning bash -c '! grep -q "open files are allowed" <<<"$1"' _ "$ERR"
else
	skip fd-soft "the hard limit of open files is below 2048"
fi
SSH_DELAY=0.3 run_limit -n 200 doctor -w 'f[1-150]' --launcher ssh --fanout 1500
check fd-hard-rc rc_is 1
check fd-hard-no-emfile bash -c '! grep -q "Too many open files" <<<"$1$2"' _ "$OUT" "$ERR"
check fd-hard-said-once err_is "rdmactl doctor: warning: only 200 open files are allowed (ulimit -Hn): 34 nodes at once instead of 150; raise the hard limit (limits.conf nofile) for more"
check fd-hard-all-resolved [ "$(grep -c 'f\[3-150\] .*Could not resolve' <<<"$OUT")" = 1 ]
rm -f "$TMPD/ran"
run_limit -n 200 probe -w 'f[1-300]' --launcher ssh --node-timeout 2 --rendezvous 127.0.0.1
check fd-probe-rc rc_is 2
check fd-probe err_is "rdmactl probe: Failed to run 300 agents at once: only 200 open files are allowed (ulimit -Hn), room for 26; raise the hard limit (limits.conf nofile)"
check fd-probe-no-launcher not_launched

# --- a signal ends the launcher and everything it started, then rdmactl ---
# signalled SIG ARGS...: rdmactl ARGS, SIG sent once the fake pdsh's three
# children run; sets RC and LEFT (the children still alive).
signalled() {
	local sig=$1 pid c
	shift
	rm -f "$TMPD/children"
	PDSH_CHILDREN=1 env --default-signal="$sig" "$RDMACTL" "$@" >/dev/null 2>&1 </dev/null &
	pid=$!
	for _ in $(seq 1 200); do
		[ "$(cat "$TMPD/children" 2>/dev/null | wc -l)" = 3 ] && break
		sleep 0.05
	done
	kill -"$sig" "$pid"
	RC=0
	wait "$pid" 2>/dev/null || RC=$?
	LEFT=''
	for c in $(cat "$TMPD/children" 2>/dev/null); do
		if kill -0 "$c" 2>/dev/null; then
			LEFT="$LEFT $c"
			kill -KILL "$c"
		fi
	done
	OUT= ERR="children left:$LEFT"
}
for sig in INT TERM HUP; do
	signalled "$sig" doctor -w 'n[1-3]' --launcher pdsh
	check "sig$sig-doctor-died-of-it" rc_is $((128 + $(kill -l "$sig")))
	check "sig$sig-doctor-no-orphan" [ -z "$LEFT" ]
	signalled "$sig" probe -w 'n[1-3]' --launcher pdsh --rendezvous 127.0.0.1
	check "sig$sig-probe-died-of-it" rc_is $((128 + $(kill -l "$sig")))
	check "sig$sig-probe-no-orphan" [ -z "$LEFT" ]
done
finish
