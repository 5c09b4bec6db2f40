# shellcheck shell=bash
# Helpers for lab tests, loaded into every test's shell by the guest runner
# (through BASH_ENV, so a test needs no `source` line). A test passes when it
# exits 0 and no `fail` was recorded, is skipped when it exits 77, and fails
# otherwise. Failures are recorded in a file rather than a variable so that a
# `fail` inside a subshell or a $(...) still fails the test.
#
# Environment set by the runner (see README.md): LAB_NODE (a, b, c ...),
# LAB_ROLE (in a two-guest test, a or b: the pair's first or second guest,
# whichever pair of the run it is; else LAB_NODE),
# LAB_GUESTS, LAB_RAILS, LAB_SYSTEMD (the systemd guest's letter, or empty),
# LAB_IP (and LAB_IP1 on rail 1), LAB_PEER_IP (with
# exactly two guests: the other one's; else empty), LAB_NODES (lab-a,lab-b,...:
# a host list for ssh loops, pdsh, clush and srun), LAB_HOSTS and LAB_IPS
# (space-separated, same order; LAB_IPS1 on rail 1), LAB_SHARE (per-test dir
# every guest sees), LAB_SRC (project dir, read-only), LAB_BIN, RDMACTL;
# internal: LAB_RUN, LAB_PEER, LAB__ALL, LAB__OTHERS, LAB_TEST_ID,
# LAB_FAILFILE. A test starts in an empty scratch dir of its own on the
# guest's tmpfs.

# Children of the test that are bash scripts must not load us again.
unset BASH_ENV

# Every job of the lab runs UCX 1.13 on rxe at an IPv4 GID: its UD drops
# every packet unless told not to check the destination GID (README.md,
# Collectives), so the lab's job environment says so, as the doctor's
# ucx.ud_dgid asks; sshd sets it for remote sessions (guest.sh).  A test
# of that check unsets it.
export UCX_UD_VERBS_ETH_DGID_CHECK=n

# jq is gojq in the tests where it is installed (make deps installs it):
# jq 1.6 parses and compiles its library of builtins at every start, which
# costs an emulated CPU over a second a call (0.1 s for gojq, measured in a
# guest), and the tests read JSON hundreds of times. The programs the tests
# give it are ones both read alike.
if command -v gojq >/dev/null; then
	jq() { gojq "$@"; }
fi
# json_one: one JSON document that satisfies a filter (tests/tools/json-one.sh).
. "${BASH_SOURCE[0]%/*}/../tools/json-one.sh"

# rm, seq and dirname are bash's loadable builtins where installed (make
# deps installs bash-builtins): the tests and the runner call them hundreds
# of times, and each fork+exec of a tool costs an emulated CPU 50 to 100 ms.
# The options the lab uses (rm -f -r, seq's) are theirs too.  Not sleep:
# t4-cluster looks for a sleep process.  Not mkdir: its -p fails "File
# exists" when another guest makes the same directory at the same moment
# (seen at a barrier); the lab's helpers look before they make one.
for b in rm seq dirname; do
	enable -f "/usr/lib/bash/$b" "$b" 2>/dev/null
done
unset b

# lab__dir DIR: DIR exists, made (GNU mkdir -p, which takes another
# guest's making it at the same moment as done) only when missing.
lab__dir() {
	[[ -d $1 ]] || mkdir -p "$1"
}

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

# lab_gid_of ADDR: the IPv4-mapped GID of the address ADDR, as sysfs prints it.
lab_gid_of() {
	# shellcheck disable=SC2086 # the dots split the address into octets
	(IFS=. && printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $1)
}

