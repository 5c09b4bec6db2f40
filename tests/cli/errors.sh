#!/bin/bash
# Errors with their cause, and one behaviour for every command's options:
# each failure names the value and the reason with the documented exit code,
# and with -j is also the document's "error" object; --help anywhere wins;
# empty values, contradictions and the other role's options are refused.
source "$(dirname "$0")/lib.sh"

# ---- -j: every failure is a JSON document with an "error" object ----

COMMANDS="devices, ports, gids, limits, snapshot, doctor, env, probe, report, completion, help, version"
fails_with unknown-command 2 "rdmactl: Unknown command 'nosuch'. Commands: $COMMANDS." nosuch
fails_with missing-option-value 2 "rdmactl doctor: option '--only' needs an argument (ID,...)" \
	doctor --only
fails_with bad-choice 2 "rdmactl doctor: invalid --for value 'tcp': use nccl, ucx, mpi or perftest" \
	doctor --for tcp
fails_with bad-value 2 "rdmactl probe: Failed to parse -s '12Q': expected bytes from 1 to 2G, with an optional K, M or G" \
	probe 127.0.0.1 -s 12Q
fails_with too-many-args 2 "rdmactl devices: unexpected argument 'b'. Usage: rdmactl devices [DEV]" \
	devices a b

# -j after what fails still counts: the parser never reaches it, the scan does.
run devices --frobnicate -j
check json-after-bad-option-rc rc_is 2
check json-after-bad-option json_error 2 "unknown option '--frobnicate'. See 'rdmactl devices --help'."
run nosuch --json
check json-after-unknown-command json_error 2 "Unknown command 'nosuch'. Commands: $COMMANDS."
run -j
check json-no-command-rc rc_is 2
check json-no-command json_error 2 "missing command. See 'rdmactl --help'."
run -jp devices --frobnicate
# One document whose error code is 2, over several lines.
pretty_error() { json_ok '.error.code == 2' && [ "$(wc -l <<<"$OUT")" -gt 3 ]; }
check json-pretty-error pretty_error

RC=0; OUT=$(RDMACTL_ROOT=/nonexistent "$RDMACTL" -j devices 2>/dev/null) || RC=$?
check json-bad-root-env json_error 2 "Failed to use RDMACTL_ROOT '/nonexistent': No such file or directory; give the directory a snapshot was unpacked into" ENOENT

# A failure at run time: the document the command built, plus the error and its errno.
PORT=$(free_port)
run -j probe 127.0.0.1 --port "$PORT" --transport tcp
check json-refused-rc rc_is 1
check json-refused json_error 1 "Failed to connect to 127.0.0.1 port $PORT: Connection refused. Is \`rdmactl probe --server\` running on 127.0.0.1? Is TCP port $PORT open?" ECONNREFUSED
check json-refused-keeps-doc json_ok '.probe.ok == false and .results == []'

# A long-running server prints a document per session: a failed one says why.
"$RDMACTL" -j probe --server --port "$PORT" --max-size 1M --timeout 5 >"$TMPD/server.out" 2>"$TMPD/server.err" &
server=$!
waits_for 120 listens "$PORT"
run probe 127.0.0.1 --port "$PORT" --transport tcp -s 2M -n 5
check server-session-refused rc_is 2
run probe 127.0.0.1 --port "$PORT" --transport tcp -s 4K -n 5 --lat-iters 0
check server-session-ok rc_is 0
# The server's document of each session, then stop it.
two_documents() { [ "$(grep -c . "$TMPD/server.out")" -ge 2 ]; }
check server-two-documents eventually two_documents
kill "$server"; wait "$server" 2>/dev/null
OUT=$(sed -n 1p "$TMPD/server.out")
check server-session-error json_error 1 "client 127.0.0.1: Failed to accept the test: buffer (message size x QPs) over the server's --max-size (2097152 B x 1 > 1048576 B)" EFBIG
OUT=$(sed -n 2p "$TMPD/server.out")
check server-next-session-clean json_ok '.probe.ok and (has("error") | not)'

