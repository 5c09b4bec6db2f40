#!/bin/bash
# The promise of rdmactl-env(8), over generated variants of a node: where
# `doctor --for X` passes, `env --for X` exits 0 and contrib/slurm's
# TaskProlog starts the task; and every value env prints, put back into
# the job's environment, is one env.X passes.  Each variant is a copy of
# doctor-healthy (three rails that need GID indexes 5, 3 and 3), made
# wrong or odd one way, run with UCX installed and without, for nccl, ucx
# and mpi.
. "$(dirname "$0")/lib.sh"

# One line per variant: variant_NAME TREE changes the copy TREE and may
# add the job's own variables to the array JOBENV (NAME=VALUE words), and
# what the node is for each kind of job: FAILS (the doctor must fail it:
# a value the job's library will use is wrong here) and PASSES (it must
# pass), words of nccl, ucx and mpi; ucx and mpi count only where UCX is
# installed (without it nothing reads UCX's files).
VARIANTS=(
	healthy
	# the site's files (NCCL's and UCX's configuration, node/libconf.c)
	nccl_conf_wrong_index
	nccl_conf_right_subset
	nccl_conf_not_lines
	nccl_conf_bad_hca
	nccl_conf_env_wins
	nccl_home_conf
	nccl_conf_file
	nccl_conf_hex
	ucx_conf_wrong_index
	ucx_conf_right_subset
	ucx_config_dir_bad_devices
	ucx_home_conf
	# old releases, -1, and NCCL's strtoll(s, NULL, 0)
	nccl_old
	nccl_old_minus1
	nccl_old_minus1_conf
	nccl_minus1
	nccl_hex_right
	nccl_octal_wrong
	# the job's own choices of transport, and what is rdmactl's limit, not the libraries'
	ucx_netdev		# UCX_NET_DEVICES names a netdev: UCX's TCP transport alone
	ucx_tls_tcp		# UCX_TLS=tcp,self,sm: no RDMA transport
	ucx_tls_rc_tcp		# UCX_TLS=rc,tcp: RDMA, and TCP on the same rails
	ucx_tls_negated		# UCX_TLS=^ib: every transport but InfiniBand/RoCE
	ompi_excludes		# OMPI_MCA_{btl,oob}_tcp_if_exclude
	ompi_btl_tcp		# OMPI_MCA_btl=tcp,self,vader
	many_ports		# 34 active ports: more than NCCL's 32
	netdev_hash		# a rail's netdev named rail#2 (legal in Linux)
	# where the address lives
	vlan			# mlx5_0's address on the VLAN ens19f0np0.100, its GID index 7
)

HEALTHY=$FIXTURES/doctor-healthy
TASKPROLOG=$TOP/contrib/slurm/rdmactl-taskprolog
LIBDIR=usr/lib/x86_64-linux-gnu
# The job's environment: nothing of this shell's but HOME (where UCX looks for ucx.conf).
JOB_HOME=/home/alice

# ---- the variants ----

variant_healthy() { PASSES+=(nccl ucx mpi); }

# A wrong index for mlx5_0 (3 is its link-local GID there).
variant_nccl_conf_wrong_index() {
	echo 'NCCL_IB_GID_INDEX=3' >"$1/etc/nccl.conf"
	FAILS+=(nccl)
	PASSES+=(ucx mpi)
}

# The site's choice of rails, with the index right for them: kept.
variant_nccl_conf_right_subset() {
	printf 'NCCL_IB_HCA==mlx5_1:1,mlx5_10:1\nNCCL_IB_GID_INDEX=3\n' >"$1/etc/nccl.conf"
	PASSES+=(nccl)
}

# What NCCL does not read as NCCL_IB_GID_INDEX: a comment, a blank in the name.
variant_nccl_conf_not_lines() {
	printf '#NCCL_IB_GID_INDEX=3\nNCCL_IB_GID_INDEX =3\nNCCL_DEBUG=WARN\n' >"$1/etc/nccl.conf"
	PASSES+=(nccl)
}