# lab_v2_gid DEV ADDR [NETDEV]: the index of DEV port 1's RoCE v2 entry of
# IPv4 ADDR (on NETDEV when given), read from sysfs alone; 1 when none.
lab_v2_gid() {
	local port=/sys/class/infiniband/$1/ports/1 want f i
	want=$(lab_gid_of "$2")
	for f in "$port"/gids/*; do
		i=${f##*/}
		[[ $(<"$f") == "$want" ]] || continue
		[[ $(<"$port/gid_attrs/types/$i") == "RoCE v2" ]] 2>/dev/null || continue
		[[ -z ${3:-} || $(<"$port/gid_attrs/ndevs/$i") == "$3" ]] 2>/dev/null || continue
		echo "$i"
		return 0
	done
	return 1
}

# lab_slurm_responding [NODE]: Slurm does not count lab-NODE (this guest)
# not responding (sinfo's "idle*", the node's NOT_RESPONDING flag).
lab_slurm_responding() {
	[[ $(scontrol -o show node "lab-${1:-$LAB_NODE}" 2>&1) != *NOT_RESPONDING* ]]
}

# lab_healthcheck SCRIPT / lab_healthcheck_stop: slurmd's health check on
# this guest (every 10 s, in a run with `# lab-needs: healthcheck`) runs
# SCRIPT, a shell script's text, until lab_healthcheck_stop; that returns
# once no pass runs it any more (a pass in flight when the test went on
# acted on what the test changed next: it resumed a node the test had
# just mended under an unreachable controller).
lab_healthcheck() {
	if [[ -z ${LAB__HEALTHCHECK-} ]]; then
		fail "lab_healthcheck: Slurm runs no health check: no test of the run says '# lab-needs: healthcheck'"
		return 1
	fi
	printf '%s\n' "$1" >/run/lab/healthcheck.new && chmod 755 /run/lab/healthcheck.new &&
		mv /run/lab/healthcheck.new /run/lab/healthcheck
}
lab_healthcheck_stop() { flock /run/lab/healthcheck.lock rm -f /run/lab/healthcheck; }

# lab_wait_listen PORT: until something listens on TCP PORT here (10 s at
# this guest's pace at most); 0 when it does.
lab_wait_listen() {
	LAB__NAP_MAX_MS=200 LAB__FROM='' lab__await "something listening on TCP port $1" 10 lab__listens "$1"
}
lab__listens() { ss -Hltn "sport = :$1" | grep -q .; }

# lab_block_roce: drop the RoCE v2 traffic (UDP 4791) coming into this
# guest, as a node's firewall would, counting what it drops (lab_roce_drops);
# `nft delete table inet rocefw` undoes it.
lab_block_roce() {
	nft -f - <<-'EOF'
		table inet rocefw {
			chain in {
				type filter hook input priority filter; policy accept;
				udp dport 4791 counter drop
			}
		}
	EOF
}

# lab_roce_drops: the packets lab_block_roce's rule has dropped so far.
lab_roce_drops() {
	nft list table inet rocefw | sed -n 's/.*udp dport 4791 counter packets \([0-9]*\) .*/\1/p'
}

# lab_bin_drops_off BIN WHEN: BIN becomes an rdmactl that cuts this guest
# off both switches once it is under way, as a node powered off in the
# middle of a run: WHEN is a number of seconds after a launcher starts it,
# or "qp": once an rdmactl on this guest holds an RDMA QP (the guest's
# `rdma resource` lists one of "comm rdmactl": a probe agent that has
# joined and is in a test, whose QPs are its test's forked child's, so
# not of its own pid), 120 s at most.  The run's own process times it, where a look for that
# process from the test raced short runs.  rdmactl is
# exec'd, not put in the background, where sh would give it /dev/null for
# stdin (a probe agent's token comes on it).  `ln -sf "$RDMACTL" BIN` and
# lab_back_online undo it.
#
# The cut is nftables dropping every IP packet in and out of eth0 and eth1,
# not the links set down.  rxe in Debian 12's kernel lets a QP be destroyed
# while its packets are stuck in a link that is down, and frees the QP's
# socket, which those packets still point to: once, when they were freed
# (the links back up), a guest panicked in rxe_skb_tx_dtor.  A packet
# nftables drops is freed at once, its QP still there; the peers see the
# same silence.
lab_bin_drops_off() {
	local wait="sleep $2"
	[[ $2 == qp ]] && wait='i=0; until rdma resource show qp | grep -q "comm rdmactl"; do
		i=$((i + 1)); [ $i -gt 600 ] && break; sleep 0.2; done'
	cat >"$1.new" <<-EOF || return
	#!/bin/sh
	($wait; nft -f - <<'NFT'
	table inet offline {
		chain in { type filter hook prerouting priority raw; iifname { "eth0", "eth1" } drop; }
		chain out { type filter hook output priority raw; oifname { "eth0", "eth1" } drop; }
	}
	NFT
	) </dev/null >/dev/null 2>&1 &
	exec $RDMACTL "\$@"
	EOF
	chmod 755 "$1.new" && mv -f "$1.new" "$1"
}

