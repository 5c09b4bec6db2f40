#!/bin/bash
# The GID table against a reference written here, not taken from rdmactl:
# a walk of sysfs as show_gids does it, over every fixture with a GID,
# every row.  rdmactl's -j rows must be exactly the walk's.
#
# The walk follows the kernel's layout (Documentation/ABI/stable/
# sysfs-class-infiniband): /sys/class/infiniband/DEV/ports/P/gids/N holds
# the GID; an all-zero GID (or fe80:: with a zero interface id) is an
# empty slot; gid_attrs/types/N says "IB/RoCE v1" or "RoCE v2" (an empty
# slot's is unreadable); gid_attrs/ndevs/N names the netdev.  A port whose
# link_layer is InfiniBand has IB GIDs whatever types says.
. "$(dirname "$0")/lib.sh"

ZERO=0000:0000:0000:0000:0000:0000:0000:0000
LLZERO=fe80:0000:0000:0000:0000:0000:0000:0000

# walk ROOT: one line per GID, "DEV PORT INDEX GID IPV4 VER NETDEV".
walk() {
	local root=$1 d dev p port n idx gid ver ndev v4 ll t
	for d in "$root"/sys/class/infiniband/*; do
		[ -e "$d" ] || continue
		dev=${d##*/}
		for p in "$d"/ports/*; do
			port=${p##*/}
			ll=$(cat "$p/link_layer" 2>/dev/null)
			for n in "$p"/gids/*; do
				idx=${n##*/}
				gid=$(cat "$n" 2>/dev/null) || continue
				[ "$gid" = "$ZERO" ] || [ "$gid" = "$LLZERO" ] && continue
				if [ "$ll" = InfiniBand ]; then
					ver=IB
				else
					t=$(cat "$p/gid_attrs/types/$idx" 2>/dev/null)
					case $t in
					"RoCE v2") ver=v2 ;;
					"IB/RoCE v1") ver=v1 ;;
					*) ver=unknown ;;
					esac
				fi
				ndev=$(cat "$p/gid_attrs/ndevs/$idx" 2>/dev/null)
				v4=-
				case $gid in
				0000:0000:0000:0000:0000:ffff:*)
					local h=${gid:30:4}${gid:35:4}
					v4=$((16#${h:0:2})).$((16#${h:2:2})).$((16#${h:4:2})).$((16#${h:6:2})) ;;
				esac
				echo "$dev $port $idx $gid $v4 $ver ${ndev:--}"
			done
		done
	done | sort -k1,1 -k2,2n -k3,3n
}

# rows: rdmactl's -j gids rows in the walk's form.
rows() {
	jq -r '.gids[] | [.dev, .port, .index, .gid, (.ipv4 // "-"), .ver, (.netdev // "-")] | join(" ")' <<<"$OUT" |
		sort -k1,1 -k2,2n -k3,3n
}

n=0
for fx in "$FIXTURES"/*/; do
	fx=${fx%/}
	name=${fx##*/}
	[ -d "$fx/sys/class/infiniband" ] || continue
	want=$(walk "$fx")
	[ -n "$want" ] || continue
	n=$((n + 1))
	run --root "$fx" -j gids
	check "$name-json" json_ok '.gids | length > 0'
	got=$(rows)
	if [ "$got" = "$want" ]; then
		pass "$name-rows"
	else
		fail "$name-rows" "rdmactl's rows differ from the sysfs walk: $(diff <(echo "$want") <(echo "$got") | head -8 | tr '\n' ' ')"
	fi
	check "$name-count" json_ok ".count == $(grep -c . <<<"$want")"
done
# The walk found GIDs in enough fixtures to mean something.
check fixtures-walked [ "$n" -ge 8 ]
finish