# Success has no error object; neither has -V or version.
run -j --root "$FIXTURES/mlx5-6gids" devices
check json-success-no-error json_ok 'has("error") | not'
run -j -V
check json-version json_ok '.version | test("^[0-9]")'

# ---- --help and -h anywhere: the command's usage, exit 0, nothing runs ----

# help_only NAME USAGE ARGS...: stdout starts with USAGE, stderr is empty, exit 0.
help_only() {
	local name=$1 usage=$2
	shift 2
	run "$@"
	check "$name-rc" rc_is 0
	check "$name-usage" [ "$(head -n 1 <<<"$OUT")" = "$usage" ]
	check "$name-quiet" [ -z "$ERR" ]
}
DOCTOR_USAGE="Usage: rdmactl doctor [OPTIONS] "
PROBE_USAGE="Usage: rdmactl probe [OPTIONS] [PEER]"
# doctor --help used to print the help and then run every check (rc 1).
help_only doctor-help "$DOCTOR_USAGE" --root "$FIXTURES/doctor-broken" doctor --help
check doctor-help-runs-nothing [ "$(grep -c STATUS <<<"$OUT")" = 0 ]
help_only doctor-h-after-options "$DOCTOR_USAGE" doctor --only ports -h
help_only doctor-help-beats-bad-option "$DOCTOR_USAGE" doctor --bogus --help
help_only doctor-help-beats-bad-value "$DOCTOR_USAGE" doctor --only nosuch --for mpi --help
help_only help-before-command "$DOCTOR_USAGE" --help doctor
help_only help-abbreviated "$DOCTOR_USAGE" doctor --hel
help_only help-bundled "$DOCTOR_USAGE" -jh doctor
help_only help-with-json "$DOCTOR_USAGE" doctor -j --help
# A probe that would fail to connect: --help stops it before it starts.
help_only probe-help-runs-nothing "$PROBE_USAGE" probe 127.0.0.1 --port "$PORT" -h
help_only top-help "Usage: rdmactl [OPTIONS] COMMAND [ARGS]" --bogus -h
run --root "$FIXTURES/doctor-broken" snapshot -o "$TMPD/help.tar.gz" --help
help_wrote_nothing() { [ "$RC" = 0 ] && [ ! -e "$TMPD/help.tar.gz" ]; }
check snapshot-help-writes-nothing help_wrote_nothing

# An option's value or a word after "--" is not a request for help.
run probe --token -h 127.0.0.1 --port "$PORT" --transport tcp
check help-as-option-value rc_is 1
check help-as-option-value-ran err_has "Connection refused"
if offline_ok; then
	run_offline probe -- -h
	check help-after-dashdash rc_is 2
	check help-after-dashdash-peer err_has "cannot resolve '-h'"
fi
# An unknown command has no usage to show: it is reported, --help or not.
run nosuch --help
check help-unknown-command rc_is 2
check help-unknown-command-named err_is "rdmactl: Unknown command 'nosuch'. Commands: $COMMANDS."
# __complete's arguments are the words being completed, never options.
run __complete 1 rdmactl --he
check complete-words-not-options out_has '^--help$'

# help and version take the global options and count their arguments.
fails_with version-extra-arg 2 "rdmactl version: unexpected argument 'foo'. Usage: rdmactl version " \
	version foo
fails_with help-bad-option 2 "rdmactl help: unknown option '--bogus'. See 'rdmactl help --help'." \
	help devices --bogus
fails_with help-two-commands 2 "rdmactl help: unexpected argument 'ports'. Usage: rdmactl help [COMMAND]" \
	help devices ports

# ---- a name that does not resolve: said as doctor --peer says it ----

