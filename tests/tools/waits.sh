# shellcheck shell=bash
# waits_for SECONDS CMD...: CMD, again every 50 ms until it holds or
# SECONDS have passed; CMD's last status.  SECONDS is a guard against a
# hang, not a guess at the machine's pace: make check runs the host's
# suites at nice 10 beside the lab, where a server has taken seconds to
# listen (these waits were 2 to 10 s, then went on regardless).
waits_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < end)) || return 1
		sleep 0.05
	done
}

# listens PORT [NETNS]: something listens on TCP port PORT, in network
# namespace NETNS if given.
listens() {
	if [ -n "${2-}" ]; then
		ip netns exec "$2" ss -Hltn "sport = :$1" | grep -q .
	else
		ss -Hltn "sport = :$1" | grep -q .
	fi
}
