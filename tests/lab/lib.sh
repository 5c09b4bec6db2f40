# shellcheck shell=bash
# Helpers for lab tests, loaded into every test's shell by the guest runner
# (through BASH_ENV, so a test needs no `source` line). A test passes when it
# exits 0 and no `fail` was recorded, is skipped when it exits 77, and fails
# otherwise. Failures are recorded in a file rather than a variable so that a
# `fail` inside a subshell or a $(...) still fails the test.
#
# Environment set by the runner: LAB_NODE (a|b), LAB_GUESTS (1|2), LAB_IP,
# LAB_PEER_IP (empty with one guest), LAB_SHARE (per-test dir shared by both
# guests), LAB_SRC (project dir, read-only), LAB_BIN, RDMACTL; internal:
# LAB_RUN, LAB_PEER, LAB_TEST_ID, LAB_FAILFILE. A test starts in an empty
# scratch dir of its own on the guest's tmpfs.

# Children of the test that are bash scripts must not load us again.
unset BASH_ENV

# fail MSG: report a failed check; the test goes on but will fail. On
# stderr, so that it shows in the log even from inside a $(...).
fail() {
	echo "not ok: $*" >&2
	echo "$*" >>"$LAB_FAILFILE"
}

# check_eq WHAT EXPECTED ACTUAL
check_eq() {
	if [[ $2 == "$3" ]]; then
		echo "ok: $1"
	else
		fail "$1: expected '$2', got '$3'"
	fi
}

# skip REASON: end the test as skipped.
skip() {
	echo "SKIP: $*"
	exit 77
}

# lab_sleep SECS: sleep without starting a process.  The guests' CPUs are
# emulated and a fork+exec of sleep(1) costs them tens of milliseconds: a
# guest polling at 5 Hz with it spent a tenth of its CPU doing so, taken
# from whatever the other guest was measuring against it (the probe bench
# saw rdmactl 25% slower than ib_write_bw only because its peer polled
# during rdmactl's runs).  A read that times out on a pipe nobody writes
# to is a bash builtin.  (The pipe is opened once per shell, on first use.)
lab_sleep() {
	[[ -n ${LAB__SLEEP_FD-} ]] || exec {LAB__SLEEP_FD}<> <(:)
	read -r -t "$1" -u "$LAB__SLEEP_FD" _ || true
}

# lab_wait_listen PORT: until something listens on TCP PORT here (10 s at
# most); 0 when it does.
lab_wait_listen() {
	local i
	for i in $(seq 50); do
		ss -Hltn "sport = :$1" | grep -q . && return 0
		lab_sleep 0.2
	done
	return 1
}

# lab_hwcnt DEV PORT: the port's hw_counters as "name value" lines, sorted
# (one grep, not a process per counter).
lab_hwcnt() {
	grep -H . "/sys/class/infiniband/$1/ports/$2/hw_counters/"* | sed 's|.*/||; s/:/ /' | sort
}

# lab__await DESC SECONDS TEST...: wait until the shell test `TEST...` holds.
# Gives up early when the peer guest went down or, inside a test, already
# finished that test (so it will never answer), rather than sit out the bound.
lab__await() {
	local desc=$1 limit=$2 deadline=$((SECONDS + $2))
	shift 2
	until "$@"; do
		if [[ -n $LAB_PEER ]]; then
			if [[ -e $LAB_RUN/down.$LAB_PEER ]]; then
				echo "$desc: lab-$LAB_PEER went down" >&2
				return 1
			fi
			if [[ -n ${LAB_TEST_ID-} && -e $LAB_RUN/res/$LAB_TEST_ID.$LAB_PEER ]]; then
				echo "$desc: lab-$LAB_PEER already finished this test" >&2
				return 1
			fi
		fi
		if ((SECONDS >= deadline)); then
			echo "$desc: gave up after $limit s" >&2
			return 1
		fi
		lab_sleep 0.2
	done
}

# lab__all_in DIR: every guest has checked in to DIR.
lab__all_in() {
	[[ -e $1/$LAB_NODE && (-z $LAB_PEER || -e $1/$LAB_PEER) ]]
}

# lab__rendezvous DIR SECONDS: check in to DIR, wait for the other guest.
lab__rendezvous() {
	mkdir -p "$1" && : >"$1/$LAB_NODE" &&
		lab__await "barrier ${1##*/}" "$2" lab__all_in "$1"
}

# lab_barrier NAME: both guests wait here for each other (60 s at most).
# NAME must be unique within the test. On failure the test ends, failed.
lab_barrier() {
	lab__rendezvous "$LAB_SHARE/.barrier/$1" 60 && return 0
	fail "lab_barrier $1: lab-$LAB_PEER never arrived"
	exit 1
}

# lab_put KEY VALUE: publish a small value to the other guest.
lab_put() {
	mkdir -p "$LAB_SHARE/.kv"
	# Write then rename, so lab_get never reads half a value.
	printf '%s\n' "$2" >"$LAB_SHARE/.kv/.$1.$LAB_NODE" &&
		mv -f "$LAB_SHARE/.kv/.$1.$LAB_NODE" "$LAB_SHARE/.kv/$1"
}

# lab_get KEY [SECONDS]: print the value put under KEY, waiting for it
# (60 s by default). On failure the test (or the $(...) around) ends, failed.
lab_get() {
	if lab__await "lab_get $1" "${2:-60}" test -e "$LAB_SHARE/.kv/$1"; then
		cat "$LAB_SHARE/.kv/$1"
		return
	fi
	fail "lab_get $1: nothing was put"
	exit 1
}

# lab_need_peer: skip the test when the lab runs a single guest.
lab_need_peer() {
	[[ -n $LAB_PEER ]] || skip "needs two guests (run with --guests 2)"
}