if offline_ok; then
	RUNNER=run_offline fails_with unresolved 2 "rdmactl probe: cannot resolve 'no.such.host.invalid': Name or service not known; give the peer's IP address on the RoCE network" \
		probe no.such.host.invalid --port "$PORT"
	# doctor --peer says the same words in its peer check.
	run_offline -j doctor --peer no.such.host.invalid --only peer
	check unresolved-as-doctor-says json_ok '.checks[0].found == "cannot resolve '"'"'no.such.host.invalid'"'"': Name or service not known"'
	RUNNER=run_offline fails_with unresolved-bind 2 "rdmactl probe: cannot resolve --bind 'no.such.host.invalid': Name or service not known; give an address of this node" \
		probe --server --bind no.such.host.invalid --port "$PORT"
	# A resolver that cannot be reached is a failure to retry, not bad input.
	OFFLINE_DNS=1 RUNNER=run_offline fails_with unresolved-dns-down 1 "rdmactl probe: cannot resolve 'no.such.host.invalid': Temporary failure in name resolution; give the peer's IP address on the RoCE network" \
		probe no.such.host.invalid --port "$PORT"
	# Nothing is sent: not one connect() (it said "Is TCP port 18600 open?").
	if command -v strace >/dev/null; then
		# (LeakSanitizer cannot run under ptrace: leaks are checked in the other cases.)
		OFFLINE_WRAP="env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=connect,sendto,sendmsg -o $TMPD/trace" \
			run_offline probe no.such.host.invalid
		check unresolved-traced rc_is 2
		sent_nothing() { [ -e "$TMPD/trace" ] && ! grep -qE 'AF_INET|sin_port|sendto|sendmsg' "$TMPD/trace"; }
		check unresolved-sends-nothing sent_nothing
	else
		skip unresolved-sends-nothing "needs strace"
	fi
else
	skip unresolved "needs unshare --mount --net (root) to resolve names offline"
fi

# ---- errno kept end to end ----

# --root: stat's own reason, a loop as ELOOP with its path (it said "is not a directory").
ln -s loop "$TMPD/loop"
ERRNO=ELOOP fails_with root-loop 2 "rdmactl: Failed to use --root '$TMPD/loop': Too many levels of symbolic links; give the directory a snapshot was unpacked into" \
	--root "$TMPD/loop" devices
: >"$TMPD/file"
ERRNO=ENOTDIR fails_with root-file 2 "rdmactl: Failed to use --root '$TMPD/file': Not a directory; give the directory a snapshot was unpacked into" \
	--root "$TMPD/file" devices

# A write over "ulimit -f" (with SIGXFSZ ignored, as a batch system may):
# EFBIG says "File too large", not "Input/output error".
efbig() { (trap '' XFSZ; ulimit -f 1; "$RDMACTL" "$@") >"$TMPD/out" 2>"$TMPD/err" </dev/null; }
RC=0; efbig --root "$FIXTURES/mlx5-6gids" snapshot -o "$TMPD/big.tar.gz" || RC=$?
OUT=$(cat "$TMPD/out"); ERR=$(cat "$TMPD/err")
check efbig-snapshot-rc rc_is 1
check efbig-snapshot-message err_is "rdmactl snapshot: Failed to write snapshot '$TMPD/big.tar.gz': File too large"
RC=0; efbig -j --root "$FIXTURES/mlx5-6gids" snapshot -o "$TMPD/big.tar.gz" || RC=$?
OUT=$(cat "$TMPD/out"); ERR=$(cat "$TMPD/err")
check efbig-snapshot-json json_error 1 "Failed to write snapshot '$TMPD/big.tar.gz': File too large" EFBIG

# ---- empty values are refused, naming the option as it was written ----

fails_with empty-peer 2 "rdmactl probe: Failed to parse PEER '': empty value. Usage: rdmactl probe [PEER]" \
	probe ''
fails_with empty-device-short 2 "rdmactl probe: Failed to parse -d '': empty value; give DEV[/PORT]" \
	probe -d '' 127.0.0.1
fails_with empty-device-long 2 "rdmactl probe: Failed to parse --device '': empty value; give DEV[/PORT]" \
	probe --device= 127.0.0.1
fails_with empty-device-bundled 2 "rdmactl probe: Failed to parse -d '': empty value; give DEV[/PORT]" \
	probe -vd '' 127.0.0.1
fails_with empty-bind 2 "rdmactl probe: Failed to parse --bind '': empty value; give ADDR" \
	probe --server --bind ''