# lab_back_online: undo lab_bin_drops_off's cut.
lab_back_online() {
	nft delete table inet offline
}

# lab_ps NAME...: the processes of these names on every guest of the test,
# as "lab-X: PID COMMAND LINE" lines (pgrep -a -x).  Asked through the
# test's share, where each guest's runner answers within a quarter second
# (guest.sh, serve_ps), rather than over pdsh: an ssh handshake costs an
# emulated CPU about 1.5 s, and four of them a look made t4-mpi's checks
# after every collective take 7 to 10 s each.  A guest that does not
# answer within 10 s fails the test.  The runners answer a test that says
# `# lab-needs: ps` (LAB__PS); in another it fails at once.
lab_ps() {
	# (Its looks a quarter second apart at most: answers come within 1.25 s.)
	local dir=$LAB_SHARE/.ps id n line LAB__FROM LAB__FROM_ANY=1 LAB__NAP_MAX_MS=250
	if [[ -z ${LAB__PS-} ]]; then
		fail "lab_ps $*: no guest answers it: the test has no '# lab-needs: ps' line"
		return 1
	fi
	LAB__ASKS=$((${LAB__ASKS:-0} + 1))
	id=$LAB_NODE-$$-$LAB__ASKS
	lab__dir "$dir" && echo "$*" >"$dir/.ask.$id" && mv "$dir/.ask.$id" "$dir/ask.$id"
	lab__await_in "$dir" "lab_ps $*" 10 lab__all_in . "$id." || {
		lab__missing "$dir" "$id."
		fail "lab_ps: no answer from$(printf ' lab-%s' $LAB__FROM)"
		return 1
	}
	# (read and printf, builtins: a sed a guest cost each look 80 ms a guest)
	for n in $LAB__ALL; do
		while IFS= read -r line; do
			printf 'lab-%s: %s\n' "$n" "$line"
		done <"$dir/$id.$n"
	done
	rm -f "$dir/ask.$id"
}

# lab_none_left WHAT SECONDS NAME...: no process of these names on any
# guest within SECONDS of now (asked at once, then each second: most are
# gone already, and a fixed wait costs every caller its full length).
lab_none_left() {
	local what=$1 end left
	lab_budget end "$2"
	end=$((SECONDS + end))
	shift 2
	while :; do
		left=$(lab_ps "$@") || return
		[[ -z $left ]] || ((SECONDS >= end)) && break
		lab_sleep 1
	done
	check_eq "$what: no $* left on the guests" "" "$left"
}

# lab_hwcnt DEV PORT: the port's hw_counters as "name value" lines, sorted
# (one grep, not a process per counter).
lab_hwcnt() {
	grep -H . "/sys/class/infiniband/$1/ports/$2/hw_counters/"* | sed 's|.*/||; s/:/ /' | sort
}

