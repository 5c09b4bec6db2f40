#!/bin/bash
# Hostlists against the references: the same inputs through rdmactl's parser
# and folder (the test_hostlist driver, lib/launch/hostlist.c) and through
# Slurm's `scontrol show hostnames|hostlistsorted` and ClusterShell's
# `nodeset -e|-f`.  Each case is compared with the references whose
# behaviour hostlist.h says it follows; where they disagree it names one.
#
#   expand:  scontrol's names in its order, a repeated name dropped (s),
#            or as a sorted set (S); nodeset's as a sorted set (n)
#   errors:  refused (exit 2, one line) where the named reference refuses
#   fold:    the same text as the named references; and every fold read
#            back by the named references gives the names it was given
. "$(dirname "$0")/lib.sh"

DRIVER=${HOSTLIST_DRIVER:-$(dirname "$RDMACTL")/tests/test_hostlist}

# scontrol reads no daemon for these, but wants a configuration to exist.
printf 'ClusterName=ref\nSlurmctldHost=localhost\n' >"$TMPD/slurm.conf"
export SLURM_CONF=$TMPD/slurm.conf

HAVE_S=0 HAVE_N=0
if command -v scontrol >/dev/null; then HAVE_S=1; else
	skip scontrol "needs slurm-client (Debian package slurm-client)"; fi
if command -v nodeset >/dev/null; then HAVE_N=1; else
	skip nodeset "needs clustershell (Debian package clustershell)"; fi
if [ ! -x "$DRIVER" ]; then
	echo "FAIL ${PREFIX}cli/$SUITE/driver: $DRIVER not built (make unit)"
	exit 1
fi

# compare NAME OURS REF: one verdict line, the two outputs when they differ.
compare() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		RC=0 OUT="ours: $(head -c 400 <<<"$2")" ERR="ref:  $(head -c 400 <<<"$3")"
		fail "$1" "rdmactl and the reference differ"
	fi
}

ours_expand() { "$DRIVER" expand "$1" 2>/dev/null; }
s_expand() { scontrol show hostnames "$1" 2>/dev/null | awk '!seen[$0]++'; }
n_expand() { nodeset -e "$1" 2>/dev/null | tr ' ' '\n' | sort; }

# expand NAME REFS HOSTLIST: REFS holds s, S or n as above.
expand() {
	local name=$1 refs=$2 in=$3 ours
	ours=$(ours_expand "$in")
	[ -n "$ours" ] || { RC=0 OUT="" ERR=$("$DRIVER" expand "$in" 2>&1); fail "expand-$name" "refused '$in'"; return; }
	[[ $refs == *s* && $HAVE_S == 1 ]] && compare "expand-$name-scontrol" "$ours" "$(s_expand "$in")"
	[[ $refs == *S* && $HAVE_S == 1 ]] &&
		compare "expand-$name-scontrol-set" "$(sort <<<"$ours")" "$(s_expand "$in" | sort)"
	[[ $refs == *n* && $HAVE_N == 1 ]] && compare "expand-$name-nodeset" "$(sort <<<"$ours")" "$(n_expand "$in")"
	return 0
}

# A reference refuses: nodeset exits non-zero; scontrol says so on stderr
# and prints nothing (its exit code stays 0).
s_refuses() { [ -z "$(scontrol show hostnames "$1" 2>/dev/null)" ]; }
n_refuses() { ! nodeset -e "$1" >/dev/null 2>&1; }

# refuse NAME REFS HOSTLIST: exit 2 and one line, and so do the references.
refuse() {
	local name=$1 refs=$2 in=$3
	RC=0
	OUT=$("$DRIVER" expand "$in" 2>"$TMPD/err") || RC=$?
	ERR=$(cat "$TMPD/err")
	if rc_is 2 && out_empty && err_one_line && err_has '^invalid hostlist '; then
		pass "refuse-$name"
	else
		fail "refuse-$name" "'$in' should be refused in one line"
	fi
	[[ $refs == *s* && $HAVE_S == 1 ]] && check "refuse-$name-scontrol" s_refuses "$in"
	[[ $refs == *n* && $HAVE_N == 1 ]] && check "refuse-$name-nodeset" n_refuses "$in"
	return 0
}