variant_nccl_conf_bad_hca() {
	echo 'NCCL_IB_HCA=mlx5_9' >"$1/etc/nccl.conf"
	FAILS+=(nccl)
}

# The environment outranks the file.
variant_nccl_conf_env_wins() {
	echo 'NCCL_IB_GID_INDEX=3' >"$1/etc/nccl.conf"
	JOBENV+=(NCCL_IB_GID_INDEX=-1)
	PASSES+=(nccl)
}

# ~/.nccl.conf of the recorded user (uid 1000, alice, in the tree's /etc/passwd), read before /etc/nccl.conf.
variant_nccl_home_conf() {
	mkdir -p "$1/home/alice"
	echo 'NCCL_IB_GID_INDEX=3' >"$1/home/alice/.nccl.conf"
	echo 'NCCL_IB_GID_INDEX=-1' >"$1/etc/nccl.conf"
	FAILS+=(nccl)
}

# $NCCL_CONF_FILE instead of ~/.nccl.conf.
variant_nccl_conf_file() {
	mkdir -p "$1/opt/site" "$1/home/alice"
	echo 'NCCL_IB_GID_INDEX=3' >"$1/opt/site/nccl.conf"
	echo 'NCCL_IB_GID_INDEX=-1' >"$1/home/alice/.nccl.conf"
	JOBENV+=(NCCL_CONF_FILE=/opt/site/nccl.conf)
	FAILS+=(nccl)
}

# 0x5 is 5 to NCCL: right on mlx5_0 alone.
variant_nccl_conf_hex() {
	echo 'NCCL_IB_GID_INDEX=0x5' >"$1/etc/nccl.conf"
	FAILS+=(nccl)
}

variant_ucx_conf_wrong_index() {
	mkdir -p "$1/etc/ucx"
	printf '[global]\nUCX_IB_GID_INDEX = 3\n' >"$1/etc/ucx/ucx.conf"
	FAILS+=(ucx mpi)
	PASSES+=(nccl)
}

variant_ucx_conf_right_subset() {
	mkdir -p "$1/etc/ucx"
	printf 'UCX_NET_DEVICES = mlx5_1:1,mlx5_10:1\nUCX_IB_GID_INDEX = 3\n' >"$1/etc/ucx/ucx.conf"
	PASSES+=(ucx mpi)
}

# $UCX_CONFIG_DIR/ucx.conf, read after /etc/ucx/ucx.conf.
variant_ucx_config_dir_bad_devices() {
	mkdir -p "$1/etc/ucx" "$1/opt/ucx"
	echo 'UCX_NET_DEVICES=mlx5_0:1' >"$1/etc/ucx/ucx.conf"
	echo 'UCX_NET_DEVICES=mlx5_9:1' >"$1/opt/ucx/ucx.conf"
	JOBENV+=(UCX_CONFIG_DIR=/opt/ucx)
	FAILS+=(ucx mpi)
}

# $HOME/ucx.conf.
variant_ucx_home_conf() {
	mkdir -p "$1$JOB_HOME"
	echo 'UCX_IB_GID_INDEX=5' >"$1$JOB_HOME/ucx.conf"
	FAILS+=(ucx mpi)
}

# NCCL 2.18.3: one NCCL_IB_GID_INDEX for every device.
variant_nccl_old() {
	mv "$1/$LIBDIR/libnccl.so.2.21.5" "$1/$LIBDIR/libnccl.so.2.18.3"
	FAILS+=(nccl)
}

variant_nccl_old_minus1() {
	variant_nccl_old "$1"
	JOBENV+=(NCCL_IB_GID_INDEX=-1)
}

variant_nccl_old_minus1_conf() {
	variant_nccl_old "$1"
	echo 'NCCL_IB_GID_INDEX=-1' >"$1/etc/nccl.conf"
}

