#!/bin/bash
# roce.route: rails sharing a subnet (tests/fixtures/shared-subnet.sh
# rewrites a copy of doctor-healthy so, wrong or right).  Wrong: the
# second rail's traffic leaves by the first (no rule from its address),
# strict rp_filter drops its replies, arp_ignore and arp_announce 0: FAIL,
# each rail named with what is wrong, and the fix the commands that make
# it right, in the order to run them, then how to keep them.  Right (the
# fix applied): ok.  Rails of their own subnets: ok.  A tree that did not
# record the routes: skipped, never ok; a recording that cannot be read:
# skipped with why.
. "$(dirname "$0")/lib.sh"


# tree NAME right|wrong: a shared-subnet copy of doctor-healthy.
tree() { healthy_as "$1" shared-subnet.sh "$2"; }

run --root "$FIXTURES/doctor-healthy" -j doctor --only roce.route
check own-subnets-ok st roce.route ok
check own-subnets-said found roce.route \
	'mlx5_0/1 192.168.88.1 on ens19f0np0: 192.168.88.0/24 is its own; mlx5_1/1 192.168.89.1 on ens19f1np1: 192.168.89.0/24 is its own'

tree wrong wrong
run --root "$TREE" -j doctor
check wrong-exit rc_is 1
check wrong-fails st roce.route fail
check wrong-second-rail-route found roce.route \
	'mlx5_1/1 192.168.88.2 on ens19f1np1 shares 192.168.88.0/24 with ens19f0np0: traffic from 192.168.88.2 to 192.168.88.3 leaves by ens19f0np0 \(192.168.88.0/24 dev ens19f0np0 proto kernel scope link src 192.168.88.1\), not ens19f1np1; rp_filter 1 \(strict\) on ens19f1np1 drops the replies that come back on it; arp_ignore 0'
check wrong-first-rail-by-order found roce.route \
	'mlx5_0/1 192.168.88.1 on ens19f0np0 shares 192.168.88.0/24 with ens19f1np1: traffic from 192.168.88.1 leaves by ens19f0np0 only while its route comes first in the main table'
check wrong-own-subnet-ok found roce.route 'mlx5_10/1 192.168.90.1 on ens20f0np0: 192.168.90.0/24 is its own'
check wrong-fix json_ok '.checks[] | select(.id == "roce.route") | .fix | startswith(
	"ip rule add from 192.168.88.1 table 102; ip route add 192.168.88.0/24 dev ens19f0np0 src 192.168.88.1 table 102; "
	+ "sysctl -w net.ipv4.conf.ens19f0np0.arp_ignore=1; sysctl -w net.ipv4.conf.ens19f0np0.arp_announce=2; "
	+ "ip rule add from 192.168.88.2 table 103; ip route add 192.168.88.0/24 dev ens19f1np1 src 192.168.88.2 table 103; "
	+ "sysctl -w net.ipv4.conf.ens19f1np1.rp_filter=2; sysctl -w net.ipv4.conf.ens19f1np1.arp_ignore=1; "
	+ "sysctl -w net.ipv4.conf.ens19f1np1.arp_announce=2; to keep it: printf '"'"'%s\\n'"'"' "
	+ "'"'"'net.ipv4.conf.ens19f0np0.arp_ignore = 1'"'"'")'
check wrong-fix-keeps json_ok '.checks[] | select(.id == "roce.route") | .fix |
	test(">>/etc/sysctl.d/90-rdma-rails.conf; and each rule and route in its netdev.s configuration \\(netplan")'

