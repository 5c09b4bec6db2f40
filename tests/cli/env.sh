#!/bin/bash
# rdmactl env on recorded trees: the exact export lines for NCCL, UCX and
# Open MPI on two nodes whose GID tables are ordered differently, on two
# ports, on InfiniBand and on a DPU's Arm side; -d; -j; the refusals with
# the doctor's reason (no device, a port down, no RoCE v2 IPv4 GID, ports
# needing different GID indexes, names a TaskProlog or a shell would
# misread); bad usage; and contrib/slurm's TaskProlog around it.
. "$(dirname "$0")/lib.sh"

NOTES=$FIXTURES/mlx5-6gids	# RoCE v2 IPv4 at GID index 5
ORDER=$FIXTURES/gid-order	# the same port with IPv6 added first: index 7
TASKPROLOG=$TOP/contrib/slurm/rdmactl-taskprolog

# with_ucx FIXTURE [VERSION]: a copy of FIXTURE where dpkg has libucx0
# installed (1.16.0 unless VERSION); its path.  UCX's variables, and Open
# MPI's pml=ucx, are printed only where UCX is.
with_ucx() {
	local dst
	dst=$TMPD/ucx-$(basename "$1")-${2:-1.16.0}
	if [ ! -d "$dst" ]; then
		cp -a "$1" "$dst"
		mkdir -p "$dst/var/lib/dpkg"
		printf 'Package: libucx0\nStatus: install ok installed\nVersion: %s-1\n\n' \
			"${2:-1.16.0}" >>"$dst/var/lib/dpkg/status"
	fi
	echo "$dst"
}

# exports_are NAME EXPECTED ARGS...: exit 0, exactly EXPECTED on stdout, nothing on stderr.
exports_are() {
	local name=$1 expected=$2
	shift 2
	run "$@"
	check "$name-rc" rc_is 0
	check "$name-lines" [ "$OUT" == "$expected" ]
	check "$name-no-stderr" [ -z "$ERR" ]
}

# refused NAME LINE ARGS...: exit 1, nothing on stdout, exactly LINE on stderr (and -j's error).
refused() {
	local name=$1 line=$2
	shift 2
	run "$@"
	check "$name-stdout-empty" out_empty
	fails_with "$name" 1 "$line" "$@"
}

# taskprolog ROOT [VAR=VALUE...]: run it as slurmstepd would, with no PATH of its own.
# shellcheck disable=SC2034 # lib.sh's rc_is reads RC
taskprolog() {
	local root=$1
	shift
	RC=0
	OUT=$(env -i RDMACTL_BIN="$RDMACTL" RDMACTL_ROOT="$root" "$@" /bin/sh "$TASKPROLOG" 2>"$TMPD/err") || RC=$?
	ERR=$(cat "$TMPD/err")
}

# --- the same port on two nodes: index 5 on one, 7 on the other ---
exports_are notes-nccl 'export NCCL_IB_HCA==mlx5_0:1
export NCCL_IB_GID_INDEX=5
export NCCL_SOCKET_IFNAME==ens19f0np0' --root "$NOTES" env --for nccl
exports_are order-nccl 'export NCCL_IB_HCA==mlx5_0:1
export NCCL_IB_GID_INDEX=7
export NCCL_SOCKET_IFNAME==ens19f0np0' --root "$ORDER" env --for nccl
exports_are notes-ucx 'export UCX_NET_DEVICES=mlx5_0:1
export UCX_IB_GID_INDEX=5' --root "$(with_ucx "$NOTES")" env --for ucx
exports_are order-ucx 'export UCX_NET_DEVICES=mlx5_0:1
export UCX_IB_GID_INDEX=7' --root "$(with_ucx "$ORDER")" env --for ucx
exports_are order-mpi 'export UCX_NET_DEVICES=mlx5_0:1
export UCX_IB_GID_INDEX=7
export OMPI_MCA_pml=ucx
export OMPI_MCA_oob_tcp_if_include=ens19f0np0
export OMPI_MCA_btl_tcp_if_include=ens19f0np0' --root "$(with_ucx "$ORDER")" env --for mpi
# No UCX here: no UCX variable, and no pml=ucx that would stop Open MPI.
exports_are order-mpi-no-ucx 'export OMPI_MCA_oob_tcp_if_include=ens19f0np0
export OMPI_MCA_btl_tcp_if_include=ens19f0np0' --root "$ORDER" env --for mpi
# Nothing to print: exit 0, and one line on stderr says why (not only under -v).
run --root "$ORDER" env --for ucx
check order-ucx-no-ucx-rc rc_is 0
check order-ucx-no-ucx-nothing out_empty
check order-ucx-no-ucx-says-why err_is "rdmactl env: no variable printed: UCX is not installed here (no libucp.so.0, no libucx0 package): no UCX variable and no OMPI_MCA_pml=ucx"
for fx in sriov-cx6dx bluefield2-arm; do
	run --root "$FIXTURES/$fx" env --for mpi
	check "$fx-mpi-no-pml" bash -c '! grep -q "OMPI_MCA_pml\|UCX_" <<<"$0"' "$OUT"
	run --root "$FIXTURES/$fx" doctor --only ucx.ud_dgid
	check "$fx-doctor-says-no-ucx" out_has 'UCX is not installed'
done
run -v --root "$ORDER" env --for mpi
check no-ucx-said err_has '^rdmactl env: UCX is not installed here \(no libucp.so.0, no libucx0 package\): no UCX variable and no OMPI_MCA_pml=ucx$'

# The index is the one gids --recommend and the doctor's roce.gid name.
run --root "$ORDER" gids --recommend
check order-same-as-gids out_has '^UCX_IB_GID_INDEX=7$'
run --root "$ORDER" doctor --only roce.gid
check order-same-as-doctor out_has 'mlx5_0/1: use GID index 7 '

# --- two ports, one index ---
exports_are dual-nccl 'export NCCL_IB_HCA==mlx5_0:1,mlx5_1:1
export NCCL_IB_GID_INDEX=3
export NCCL_SOCKET_IFNAME==ens19f0np0,ens19f1np1' --root "$FIXTURES/dual-port" env --for nccl
exports_are dual-one-port 'export UCX_NET_DEVICES=mlx5_1:1
export UCX_IB_GID_INDEX=3' --root "$(with_ucx "$FIXTURES/dual-port")" env --for ucx -d mlx5_1/1

# --- InfiniBand: the port GID, no netdev to name for sockets ---
exports_are ib-nccl 'export NCCL_IB_HCA==mlx5_0:1
export NCCL_IB_GID_INDEX=0' --root "$FIXTURES/ib-hca" env --for nccl
exports_are ib-mpi 'export UCX_NET_DEVICES=mlx5_0:1
export UCX_IB_GID_INDEX=0
export OMPI_MCA_pml=ucx' --root "$(with_ucx "$FIXTURES/ib-hca")" env --for mpi

