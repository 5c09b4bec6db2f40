#!/bin/bash
# rdmactl doctor on recorded trees (--root): every check seen passing and
# failing for its reason, the fixes, --only/--skip/--list, JSON and exit codes.
. "$(dirname "$0")/lib.sh"

OK=$FIXTURES/doctor-healthy BAD=$FIXTURES/doctor-broken OLD=$FIXTURES/doctor-nccl-old
NODEV=$FIXTURES/doctor-nodev NORXE=$FIXTURES/doctor-norxe

# st ID STATUS: check ID has STATUS in the JSON document.
# found ID RE / fix ID RE: the check's text matches the extended regex RE.
fix() { jq -r ".checks[] | select(.id == \"$1\") | .fix // \"\"" <<<"$OUT" | grep -qE -- "$2"; }

# Run without the caller's NCCL/UCX variables.
unset NCCL_IB_HCA NCCL_SOCKET_IFNAME NCCL_IB_GID_INDEX NCCL_IB_DISABLE NCCL_IB_ROCE_VERSION_NUM \
	NCCL_IB_ADDR_FAMILY NCCL_IB_ADDR_RANGE UCX_NET_DEVICES UCX_IB_GID_INDEX UCX_TLS \
	UCX_UD_VERBS_ETH_DGID_CHECK UCX_UD_ETH_DGID_CHECK NCCL_IB_TC NCCL_IB_FIFO_TC NCCL_IB_SL \
	UCX_IB_TRAFFIC_CLASS UCX_IB_SL

# ---- a healthy node ----
run --root "$OK" -j doctor
check healthy-rc rc_is 0
check healthy-one-doc json_ok '.checks | length == 18'
check healthy-nothing-failed json_ok '[.checks[] | select(.status == "fail" or .status == "warn")] == []'
check healthy-summary json_ok '.summary.failed == 0 and .summary.warnings == 0 and .summary.ok == 12 and .summary.skipped == 6 and .summary.problems == []'
check healthy-fix-null json_ok '[.checks[].fix] | all(. == null)'
check healthy-devices found devices '^mlx5_0 \(mlx5, 1 port\); mlx5_1 \(mlx5, 1 port\); mlx5_10 \(mlx5, 1 port\)$'
check healthy-ports found ports 'mlx5_0/1 ACTIVE LinkUp \(ens19f0np0\)'
check healthy-ipv4 found roce.ipv4 'mlx5_0/1 ens19f0np0 has 192.168.88.1'
# The field notes' table: index 5 is RoCE v2 with 192.168.88.1.
check healthy-gid found roce.gid 'mlx5_0/1: use GID index 5 \(RoCE v2, 192.168.88.1\)'
check healthy-gid-nccl found roce.gid "need GID indexes 5 and 3: no NCCL_IB_GID_INDEX, NCCL 2.21.5 finds each port's entry itself"
check healthy-mtu found mtu 'mlx5_0/1 active MTU 4096 \(max 4096\), ens19f0np0 MTU 9000'
check healthy-memlock-login found memlock.login 'unlimited \(/etc/security/limits.d/99-nccl.conf:1\)'
check healthy-memlock-systemd found memlock.systemd '90-memlock.conf:2'
check healthy-firewall found firewall 'no rule blocks UDP 4791'
check healthy-gpu found gpudirect 'NVIDIA driver 535.104.05 with nvidia-peermem 1.3 loaded'
check healthy-versions found versions 'kernel 6.1.0-18-amd64; rdma-core 44.0 .*OFED MLNX_OFED_LINUX-5.8-1.0.1.1; NCCL 2.21.5'
check healthy-env-skip st env.nccl skip
check healthy-peer-skip found peer 'no --peer HOST given'
# A note that holds for the node is said once, not after each port.
check healthy-nccl-note-once [ "$(jq -r '.checks[] | select(.id == "roce.gid") | .found' <<<"$OUT" |
	grep -o "finds each port's entry itself" | wc -l)" -eq 1 ]

# ---- the text fits the terminal: FOUND folds under itself ----
# widest: the longest line of OUT; rows: the lines of OUT from check $1 to the next check.
widest() { awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }' <<<"$OUT"; }
rows() { awk -v id="$1" '$2 == id { on = 1; print; next } on && /^[a-z]/ { exit } on' <<<"$OUT"; }
OUT=$(COLUMNS=100 "$RDMACTL" --root "$OK" doctor)
check width-columns-100 [ "$(widest)" -le 100 ]
# folded ID: check ID's row takes 3 lines or more, the others starting under FOUND.
folded() {
	[ "$(rows "$1" | wc -l)" -ge 3 ] &&
		[ -z "$(rows "$1" | tail -n +2 | grep -v '^                         [^ ]')" ]
}
check width-folds-under-found folded roce.gid
check width-text-whole [ "$(rows roce.gid | sed 's/^  *//; s/^ok  *roce.gid  *//' | tr '\n' ' ')" == \
	"$(COLUMNS=100 "$RDMACTL" --root "$OK" -j doctor | jq -r '.checks[] | select(.id == "roce.gid") | .found') " ]
OUT=$(COLUMNS=60 "$RDMACTL" --root "$OK" doctor)
check width-columns-60 [ "$(widest)" -le 60 ]
# Into a pipe, without COLUMNS: a line per check, for grep.
OUT=$(env -u COLUMNS "$RDMACTL" --root "$OK" doctor)
one_line() { [ "$(rows roce.gid | wc -l)" -eq 1 ] && [ "$(widest)" -gt 100 ]; }
check width-pipe-unwrapped one_line
# On a terminal, its width (script(1) gives the command one of 90 columns).
if command -v script >/dev/null; then
	OUT=$(env -u COLUMNS script -qec "stty cols 90 rows 50; '$RDMACTL' --color never --root '$OK' doctor" /dev/null |
		tr -d '\r')
	check width-terminal-90 [ "$(widest)" -le 90 ]
	check width-terminal-folds folded roce.gid
else
	skip width-terminal-90 "script not installed (Debian package bsdutils)"
fi

run --root "$OK" doctor
check healthy-text-header out_has '^STATUS +CHECK +FOUND$'
check healthy-text-no-fix-lines bash -c '! grep -q "^ *fix:" <<<"$0"' "$OUT"
check healthy-text-row out_has '^ok +roce.gid +mlx5_0/1: use GID index 5'
check healthy-text-summary out_has '^12 ok, 6 skipped: nothing to fix$'
check healthy-no-color bash -c '! grep -q $'"'"'\033'"'"' <<<"$0"' "$OUT"

run --root "$OK" --color always doctor --only devices
check color-ok-green out_has $'\033\\[32mok'