variant_nccl_minus1() {
	JOBENV+=(NCCL_IB_GID_INDEX=-1)
	PASSES+=(nccl)
}

# 0x3 is 3 to NCCL: right on the two rails that need it.
variant_nccl_hex_right() {
	JOBENV+=('NCCL_IB_HCA==mlx5_1:1,mlx5_10:1' NCCL_IB_GID_INDEX=0x3)
	PASSES+=(nccl)
}

# 010 is 8 to NCCL, an index no port has.
variant_nccl_octal_wrong() {
	JOBENV+=(NCCL_IB_HCA==mlx5_1:1 NCCL_IB_GID_INDEX=010)
	FAILS+=(nccl)
}

variant_ucx_netdev() { JOBENV+=(UCX_NET_DEVICES=ens19f0np0); }
variant_ucx_tls_tcp() { JOBENV+=(UCX_TLS=tcp,self,sm); }
variant_ucx_tls_rc_tcp() { JOBENV+=(UCX_TLS=rc,tcp,self); }
variant_ucx_tls_negated() { JOBENV+=('UCX_TLS=^ib'); }
variant_ompi_excludes() { JOBENV+=(OMPI_MCA_btl_tcp_if_exclude=lo,docker0 OMPI_MCA_oob_tcp_if_exclude=lo,docker0); }
variant_ompi_btl_tcp() { JOBENV+=(OMPI_MCA_btl=tcp,self,vader); }

# The node's three rails replaced by 17 two-port devices
# (tests/fixtures/many-gids.sh), each netdev up at MTU 9000.
variant_many_ports() {
	local d p n
	rm -f "$1"/sys/class/infiniband/* "$1"/sys/class/net/*
	bash "$FIXTURES/many-gids.sh" "$1" 17 2 8
	for ((d = 0; d < 17; d++)); do
		for p in 0 1; do
			n=$1/sys/class/net/ens$((d + 1))f${p}np$p
			mkdir -p "$n"
			echo up >"$n/operstate"
			echo 9000 >"$n/mtu"
		done
	done
	PASSES+=(nccl ucx mpi)
}

# ens19f1np1 (mlx5_1's) renamed rail#2 everywhere it is named.
variant_netdev_hash() {
	local old=ens19f1np1 new='rail#2' dir f
	dir=$(find "$1/sys/devices" -type d -path "*/net/$old")
	mv "$dir" "${dir%/*}/$new"
	ln -s "$(readlink "$1/sys/class/net/$old" | sed "s|/$old\$|/$new|")" "$1/sys/class/net/$new"
	rm "$1/sys/class/net/$old"
	grep -rlx -- "$old" "$1/sys/devices" | while read -r f; do printf '%s\n' "$new" >"$f"; done
	PASSES+=(nccl ucx mpi)
}

# mlx5_0's IPv4 address on ens19f0np0.100, a VLAN on its netdev
# (tests/fixtures/vlan.sh): the entry a job uses is the VLAN's, index 7.
variant_vlan() {
	bash "$FIXTURES/vlan.sh" "$1"
	PASSES+=(nccl ucx mpi)
}

# ---- the harness ----