# --- ports that need different indexes (5, 3, 3) ---
HEALTHY=$FIXTURES/doctor-healthy
# NCCL 2.21.5 is installed: it finds each port's entry itself, so no index.
exports_are healthy-nccl-finds-each 'export NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_10:1
export NCCL_SOCKET_IFNAME==ens19f0np0,ens19f1np1,ens20f0np0' --root "$HEALTHY" env --for nccl
run -v --root "$HEALTHY" env --for nccl
check healthy-nccl-says-why err_has "^rdmactl env: mlx5_0/1 and mlx5_1/1 need GID indexes 5 and 3: no NCCL_IB_GID_INDEX, NCCL 2.21.5 finds each port's entry itself$"
run --root "$HEALTHY" doctor --for nccl
check healthy-doctor-passes rc_is 0
check healthy-doctor-same-words out_has "need GID indexes 5 and 3: no NCCL_IB_GID_INDEX, NCCL 2.21.5 finds each port's entry itself"
# UCX 1.16 picks each port's RoCE v2 IPv4 entry itself (UCX_IB_GID_INDEX=auto).
exports_are healthy-ucx-finds-each 'export UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1,mlx5_10:1
export OMPI_MCA_pml=ucx
export OMPI_MCA_oob_tcp_if_include=ens19f0np0,ens19f1np1,ens20f0np0
export OMPI_MCA_btl_tcp_if_include=ens19f0np0,ens19f1np1,ens20f0np0' --root "$(with_ucx "$HEALTHY")" env --for mpi
# gids --recommend says the ports differ and prints env's lines.
run --root "$HEALTHY" gids --recommend
check healthy-gids-says-differ out_has '^The ports need different GID indexes: no one NCCL_IB_GID_INDEX or UCX_IB_GID_INDEX is right for all of them'
check healthy-gids-env-lines [ "$(sed -n '/^rdmactl env --for nccl:/,/^rdmactl env --for ucx:/{s/^  export /export /p}' <<<"$OUT")" == "$("$RDMACTL" --root "$HEALTHY" env --for nccl)" ]
run -j --root "$HEALTHY" gids --recommend
check healthy-gids-json json_ok '.env.nccl == {"NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1,mlx5_10:1", "NCCL_SOCKET_IFNAME": "=ens19f0np0,ens19f1np1,ens20f0np0"}'
run --root "$NOTES" gids --recommend
check one-port-gids-no-differ bash -c '! grep -q "different GID indexes" <<<"$0"' "$OUT"

# Where no value is right for the installed library: refused, and the doctor fails the node alike.
old_nccl() {
	rm -rf "$TMPD/old"
	cp -a "$HEALTHY" "$TMPD/old"
	mv "$TMPD/old/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5" "$TMPD/old/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3"
}
old_nccl
OLD_WHY="mlx5_0/1 and mlx5_1/1 need GID indexes 5 and 3, and NCCL 2.18.3 (/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3), older than 2.21, takes one NCCL_IB_GID_INDEX for every device"
OLD_FIX="install NCCL 2.21 or later (it finds each port's entry), or give each job ports that agree: RDMACTL_ENV_DEVICES=mlx5_0/1 for the TaskProlog (rdmactl env -d mlx5_0/1)"
refused old-nccl-two-indexes "rdmactl env: Failed to find a GID index for the job's ports: $OLD_WHY (doctor check roce.gid). Fix: $OLD_FIX" \
	--root "$TMPD/old" env --for nccl
run -j --root "$TMPD/old" doctor --for nccl --only roce.gid
check old-nccl-doctor-fails json_ok "(.checks[0].status | ascii_downcase) == \"fail\" and (.checks[0].found | contains(\"$OLD_WHY\")) and .checks[0].fix == \"$OLD_FIX\""
exports_are old-nccl-one-rail 'export NCCL_IB_HCA==mlx5_0:1
export NCCL_IB_GID_INDEX=5
export NCCL_SOCKET_IFNAME==ens19f0np0' --root "$TMPD/old" env --for nccl -d mlx5_0/1
UCX_OLD_WHY="mlx5_0/1 and mlx5_1/1 need GID indexes 5 and 3, and UCX 1.6.0 (dpkg: libucx0 1.6.0-1), older than 1.7, does not pick each port's RoCE v2 entry itself: UCX_IB_GID_INDEX holds one index for every device"
run --root "$(with_ucx "$HEALTHY" 1.6.0)" env --for mpi
check old-ucx-refused-rc rc_is 1
check old-ucx-refused [ "${ERR#*"$UCX_OLD_WHY"}" != "$ERR" ]
run -j --root "$(with_ucx "$HEALTHY" 1.6.0)" doctor --for mpi --only roce.gid
check old-ucx-doctor-fails json_ok '(.checks[0].status | ascii_downcase) == "fail" and (.checks[0].found | contains("older than 1.7"))'
# '=': mlx5_1 names mlx5_1 alone, not mlx5_10 too.
exports_are healthy-exact 'export NCCL_IB_HCA==mlx5_1:1
export NCCL_IB_GID_INDEX=3
export NCCL_SOCKET_IFNAME==ens19f1np1' --root "$HEALTHY" env --for nccl -d mlx5_1
exports_are healthy-two-picks 'export NCCL_IB_HCA==mlx5_1:1,mlx5_10:1
export NCCL_IB_GID_INDEX=3
export NCCL_SOCKET_IFNAME==ens19f1np1,ens20f0np0' --root "$HEALTHY" env --for nccl -d mlx5_10/1 -d mlx5_1 -d mlx5_1/1

# --- a DPU's Arm side: the representors are left out, the SF's device used ---
BF=$(with_ucx "$FIXTURES/bluefield2-arm")
exports_are bf-ucx 'export UCX_NET_DEVICES=mlx5_2:1
export UCX_IB_GID_INDEX=3' --root "$BF" env --for ucx
refused bf-representor "rdmactl env: Failed to use the port asked for: mlx5_0/1 is the representor pf0hpf (host PF 0): a port of the eswitch, not one of this node's own (doctor check ports)" \
	--root "$BF" env --for ucx -d mlx5_0/1
run -j --root "$BF" env --for ucx
check bf-json json_ok '.for == "ucx" and .variables == {"UCX_NET_DEVICES": "mlx5_2:1", "UCX_IB_GID_INDEX": "3"} and
	(.ports | length) == 1 and .ports[0].dev == "mlx5_2" and .ports[0].gid_index == 3 and
	.ports[0].netdev == "enp3s0f0s4" and .ports[0].ipv4 == "192.168.101.1" and
	([.left_out[] | "\(.dev)/\(.port)"] == ["mlx5_0/1","mlx5_0/2","mlx5_0/3","mlx5_0/4","mlx5_0/5","mlx5_1/1","mlx5_1/2"])'
run -v --root "$BF" env --for ucx
check bf-verbose-stdout-only-exports [ "$(grep -cv '^export ' <<<"$OUT")" -eq 0 ]
check bf-verbose-says-left-out err_has '^rdmactl env: left out: mlx5_0/5 is the representor p0 \(uplink port 0\)'