# ---- a broken node: each check fails for its own reason ----
run --root "$BAD" -j doctor
check broken-rc rc_is 1
check broken-summary json_ok '.summary.failed == 8 and .summary.warnings == 2'
check broken-problems json_ok '.summary.problems == ["ports","roce.ipv4","roce.gid","mtu","memlock.shell","memlock.login","memlock.systemd","firewall","gpudirect","versions"]'
check broken-devices st devices ok
check broken-ports st ports fail
check broken-ports-why found ports 'rxe0/1 is DOWN \(Disabled\); its netdev eth0 is down'
check broken-ports-fix fix ports '^ip link set eth0 up$'
check broken-ipv4 st roce.ipv4 fail
check broken-ipv4-why found roce.ipv4 'eth0 has no IPv4 address.*fe80:0000:0000:0000:5054:00ff:fe12:3401.*RDMA_CM_EVENT_ADDR_ERROR'
check broken-ipv4-fix fix roce.ipv4 'ip addr add ADDRESS/PREFIX dev eth0'
check broken-gid st roce.gid fail
check broken-gid-why found roce.gid 'only link-local GIDs'
check broken-mtu st mtu warn
check broken-mtu-why found mtu 'eth0 MTU 1500 limits the RDMA MTU to 1024 \(max 4096\)'
check broken-mtu-fix fix mtu 'ip link set eth0 mtu 9000.*nmcli con mod eth0 802-3-ethernet.mtu 9000'
check broken-memlock-shell found memlock.shell 'soft 64 KiB, hard 64 KiB \(/proc/self/limits\)'
check broken-memlock-shell-fix fix memlock.shell 'prlimit'
check broken-memlock-login found memlock.login 'soft 64 MiB \(/etc/security/limits.d/99-nccl.conf:1\)'
check broken-memlock-login-fix fix memlock.login 'change /etc/security/limits.d/99-nccl.conf:1 to: \* soft memlock unlimited'
check broken-memlock-systemd found memlock.systemd '64 MiB \(/etc/systemd/system.conf:2\)'
check broken-memlock-systemd-fix fix memlock.systemd 'system.conf.d/90-memlock.conf: \[Manager\]; DefaultLimitMEMLOCK=infinity'

check broken-firewalld found firewall 'firewalld is running \(and starts at boot\)'
check broken-nft found firewall 'nftables: udp dport 4791 drop rule in inet filter input \(handle 7\) blocks udp 4791 \(RoCE v2\)'
check broken-nft-fix fix firewall 'nft delete rule inet filter input handle 7'
check broken-iptables found firewall 'iptables: tcp dport 18600 reject rule in filter INPUT \(line 6\) blocks tcp 18600'
check broken-iptables-fix fix firewall 'iptables -I INPUT -p tcp --dport 18600 -j ACCEPT'
check broken-gpu st gpudirect fail
check broken-gpu-why found gpudirect 'neither nvidia-peermem nor DMA-BUF \(proprietary kernel module'
check broken-gpu-fix fix gpudirect 'modprobe nvidia-peermem'
check broken-versions st versions warn
check broken-versions-why found versions 'libibverbs not found'

run --root "$BAD" doctor
check broken-text-summary out_has '^8 failed, 2 warnings: ports, roce.ipv4, roce.gid, mtu, memlock.shell, memlock.login, memlock.systemd, firewall, gpudirect, versions$'
check broken-text-fail out_has '^FAIL +ports +rxe0/1 is DOWN'
# The fix stands on the line under its check, at the FOUND column.
check broken-text-fix-below bash -c 'grep -A1 "^FAIL *ports " <<<"$0" | tail -1 | grep -qE "^ {25}fix: ip link set eth0 up$"' "$OUT"

# Root on Debian: the "*" lines of limits.d do not apply to it (limits.conf(5)).
run --root "$FIXTURES/limits-root" -j doctor --only memlock.login
check root-memlock-login st memlock.login fail
check root-memlock-login-found found memlock.login '^soft 8 MiB, hard 8 MiB \(inherited \(systemd: default\)\): .*; /etc/security/limits.d/90-rdma.conf:1,2 not applied to root: limits.conf\(5\): "group and wildcard limits are not applied to the root user"'
check root-memlock-login-fix fix memlock.login '^write /etc/security/limits.d/99-rdma.conf: \* soft memlock unlimited; \* hard memlock unlimited; root soft memlock unlimited; root hard memlock unlimited; then log in again$'

# ---- no devices: why ----
run --root "$NODEV" -j doctor --only devices,ports
check nodev-rc rc_is 1
check nodev-why found devices 'no kernel RDMA driver is loaded \(no ib_core\)'
check nodev-fix fix devices 'modprobe mlx5_ib .*modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0'
check nodev-ports-skip found ports 'no RDMA devices \(see the devices check\)'
run --root "$NORXE" -j doctor --only devices
check norxe-why found devices 'rdma_rxe is loaded but no Soft-RoCE link exists'
check norxe-fix fix devices '^rdma link add rxe0 type rxe netdev eth0$'

# ---- NCCL older than 2.21, and DMA-BUF ----
run --root "$OLD" -j doctor
check old-rc rc_is 0
check old-gid-warn st roce.gid warn
check old-gid-why found roce.gid 'NCCL 2.18.3 .* older than 2.21 and uses GID index 0'
check old-gid-fix fix roce.gid '^export NCCL_IB_GID_INDEX=5$'
check old-dmabuf found gpudirect 'DMA-BUF usable \(open kernel module, Linux 6.1.0-18-amd64\)'
NCCL_IB_GID_INDEX=5 run --root "$OLD" -j doctor --only roce.gid,env.nccl
check old-gid-index-set st roce.gid ok
check old-gid-index-env found env.nccl 'NCCL_IB_GID_INDEX=5: mlx5_0/1 GID 5 is RoCE v2'
run --root "$OK" -j doctor --for nccl --only roce.gid
check for-nccl-new st roce.gid ok
run --root "$OK" -j doctor --for perftest --only roce.gid,env.nccl
check for-perftest found roce.gid 'perftest: -d mlx5_0 -i 1 -x 5'
check for-perftest-skip-nccl found env.nccl '^--for perftest'