# lab__hopeless: what a guest waits for can no longer come; LAB__WHY says
# why. It cannot once another guest went down or, inside a test, once the
# guests it would come from finished the test: those in LAB__FROM (letters;
# default every other guest), any one of them when LAB__FROM_ANY is set (a
# barrier needs them all), else all of them (a value may come from any).
lab__hopeless() {
	local n nfin=0 all=0 from=${LAB__FROM-$LAB__OTHERS}
	for n in $LAB__OTHERS; do
		if [[ -e $LAB_RUN/down.$n ]]; then
			LAB__WHY="lab-$n went down"
			return 0
		fi
	done
	[[ -n ${LAB_TEST_ID-} && -n $from ]] || return 1
	for n in $from; do
		all=$((all + 1))
		if [[ -e $LAB_RUN/fin/$LAB_TEST_ID.$n ]]; then
			nfin=$((nfin + 1))
			if [[ -n ${LAB__FROM_ANY-} ]]; then
				LAB__WHY="lab-$n already finished this test"
				return 0
			fi
		fi
	done
	if ((nfin == all)); then
		LAB__WHY="every other guest already finished this test"
		return 0
	fi
	return 1
}

# The lab's budgets.  Every wait is on an event, and the seconds it is
# given are a guard against a hang, not a guess at the speed: a guest on
# a busy or slower host does the same work in more seconds, so each budget
# is stretched by LAB_PACE, the time this guest took for a fixed piece of
# work (guest.sh, measure_pace) in percent of its time on the machine the
# budgets were set on; never below 100.  A wait that gives up says what it
# waited for, its budget at this pace, and how long the same wait took on
# the last run (build/lab-waits, kept by the harness).

# lab_budget VAR SECONDS: VAR is SECONDS at this guest's pace.
lab_budget() {
	printf -v "$1" '%d' $((($2 * ${LAB_PACE:-100} + 99) / 100))
}

# lab_ack_timeout: export RDMACTL_PROBE_ACK_TIMEOUT for the guests' pace:
# rdmactl probe's QPs wait 67 ms (2^14 x 4.096 us) for an ACK, then send
# again; at the slowest guest's pace P% that is doubled until it is at
# least P% of 67 ms (each guest's pace at this test's start, which its
# runner wrote before the guests met to start it).  At half pace
# (LAB_CPUS=1) a healthy link's writes were sent again a few hundred
# times a run, and once, with --bidir, Debian 12's rxe refused a write it
# had had twice as an invalid request.  lab_ack_timeout MAX: at most
# 2^MAX, for a test whose shaped links lose writes (each loss at a step's
# tail waits the whole timeout, and the pace can sit at its cap all run).
lab_ack_timeout() {
	local t=14 x=100 p
	lab__slowest_pace p
	while ((x < p && t < ${1:-31})); do
		x=$((x * 2)) t=$((t + 1))
	done
	export RDMACTL_PROBE_ACK_TIMEOUT=$t
}

# lab_budget_slowest VAR SECONDS: VAR is SECONDS at the slowest pace of
# the test's guests (at its start, as lab_ack_timeout), for a length both
# ends must agree on.
lab_budget_slowest() {
	local lab__p
	lab__slowest_pace lab__p
	printf -v "$1" '%d' $((($2 * lab__p + 99) / 100))
}
# lab__slowest_pace VAR: the slowest of this guest's pace and the paces the
# runners wrote for this test (VAR not one of its own locals: sp n q).  A
# guest of the test whose pace is not there fails the test: the length
# would be this guest's guess, not one both ends agree on.
lab__slowest_pace() {
	local sp=${LAB_PACE:-100} n q
	for n in ${LAB__ALL-}; do
		if read -r q 2>/dev/null <"${LAB_RUN-}/pace/${LAB_TEST_ID-}.$n" && [[ $q =~ ^[0-9]+$ ]]; then
			((q > sp)) && sp=$q
		else
			fail "lab: lab-$n's pace for ${LAB_TEST_ID-} is not written (the runners write it before the test)"
		fi
	done
	printf -v "$1" '%d' "$sp"
}

# lab_timeout SECONDS CMD...: timeout(1), its limit SECONDS at this
# guest's pace (with -k 5: a command that ignores SIGTERM still ends).
lab_timeout() {
	local limit
	lab_budget limit "$1"
	shift
	timeout -k 5 "$limit" "$@"
}