# -j: the variables are the text lines, one for one, in order (jq 1.6
# itself: gojq sorts an object's keys).
run -j --root "$ORDER" env --for mpi
JSON=$OUT
run --root "$ORDER" env --for mpi
check json-matches-text [ "$(command jq -r '.variables | to_entries[] | "export \(.key)=\(.value)"' <<<"$JSON")" == "$OUT" ]

# --- where no value is right: nothing on stdout, the doctor's reason ---
refused nodev "rdmactl env: Failed to find the job's RDMA ports: no RDMA device: no kernel RDMA driver is loaded (no ib_core) (doctor check devices). Fix: modprobe mlx5_ib (NVIDIA/Mellanox NICs), or for Soft-RoCE: modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0" \
	--root "$FIXTURES/doctor-nodev" env --for nccl
refused port-down "rdmactl env: Failed to find an active RDMA port: rxe0/1 is DOWN (Disabled); its netdev eth0 is down (doctor check ports). Fix: ip link set eth0 up" \
	--root "$FIXTURES/doctor-broken" env --for ucx
refused port-down-asked "rdmactl env: Failed to use the port asked for: rxe0/1 is DOWN (Disabled); its netdev eth0 is down (doctor check ports). Fix: ip link set eth0 up" \
	--root "$FIXTURES/doctor-broken" env --for ucx -d rxe0/1
refused gid-types-unknown "rdmactl env: Failed to find a GID index for mlx5_2/1: the kernel did not say whether the 2 GID(s) with an IPv4 address are RoCE v2 (reading gid_attrs failed, as in a container) (doctor check roce.gid). Fix: run 'rdmactl gids --recommend' on the host" \
	--root "$FIXTURES/container-gid-einval" env --for mpi

# A copy of the reordered node to break: TREE, and its port's directory.
copy_order() {
	rm -rf "$TMPD/tree"
	cp -a "$ORDER" "$TMPD/tree"
	PORT=$TMPD/tree/sys/class/infiniband/mlx5_0/ports/1
}
ZERO=0000:0000:0000:0000:0000:0000:0000:0000

# Only the link-local entries left: the netdev lost its addresses.
copy_order
for i in 2 3 4 5 6 7; do echo "$ZERO" >"$PORT/gids/$i"; done
refused link-local-only "rdmactl env: Failed to find a GID index for mlx5_0/1: only link-local GIDs: netdev ens19f0np0 has no IPv4 address (doctor check roce.gid). Fix: ip addr add ADDR/PREFIX dev ens19f0np0" \
	--root "$TMPD/tree" env --for nccl

# The IPv4 address only as RoCE v1 (v2 disabled in the firmware).
copy_order
echo "IB/RoCE v1" >"$PORT/gid_attrs/types/7"
refused roce-v1-only "rdmactl env: Failed to find a GID index for mlx5_0/1: the 2 GID(s) with an IPv4 address are RoCE v1 only (doctor check roce.gid). Fix: enable RoCE v2 in the device's firmware or driver" \
	--root "$TMPD/tree" env --for ucx

# A GID entry that cannot be read below the one chosen: it may be the one, so none, said as such.
copy_order
echo junk >"$PORT/gids/3"
run --root "$TMPD/tree" env --for nccl
check unreadable-below-rc rc_is 1
check unreadable-below-stdout-empty out_empty
check unreadable-below-said err_has "^rdmactl env: Failed to find a GID index for mlx5_0/1: cannot read gids/3: not a GID: 'junk', so the GID to use is not known \(doctor check roce.gid\). Fix: make the port's gids and gid_attrs readable to this user, or run 'rdmactl gids --recommend' as root$"
check unreadable-below-warned err_has "^rdmactl env: warning: cannot read .*/gids/3: not a GID: 'junk'$"
# Above it: no value depends on it.
copy_order
echo junk >"$PORT/gids/9" 2>/dev/null || echo junk >"$PORT/gids/8"
run --root "$TMPD/tree" env --for nccl
check unreadable-above-rc rc_is 0
check unreadable-above-index out_has '^export NCCL_IB_GID_INDEX=7$'

# --- as an ordinary user (the TaskProlog runs as the job's): unreadable is not wrong ---
if [ "$(id -u)" = 0 ]; then
	# A tree and a binary the user can reach, wherever the checkout is.
	UDIR=$(mktemp -d /tmp/rdmactl-env-user.XXXXXX)
	chmod 755 "$UDIR"
	cp "$RDMACTL" "$UDIR/rdmactl"
	as_user() {
		RC=0
		OUT=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$UDIR/rdmactl" "$@" 2>"$TMPD/err") || RC=$?
		ERR=$(cat "$TMPD/err")
	}
	user_tree() {
		rm -rf "$UDIR/tree"
		cp -a "$ORDER" "$UDIR/tree"
		chmod -R a+rX "$UDIR/tree"
		UPORT=$UDIR/tree/sys/class/infiniband/mlx5_0/ports/1
	}
	# Files no value depends on: warned, the lines printed, exit 0.
	user_tree
	chmod 000 "$UDIR/tree/sys/class/infiniband/mlx5_0/fw_ver" "$UDIR/tree/sys/class/infiniband/mlx5_0/node_guid"
	as_user --root "$UDIR/tree" env --for nccl
	check user-unrelated-rc rc_is 0
	check user-unrelated-lines [ "$OUT" == "$("$RDMACTL" --root "$ORDER" env --for nccl)" ]
	# The netdev of an entry below the chosen one: said as unreadable, not as RoCE v1.
	user_tree
	chmod 000 "$UPORT/gid_attrs/ndevs/5"
	as_user --root "$UDIR/tree" env --for nccl
	check user-ndevs-rc rc_is 1
	check user-ndevs-said err_has "^rdmactl env: Failed to find a GID index for mlx5_0/1: cannot read gid_attrs/ndevs/5: Permission denied, so the GID to use is not known \(doctor check roce.gid\)"
	check user-ndevs-not-v1 bash -c '! grep -q "RoCE v1" <<<"$0"' "$ERR"
	as_user --root "$UDIR/tree" doctor --only roce.gid
	check user-ndevs-doctor-same out_has 'cannot read gid_attrs/ndevs/5: Permission denied'
	# Above the chosen one: nothing depends on it.
	user_tree
	chmod 000 "$UPORT/gid_attrs/types/"*
	chmod 444 "$UPORT/gid_attrs/types/"[0-7]
	as_user --root "$UDIR/tree" env --for nccl
	check user-types-rc rc_is 0
	rm -rf "$UDIR"
else
	skip user-unreadable "needs root to run as another user"
fi

# A GID whose netdev is not in /sys/class/net (a container): never exported.
copy_order
for i in 0 1 2 3 4 5 6 7; do echo ghost0 >"$PORT/gid_attrs/ndevs/$i"; done
rm -rf "$TMPD/tree/sys/class/net/ens19f0np0"
run --root "$TMPD/tree" -v env --for nccl
check ghost-rc rc_is 0
check ghost-not-exported bash -c '! grep -q ghost0 <<<"$0"' "$OUT"
check ghost-said err_has 'its netdev ghost0 is not in /sys/class/net here'