# make_tree NAME: a fresh copy of doctor-healthy changed by variant_NAME (JOBENV, FAILS, PASSES set).
make_tree() {
	TREE=$TMPD/v/$1
	mkdir -p "$TMPD/v"
	rm -rf "$TMPD/v"/*
	cp -a "$HEALTHY" "$TREE"
	JOBENV=() FAILS=() PASSES=()
	"variant_$1" "$TREE"
}

# add_ucx: libucx0 1.16.0 installed in TREE, as dpkg records it.
add_ucx() {
	mkdir -p "$TREE/var/lib/dpkg"
	printf 'Package: libucx0\nStatus: install ok installed\nVersion: 1.16.0-1\n\n' >>"$TREE/var/lib/dpkg/status"
}

# expects F LIST...: whether the variant's LIST names the kind of job F (ucx and mpi only with UCX).
expects() {
	local f=$1
	shift
	[ "$f" = nccl ] || [ "$UCX" = 1 ] || return 1
	[[ " $* " == *" $f "* ]]
}

# in_job [VAR=VALUE...] CMD...: CMD with the job's environment (JOBENV) and the words given.
in_job() { env -i HOME="$JOB_HOME" "${JOBENV[@]}" "$@"; }

# job_rdmactl [VAR=VALUE...] ARGS...: rdmactl on TREE in the job's environment; sets OUT, ERR, RC.
job_rdmactl() {
	local vars=()
	while [[ $1 == *=* ]]; do
		vars+=("$1")
		shift
	done
	RC=0
	in_job "${vars[@]}" "$RDMACTL" --root "$TREE" "$@" >"$TMPD/out" 2>"$TMPD/err" </dev/null || RC=$?
	OUT=$(cat "$TMPD/out")
	ERR=$(cat "$TMPD/err")
}

# taskprolog F: contrib/slurm's TaskProlog for RDMACTL_ENV_FOR=F, as slurmstepd runs it (no PATH).
taskprolog() {
	RC=0
	OUT=$(in_job RDMACTL_BIN="$RDMACTL" RDMACTL_ROOT="$TREE" RDMACTL_ENV_FOR="$1" \
		/bin/sh "$TASKPROLOG" 2>"$TMPD/err") || RC=$?
	ERR=$(cat "$TMPD/err")
}

# check_variant NAME UCX F: the promise for one variant, one kind of job.
check_variant() {
	local name=$1-ucx$2-$3 f=$3 passes=0 exports
	job_rdmactl doctor --for "$f"
	[ "$RC" = 0 ] && passes=1
	if expects "$f" "${FAILS[@]}"; then
		check "$name-doctor-fails" rc_is 1
	elif expects "$f" "${PASSES[@]}"; then
		check "$name-doctor-passes" rc_is 0
	fi
	job_rdmactl -j env --for "$f"
	exports=$OUT
	if [ "$passes" = 1 ]; then
		check "$name-doctor-passes-env-runs" rc_is 0
		taskprolog "$f"
		check "$name-doctor-passes-taskprolog-starts" rc_is 0
	fi
	[ "$RC" = 0 ] || return 0
	# What env printed, put back: env.nccl or env.ucx (mpi's is env.ucx) passes it.
	local vars=() check_of=env.$f status
	[ "$f" = mpi ] && check_of=env.ucx
	# (From -j: a value env quotes for the shell, '=rail#2', is the bare value there.)
	mapfile -t vars < <(jq -r '.variables // {} | to_entries[] | "\(.key)=\(.value)"' <<<"$exports")
	job_rdmactl "${vars[@]}" -j doctor --for "$f" --only "$check_of"
	status=$(jq -r '.checks[0].status | ascii_downcase' <<<"$OUT" 2>/dev/null)
	# A warning about the job's own choice (UCX's TCP alone), there
	# without env's values too, is the job's, not env's.
	if [ "$status" = warn ]; then
		job_rdmactl -j doctor --for "$f" --only "$check_of"
		[ "$(jq -r '.checks[0].status | ascii_downcase' <<<"$OUT" 2>/dev/null)" = warn ] && status=ok-job-warns
	fi
	# shellcheck disable=SC2034 # what fail() shows: the values put back
	RC=0 ERR="${vars[*]}"
	check "$name-exports-pass-$check_of" [ "${status%-job-warns}" = ok ]
}

for v in "${VARIANTS[@]}"; do
	make_tree "$v"
	for UCX in 0 1; do
		[ "$UCX" = 1 ] && add_ucx
		for f in nccl ucx mpi; do
			check_variant "$v" "$UCX" "$f"
		done
	done
done

finish