# ---- NCCL variables ----
NCCL_IB_HCA=mlx5_0,mlx_1 run --root "$OK" -j doctor --only env.nccl
check hca-typo-rc rc_is 1
check hca-typo found env.nccl "NCCL_IB_HCA='mlx5_0,mlx_1': 'mlx_1' names no device \(did you mean 'mlx5_1'\?\); devices: mlx5_0, mlx5_1, mlx5_10"
check hca-typo-fix fix env.nccl '^export NCCL_IB_HCA=mlx5_0,mlx5_1$'
NCCL_IB_HCA=mlx5_1 run --root "$OK" -j doctor --only env.nccl
check hca-prefix st env.nccl warn
check hca-prefix-why found env.nccl "'mlx5_1' is a prefix and also selects mlx5_1:1, mlx5_10:1"
check hca-prefix-fix fix env.nccl "NCCL_IB_HCA='=mlx5_1'"
NCCL_IB_HCA='=mlx5_1:1' run --root "$OK" -j doctor --only env.nccl
check hca-exact st env.nccl ok
check hca-exact-sel found env.nccl "selects mlx5_1:1$"
NCCL_IB_HCA='^mlx5' run --root "$OK" -j doctor --only env.nccl
check hca-negated-none st env.nccl fail
check hca-negated-why found env.nccl 'selects no active port: NCCL falls back to TCP sockets'
NCCL_IB_HCA='mlx5_0:x' run --root "$OK" -j doctor --only env.nccl
check hca-bad-port found env.nccl "NCCL_IB_HCA='mlx5_0:x': entry 'mlx5_0:x' has port 'x', not a number from 1 to 255"
NCCL_SOCKET_IFNAME=ens19f0np1 run --root "$OK" -j doctor --only env.nccl
check ifname-missing found env.nccl "NCCL_SOCKET_IFNAME='ens19f0np1': no interface 'ens19f0np1' \(did you mean 'ens19f0np0'\?\)"
check ifname-fix fix env.nccl '^export NCCL_SOCKET_IFNAME=ens19f0np0$'
NCCL_SOCKET_IFNAME=ens19 run --root "$OK" -j doctor --only env.nccl
check ifname-prefix st env.nccl ok
check ifname-prefix-sel found env.nccl "selects ens19f0np0, ens19f1np1$"
NCCL_SOCKET_IFNAME=eth0 run --root "$BAD" -j doctor --only env.nccl
check ifname-down found env.nccl "selects no usable interface: eth0 is down"
NCCL_IB_HCA='=mlx5_0' NCCL_IB_GID_INDEX=0 run --root "$OK" -j doctor --only env.nccl
check gid-index-ll st env.nccl fail
check gid-index-ll-why found env.nccl 'NCCL_IB_GID_INDEX=0: mlx5_0/1 GID 0 is link-local \(fe80:0000:0000:0000:5aa2:e1ff:feb0:3772\).*\(use 5\)'
check gid-index-ll-fix fix env.nccl '^export NCCL_IB_GID_INDEX=5$'
NCCL_IB_HCA='=mlx5_0' NCCL_IB_GID_INDEX=4 run --root "$OK" -j doctor --only env.nccl
check gid-index-v1 found env.nccl 'GID 4 is RoCE v1, not v2'
NCCL_IB_HCA='=mlx5_0' NCCL_IB_GID_INDEX=9 run --root "$OK" -j doctor --only env.nccl
check gid-index-missing found env.nccl 'mlx5_0/1 has no GID 9 \(use 5\)'
NCCL_IB_GID_INDEX=five run --root "$OK" -j doctor --only env.nccl
check gid-index-bad found env.nccl "NCCL_IB_GID_INDEX='five' is not a GID index"
NCCL_IB_DISABLE=1 run --root "$OK" -j doctor --only env.nccl
check ib-disable st env.nccl warn
check ib-disable-why found env.nccl 'NCCL_IB_DISABLE=1: NCCL uses TCP sockets'
check ib-disable-fix fix env.nccl '^unset NCCL_IB_DISABLE$'
NCCL_IB_HCA='=mlx5_0' NCCL_IB_ADDR_FAMILY=AF_INET6 run --root "$OK" -j doctor --only env.nccl
check family-v6 st env.nccl fail
check family-v6-why found env.nccl 'NCCL_IB_ADDR_FAMILY=AF_INET6: no GID of mlx5_0/1 fits, so NCCL falls back to GID 0'
NCCL_IB_ADDR_FAMILY=inet run --root "$OK" -j doctor --only env.nccl
check family-bad found env.nccl "NCCL_IB_ADDR_FAMILY='inet' is neither AF_INET nor AF_INET6"
NCCL_IB_HCA='=mlx5_0' NCCL_IB_ADDR_RANGE=192.168.88.0/24 NCCL_IB_ROCE_VERSION_NUM=1 run --root "$OK" -j doctor --only env.nccl
check range-v1 st env.nccl ok
check range-v1-pick found env.nccl 'NCCL picks mlx5_0/1 GID 4 '
NCCL_IB_HCA='=mlx5_0' NCCL_IB_ADDR_RANGE=10.0.0.0/8 run --root "$OK" -j doctor --only env.nccl
check range-miss st env.nccl fail
NCCL_IB_ADDR_RANGE=10.0.0.0/40 run --root "$OK" -j doctor --only env.nccl
check range-bad found env.nccl "NCCL_IB_ADDR_RANGE='10.0.0.0/40': prefix length '40' is not a number from 0 to 32"
NCCL_IB_ROCE_VERSION_NUM=3 run --root "$OK" -j doctor --only env.nccl
check roce-ver-bad found env.nccl "NCCL_IB_ROCE_VERSION_NUM='3' is neither 1 nor 2"

# ---- UCX variables ----
UCX_NET_DEVICES=mlx5_9:1 run --root "$OK" -j doctor --only env.ucx
check ucx-missing st env.ucx fail
check ucx-missing-why found env.ucx "no RDMA device 'mlx5_9' \(did you mean 'mlx5_0'\?\)"
check ucx-missing-fix fix env.ucx '^export UCX_NET_DEVICES=mlx5_0:1$'
UCX_NET_DEVICES=mlx5_1 run --root "$OK" -j doctor --only env.ucx
check ucx-no-port found env.ucx "UCX names RDMA devices with their port: 'mlx5_1' matches nothing"
check ucx-no-port-fix fix env.ucx '^export UCX_NET_DEVICES=mlx5_1:1$'
UCX_NET_DEVICES=mlx5_0:1,ens19f0np0 run --root "$OK" -j doctor --only env.ucx
check ucx-ok st env.ucx ok
check ucx-ok-found found env.ucx 'mlx5_0:1 is ACTIVE; interface ens19f0np0 is up'
UCX_NET_DEVICES=rxe0:1,eth0 run --root "$BAD" -j doctor --only env.ucx
check ucx-down found env.ucx 'rxe0:1 is DOWN.*interface eth0 is down'
UCX_IB_GID_INDEX=1 UCX_NET_DEVICES=all run --root "$OLD" -j doctor --only env.ucx
check ucx-gid-ll found env.ucx 'UCX_IB_GID_INDEX=1: mlx5_0/1 GID 1 is link-local'
check ucx-gid-fix fix env.ucx '^export UCX_IB_GID_INDEX=5$'
# An IPv6 GID where the port has an IPv4 one (another order of the table,
# UCX issue 7785): the lab's collective failed in ibv_create_ah.
UCX_IB_GID_INDEX=3 UCX_NET_DEVICES=all run --root "$FIXTURES/gid-order" -j doctor --for ucx --only env.ucx
check ucx-gid-v6 st env.ucx fail
check ucx-gid-v6-why found env.ucx 'UCX_IB_GID_INDEX=3: mlx5_0/1 GID 3 is IPv6 \(2001:0db8:0088:0000:0000:0000:0000:0004\) where this port.s IPv4 GID is 7'
check ucx-gid-v6-fix fix env.ucx '^export UCX_IB_GID_INDEX=7$'
UCX_IB_GID_INDEX=7 UCX_NET_DEVICES=all run --root "$FIXTURES/gid-order" -j doctor --for ucx --only env.ucx
check ucx-gid-v4 st env.ucx ok
NCCL_IB_GID_INDEX=5 run --root "$FIXTURES/gid-order" -j doctor --only env.nccl
check nccl-gid-v6 st env.nccl fail
check nccl-gid-v6-fix fix env.nccl '^export NCCL_IB_GID_INDEX=7$'
run --root "$OK" -j doctor --for ucx --only env
check for-ucx json_ok '[.checks[].status] == ["skip", "ok"]'