# --- names: quoted where a shell would expand them, refused (as the doctor's ports check fails them) where no line or list carries them ---
# netdev_name NAME: the port's netdev (gid_attrs/ndevs) named NAME.
netdev_name() {
	copy_order
	for i in 0 1 2 3 4 5 6 7; do printf '%s\n' "$1" >"$PORT/gid_attrs/ndevs/$i"; done
	mkdir -p "$TMPD/tree/sys/class/net/$1"
}
NETDEV_FIX="Fix: ip link set dev IF name NEWNAME, or choose other ports with RDMACTL_ENV_DEVICES (rdmactl env -d)"
# quoted NAME VAR VALUE: env --for nccl exits 0, a shell's eval of its lines
# gives VAR exactly VALUE (nothing runs), the TaskProlog hands Slurm VALUE
# as it is, and the doctor passes the node.
quoted() {
	local name=$1 var=$2 value=$3
	run --root "$TMPD/tree" env --for nccl
	check "$name-rc" rc_is 0
	# shellcheck disable=SC2016 # the script is the inner shell's
	check "$name-eval" [ "$(cd "$TMPD" && env -i sh -c 'eval "$1"; eval "printf %s \"\$$2\""' sh "$OUT" "$var")" == "$value" ]
	check "$name-nothing-ran" [ ! -e "$TMPD/P" ]
	taskprolog "$TMPD/tree" RDMACTL_ENV_FOR=nccl
	check "$name-taskprolog-rc" rc_is 0
	check "$name-taskprolog-verbatim" [ "$(grep "^export $var=" <<<"$OUT")" == "export $var=$value" ]
	run --root "$TMPD/tree" doctor --for nccl --only ports,env.nccl
	check "$name-doctor-passes" rc_is 0
}
# (A netdev name has at most 15 characters and no blank: ${IFS} stands for one.)
# shellcheck disable=SC2016 # the name holds the '$(' itself
netdev_name '$(touch${IFS}P)'
quoted netdev-dollar NCCL_SOCKET_IFNAME '=$(touch${IFS}P)'
# shellcheck disable=SC2016
check netdev-dollar-single-quoted bash -c 'grep -qxF "$1" <<<"$0"' "$("$RDMACTL" --root "$TMPD/tree" env --for nccl)" "export NCCL_SOCKET_IFNAME='=\$(touch\${IFS}P)'"
netdev_name "ens1'x"
quoted netdev-quote NCCL_SOCKET_IFNAME "=ens1'x"
# A name legal in Linux (dev_valid_name() refuses only '/', ':' and blanks), as an operator names a rail.
netdev_name 'rail#2'
quoted netdev-hash NCCL_SOCKET_IFNAME '=rail#2'
# What no list or line carries: refused, and the doctor's ports check fails the port for it.
# refused_name NAME KIND VALUE WHY FIX --for F: env refuses with WHY, the doctor's ports check fails with it.
refused_name() {
	local name=$1 kind=$2 value=$3 why=$4 fix=$5 f=$6
	refused "$name" "rdmactl env: Failed to export $kind '$value': $why (doctor check ports). $fix" \
		--root "$TMPD/tree" env --for "$f"
	run --root "$TMPD/tree" doctor --only ports
	check "$name-doctor-fails" rc_is 1
	check "$name-doctor-same-reason" out_has "^FAIL +ports .*: $(sed 's/[][\.*^$()]/\\&/g' <<<"$why")"
}
netdev_name 'eth0,eth1'
refused_name netdev-comma netdev 'eth0,eth1' "NCCL, UCX and Open MPI split their lists at ','" "$NETDEV_FIX" mpi
netdev_name $'ens\e]0;x\a1'
refused_name netdev-escape netdev 'ens\x1b]0;x\x071' "a control character or a blank ends or splits the TaskProlog's 'export NAME=value' line" "$NETDEV_FIX" ucx
check netdev-escape-no-raw-esc [ "$(tr -d -c '\033\007' <<<"$ERR" | wc -c)" -eq 0 ]

# A device renamed (rdma dev set mlx5_0 name ...) to something a shell expands: quoted.
copy_order
# shellcheck disable=SC2016
mv "$TMPD/tree/sys/class/infiniband/mlx5_0" "$TMPD/tree/sys/class/infiniband/mlx5_"'`touch${IFS}P`'
# shellcheck disable=SC2016
quoted dev-backquote NCCL_IB_HCA '=mlx5_`touch${IFS}P`:1'
copy_order
mv "$TMPD/tree/sys/class/infiniband/mlx5_0" "$TMPD/tree/sys/class/infiniband/mlx5"$'\e[2J'
refused_name dev-escape "RDMA device" 'mlx5\x1b[2J' "a control character or a blank ends or splits the TaskProlog's 'export NAME=value' line" "Fix: rdma dev set DEV name NEWNAME, or choose other ports with RDMACTL_ENV_DEVICES (rdmactl env -d)" ucx
copy_order
mv "$TMPD/tree/sys/class/infiniband/mlx5_0" "$TMPD/tree/sys/class/infiniband/mlx5:0"
refused_name dev-colon "RDMA device" 'mlx5:0' "NCCL and UCX read what follows ':' as the port" "Fix: rdma dev set DEV name NEWNAME, or choose other ports with RDMACTL_ENV_DEVICES (rdmactl env -d)" nccl

# --- what the lines are: a shell and Slurm read them the same ---
for f in nccl ucx mpi; do
	run --root "$(with_ucx "$FIXTURES/dual-port")" env --for "$f"
	check "plain-lines-$f" [ "$(grep -cvE '^export [A-Za-z_]+=[=A-Za-z0-9_.:,-]+$' <<<"$OUT")" -eq 0 ]
done
# shellcheck disable=SC2016
check sourced-by-sh [ "$(env -i sh -c 'eval "$1"; printf "%s|%s|%s" "$NCCL_IB_HCA" "$NCCL_IB_GID_INDEX" "$NCCL_SOCKET_IFNAME"' sh \
	"$("$RDMACTL" --root "$FIXTURES/dual-port" env --for nccl)")" == "=mlx5_0:1,mlx5_1:1|3|=ens19f0np0,ens19f1np1" ]

# --- what it prints, the doctor passes: env.nccl and env.ucx judge the values ok ---
# (the DPU's Arm side once failed: env.ucx judged UCX_IB_GID_INDEX on every
# active port, also those UCX_NET_DEVICES leaves out.)
for fx in mlx5-6gids gid-order dual-port bluefield2-arm ib-hca sriov-cx6dx; do
	for f in nccl ucx; do
		root=$(with_ucx "$FIXTURES/$fx")
		vars=$("$RDMACTL" --root "$root" env --for "$f" | sed 's/^export //')
		# shellcheck disable=SC2086 # the values are plain words: that is the point
		status=$(env $vars "$RDMACTL" --root "$root" -j doctor --for "$f" --only "env.$f" |
			jq -r '.checks[0].status')
		RC=0 OUT=$vars ERR=$status
		check "doctor-passes-$fx-$f-printed" [ -n "$vars" ]
		check "doctor-passes-$fx-$f" [ "$status" = ok ]
	done
done

# --- the job's own choices: what rdmactl does not model it leaves alone ---
UCXH=$(with_ucx "$HEALTHY")
# in_env VAR=VALUE... -- ARGS...: rdmactl ARGS with those variables set; OUT, ERR, RC.
# shellcheck disable=SC2034 # lib.sh's rc_is reads RC
in_env() {
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	RC=0
	OUT=$(env "${vars[@]}" "$RDMACTL" "$@" 2>"$TMPD/err" </dev/null) || RC=$?
	ERR=$(cat "$TMPD/err")
}
# A job that chose UCX's TCP transport by a netdev in UCX_NET_DEVICES (UCX
# names an RDMA port DEV:PORT): no UCX value replaces it, the task starts.
in_env UCX_NET_DEVICES=ens19f0np0 -- --root "$UCXH" env --for mpi
check ucx-netdev-rc rc_is 0
check ucx-netdev-no-ucx-value bash -c '! grep -q "^export UCX_" <<<"$0"' "$OUT"
check ucx-netdev-pml out_has '^export OMPI_MCA_pml=ucx$'
in_env UCX_NET_DEVICES=ens19f0np0 -- --root "$UCXH" env --for ucx
check ucx-netdev-ucx-nothing out_empty
check ucx-netdev-ucx-says-why err_is "rdmactl env: no variable printed: the job's UCX_NET_DEVICES='ens19f0np0' names interfaces and no RDMA port (DEV:PORT): UCX runs its TCP transport alone, and no UCX variable is added"
taskprolog "$UCXH" UCX_NET_DEVICES=ens19f0np0
check ucx-netdev-taskprolog-starts rc_is 0
in_env UCX_NET_DEVICES=ens19f0np0 -- --root "$UCXH" -j doctor --for mpi --only env.ucx
check ucx-netdev-doctor-says-tcp json_ok '.checks[0].status == "warn" and (.checks[0].found | contains("UCX runs its TCP transport alone")) and .checks[0].fix == "add mlx5_0:1 to UCX_NET_DEVICES for RDMA (or leave it for TCP)"'
# UCX_TLS without an RDMA transport (aliases and '^' as UCX reads them): no RDMA devices for its TCP.
for tls in tcp,self,sm tcp '^ib' 'sm,self' '\tcp,self'; do
	in_env "UCX_TLS=$tls" -- --root "$UCXH" env --for mpi
	check "ucx-tls-$tls-rc" rc_is 0
	check "ucx-tls-$tls-no-devices" bash -c '! grep -q "^export UCX_" <<<"$0"' "$OUT"
done
in_env UCX_TLS=tcp,self,sm -- --root "$UCXH" env --for ucx
check ucx-tls-tcp-says-why err_is "rdmactl env: no variable printed: the job's UCX_TLS='tcp,self,sm' enables no RDMA transport (rc, ud, dc): UCX runs over TCP, and its devices and GID index are left to the job"
# RDMA and TCP named: TCP keeps the ports' netdevs.
in_env UCX_TLS=rc,tcp -- --root "$UCXH" env --for ucx
check ucx-tls-rc-tcp out_has '^export UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1,mlx5_10:1,ens19f0np0,ens19f1np1,ens20f0np0$'
# RDMA alone, or all but TCP: the RDMA ports, as before.
for tls in rc_x,self ud '^tcp' dc_mlx5; do
	in_env "UCX_TLS=$tls" -- --root "$UCXH" env --for ucx
	check "ucx-tls-$tls-rdma" out_has '^export UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1,mlx5_10:1$'
done
# UCX before 1.19 on rxe: its UD is not used over TCP, so no DGID variable, and the doctor agrees.
in_env UCX_TLS=tcp -- --root "$FIXTURES/ucx-rxe" env --for ucx
check ucx-rxe-tcp-nothing out_empty
in_env UCX_TLS=tcp -- --root "$FIXTURES/ucx-rxe" doctor --for ucx --only ucx.ud_dgid
check ucx-rxe-tcp-doctor-passes rc_is 0

# Open MPI: an exclude list gets no include list beside it (Open MPI
# refuses both: oob tcp unavailable, mpirun cannot start).
in_env OMPI_MCA_oob_tcp_if_exclude=lo,docker0 -- --root "$UCXH" env --for mpi
check ompi-oob-exclude-no-include bash -c '! grep -q "^export OMPI_MCA_oob_tcp_if_include=" <<<"$0"' "$OUT"
check ompi-oob-exclude-btl-include out_has '^export OMPI_MCA_btl_tcp_if_include=ens19f0np0,ens19f1np1,ens20f0np0$'
in_env OMPI_MCA_btl_tcp_if_exclude=lo -- --root "$UCXH" env --for mpi
check ompi-btl-exclude-no-include bash -c '! grep -q "^export OMPI_MCA_btl_tcp_if_include=" <<<"$0"' "$OUT"
check ompi-btl-exclude-oob-include out_has '^export OMPI_MCA_oob_tcp_if_include=ens19f0np0,ens19f1np1,ens20f0np0$'
# A BTL list the job chose (tcp) gets no pml=ucx, which would leave it unused; a negated one does.
in_env OMPI_MCA_btl=tcp,self,vader -- -v --root "$UCXH" env --for mpi
check ompi-btl-tcp-no-pml bash -c '! grep -q "^export OMPI_MCA_pml=" <<<"$0"' "$OUT"
check ompi-btl-tcp-says-why err_has "^rdmactl env: no OMPI_MCA_pml=ucx: the job's OMPI_MCA_btl='tcp,self,vader' chooses Open MPI's BTLs"
in_env 'OMPI_MCA_btl=^openib' -- --root "$UCXH" env --for mpi
check ompi-btl-negated-pml out_has '^export OMPI_MCA_pml=ucx$'

# --- more than 32 active ports (17 devices of two): env lists them all, NCCL the 32 it opens ---
MANY=$TMPD/many
cp -a "$HEALTHY" "$MANY"
rm -f "$MANY"/sys/class/infiniband/* "$MANY"/sys/class/net/*
bash "$FIXTURES/many-gids.sh" "$MANY" 17 2 8
for ((d = 0; d < 17; d++)); do
	for p in 0 1; do
		mkdir -p "$MANY/sys/class/net/ens$((d + 1))f${p}np$p"
		echo up >"$MANY/sys/class/net/ens$((d + 1))f${p}np$p/operstate"
	done
done
MANY=$(with_ucx "$MANY")
run --root "$MANY" env --for ucx
check many-ucx-rc rc_is 0
check many-ucx-all-ports [ "$(sed -n 's/^export UCX_NET_DEVICES=//p' <<<"$OUT" | tr ',' '\n' | wc -l)" -eq 34 ]
run -v --root "$MANY" env --for nccl
check many-nccl-rc rc_is 0
check many-nccl-32 [ "$(sed -n 's/^export NCCL_IB_HCA==//p' <<<"$OUT" | tr ',' '\n' | wc -l)" -eq 32 ]
check many-nccl-says-why err_has '^rdmactl env: left out: mlx5_16/2: NCCL opens at most 32 ports \(MAX_IB_DEVS\)$'
run --root "$MANY" doctor --for mpi
check many-doctor-passes rc_is 0

# --- the TaskProlog's words: blanks and empty items accepted, never globbed ---
nv=0
for v in ' none' 'none,' ' none , '; do
	nv=$((nv + 1))
	taskprolog "$FIXTURES/doctor-nodev" RDMACTL_ENV_FOR="$v"
	check "taskprolog-none-$nv-rc" rc_is 0
	check "taskprolog-none-$nv-empty" out_empty
done
taskprolog "$ORDER" RDMACTL_ENV_FOR=' nccl, '
check taskprolog-blank-nccl [ "$OUT" == "$("$RDMACTL" --root "$ORDER" env --for nccl)" ]
taskprolog "$ORDER" RDMACTL_ENV_FOR='none nccl'
check taskprolog-none-mixed-rc rc_is 1
check taskprolog-none-mixed-said out_has "^print rdmactl-taskprolog: RDMACTL_ENV_FOR='none nccl': none stands alone"
# '*' is a device name to check, not the files of the task's directory.
mkdir -p "$TMPD/taskdir" && touch "$TMPD/taskdir/mlx5_1"
OUT=$(cd "$TMPD/taskdir" && env -i RDMACTL_BIN="$RDMACTL" RDMACTL_ROOT="$UCXH" RDMACTL_ENV_FOR=ucx RDMACTL_ENV_DEVICES='*' /bin/sh "$TASKPROLOG") && RC=0 || RC=$?
check taskprolog-star-not-globbed rc_is 1
check taskprolog-star-named out_has "^print rdmactl-taskprolog: rdmactl env: Unknown device '\*'"
# A fix names a port that exists: =mlx5_1:2 on a one-port mlx5_1 is mlx5_1:1.
in_env NCCL_IB_HCA='=mlx5_1:2' -- --root "$HEALTHY" env --for nccl
check hca-no-port-fix err_has "mlx5_1 has no port 2.*Fix: export NCCL_IB_HCA==mlx5_1:1$"

# --- bad usage: one line, exit 2 ---
fails_with for-unknown 2 "rdmactl env: invalid --for value 'tcp': use nccl, ucx or mpi" --root "$NOTES" env --for tcp
fails_with for-escape 2 "rdmactl env: invalid --for value 'nccl\\x1b[31m': use nccl, ucx or mpi" --root "$NOTES" env --for $'nccl\e[31m'
fails_with for-missing 2 "rdmactl env: Failed to choose the variables: --for is missing; give --for nccl, ucx or mpi" --root "$NOTES" env
fails_with dev-unknown 2 "rdmactl env: Unknown device 'mlx_1'. Devices: mlx5_0" --root "$NOTES" env --for ucx -d mlx_1
fails_with port-unknown 2 "rdmactl env: Unknown port 'mlx5_0/2'. Ports of mlx5_0: 1" --root "$NOTES" env --for ucx -d mlx5_0/2
fails_with dev-bad 2 "rdmactl env: Failed to parse -d 'mlx5_0/x': expected DEV or DEV/PORT, as in mlx5_0 or mlx5_0/1" --root "$NOTES" env --for ucx -d mlx5_0/x
fails_with dev-bad-escape 2 "rdmactl env: Unknown device 'a\\x1b[0m'. Devices: mlx5_0" --root "$NOTES" env --for ucx -d $'a\e[0m'
many=()
for i in $(seq 33); do many+=(-d mlx5_0); done
fails_with dev-too-many 2 "rdmactl env: Failed to use -d 'mlx5_0': at most 32 devices or ports" --root "$NOTES" env --for ucx "${many[@]}"
run --root "$NOTES" env --for nccl extra
check extra-arg-rc rc_is 2
check extra-arg-one-line err_one_line

# --- contrib/slurm's TaskProlog: the lines through, or the reason and exit 1 ---
taskprolog "$ORDER"
check taskprolog-rc rc_is 0
check taskprolog-lines [ "$OUT" == "$("$RDMACTL" --root "$ORDER" env --for nccl; "$RDMACTL" --root "$ORDER" env --for mpi)" ]
taskprolog "$(with_ucx "$ORDER")" RDMACTL_ENV_FOR=ucx
check taskprolog-ucx [ "$OUT" == $'export UCX_NET_DEVICES=mlx5_0:1\nexport UCX_IB_GID_INDEX=7' ]
taskprolog "$(with_ucx "$HEALTHY")" RDMACTL_ENV_FOR=ucx RDMACTL_ENV_DEVICES=mlx5_1,mlx5_10/1
check taskprolog-devices [ "$OUT" == $'export UCX_NET_DEVICES=mlx5_1:1,mlx5_10:1\nexport UCX_IB_GID_INDEX=3' ]
taskprolog "$FIXTURES/doctor-broken"
check taskprolog-refused-rc rc_is 1
check taskprolog-refused-no-export [ "$(grep -c '^export ' <<<"$OUT")" -eq 0 ]
check taskprolog-refused-reason out_has "^print rdmactl-taskprolog: rdmactl env: Failed to find an active RDMA port: rxe0/1 is DOWN"
check taskprolog-refused-stopped out_has "^print rdmactl-taskprolog: no RDMA variables for this node \(RDMACTL_ENV_FOR=nccl\): the task is stopped"
check taskprolog-refused-print-only [ "$(grep -cv '^print ' <<<"$OUT")" -eq 0 ]
# A later refusal leaves none of the earlier lines.
taskprolog "$ORDER" RDMACTL_ENV_FOR="ucx bogus"
check taskprolog-all-or-nothing-rc rc_is 1
check taskprolog-all-or-nothing [ "$(grep -c '^export ' <<<"$OUT")" -eq 0 ]
check taskprolog-bad-for out_has "^print rdmactl-taskprolog: rdmactl env: invalid --for value 'bogus'"
# A refusal names the job's knobs, not -d.
taskprolog "$TMPD/old"
check taskprolog-old-nccl-rc rc_is 1
check taskprolog-old-nccl-knob out_has 'RDMACTL_ENV_DEVICES=mlx5_0/1 for the TaskProlog'
check taskprolog-old-nccl-stopped out_has '^print rdmactl-taskprolog: no RDMA variables for this node \(RDMACTL_ENV_FOR=nccl\): the task is stopped; choose its ports with RDMACTL_ENV_DEVICES=DEV\[/PORT\], or RDMACTL_ENV_FOR=none runs it without them$'
taskprolog "$TMPD/old" RDMACTL_ENV_DEVICES=mlx5_1,mlx5_10
check taskprolog-old-nccl-one-rail rc_is 0
check taskprolog-old-nccl-one-rail-lines out_has '^export NCCL_IB_GID_INDEX=3$'
# A site (or job) that prefers a warning: the task runs, without the variables.
taskprolog "$TMPD/old" RDMACTL_ENV_ON_REFUSAL=warn
check taskprolog-warn-rc rc_is 0
check taskprolog-warn-no-export [ "$(grep -c '^export ' <<<"$OUT")" -eq 0 ]
check taskprolog-warn-said out_has 'the task runs without them \(RDMACTL_ENV_ON_REFUSAL=warn\)$'
# The healthy three-rail node: the default (nccl mpi) lets the job start.
taskprolog "$HEALTHY"
check taskprolog-healthy-rc rc_is 0
check taskprolog-healthy-lines [ "$OUT" == "$("$RDMACTL" --root "$HEALTHY" env --for nccl; "$RDMACTL" --root "$HEALTHY" env --for mpi)" ]
# The job's own forced index, wrong on a port: stopped with the doctor's reason.
taskprolog "$HEALTHY" NCCL_IB_GID_INDEX=5
check taskprolog-forced-index-rc rc_is 1
check taskprolog-forced-index-why out_has "^print rdmactl-taskprolog: rdmactl env: Failed to keep the job's NCCL variables: NCCL_IB_GID_INDEX=5: .*mlx5_1/1 has no GID 5 \(use 3\).*\(doctor check env.nccl\)"
check taskprolog-forced-index-fix out_has "Fix: unset NCCL_IB_GID_INDEX: the job's ports need different GID indexes, and NCCL 2.21 and later find each port's entry \(see roce.gid\)$"

# --- the job's own hostile values: refused naming the value, escaped as the doctor does ---
# shellcheck disable=SC2016 # the values hold '$(' and '`' themselves
for pair in 'NCCL_IB_HCA=$(id)' "NCCL_IB_HCA=mlx5_0'" $'NCCL_IB_HCA=mlx5_0\e[31m' $'NCCL_IB_HCA=mlx5_\xff' \
	'NCCL_IB_HCA=mlx5_0:x' 'NCCL_IB_HCA=mlx5_0:1:2' 'NCCL_IB_HCA=mlx5_0;id' $'NCCL_IB_HCA=mlx5_0\nexport EVIL=1' \
	'NCCL_SOCKET_IFNAME=`id`' $'NCCL_SOCKET_IFNAME=ens\e]0;x\a' 'UCX_NET_DEVICES=mlx5_0:1,$(id)' $'UCX_NET_DEVICES=\xff:1' \
	'UCX_IB_GID_INDEX=3;id' 'NCCL_IB_GID_INDEX=$((1))'; do
	name=${pair%%=*} val=${pair#*=} k=$((${k:-0} + 1))
	case $name in UCX_*) root=$UCXH f=ucx ;; *) root=$HEALTHY f=nccl ;; esac
	RC=0
	OUT=$(env "$name=$val" "$RDMACTL" --root "$root" env --for "$f" 2>"$TMPD/err") || RC=$?
	ERR=$(cat "$TMPD/err")
	DOC=$(env "$name=$val" "$RDMACTL" --root "$root" doctor --for "$f" --only "env.$f" | sed -n 's/^FAIL *env\.[a-z]* *//p')
	check "hostile-$k-$name-refused" rc_is 1
	check "hostile-$k-$name-no-export" out_empty
	check "hostile-$k-$name-one-line" err_one_line
	check "hostile-$k-$name-no-raw-controls" [ "$(tr -d -c '\000-\011\013-\037\177' <<<"$ERR" | wc -c)" -eq 0 ]
	check "hostile-$k-$name-doctor-words" bash -c '[ -n "$1" ] && [ "${0#*"$1"}" != "$0" ]' "$ERR" "$DOC"
done
# Through the TaskProlog: nothing a job variable holds becomes an export line.
taskprolog "$HEALTHY" NCCL_IB_HCA=$'mlx5_0\nexport EVIL=1'
check taskprolog-hostile-rc rc_is 1
check taskprolog-hostile-no-export [ "$(grep -c '^export ' <<<"$OUT")" -eq 0 ]
check taskprolog-hostile-print-only [ "$(grep -cv '^print ' <<<"$OUT")" -eq 0 ]
# Warnings on stderr stay out of the task's environment when env succeeds:
# a device no value depends on, named with a newline and an export line.
copy_order
EVILDEV="$TMPD/tree/sys/class/infiniband/x"$'\n'"export EVIL=1"
# (mlx5_0's class entry is a link into sys/devices: its contents, not the link.)
mkdir "$EVILDEV" && cp -a "$TMPD/tree/sys/class/infiniband/mlx5_0/." "$EVILDEV"
echo "1: DOWN" >"$EVILDEV/ports/1/state"
echo junk >"$EVILDEV/ports/1/gids/0"
run --root "$TMPD/tree" env --for nccl
check warning-escaped err_has '^rdmactl env: warning: cannot read .*/x\\x0aexport EVIL=1/ports/1/gids/0: not a GID'
taskprolog "$TMPD/tree" RDMACTL_ENV_FOR=nccl
check taskprolog-warning-rc rc_is 0
check taskprolog-warning-no-evil [ "$(grep -c EVIL <<<"$OUT")" -eq 0 ]

# --- the mpirun/sbatch wrapper of rdmactl-env(8): a refusal ends the job ---
# shellcheck disable=SC2016 # the wrapper's own text, as the man page gives it
WRAPPER='vars=$("$RDMACTL" env --for nccl) && eval "$vars" && exec sh -c '"'"'echo "ran with NCCL_IB_HCA=$NCCL_IB_HCA"'"'"
# shellcheck disable=SC2034 # lib.sh's rc_is reads RC
wrapped() {
	RC=0
	OUT=$(env -i RDMACTL="$RDMACTL" RDMACTL_ROOT="$1" sh -c "$WRAPPER" 2>"$TMPD/err") || RC=$?
	ERR=$(cat "$TMPD/err")
}
wrapped "$HEALTHY"
check wrapper-runs rc_is 0
check wrapper-runs-with out_has '^ran with NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_10:1$'
wrapped "$TMPD/old"
check wrapper-refused-rc rc_is 1
check wrapper-refused-not-run out_empty
check wrapper-refused-why err_has "^rdmactl env: Failed to find a GID index for the job's ports: "
check man-wrapper bash -c 'grep -qF "vars=\$(rdmactl env \-\-for mpi) && eval \\(dq\$vars\\(dq && exec ./allreduce" "$0"' "$TOP/man/rdmactl-env.8"
check man-no-bare-eval bash -c '! grep -qF "eval \\(dq\$(rdmactl env \\-\\-for" "$0"' "$TOP/man/rdmactl-env.8"
taskprolog "$FIXTURES/doctor-nodev" RDMACTL_ENV_FOR=none
check taskprolog-none-rc rc_is 0
check taskprolog-none-empty out_empty

# UCX before 1.19 on a RoCE device other than mlx5, at an IPv4 GID: the
# variable that keeps its UD from dropping every packet goes with the
# others (the doctor's ucx.ud_dgid); not on mlx5, not for NCCL.
run --root "$FIXTURES/ucx-rxe" env --for ucx
check ucx-rxe-rc rc_is 0
check ucx-rxe-lines bash -c '[ "$0" = "$(printf "export UCX_NET_DEVICES=rxe0:1\nexport UCX_IB_GID_INDEX=1\nexport UCX_UD_VERBS_ETH_DGID_CHECK=n")" ]' "$OUT"
run --root "$FIXTURES/ucx-rxe" env --for nccl
check ucx-rxe-nccl-without bash -c '! grep -q DGID <<<"$0"' "$OUT"
UCX_UD_VERBS_ETH_DGID_CHECK=n run --root "$FIXTURES/ucx-rxe" doctor --for ucx --only ucx.ud_dgid
check ucx-rxe-doctor-agrees out_has '^ok +ucx.ud_dgid'

# --- the site's files: the value NCCL and UCX will use, and where it came from ---
# /etc/nccl.conf's index 3 is link-local on mlx5_0: the doctor fails it
# naming the file, env exports NCCL 2.21's own choice over it.
rm -rf "$TMPD/site"
cp -a "$HEALTHY" "$TMPD/site"
echo 'NCCL_IB_GID_INDEX=3' >"$TMPD/site/etc/nccl.conf"
run -j --root "$TMPD/site" doctor --for nccl --only env.nccl
check site-nccl-doctor-fails json_ok '(.checks[0].status | ascii_downcase) == "fail" and (.checks[0].found | startswith("NCCL_IB_GID_INDEX=3 from /etc/nccl.conf:1; NCCL_IB_GID_INDEX=3: mlx5_0/1 GID 3 is link-local")) and (.checks[0].fix | startswith("export NCCL_IB_GID_INDEX=-1, or delete NCCL_IB_GID_INDEX from /etc/nccl.conf:1"))'
exports_are site-nccl-overridden 'export NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_10:1
export NCCL_IB_GID_INDEX=-1
export NCCL_SOCKET_IFNAME==ens19f0np0,ens19f1np1,ens20f0np0' --root "$TMPD/site" env --for nccl
NCCL_IB_GID_INDEX=-1 run --root "$TMPD/site" doctor --for nccl
check site-nccl-override-passes rc_is 0
# The recorded user's ~/.nccl.conf is read before /etc/nccl.conf; a right value there is kept.
mkdir -p "$TMPD/site/home/alice"
printf 'NCCL_IB_HCA==mlx5_1:1,mlx5_10:1\nNCCL_IB_GID_INDEX=3\n' >"$TMPD/site/home/alice/.nccl.conf"
exports_are site-nccl-home-kept 'export NCCL_SOCKET_IFNAME==ens19f1np1,ens20f0np0' --root "$TMPD/site" env --for nccl
run -v --root "$TMPD/site" env --for nccl
check site-nccl-home-said err_has "^rdmactl env: kept the job's NCCL_IB_GID_INDEX='3' from /home/alice/.nccl.conf:2$"
# UCX's ucx.conf, INI-like: the doctor fails its index for mpi, env exports auto over it.
UCXSITE=$(with_ucx "$HEALTHY")
mkdir -p "$UCXSITE/etc/ucx"
printf '[global]\nUCX_IB_GID_INDEX = 3\n' >"$UCXSITE/etc/ucx/ucx.conf"
run -j --root "$UCXSITE" doctor --for mpi --only env.ucx
check site-ucx-doctor-fails json_ok '(.checks[0].status | ascii_downcase) == "fail" and (.checks[0].found | startswith("UCX_IB_GID_INDEX=3 from /etc/ucx/ucx.conf:2; "))'
exports_are site-ucx-overridden 'export UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1,mlx5_10:1
export UCX_IB_GID_INDEX=auto
export OMPI_MCA_pml=ucx
export OMPI_MCA_oob_tcp_if_include=ens19f0np0,ens19f1np1,ens20f0np0
export OMPI_MCA_btl_tcp_if_include=ens19f0np0,ens19f1np1,ens20f0np0' --root "$UCXSITE" env --for mpi
rm -f "$UCXSITE/etc/ucx/ucx.conf"

# --- -1 and NCCL's strtoll(s, NULL, 0) ---
# NCCL 2.18.3 reads -1 as an index: the doctor fails it, env refuses in its words.
NCCL_IB_GID_INDEX=-1 run --root "$TMPD/old" doctor --for nccl --only env.nccl
check old-minus1-doctor-fails out_has '^FAIL +env\.nccl +NCCL_IB_GID_INDEX=-1: NCCL 2\.18\.3 \(/usr/lib/x86_64-linux-gnu/libnccl\.so\.2\.18\.3\), older than 2\.21, reads it as GID index -1'
NCCL_IB_GID_INDEX=-1 run --root "$TMPD/old" env --for nccl
check old-minus1-env-refuses rc_is 1
check old-minus1-env-why err_has "^rdmactl env: Failed to keep the job's NCCL variables: NCCL_IB_GID_INDEX=-1: NCCL 2\.18\.3 .*\(doctor check env\.nccl\)"
NCCL_IB_GID_INDEX=-1 run --root "$TMPD/old" env --for nccl -d mlx5_1
check old-minus1-one-rail-refuses rc_is 1
# 0x3 is 3 and 010 is 8 to NCCL.
NCCL_IB_HCA==mlx5_1:1 NCCL_IB_GID_INDEX=0x3 run --root "$HEALTHY" doctor --for nccl --only env.nccl
check hex-index-ok out_has "^ok +env\.nccl +.*NCCL_IB_GID_INDEX='0x3' is 3 to NCCL \(strtoll, base 0\).*mlx5_1/1 GID 3 is RoCE v2"
NCCL_IB_HCA==mlx5_1:1 NCCL_IB_GID_INDEX=0x3 run --root "$HEALTHY" env --for nccl
check hex-index-kept rc_is 0
NCCL_IB_HCA==mlx5_1:1 NCCL_IB_GID_INDEX=010 run --root "$HEALTHY" doctor --for nccl --only env.nccl
check octal-index-is-8 out_has "^FAIL +env\.nccl +.*NCCL_IB_GID_INDEX=8: mlx5_1/1 has no GID 8 \(use 3\)"

# --- on every fixture: a node the doctor passes for a job gets its lines, and the TaskProlog starts its tasks ---
for fx in "$FIXTURES"/*/; do
	fx=${fx%/}
	for f in nccl ucx mpi; do
		"$RDMACTL" --root "$fx" doctor --for "$f" >/dev/null 2>&1 || continue
		run --root "$fx" env --for "$f"
		check "doctor-passes-env-runs-$(basename "$fx")-$f" rc_is 0
	done
	if "$RDMACTL" --root "$fx" doctor >/dev/null 2>&1; then
		taskprolog "$fx"
		check "doctor-passes-taskprolog-starts-$(basename "$fx")" rc_is 0
	fi
done

finish
