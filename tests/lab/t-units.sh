#!/bin/bash
# The packages' systemd units, run as they say (the guests have no systemd:
# each unit's lines are read from contrib/systemd and carried out here).
# lab-a runs rdmactl-probe.service's ExecStart with its token from a file
# in the EnvironmentFile format, with LimitMEMLOCK= applied over a 64 KiB
# limit and DynamicUser=/NoNewPrivileges= as an unprivileged user without
# new privileges; lab-b measures through it with the token, and is refused
# without it or with another.  Then each guest runs
# rdmactl-doctor.service's ExecStart into a textfile directory of its own,
# which must hold only rdmactl.prom, whole, passing promtool.
# lab-timeout: 240
# lab-seconds: 23

lab_need_peer
UNITS=$LAB_SRC/contrib/systemd
port=18600

# unit_value UNIT KEY: the value of KEY= in UNIT (the last one, as systemd
# takes it; a leading '-' or '@' of Exec lines is not used by these units).
unit_value() { sed -n "s/^$2=//p" "$UNITS/$1" | tail -1; }

# unit_argv UNIT KEY: the command line of KEY, with the packaged
# /usr/bin/rdmactl replaced by the binary under test; one word per line
# (the ExecStart lines quote nothing; the doctor's expands
# ${RDMACTL_TEXTFILE_DIR}, which its caller replaces).
unit_argv() {
	unit_value "$1" "$2" | sed "s|^/usr/bin/rdmactl |$RDMACTL |" | tr ' ' '\n'
}

