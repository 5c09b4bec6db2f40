#!/bin/bash
# The package under a real systemd, node_exporter and Prometheus.  lab-b is
# the lab's systemd guest (Debian's systemd as PID 1, on an overlay of the
# shared root): it installs the .deb `make deb` built, as an operator would,
# runs rdmactl-probe.service with its token file and rdmactl-doctor.timer
# into Debian's prometheus-node-exporter, and is then made wrong (RoCE v2
# dropped, MTU lowered) and fixed.  lab-a, a plain guest, measures through
# lab-b's probe server, runs node_exporter and the doctor by hand, and a
# Prometheus that scrapes both with the shipped alert rules: each alert
# must fire for lab-b alone, and clear.  The test copy of the rules fires
# after 2 s (for: 10m/15m) and calls metrics stale after two timer periods
# and a scrape (900 s), and the timer runs every 15 s (a drop-in): the
# same rules, in test time, whose seconds are stretched by the slower
# guest's pace, the period by its doctor run's length
# (lab_budget_slowest, doctor_time).
# Last, disable and purge leave nothing behind, the purge made with the
# units running.  What an operator sees (systemctl status, systemd-analyze
# security, the firing alerts) is kept in the test's share, and README.md's
# Prometheus section must show it.
# lab-needs: systemd
# lab-timeout: 420
# lab-seconds: 90

lab_need_peer
[[ -n $LAB_SYSTEMD ]] || skip "needs the systemd guest (# lab-needs: systemd)"
port=18600
ne=9100
textfile=/var/lib/prometheus/node-exporter/rdmactl.prom
prom=http://127.0.0.1:9090
# Prometheus's instance labels: the systemd guest's, the plain one's.
inst_b=$(lab_ip "$LAB_SYSTEMD"):$ne
[[ $LAB_NODE == "$LAB_SYSTEMD" ]] && inst_a=$LAB_PEER_IP:$ne || inst_a=$LAB_IP:$ne

# The schedule in test time (the timer's period and lab-a's doctor loop,
# the rules' for: and staleness, Prometheus's scrape and evaluation) is
# a pace, not a guard: metrics are stale once older than two periods, so
# a doctor run must take less than one.  At the lab's own pace it takes a
# few seconds of the 15; under LAB_CPUS=1 the systemd guest's took about
# a minute (pace 800%), its metrics were 75 s old at the baseline, and
# its node_exporter missed the 3 s scrapes.  So Prometheus's seconds
# (scrape, evaluation, for:) are stretched by the slower guest's pace,
# as the budgets are: a scrape that times out makes the target's series
# stale at once and resolves its alerts (seen with 6-s scrapes beside
# two labs).  The period follows what a doctor run really takes
# (doctor_time): the pace, measured once at the start, the run's busiest
# moment, stretched it to 120 s in make check, where the timer's doctor
# ran in 2 s; and the staleness is two periods, a scrape and an
# evaluation, the oldest a healthy guest's textfile can look.
# timed_doctor CMD...: run CMD, this guest's first doctor run, and say
# how long it took (doctor-ms-NODE) for doctor_time.
timed_doctor() {
	local t0=${EPOCHREALTIME/./} rc=0
	"$@" || rc=$?
	lab_put "doctor-ms-$LAB_NODE" $(((${EPOCHREALTIME/./} - t0) / 1000))
	return $rc
}
# doctor_time VAR SECONDS: VAR is four times the slower guest's timed
# doctor run, at least SECONDS and at most SECONDS at the slower pace.
doctor_time() {
	local mine peer cap s
	mine=$(lab_get "doctor-ms-$LAB_NODE" 150) && peer=$(lab_get "doctor-ms-$LAB_PEER" 150) || exit 1
	((peer > mine)) && mine=$peer
	s=$(((4 * mine + 999) / 1000))
	((s > $2)) || s=$2
	lab_budget_slowest cap "$2"
	((s < cap)) || s=$cap
	printf -v "$1" '%d' "$s"
}

# Both guests at MTU 9000: rxe's active MTU is then its largest (4096), so
# RdmactlMtuBelowNetdev has nothing to say until lab-b's is lowered.
ip link set eth0 mtu 9000 || fail "cannot raise eth0's MTU"

# README.md's services section shows what this test sees: each block
# marked `<!-- lab: ts-units NAME -->` must be what the test got, figures,
# dates and ages masked (they change from run to run); and the exposure
# levels it quotes must be systemd-analyze's.

