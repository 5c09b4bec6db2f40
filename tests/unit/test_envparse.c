// SPDX-License-Identifier: MIT
/* NCCL and UCX variables: parsing, NCCL's matching rules and its GID choice. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "node/envparse.h"
#include "test.h"

static char err[160];

static void hca_list_parses_prefixes_and_ports(void)
{
	struct env_list l;

	CHECK_INT(nccl_list_parse("mlx5_0,mlx_1", &l, err, sizeof(err)), 0);
	CHECK_INT(l.n, 2);
	CHECK(!l.negate && !l.exact);
	CHECK_STR(l.items[1].name, "mlx_1");
	CHECK_INT(l.items[1].port, -1);
	CHECK_INT(nccl_list_parse("^=mlx5_0:1,mlx5_2:2", &l, err, sizeof(err)), 0);
	CHECK(l.negate && l.exact);
	CHECK_INT(l.items[0].port, 1);
	CHECK_INT(l.items[1].port, 2);
	/* Empty entries are skipped, as NCCL skips them. */
	CHECK_INT(nccl_list_parse(",mlx5_0,,", &l, err, sizeof(err)), 0);
	CHECK_INT(l.n, 1);
}

static void hca_list_rejects_what_nccl_would_misread(void)
{
	struct env_list l;
	char many[400] = "", longname[100];
	int i;

	CHECK(nccl_list_parse("mlx5_0:", &l, err, sizeof(err)) < 0);
	CHECK(strstr(err, "port number") != NULL);
	CHECK(nccl_list_parse("mlx5_0:x", &l, err, sizeof(err)) < 0);
	CHECK(strstr(err, "'x'") != NULL);
	CHECK(nccl_list_parse("mlx5_0:0", &l, err, sizeof(err)) < 0);
	CHECK(nccl_list_parse("mlx5_0:256", &l, err, sizeof(err)) < 0);
	CHECK(nccl_list_parse(":1", &l, err, sizeof(err)) < 0);
	CHECK(nccl_list_parse("mlx5 0", &l, err, sizeof(err)) < 0);
	CHECK(strstr(err, "' '") != NULL);
	CHECK(nccl_list_parse("mlx5\033[0m", &l, err, sizeof(err)) < 0);
	CHECK(nccl_list_parse("mlx5\tx", &l, err, sizeof(err)) < 0);
	/* A name the kernel allows and NCCL reads as written (dev_valid_name()). */
	CHECK_INT(nccl_list_parse("=rail#2,a^b", &l, err, sizeof(err)), 0);
	CHECK_STR(l.items[0].name, "rail#2");
	CHECK(nccl_list_parse("", &l, err, sizeof(err)) < 0);
	CHECK(nccl_list_parse("^", &l, err, sizeof(err)) < 0);
	CHECK(nccl_list_parse(",,", &l, err, sizeof(err)) < 0);
	for (i = 0; i < 33; i++)
		strcat(many, "d,");
	CHECK(nccl_list_parse(many, &l, err, sizeof(err)) < 0);
	CHECK(strstr(err, "32") != NULL);
	memset(longname, 'a', 64);
	longname[64] = '\0';
	CHECK(nccl_list_parse(longname, &l, err, sizeof(err)) < 0);
	longname[63] = '\0';
	CHECK_INT(nccl_list_parse(longname, &l, err, sizeof(err)), 0);
}

/* UCX_TLS as UCX 1.12+ reads it: an allow list, '^' negating it, its aliases. */
static void ucx_tls_follows_ucx(void)
{
	struct ucx_tls t;

	ucx_tls_parse(NULL, &t);
	CHECK(t.rdma && t.tcp && !t.tcp_named);
	ucx_tls_parse("all", &t);
	CHECK(t.rdma && t.tcp && !t.tcp_named);
	ucx_tls_parse("tcp,self,sm", &t);
	CHECK(!t.rdma && t.tcp && t.tcp_named);
	ucx_tls_parse("sm,self", &t);
	CHECK(!t.rdma && !t.tcp);
	ucx_tls_parse("^ib", &t);
	CHECK(!t.rdma && t.tcp && !t.tcp_named);
	ucx_tls_parse("^rc", &t);	/* ud and dc remain */
	CHECK(t.rdma);
	ucx_tls_parse("^tcp", &t);
	CHECK(t.rdma && !t.tcp);
	ucx_tls_parse("rc_x,self", &t);
	CHECK(t.rdma && !t.tcp);
	ucx_tls_parse("ud_v", &t);
	CHECK(t.rdma);
	ucx_tls_parse("dc_mlx5,tcp", &t);
	CHECK(t.rdma && t.tcp_named);
	ucx_tls_parse("\\tcp,self", &t);	/* '\': the transport itself, not an alias */
	CHECK(!t.rdma && t.tcp);
	ucx_tls_parse("^all", &t);
	CHECK(!t.rdma && !t.tcp);
}

