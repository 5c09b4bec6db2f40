#!/bin/bash
# A macvlan carrying a node's address, made by the kernel: in namespace s
# (of a veth pair, 10.79.0.1 s, 10.79.0.2 c) mv0 is a macvlan on the veth
# (ip link add link VETH name mv0 type macvlan mode bridge), the address
# moved to it.  What rdmactl reads live by netlink finds it on mv0, not on
# the netdev under it: the interface NCCL_SOCKET_IFNAME names has an
# address (the address cache, by ifindex), and the route to c leaves by mv0
# (RTM_GETROUTE).  A snapshot of s records mv0 as tests/fixtures/macvlan.sh
# writes it: no DEVTYPE in its uevent, lower_VETH and the veth's upper_mv0,
# and the address's routes on mv0.  Needs root.
set -u
RDMACTL=${RDMACTL:-$(cd "$(dirname "$0")/../.." && pwd)/build/rdmactl}
. "$(dirname "$0")/lib.bash"
netns_pair macvlan 10.79.0.
VETH=v$$s

in1() { ip netns exec "$NS1" "$@"; }
# IPv6 off on both, so that no link-local address makes the veth look addressed.
in1 sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 \
	"net.ipv6.conf.$VETH.disable_ipv6=1" &&
	in1 ip link add link "$VETH" name mv0 type macvlan mode bridge &&
	in1 ip addr del 10.79.0.1/24 dev "$VETH" &&
	in1 ip addr add 10.79.0.1/24 dev mv0 &&
	in1 ip link set mv0 up || {
	echo "FAIL netns/macvlan/setup"
	exit 1
}

# doctor NAME ARGS...: rdmactl -j doctor in s, its JSON in $TMPD/NAME.json.
doctor() {
	local name=$1
	shift
	in1 env -u NCCL_IB_HCA -u UCX_NET_DEVICES timeout 60 "$RDMACTL" -j doctor "$@" \
		>"$TMPD/$name.json" 2>"$TMPD/$name.err"
}
# st NAME CHECK STATUS: the one document's CHECK has STATUS.
st() { json_one ".checks[] | select(.id == \"$2\") | .status == \"$3\"" <"$TMPD/$1.json"; }
says() { grep -qF -- "$4" <<<"$(jq -r ".checks[] | select(.id == \"$2\") | .$3 // \"\"" "$TMPD/$1.json")"; }

# ---- the address is found on mv0, and only there ----
NCCL_SOCKET_IFNAME==mv0 doctor on-mv0 --only env.nccl
check ifname-mv0-ok st on-mv0 env.nccl ok
check ifname-mv0-selects says on-mv0 env.nccl found "NCCL_SOCKET_IFNAME='=mv0' selects mv0"
NCCL_SOCKET_IFNAME="=$VETH" doctor on-veth --only env.nccl
check ifname-veth-fail st on-veth env.nccl fail
check ifname-veth-no-address says on-veth env.nccl found "$VETH has no IP address"

# ---- the route to c leaves by mv0 (no RDMA port here to carry it) ----
doctor peer --only peer --peer 10.79.0.2
check peer-route-mv0 says peer peer found "the route to 10.79.0.2 leaves through mv0, which carries no RDMA port"

# ---- a snapshot records mv0 as the kernel lays it out ----
SNAP=$TMPD/snap
mkdir -p "$SNAP"
if in1 "$RDMACTL" snapshot -o "$TMPD/snap.tar.gz" >/dev/null 2>"$TMPD/snap.err" &&
	tar xzf "$TMPD/snap.tar.gz" -C "$SNAP"; then
	check snap-class-link [ "$(readlink "$SNAP/sys/class/net/mv0")" = ../../devices/virtual/net/mv0 ]
	check snap-lower-link [ "$(readlink "$SNAP/sys/devices/virtual/net/mv0/lower_$VETH")" = "../$VETH" ]
	check snap-upper-link [ "$(readlink "$SNAP/sys/devices/virtual/net/$VETH/upper_mv0")" = ../mv0 ]
	check snap-no-devtype grep -qx 'INTERFACE=mv0' "$SNAP/sys/devices/virtual/net/mv0/uevent"
	check snap-uevent-lines [ "$(grep -vc '^IFINDEX=' "$SNAP/sys/devices/virtual/net/mv0/uevent")" = 1 ]
	check snap-route-on-mv0 grep -q '^10.79.0.0/24 dev mv0 proto kernel scope link src 10.79.0.1' \
		"$SNAP/run/rdmactl/net/ipv4-routes"
	check snap-route-none-on-veth bash -c "! grep -q ' dev $VETH ' '$SNAP/run/rdmactl/net/ipv4-routes'"
else
	ko snapshot "rdmactl snapshot in the namespace failed: $(head -3 "$TMPD/snap.err")"
fi
exit $((FAILED > 0))
