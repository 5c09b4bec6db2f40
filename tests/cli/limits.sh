#!/bin/bash
# rdmactl limits: recorded PAM, systemd and /proc trees (precedence, drop-in
# order, the field notes' 64 MiB, malformed lines), then the live process:
# under prlimit, --pid of this shell and of a process started with prlimit,
# each checked against /proc/PID/limits; bad PIDs and users.
. "$(dirname "$0")/lib.sh"

PAM=$FIXTURES/limits-pam
SD=$FIXTURES/limits-systemd

# proc_memlock PID: "SOFT HARD" of the Max locked memory line, as the kernel says it.
proc_memlock() { awk '/^Max locked memory/ { print $4, $5 }' "/proc/$1/limits"; }
# json_memlock: "SOFT HARD" of the process row (bytes, "unlimited" for null).
json_memlock() {
	jq -r '.limits[] | select(.scope == "process") |
		"\(.soft_bytes // "unlimited") \(.hard_bytes // "unlimited")"' <<<"$OUT"
}

# --- PAM: @group beats "*" wherever it is; the fix names the winning lines ---
run --root "$PAM" limits --user alice
check pam-group-rc rc_is 1
check pam-group-row out_has '^pam +user alice +2 GiB +unlimited +warn +soft /etc/security/limits.conf:4, hard /etc/security/limits.d/10-group.conf:1$'
check pam-group-fix out_has '^    change /etc/security/limits.conf:4 to: @rdma soft memlock unlimited$'
check pam-systemd-64m out_has '^systemd +services +64 MiB +64 MiB +fail +/etc/systemd/system.conf.d/50-jupyter.conf:2$'
check pam-systemd-fix out_has '^    DefaultLimitMEMLOCK=infinity$'
# Malformed lines: one warning each, with file:line, and never fatal.
check pam-warn-fields err_has '^rdmactl limits: warning: /etc/security/limits.conf:7: invalid line \(3 fields'
check pam-warn-type err_has "/etc/security/limits.conf:8: unknown limit type 'bogus'"
check pam-warn-value err_has "/etc/security/limits.conf:9: wrong memlock value 'lots'"
check pam-warn-range err_has "/etc/security/limits.conf:10: invalid uid range '1000x:'"
check pam-warn-count [ "$(grep -c 'warning: /etc/security/limits.conf' <<<"$ERR")" -eq 4 ]
check pam-readme-not-read bash -c '! grep -q README <<<"$1"' _ "$OUT$ERR"

run -j --root "$PAM" limits --user alice
check pam-json json_ok '(.limits | length) == 3 and ([.limits[].scope] == ["process","pam","systemd"]) and
	(.limits[1] | .user == "alice" and .soft_bytes == 2147483648 and .hard_bytes == null and
	 .soft == "2 GiB" and .hard == "unlimited" and .verdict == "warn" and
	 .soft_source == "/etc/security/limits.conf:4" and
	 .hard_source == "/etc/security/limits.d/10-group.conf:1") and
	(.limits[2] | .soft_bytes == 67108864 and .verdict == "fail" and
	 (.fix | contains("/etc/systemd/system.conf.d/90-memlock.conf"))) and
	(.limits[0] | .pid == null and .verdict == "ok" and .fix == null)'

# "* - 64" then limits.d "* soft unlimited": the later soft wins, the soft is capped to the hard.
run -j --root "$PAM" limits --user bob
check pam-default-later-wins json_ok '.limits[1] | .soft_bytes == 65536 and .hard_bytes == 65536 and
	.soft_source == "/etc/security/limits.d/20-star.conf:1" and .hard_source == "/etc/security/limits.conf:3" and
	.verdict == "fail"'
# A user line beats group and "*" lines; the later of two user lines wins.
run -j --root "$PAM" limits --user carol
check pam-user-line json_ok '.limits[1] | .soft_bytes == null and .hard_bytes == null and
	.soft_source == "/etc/security/limits.d/30-carol.conf:1" and .verdict == "ok"'
# "dave -": pam_limits is off for him, the login keeps the service manager's 64M.
run -j --root "$PAM" limits --user dave
check pam-off-inherits json_ok '.limits[1] | .soft_bytes == 67108864 and
	.soft_source == "inherited (systemd: /etc/systemd/system.conf.d/50-jupyter.conf:2)" and
	(.fix | contains("05-dave.conf:2 turns pam_limits off"))'
