#!/bin/bash
# rdmactl gids on recorded trees: the field notes' table (recommend 5), the
# filters, a container whose gid_attrs reads fail, a port with only
# link-local GIDs, a 16x2x128 node, bad DEV/PORT and netdev names, and JSON.
. "$(dirname "$0")/lib.sh"

NOTES=$FIXTURES/mlx5-6gids
CONTAINER=$FIXTURES/container-gid-einval

# indexes FILTER...: the INDEX column of `rdmactl --root NOTES gids FILTER...`, on one line.
indexes() {
	run --root "$NOTES" gids "$@"
	awk 'NR > 1 && $1 == "mlx5_0" { printf "%s%s", sep, $3; sep = " " }' <<<"$OUT"
}

# --- the field notes' table, as show_gids printed it ---
run --root "$NOTES" gids
expected='DEV     PORT  INDEX  GID                                      IPv4          VER  NETDEV
mlx5_0  1     0      fe80:0000:0000:0000:5aa2:e1ff:feb0:3772  -             v1   ens19f0np0
mlx5_0  1     1      fe80:0000:0000:0000:5aa2:e1ff:feb0:3772  -             v2   ens19f0np0
mlx5_0  1     2      fe80:0000:0000:0000:a789:516a:e270:5b33  -             v1   ens19f0np0
mlx5_0  1     3      fe80:0000:0000:0000:a789:516a:e270:5b33  -             v2   ens19f0np0
mlx5_0  1     4      0000:0000:0000:0000:0000:ffff:c0a8:5801  192.168.88.1  v1   ens19f0np0
mlx5_0  1     5      0000:0000:0000:0000:0000:ffff:c0a8:5801  192.168.88.1  v2   ens19f0np0
n_gids_found=6'
check notes-rc rc_is 0
check notes-table [ "$OUT" == "$expected" ]
check notes-no-stderr [ -z "$ERR" ]

run -j --root "$NOTES" gids
check notes-json json_ok '.count == 6 and (.gids | length) == 6 and
	([.gids[].index] == [0,1,2,3,4,5]) and ([.gids[].ver] == ["v1","v2","v1","v2","v1","v2"]) and
	([.gids[].ipv4] == [null,null,null,null,"192.168.88.1","192.168.88.1"]) and
	(all(.gids[]; .dev == "mlx5_0" and .port == 1 and .netdev == "ens19f0np0")) and
	.gids[5].gid == "0000:0000:0000:0000:0000:ffff:c0a8:5801"'

# --- --recommend: index 5, with the lines to paste ---
run --root "$NOTES" gids --recommend
check recommend-rc rc_is 0
check recommend-reason out_has '^mlx5_0/1: GID index 5: RoCE v2 with IPv4 192\.168\.88\.1 on ens19f0np0'
check recommend-nccl out_has '^NCCL_IB_GID_INDEX=5$'
check recommend-ucx out_has '^UCX_IB_GID_INDEX=5$'
check recommend-perftest out_has '^perftest: -d mlx5_0 -i 1 -x 5$'
run -j --root "$NOTES" gids --recommend
check recommend-json json_ok '(.recommend | length) == 1 and .recommend[0].index == 5 and
	.recommend[0].dev == "mlx5_0" and .recommend[0].port == 1 and .recommend[0].ver == "v2" and
	.recommend[0].ipv4 == "192.168.88.1" and .recommend[0].nccl == "NCCL_IB_GID_INDEX=5" and
	.recommend[0].ucx == "UCX_IB_GID_INDEX=5" and .recommend[0].perftest == "-d mlx5_0 -i 1 -x 5" and
	.recommend[0].fix == null and (.recommend[0].reason | test("RoCE v2"))'
run --root "$NOTES" gids --recommend --netdev ens19f0np0 mlx5_0/1
check recommend-netdev-devport out_has '^NCCL_IB_GID_INDEX=5$'

# IPv6: the table has only link-local IPv6 GIDs.
run --root "$NOTES" gids --recommend --ipv6
check recommend-ipv6-rc rc_is 1
check recommend-ipv6-one-line err_one_line
check recommend-ipv6-fix err_has 'Fix: ip -6 addr add ADDR/PREFIX dev ens19f0np0$'
check recommend-ipv6-no-lines out_empty
run -j --root "$NOTES" gids --recommend --ipv6
check recommend-ipv6-json json_ok '.recommend[0].index == null and
	.recommend[0].fix == "ip -6 addr add ADDR/PREFIX dev ens19f0np0" and .recommend[0].nccl == null'

