#!/bin/bash
# The job kinds (--for), defined once in lib/doctor/job_kind.c: every
# command that takes --for refuses a value outside its set in one line
# naming it (exit 2), env says why it takes no perftest, every kind the
# completion offers a command is taken by it, each command's man page
# lists exactly that set, and doctor -w hands the kind to every node.
source "$(dirname "$0")/lib.sh"
unset SLURM_JOB_NODELIST SLURM_JOB_ID SLURM_STEP_ID RDMACTL_LAUNCHER RDMACTL_TOKEN RDMACTL_NODE
MAN=$TOP/man
ROOT=$FIXTURES/mlx5-6gids

# The commands whose usage has --for, found in the command list, not named here.
cmds_with_for() {
	local c
	for c in $("$RDMACTL" __complete 1 rdmactl ''); do
		"$RDMACTL" "$c" --help 2>/dev/null | grep -qE '^ +--for JOB ' && echo "$c"
	done
}
# The kinds the completion offers COMMAND for --for (the table's set), one a line.
kinds_of() { "$RDMACTL" __complete 3 rdmactl "$1" --for ''; }

# The man page's lists of kinds: each .BR line of "a | b | c" words (the
# synopsis) or of "--for a|b|c" (the option), blanks and quotes removed.
man_lists() {
	grep -E '^\.BR .*[a-z]+ *\| *[a-z]+' "$MAN/rdmactl-$1.8" | grep -E 'nccl' |
		sed -e 's/^\.BR //' -e 's/\\-\\-for//' -e 's/[][" ]//g'
}

CMDS=$(cmds_with_for)
check commands-found [ "$(wc -w <<<"$CMDS")" -ge 2 ]
for c in $CMDS; do
	kinds=$(kinds_of "$c")
	check "$c-kinds-offered" [ "$(wc -l <<<"$kinds")" -ge 3 ]

	# A value of no kind: one line naming it and the command's set, exit 2, nothing on stdout.
	run --root "$ROOT" "$c" --for tcp
	check "$c-unknown-rc" rc_is 2
	check "$c-unknown-one-line" err_one_line
	check "$c-unknown-names-it" err_has "^rdmactl $c: invalid --for value 'tcp': use "
	check "$c-unknown-lists-set" err_has ": use $(paste -sd, <<<"$kinds" | sed 's/,\([^,]*\)$/ or \1/; s/,/, /g')$"
	check "$c-unknown-stdout" out_empty
	run --root "$ROOT" -j "$c" --for tcp
	check "$c-unknown-json" json_ok '.error.code == 2 and (.error.message | test("'\''tcp'\''"))'

	# Every kind offered is taken (a refusal would be exit 2).
	for k in $kinds; do
		run --root "$ROOT" "$c" --for "$k"
		check "$c-takes-$k" [ "$RC" -ne 2 ]
	done

	# The man page lists the same set, in the synopsis and under OPTIONS.
	want=$(paste -sd'|' <<<"$kinds")
	lists=$(man_lists "$c")
	check "$c-man-lists" [ "$(wc -l <<<"$lists")" -ge 2 ]
	check "$c-man-same-set" [ -z "$(grep -vxF -- "$want" <<<"$lists")" ]
done

# env takes no perftest, and says why in the same one line.
fails_with env-perftest 2 "rdmactl env: invalid --for value 'perftest': perftest reads no variable (its -d, -i and -x: rdmactl gids --recommend); use nccl, ucx or mpi" \
	--root "$ROOT" env --for perftest
# The missing --for names the same set.
fails_with env-missing 2 "rdmactl env: Failed to choose the variables: --for is missing; give --for nccl, ucx or mpi" \
	--root "$ROOT" env

# doctor -w: each node's command line carries the kind given, and none when none was.
if ! command -v pdsh >/dev/null; then
	skip remote-for "pdsh is not installed (Debian package pdsh)"
	finish
fi
printf '#!/bin/sh\necho "$*" >>"%s"\nexec "%s" "$@"\n' "$TMPD/argv" "$RDMACTL" >"$TMPD/rdmactl"
chmod +x "$TMPD/rdmactl"
NODE=jk$$n
run --root "$FIXTURES/doctor-healthy" doctor -w "$NODE[1-2]" --launcher local --rdmactl "$TMPD/rdmactl" \
	--for mpi --only devices
check remote-for-rc rc_is 0
check remote-for-each-node [ "$(grep -c -- ' --for mpi ' "$TMPD/argv")" -eq 2 ]
: >"$TMPD/argv"
run --root "$FIXTURES/doctor-healthy" doctor -w "$NODE[1-2]" --launcher local --rdmactl "$TMPD/rdmactl" \
	--only devices
check remote-no-for-rc rc_is 0
no_for() { [ "$(wc -l <"$TMPD/argv")" -eq 2 ] && ! grep -q -- '--for' "$TMPD/argv"; }
check remote-no-for no_for
finish