# Huge numbers, "64k", and a gid given as "@:3000".
run -j --root "$PAM" limits --user eve
check pam-huge-and-suffix json_ok '.limits[1] | .soft_bytes == 65536 and .hard_bytes == null'
check pam-suffix-warned err_has "limits.conf:12: memlock value '64k' read as its leading number"
run -j --root "$PAM" limits --user frank
check pam-gid-exact json_ok '.limits[1] | .soft_bytes == null and .soft_source == "/etc/security/limits.d/30-carol.conf:2"'
# Without --user: the uid recorded in proc/self/status.
run -j --root "$PAM" limits
check pam-recorded-user json_ok '.limits[1].user == "alice"'

# --- root on Debian: "*" and @group lines do not apply (limits.conf(5)) ---
ROOT=$FIXTURES/limits-root
run --root "$ROOT" limits
check root-star-rc rc_is 1
check root-star-row out_has '^pam +user root +8 MiB +8 MiB +fail +inherited \(systemd: default\)$'
check root-star-why out_has '^/etc/security/limits.d/90-rdma.conf:1,2 not applied to root: limits.conf\(5\): "group and wildcard limits are not applied to the root user"'
check root-star-fix-root out_has '^    root soft memlock unlimited$'
check root-star-fix-keeps-star out_has '^    \* hard memlock unlimited$'
run -j --root "$ROOT" limits
check root-star-json json_ok '.limits[1] | .user == "root" and .soft_bytes == 8388608 and
	.not_for_root == "/etc/security/limits.d/90-rdma.conf:1,2" and
	(.fix | contains("root soft memlock unlimited\nroot hard memlock unlimited"))'
# The same lines give alice unlimited: the rule is root's alone.
run -j --root "$ROOT" limits --user alice
check root-star-alice json_ok '.limits[1] | .soft_bytes == null and .hard_bytes == null and
	.not_for_root == null and .verdict == "ok"'
# The fix written: root lines apply.
cp -r "$ROOT" "$TMPD/root-fixed"
printf 'root soft memlock unlimited\nroot hard memlock unlimited\n' >>"$TMPD/root-fixed/etc/security/limits.d/90-rdma.conf"
run -j --root "$TMPD/root-fixed" limits
check root-fixed-ok json_ok '.limits[1] | .soft_bytes == null and .verdict == "ok" and
	.soft_source == "/etc/security/limits.d/90-rdma.conf:3"'
# Upstream Linux-PAM (no etc/debian_version: Fedora, RHEL) gives root the "*" lines.
cp -r "$ROOT" "$TMPD/root-upstream"
rm "$TMPD/root-upstream/etc/debian_version"
run -j --root "$TMPD/root-upstream" limits
check root-upstream-star json_ok '.limits[1] | .soft_bytes == null and .not_for_root == null and
	.soft_source == "/etc/security/limits.d/90-rdma.conf:1"'
# @group and gid lines skipped, "@0:" read as a uid range, as libpam-modules 1.5.2 does.
run -j --root "$FIXTURES/limits-root-rule" limits --user root
check root-rule json_ok '.limits[] | select(.scope == "pam") | .soft_bytes == 2147483648 and
	.hard_bytes == 2147483648 and .soft_source == "/etc/security/limits.conf:3" and
	.hard_source == "/etc/security/limits.conf:5" and .not_for_root == "/etc/security/limits.conf:1,2,4" and
	.verdict == "warn" and (.fix | contains("change /etc/security/limits.conf:3 to: @0: soft memlock unlimited"))'
run -j --root "$FIXTURES/limits-root-rule" limits --user alice
check root-rule-alice json_ok '.limits[] | select(.scope == "pam") | .soft_bytes == 4294967296 and
	.hard_bytes == null and .hard_source == "/etc/security/limits.conf:1" and .not_for_root == null'

# --- systemd: /etc hides /run hides /usr/lib by name, a /dev/null link masks ---
run -j --root "$SD" limits
check sd-order json_ok '.limits[2] | .soft_bytes == 1073741824 and .hard_bytes == null and
	.soft_source == "/run/systemd/system.conf.d/20-b.conf:2" and .verdict == "warn"'