static void hca_match_follows_nccl(void)
{
	struct env_list l;

	/* A prefix: mlx5_1 also selects mlx5_10, not mlx5_2. */
	nccl_list_parse("mlx5_1", &l, err, sizeof(err));
	CHECK(nccl_list_match(&l, "mlx5_1", 1));
	CHECK(nccl_list_match(&l, "mlx5_10", 1));
	CHECK(!nccl_list_match(&l, "mlx5_2", 1));
	nccl_list_parse("=mlx5_1", &l, err, sizeof(err));
	CHECK(nccl_list_match(&l, "mlx5_1", 1));
	CHECK(!nccl_list_match(&l, "mlx5_10", 1));
	nccl_list_parse("^mlx5_1", &l, err, sizeof(err));
	CHECK(!nccl_list_match(&l, "mlx5_10", 1));
	CHECK(nccl_list_match(&l, "mlx5_0", 1));
	nccl_list_parse("mlx5_0:1", &l, err, sizeof(err));
	CHECK(nccl_list_match(&l, "mlx5_0", 1));
	CHECK(!nccl_list_match(&l, "mlx5_0", 2));
	CHECK(nccl_list_match(&l, "mlx5_0", -1));
	memset(&l, 0, sizeof(l));
	CHECK(nccl_list_match(&l, "anything", 3));
}

static void ucx_list_takes_all_and_exact_names(void)
{
	struct env_list l;
	bool all;

	CHECK_INT(ucx_list_parse("all", &l, &all, err, sizeof(err)), 0);
	CHECK(all);
	CHECK_INT(ucx_list_parse("mlx5_2:1,eth0", &l, &all, err, sizeof(err)), 0);
	CHECK(!all && l.exact);
	CHECK_INT(l.n, 2);
	CHECK_INT(l.items[0].port, 1);
	CHECK_STR(l.items[1].name, "eth0");
	CHECK(ucx_list_parse("mlx5_2:one", &l, &all, err, sizeof(err)) < 0);
	CHECK(ucx_list_parse(",", &l, &all, err, sizeof(err)) < 0);
}

static void numbers_are_whole(void)
{
	long v;

	CHECK_INT(env_parse_long("3", 0, 255, &v), 0);
	CHECK_INT(v, 3);
	CHECK_INT(env_parse_long("-1", -1, 255, &v), 0);
	CHECK(env_parse_long(" 3", 0, 255, &v) < 0);
	CHECK(env_parse_long("+3", 0, 255, &v) < 0);
	CHECK(env_parse_long("3x", 0, 255, &v) < 0);
	CHECK(env_parse_long("", 0, 255, &v) < 0);
	CHECK(env_parse_long("256", 0, 255, &v) < 0);
	CHECK(env_parse_long("99999999999999999999", 0, 255, &v) < 0);
}