fails_with empty-doctor-peer 2 "rdmactl doctor: Failed to parse --peer '': empty value; give HOST" \
	doctor --peer ''
fails_with empty-doctor-only 2 "rdmactl doctor: Failed to parse --only '': empty value; give ID,..." \
	doctor --only ''
fails_with empty-root 2 "rdmactl: Failed to parse --root '': empty value; give DIR" \
	--root '' devices
fails_with empty-root-after-command 2 "rdmactl devices: Failed to parse --root '': empty value; give DIR" \
	devices --root ''
fails_with empty-user 2 "rdmactl limits: Failed to parse --user '': empty value; give NAME" \
	limits --user ''
fails_with empty-snapshot-output 2 "rdmactl snapshot: Failed to parse -o '': empty value; give FILE" \
	snapshot -o ''
fails_with empty-devport 2 "rdmactl gids: Failed to parse DEV[/PORT] '': empty value. Usage: rdmactl gids [DEV[/PORT]]" \
	--root "$FIXTURES/mlx5-6gids" gids ''
fails_with empty-shell 2 "rdmactl completion: unknown shell '': use bash, zsh or fish" \
	completion ''
fails_with empty-help-command 2 "rdmactl help: Failed to parse COMMAND '': empty value. Usage: rdmactl help [COMMAND]" \
	help ''
# An empty RDMACTL_ROOT is an unset one (the live system), as environment variables go.
RC=0; RDMACTL_ROOT= "$RDMACTL" version >/dev/null 2>&1 || RC=$?
check empty-root-env-is-unset rc_is 0

# ---- contradictory options: exit 2, naming both ----

OK_NODE=$FIXTURES/doctor-healthy
# It checked nothing and said "nothing to fix".
fails_with only-skip-same 2 "rdmactl doctor: Failed to select checks: --skip 'ports' removes every check --only 'ports' picks; leave one of them out" \
	--root "$OK_NODE" doctor --only ports --skip ports
fails_with only-skip-group 2 "rdmactl doctor: Failed to select checks: --skip 'memlock' removes every check --only 'memlock.login,memlock.shell' picks; leave one of them out" \
	--root "$OK_NODE" doctor --only memlock.login,memlock.shell --skip memlock
ALL=devices,ports,roce.ipv4,roce.gid,roce.route,mtu,roce.qos,memlock,firewall,env.nccl,env.ucx,ucx.ud_dgid,functions,gpudirect,versions,peer
fails_with skip-everything 2 "rdmactl doctor: Failed to select checks: --skip '$ALL' leaves no check to run" \
	--root "$OK_NODE" doctor --skip "$ALL"
# A group less one of its checks still runs the rest.
run --root "$OK_NODE" -j doctor --only memlock --skip memlock.login
check only-skip-overlap-runs json_ok '[.checks[].id] == ["memlock.shell", "memlock.systemd"]'
fails_with list-with-only 2 "rdmactl doctor: Failed to list the checks: --list runs none, so --only would do nothing; leave one of them out" \
	doctor --list --only ports
fails_with list-with-peer 2 "rdmactl doctor: Failed to list the checks: --list runs none, so --peer would do nothing; leave one of them out" \
	doctor --list --peer 127.0.0.1
fails_with token-without-peer 2 "rdmactl doctor: Failed to use --token: it is for the peer's probe server; give --peer HOST too, or leave --token out" \
	--root "$OK_NODE" doctor --token secret
fails_with probe-n-and-D 2 "rdmactl probe: Failed to start: -n and -D exclude each other; give one" \
	probe 127.0.0.1 -n 10 -D 1
fails_with probe-size-and-sweep 2 "rdmactl probe: Failed to start: -s and --sweep exclude each other; use --sweep-max" \
	probe 127.0.0.1 -s 1K --sweep
fails_with probe-size-and-sweep-max 2 "rdmactl probe: Failed to start: -s and --sweep-max exclude each other; give one" \
	probe 127.0.0.1 --sweep-max 4K -s 1K