# readme_block NAME: the lines of README.md's block marked NAME.
readme_block() {
	awk -v m="<!-- lab: ts-units $1 -->" '$0 == m { f = 1; next }
		f == 1 && /^```/ { f = 2; next } f == 2 && /^```/ { exit } f == 2' "$LAB_SRC/README.md"
}

# masked: figures as N, day and month names as DAY and MON, "; 4s ago"
# as "; ago", runs of spaces as one.
masked() {
	sed -E -e 's/; [^;]* ago$/; ago/' -e 's/[0-9]+(\.[0-9]+)?/N/g' \
		-e 's/\<(Mon|Tue|Wed|Thu|Fri|Sat|Sun)\>/DAY/g' \
		-e 's/\<(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\>/MON/g' -e 's/ +/ /g'
}

# check_readme NAME FILE: README.md's block NAME is FILE, masked.
check_readme() {
	local want got
	want=$(readme_block "$1" | masked) got=$(masked <"$2")
	if [[ -z $want ]]; then
		fail "README.md has no block marked <!-- lab: ts-units $1 -->"
	elif [[ $want != "$got" ]]; then
		fail "README.md's $1 block is not what the lab shows:$(diff <(echo "$want") <(echo "$got") | sed 's/^/ | /')"
	else
		echo "ok: README.md's $1 block"
	fi
}

# ---------------------------------------------------------------------------
# lab-b: the systemd guest.

# unit_prop UNIT PROPERTY: what systemd says of it.
unit_prop() { systemctl show -P "$2" "$1"; }

# textfile_from_timer: the doctor service has run since the timer started
# and left the textfile.
textfile_from_timer() {
	[[ -s $textfile && $(unit_prop rdmactl-doctor.service ExecMainExitTimestampMonotonic) -gt $timer_since ]]
}

# stop_timer: stop the doctor's timer and wait for a run it started to
# end (stopping a timer does not stop its run, which would then write
# what it saw before the test's next step).
stop_timer() {
	systemctl stop rdmactl-doctor.timer || fail "cannot stop rdmactl-doctor.timer"
	lab__await "the timer's last doctor run" 130 doctor_idle || fail "a doctor run does not end"
}
doctor_idle() { [[ $(unit_prop rdmactl-doctor.service ActiveState) != activating ]]; }

# hold_doctor_run: start a doctor run and stop its rdmactl where it is
# (SIGSTOP) once it runs, so that a stop finds the run under way (systemd
# sends SIGCONT after SIGTERM).  A process of the unit's cgroup whose
# executable is rdmactl: systemd's own child before its exec is not.  Up
# to five runs, as one may end between two looks.
hold_doctor_run() {
	local cg=/sys/fs/cgroup/system.slice/rdmactl-doctor.service try i p seen
	for try in 1 2 3 4 5; do
		systemctl start --no-block rdmactl-doctor.service
		seen=
		for i in $(seq 400); do
			if [[ -r $cg/cgroup.procs ]]; then
				seen=1
				while read -r p; do
					[[ /proc/$p/exe -ef /usr/bin/rdmactl ]] && kill -STOP "$p" 2>/dev/null &&
						echo "doctor run $try held: pid $p" && return 0
				done <"$cg/cgroup.procs"
			elif [[ -n $seen ]]; then
				break	# that run is over
			fi
			lab_sleep 0.025
		done
	done
	return 1
}

# metrics_served: node_exporter's /metrics read into metrics.txt; a
# failed read adds curl's exit status and error to curl.errs.
metrics_served() {
	local rc=0
	curl -sS -f "http://127.0.0.1:$ne/metrics" >metrics.txt 2>curl.err || rc=$?
	((rc)) && echo "curl exit $rc: $(tr '\n' ' ' <curl.err)" >>curl.errs
	return $rc
}

# textfiles: the names in node_exporter's textfile directory, sorted.
textfiles() { find "${textfile%/*}" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort; }
# new_textfiles: those that were not there before the package (other
# collectors may write there too).
new_textfiles() { textfiles | comm -13 textfiles.before -; }

