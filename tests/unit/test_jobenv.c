// SPDX-License-Identifier: MIT
/*
 * rdmactl env's values: what they may hold, and that NCCL and UCX (by the
 * matching rules of node/envparse.c) read them as exactly the ports chosen.
 */
#include <string.h>

#include "doctor/jobenv.h"
#include "test.h"

static struct rdma_dev devs[2];
static struct rdma_port ports[2];
static struct rdma_gid gid3 = { .index = 3, .type = GID_TYPE_ROCE_V2 };
static struct jobenv_port ports_of[2];

/* mlx5_1/1 on ens19f1np1 and mlx5_10/1 on ens20f0np0, both at GID index 3. */
static void two_ports(struct jobenv *e)
{
	memset(e, 0, sizeof(*e));
	snprintf(devs[0].name, sizeof(devs[0].name), "mlx5_1");
	snprintf(devs[1].name, sizeof(devs[1].name), "mlx5_10");
	snprintf(ports[0].netdev, sizeof(ports[0].netdev), "ens19f1np1");
	snprintf(ports[1].netdev, sizeof(ports[1].netdev), "ens20f0np0");
	ports[0].num = ports[1].num = 1;
	ports_of[0] = (struct jobenv_port){ .dev = &devs[0], .port = &ports[0], .gid = &gid3 };
	ports_of[1] = (struct jobenv_port){ .dev = &devs[1], .port = &ports[1], .gid = &gid3 };
	e->ports = ports_of;
	e->n = 2;
	e->gid_index = 3;
	e->index_set = true;
	e->have_ucx = true;
	snprintf(e->ifnames, sizeof(e->ifnames), "ens19f1np1,ens20f0np0");
}

static const char *value(const struct jobenv_var *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i].value;
	return NULL;
}

static void names_a_shell_and_slurm_read_as_written(void)
{
	CHECK(jobenv_name_ok("mlx5_0"));
	CHECK(jobenv_name_ok("ens1f0np0.100"));
	CHECK(jobenv_name_ok("br-data"));
	CHECK(!jobenv_name_ok(""));
	CHECK(!jobenv_name_ok("eth0,eth1"));	/* two entries to NCCL and UCX */
	CHECK(!jobenv_name_ok("^eth0"));	/* NCCL: everything but */
	CHECK(!jobenv_name_ok("=eth0"));
	CHECK(!jobenv_name_ok("eth$(id)"));
	CHECK(!jobenv_name_ok("eth`id`"));
	CHECK(!jobenv_name_ok("eth0 x"));	/* old Slurm ends a value at a blank */
	CHECK(!jobenv_name_ok("eth'0"));
	CHECK(!jobenv_name_ok("eth\033[0m"));
	CHECK(!jobenv_name_ok("ethé"));
}

static void names_no_line_or_list_carries(void)
{
	char buf[128];

	CHECK(jobenv_name_bad("rail#2", false) == NULL);	/* legal in Linux: quoted */
	CHECK(jobenv_name_bad("eth$(id)", false) == NULL);
	CHECK(jobenv_name_bad("mlx5_0", true) == NULL);
	CHECK(jobenv_name_bad("", false) != NULL);
	CHECK(jobenv_name_bad("eth0,eth1", false) != NULL);
	CHECK(jobenv_name_bad("^eth0", false) != NULL);
	CHECK(jobenv_name_bad("=eth0", false) != NULL);
	CHECK(jobenv_name_bad("eth0 x", false) != NULL);
	CHECK(jobenv_name_bad("eth\033[0m", false) != NULL);
	CHECK(jobenv_name_bad("mlx5:0", true) != NULL);
	CHECK(jobenv_name_bad("mlx5:0", false) == NULL);
	CHECK_STR(jobenv_assignment("A", "=mlx5_0:1,ens1", buf, sizeof(buf)), "A==mlx5_0:1,ens1");
	CHECK_STR(jobenv_assignment("A", "=rail#2", buf, sizeof(buf)), "A='=rail#2'");
	CHECK_STR(jobenv_assignment("A", "a'$(id)", buf, sizeof(buf)), "A='a'\\''$(id)'");
}

static void nccl_reads_exactly_the_ports(void)
{
	struct jobenv_var v[JOBENV_VARS_MAX];
	struct env_list l;
	struct jobenv e;
	char err[160];
	size_t n;

	two_ports(&e);
	e.n = 1;	/* mlx5_1 alone: a prefix would also take mlx5_10 */
	n = jobenv_vars(&e, JOB_NCCL, v);
	CHECK_INT(n, 3);
	CHECK_STR(value(v, n, "NCCL_IB_HCA"), "=mlx5_1:1");
	CHECK_STR(value(v, n, "NCCL_IB_GID_INDEX"), "3");
	CHECK_INT(nccl_list_parse(value(v, n, "NCCL_IB_HCA"), &l, err, sizeof(err)), 0);
	CHECK(nccl_list_match(&l, "mlx5_1", 1));
	CHECK(!nccl_list_match(&l, "mlx5_10", 1));
	CHECK(!nccl_list_match(&l, "mlx5_1", 2));
	CHECK_INT(nccl_list_parse(value(v, n, "NCCL_SOCKET_IFNAME"), &l, err, sizeof(err)), 0);
	CHECK(nccl_list_match(&l, "ens19f1np1", -1));
	CHECK(!nccl_list_match(&l, "ens19f1np1.100", -1));
}

static void ucx_and_mpi(void)
{
	struct jobenv_var v[JOBENV_VARS_MAX];
	struct env_list l;
	struct jobenv e;
	char err[160];
	bool all;
	size_t n;

	two_ports(&e);
	n = jobenv_vars(&e, JOB_UCX, v);
	CHECK_INT(n, 2);
	CHECK_STR(value(v, n, "UCX_NET_DEVICES"), "mlx5_1:1,mlx5_10:1");
	CHECK_INT(ucx_list_parse(value(v, n, "UCX_NET_DEVICES"), &l, &all, err, sizeof(err)), 0);
	CHECK(!all);
	CHECK_INT(l.n, 2);
	n = jobenv_vars(&e, JOB_MPI, v);
	CHECK_INT(n, 5);
	CHECK_STR(value(v, n, "UCX_IB_GID_INDEX"), "3");
	CHECK_STR(value(v, n, "OMPI_MCA_pml"), "ucx");
	CHECK_STR(value(v, n, "OMPI_MCA_oob_tcp_if_include"), "ens19f1np1,ens20f0np0");
	CHECK_STR(value(v, n, "OMPI_MCA_btl_tcp_if_include"), "ens19f1np1,ens20f0np0");
	/* No netdev (InfiniBand without IPoIB known): the libraries choose the interface. */
	e.ifnames[0] = '\0';
	n = jobenv_vars(&e, JOB_MPI, v);
	CHECK_INT(n, 3);
	CHECK(!value(v, n, "OMPI_MCA_oob_tcp_if_include"));
	n = jobenv_vars(&e, JOB_NCCL, v);
	CHECK_INT(n, 2);
	CHECK(!value(v, n, "NCCL_SOCKET_IFNAME"));
}

int main(void)
{
	RUN("test_jobenv", names_a_shell_and_slurm_read_as_written);
	RUN("test_jobenv", names_no_line_or_list_carries);
	RUN("test_jobenv", nccl_reads_exactly_the_ports);
	RUN("test_jobenv", ucx_and_mpi);
	TEST_EXIT();
}