# ---- UCX before 1.19: UD drops RoCE v2 IPv4 packets on devices other than mlx5 ----
UCX=$FIXTURES/ucx-rxe
# ucx_tree NAME: a copy of the ucx-rxe tree to change, in $T.
ucx_tree() { T=$TMPD/$1; rm -rf "$T"; cp -a "$UCX" "$T"; }
run --root "$UCX" -j doctor --only ucx
check ucx-dgid-warn st ucx.ud_dgid warn
check ucx-dgid-why found ucx.ud_dgid '^UCX 1.13.1 \(/usr/lib/x86_64-linux-gnu/libucp.so.0\); rxe0/1 \(rxe, not mlx5\) with RoCE v2 IPv4 GID 1 \(10.99.0.2\): before 1.19, UD takes .*sl, which only mlx5 fills'
check ucx-dgid-fix fix ucx.ud_dgid '^export UCX_UD_VERBS_ETH_DGID_CHECK=n \(or install UCX 1.19 or later\)$'
check ucx-dgid-warn-rc rc_is 0
run --root "$UCX" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-for-ucx st ucx.ud_dgid fail
check ucx-dgid-for-ucx-rc rc_is 1
run --root "$UCX" -j doctor --for nccl --only ucx.ud_dgid
check ucx-dgid-for-nccl st ucx.ud_dgid skip
# Turned off in the environment, under either name; the transport's own name wins.
UCX_UD_VERBS_ETH_DGID_CHECK=n run --root "$UCX" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-env-off st ucx.ud_dgid ok
check ucx-dgid-env-off-why found ucx.ud_dgid 'needs UCX_UD_VERBS_ETH_DGID_CHECK=n: set by UCX_UD_VERBS_ETH_DGID_CHECK=n \(environment\)'
UCX_UD_ETH_DGID_CHECK=No run --root "$UCX" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-env-ud st ucx.ud_dgid ok
UCX_UD_VERBS_ETH_DGID_CHECK=y UCX_UD_ETH_DGID_CHECK=n run --root "$UCX" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-env-verbs-wins st ucx.ud_dgid fail
UCX_UD_VERBS_ETH_DGID_CHECK=off run --root "$UCX" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-env-bad st ucx.ud_dgid fail
check ucx-dgid-env-bad-why found ucx.ud_dgid "^UCX 1.13.1 .*; UCX_UD_VERBS_ETH_DGID_CHECK='off' \(environment\) is not a UCX boolean \(y or n\): UCX refuses it"
# The GID UCX uses: the link-local one (IPv6) is not hit; UCX_NET_DEVICES without the port neither.
UCX_IB_GID_INDEX=0 run --root "$UCX" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-gid0 st ucx.ud_dgid ok
check ucx-dgid-gid0-why found ucx.ud_dgid 'rxe0/1: UCX uses GID fe80:0000:0000:0000:5054:00ff:fe99:0001, not a RoCE v2 IPv4 one'
UCX_IB_GID_INDEX=1 UCX_NET_DEVICES=rxe0:1 run --root "$UCX" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-gid1 st ucx.ud_dgid fail
UCX_NET_DEVICES=eth0 run --root "$UCX" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-tcp-only found ucx.ud_dgid 'no active RDMA port for UCX$'
# /etc/ucx/ucx.conf: read by UCX 1.13; the environment beats it.
ucx_tree conf
mkdir -p "$T/etc/ucx"
printf '# RoCE on rxe\n  UCX_UD_VERBS_ETH_DGID_CHECK = n  \n' >"$T/etc/ucx/ucx.conf"
run --root "$T" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-conf st ucx.ud_dgid ok
check ucx-dgid-conf-where found ucx.ud_dgid 'set by UCX_UD_VERBS_ETH_DGID_CHECK=n \(/etc/ucx/ucx.conf:2\)'
UCX_UD_VERBS_ETH_DGID_CHECK=y run --root "$T" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-conf-env-wins st ucx.ud_dgid fail
# The release: 1.19 is fixed; dpkg, then ucx.pc, when the library does not say.
ucx_tree fixed
printf '\0ucp_worker_iface\0\315A1.19.0\0' >"$T/usr/lib/x86_64-linux-gnu/libucp.so.0.0.0"
run --root "$T" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-fixed st ucx.ud_dgid ok
check ucx-dgid-fixed-why found ucx.ud_dgid '^UCX 1.19.0 \(/usr/lib/x86_64-linux-gnu/libucp.so.0\); it reads a packet.s address family from the GRH$'
ucx_tree dpkg
printf 'no release in here\0' >"$T/usr/lib/x86_64-linux-gnu/libucp.so.0.0.0"
run --root "$T" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-dpkg found ucx.ud_dgid '^UCX 1.13.1 \(dpkg: libucx0 1.13.1-1\); rxe0/1'
check ucx-dgid-dpkg-fail st ucx.ud_dgid fail
mkdir -p "$T/usr/lib/x86_64-linux-gnu/pkgconfig"
printf 'prefix=/usr\nName: ucx\nVersion: 1.19.1\n' >"$T/usr/lib/x86_64-linux-gnu/pkgconfig/ucx.pc"
run --root "$T" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-pc found ucx.ud_dgid '^UCX 1.19.1 \(/usr/lib/x86_64-linux-gnu/pkgconfig/ucx.pc\)'
rm "$T/usr/lib/x86_64-linux-gnu/pkgconfig/ucx.pc" "$T/var/lib/dpkg/status"
run --root "$T" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-unknown st ucx.ud_dgid warn
check ucx-dgid-unknown-why found ucx.ud_dgid '^UCX of unknown release \(/usr/lib/x86_64-linux-gnu/libucp.so.0\)'
rm "$T"/usr/lib/x86_64-linux-gnu/libucp.so*
run --root "$T" -j doctor --only ucx.ud_dgid
check ucx-dgid-none st ucx.ud_dgid skip
# mlx5 fills the packet type in: not hit, whatever the GID.
ucx_tree mlx5
rm -rf "$T/sys" && cp -a "$OK/sys" "$T/sys"
# Without the PCI functions' driver links the provider is unknown.
rm "$T"/sys/devices/pci*/*/driver
run --root "$T" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-driver-unknown found ucx.ud_dgid 'mlx5_0/1: driver unknown'
check ucx-dgid-driver-unknown-ok st ucx.ud_dgid ok
rm -rf "$T/sys" && cp -a "$OK/sys" "$T/sys"
run --root "$T" -j doctor --for ucx --only ucx.ud_dgid
check ucx-dgid-mlx5 st ucx.ud_dgid ok
check ucx-dgid-mlx5-why found ucx.ud_dgid 'mlx5_0/1 is mlx5, whose completions carry the packet type'

# ---- options ----
run doctor --list
check list-rc rc_is 0
check list-all-ids bash -c '[ "$(awk "NR>1 {print \$1}" <<<"$0" | tr "\n" " ")" = "devices ports roce.ipv4 roce.gid roce.route mtu roce.qos memlock.shell memlock.login memlock.systemd firewall env.nccl env.ucx ucx.ud_dgid functions gpudirect versions peer " ]' "$OUT"
run -j doctor --list
check list-json json_ok '[.checks[] | select(.description | length > 10)] | length == 18'
run --root "$OK" -j doctor --only memlock
check only-group json_ok '[.checks[].id] == ["memlock.shell", "memlock.login", "memlock.systemd"]'
run --root "$OK" -j doctor --skip memlock,env,ucx,peer,gpudirect,functions
check skip-group json_ok '[.checks[].id] == ["devices", "ports", "roce.ipv4", "roce.gid", "roce.route", "mtu", "roce.qos", "firewall", "versions"]'
run --root "$OK" doctor --only mtus
check only-typo-rc rc_is 2
check only-typo err_has "^rdmactl doctor: Unknown check 'mtus' in --only. Did you mean 'mtu'\?"
check only-typo-one-line err_one_line
run --root "$OK" doctor --skip memlok
check skip-typo err_has "Unknown check 'memlok' in --skip. Did you mean 'memlock'\?"
run --root "$OK" doctor --only nosuchthing
check only-unknown err_has "Unknown check 'nosuchthing' in --only. 'rdmactl doctor --list' lists the checks."
run --root "$OK" doctor --only devices,,ports
check only-empty-item rc_is 2
run --root "$OK" doctor --for tcp
check for-bad rc_is 2
check for-bad-msg err_has "invalid --for value 'tcp': use nccl, ucx, mpi or perftest"
# mpi means what env --for mpi means: Open MPI over UCX, UCX's checks.
run --root "$OK" -j doctor --for mpi
check for-mpi json_ok '(.checks[] | select(.id == "env.nccl") | .found) == "--for mpi: NCCL'"'"'s variables do not apply"'
check for-mpi-ucx json_ok '(.checks[] | select(.id == "env.ucx") | .status | ascii_downcase) == "ok"'
run --root "$OK" doctor --port 0
check port-bad rc_is 2
check port-bad-msg err_has "Failed to read --port '0'"
run --root "$OK" doctor extra
check extra-arg rc_is 2

# A RoCE port whose netdev does not exist: its MTU is unknown, not ok.
# (rxe names its netdev in "parent", the netdev it was made on.)
cp -r "$BAD" "$TMPD/nonetdev"
echo eth9 >"$TMPD/nonetdev/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0"
echo eth9 >"$TMPD/nonetdev/sys/class/infiniband/rxe0/parent"
run --root "$TMPD/nonetdev" -j doctor --only mtu
check mtu-no-netdev-warn st mtu warn
check mtu-no-netdev-found found mtu '^rxe0/1: its netdev eth9 does not exist: its MTU cannot be checked$'
# Neither a GID entry's netdev nor the device's parent: no netdev at all.
rm "$TMPD/nonetdev/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0" \
	"$TMPD/nonetdev/sys/class/infiniband/rxe0/parent"
run --root "$TMPD/nonetdev" -j doctor --only mtu
check mtu-unknown-warn st mtu warn
check mtu-unknown-found found mtu '^rxe0/1: it has no netdev and its active MTU cannot be read$'

# ---- --help names the values of every option that takes one of a list ----
run doctor --help
check help-for-values out_has '^ +--for JOB +.*: nccl, ucx, mpi or perftest$'
check help-launcher-values out_has '^ +--launcher NAME +.*: srun, pdsh, clush, ssh or local$'
# ---- the man page as rendered ----
MAN=$TOP/man/rdmactl-doctor.8
if command -v mandoc >/dev/null; then
	man_text=$(mandoc -T ascii "$MAN" | col -b)
	check man-comment-rendered grep -q '(# starts a comment)' <<<"$(tr -s ' \t\n' ' ' <<<"$man_text")"
	# Every pdsh example uses a hostlist pdsh takes: numeric ranges only.
	check man-pdsh-hostlists bash -c '! grep -oE "pdsh -w [^ ]+" <<<"$0" | grep -E "\[[^]]*[^]0-9,-][^]]*\]"' "$man_text"
	check man-pdsh-example grep -q "pdsh -w 'node\[1-5\]' rdmactl -j doctor" <<<"$man_text"
else
	skip man-rendered "needs mandoc (Debian package mandoc)"
fi

# ---- --slurm-health --drain: scontrol's own words when it fails ----
# A live run whose env.nccl check fails on any host (the HCA named exists
# nowhere), with a recorded Slurm on PATH: sinfo prints the node's line
# (state, and the file's reason) as `sinfo -h -N -n NODE -o '%T|%E'` does,
# scontrol update records its arguments and sets that line as slurmctld
# would; "down" makes both fail as they do when slurmctld is unreachable,
# "update-down" only scontrol update.
mkdir "$TMPD/slurm" "$TMPD/noslurm"
cat >"$TMPD/slurm/scontrol" <<EOF
#!/bin/sh
if [ -e "$TMPD/slurm/down" ] || [ -e "$TMPD/slurm/update-down" ]; then
	echo "slurm_update error: Unable to contact slurm controller (connect failure)" >&2
	exit 1
fi
echo "\$*" >>"$TMPD/slurm/args"
case "\$3" in
state=drain) echo "drained|\${4#reason=}" >"$TMPD/slurm/state" ;;
state=resume) echo "idle|none" >"$TMPD/slurm/state" ;;
esac
EOF
cat >"$TMPD/slurm/sinfo" <<EOF
#!/bin/sh
if [ -e "$TMPD/slurm/down" ]; then
	echo "slurm_load_partitions: Unable to contact slurm controller (connect failure)" >&2
	exit 1
fi
[ "\$*" = "-h -N -n gpu017 -o %T|%E" ] || { echo "sinfo: unexpected \$*" >&2; exit 1; }
cat "$TMPD/slurm/state"
EOF
chmod +x "$TMPD/slurm/scontrol" "$TMPD/slurm/sinfo"
echo "idle|none" >"$TMPD/slurm/state"
# drain PATH [OPTION...]: rdmactl alone runs with PATH (run's own cat needs
# the caller's); its env.nccl check fails.
drain() {
	local rdmactl=$RDMACTL path=$1
	shift
	RDMACTL=env run NCCL_IB_HCA='=nosuchdev0' SLURMD_NODENAME=gpu017 PATH="$path" \
		"$rdmactl" doctor --slurm-health --drain --only env.nccl "$@"
	RDMACTL=$rdmactl
}
# healthy PATH [OPTION...]: the same node once its check passes.
healthy() {
	local rdmactl=$RDMACTL path=$1
	shift
	RDMACTL=env run NCCL_IB_HCA= SLURMD_NODENAME=gpu017 PATH="$path" \
		"$rdmactl" doctor --slurm-health --only env.nccl "$@"
	RDMACTL=$rdmactl
}
slurm_is() { [ "$(cat "$TMPD/slurm/state")" = "$1" ]; }
drain "$TMPD/slurm:$PATH"
check drain-done-rc rc_is 1
check drain-done-line out_has '^drained: scontrol update nodename=gpu017 state=drain reason="rdmactl: env.nccl: '
check drain-done-args grep -q '^update nodename=gpu017 state=drain reason=rdmactl: env.nccl: ' "$TMPD/slurm/args"
# The next pass, the same check failing: drained already, nothing run.
: >"$TMPD/slurm/args"
drain "$TMPD/slurm:$PATH"
check drain-kept-rc rc_is 1
check drain-kept-line out_has "^kept drained: Slurm's reason is already this check's$"
check drain-kept-nothing-run test ! -s "$TMPD/slurm/args"
# Drained by rdmactl for another check: the reason becomes the check failing now.
echo "drained|rdmactl: mtu: eth0 MTU 1500" >"$TMPD/slurm/state"
drain "$TMPD/slurm:$PATH"
check drain-update-line out_has '^reason updated: scontrol update nodename=gpu017 state=drain reason="rdmactl: env.nccl: '
check drain-update-slurm grep -q '^drained|rdmactl: env.nccl: ' "$TMPD/slurm/state"
# Every check passes: rdmactl's own drain is lifted, in one line and in -j.
healthy "$TMPD/slurm:$PATH" --drain
check resume-rc rc_is 0
check resume-line out_has "^resumed: scontrol update nodename=gpu017 state=resume \(drained by rdmactl: 'rdmactl: env.nccl: "
check resume-slurm slurm_is "idle|none"
echo "draining|rdmactl: env.nccl: earlier" >"$TMPD/slurm/state"
healthy "$TMPD/slurm:$PATH" --drain -j
check resume-json json_ok '.health | .ok and .resumed and .action == "resume" and .slurm.state == "draining"
	and .command == "scontrol update nodename=gpu017 state=resume" and .error == null'
check resume-json-slurm slurm_is "idle|none"
# Healthy and not drained: nothing said, nothing run.
: >"$TMPD/slurm/args"
healthy "$TMPD/slurm:$PATH" --drain
check healthy-idle-rc rc_is 0
check healthy-idle-quiet out_empty
check healthy-idle-nothing-run test ! -s "$TMPD/slurm/args"
# Drained by an admin: kept through healthy passes and failing ones alike.
echo "drained*|maintenance: PSU swap" >"$TMPD/slurm/state"
healthy "$TMPD/slurm:$PATH" --drain
check other-healthy-rc rc_is 0
check other-healthy-line out_has "^left drained: its reason 'maintenance: PSU swap' is not rdmactl's$"
drain "$TMPD/slurm:$PATH"
check other-failing-rc rc_is 1
check other-failing-line out_has "^left drained: its reason 'maintenance: PSU swap' is not rdmactl's$"
check other-nothing-run test ! -s "$TMPD/slurm/args"
check other-kept slurm_is "drained*|maintenance: PSU swap"
# --dry-run: what --drain would do, nothing done.
echo "idle|none" >"$TMPD/slurm/state"
drain "$TMPD/slurm:$PATH" --dry-run
check dry-drain-rc rc_is 1
check dry-drain-line out_has '^would drain: scontrol update nodename=gpu017 state=drain reason="rdmactl: env.nccl: '
echo "drained|rdmactl: env.nccl: earlier" >"$TMPD/slurm/state"
healthy "$TMPD/slurm:$PATH" --dry-run -j
check dry-resume-json json_ok '.health | .dry_run and .action == "resume" and (.resumed | not)'
check dry-nothing-run test ! -s "$TMPD/slurm/args"
check dry-kept slurm_is "drained|rdmactl: env.nccl: earlier"
# slurmctld not reached: the node left as it was, exit 1 even when healthy, one line.
touch "$TMPD/slurm/down"
healthy "$TMPD/slurm:$PATH" --drain
check down-healthy-rc rc_is 1
check down-healthy-message err_is "rdmactl doctor: Failed to read the Slurm state of gpu017: sinfo: slurm_load_partitions: Unable to contact slurm controller (connect failure); the node is left as it was"
check down-healthy-kept slurm_is "drained|rdmactl: env.nccl: earlier"
healthy "$TMPD/slurm:$PATH" --drain -j
check down-healthy-json json_ok '.health | .action == null and .slurm == null and (.error | test("Unable to contact"))'
drain "$TMPD/slurm:$PATH"
check drain-down-rc rc_is 1
check drain-down-not-drained out_has '^scontrol update nodename=gpu017 state=drain'
rm "$TMPD/slurm/down"
# Read, but scontrol update refused: scontrol's own words.
echo "idle|none" >"$TMPD/slurm/state"
touch "$TMPD/slurm/update-down"
drain "$TMPD/slurm:$PATH"
check drain-update-down-rc rc_is 1
check drain-update-down-message err_is "rdmactl doctor: Failed to drain gpu017: scontrol update: slurm_update error: Unable to contact slurm controller (connect failure)"
check drain-update-down-not-drained out_has '^scontrol update nodename=gpu017 state=drain'
rm "$TMPD/slurm/update-down"
# A node sinfo does not list (not in this cluster): left alone, said.
: >"$TMPD/slurm/state"
healthy "$TMPD/slurm:$PATH" --drain
check unlisted-rc rc_is 1
check unlisted-message err_has "Failed to read the Slurm state of gpu017: sinfo does not list it"
drain "$TMPD/noslurm"
check drain-missing-rc rc_is 1
check drain-missing-message err_is "rdmactl doctor: Failed to read the Slurm state of gpu017: sinfo is not on PATH (Debian package slurm-client); the node is left as it was"
# With --root the checks read a copy of another node: draining this one is refused.
fails_with drain-root 2 "rdmactl doctor: Failed to use --drain with --root: the checks read a copy, and would drain this node" \
	--root "$BAD" doctor --slurm-health --drain
fails_with dry-run-root 2 "rdmactl doctor: Failed to use --dry-run with --root: the checks read a copy, and would drain this node" \
	--root "$BAD" doctor --slurm-health --dry-run

# ---- --metrics: Prometheus text exposition ----
# metric NAME{LABELS} VALUE: that exact sample line is in the output.
metric() { grep -qxF -- "$1" <<<"$OUT"; }
run --root "$OK" doctor --metrics
check metrics-healthy-rc rc_is 0
check metrics-version metric "rdmactl_info{version=\"$("$RDMACTL" --version | cut -d' ' -f2)\"} 1"
check metrics-check-ok metric 'rdmactl_check_status{check="mtu",status="ok"} 1'
check metrics-check-skip metric 'rdmactl_check_status{check="peer",status="skip"} 1'
check metrics-one-per-check bash -c '[ "$(grep -c "^rdmactl_check_status{" <<<"$0")" -eq 18 ]' "$OUT"
check metrics-port-state metric 'rdmactl_port_state{device="mlx5_0",port="1",state="ACTIVE",phys_state="LinkUp"} 1'
check metrics-active-mtu metric 'rdmactl_port_active_mtu_bytes{device="mlx5_0",port="1"} 4096'
check metrics-netdev-mtu metric 'rdmactl_port_netdev_mtu_bytes{device="mlx5_0",port="1",netdev="ens19f0np0"} 9000'
# The field notes' table: index 5 is RoCE v2 with 192.168.88.1 (as roce.gid says).
check metrics-gid metric 'rdmactl_port_gid_index{device="mlx5_0",port="1"} 5'
check metrics-memlock-unlimited metric 'rdmactl_memlock_soft_limit_bytes{scope="login"} +Inf'
check metrics-retrans metric 'rdmactl_port_retransmissions_total{device="mlx5_0",port="1",counter="local_ack_timeout_err"} 12'
check metrics-seq metric 'rdmactl_port_sequence_errors_total{device="mlx5_0",port="1",counter="out_of_sequence"} 3'
check metrics-cnp metric 'rdmactl_port_cnp_sent_total{device="mlx5_0",port="1",counter="np_cnp_sent"} 1042'
check metrics-counter-type out_has '^# TYPE rdmactl_port_cnp_sent_total counter$'
# Every family has HELP and TYPE before its samples; every sample's family was typed.
check metrics-help-type bash -c 'awk "/^# HELP /{h[\$3]=1} /^# TYPE /{if(!h[\$3])exit 1; t[\$3]=1} /^[a-z]/{n=\$0; sub(/[{ ].*/,\"\",n); if(!t[n])exit 1}" <<<"$0"' "$OUT"
run --root "$OK" doctor --metrics --skip memlock.shell
check metrics-skipped-scope-absent bash -c '! grep -q "scope=\"shell\"" <<<"$0"' "$OUT"
check metrics-skipped-scope-others metric 'rdmactl_memlock_hard_limit_bytes{scope="systemd"} +Inf'
run --root "$BAD" doctor --metrics
check metrics-broken-rc rc_is 1
check metrics-broken-fail metric 'rdmactl_check_status{check="mtu",status="warn"} 1'
check metrics-broken-ports metric 'rdmactl_check_status{check="ports",status="fail"} 1'
check metrics-broken-port-down out_has '^rdmactl_port_state\{device="rxe0",port="1",state="DOWN",'
check metrics-broken-memlock metric 'rdmactl_memlock_soft_limit_bytes{scope="shell"} 65536'
check metrics-broken-netdev-mtu metric 'rdmactl_port_netdev_mtu_bytes{device="rxe0",port="1",netdev="eth0"} 1500'
# A netdev whose name is not UTF-8 (Linux allows "eth\xff"): the label says
# \xff as text, and the file passes promtool.
cp -r "$BAD" "$TMPD/nonutf8"
mv "$TMPD/nonutf8/sys/class/net/eth0" "$TMPD/nonutf8/sys/class/net/"$'eth\xff'
printf 'eth\xff\n' >"$TMPD/nonutf8/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0"
printf 'eth\xff\n' >"$TMPD/nonutf8/sys/class/infiniband/rxe0/parent"
run --root "$TMPD/nonutf8" doctor --metrics
check metrics-nonutf8-netdev metric 'rdmactl_port_netdev_mtu_bytes{device="rxe0",port="1",netdev="eth\\xff"} 1500'
if command -v promtool >/dev/null; then
	check metrics-nonutf8-promtool bash -c 'promtool check metrics <<<"$0" 2>&1' "$OUT"