systemd_side() {
	local deb pid uid st
	check_eq "PID 1 is systemd" systemd "$(cat /proc/1/comm)"
	textfiles >textfiles.before
	deb=$(ls -t "$LAB_SRC"/build/pkg/deb/rdmactl_*_*.deb 2>/dev/null | head -n 1)
	[[ -n $deb ]] || {
		lab_put abort "no .deb"
		skip "no package in build/pkg/deb (make deb)"
	}
	echo "installing $deb"
	# man-db's trigger would rebuild every manual page index, minutes on an
	# emulated CPU; Debian skips it without this file.
	rm -f /var/lib/man-db/auto-update
	dpkg -i "$deb" || fail "dpkg -i $deb failed"
	check_eq "dpkg: rdmactl installed" "install ok installed" "$(dpkg-query -W -f='${Status}' rdmactl)"
	dpkg -L rdmactl >files.list
	check_eq "probe unit installed, not enabled" disabled "$(systemctl is-enabled rdmactl-probe.service)"
	check_eq "doctor timer installed, not enabled" disabled "$(systemctl is-enabled rdmactl-doctor.timer)"

	# The probe server, as its unit's comment says to start it.
	install -d -m 0700 /etc/rdmactl
	(umask 077 && echo "RDMACTL_TOKEN=$(openssl rand -hex 32)" >/etc/rdmactl/probe.token)
	# Its QPs wait for an ACK as long as the guests' pace needs (the test
	# aid lab_ack_timeout sets; with the default 67 ms, at half pace, lab-a's
	# writes sent again met rxe's "remote invalid request"), given through
	# systemd's own environment: a drop-in would show in the status that
	# README.md quotes.
	lab_ack_timeout
	systemctl set-environment RDMACTL_PROBE_ACK_TIMEOUT="$RDMACTL_PROBE_ACK_TIMEOUT" ||
		fail "systemctl set-environment failed"
	systemctl enable --now rdmactl-probe.service || fail "systemctl enable --now rdmactl-probe.service failed"
	lab__await "the probe server listening" 30 lab_wait_listen $port ||
		fail "rdmactl-probe.service does not listen on $port: $(systemctl status --no-pager rdmactl-probe.service)"
	pid=$(unit_prop rdmactl-probe.service MainPID)
	check_eq "probe server: its main process is /usr/bin/rdmactl" /usr/bin/rdmactl "$(readlink "/proc/$pid/exe")"
	check_eq "probe server: the lab's ACK timeout" "RDMACTL_PROBE_ACK_TIMEOUT=$RDMACTL_PROBE_ACK_TIMEOUT" \
		"$(tr '\0' '\n' <"/proc/$pid/environ" | grep '^RDMACTL_PROBE_ACK_TIMEOUT=')"
	# DynamicUser=yes: a user of the unit's name, from systemd's range,
	# which exists while the unit runs.
	check_eq "probe server: runs as the dynamic user" rdmactl-probe "$(ps -o user= -p "$pid")"
	uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
	((uid >= 61184 && uid <= 65519)) || fail "probe server: uid $uid is not in systemd's dynamic range"
	check_eq "probe server: uid, euid, suid, fsuid" "$uid $uid $uid $uid" \
		"$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$pid/status")"
	check_eq "dynamic user known to NSS while it runs" "rdmactl-probe:$uid" \
		"$(getent passwd rdmactl-probe | cut -d: -f1,3)"
	check_eq "probe server: LimitMEMLOCK=infinity" "unlimited unlimited" \
		"$(awk '/^Max locked memory/ {print $4, $5}' "/proc/$pid/limits")"
	check_eq "probe server: NoNewPrivs" 1 "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$pid/status")"
	check_eq "probe server: no capability" "0000000000000000 0000000000000000" \
		"$(awk '/^CapEff:/ {e=$2} /^CapBnd:/ {b=$2} END {print e, b}' "/proc/$pid/status")"
	check_eq "probe server: seccomp filter" 2 "$(awk '/^Seccomp:/ {print $2}' "/proc/$pid/status")"
	grep -qF "$(sed 's/^RDMACTL_TOKEN=//' /etc/rdmactl/probe.token)" "/proc/$pid/cmdline" &&
		fail "the token is on the server's command line"
	lab_put token "$(sed 's/^RDMACTL_TOKEN=//' /etc/rdmactl/probe.token)"
	lab_put server-up 1
	lab_get client-done 150 >/dev/null
	systemctl unset-environment RDMACTL_PROBE_ACK_TIMEOUT
	journalctl --no-pager -u rdmactl-probe.service >probe.journal
	grep -q 'clients must prove the token' probe.journal ||
		fail "the server's journal does not say it wants the token"
	SYSTEMD_COLORS=0 systemctl status --no-pager rdmactl-probe.service >"$LAB_SHARE/status-probe.txt"
	cat "$LAB_SHARE/status-probe.txt"
	# What README.md shows: the last log line, no Process, Tasks, Memory
	# or CPU line.
	SYSTEMD_COLORS=0 systemctl status --no-pager --lines=1 rdmactl-probe.service |
		grep -vE '^$|^ +(Process|Tasks|Memory|CPU):' >"$LAB_SHARE/readme-status.txt"
	check_readme status "$LAB_SHARE/readme-status.txt"

	# How exposed each service is, by systemd's own measure.
	for u in rdmactl-probe.service rdmactl-doctor.service; do
		SYSTEMD_COLORS=0 systemd-analyze security --no-pager "$u" >"security-$u.txt" ||
			fail "systemd-analyze security $u failed"
		grep '^→ Overall exposure level' "security-$u.txt" | tee -a "$LAB_SHARE/security.txt"
		# README.md quotes it as "UNIT 2.1 OK".
		level=$(sed -n 's/^→ Overall exposure level for [^:]*: \([0-9.]* [A-Z]*\).*/\1/p' "security-$u.txt")
		grep -qF "$u $level" "$LAB_SRC/README.md" || fail "README.md does not give $u's exposure as '$u $level'"
	done
	grep -c 'Overall exposure level for rdmactl-' "$LAB_SHARE/security.txt" | grep -qx 2 ||
		fail "no exposure level for both services"

	# A healthy node: its services may pin memory, as the doctor's
	# memlock.systemd asks (its fix, word for word).
	mkdir -p /etc/systemd/system.conf.d
	printf '[Manager]\nDefaultLimitMEMLOCK=infinity\n' >/etc/systemd/system.conf.d/90-memlock.conf
	systemctl daemon-reload

	# The timer, as shipped: enabled, active, due 2 min after boot and
	# every 5 min.
	systemctl enable --now rdmactl-doctor.timer || fail "systemctl enable --now rdmactl-doctor.timer failed"
	check_eq "doctor timer active" active "$(systemctl is-active rdmactl-doctor.timer)"
	st=$(unit_prop rdmactl-doctor.timer TimersMonotonic)
	echo "TimersMonotonic: $st"
	[[ $st == *"OnBootUSec=2min"* && $st == *"OnUnitActiveUSec=5min"* ]] ||
		fail "doctor timer: not the shipped OnBootSec=2min, OnUnitActiveSec=5min"
	# Due, or already run: a guest up longer than OnBootSec=2min when the
	# timer starts (a slow one: seen under LAB_CPUS=1) runs it at once,
	# and until that run ends nothing is due.
	next=$(unit_prop rdmactl-doctor.timer NextElapseUSecMonotonic | tr -dc 0-9)
	last=$(unit_prop rdmactl-doctor.timer LastTriggerUSecMonotonic | tr -dc 0-9)
	((${next:-0} > 0 || ${last:-0} > 0)) ||
		fail "doctor timer: nothing scheduled and never run (next '$next', last '$last')"
	# In test time: due now and every 15 s (a drop-in, as an operator
	# would change it), or four of the slower guest's doctor runs; this
	# guest's timed as the unit runs it.
	timed_doctor systemctl start rdmactl-doctor.service || fail "systemctl start rdmactl-doctor.service failed"
	doctor_time period 15
	mkdir -p /etc/systemd/system/rdmactl-doctor.timer.d
	printf '[Timer]\nOnBootSec=\nOnActiveSec=1s\nOnUnitActiveSec=%ds\nRandomizedDelaySec=0\nAccuracySec=1s\n' \
		"$period" >/etc/systemd/system/rdmactl-doctor.timer.d/lab.conf
	timer_since=$(awk '{printf "%d", $1 * 1000000}' /proc/uptime)
	systemctl daemon-reload && systemctl restart rdmactl-doctor.timer || fail "cannot restart the timer"
	lab__await "the timer's doctor run and its textfile" 90 textfile_from_timer ||
		fail "rdmactl-doctor.timer did not write $textfile"
	check_eq "doctor service: result" success "$(unit_prop rdmactl-doctor.service Result)"
	check_eq "textfile: mode, owner" "644 root" "$(stat -c '%a %U' "$textfile")"
	check_eq "textfile directory: rdmactl.prom and no temporary file" rdmactl.prom "$(new_textfiles)"
	promtool check metrics <"$textfile" || fail "promtool check metrics: $textfile"
	grep -q '^rdmactl_check_status{' "$textfile" || fail "no rdmactl_check_status in $textfile"

	# Debian's node_exporter, as packaged: its textfile collector reads
	# that directory by default.
	systemctl start prometheus-node-exporter.service || fail "cannot start prometheus-node-exporter.service"
	lab__await "node_exporter listening" 60 lab_wait_listen $ne || fail "node_exporter does not listen on $ne"
	# Its first /metrics: a wait for it served, not one read just after it
	# listens.  That one read failed once in make check (with the timer's
	# doctor every 17 s beside it) and nothing kept told why; every failed
	# read is said here, curl's exit status and error, and node_exporter's
	# journal with the first, whether a later read is served or not.
	: >curl.errs
	if ! lab__await "node_exporter serving /metrics" 60 metrics_served; then
		fail "no /metrics from node_exporter: $(tail -n 1 curl.errs)"
	fi
	if [[ -s curl.errs ]]; then
		echo "node_exporter's /metrics failed $(wc -l <curl.errs) time(s) before it was served:"
		cat curl.errs
		journalctl --no-pager -o cat -n 20 -u prometheus-node-exporter.service
	fi
	grep -q "^node_textfile_mtime_seconds{file=\"$textfile\"}" metrics.txt ||
		fail "node_exporter does not read $textfile"
	grep -m 1 '^rdmactl_check_status{' "$textfile" | cut -d' ' -f1 >sample
	grep -qF -f sample metrics.txt || fail "node_exporter does not serve $(cat sample)"
	grep -q '^node_textfile_scrape_error 0' metrics.txt || fail "node_exporter's textfile collector reports an error"
	lab_put b-up 1

	# Made wrong: RoCE v2 dropped, the MTU lowered; the timer sees it.
	lab_get baseline 150 >/dev/null
	lab_block_roce || fail "cannot drop RoCE v2"
	ip link set eth0 mtu 1500 || fail "cannot lower eth0's MTU"
	lab_put broken 1
	lab_get fired 150 >/dev/null
	# The timer stopped: its metrics go stale.  The node fixed, and one
	# run by hand says so.
	stop_timer
	nft delete table inet rocefw && ip link set eth0 mtu 9000 || fail "cannot undo the damage"
	systemctl start rdmactl-doctor.service || fail "rdmactl-doctor.service failed"
	SYSTEMD_COLORS=0 systemctl status --no-pager rdmactl-doctor.service rdmactl-doctor.timer \
		>"$LAB_SHARE/status-doctor.txt"
	lab_put fixed 1
	lab_get stale 150 >/dev/null
	timer_since=$(awk '{printf "%d", $1 * 1000000}' /proc/uptime)
	systemctl start rdmactl-doctor.timer || fail "cannot start the timer again"
	lab__await "the timer's doctor run" 90 textfile_from_timer || fail "the restarted timer did not run"
	lab_put fresh 1
	lab_get prom-done 150 >/dev/null

	# A run stopped half-way (systemctl stop, the package removed) is no
	# failed unit (systemctl --failed, a degraded system) and leaves the
	# last textfile as it was.
	stop_timer
	cp "$textfile" textfile.before
	hold_doctor_run || fail "could not catch a doctor run under way"
	systemctl stop rdmactl-doctor.service
	check_eq "stopped run: its rdmactl killed by SIGTERM" "2 15" \
		"$(unit_prop rdmactl-doctor.service ExecMainCode) $(unit_prop rdmactl-doctor.service ExecMainStatus)"
	check_eq "stopped run: the unit inactive, not failed" "inactive success" \
		"$(unit_prop rdmactl-doctor.service ActiveState) $(unit_prop rdmactl-doctor.service Result)"
	cmp -s textfile.before "$textfile" || fail "a stopped run changed $textfile"
	check_eq "stopped run: rdmactl.prom and no temporary file" rdmactl.prom "$(new_textfiles)"
	systemctl start rdmactl-doctor.timer || fail "cannot start the timer again"

	# Disabled, the units run on (their links go).  Removed while they run
	# (and a doctor run asked for just before: one still going is stopped
	# too, which stopping its timer alone would not do), the package stops
	# them, as `apt remove` does on a node: nothing left.
	systemctl stop prometheus-node-exporter.service
	systemctl disable rdmactl-probe.service rdmactl-doctor.timer || fail "systemctl disable failed"
	check_eq "disabled: no link left in /etc/systemd" "" "$(find /etc/systemd -name 'rdmactl*' -type l)"
	check_eq "disabled: probe server and timer still running" "active active" \
		"$(systemctl is-active rdmactl-probe.service rdmactl-doctor.timer | paste -sd ' ')"
	rm -r /etc/systemd/system/rdmactl-doctor.timer.d
	systemctl daemon-reload
	systemctl start --no-block rdmactl-doctor.service
	dpkg --purge rdmactl || fail "dpkg --purge rdmactl failed"
	journalctl --no-pager -o cat -n 2 -u rdmactl-doctor.service
	check_eq "no rdmactl process left" "" "$(pgrep -a rdmactl)"
	check_eq "no dynamic user left" "" "$(getent passwd rdmactl-probe)"
	check_eq "dpkg: rdmactl purged" "" "$(dpkg-query -W -f='${Status}' rdmactl 2>/dev/null)"
	check_eq "no unit left" "" "$(systemctl list-unit-files --no-legend 'rdmactl*')"
	check_eq "no unit loaded" "" "$(systemctl list-units --all --no-legend 'rdmactl*')"
	check_eq "no link left in /etc/systemd" "" "$(find /etc/systemd -name 'rdmactl*')"
	while read -r f; do
		[[ -d $f || ! -e $f ]] || echo "$f"
	done <files.list >left.list
	check_eq "no file of the package left" "" "$(cat left.list)"
	check_eq "no textfile left" "" "$(new_textfiles)"
	check_eq "no token file left" "" "$(ls -d /etc/rdmactl 2>/dev/null)"
}