static void addr_family_and_range(void)
{
	struct nccl_range r;
	uint8_t gid[16] = { [10] = 0xff, [11] = 0xff, 10, 1, 2, 3 };
	int fam;

	CHECK_INT(nccl_addr_family_parse("AF_INET6", &fam), 0);
	CHECK_INT(fam, AF_INET6);
	CHECK(nccl_addr_family_parse("inet", &fam) < 0);
	CHECK_INT(nccl_addr_range_parse("10.0.0.0/8", AF_INET, &r, err, sizeof(err)), 0);
	CHECK(nccl_range_match(&r, gid));
	CHECK_INT(nccl_addr_range_parse("192.168.0.0/16", AF_INET, &r, err, sizeof(err)), 0);
	CHECK(!nccl_range_match(&r, gid));
	CHECK_INT(nccl_addr_range_parse("10.1.2.0/23", AF_INET, &r, err, sizeof(err)), 0);
	CHECK(nccl_range_match(&r, gid));
	CHECK_INT(nccl_addr_range_parse("0.0.0.0/0", AF_INET, &r, err, sizeof(err)), 0);
	CHECK(nccl_range_match(&r, gid));
	CHECK(nccl_addr_range_parse("10.0.0.0", AF_INET, &r, err, sizeof(err)) < 0);
	CHECK(nccl_addr_range_parse("10.0.0.0/33", AF_INET, &r, err, sizeof(err)) < 0);
	CHECK(nccl_addr_range_parse("fd00::/8", AF_INET, &r, err, sizeof(err)) < 0);
	CHECK(strstr(err, "'fd00::'") != NULL);
	CHECK_INT(nccl_addr_range_parse("fd00::/8", AF_INET6, &r, err, sizeof(err)), 0);
	CHECK(!nccl_range_match(&r, gid));
	CHECK(nccl_addr_range_parse("fd00::/129", AF_INET6, &r, err, sizeof(err)) < 0);
}

static void gid(struct nccl_gid *g, const char *addr6, int ver)
{
	memset(g, 0, sizeof(*g));
	inet_pton(AF_INET6, addr6, g->raw);
	g->roce_ver = ver;
}

/* The field notes' table: NCCL >= 2.21 must land on 5 (RoCE v2, 192.168.88.1). */
static void auto_gid_matches_the_field_notes(void)
{
	struct nccl_gid t[8];
	struct nccl_range r;

	gid(&t[0], "fe80::5aa2:e1ff:feb0:3772", 1);
	gid(&t[1], "fe80::5aa2:e1ff:feb0:3772", 2);
	gid(&t[2], "fe80::a789:516a:e270:5b33", 1);
	gid(&t[3], "fe80::a789:516a:e270:5b33", 2);
	gid(&t[4], "::ffff:192.168.88.1", 1);
	gid(&t[5], "::ffff:192.168.88.1", 2);
	gid(&t[6], "::", -1);
	gid(&t[7], "::", -1);
	CHECK_INT(nccl_auto_gid_index(t, 8, AF_INET, 2, NULL), 5);
	CHECK_INT(nccl_auto_gid_index(t, 8, AF_INET, 1, NULL), 4);
	/* No global IPv6 GID: NCCL stays on index 0. */
	CHECK_INT(nccl_auto_gid_index(t, 8, AF_INET6, 2, NULL), 0);
	nccl_addr_range_parse("10.0.0.0/8", AF_INET, &r, err, sizeof(err));
	CHECK_INT(nccl_auto_gid_index(t, 8, AF_INET, 2, &r), 0);
	/* Soft-RoCE in the lab: 0 link-local v2, 1 IPv4 v2. */
	gid(&t[0], "fe80::5054:ff:fe12:3401", 2);
	gid(&t[1], "::ffff:10.99.0.1", 2);
	CHECK_INT(nccl_auto_gid_index(t, 2, AF_INET, 2, NULL), 1);
	CHECK_INT(nccl_auto_gid_index(t, 1, AF_INET, 2, NULL), 0);
}

static void nccl_version_from_library_name(void)
{
	CHECK_INT(nccl_version_from_soname("libnccl.so.2.18.3"), 21803);
	CHECK_INT(nccl_version_from_soname("libnccl.so.2.21.5"), 22105);
	CHECK(nccl_version_from_soname("libnccl.so.2") < 0);
	CHECK(nccl_version_from_soname("libnccl.so.2.21.5.bak") < 0);
	CHECK(nccl_version_from_soname("libnccl.so.2.210.5") < 0);
}

int main(void)
{
	RUN("test_envparse", hca_list_parses_prefixes_and_ports);
	RUN("test_envparse", hca_list_rejects_what_nccl_would_misread);
	RUN("test_envparse", hca_match_follows_nccl);
	RUN("test_envparse", ucx_tls_follows_ucx);
	RUN("test_envparse", ucx_list_takes_all_and_exact_names);
	RUN("test_envparse", numbers_are_whole);
	RUN("test_envparse", addr_family_and_range);
	RUN("test_envparse", auto_gid_matches_the_field_notes);
	RUN("test_envparse", nccl_version_from_library_name);
	TEST_EXIT();
}