else
	skip metrics-nonutf8-promtool "needs promtool (Debian package prometheus)"
fi
# -o: the file is replaced whole; nothing else is left in its directory.
mkdir "$TMPD/prom" && echo old >"$TMPD/prom/rdmactl.prom"
run --root "$OK" doctor --metrics -o "$TMPD/prom/rdmactl.prom"
check metrics-file-rc rc_is 0
check metrics-file-stdout-empty out_empty
check metrics-file-written grep -q '^rdmactl_info{' "$TMPD/prom/rdmactl.prom"
check metrics-file-alone bash -c '[ "$(ls "$0")" = rdmactl.prom ]' "$TMPD/prom"
ln -s "$TMPD/prom/rdmactl.prom" "$TMPD/prom/link.prom"
run --root "$OK" doctor --metrics -o "$TMPD/prom/link.prom"
check metrics-file-symlink-refused rc_is 2
fails_with metrics-json 2 "rdmactl doctor: Failed to use --metrics with -j: choose the metrics or the JSON document" \
	--root "$OK" doctor --metrics -j
fails_with metrics-o-alone 2 "rdmactl doctor: Failed to use -o without --metrics: the table and JSON go to standard output" \
	--root "$OK" doctor -o "$TMPD/x.prom"
run --root "$OK" doctor --metrics --slurm-health
check metrics-health-rc rc_is 2
check metrics-health-message err_is "rdmactl doctor: Failed to use --metrics with --slurm-health, -w, --gathered or --list: it reports this node's checks"