# The fix, as shell runs it: each command before "to keep it" is one ip or sysctl line.
FIX=$(jq -r '.checks[] | select(.id == "roce.route") | .fix' <<<"$OUT")
check fix-commands-runnable bash -c '
	[[ $1 == *"; to keep it:"* ]] || { echo "no fix with commands: $1"; exit 1; }
	IFS=";" read -ra cmds <<<"${1%%; to keep it:*}"
	for c in "${cmds[@]}"; do
		c=${c# }
		[[ $c =~ ^(ip\ rule\ add\ from\ [0-9.]+\ table\ [0-9]+|ip\ route\ add\ [0-9./]+\ dev\ [a-z0-9]+\ src\ [0-9.]+\ table\ [0-9]+|sysctl\ -w\ net\.ipv4\.conf\.[a-z0-9/]+\.(rp_filter=2|arp_ignore=1|arp_announce=2))$ ]] || { echo "not a command: $c"; exit 1; }
	done' _ "$FIX"

tree right right
run --root "$TREE" -j doctor --only roce.route
check right-ok st roce.route ok
check right-said found roce.route \
	'mlx5_1/1 192.168.88.2 on ens19f1np1 shares 192.168.88.0/24 with ens19f0np0, and its traffic leaves and is answered by it'

# A strict rp_filter where each rail's own rule holds: its replies come back by its own route.
printf '1\n' >"$TREE/proc/sys/net/ipv4/conf/ens19f1np1/rp_filter"
run --root "$TREE" -j doctor --only roce.route
check strict-with-rules-ok st roce.route ok

# The rule of a rail there, its table empty: only the route is missing, in that table.
tree norule right
sed -i '/table 103/d' "$TREE/run/rdmactl/net/ipv4-routes"
run --root "$TREE" -j doctor --only roce.route
check empty-table-fails st roce.route fail
check empty-table-fix json_ok '.checks[0].fix == "ip route add 192.168.88.0/24 dev ens19f1np1 src 192.168.88.2 table 103; and each rule and route in its netdev'"'"'s configuration (netplan: routing-policy from/table and routes to/table; ifupdown: the ip lines as post-up; NetworkManager: ipv4.routing-rules and ipv4.routes table=N)"'

# Tables named in rt_tables, as a recording made with ip names them: the same name, the same
# table; the fix names the table as the rule does.
tree named right
sed -i 's/lookup 102/lookup rail0/; s/lookup 103/lookup rail1/' "$TREE/run/rdmactl/net/ipv4-rules"
sed -i 's/table 102/table rail0/' "$TREE/run/rdmactl/net/ipv4-routes"
sed -i '/table 103/d' "$TREE/run/rdmactl/net/ipv4-routes"
run --root "$TREE" -j doctor --only roce.route
check named-table-fails json_ok '.checks[0].status == "fail" and
	(.checks[0].found | test("mlx5_0/1 192.168.88.1 on ens19f0np0 shares 192.168.88.0/24 with ens19f1np1, and its traffic leaves"))'
check named-table-fix json_ok '.checks[0].fix | startswith("ip route add 192.168.88.0/24 dev ens19f1np1 src 192.168.88.2 table rail1; ")'

# RoCE ports, none with an IPv4 GID: skipped, pointing at roce.ipv4.
TREE=$TMPD/noipv4
cp -a "$FIXTURES/doctor-healthy" "$TREE"
grep -rlZ ':ffff:' "$TREE"/sys/devices/*/*/infiniband/*/ports/1/gids |
	xargs -0 sed -i 's/.*/0000:0000:0000:0000:0000:0000:0000:0000/'
run --root "$TREE" -j doctor --only roce.route
check noipv4-skip json_ok '.checks[0].status == "skip" and .checks[0].found ==
	"no RoCE port has an IPv4 address (see roce.ipv4)"'

# Not recorded: skipped, with where it would be.
run --root "$FIXTURES/doctor-broken" -j doctor --only roce.route
check unrecorded-skip json_ok '.checks[0].status == "skip" and (.checks[0].found | test("not recorded in this snapshot"))'
# A recording that is not ip's: the file and its line named, as any file that cannot be read.
tree bad wrong
printf '32766 from all lookup main\n' >"$TREE/run/rdmactl/net/ipv4-rules"
run --root "$TREE" -j doctor --only roce.route
check bad-recording-fails json_ok '.checks[0].status == "fail" and (.checks[0].found | endswith(
	"run/rdmactl/net/ipv4-rules: not a line of ip'"'"'s: '"'"'32766 from all lookup main'"'"'"))'
check bad-recording-warns grep -q "warning: cannot read .*ipv4-rules: not a line of ip's" <<<"$ERR"

finish