check sd-process-64k json_ok '.limits[0] | .soft_bytes == 65536 and .verdict == "fail"'
check sd-rc rc_is 1
check sd-warn-missing-eq err_has "/etc/systemd/system.conf:5: missing '='"
check sd-warn-section err_has "10-a.conf:4: DefaultLimitMEMLOCK= in section '\[Service\]' is ignored"
check sd-warn-soft-hard err_has "10-a.conf:6: soft limit above the hard one in 'DefaultLimitMEMLOCK=10M:5M'"
check sd-warn-parse err_has "10-a.conf:7: Failed to parse 'DefaultLimitMEMLOCK=lots'"
check sd-warn-once [ "$(grep -c '10-a.conf:7' <<<"$ERR")" -eq 1 ]
# A drop-in that sorts after 90-memlock.conf: the fix edits it instead.
run --root "$FIXTURES/limits-systemd-late" limits
check sd-late-fix out_has '^    change /etc/systemd/system.conf.d/99-site.conf:2 to: DefaultLimitMEMLOCK=infinity$'
# The fix files written: everything ok, exit 0.
run --root "$FIXTURES/limits-fixed" limits
check fixed-rc rc_is 0
check fixed-all-ok [ "$(grep -cE '^(process|pam|systemd) .* ok  ' <<<"$OUT")" -eq 3 ]
check fixed-no-fix-text bash -c '! grep -q "change\|write" <<<"$1"' _ "$OUT"

# --- a recorded process ---
run -j --root "$FIXTURES/limits-proc" limits --pid 4242
check proc-recorded json_ok '.limits[0] | .scope == "process" and .pid == 4242 and .who == "pid 4242" and
	.soft_bytes == 1048576 and .hard_bytes == 1048576 and .soft_source == "/proc/4242/limits" and
	.verdict == "fail" and (.fix | contains("prlimit --pid 4242 --memlock=unlimited:unlimited"))'
run --root "$FIXTURES/limits-proc" limits --pid 4244
check proc-no-memlock-line-rc rc_is 1
check proc-no-memlock-line err_one_line
check proc-no-memlock-line-msg err_has "Failed to read /proc/4244/limits: it has no 'Max locked memory' line"
# A tree without proc/self: the process row is left out, with a warning.
run -j --root "$FIXTURES/mlx5-6gids" limits
check no-proc-self json_ok '[.limits[].scope] == ["systemd"] or [.limits[].scope] == ["pam","systemd"]'
check no-proc-self-warns err_has 'no proc/self/limits below'

# --- bad input: one line naming it, exit 2 ---
for bad in abc 0 -5 12x 99999999999; do
	run limits --pid "$bad"
	check "bad-pid-$bad" bash -c '[ "$1" -eq 2 ]' _ "$RC"
	check "bad-pid-$bad-msg" err_has "'$bad': not a process ID"
	check "bad-pid-$bad-one-line" err_one_line
done
run limits --pid 2147483646
check no-such-pid-rc rc_is 2
check no-such-pid-msg err_has "Failed to read limits of process '2147483646': no such process"
check no-such-pid-one-line err_one_line
run --root "$PAM" limits --user nosuchuser
check bad-user-rc rc_is 2
check bad-user-msg err_has "Failed to find user 'nosuchuser' in /etc/passwd"
run limits --pid
check pid-needs-arg rc_is 2
run limits extra
check no-positional rc_is 2

# --- one verdict per limit: `limits` and the doctor agree, CAP_IPC_LOCK included ---
# A process or a login of root holding CAP_IPC_LOCK pins past its limit
# (ib_umem_get()): not enforced, ok in both, and `limits` says why.
# agree NAME ROOT [ARGS]: each row's verdict is its doctor check's status.
agree() {
	local name=$1 root=$2 lim doc
	shift 2
	lim=$("$RDMACTL" -j --root "$root" limits "$@" 2>/dev/null | jq -c '[.limits[] | [.scope, .verdict]] | sort')
	doc=$("$RDMACTL" -j --root "$root" doctor --only memlock.shell,memlock.login,memlock.systemd "$@" \
		2>/dev/null | jq -c '[.checks[] | [({"memlock.shell": "process", "memlock.login": "pam",
			"memlock.systemd": "systemd"}[.id]), (.status | ascii_downcase)]] | sort')
	if [ -n "$lim" ] && [ "$lim" = "$doc" ]; then
		pass "$name"
	else
		fail "$name" "limits $lim, doctor $doc"
	fi
}
CAP=$TMPD/cap
cp -a "$FIXTURES/doctor-broken" "$CAP"
printf 'CapEff:\t0000000000004000\nCapBnd:\t000001ffffffffff\n' >>"$CAP/proc/self/status"
agree cap-user "$CAP"
run -j --root "$CAP" limits
check cap-process-ok json_ok '.limits[] | select(.scope == "process") | .verdict == "ok" and .fix == null and
	(.reason | startswith("not enforced: this process has CAP_IPC_LOCK"))'