# ---- CAP_IPC_LOCK: a limit that stops no registration (ib_umem_get) is
# told, not failed; a login of another user still fails at it.
CAP=$TMPD/cap
cp -a "$BAD" "$CAP"
printf 'CapEff:\t0000000000004000\nCapBnd:\t000001ffffffffff\n' >>"$CAP/proc/self/status"
run --root "$CAP" -j doctor --only memlock.shell,memlock.login
check cap-shell-ok st memlock.shell ok
check cap-shell-why found memlock.shell '^soft 64 KiB, hard 64 KiB \(/proc/self/limits\), not enforced: this process has CAP_IPC_LOCK, which pins past RLIMIT_MEMLOCK; a job of a user without it gets 64 KiB$'
check cap-shell-no-fix fix memlock.shell '^$'
check cap-user-login-fails st memlock.login fail
sed -i 's/^Uid:.*/Uid:\t0\t0\t0\t0/' "$CAP/proc/self/status"
run --root "$CAP" -j doctor --only memlock.login
check cap-root-login-ok st memlock.login ok
check cap-root-login-why found memlock.login 'not enforced: root has CAP_IPC_LOCK'
# Without the capability in the bounding set, root's logins are held to it.
sed -i 's/^CapBnd:.*/CapBnd:\t0000000000000000/' "$CAP/proc/self/status"
run --root "$CAP" -j doctor --only memlock.login
check cap-root-no-bound-fails bash -c '[ "$(jq -r ".checks[0].status" <<<"$0")" != ok ]' "$OUT"
# Root on Debian with CAP_IPC_LOCK: the limit is root's own (no "*" line), the
# "*" lines are what other users get; the alice of that tree gets them.
CAPR=$TMPD/cap-root
cp -a "$FIXTURES/limits-root" "$CAPR"
printf 'CapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\n' >>"$CAPR/proc/self/status"
run --root "$CAPR" -j doctor --only memlock.login
check cap-root-star st memlock.login ok
check cap-root-star-why found memlock.login '^soft 8 MiB, hard 8 MiB \(inherited \(systemd: default\)\), not enforced: root has CAP_IPC_LOCK, which pins past RLIMIT_MEMLOCK; /etc/security/limits.d/90-rdma.conf:1,2 not applied to root: '
run --root "$CAPR" -j doctor --only memlock.login --user alice
check cap-root-star-alice found memlock.login '^soft unlimited \(/etc/security/limits.d/90-rdma.conf:1\), hard unlimited'
# --user: the login of the job's user, whoever runs the doctor.
run --root "$CAP" -j doctor --only memlock.login --user alice
check user-alice-fails st memlock.login fail
check user-alice-limit found memlock.login 'soft 64 MiB'
# A user the node lacks is a bad word on the line, as for rdmactl limits: exit 2,
# one line, no check run (text, JSON, --metrics and --slurm-health alike).
fails_with user-unknown 2 "rdmactl doctor: Failed to find user 'nosuchuser' in /etc/passwd. Give an existing user with --user NAME." \
	--root "$CAP" doctor --only memlock.login --user nosuchuser