# load_env FILE: export each KEY=VALUE line of an EnvironmentFile with the
# shell's own export (a builtin: the token is on no command line).
load_env() {
	local k v
	while IFS='=' read -r k v; do
		[[ -z $k || $k == \#* ]] && continue
		export "$k=$v"
	done <"$1"
}

check_eq "probe unit: token file" /etc/rdmactl/probe.token "$(unit_value rdmactl-probe.service EnvironmentFile)"
check_eq "probe unit: memlock" infinity "$(unit_value rdmactl-probe.service LimitMEMLOCK)"
check_eq "probe unit: dynamic user" yes "$(unit_value rdmactl-probe.service DynamicUser)"
check_eq "probe unit: no new privileges" yes "$(unit_value rdmactl-probe.service NoNewPrivileges)"
mapfile -t exec_start < <(unit_argv rdmactl-probe.service ExecStart)
echo "ExecStart: ${exec_start[*]}"
[[ ${exec_start[0]} == "$RDMACTL" ]] || fail "probe unit: ExecStart does not start /usr/bin/rdmactl"
grep -v '^#' "$UNITS/rdmactl-probe.service" | grep -q -- '--token' &&
	fail "probe unit: a token on the command line"

if [[ $LAB_ROLE == a ]]; then
	# The token file as the README says to write it, root-only.
	(umask 077 && echo "RDMACTL_TOKEN=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')" >probe.token)
	check_eq "token file mode" 600 "$(stat -c %a probe.token)"
	cp probe.token "$LAB_SHARE/token"

	# ExecStartPre refuses an empty token and passes this one.
	pre=$(unit_value rdmactl-probe.service ExecStartPre | sed 's/^\/bin\/sh -c //; s/^'"'"'//; s/'"'"'$//; s/\$\$/$/g')
	(unset RDMACTL_TOKEN; sh -c "$pre" 2>/dev/null) && fail "ExecStartPre passed without a token"
	(load_env probe.token && sh -c "$pre") || fail "ExecStartPre refused the token"

	# rdma-core's udev rules give the verbs devices mode 0666 (the guests
	# have no udev); DynamicUser's user opens them through that.
	chmod 0666 /dev/infiniband/uverbs* /dev/infiniband/rdma_cm 2>/dev/null
	mkdir -m 0755 -p /run/lab/units-probe
	(
		# A limit LimitMEMLOCK= must lift: 64 KiB pins no 64 KiB buffer.
		ulimit -l 64
		load_env probe.token
		cd /run/lab/units-probe || exit 1
		exec prlimit --memlock=unlimited:unlimited \
			setpriv --reuid=61999 --regid=61999 --clear-groups --no-new-privs \
			"${exec_start[@]}" --port "$port"
	) >server.out 2>server.err &
	server=$!
	lab_wait_listen $port || fail "the probe server does not listen on $port"
	pid=$server # the subshell execs prlimit, which execs setpriv, which execs rdmactl
	check_eq "server runs as the unprivileged user" 61999 "$(stat -c %u "/proc/$pid")"
	check_eq "server's memlock (LimitMEMLOCK=infinity)" unlimited \
		"$(awk '/^Max locked memory/ {print $4}' "/proc/$pid/limits")"
	check_eq "server has no new privileges" 1 "$(awk '/^NoNewPrivs/ {print $2}' "/proc/$pid/status")"
	grep -qF "$(sed 's/^RDMACTL_TOKEN=//' probe.token)" "/proc/$pid/cmdline" &&
		fail "the token is on the server's command line"
	lab_put server-up 1
	lab_get client-done 120 >/dev/null
	kill "$server"
	wait "$server" 2>/dev/null
	echo "== server output"
	cat server.out server.err
	grep -q 'clients must prove the token' server.err || fail "the server did not say it wants the token"
else
	lab_get server-up 60 >/dev/null
	lab_budget limit 90
	probe=(timeout -k 5 "$limit" "$RDMACTL" -j probe "$LAB_PEER_IP" --port $port -s 64K -n 100 --lat-iters 10)
	rc=0
	(load_env "$LAB_SHARE/token" && "${probe[@]}") >with.json 2>with.err || rc=$?
	cat with.err
	check_eq "probe with the token: exit status" 0 "$rc"
	check_eq "probe with the token: transport" rdma "$(jq -r .probe.transport with.json)"
	[[ $(jq -r '.results[0].bw_avg_gbps > 0' with.json) == true ]] || fail "no bandwidth measured through the unit's server"
	jq -c '.results[]? | [.bytes, .msgs, .bw_avg_gbps, .lat_median_us]' with.json
	rc=0
	env -u RDMACTL_TOKEN "${probe[@]}" >without.json 2>without.err || rc=$?
	check_eq "probe without the token: exit status" 1 "$rc"
	grep -q 'authentication failed' without.err || fail "no 'authentication failed' without the token"
	rc=0
	RDMACTL_TOKEN=not-the-token "${probe[@]}" >wrong.json 2>wrong.err || rc=$?
	check_eq "probe with another token: exit status" 1 "$rc"
	lab_put client-done 1
fi
lab_barrier probe-done 150

# rdmactl-doctor.service: its ExecStart into a directory of our own (the
# packaged one is node_exporter's).
dir=$(unit_value rdmactl-doctor.service Environment | sed -n 's/^RDMACTL_TEXTFILE_DIR=//p')
check_eq "doctor unit: textfile directory" /var/lib/prometheus/node-exporter "$dir"
check_eq "doctor unit: no condition (a missing directory fails the run, said)" "" \
	"$(grep '^Condition' "$UNITS/rdmactl-doctor.service")"
check_eq "doctor unit: a failed check (1), a stopped run (SIGTERM) are successful runs" "1 SIGTERM" \
	"$(unit_value rdmactl-doctor.service SuccessExitStatus)"
mkdir textfile
mapfile -t doctor < <(unit_argv rdmactl-doctor.service ExecStart | sed "s|^\${RDMACTL_TEXTFILE_DIR}/|$PWD/textfile/|")
echo "ExecStart: ${doctor[*]}"
rc=0
(umask "$(unit_value rdmactl-doctor.service UMask)" && "${doctor[@]}") || rc=$?
((rc <= 1)) || fail "doctor's ExecStart exited $rc"
check_eq "textfile directory holds rdmactl.prom alone" rdmactl.prom "$(ls textfile)"
check_eq "rdmactl.prom is readable by node_exporter's user" 644 "$(stat -c %a textfile/rdmactl.prom)"
if ! command -v promtool >/dev/null; then
	fail "promtool not installed (Debian package prometheus)"
elif promtool check metrics <textfile/rdmactl.prom; then
	echo "ok: promtool check metrics"
else
	fail "promtool check metrics failed"
fi
echo "== rdmactl.prom"
cat textfile/rdmactl.prom
grep -qx 'rdmactl_port_state{device="rxe0",port="1",state="ACTIVE",phys_state="LinkUp"} 1' textfile/rdmactl.prom ||
	fail "rxe0/1 is not ACTIVE in the metrics"
grep -qx 'rdmactl_port_netdev_mtu_bytes{device="rxe0",port="1",netdev="eth0"} 1500' textfile/rdmactl.prom ||
	fail "eth0's MTU 1500 is not in the metrics"
grep -q '^rdmactl_port_gid_index{device="rxe0",port="1"} [0-9]' textfile/rdmactl.prom ||
	fail "no recommended GID index in the metrics"
# rxe names its retransmissions completer_retry_err and its sequence errors rcvd_seq_err.
grep -q '^rdmactl_port_retransmissions_total{device="rxe0",port="1",counter="completer_retry_err"} [0-9]' \
	textfile/rdmactl.prom || fail "rxe's completer_retry_err is not in the metrics"
grep -q 'scope="shell"' textfile/rdmactl.prom && fail "memlock.shell is in the metrics though the unit skips it"
exit 0