# lab__wait_key VAR: VAR is the name of this test's (or the runner's)
# file of waits.
lab__wait_key() {
	local id=${LAB_TEST_ID:-00-boot-${LAB__GUESTS_BOOTED:-0}}
	printf -v "$1" '%s' "${id#*-}"
}

# lab__waited DESC SECONDS: keep how long the wait for DESC took, for the
# message of a later run's wait that gives up (only waits of a second or
# more: one under a second is "under 1 s" then).
lab__waited() {
	local key
	(($2 >= 1)) && [[ -n ${LAB_RUN-} ]] || return 0
	lab__wait_key key
	lab__dir "$LAB_RUN/waits" &&
		printf '%s\t%s\n' "$2" "$1" >>"$LAB_RUN/waits/$key.$LAB_NODE"
}

# lab__last_wait DESC: how long the wait for DESC took on the last run, as
# words for a message.
lab__last_wait() {
	local key f s d max=-1
	lab__wait_key key
	f=${LAB_RUN-}/waits-last/$key
	if [[ ! -r $f ]]; then
		printf 'no record of a last run'
		return
	fi
	while IFS=$'\t' read -r s d; do
		[[ $d == "$1" ]] && ((s > max)) && max=$s
	done <"$f"
	if ((max < 0)); then
		printf 'under 1 s or not waited for on the last run'
	else
		printf '%d s on the last run' "$max"
	fi
}

# lab__await DESC SECONDS TEST...: wait until the shell test `TEST...` holds,
# SECONDS at this guest's pace at most.
# Gives up early when lab__hopeless says it never will, rather than sit out
# the bound.  The test is asked once more before giving up: a guest checks
# in, finds everyone there and finishes the test between our test and our
# look at who finished (seen: a barrier failed "lab-a already finished"
# although lab-a had checked in and passed it).
#
# The looks back off from 50 ms to a second apart (LAB__NAP_MAX_MS, for a
# caller expecting its answer soon, caps them), and lab__hopeless (a
# file for each other guest, twice) is asked every fourth look: under TCG
# a guest woken from idle costs the host about 2 ms of CPU and each file
# looked at over 9p 4 ms more, and three guests waiting at a barrier,
# looking five times a second, took half a host core.
lab__await() {
	local desc=$1 base=$2 limit start=$SECONDS looks=0 ms=50 max=${LAB__NAP_MAX_MS:-1000} nap
	lab_budget limit "$2"
	shift 2
	until "$@"; do
		if ((++looks % 4 == 0)) && lab__hopeless; then
			"$@" && return 0
			echo "$desc: $LAB__WHY" >&2
			return 1
		fi
		if ((SECONDS - start >= limit)); then
			echo "$desc: gave up after $limit s ($base s at pace ${LAB_PACE:-100}%; $(lab__last_wait "$desc"))" >&2
			return 1
		fi
		printf -v nap '%d.%03d' $((ms / 1000)) $((ms % 1000))
		lab_sleep "$nap"
		ms=$((ms * 2 < max ? ms * 2 : max))
	done
	lab__waited "$desc" $((SECONDS - start))
}

# lab__await_in DIR DESC SECONDS TEST...: lab__await, with TEST run inside
# DIR (a subshell's working directory) and naming its files from there:
# 9p walks a path a name at a time, and a test's share is five names into
# the run share.  A guest waiting at a barrier took its QEMU 1.43% of a
# host core looking from the top, 1.18% from inside, an idle one 0.62%
# (100 s of each QEMU).
lab__await_in() {
	(cd "$1" && lab__await "${@:2}")
}

# lab__all_in DIR [PREFIX]: every guest has checked in to DIR (a file
# DIR/PREFIXNODE each: a barrier's, or lab_ps's answers); if not, LAB__FROM
# names the first that has not: a wait needs one guest to wait on, and
# each file is a 9p round trip (lab__missing names them all).
lab__all_in() {
	local n
	LAB__FROM=''
	for n in $LAB__ALL; do
		if [[ ! -e $1/${2-}$n ]]; then
			LAB__FROM=" $n"
			return 1
		fi
	done
}

