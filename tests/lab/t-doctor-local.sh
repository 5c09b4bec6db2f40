#!/bin/bash
# rdmactl doctor on one guest's real Soft-RoCE port, in the states the field
# notes met: a healthy node (exit 0), netdev MTU 1500, no IPv4 on eth0, the
# port down, `ulimit -l 64`, nftables dropping UDP 4791, NCCL_IB_HCA=mlx_1,
# NCCL_SOCKET_IFNAME naming a missing interface, NCCL_IB_GID_INDEX naming the
# link-local GID, UCX_NET_DEVICES naming a missing device, UCX before 1.19
# with UD's DGID check on.  Each verdict is
# checked against what the guest itself says (sysfs, ibv_devinfo, rdma, ip,
# nft, ulimit).
#
# memlock.login and memlock.systemd are skipped everywhere: the guests run on
# the host's own /etc (shared read-only), so their verdict is the host's
# limits.d and system.conf, not something this test sets up.  They are
# covered by the recorded trees of tests/cli/doctor.sh.
# lab-guests: 1
# lab-timeout: 480
# lab-seconds: 44

sys=/sys/class/infiniband/rxe0
[[ -d $sys ]] || skip "no rxe0 in this guest"
IF=$(<$sys/parent)
MTU0=$(</sys/class/net/"$IF"/mtu)
ADDRS0=$(ip -j -4 addr show dev "$IF" | jq -r '.[0].addr_info[] | "\(.local)/\(.prefixlen)"')
SKIP=memlock.login,memlock.systemd
AS=()
unset NCCL_IB_HCA NCCL_SOCKET_IFNAME NCCL_IB_GID_INDEX NCCL_IB_DISABLE UCX_NET_DEVICES UCX_IB_GID_INDEX \
	UCX_UD_VERBS_ETH_DGID_CHECK UCX_UD_ETH_DGID_CHECK

# (Only the tmpfs this test stacks there: the lab binds its own provider
# list over /etc/libibverbs.d.)
PROV_HIDDEN=''
restore() {
	[[ -z $PROV_HIDDEN ]] || umount /etc/libibverbs.d
	PROV_HIDDEN=''
	umount /dev/infiniband 2>/dev/null
	nft flush ruleset 2>/dev/null
	ip link set "$IF" up
	ip link set "$IF" mtu "$MTU0"
	for a in $ADDRS0; do
		ip -4 addr show dev "$IF" | grep -q " $a " || ip addr add "$a" dev "$IF"
	done
}
trap restore EXIT

