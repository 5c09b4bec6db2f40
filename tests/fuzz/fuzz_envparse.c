// SPDX-License-Identifier: MIT
/*
 * The parsers of the variables NCCL and UCX read: NCCL_IB_HCA and
 * NCCL_SOCKET_IFNAME (one grammar), UCX_NET_DEVICES, NCCL_IB_ADDR_RANGE,
 * NCCL_IB_ADDR_FAMILY, numbers such as NCCL_IB_GID_INDEX, the libnccl
 * soname, and NCCL's automatic GID choice over a fuzzed table.
 *
 * Input: one selector byte, then the value.  What parses must be within
 * the bounds the header promises, and a list that parses must select the
 * devices it names (or, with '^', must not).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fuzz.h"
#include "node/envparse.h"

static void list_sane(const struct env_list *l, const char *what)
{
	size_t i;

	if (l->n > ENV_LIST_MAX)
		fuzz_fail("%s: %zu entries", what, l->n);
	for (i = 0; i < l->n; i++) {
		const struct env_item *it = &l->items[i];

		if (!memchr(it->name, 0, sizeof(it->name)) || !it->name[0])
			fuzz_fail("%s: entry %zu has no name", what, i);
		if (it->port != -1 && (it->port < 1 || it->port > 255))
			fuzz_fail("%s: entry %zu port %d", what, i, it->port);
	}
}

static void nccl_list(const char *s)
{
	struct env_list l;
	char err[128];
	size_t i;

	memset(&l, 0xa5, sizeof(l));
	err[0] = '\0';
	if (nccl_list_parse(s, &l, err, sizeof(err))) {
		if (!err[0])
			fuzz_fail("NCCL list refused without a reason");
		return;
	}
	list_sane(&l, "NCCL list");
	for (i = 0; i < l.n; i++) {
		const struct env_item *it = &l.items[i];
		int port = it->port < 0 ? 1 : it->port;

		if (!nccl_item_match(&l, i, it->name, port))
			fuzz_fail("NCCL entry '%s' does not match its own name", it->name);
		if (nccl_list_match(&l, it->name, port) == l.negate)
			fuzz_fail("NCCL list %s'%s' it names", l.negate ? "selects " : "leaves out ",
				  it->name);
	}
	nccl_list_match(&l, "mlx5_0", 1);
	nccl_list_match(&l, s, -1);
}

static void ucx_list(const char *s)
{
	struct env_list l;
	bool all = false;
	char err[128];

	memset(&l, 0xa5, sizeof(l));
	err[0] = '\0';
	if (ucx_list_parse(s, &l, &all, err, sizeof(err))) {
		if (!err[0])
			fuzz_fail("UCX list refused without a reason");
		return;
	}
	if (!all)
		list_sane(&l, "UCX list");
}

static void number(const char *s)
{
	long v = 0;

	if (!env_parse_long(s, -5, 255, &v) && (v < -5 || v > 255))
		fuzz_fail("number %ld out of [-5, 255]", v);
	if (!env_parse_long(s, 0, 0x7fffffffL, &v) && v < 0)
		fuzz_fail("number %ld below 0", v);
}

static void range(const char *s, const uint8_t *raw, size_t rawlen)
{
	static const int families[] = { AF_INET, AF_INET6 };
	uint8_t gid[16] = { 0 };
	struct nccl_range r;
	char err[128];
	int family, i;

	memcpy(gid, raw, rawlen < 16 ? rawlen : 16);
	for (i = 0; i < 2; i++) {
		err[0] = '\0';
		if (nccl_addr_range_parse(s, families[i], &r, err, sizeof(err))) {
			if (!err[0])
				fuzz_fail("address range refused without a reason");
			continue;
		}
		if (r.family != families[i] || r.prefixlen < 0 ||
		    r.prefixlen > (families[i] == AF_INET ? 32 : 128))
			fuzz_fail("range of family %d, /%d", r.family, r.prefixlen);
		nccl_range_match(&r, gid);
	}
	if (!nccl_addr_family_parse(s, &family) && family != AF_INET && family != AF_INET6)
		fuzz_fail("address family %d", family);
}

/* A GID table from raw bytes: 17 per entry (16 of GID, one RoCE version). */
static void auto_gid(const uint8_t *p, size_t len)
{
	struct nccl_gid tbl[64];
	struct nccl_range r;
	size_t n = 0;
	int idx;

	if (len < 2)
		return;
	for (n = 0; n < 64 && len - 2 >= 17 * (n + 1); n++) {
		int ver = p[2 + 17 * n + 16] % 3;

		memcpy(tbl[n].raw, p + 2 + 17 * n, 16);
		tbl[n].roce_ver = ver ? ver : -1;	/* 1, 2, or unreadable */
	}
	if (!n)
		return;
	memset(&r, 0, sizeof(r));
	r.family = p[0] & 1 ? AF_INET6 : AF_INET;
	r.prefixlen = p[1] % (r.family == AF_INET ? 33 : 129);
	memcpy(r.addr, p + 2, 16);
	idx = nccl_auto_gid_index(tbl, n, r.family, p[0] & 2 ? 2 : 1, p[0] & 4 ? &r : NULL);
	if (idx < 0 || (size_t)idx >= n)
		fuzz_fail("automatic GID index %d of %zu entries", idx, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	int v;

	if (size < 1 || size > 4096)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	switch (data[0] % 6) {
	case 0:
		nccl_list(s);
		break;
	case 1:
		ucx_list(s);
		break;
	case 2:
		number(s);
		break;
	case 3:
		range(s, data + 1, size - 1);
		break;
	case 4:
		auto_gid(data + 1, size - 1);
		break;
	case 5:
		v = nccl_version_from_soname(s);
		if (v != -EINVAL && (v < 0 || v > 999999))
			fuzz_fail("NCCL version %d", v);
		break;
	}
	free(s);
	return 0;
}