fails_with probe-cm-and-tcp 2 "rdmactl probe: Failed to start: --rdma-cm needs the rdma transport" \
	probe 127.0.0.1 --transport tcp --rdma-cm

# ---- an option of the other role: exit 2, naming the option and the role ----

for opt in "-s 4K" "--size 4K" "--sweep" "--sweep-max 64K" "-n 10" "-D 1" "--qps 2" "--depth 4" \
	"--bidir" "--verify" "--rdma-cm" "--transport tcp" "--expect 1" "--lat-iters 0"; do
	name=${opt%% *}
	# shellcheck disable=SC2086 # the option and its value are two words
	fails_with "server-given-${name#-*-}" 2 "rdmactl probe: Failed to start the server: $name is a client option (the client chooses the test); give it to the client, not with --server" \
		probe --server --port "$PORT" $opt
done
for opt in "--once" "--bind 127.0.0.1" "--max-size 1M"; do
	name=${opt%% *}
	# shellcheck disable=SC2086
	fails_with "client-given-${name#--}" 2 "rdmactl probe: Failed to start the client: $name is a server option; give it with --server on the other node" \
		probe 127.0.0.1 --port "$PORT" $opt
done
# The first one given is named, as written.
fails_with server-given-bundled 2 "rdmactl probe: Failed to start the server: -n is a client option (the client chooses the test); give it to the client, not with --server" \
	probe --server -vn 5 --verify

# ---- colour (--color=auto) follows no-color.org, and is off for TERM=dumb ----

# on_tty ENV...: doctor's table on a terminal (script(1) gives it one) with
# the environment ENV...; sets OUT.
on_tty() {
	OUT=$(env -u NO_COLOR TERM=xterm "$@" script -qec \
		"'$RDMACTL' --root '$OK_NODE' doctor --only devices" /dev/null 2>&1)
}
ESC=$'\033'
colour() { [[ $OUT == *"$ESC[32mok$ESC[0m"* ]]; }
plain() { [[ $OUT != *"$ESC"* ]] && [[ $OUT == *"ok      devices"* ]]; }
if command -v script >/dev/null; then
	on_tty
	check color-on-a-terminal colour
	on_tty NO_COLOR=1
	check color-off-for-no-color plain
	# An empty NO_COLOR is not set (it turned colour off).
	on_tty NO_COLOR=
	check color-on-for-empty-no-color colour
	# A dumb terminal gets none (it got escapes).
	on_tty TERM=dumb
	check color-off-for-dumb-terminal plain
	OUT=$(env TERM=dumb NO_COLOR=1 script -qec \
		"'$RDMACTL' --color=always --root '$OK_NODE' doctor --only devices" /dev/null 2>&1)
	check color-always-wins colour
else
	skip color-on-a-terminal "needs script (util-linux)"
fi
run --root "$OK_NODE" doctor --only devices
check color-off-in-a-pipe plain

# ---- a long value is cut in its middle: the reason at the end survives ----

if offline_ok; then
	LONG=$(printf 'a%.0s' $(seq 5000)).invalid
	TAIL="': Name or service not known; give the peer's IP address on the RoCE network"
	run_offline probe "$LONG"
	check long-host-rc rc_is 2
	check long-host-one-line err_one_line
	check long-host-reason [ "${ERR: -${#TAIL}}" = "$TAIL" ]
	check long-host-start [ "${ERR:0:37}" = "rdmactl probe: cannot resolve 'aaaaaa" ]
	check long-host-cut-marked err_has 'a\.\.\.a'
	check long-host-shortened [ "${#ERR}" -lt 4096 ]
	line=$ERR
	run_offline -j probe "$LONG"
	check long-host-json json_error 2 "${line#rdmactl probe: }"
	# doctor's FOUND cell is 1 KiB: it ends with the reason too (it ended in the name).
	run_offline -j doctor --peer "$LONG" --only peer
	check long-peer-doctor json_ok '.checks[0].found | endswith(".invalid'"'"': Name or service not known") and startswith("cannot resolve '"'"'aaa")'
else
	skip long-host "needs unshare --mount --net (root) to resolve names offline"
fi

finish
