#!/bin/bash
# rdmactl gids against a plain shell walk of sysfs, the way show_gids reads
# a GID table (one cat per gids/N, gid_attrs/types/N and gid_attrs/ndevs/N),
# on a generated node of 16 devices x 2 ports x 128 GIDs. Runs alternate
# (rdmactl, shell, rdmactl, ...) so both see the same machine load; prints
# each median and the ratio. Target: rdmactl under 50 ms, at least 10x faster.
#
# Environment: RDMACTL (default build/rdmactl), ROUNDS (default 5).
set -eu -o pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RDMACTL=${RDMACTL:-$TOP/build/rdmactl}
ROUNDS=${ROUNDS:-5}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

FIX=$TMP/node
"$TOP/tests/fixtures/many-gids.sh" "$FIX" 16 2 128

# The shell walk, as show_gids does it: list the directories, read the three
# files of every entry with cat, skip empty entries, decode IPv4 from the GID.
cat >"$TMP/walk.sh" <<'WALK'
sys=$1/sys/class/infiniband
n=0
for d in $(ls "$sys"); do
	for p in $(ls "$sys/$d/ports"); do
		for g in $(ls "$sys/$d/ports/$p/gids"); do
			gid=$(cat "$sys/$d/ports/$p/gids/$g")
			[ "$gid" = 0000:0000:0000:0000:0000:0000:0000:0000 ] && continue
			[ "$gid" = fe80:0000:0000:0000:0000:0000:0000:0000 ] && continue
			ndev=$(cat "$sys/$d/ports/$p/gid_attrs/ndevs/$g" 2>/dev/null)
			type=$(cat "$sys/$d/ports/$p/gid_attrs/types/$g" 2>/dev/null)
			ver=${type##* }
			ipv4=
			if [ "${gid:0:4}" = 0000 ]; then
				ipv4=$(printf '%d.%d.%d.%d' 0x${gid:30:2} 0x${gid:32:2} 0x${gid:35:2} 0x${gid:37:2})
			fi
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$d" "$p" "$g" "$gid" "$ipv4" "$ver" "$ndev"
			n=$((n + 1))
		done
	done
done
echo "n_gids_found=$n"
WALK

# ms CMD...: run CMD with stdout to a file, print its wall time in ms (3 decimals).
ms() {
	local t0 t1
	t0=$EPOCHREALTIME
	"$@" >"$TMP/out"
	t1=$EPOCHREALTIME
	echo $(((${t1/./} - ${t0/./}))) | awk '{ printf "%.3f\n", $1 / 1000 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Both must see the same entries, or the comparison means nothing.
"$RDMACTL" --root "$FIX" gids >"$TMP/out"
ours=$(tail -1 "$TMP/out")
bash "$TMP/walk.sh" "$FIX" >"$TMP/out"
theirs=$(tail -1 "$TMP/out")
if [ "$ours" != "$theirs" ] || [ "$ours" != n_gids_found=4096 ]; then
	echo "bench/gids: rdmactl says '$ours', the shell walk '$theirs'" >&2
	exit 1
fi

: >"$TMP/a"
: >"$TMP/b"
for ((i = 0; i < ROUNDS; i++)); do
	ms "$RDMACTL" --root "$FIX" gids >>"$TMP/a"
	ms bash "$TMP/walk.sh" "$FIX" >>"$TMP/b"
done
a=$(median <"$TMP/a")
b=$(median <"$TMP/b")
awk -v a="$a" -v b="$b" -v r="$ROUNDS" 'BEGIN {
	printf "gids: 16 devices x 2 ports x 128 GIDs (4096 entries), %d interleaved rounds\n", r
	printf "  rdmactl --root FIX gids   median %10.1f ms\n", a
	printf "  shell walk (show_gids)    median %10.1f ms\n", b
	printf "  ratio                     %10.1fx faster\n", b / a
	printf "  target (< 50 ms, >= 10x): %s\n", (a < 50 && b / a >= 10) ? "met" : "NOT met"
}'