# lab__missing DIR [PREFIX]: lab__all_in, with LAB__FROM naming every
# guest that has not checked in.
lab__missing() {
	local n
	LAB__FROM=''
	for n in $LAB__ALL; do
		[[ -e $1/${2-}$n ]] || LAB__FROM+=" $n"
	done
	[[ -z $LAB__FROM ]]
}

# lab__rendezvous DIR SECONDS: check in to DIR, wait for every other guest.
lab__rendezvous() {
	local LAB__FROM='' LAB__FROM_ANY=1
	lab__dir "$1" && : >"$1/$LAB_NODE" &&
		lab__await_in "$1" "barrier ${1##*/}" "$2" lab__all_in .
}

# lab_barrier NAME [SECONDS]: every guest waits here for all the others
# (60 s at most, or SECONDS). NAME must be unique within the test. On
# failure the test ends, failed.
lab_barrier() {
	local LAB__FROM=''
	lab__rendezvous "$LAB_SHARE/.barrier/$1" "${2:-60}" && return 0
	lab__missing "$LAB_SHARE/.barrier/$1"
	# shellcheck disable=SC2086 # a list of letters
	fail "lab_barrier $1: never arrived:$(printf ' lab-%s' $LAB__FROM)"
	exit 1
}

# lab_put KEY VALUE: publish a small value to the other guests.
lab_put() {
	lab__dir "$LAB_SHARE/.kv"
	# Write then rename, so lab_get never reads half a value.
	printf '%s\n' "$2" >"$LAB_SHARE/.kv/.$1.$LAB_NODE" &&
		mv -f "$LAB_SHARE/.kv/.$1.$LAB_NODE" "$LAB_SHARE/.kv/$1"
}

# lab_has KEY: true once a guest put KEY (lab_get without the wait).
lab_has() {
	[[ -e $LAB_SHARE/.kv/$1 ]]
}

# lab_get KEY [SECONDS]: print the value put under KEY, waiting for it
# (60 s by default). On failure the test (or the $(...) around) ends, failed.
lab_get() {
	local v
	if lab__dir "$LAB_SHARE/.kv" && lab__await_in "$LAB_SHARE/.kv" "lab_get $1" "${2:-60}" test -e "$1"; then
		# (read, a builtin: cat costs a guest a process a value)
		IFS= read -r -d '' v <"$LAB_SHARE/.kv/$1"
		printf '%s' "$v"
		return 0
	fi
	fail "lab_get $1: nothing was put"
	exit 1
}

# lab_need_peer: skip the test unless the lab runs exactly two guests (a
# two-node test: LAB_PEER_IP is the other one).
lab_need_peer() {
	[[ -n $LAB_PEER ]] || skip "needs exactly two guests (run with --guests 2)"
}

# lab_need_guests N: skip the test when the lab runs fewer than N guests.
lab_need_guests() {
	((LAB_GUESTS >= $1)) || skip "needs $1 guests (run with --guests $1)"
}

# lab_need_leaves N: skip the test unless the lab runs a fabric of N
# leaves or more (--leaves, or a `# lab-leaves: N` line in a test).
lab_need_leaves() {
	((${LAB_LEAVES:-0} >= $1)) || skip "needs a fabric of $1 leaves (run with --leaves $1)"
}