# wait_port STATE [MTU]: until ibv_devinfo reports the port STATE (and active MTU).
wait_port() {
	local i info
	for i in $(seq 100); do
		info=$(ibv_devinfo -d rxe0 -i 1)
		if grep -q "state:.*PORT_$1" <<<"$info" &&
			{ [[ -z ${2-} ]] || grep -Eq "active_mtu:[[:space:]]+$2 " <<<"$info"; }; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

active_mtu() { ibv_devinfo -d rxe0 -i 1 | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'; }

# gid_index KIND: the sysfs index of this port's IPv4 GID (v4) or first fe80 GID (ll).
gid_index() {
	local f want g
	want=$(lab_gid_of "$LAB_IP")
	# The table has over a thousand slots; the kernel fills the first few.
	for f in $(seq 0 15); do
		{ g=$(<"$sys/ports/1/gids/$f"); } 2>/dev/null
		if [[ $1 == v4 && $g == "$want" ]] || [[ $1 == ll && $g == fe80:* ]]; then
			echo "$f"
			return
		fi
	done
}

# doctor NAME ARGS...: run rdmactl -j doctor; JSON in NAME.json, exit status
# in NAME.rc; its checks are printed and loaded.
doctor() {
	local name=$1
	shift
	"${AS[@]}" "$RDMACTL" -j doctor "$@" >"$name.json" 2>"$name.err"
	echo $? >"$name.rc"
	echo "== $name: rc $(<"$name.rc")"
	load "$name"
	printf '%s\t%s\t%s\t%s\n' "${ROWS[@]}"
	cat "$name.err"
}
# load NAME: every check's status, found and fix in F[NAME/ID/KEY] and, for
# the log, ROWS (status, id, found, fix of each); one jq per run, since each
# fork costs a lot on the guests' emulated CPUs.
declare -A F=()
load() {
	ROWS=()
	eval "$(jq -r --arg n "$1" '"F[\($n + "/" | @sh)]=1", (.checks[] | ("\($n)/\(.id)/") as $k |
		"F[\($k + "status" | @sh)]=\(.status // "" | @sh)",
		"F[\($k + "found" | @sh)]=\(.found // "" | @sh)",
		"F[\($k + "fix" | @sh)]=\(.fix // "" | @sh)",
		"ROWS+=(\([.status, .id, .found, .fix] | map(tostring) | @sh))")' "$1.json")"
}
# field NAME ID KEY: a key of check ID in NAME.json ("" where it has none);
# loaded here when NAME's doctor ran in a subshell.
field() {
	[[ -n ${F[$1/]-} ]] || load "$1"
	printf '%s\n' "${F[$1/$2/$3]-}"
}
has() {
	local v
	v=$(field "$1" "$2" found)
	[[ $v == *"$3"* ]] || fail "$1: $2 does not say '$3': $v"
}
fix_has() {
	local v
	v=$(field "$1" "$2" fix)
	[[ $v == *"$3"* ]] || fail "$1: $2's fix lacks '$3': $v"
}

# ---- healthy: MTU 9000, every check passes, exit 0 ----
ip link set "$IF" mtu 9000
wait_port ACTIVE 4096 || fail "rxe0 did not reach active MTU 4096"
V4=$(gid_index v4)
LL=$(gid_index ll)
[[ -n $V4 && -n $LL ]] || fail "sysfs has no IPv4 GID or no link-local GID on rxe0/1"
# A healthy rxe node with a UCX before 1.19 has UD's DGID check off (ucx.ud_dgid).
UCX_UD_VERBS_ETH_DGID_CHECK=n doctor healthy --skip $SKIP
check_eq "healthy: exit status" 0 "$(<healthy.rc)"
check_eq "healthy: nothing failed or warned" "0 0" "$(jq -r '"\(.summary.failed) \(.summary.warnings)"' healthy.json)"
has healthy devices "rxe0 (rxe, 1 port)"
check_eq "healthy: ports" ok "$(field healthy ports status)"
has healthy ports "rxe0/1 ACTIVE LinkUp ($IF)"
has healthy roce.ipv4 "rxe0/1 $IF has $LAB_IP"
has healthy roce.gid "rxe0/1: use GID index $V4 (RoCE v2, $LAB_IP)"
has healthy mtu "rxe0/1 active MTU $(active_mtu) (max 4096), $IF MTU 9000"
has healthy memlock.shell "soft unlimited"
check_eq "healthy: shell limit as ulimit says" unlimited "$(ulimit -l)"
has healthy firewall "no rule blocks UDP 4791"
check_eq "healthy: gpudirect skipped (no GPU)" skip "$(field healthy gpudirect status)"
has healthy versions "kernel $(uname -r)"

# ---- netdev MTU 1500: RDMA MTU 1024 ----
ip link set "$IF" mtu 1500
wait_port ACTIVE 1024 || fail "rxe0 did not drop to active MTU 1024"
doctor mtu1500 --only mtu
check_eq "mtu 1500: status" warn "$(field mtu1500 mtu status)"
has mtu1500 mtu "rxe0/1: $IF MTU 1500 limits the RDMA MTU to $(active_mtu) (max 4096)"
fix_has mtu1500 mtu "ip link set $IF mtu 9000"
check_eq "mtu 1500: a warning, exit 0" 0 "$(<mtu1500.rc)"

# ---- no IPv4 on eth0: only the link-local GID ----
ip -4 addr flush dev "$IF"
for _ in $(seq 50); do [[ -z $(gid_index v4) ]] && break; sleep 0.2; done
[[ -z $(gid_index v4) ]] || fail "the IPv4 GID stayed after the address went"
doctor noipv4 --only roce.ipv4,roce.gid
check_eq "no IPv4: exit status" 1 "$(<noipv4.rc)"
check_eq "no IPv4: roce.ipv4" fail "$(field noipv4 roce.ipv4 status)"
has noipv4 roce.ipv4 "$IF has no IPv4 address, so only GIDs such as $(<$sys/ports/1/gids/"$LL")"
fix_has noipv4 roce.ipv4 "ip addr add ADDRESS/PREFIX dev $IF"
check_eq "no IPv4: roce.gid" fail "$(field noipv4 roce.gid status)"
restore

# ---- port down ----
ip link set "$IF" down
wait_port DOWN || fail "rxe0/1 did not go down"
doctor down --only ports
state=$(rdma -j link show rxe0/1 | jq -r '.[0].state')
check_eq "down: rdma says" DOWN "$state"
check_eq "down: ports" fail "$(field down ports status)"
has down ports "rxe0/1 is DOWN"
has down ports "its netdev $IF is $(</sys/class/net/"$IF"/operstate)"
fix_has down ports "ip link set $IF up"
check_eq "down: exit status" 1 "$(<down.rc)"
restore
wait_port ACTIVE || fail "rxe0/1 did not come back"

# ---- ulimit -l 64 ----
# Held to it only without CAP_IPC_LOCK (a user's job, a container's root):
# ib_umem_get() lets the capability pin past the limit.  The kernel's own
# word first: a 1 MiB registration (ibv_rc_pingpong's buffer, registered
# before it waits for a client) fails at 64 KiB without the capability and
# goes through with it, the server then listening for its client (it
# registers before it listens), where it is ended: waiting out a time
# limit instead was 40 s of this test at the guests' make check pace.
NOCAP=(setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock)
# reg CMD...: ibv_rc_pingpong's server at 64 KiB, run by CMD (exec: the
# server is the subshell, which a kill then ends).
reg() { (ulimit -l 64 && "$@" ibv_rc_pingpong -d rxe0 -g 1 -s 1048576 -p 18999); }
out=$(reg lab_timeout 5 "${NOCAP[@]}" 2>&1)
echo "$out" | sed 's/^/no CAP_IPC_LOCK, 64 KiB: /'
grep -q "Couldn't register MR" <<<"$out" || fail "ibv_rc_pingpong registered 1 MiB at 64 KiB without CAP_IPC_LOCK"
reg exec >reg-root.out 2>&1 &
pid=$!
listened=no
lab_wait_listen 18999 && kill -0 $pid 2>/dev/null && listened=yes
kill $pid 2>/dev/null
wait $pid || true
sed 's/^/root, 64 KiB: /' reg-root.out
check_eq "root at 64 KiB: ibv_rc_pingpong registered and listened for its client" yes \
	"$(grep -q "Couldn't register MR" reg-root.out || echo $listened)"
AS=("${NOCAP[@]}")
(ulimit -l 64 && doctor ulimit --only memlock.shell)
AS=()
check_eq "ulimit 64: status" fail "$(field ulimit memlock.shell status)"
has ulimit memlock.shell "soft 64 KiB"
fix_has ulimit memlock.shell "prlimit"
check_eq "ulimit 64: exit status" 1 "$(<ulimit.rc)"
(ulimit -l 64 && doctor ulimit-root --only memlock.shell)
check_eq "ulimit 64, root: status" ok "$(field ulimit-root memlock.shell status)"
has ulimit-root memlock.shell "soft 64 KiB, hard 64 KiB (/proc/self/limits), not enforced: this process has CAP_IPC_LOCK"
check_eq "ulimit 64, root: exit status" 0 "$(<ulimit-root.rc)"

# ---- nftables dropping RoCE v2 on this node ----
nft add table inet t && nft add chain inet t input '{ type filter hook input priority 0; }' &&
	nft add rule inet t input udp dport 4791 drop || fail "nft could not add the rule"
handle=$(nft -j list ruleset | jq -r '.nftables[] | select(.rule) | .rule.handle')
doctor nft --only firewall
check_eq "nft: firewall" fail "$(field nft firewall status)"
has nft firewall "udp dport 4791 drop rule in inet t input (handle $handle) blocks udp 4791"
fix_has nft firewall "nft delete rule inet t input handle $handle"
nft flush ruleset

# ---- NCCL and UCX variables ----
devs=$(rdma -j dev show | jq -r '[.[].ifname] | join(", ")')
NCCL_IB_HCA=mlx_1 doctor hca --only env.nccl
check_eq "NCCL_IB_HCA=mlx_1: status" fail "$(field hca env.nccl status)"
has hca env.nccl "NCCL_IB_HCA='mlx_1': 'mlx_1' names no device; devices: $devs"
NCCL_IB_HCA=rxe doctor hca-ok --only env.nccl
check_eq "NCCL_IB_HCA=rxe (a prefix of rxe0): status" ok "$(field hca-ok env.nccl status)"
has hca-ok env.nccl "selects rxe0:1"

NCCL_SOCKET_IFNAME=eth9 doctor ifname --only env.nccl
check_eq "NCCL_SOCKET_IFNAME=eth9: status" fail "$(field ifname env.nccl status)"
# The netdevs: /sys/class/net's directories (bonding's module adds a file there, bonding_masters).
ifs=$(find /sys/class/net/ -mindepth 1 -maxdepth 1 -xtype d -printf '%f\n' | sort | paste -sd, | sed 's/,/, /g')
has ifname env.nccl "NCCL_SOCKET_IFNAME='eth9': no interface 'eth9' (did you mean 'eth0'?); interfaces: $ifs"
fix_has ifname env.nccl "export NCCL_SOCKET_IFNAME=eth0"
NCCL_SOCKET_IFNAME=$IF doctor ifname-ok --only env.nccl
check_eq "NCCL_SOCKET_IFNAME=$IF: status" ok "$(field ifname-ok env.nccl status)"

NCCL_IB_GID_INDEX=$LL doctor gidll --only env.nccl
check_eq "NCCL_IB_GID_INDEX=$LL (link-local): status" fail "$(field gidll env.nccl status)"
has gidll env.nccl "NCCL_IB_GID_INDEX=$LL: rxe0/1 GID $LL is link-local ($(<$sys/ports/1/gids/"$LL"))"
fix_has gidll env.nccl "export NCCL_IB_GID_INDEX=$V4"
NCCL_IB_GID_INDEX=$V4 doctor gidv4 --only env.nccl
check_eq "NCCL_IB_GID_INDEX=$V4 (IPv4): status" ok "$(field gidv4 env.nccl status)"

UCX_NET_DEVICES=mlx5_0:1 doctor ucx --only env.ucx
check_eq "UCX_NET_DEVICES=mlx5_0:1: status" fail "$(field ucx env.ucx status)"
has ucx env.ucx "no RDMA device 'mlx5_0'; devices: $devs"
UCX_NET_DEVICES=rxe0:1,$IF doctor ucx-ok --only env.ucx
check_eq "UCX_NET_DEVICES=rxe0:1,$IF: status" ok "$(field ucx-ok env.ucx status)"
has ucx-ok env.ucx "rxe0:1 is ACTIVE; interface $IF is up"

# ---- UCX before 1.19 on rxe: UD drops RoCE v2 IPv4 packets ----
# The release as UCX itself says it, when its tools are installed.
ucx_ver=$(ucx_info -v 2>/dev/null | sed -n 's/^# Version \([0-9.]*\).*/\1/p')
doctor ucxud --for ucx --only ucx.ud_dgid
if [[ -z $ucx_ver ]]; then
	check_eq "no ucx_info: ucx.ud_dgid" skip "$(field ucxud ucx.ud_dgid status)"
elif [[ $(printf '%s\n1.19.0\n' "$ucx_ver" | sort -V | head -1) == 1.19.0 ]]; then
	check_eq "UCX $ucx_ver: ucx.ud_dgid" ok "$(field ucxud ucx.ud_dgid status)"
else
	check_eq "UCX $ucx_ver, GID auto: ucx.ud_dgid" fail "$(field ucxud ucx.ud_dgid status)"
	has ucxud ucx.ud_dgid "UCX $ucx_ver ("
	has ucxud ucx.ud_dgid "rxe0/1 (rxe, not mlx5) with RoCE v2 IPv4 GID $V4 ($LAB_IP)"
	fix_has ucxud ucx.ud_dgid "export UCX_UD_VERBS_ETH_DGID_CHECK=n"
	UCX_UD_VERBS_ETH_DGID_CHECK=n doctor ucxud-off --for ucx --only ucx.ud_dgid
	check_eq "UCX_UD_VERBS_ETH_DGID_CHECK=n: ucx.ud_dgid" ok "$(field ucxud-off ucx.ud_dgid status)"
	UCX_IB_GID_INDEX=$LL doctor ucxud-ll --for ucx --only ucx.ud_dgid
	check_eq "UCX_IB_GID_INDEX=$LL (fe80::, IPv6): ucx.ud_dgid" ok "$(field ucxud-ll ucx.ud_dgid status)"
fi

# ---- the provider library missing: libibverbs finds no driver config ----
# A tmpfs over /etc/libibverbs.d (this guest only) hides rxe.driver, as on a
# node without ibverbs-providers; RDMA netlink still lists rxe0.
if mount -t tmpfs none /etc/libibverbs.d; then
	PROV_HIDDEN=1
	doctor noprov --only devices
	umount /etc/libibverbs.d
	PROV_HIDDEN=''
	check_eq "no provider: devices" fail "$(field noprov devices status)"
	has noprov devices "the kernel has rxe0 but libibverbs could not open it"
	fix_has noprov devices "apt-get install ibverbs-providers"
else
	fail "could not hide /etc/libibverbs.d"
fi

# ---- a container without /dev/infiniband ----
if mount -t tmpfs none /dev/infiniband; then
	doctor nodevib --only devices
	umount /dev/infiniband
	check_eq "no /dev/infiniband: devices" fail "$(field nodevib devices status)"
	has nodevib devices "the kernel has rxe0 but /dev/infiniband is missing or empty"
	fix_has nodevib devices "--device=/dev/infiniband"
else
	fail "could not hide /dev/infiniband"
fi
doctor after --only devices
check_eq "devices back: status" ok "$(field after devices status)"
exit 0
