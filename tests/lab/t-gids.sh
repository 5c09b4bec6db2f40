#!/bin/bash
# rdmactl gids on a real kernel's Soft-RoCE: the table (text and -j) checked
# entry by entry against sysfs, ibv_devinfo -v and rdma link; --recommend
# against the IPv4-mapped RoCE v2 entry sysfs shows; then with no IPv4 on
# eth0 (recommend fails, exit 1, with the fix) and with a second IPv4
# address (one more GID).
# lab-guests: 1
# lab-timeout: 180
# lab-seconds: 43

IB=/sys/class/infiniband
SECOND_IP=10.99.9.${LAB_IP##*.}

# sysfs_table: every set GID as "DEV PORT INDEX GID IPv4 VER NETDEV", from
# sysfs alone (gids/N, gid_attrs/types/N, gid_attrs/ndevs/N), "-" for none.
sysfs_table() {
	local port f i gid type ndev ipv4 ver
	for port in "$IB"/*/ports/*; do
		for f in "$port"/gids/*; do
			i=${f##*/}
			gid=$(<"$f")
			[[ $gid == 0000:0000:0000:0000:0000:0000:0000:0000 ]] && continue
			type=$(cat "$port/gid_attrs/types/$i" 2>/dev/null) || type=
			ndev=$(cat "$port/gid_attrs/ndevs/$i" 2>/dev/null) || ndev=
			case $type in
			"RoCE v2") ver=v2 ;;
			"IB/RoCE v1") ver=v1 ;;
			*) ver=unknown ;;
			esac
			ipv4=-
			if [[ $gid == 0000:0000:0000:0000:0000:ffff:* ]]; then
				ipv4=$(printf '%d.%d.%d.%d' "0x${gid:30:2}" "0x${gid:32:2}" "0x${gid:35:2}" "0x${gid:37:2}")
			fi
			echo "$(basename "$(dirname "$(dirname "$port")")") ${port##*/} $i $gid $ipv4 $ver ${ndev:--}"
		done
	done | sort -k1,1 -k2,2n -k3,3n
}

# check_table STATE: `rdmactl gids` and `rdmactl -j gids` against sysfs, field by field.
check_table() {
	local state=$1 want text json rc
	want=$(sysfs_table)
	text=$("$RDMACTL" gids) || fail "$state: rdmactl gids exited $?"
	echo "$text"
	check_eq "$state: header" "DEV PORT INDEX GID IPv4 VER NETDEV" "$(head -1 <<<"$text" | tr -s ' ')"
	check_eq "$state: text rows = sysfs" "$want" "$(sed '1d;$d' <<<"$text" | tr -s ' ')"
	check_eq "$state: count line" "n_gids_found=$(grep -c . <<<"$want")" "$(tail -1 <<<"$text")"
	json=$("$RDMACTL" -j gids) || fail "$state: rdmactl -j gids exited $?"
	check_eq "$state: json rows = sysfs" "$want" "$(jq -r '.gids[] |
		"\(.dev) \(.port) \(.index) \(.gid) \(.ipv4 // "-") \(.ver) \(.netdev // "-")"' <<<"$json")"
	check_eq "$state: json count" "$(grep -c . <<<"$want")" "$(jq .count <<<"$json")"
	# The sysfs reader (--root /) must agree with the verbs path on the live node.
	check_eq "$state: verbs = sysfs reader" "$json" "$("$RDMACTL" --root / -j gids)"
	# Verbs gave the table (-v says when it falls back to sysfs).
	rc=0
	"$RDMACTL" -v gids >/dev/null 2>verbose.err || rc=$?
	if grep -q 'through verbs' verbose.err; then
		fail "$state: the verbs path fell back to sysfs: $(<verbose.err)"
	fi
	check_eq "$state: -v gids exit" 0 "$rc"
}

