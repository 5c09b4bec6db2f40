/* SPDX-License-Identifier: MIT */
/*
 * The job environment of this node (rdmactl env): the ports a job should
 * use and the values NCCL, UCX and Open MPI need for them, each chosen by
 * the rule the doctor judges it by (doctor_gid_choose(), the ports check),
 * or the doctor's reason why no value is right.  The values go into
 * "export NAME=value" lines that a shell evaluates and Slurm's TaskProlog
 * reads (contrib/slurm's reads them back through a shell first): a value
 * with a character a shell would expand is single-quoted, and a name no
 * line or list can carry (a control character, a blank, a ',') is
 * refused, as the doctor's ports check fails its port.
 */
#ifndef RDMACTL_JOBENV_H
#define RDMACTL_JOBENV_H

#include <stdbool.h>
#include <stddef.h>
#include <net/if.h>

#include "doctor/check.h"
#include "doctor/job_kind.h"
#include "node/envparse.h"
#include "node/rdma.h"

/* -d DEV[/PORT]: one device (every port of it: @port 0) or one port. */
struct jobenv_pick {
	char dev[64];
	unsigned int port;
};

/* A port the job uses, the GID on it and why that one. */
struct jobenv_port {
	const struct rdma_dev *dev;
	const struct rdma_port *port;
	const struct rdma_gid *gid;
	char ifname[IF_NAMESIZE];	/* its netdev in /sys/class/net; "" when none there */
	char why[192];
};

/* A port of the devices asked for that the job does not use, and why. */
struct jobenv_skip {
	const struct rdma_dev *dev;
	const struct rdma_port *port;
	char why[CHECK_TEXT];
	char fix[CHECK_TEXT];	/* "" when none */
};

/* -d given at most this often: a job's list, not the node's ports, which have no limit. */
#define JOBENV_PICKS_MAX 32
/* NCCL opens at most 32 ports (MAX_IB_DEVS) and reads as many entries of NCCL_IB_HCA. */
#define JOBENV_NCCL_PORTS_MAX ENV_LIST_MAX
/* A value: every port of a large node, far below what one environment string holds. */
#define JOBENV_VALUE_MAX 32768

struct jobenv {
	struct node_facts *d;		/* the node's, whose doctor_env() the variables are read by */
	struct jobenv_port *ports;	/* malloc'd */
	size_t n;
	struct jobenv_skip *skipped;	/* malloc'd */
	size_t n_skipped;
	unsigned int gid_index;
	bool index_set;			/* print gid_index: every port needs it */
	bool index_differs;		/* the ports need different indexes: the library finds each */
	bool have_ucx;			/* UCX is installed: its variables, and Open MPI's pml */
	bool ucx_dgid_off;		/* UCX needs UCX_UD_VERBS_ETH_DGID_CHECK=n (node/ucx.h) */
	bool ucx_no_rdma;		/* the job's UCX_TLS or UCX_NET_DEVICES runs UCX without RDMA: left alone */
	bool ucx_tcp_too;		/* the job's UCX_TLS names tcp beside RDMA: the netdevs join UCX_NET_DEVICES */
	bool tc_set;			/* export @tc, the traffic class roce.qos wants */
	int tc;
	char ifnames[JOBENV_VALUE_MAX / 2];	/* "ens1f0np0,ens1f1np1"; "" when no port has one */
	char notes[8][CHECK_TEXT];	/* for -v: what was left to the library or the job, and why */
	size_t n_notes;
	char silent[CHECK_TEXT];	/* why the job's library gets no variable here; "" when it gets some */
	struct check_result plan;	/* why no GID index serves the ports (check roce.gid) */
	bool plan_failed;		/* jobenv_build() failed there: @plan says why */
	char why[2 * CHECK_TEXT + 256];	/* the error line, when jobenv_build() failed */
};

/*
 * Choose the ports and values of a job of kind @f on @d's node: those of
 * @picks (@n of them), or with none every ACTIVE port that is not a
 * representor, narrowed to those the job's own NCCL_IB_HCA (nccl) or
 * UCX_NET_DEVICES (ucx, mpi) selects.  The job's own variables are
 * judged as the doctor's env.nccl and env.ucx judge them and kept; a
 * value a site's file gives one of the variables env exports (NCCL's or
 * UCX's configuration files) that the check fails is overridden by env's
 * own value (doctor_env_override(), until jobenv_free()), one it passes
 * is kept.
 * Where the ports need different GID indexes, no index variable is
 * printed when the installed library finds each port's entry itself
 * (NCCL 2.21 and later, UCX 1.7 and later), and the build fails where it
 * does not (check roce.gid fails the node for the same reason: @e->plan).
 * 0; -EINVAL when a pick names no device or port; -ENODATA when no
 * correct value exists (no device, no active port, no RoCE v2 GID, no
 * index the library can use, a job variable the doctor fails, a name
 * that cannot be exported); -ENOMEM.  @e->why holds the line to print
 * for an error.  Free with jobenv_free() either way.
 */
int jobenv_build(struct node_facts *d, enum job_kind f, const struct jobenv_pick *picks, size_t n,
		 struct jobenv *e);
void jobenv_free(struct jobenv *e);

struct jobenv_var {
	const char *name;
	char value[JOBENV_VALUE_MAX];
	bool kept;	/* the job set it already: not printed, its value stays */
};

#define JOBENV_VARS_MAX 8

/*
 * The variables @f (a kind rdmactl env takes) needs, in the order they are printed, into @v (at
 * least JOBENV_VARS_MAX); how many.  A variable without a value (the
 * socket interface of an InfiniBand port with no netdev, the GID index of
 * ports that need different ones) is left out: the library then chooses
 * it itself; but a GID index a site's file sets wrong is overridden by
 * the library's own "choose" (-1 for NCCL 2.21 and later, auto for UCX).
 * No UCX variable and no OMPI_MCA_pml=ucx without UCX.  One the job set
 * already (not empty), in the environment or a file it is kept from, is
 * marked kept.
 */
size_t jobenv_vars(const struct jobenv *e, enum job_kind f, struct jobenv_var *v);

/* Whether @s stands in a value unquoted: letters, digits, '.', '_', '-'. */
bool jobenv_name_ok(const char *s);

/*
 * Why the device (@rdma_dev) or netdev name @s cannot stand in a job's
 * variable, or NULL when it can (quoted where jobenv_name_ok() says no):
 * a control character or a blank ends or splits the TaskProlog's line,
 * ',' splits NCCL's, UCX's and Open MPI's lists, a leading '^' or '='
 * turns NCCL's list around, ':' in a device name starts NCCL's and UCX's
 * port.  The doctor's ports check fails a port for it, env refuses it.
 */
const char *jobenv_name_bad(const char *s, bool rdma_dev);

/*
 * "NAME=VALUE" as a shell reads back exactly VALUE: as it is when every
 * character is plain (jobenv_name_ok()'s, '=', ',' and ':'), else in
 * single quotes ("'" as '\''); into @buf, cut to @len.
 */
const char *jobenv_assignment(const char *name, const char *value, char *buf, size_t len);

#endif