# fold NAME SAME READ NAMES: NAMES comma-separated; SAME the references
# whose fold must be the same text, READ those that must read ours back.
fold() {
	local name=$1 same=$2 read=$3 names=$4 ours want
	ours=$(tr ',' '\n' <<<"$names" | "$DRIVER" fold 2>&1)
	want=$(tr ',' '\n' <<<"$names" | sort -u)
	[[ $same == *s* && $HAVE_S == 1 ]] &&
		compare "fold-$name-scontrol" "$ours" "$(scontrol show hostlistsorted "$names" 2>&1)"
	[[ $same == *n* && $HAVE_N == 1 ]] &&
		compare "fold-$name-nodeset" "$ours" "$(nodeset -f "$names" 2>&1)"
	[[ $read == *s* && $HAVE_S == 1 ]] &&
		compare "fold-$name-read-by-scontrol" "$(scontrol show hostnames "$ours" 2>&1 | sort)" "$want"
	[[ $read == *n* && $HAVE_N == 1 ]] &&
		compare "fold-$name-read-by-nodeset" "$(n_expand "$ours")" "$want"
	return 0
}

# --- expand: where both agree ---
expand padded sn 'node[01-64]'
expand items sn 'node[1-3,7],gpu[001-004]'
expand ip sn '10.99.0.[1-4]'
expand two-groups sn 'rack[1-2]-node[1-3]'
expand zero sn 'node[0-2],n[00-02]'
expand widths sn 'node[08-10],n[9-10],m[098-101],x[001-003,5]'
expand digits-before sn 'node01[1-2],[1-2]'
expand blanks sn 'a b, c'
expand duplicates sn 'b,a,b,node[1,1,2],n[3-4],n[1-5]'
expand cap sn 'n[1-65536]'
# --- expand: where they differ, the one followed ---
expand three-groups nS 'a[1-2]b[1-2]c[1-2]'
expand text-after-group n 'node[1-2]-ib,x[1-3]y'
expand adjacent-groups s 'node[1-2][3-4]'
expand low-end-width s 'node[01-100],n[01-3]'

# --- errors ---
refuse goes-down sn 'node[3-1]'
refuse not-a-number sn 'node[a-b]'
refuse empty-brackets sn 'node[]'
refuse text-in-brackets sn 'lab-[b,d]'
refuse unclosed n 'node['
refuse unclosed-range n 'node[1-2'
refuse stray-close n 'node]'
refuse empty-item n 'a,,b'
refuse trailing-comma n 'a,'
refuse high-end-padded n 'node[1-010]'
refuse over-cap s 'n[1-65537]'
refuse step s 'node[1-9/2]'
refuse product-over-cap '' 'a[1-300]b[1-300]'
refuse option-like '' '-oProxyCommand=x'

# --- fold ---
fold padded sn sn 'node01,node02,node03'
fold unsorted sn sn 'node3,node1,node2'
fold duplicates n sn 'node3,node1,node2,node2,b,a,b'
fold gaps sn sn 'n1,n3,n5,n6,n7,m1,m3'
fold text-stays sn sn 'lab-b,lab-d,lab-a'
fold patterns sn sn 'x1,y1,x2,a,a1,a2,b,n-x,n1'
fold ip sn sn '10.99.0.1,10.99.0.2,10.99.0.3,10.99.1.1'
fold width-grows n sn 'node9,node10,node09,node010,node011'
fold same-number sn sn 'node1,node01,n0,n00,n000'
fold mixed-widths sn sn 'node01,node02,node3,node001,node002,node010,node100,node1000'
fold non-rectangle sn sn 'rack1-node1,rack1-node2,rack2-node1'
fold width-mix n sn 'n08,n9,n10'
fold to-100 n sn "$(seq -f 'node%02g' 1 100 | paste -sd,)"
fold inner-number n n 'node1-eth0,node2-eth0,node3-eth0'
fold rectangle n sn 'rack1-node1,rack1-node2,rack2-node1,rack2-node2'
fold three-numbers n sn 'a1b1c1,a1b1c2,a2b1c1,a2b1c2'
fold corner s sn 'a1b1,a2b1,a2b2'
fold shuffled sn sn "$(seq -f 'gpu%03g' 1 300 | grep -v -e 'gpu017' -e 'gpu2[0-4]' | shuf --random-source=<(yes) | paste -sd,)"
fold grid n sn "$(for r in $(seq -w 1 20); do for i in $(seq 0 49); do echo "r${r}n$i"; done; done | shuf --random-source=<(yes) | paste -sd,)"

finish
