#!/bin/bash
# The RDMA netns mode, as a container meets it.  In exclusive mode
# (`rdma system set netns exclusive`) a new network namespace sees no RDMA
# device at all while `rdma system show` still says exclusive there:
# `rdmactl devices` and `doctor` run inside it must name the mode, what it
# hides (rxe0, which the verbs class still names) and the fix.  In shared
# mode the namespace sees rxe0.  (This kernel refuses to move rxe0 into a
# namespace, `rdma dev set rxe0 netns NS`: EOPNOTSUPP, so the fix is only
# checked as text.)  The mode is shared again at the end, whatever failed.

# lab-guests: 1
# lab-seconds: 11
sys=/sys/class/infiniband/rxe0
[[ -d $sys ]] || skip "no rxe0 in this guest"
NS=rdmactl-netns
# `rdma -j system show` prints text on this iproute2: "netns shared copy-on-fork on".
mode() { rdma system show | awk '$1 == "netns" { print $2 }'; }
[[ $(mode) == shared ]] || fail "the lab starts in shared mode, not '$(mode)'"

restore() {
	ip netns del "$NS" 2>/dev/null
	# The kernel refuses the switch (EBUSY) while another namespace exists.
	rdma system set netns shared || echo "not ok: could not restore shared mode" >&2
}
trap restore EXIT

# ---- exclusive: a new namespace sees nothing ----
rdma system set netns exclusive || fail "rdma system set netns exclusive failed"
ip netns add "$NS" || fail "ip netns add $NS failed"
check_eq "rdma system show in $NS" exclusive "$(ip netns exec "$NS" rdma system show | awk '$1 == "netns" { print $2 }')"
check_eq "rdma dev in $NS (none)" "" "$(ip netns exec "$NS" rdma dev show)"
check_eq "ib_core's netns_mode parameter" N "$(</sys/module/ib_core/parameters/netns_mode)"

rc=0
err=$(ip netns exec "$NS" "$RDMACTL" devices 2>&1 >/dev/null) || rc=$?
echo "devices in $NS: $err"
check_eq "devices in $NS: exit" 1 "$rc"
grep -qF "No RDMA device in this network namespace: the RDMA netns mode is exclusive (rdma system show)" <<<"$err" ||
	fail "devices in $NS does not name the mode: $err"
grep -qF "and rxe0 belongs to another one" <<<"$err" || fail "devices in $NS does not name what it hides: $err"
grep -qF "Fix: rdma system set netns shared" <<<"$err" || fail "devices in $NS gives no shared-mode fix: $err"
grep -qF "rdma dev set rxe0 netns NS" <<<"$err" || fail "devices in $NS gives no move fix: $err"

out=$(ip netns exec "$NS" "$RDMACTL" -j devices 2>/dev/null)
check_eq "devices -j in $NS: netns_mode" exclusive "$(jq -r .netns_mode <<<"$out")"
check_eq "devices -j in $NS: hidden" '["rxe0"]' "$(jq -c .other_netns_devices <<<"$out")"

rc=0
ip netns exec "$NS" "$RDMACTL" -j doctor --only devices >doctor.json 2>doctor.err || rc=$?
cat doctor.json doctor.err
check_eq "doctor in $NS: exit" 1 "$rc"
check_eq "doctor in $NS: devices" fail "$(jq -r '.checks[0].status' doctor.json)"
grep -qF "no RDMA device in this network namespace: the RDMA netns mode is exclusive" <<<"$(jq -r '.checks[0].found' doctor.json)" ||
	fail "doctor in $NS does not name the mode"
grep -qF "rxe0 belongs to another one" <<<"$(jq -r '.checks[0].found' doctor.json)" || fail "doctor in $NS does not name rxe0"
grep -qF "rdma system set netns shared" <<<"$(jq -r '.checks[0].fix' doctor.json)" || fail "doctor in $NS gives no fix"

# The initial namespace still has rxe0, and says the mode.
text=$("$RDMACTL" devices) || fail "rdmactl devices in the initial namespace exited $?"
echo "$text"
grep -q '^rxe0 ' <<<"$text" || fail "the initial namespace lost rxe0"
grep -qF "RDMA netns mode: exclusive (each device belongs to one network namespace)" <<<"$text" ||
	fail "devices in the initial namespace does not say exclusive"

# ---- back to shared: the namespace sees rxe0 ----
ip netns del "$NS"
rdma system set netns shared || fail "rdma system set netns shared failed"
check_eq "mode restored" shared "$(mode)"
ip netns add "$NS" || fail "ip netns add $NS failed"
out=$(ip netns exec "$NS" "$RDMACTL" -j devices) || fail "devices in $NS (shared) exited $?"
check_eq "devices in $NS (shared): names" '["rxe0"]' "$(jq -c '[.devices[].name]' <<<"$out")"
check_eq "devices in $NS (shared): netns_mode" shared "$(jq -r .netns_mode <<<"$out")"
out=$(ip netns exec "$NS" "$RDMACTL" -j doctor --only devices) || fail "doctor in $NS (shared) exited $?"
check_eq "doctor in $NS (shared): devices" ok "$(jq -r '.checks[0].status' <<<"$out")"
grep -qF "RDMA netns mode shared" <<<"$(jq -r '.checks[0].found' <<<"$out")" || fail "doctor in $NS (shared) does not say shared"
exit 0
