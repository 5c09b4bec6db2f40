#!/bin/bash
# rdmactl env's promise over generated variants of the fixtures: for each
# variant (a tree and a job environment) and each --for nccl|ucx|mpi, a
# node whose doctor passes gets its lines (env exits 0) and the TaskProlog
# starts the task, and every value env prints, put back into the job's
# environment, is one the doctor still passes.
#
# A variant is one function, variant_NAME, registered by one line in
# VARIANTS below: it builds TREE (a copy of a fixture under $TMPD) and
# sets JOB, the job's own variables as NAME=VALUE words.
. "$(dirname "$0")/lib.sh"

VARIANTS=(
	ucx_netdev		# UCX_NET_DEVICES names a netdev: UCX's TCP transport alone
	ucx_tls_tcp		# UCX_TLS=tcp,self,sm: no RDMA transport
	ucx_tls_rc_tcp		# UCX_TLS=rc,tcp: RDMA, and TCP on the same rails
	ucx_tls_negated		# UCX_TLS=^ib: every transport but InfiniBand/RoCE
	ompi_excludes		# OMPI_MCA_{btl,oob}_tcp_if_exclude
	ompi_btl_tcp		# OMPI_MCA_btl=tcp,self,vader
	many_ports		# 34 active ports: more than NCCL's 32
	netdev_hash		# a rail's netdev named rail#2 (legal in Linux)
)

TASKPROLOG=$TOP/contrib/slurm/rdmactl-taskprolog
HEALTHY=$FIXTURES/doctor-healthy	# three rails needing GID indexes 5, 3 and 3

# healthy_ucx NAME: TREE, a copy of doctor-healthy where dpkg has libucx0 1.16.0.
healthy_ucx() {
	TREE=$TMPD/$1
	cp -a "$HEALTHY" "$TREE"
	mkdir -p "$TREE/var/lib/dpkg"
	printf 'Package: libucx0\nStatus: install ok installed\nVersion: 1.16.0-1\n\n' \
		>>"$TREE/var/lib/dpkg/status"
}

variant_ucx_netdev() {
	healthy_ucx ucx_netdev
	JOB=(UCX_NET_DEVICES=ens19f0np0)
}

variant_ucx_tls_tcp() {
	healthy_ucx ucx_tls_tcp
	JOB=(UCX_TLS=tcp,self,sm)
}

variant_ucx_tls_rc_tcp() {
	healthy_ucx ucx_tls_rc_tcp
	JOB=(UCX_TLS=rc,tcp,self)
}

variant_ucx_tls_negated() {
	healthy_ucx ucx_tls_negated
	JOB=('UCX_TLS=^ib')
}

variant_ompi_excludes() {
	healthy_ucx ompi_excludes
	JOB=(OMPI_MCA_btl_tcp_if_exclude=lo,docker0 OMPI_MCA_oob_tcp_if_exclude=lo,docker0)
}

variant_ompi_btl_tcp() {
	healthy_ucx ompi_btl_tcp
	JOB=(OMPI_MCA_btl=tcp,self,vader)
}

# doctor-healthy's node with its three rails replaced by 17 two-port
# devices (tests/fixtures/many-gids.sh), each netdev up at MTU 9000.
variant_many_ports() {
	local d p n
	healthy_ucx many_ports
	rm -f "$TREE"/sys/class/infiniband/* "$TREE"/sys/class/net/*
	bash "$FIXTURES/many-gids.sh" "$TREE" 17 2 8
	for ((d = 0; d < 17; d++)); do
		for p in 0 1; do
			n=$TREE/sys/class/net/ens$((d + 1))f${p}np$p
			mkdir -p "$n"
			echo up >"$n/operstate"
			echo 9000 >"$n/mtu"
		done
	done
	JOB=()
}

# doctor-healthy with ens19f1np1 (mlx5_1's) renamed rail#2 everywhere it is named.
variant_netdev_hash() {
	local old=ens19f1np1 new='rail#2' dir f
	healthy_ucx netdev_hash
	dir=$(find "$TREE/sys/devices" -type d -path "*/net/$old")
	mv "$dir" "${dir%/*}/$new"
	ln -s "$(readlink "$TREE/sys/class/net/$old" | sed "s|/$old\$|/$new|")" "$TREE/sys/class/net/$new"
	rm "$TREE/sys/class/net/$old"
	grep -rlx -- "$old" "$TREE/sys/devices" | while read -r f; do printf '%s\n' "$new" >"$f"; done
	JOB=()
}

# taskprolog ROOT FOR: the TaskProlog as slurmstepd runs it, with the job's variables.
# shellcheck disable=SC2034 # lib.sh's rc_is reads RC
taskprolog() {
	RC=0
	OUT=$(env -i RDMACTL_BIN="$RDMACTL" RDMACTL_ROOT="$1" RDMACTL_ENV_FOR="$2" "${JOB[@]}" \
		/bin/sh "$TASKPROLOG" 2>"$TMPD/err") || RC=$?
	ERR=$(cat "$TMPD/err")
}

# in_job ARGS...: rdmactl ARGS with the job's variables (and PRINTED's) set; sets OUT, ERR, RC.
# shellcheck disable=SC2034
in_job() {
	RC=0
	OUT=$(env "${JOB[@]}" "${PRINTED[@]}" "$RDMACTL" "$@" 2>"$TMPD/err" </dev/null) || RC=$?
	ERR=$(cat "$TMPD/err")
}

for v in "${VARIANTS[@]}"; do
	"variant_$v"
	for f in nccl ucx mpi; do
		PRINTED=()
		in_job --root "$TREE" doctor --for "$f"
		if [ "$RC" -ne 0 ]; then
			echo "# $v --for $f: the doctor fails the node; env may refuse"
			continue
		fi
		in_job --root "$TREE" -j env --for "$f"
		check "$v-$f-env-runs" rc_is 0
		mapfile -t PRINTED < <(jq -r '.variables // {} | to_entries[] | "\(.key)=\(.value)"' <<<"$OUT")
		taskprolog "$TREE" "$f"
		check "$v-$f-taskprolog-starts" rc_is 0
		in_job --root "$TREE" doctor --for "$f"
		check "$v-$f-printed-values-pass" rc_is 0
	done
done

finish