run --root "$NOTES" gids --recommend --v1
check recommend-v1-usage rc_is 2
check recommend-v1-message err_has "'--v1'"
run --root "$NOTES" gids --recommend --ipv4 --ipv6
check recommend-both-families-usage rc_is 2

# --- filters ---
check filter-v1 [ "$(indexes --v1)" == "0 2 4" ]
check filter-v2 [ "$(indexes --v2)" == "1 3 5" ]
check filter-v1-v2 [ "$(indexes --v1 --v2)" == "0 1 2 3 4 5" ]
check filter-ipv4 [ "$(indexes --ipv4)" == "4 5" ]
check filter-ipv6 [ "$(indexes --ipv6)" == "0 1 2 3" ]
check filter-v2-ipv4 [ "$(indexes --v2 --ipv4)" == "5" ]
check filter-netdev [ "$(indexes --netdev ens19f0np0)" == "0 1 2 3 4 5" ]
check filter-netdev-equals [ "$(indexes --netdev=ens19f0np0 --v2)" == "1 3 5" ]
run --root "$NOTES" gids --v2 --ipv4
check filter-count out_has '^n_gids_found=1$'
run -j --root "$NOTES" gids --v1 --ipv4
check filter-json json_ok '.count == 1 and .gids[0].index == 4'

run --root "$NOTES" gids --netdev eth9
check netdev-unknown-rc rc_is 2
check netdev-unknown-one-line err_one_line
check netdev-unknown-names err_has "'eth9'.*ens19f0np0"
run --root "$NOTES" gids --netdev
check netdev-missing-arg rc_is 2

# --- DEV and DEV/PORT ---
check devport-dev [ "$(indexes mlx5_0)" == "0 1 2 3 4 5" ]
check devport-slash [ "$(indexes mlx5_0/1)" == "0 1 2 3 4 5" ]
check devport-colon [ "$(indexes mlx5_0:1)" == "0 1 2 3 4 5" ]
run --root "$NOTES" gids mlx5_9
check dev-unknown-rc rc_is 2
check dev-unknown-names err_has "Unknown device 'mlx5_9'\. Devices: mlx5_0$"
check dev-unknown-one-line err_one_line
run --root "$NOTES" gids mlx5_0/2
check port-unknown-rc rc_is 2
check port-unknown-names err_has "Unknown port 'mlx5_0/2'\. Ports of mlx5_0: 1$"
# bad_devport VALUE: a usage error, in one line naming the value in quotes.
bad_devport() { rc_is 2 && err_one_line && grep -qF -- "'$1'" <<<"$ERR"; }
for bad in mlx5_0/x mlx5_0/0 mlx5_0/ /1 mlx5_0/99999999999999999999; do
	run --root "$NOTES" gids "$bad"
	check "devport-bad-${bad//\//_}" bad_devport "$bad"
done
run --root "$NOTES" gids mlx5_0 mlx5_1
check devport-two-args rc_is 2
run --root "$NOTES" gids --bogus
check unknown-option rc_is 2
run gids --help
check help-rc rc_is 0
check help-lists-recommend out_has '--recommend'

# --- a container: gid_attrs reads fail; the entries stay, type unknown ---
run --root "$CONTAINER" gids
check container-rc rc_is 0
check container-rows [ "$(grep -c '^mlx5_2  1 .* unknown  -$' <<<"$OUT")" -eq 4 ]
check container-ipv4 out_has '^mlx5_2  1     2      0000:0000:0000:0000:0000:ffff:ac11:0002  172\.17\.0\.2  unknown  -$'
check container-count out_has '^n_gids_found=4$'
run -j --root "$CONTAINER" gids
check container-json json_ok '.count == 4 and all(.gids[]; .ver == "unknown" and .netdev == null)'
run --root "$CONTAINER" gids --v2
check container-v2-none [ "$RC:$OUT" == "0:n_gids_found=0" ]
run --root "$CONTAINER" gids --recommend
check container-recommend-rc rc_is 1
check container-recommend-why err_has 'did not say whether .* RoCE v2'
check container-recommend-one-line err_one_line