run --root "$CAP" doctor --user nosuchuser
check user-unknown-no-table out_empty
run --root "$CAP" doctor --metrics --user nosuchuser
check user-unknown-metrics-rc rc_is 2
check user-unknown-metrics-nothing out_empty
run --root "$CAP" doctor --slurm-health --user nosuchuser
check user-unknown-health-rc rc_is 2
check user-unknown-health-one-line err_one_line
# The same line and code as rdmactl limits gives.
DOCTOR_ERR=$ERR
run --root "$CAP" limits --user nosuchuser
check user-unknown-like-limits [ "$RC.${ERR#rdmactl limits: }" == "2.${DOCTOR_ERR#rdmactl doctor: }" ]
run --root "$CAP" doctor --user 'a b'
check user-bad-rc rc_is 2
check user-bad-err err_has "^rdmactl doctor: Failed to read --user 'a b': not a user name$"

# ---- the job's choice of transport, and fixes that name what exists ----
# UCX_TLS without rc, ud or dc (its aliases, '^' negating): UCX runs over TCP, said as NCCL_IB_DISABLE=1 is.
UCX_TLS=tcp,self,sm run --root "$OK" -j doctor --for mpi --only env.ucx
check ucx-tls-tcp-warns json_ok '.checks[0].status == "warn" and .checks[0].found == "UCX_TLS='"'tcp,self,sm'"' enables no RDMA transport (rc, ud, dc): UCX runs over TCP sockets, not RDMA" and .checks[0].fix == "unset UCX_TLS, or add rc (or ud, dc) to it"'
UCX_TLS='^ib' run --root "$OK" -j doctor --for mpi --only env.ucx
check ucx-tls-negated-warns st env.ucx warn
UCX_TLS=rc_x,tcp run --root "$OK" -j doctor --for mpi --only env.ucx
check ucx-tls-rc-ok json_ok '.checks[0].status == "ok" and (.checks[0].found | contains("enables RDMA and TCP"))'
# A netdev in UCX_NET_DEVICES is UCX's TCP transport's device, even an RDMA port's.
UCX_NET_DEVICES=ens19f0np0,ens20f0np0 run --root "$OK" -j doctor --for mpi --only env.ucx
check ucx-netdevs-tcp-alone json_ok '.checks[0].status == "warn" and .checks[0].fix == "add mlx5_0:1,mlx5_10:1 to UCX_NET_DEVICES for RDMA (or leave it for TCP)"'
UCX_NET_DEVICES=mlx5_0:1,ens19f0np0 run --root "$OK" -j doctor --for mpi --only env.ucx
check ucx-netdev-beside-port-ok st env.ucx ok
# A port that does not exist on the device named: the fix keeps the device, with a port it has.
NCCL_IB_HCA='=mlx5_1:2' run --root "$OK" -j doctor --for nccl --only env.nccl
check hca-no-port-found found env.nccl "^NCCL_IB_HCA='=mlx5_1:2': mlx5_1 has no port 2;"
check hca-no-port-fix json_ok '.checks[0].fix == "export NCCL_IB_HCA==mlx5_1:1"'

finish