# ---------------------------------------------------------------------------
# lab-a: the client, a node_exporter of its own and Prometheus.

# alerts: Prometheus's alerts, as its HTTP API gives them.
alerts() { curl -sf "$prom/api/v1/alerts"; }

# firing NAME INSTANCE: alert NAME fires for INSTANCE.
firing() {
	alerts | json_one --arg a "$1" --arg i "$2" \
		'[.data.alerts[] | select(.labels.alertname == $a and .labels.instance == $i and .state == "firing")] | length > 0'
}
# quiet NAME INSTANCE: alert NAME is neither pending nor firing for INSTANCE.
quiet() {
	alerts | json_one --arg a "$1" --arg i "$2" \
		'.status == "success" and ([.data.alerts[] | select(.labels.alertname == $a and .labels.instance == $i)] | length == 0)'
}
# alerts_unstale FILE: Prometheus's alerts, kept in FILE, hold no
# RdmactlMetricsStale.  At half pace (LAB_CPUS=1) a run of lab-b's timer
# took longer than its first, timed run, whose length sets the period,
# and lab-b's metrics were stale until it wrote (155 and 166 s old, in two
# runs): its alert, pending or firing, is waited out before the alerts
# are judged.  Whether it fires for a stopped timer, and only then, is
# the test's stale phase.
alerts_unstale() {
	alerts >"$1" && json_one '.status == "success" and
		([.data.alerts[] | select(.labels.alertname == "RdmactlMetricsStale")] | length == 0)' <"$1"
}
# targets_up: Prometheus scraped both guests' node_exporters.
targets_up() {
	curl -sf "$prom/api/v1/targets" | json_one '[.data.activeTargets[] | select(.health == "up")] | length == 2'
}
# metrics_in: Prometheus has the rdmactl metrics of both guests.
metrics_in() {
	curl -sf "$prom/api/v1/query" --data-urlencode 'query=count by (instance) (rdmactl_check_status)' |
		json_one '.data.result | length == 2'
}