# lab_leaf NODE: the leaf switch lab-NODE (a letter or lab-X) is under
# in the fabric, as topology.conf names it (leaf1, leaf2 ...).
lab_leaf() {
	local n=${1#lab-} x
	for x in $LAB__LEAF_OF; do
		if [[ ${x%:*} == "$n" ]]; then
			echo "leaf${x#*:}"
			return 0
		fi
	done
	echo "lab_leaf: no guest $1 in a fabric" >&2
	return 1
}

# lab__link_ask RAIL LINK ACTION [VALUE]: ask the harness to do ACTION to
# the fabric's switch link (tests/lab/lab, link_request) and wait for its
# answer, which goes to stdout: show's lines, nothing, or one line
# "error: ..." (then 2). The harness looks for requests twice a second.
lab__link_ask() {
	local dir=$LAB_RUN/link id out LAB__FROM='' LAB__NAP_MAX_MS=250
	LAB__ASKS=$((${LAB__ASKS:-0} + 1))
	id=$LAB_NODE-$$-$LAB__ASKS
	echo "$*" >"$dir/.ask.$id" && mv "$dir/.ask.$id" "$dir/ask.$id" || return 1
	lab__await "the harness doing lab_link $*" 10 test -e "$dir/done.$id" || return 1
	IFS= read -r -d '' out <"$dir/done.$id"
	rm -f "$dir/done.$id"
	if [[ $out == error:* ]]; then
		out=${out#error: }
		echo "lab_link: ${out%$'\n'}" >&2
		return 2
	fi
	printf '%s' "$out"
}

# lab_link [--rail R] LINK ACTION [VALUE]: change one switch link of the
# fabric (--leaves), on every rail or on rail R, and return once the
# harness has applied it. LINK is leafK-spine (leaf K's uplink) or lab-X
# (guest X's host link: its tap, the port of its switch to its NIC, with
# or without the fabric; a shaper inside a guest panics its kernel); ACTION:
#   rate RATE [MS]  shape it both ways to RATE (tc's tbf: 100mbit,
#                 500kbit), its queue MS ms at the rate (default 50, under
#                 the QPs' 67-ms ACK timeout; README.md, The fabric);
#                 rate off: unshaped
#   loss PERCENT  drop PERCENT% of the frames both ways at random
#                 (nftables' numgen); loss 0: none
#   down, up      cut it (its link down) and put it back
#   restore       unshaped, no loss, up
#   show          print "LINK rail R KEY VALUE" lines: state (up, down),
#                 rate (none or tc's), loss, frames (that entered it, both
#                 ways), loss_drops, queue_drops (by the rate's queue)
# or lab_link rails join|part|show: with two rails, join them into one L2
# domain (a link the harness owns between rail 0's and rail 1's top
# switches: the spines with the fabric, else lab-sw0 and lab-sw1), as rails
# sharing a subnet often are on one switch, or part them again; show
# prints "rails state joined" or "rails state parted".
# A test on every guest only (the fabric is all the guests'); the runner
# restores every link after a test that changed one. Exit 2 with one line
# naming a bad value.
lab_link() {
	local rail=all
	if [[ ${1-} == --rail ]]; then
		rail=${2-}
		shift 2 || set --
	fi
	if (($# < 2)); then
		echo "usage: lab_link [--rail R] leafK-spine|lab-X rate RATE [MS]|loss PERCENT|down|up|restore|show; lab_link rails join|part|show" >&2
		return 2
	fi
	if [[ $2 != show && $LAB__ALL != "$LAB__EVERY" ]]; then
		echo "lab_link: the fabric is every guest's: only a test run on all of them changes it" >&2
		return 2
	fi
	# The runner restores the fabric after this test (guest.sh, run_test).
	[[ $2 == show ]] || : >"$LAB_RUN/link/changed.$LAB_TEST_ID"
	lab__link_ask "$rail" "$@"
}

# lab_ip NODE [RAIL]: the address of lab-NODE (NODE a letter or a name
# lab-X) on rail 0 (eth0, 10.99.0.I) or 1 (eth1, 10.99.1.I); I counts every
# guest of the run (LAB__EVERY), not only the test's group.
lab_ip() {
	local n=${1#lab-} i=1 x
	for x in ${LAB__EVERY:-$LAB__ALL}; do
		if [[ $x == "$n" ]]; then
			echo "10.99.${2:-0}.$i"
			return 0
		fi
		i=$((i + 1))
	done
	echo "lab_ip: no guest $1" >&2
	return 1
}