# check_devinfo: each GID and type of `ibv_devinfo -v` is in rdmactl's table.
check_devinfo() {
	local ours theirs
	# "GID[  1]:  ::ffff:10.99.0.1, RoCE v2" -> "1 ::ffff:10.99.0.1 v2"
	theirs=$(ibv_devinfo -v -d rxe0 | sed -n 's/^[[:space:]]*GID\[ *\([0-9]*\)\]:[[:space:]]*\([^,]*\), RoCE \(v[12]\).*/\1 \2 \3/p')
	ours=$("$RDMACTL" -j gids rxe0/1 | jq -r '.gids[] | "\(.index) \(.gid) \(.ver)"' |
		python3 -c 'import sys, ipaddress
for line in sys.stdin:
    i, g, v = line.split()
    a = ipaddress.IPv6Address(g)
    # inet_ntop, as ibv_devinfo uses it, writes a mapped IPv4 as ::ffff:a.b.c.d
    print(i, "::ffff:%s" % a.ipv4_mapped if a.ipv4_mapped else a.compressed, v)')
	check_eq "ibv_devinfo -v GIDs = rdmactl" "$theirs" "$ours"
}

# check_netdev: every GID of rxe0/1 is on the netdev `rdma link` names.
check_netdev() {
	local nd
	nd=$(rdma -j link show rxe0/1 | jq -r '.[0].netdev')
	check_eq "rdma link netdev" eth0 "$nd"
	check_eq "GIDs on $nd" "$nd" "$("$RDMACTL" -j gids rxe0/1 | jq -r '[.gids[].netdev] | unique | join(",")')"
}

# wait_gid PRESENT|ABSENT GID: until the GID table shows it or not (10 s).
wait_gid() {
	local i
	for ((i = 0; i < 100; i++)); do
		if grep -qx "$2" "$IB"/rxe0/ports/1/gids/* 2>/dev/null; then
			[[ $1 == PRESENT ]] && return 0
		else
			[[ $1 == ABSENT ]] && return 0
		fi
		sleep 0.1
	done
	fail "GID $2 not $1 after 10 s"
	return 1
}

# The IPv6 addresses of eth0 now, to put back after the flush.
saved6=$(ip -6 -o addr show dev eth0 | awk '{ print $4 }')
restore() {
	ip addr del "$SECOND_IP/24" dev eth0 2>/dev/null
	ip addr replace "$LAB_IP/24" dev eth0
	for a in $saved6; do
		ip -6 addr replace "$a" dev eth0 2>/dev/null
	done
}
trap restore EXIT

# --- the table as the lab starts: index 0 link-local, index 1 the IPv4 GID ---
check_table initial
check_devinfo
check_netdev

# --- --recommend: the lowest RoCE v2 entry carrying LAB_IP, from sysfs ---
want=$(sysfs_table | awk -v g="$(lab_gid_of "$LAB_IP")" '$1 == "rxe0" && $4 == g && $6 == "v2" { print $3; exit }')
check_eq "sysfs: LAB_IP's RoCE v2 GID is index 1 (LAB.md)" 1 "$want"
out=$("$RDMACTL" gids --recommend)
rc=$?
echo "$out"
check_eq "recommend exit" 0 "$rc"
check_eq "recommend line" "rxe0/1: GID index $want: RoCE v2 with IPv4 $LAB_IP on eth0, not link-local" \
	"$(sed -n 1p <<<"$out")"
check_eq "NCCL line" "NCCL_IB_GID_INDEX=$want" "$(grep '^NCCL_IB_GID_INDEX=' <<<"$out")"
check_eq "UCX line" "UCX_IB_GID_INDEX=$want" "$(grep '^UCX_IB_GID_INDEX=' <<<"$out")"
check_eq "perftest line" "perftest: -d rxe0 -i 1 -x $want" "$(grep '^perftest:' <<<"$out")"
json=$("$RDMACTL" -j gids --recommend)
check_eq "recommend json" "rxe0 1 $want $(lab_gid_of "$LAB_IP") $LAB_IP v2 eth0 1" \
	"$(jq -r '.recommend[0] | "\(.dev) \(.port) \(.index) \(.gid) \(.ipv4) \(.ver) \(.netdev) \(.candidates)"' <<<"$json")"

# --- no IPv4 on eth0 (field notes item 2): only the link-local GID is left ---
ip addr flush dev eth0
wait_gid ABSENT "$(lab_gid_of "$LAB_IP")"
check_table no-ipv4
check_eq "no-ipv4: sysfs has no IPv4 GID" "" "$(sysfs_table | awk '$5 != "-"')"
rc=0
"$RDMACTL" gids --recommend >out 2>err || rc=$?
cat out err
check_eq "no-ipv4: recommend exit" 1 "$rc"
check_eq "no-ipv4: recommend stdout" "" "$(<out)"
check_eq "no-ipv4: one line on stderr" 1 "$(wc -l <err)"
check_eq "no-ipv4: message" \
	"rdmactl gids: Failed to find a GID for jobs on rxe0/1: only link-local GIDs: netdev eth0 has no IPv4 address. Fix: ip addr add ADDR/PREFIX dev eth0" \
	"$(<err)"
check_eq "no-ipv4: json fix" "null ip addr add ADDR/PREFIX dev eth0" \
	"$("$RDMACTL" -j gids --recommend 2>/dev/null | jq -r '.recommend[0] | "\(.index) \(.fix)"')"

# The fix as it says: put the address back, the GID returns, recommend works.
ip addr add "$LAB_IP/24" dev eth0
wait_gid PRESENT "$(lab_gid_of "$LAB_IP")"
restore
check_eq "restored: recommend" "NCCL_IB_GID_INDEX=$want" "$("$RDMACTL" gids --recommend | grep '^NCCL')"

# --- a second IPv4 address adds a GID ---
before=$(sysfs_table | grep -c .)
ip addr add "$SECOND_IP/24" dev eth0
wait_gid PRESENT "$(lab_gid_of "$SECOND_IP")"
check_table second-ipv4
check_eq "second-ipv4: one more GID" $((before + 1)) "$("$RDMACTL" -j gids | jq .count)"
check_eq "second-ipv4: its row" "rxe0 1 $SECOND_IP v2 eth0" \
	"$("$RDMACTL" -j gids --ipv4 | jq -r --arg ip "$SECOND_IP" '.gids[] | select(.ipv4 == $ip) | "\(.dev) \(.port) \(.ipv4) \(.ver) \(.netdev)"')"
json=$("$RDMACTL" -j gids --recommend)
check_eq "second-ipv4: recommend keeps the lowest" "$want 2" \
	"$(jq -r '.recommend[0] | "\(.index) \(.candidates)"' <<<"$json")"
check_eq "second-ipv4: --v2 --ipv4 rows" 2 "$("$RDMACTL" -j gids --v2 --ipv4 | jq .count)"