# prom_await DESC SECONDS CMD...: lab__await for what Prometheus's API
# says, looking every quarter of its evaluation interval (a second at
# least) rather than every second: an alert changes only at an
# evaluation, a target at a scrape (the longer), and each look is a curl
# and a jq, 150 ms of an emulated CPU on a quiet host.  These waits last
# minutes in make check (413 s in one, the schedule stretched eight
# times by the pace): a look a second was 62 CPU seconds at the least of
# the test's 134.  (evaluate: plain_side's, in test time.)
prom_await() {
	LAB__NAP_MAX_MS=$((evaluate * 250 > 1000 ? evaluate * 250 : 1000)) lab__await "$@"
}

# doctor_loop: what the timer does on lab-b, by hand: the doctor's metrics
# for this guest's node_exporter every 15 s of test time.  This guest runs
# no systemd, so no service limit (memlock.systemd) to judge.
doctor_loop() {
	local period
	doctor_time period 15
	while :; do
		doctor_a
		lab_sleep "$period"
	done
}
doctor_a() { "$RDMACTL" doctor --metrics --skip memlock.shell,memlock.systemd -o /tmp/ne/rdmactl.prom; }

plain_side() {
	local token rc name
	[[ $(lab_get server-up 300) == 1 ]] || exit 1
	lab_has abort && skip "lab-b had no package"
	token=$(lab_get token)
	lab_ack_timeout
	lab_budget limit 90
	probe=(timeout -k 5 "$limit" "$RDMACTL" -j probe "$LAB_PEER_IP" -s 64K -n 100 --lat-iters 10)
	rc=0
	RDMACTL_TOKEN=$token "${probe[@]}" >with.json 2>with.err || rc=$?
	cat with.err
	check_eq "probe through the unit with the token: exit status" 0 "$rc"
	json_one '.probe.transport == "rdma" and .results[0].bw_avg_gbps > 0' <with.json ||
		fail "no RDMA bandwidth measured through rdmactl-probe.service"
	rc=0
	env -u RDMACTL_TOKEN "${probe[@]}" >without.json 2>without.err || rc=$?
	check_eq "probe without the token: exit status" 1 "$rc"
	grep -q 'authentication failed' without.err || fail "no 'authentication failed' without the token"
	# node_exporter here as a plain process, the doctor by hand, its
	# first run timed (doctor_time).
	mkdir -p /tmp/ne /tmp/prom
	timed_doctor doctor_a || fail "lab-a's first doctor run failed"
	lab_put client-done 1
	doctor_loop >doctor-loop.log 2>&1 &
	# Its first textfile before node_exporter serves the directory:
	# RdmactlMetricsStale also fires for a collector with no rdmactl.prom
	# (after for:, 2 s here), and the baseline below wants no alert.
	lab__await "lab-a's first textfile" 60 test -s /tmp/ne/rdmactl.prom || fail "doctor_loop wrote no textfile"
	prometheus-node-exporter --collector.textfile.directory=/tmp/ne --web.listen-address=":$ne" \
		>node-exporter.log 2>&1 &
	# The shipped rules in test time (the header says how); each change
	# must have taken, or the test would wait on the shipped times.
	local for_s stale scrape evaluate period
	lab_budget_slowest for_s 2 && lab_budget_slowest scrape 3 && lab_budget_slowest evaluate 2 &&
		doctor_time period 15
	stale=$((2 * period + scrape + evaluate))
	echo "test time: timer and doctor loop every $period s, for: ${for_s}s," \
		"stale after $stale s, scrape every $scrape s, evaluation every $evaluate s"
	sed -e "s/^\( *for:\) 1[05]m\$/\1 ${for_s}s/" -e "s/ > 900\$/ > $stale/" \
		"$LAB_SRC/contrib/prometheus/rdmactl-alerts.yml" >/tmp/prom/rules.yml
	check_eq "test rules: every for: shortened" 0 "$(grep -c 'for: 1[05]m' /tmp/prom/rules.yml)"
	check_eq "test rules: staleness shortened" 1 "$(grep -c " > $stale\$" /tmp/prom/rules.yml)"
	promtool check rules /tmp/prom/rules.yml || fail "promtool check rules: the test copy"
	cat >/tmp/prom/prometheus.yml <<-EOF
		global:
		  scrape_interval: ${scrape}s
		  scrape_timeout: ${scrape}s
		  evaluation_interval: ${evaluate}s
		rule_files: [/tmp/prom/rules.yml]
		scrape_configs:
		  - job_name: node
		    static_configs:
		      - targets: ['$inst_a', '$inst_b']
	EOF
	prometheus --config.file=/tmp/prom/prometheus.yml --storage.tsdb.path=/tmp/prom/data \
		--web.listen-address=127.0.0.1:9090 >prometheus.log 2>&1 &
	lab_get b-up 300 >/dev/null
	prom_await "Prometheus scraping both node_exporters" 120 targets_up || fail "Prometheus does not scrape both guests"
	prom_await "both guests' rdmactl metrics in Prometheus" 60 metrics_in ||
		fail "Prometheus lacks the rdmactl metrics of a guest"
	# Healthy: no alert for either guest (alerts_unstale).
	prom_await "no stale metrics' alert" 60 alerts_unstale baseline.json ||
		fail "RdmactlMetricsStale before anything was broken: $(cat baseline.json)"
	json_one '.status == "success" and (.data.alerts | length == 0)' <baseline.json ||
		fail "alerts before anything was broken: $(cat baseline.json)"
	lab_put baseline 1

	lab_get broken 150 >/dev/null
	for name in RdmactlCheckFailed RdmactlMtuBelowNetdev; do
		prom_await "$name firing for lab-b" 90 firing "$name" "$inst_b" || fail "$name does not fire for lab-b"
	done
	prom_await "no stale metrics' alert beside them" 60 alerts_unstale "$LAB_SHARE/alerts-firing.json" ||
		fail "RdmactlMetricsStale for a guest whose timer runs: $(cat "$LAB_SHARE/alerts-firing.json")"
	# What README.md shows: each firing alert's name and summary.
	jq -r '[.data.alerts[] | select(.state == "firing") | "\(.labels.alertname)  \(.annotations.summary)"] | sort[]' \
		"$LAB_SHARE/alerts-firing.json" >"$LAB_SHARE/readme-alerts.txt"
	check_readme alerts "$LAB_SHARE/readme-alerts.txt"
	for name in RdmactlCheckFailed RdmactlMtuBelowNetdev RdmactlMetricsStale RdmactlPacketLoss; do
		quiet "$name" "$inst_a" || fail "$name for lab-a, which is healthy"
	done
	# The firewall check, by name, with a summary whose every label was there.
	json_one --arg i "$inst_b" '[.data.alerts[] | select(.labels.alertname == "RdmactlCheckFailed" and
		.labels.instance == $i) | .labels.check] | any(startswith("firewall"))' <"$LAB_SHARE/alerts-firing.json" ||
		fail "RdmactlCheckFailed does not name the firewall check"
	json_one --arg i "$inst_b" '[.data.alerts[] | .annotations.summary] | all(startswith($i + ": ") and
		(test(": : |  |/ | /|check  |<no value>") | not))' <"$LAB_SHARE/alerts-firing.json" ||
		fail "an alert's summary has an empty label"
	# The MTU alert keeps the target's labels (job), and names rxe0/1.
	json_one '[.data.alerts[] | select(.labels.alertname == "RdmactlMtuBelowNetdev") | .labels] |
		length == 1 and .[0].job == "node" and .[0].device == "rxe0" and .[0].port == "1"' \
		<"$LAB_SHARE/alerts-firing.json" || fail "RdmactlMtuBelowNetdev: not one alert for rxe0/1 with its job"
	lab_put fired 1

	lab_get fixed 150 >/dev/null
	for name in RdmactlCheckFailed RdmactlMtuBelowNetdev; do
		prom_await "$name cleared for lab-b" 60 quiet "$name" "$inst_b" || fail "$name does not clear after the fix"
	done
	prom_await "RdmactlMetricsStale firing for lab-b" 120 firing RdmactlMetricsStale "$inst_b" ||
		fail "RdmactlMetricsStale does not fire for lab-b with its timer stopped"
	alerts >"$LAB_SHARE/alerts-stale.json"
	quiet RdmactlMetricsStale "$inst_a" || fail "RdmactlMetricsStale for lab-a, whose metrics are fresh"
	lab_put stale 1
	lab_get fresh 150 >/dev/null
	prom_await "RdmactlMetricsStale cleared for lab-b" 60 quiet RdmactlMetricsStale "$inst_b" ||
		fail "RdmactlMetricsStale does not clear when the timer runs again"
	lab_put prom-done 1
}

if [[ $LAB_NODE == "$LAB_SYSTEMD" ]]; then
	systemd_side
else
	plain_side
fi
lab_barrier end 300
