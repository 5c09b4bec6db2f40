/* SPDX-License-Identifier: MIT */
/*
 * Parsers for the environment variables NCCL and UCX read to pick their
 * devices, with the matching rules those libraries apply.  Strict and
 * bounded: every value comes from a user's shell and every error is
 * returned as a sentence naming the part that is wrong.
 */
#ifndef RDMACTL_ENVPARSE_H
#define RDMACTL_ENVPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * NCCL keeps at most 32 entries (MAX_IB_DEVS: parseStringList() stops
 * there and drops the rest) of at most 63 characters; UCX has no limit
 * of its own, so its lists hold what one environment string can
 * (ENV_VALUE_MAX, the kernel's MAX_ARG_STRLEN) in entries of one or two
 * characters more than a name.
 */
#define ENV_LIST_MAX 32
#define ENV_NAME_MAX 64
#define ENV_VALUE_MAX 131072
#define ENV_ITEMS_MAX 1024

struct env_item {
	char name[ENV_NAME_MAX];
	int port;		/* -1: any port */
};

struct env_list {
	bool negate;		/* leading '^': everything but these */
	bool exact;		/* leading '=' (after '^'): whole names, not prefixes */
	size_t n;
	struct env_item items[ENV_ITEMS_MAX];
};

/*
 * NCCL_IB_HCA / NCCL_SOCKET_IFNAME: "[^][=]name[:port][,name[:port]...]".
 * Empty entries are skipped as NCCL skips them.  0, or -EINVAL with a
 * reason in @err.
 */
int nccl_list_parse(const char *s, struct env_list *out, char *err, size_t errlen);

/*
 * Whether NCCL would use @name (port @port, -1 for none) under @l: a
 * prefix match unless '=', so "mlx5_1" also selects "mlx5_10"; a port in
 * the list only restricts that entry; '^' inverts the result.  An empty
 * list selects everything.
 */
bool nccl_list_match(const struct env_list *l, const char *name, int port);
/* Whether entry @i of @l matches @name/@port (ignoring '^'). */
bool nccl_item_match(const struct env_list *l, size_t i, const char *name, int port);

/* UCX_NET_DEVICES: "all" or "name[:port],...", exact names.  0 or -EINVAL. */
int ucx_list_parse(const char *s, struct env_list *out, bool *all, char *err, size_t errlen);
/*
 * Whether the UCX_NET_DEVICES value @s lets UCX use @name:@port: true when
 * @s is NULL, "all", names it, or is a value UCX refuses (whose finding is
 * env.ucx's: the ports are judged as if it were unset).
 */
bool ucx_list_selects(const char *s, const char *name, int port);

/*
 * What UCX_TLS lets UCX run, as UCX 1.12 and later read it (ucp_context.c:
 * an allow list whose leading '^' negates it whole, "all" alone allows
 * every transport; the aliases of ucp_tl_aliases[]: ib = rc_verbs,
 * ud_verbs, rc_mlx5, ud_mlx5, dc_mlx5; rc, rc_v, rc_x, ud, ud_v, ud_x,
 * dc, dc_x each some of those; sm, shm, mm, self, cuda ... none; a
 * leading '\' turns aliasing off).  @s NULL: unset, every transport.
 */
struct ucx_tls {
	bool rdma;		/* an InfiniBand/RoCE transport (rc, ud, dc): it opens DEV:PORT */
	bool tcp;		/* the tcp transport: it opens netdevs */
	bool tcp_named;		/* tcp named in a list that is not negated: the job chose it */
};
void ucx_tls_parse(const char *s, struct ucx_tls *out);

/* A whole decimal number in [min, max]; 0 or -EINVAL. */
int env_parse_long(const char *s, long min, long max, long *out);

/*
 * An integer variable as NCCL reads it (ncclLoadParam() in
 * src/misc/param.cc: strtoll(s, NULL, 0)): blanks and a sign, then
 * decimal, "0x" hexadecimal or "0" octal, so "0x5" is 5 and "010" is 8.
 * 0 when the number is the whole value; -EINVAL when NCCL stops before
 * the end or finds no digit (@out is still what NCCL uses: the number
 * read so far, 0 for none); -ERANGE when it overflows (NCCL then keeps
 * its default).
 */
int nccl_parse_int(const char *s, long long *out);

/* NCCL_IB_ADDR_FAMILY: "AF_INET" or "AF_INET6"; 0 or -EINVAL. */
int nccl_addr_family_parse(const char *s, int *family);

struct nccl_range {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t addr[16];	/* IPv4 in the first 4 bytes */
	int prefixlen;
};

/* NCCL_IB_ADDR_RANGE "10.0.0.0/8" or "fd00::/8" for @family; 0 or -EINVAL. */
int nccl_addr_range_parse(const char *s, int family, struct nccl_range *out,
			  char *err, size_t errlen);
/* Whether the GID @raw (16 bytes) lies in @r (an IPv4-mapped GID for AF_INET). */
bool nccl_range_match(const struct nccl_range *r, const uint8_t raw[16]);

/*
 * One GID table entry as NCCL's automatic selection (2.21 and later) sees
 * it: the 16 bytes and the RoCE version in gid_attrs/types (1, 2, or -1
 * when unreadable).
 */
struct nccl_gid {
	uint8_t raw[16];
	int roce_ver;
};

/*
 * The index NCCL >= 2.21 picks when NCCL_IB_GID_INDEX is unset: @tbl has
 * @n entries, index i at tbl[i] (all-zero for empty slots).  @range may be
 * NULL (no NCCL_IB_ADDR_RANGE).
 */
int nccl_auto_gid_index(const struct nccl_gid *tbl, size_t n, int family, int roce_ver,
			const struct nccl_range *range);

/* "libnccl.so.2.18.3" -> 21803 (major*10000 + minor*100 + patch); -EINVAL. */
int nccl_version_from_soname(const char *file);

#endif