# --- only link-local GIDs (field notes item 2: no IPv4 on the netdev) ---
LL=$TMPD/link-local
cp -a "$NOTES" "$LL"
P=$LL/sys/class/infiniband/mlx5_0/ports/1
for i in 4 5; do echo 0000:0000:0000:0000:0000:0000:0000:0000 >"$P/gids/$i"; done
run --root "$LL" gids --recommend
check linklocal-rc rc_is 1
check linklocal-one-line err_one_line
check linklocal-why err_has 'only link-local GIDs: netdev ens19f0np0 has no IPv4 address'
check linklocal-fix err_has 'Fix: ip addr add ADDR/PREFIX dev ens19f0np0$'
run -j --root "$LL" gids --recommend
check linklocal-json json_ok '.recommend[0].index == null and
	.recommend[0].fix == "ip addr add ADDR/PREFIX dev ens19f0np0"'
run --root "$LL" gids
check linklocal-count out_has '^n_gids_found=4$'

# An IPv4-compatible GID (no ffff) is no IPv4 address, whatever show_gids says.
echo 0000:0000:0000:0000:0000:0000:c0a8:5801 >"$P/gids/4"
run -j --root "$LL" gids
check ipv4-compatible-not-decoded json_ok '.count == 5 and .gids[4].index == 4 and .gids[4].ipv4 == null'

# --- no RDMA device ---
mkdir -p "$TMPD/empty"
run --root "$TMPD/empty" gids
check no-devices-rc rc_is 1
check no-devices-message err_has 'No RDMA devices found'
run -j --root "$TMPD/empty" gids
check no-devices-json-error-only json_ok 'keys == ["error"]'
check no-devices-json-error json_ok '.error == {"code": 1, "message": "No RDMA devices found. Check that a kernel RDMA driver is loaded (lsmod | grep -e mlx5_ib -e rdma_rxe), that a Soft-RoCE link exists (rdma link add rxe0 type rxe netdev IF), and, in a container, that /dev/infiniband is passed in."}'

# --- 16 devices x 2 ports x 128 GIDs ---
# In memory where the machine has it: 12288 files made and removed on
# ext4 took 5 s of the kernel's time, most of it looking for a free inode.
BIG=$TMPD/many
if [ -d /dev/shm ] && [ -w /dev/shm ] && SHM=$(mktemp -d -p /dev/shm rdmactl-gids.XXXXXX); then
	BIG=$SHM/many
	trap 'rm -rf "$TMPD" "$SHM"' EXIT
fi
"$FIXTURES/many-gids.sh" "$BIG"
run --root "$BIG" gids
check many-count out_has '^n_gids_found=4096$'
check many-rows [ "$(grep -c '^mlx5_' <<<"$OUT")" -eq 4096 ]
check many-natural-order [ "$(awk 'NR > 1 && !seen[$1]++ { print $1 }' <<<"$OUT" | head -12 | tail -3 | tr '\n' ' ')" == "mlx5_9 mlx5_10 mlx5_11 " ]
run --root "$BIG" gids mlx5_10/2 --v2 --ipv4
check many-filtered out_has '^n_gids_found=32$'
check many-ipv4-decoded out_has '^mlx5_10 +2 +127 +0000:0000:0000:0000:0000:ffff:0a0a:023f +10\.10\.2\.63 +v2 +ens11f1np1$'
run --root "$BIG" gids --recommend
check many-recommend-all-ports [ "$(grep -c '^NCCL_IB_GID_INDEX=3$' <<<"$OUT")" -eq 32 ]
run -j --root "$BIG" gids --recommend --netdev ens16f1np1
check many-recommend-netdev json_ok '(.recommend | length) == 1 and .recommend[0].dev == "mlx5_15" and
	.recommend[0].port == 2 and .recommend[0].index == 3 and .recommend[0].candidates == 32'
run -j --root "$BIG" gids
check many-json json_ok '.count == 4096 and (.gids | length) == 4096'

# --- completion of the values gids takes ---
OUT=$(RDMACTL_ROOT=$NOTES "$RDMACTL" __complete 3 rdmactl gids --netdev "")
check complete-netdev [ "$OUT" == "ens19f0np0" ]
OUT=$(RDMACTL_ROOT=$NOTES "$RDMACTL" __complete 2 rdmactl gids mlx | sort)
check complete-devport [ "$OUT" == $'mlx5_0\nmlx5_0/1' ]

finish