sed -i 's/^Uid:.*/Uid:\t0\t0\t0\t0/' "$CAP/proc/self/status"
agree cap-root "$CAP"
run --root "$CAP" limits
check cap-root-row out_has '^pam +user root +.* ok +'
check cap-root-why out_has '^pam \(user root\): not enforced: root has CAP_IPC_LOCK, which pins past RLIMIT_MEMLOCK; a job of a user without it gets '
agree cap-root-alice "$CAP" --user alice
sed -i 's/^CapBnd:.*/CapBnd:\t0000000000000000/' "$CAP/proc/self/status"
agree cap-root-no-bound "$CAP"
for fx in doctor-broken doctor-healthy limits-pam limits-systemd limits-root; do
	agree "agree-$fx" "$FIXTURES/$fx"
done


# --- live: this process under prlimit, as the kernel sets it ---
if ! command -v prlimit >/dev/null; then
	skip live "prlimit not installed (Debian package util-linux)"
	finish
fi
REAL=$RDMACTL
# Held to its limit: without CAP_IPC_LOCK, which root has and which pins
# past any limit (not enforced: ok, below).
NOCAP=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	NOCAP=(setpriv --bounding-set -ipc_lock)
	RDMACTL=prlimit run --memlock=65536:65536 "$REAL" limits
	check live-cap-64k-ok out_has '^process +self +64 KiB +64 KiB +ok +/proc/self/limits$'
	check live-cap-64k-why out_has '^process \(self\): not enforced: this process has CAP_IPC_LOCK'
fi
RDMACTL=prlimit run --memlock=65536:65536 "${NOCAP[@]}" "$REAL" limits
check live-64k-rc rc_is 1
check live-64k-row out_has '^process +self +64 KiB +64 KiB +fail +/proc/self/limits$'
check live-64k-fix out_has 'prlimit --pid \$\$ --memlock=unlimited:unlimited'
RDMACTL=prlimit run --memlock=65536:65536 "${NOCAP[@]}" "$REAL" -j limits
check live-64k-json [ "$(json_memlock)" = "65536 65536" ]
RDMACTL=prlimit run --memlock=2147483648:unlimited "${NOCAP[@]}" "$REAL" -j limits
if [ "$RC" -eq 2 ] || ! json_ok .; then
	skip live-unlimited-hard "raising the hard memlock limit needs CAP_SYS_RESOURCE (the lab checks it)"
else
	check live-2g-warn json_ok '.limits[0] | .soft_bytes == 2147483648 and .hard_bytes == null and .verdict == "warn" and
		(.fix | contains("ulimit -l unlimited"))'
fi

# --pid of this shell: the same numbers as /proc/$$/limits.
run -j limits --pid $$
check live-shell-pid json_ok ".limits[0].pid == $$"
check live-shell-matches-proc [ "$(json_memlock)" = "$(proc_memlock $$)" ]

# A process started with prlimit, examined from outside.
prlimit --memlock=1048576:2097152 sleep 30 &
SLEEPER=$!
# Until prlimit has set the limit and become sleep.
is_sleep() { [[ $(readlink "/proc/$SLEEPER/exe" 2>/dev/null) == */sleep ]]; }
waits_for 60 is_sleep
run -j limits --pid $SLEEPER
check live-prlimit-pid json_ok '.limits[0] | .soft_bytes == 1048576 and .hard_bytes == 2097152 and
	.soft == "1 MiB" and .hard == "2 MiB" and .verdict == "fail"'
check live-prlimit-matches-proc [ "$(json_memlock)" = "$(proc_memlock $SLEEPER)" ]
run limits --pid $SLEEPER
check live-prlimit-rc rc_is 1
check live-prlimit-row out_has "^process +pid $SLEEPER +1 MiB +2 MiB +fail +/proc/$SLEEPER/limits$"
kill $SLEEPER 2>/dev/null
wait $SLEEPER 2>/dev/null


finish
