// SPDX-License-Identifier: MIT
/*
 * NCCL and UCX environment variables.  The matching rules follow NCCL's
 * parseStringList/matchIfList (src/misc/utils.cc) and its RoCE GID choice
 * (ncclIbGetGidIndex in src/transport/net_ib.cc); the parsing is stricter
 * than theirs, which silently truncate or drop what they do not understand.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "node/envparse.h"

static int bad(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int env_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	/* No blanks or '+' in front: strtol would accept them. */
	if (!s || !((*s >= '0' && *s <= '9') || *s == '-'))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int nccl_parse_int(const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	return end == s || *end ? -EINVAL : 0;
}

/*
 * Interface and device names: what the kernel allows (dev_valid_name()
 * refuses only '/', ':' and white space: "rail#2" is a netdev) and NCCL
 * and UCX read as a name, so no control character or blank; a value
 * that is no name of this node is then found by the match, not here.
 */
static bool name_char(char c)
{
	unsigned char u = (unsigned char)c;

	return u > ' ' && u != 0x7f;
}

/* One "name[:port]" entry of @len bytes at @s into @it. */
static int parse_item(const char *s, size_t len, struct env_item *it, char *err, size_t errlen)
{
	size_t n = 0;
	long port = -1;

	while (n < len && s[n] != ':') {
		if (!name_char(s[n]))
			return bad(err, errlen, "entry '%.*s' has the character '%c' no device name has",
				   (int)len, s, s[n]);
		n++;
	}
	if (n == 0)
		return bad(err, errlen, "entry '%.*s' has no name before ':'", (int)len, s);
	if (n >= ENV_NAME_MAX)
		return bad(err, errlen, "entry '%.*s...' is longer than %d characters", 16, s,
			   ENV_NAME_MAX - 1);
	if (n < len) {
		char num[8];
		size_t plen = len - n - 1;

		if (plen == 0 || plen >= sizeof(num))
			return bad(err, errlen, "entry '%.*s' needs a port number (1-255) after ':'",
				   (int)len, s);
		memcpy(num, s + n + 1, plen);
		num[plen] = '\0';
		if (env_parse_long(num, 1, 255, &port))
			return bad(err, errlen, "entry '%.*s' has port '%s', not a number from 1 to 255",
				   (int)len, s, num);
	}
	memcpy(it->name, s, n);
	it->name[n] = '\0';
	it->port = (int)port;
	return 0;
}

/* The entries of @s, at most @max of them. */
static int parse_items(const char *s, struct env_list *out, size_t max, char *err, size_t errlen)
{
	while (*s) {
		size_t len = strcspn(s, ",");

		if (len) {
			if (out->n == max)
				return bad(err, errlen, "more than %zu entries", max);
			if (parse_item(s, len, &out->items[out->n], err, errlen))
				return -EINVAL;
			out->n++;
		}
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}

int nccl_list_parse(const char *s, struct env_list *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!s)
		return 0;
	if (strlen(s) > 4096)
		return bad(err, errlen, "longer than 4096 characters");
	if (*s == '^') {
		out->negate = true;
		s++;
	}
	if (*s == '=') {
		out->exact = true;
		s++;
	}
	if (parse_items(s, out, ENV_LIST_MAX, err, errlen))
		return -EINVAL;
	if (!out->n)
		return bad(err, errlen, "names no device");
	return 0;
}

bool nccl_item_match(const struct env_list *l, size_t i, const char *name, int port)
{
	const struct env_item *it = &l->items[i];
	bool name_ok;

	/* '=': the whole name; otherwise the entry is a prefix of the name. */
	if (l->exact)
		name_ok = !strcmp(name, it->name);
	else
		name_ok = !strncmp(name, it->name, strlen(it->name));
	return name_ok && (it->port == -1 || port == -1 || it->port == port);
}

bool nccl_list_match(const struct env_list *l, const char *name, int port)
{
	bool hit = false;
	size_t i;

	if (!l->n)
		return true;
	for (i = 0; i < l->n && !hit; i++)
		hit = nccl_item_match(l, i, name, port);
	return hit != l->negate;
}

bool ucx_list_selects(const char *s, const char *name, int port)
{
	struct env_list l;
	char err[160];
	bool all;
	size_t k;

	if (!s || ucx_list_parse(s, &l, &all, err, sizeof(err)) || all)
		return true;
	for (k = 0; k < l.n; k++)
		if (l.items[k].port == port && !strcmp(l.items[k].name, name))
			return true;
	return false;
}

int ucx_list_parse(const char *s, struct env_list *out, bool *all, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	*all = false;
	if (!s || !strcmp(s, "all")) {
		*all = true;
		return 0;
	}
	if (strlen(s) >= ENV_VALUE_MAX)
		return bad(err, errlen, "longer than %d characters", ENV_VALUE_MAX - 1);
	out->exact = true;
	if (parse_items(s, out, ENV_ITEMS_MAX, err, errlen))
		return -EINVAL;
	if (!out->n)
		return bad(err, errlen, "names no device");
	return 0;
}

/* The transports UCX's aliases stand for, as bits (ucp_tl_aliases[] of UCX 1.12 to 1.19). */
enum {
	TL_RC_V = 1, TL_RC_X = 2, TL_UD_V = 4, TL_UD_X = 8, TL_DC_X = 16, TL_TCP = 32,
	TL_RDMA = TL_RC_V | TL_RC_X | TL_UD_V | TL_UD_X | TL_DC_X,
};

static unsigned int tl_bits(const char *name, size_t len)
{
	static const struct {
		const char *name;
		unsigned int bits;
	} tls[] = {
		{ "ib", TL_RDMA }, { "rc", TL_RC_V | TL_RC_X }, { "rc_v", TL_RC_V },
		{ "rc_verbs", TL_RC_V }, { "rc_x", TL_RC_X }, { "rc_mlx5", TL_RC_X },
		{ "ud", TL_UD_V | TL_UD_X }, { "ud_v", TL_UD_V }, { "ud_verbs", TL_UD_V },
		{ "ud_x", TL_UD_X }, { "ud_mlx5", TL_UD_X }, { "dc", TL_DC_X },
		{ "dc_x", TL_DC_X }, { "dc_mlx5", TL_DC_X }, { "tcp", TL_TCP },
	};
	size_t i;

	/* '\rc': the transport of that name, not the alias; rc and ud were verbs' own names before 1.8. */
	if (len && *name == '\\') {
		name++;
		len--;
	}
	for (i = 0; i < sizeof(tls) / sizeof(tls[0]); i++)
		if (strlen(tls[i].name) == len && !strncmp(tls[i].name, name, len))
			return tls[i].bits;
	return 0;
}

void ucx_tls_parse(const char *s, struct ucx_tls *out)
{
	unsigned int named = 0, on;
	bool negate = false;
	size_t len;

	if (s && *s == '^') {
		negate = true;
		s++;
	}
	/* "all" first: every transport (UCX refuses anything after it). */
	if (!s || !strcmp(s, "all") || !strncmp(s, "all,", 4)) {
		*out = (struct ucx_tls){ .rdma = !negate, .tcp = !negate };
		return;
	}
	for (; *s; s += len + (s[len] == ',')) {
		len = strcspn(s, ",");
		named |= tl_bits(s, len);
	}
	on = negate ? (TL_RDMA | TL_TCP) & ~named : named;
	out->rdma = (on & TL_RDMA) != 0;
	out->tcp = (on & TL_TCP) != 0;
	out->tcp_named = !negate && (named & TL_TCP);
}

int nccl_addr_family_parse(const char *s, int *family)
{
	if (!strcmp(s, "AF_INET"))
		*family = AF_INET;
	else if (!strcmp(s, "AF_INET6"))
		*family = AF_INET6;
	else
		return -EINVAL;
	return 0;
}

int nccl_addr_range_parse(const char *s, int family, struct nccl_range *out,
			  char *err, size_t errlen)
{
	int max = family == AF_INET ? 32 : 128;
	const char *slash = strchr(s, '/');
	char addr[INET6_ADDRSTRLEN];
	long len;

	memset(out, 0, sizeof(*out));
	out->family = family;
	if (!slash)
		return bad(err, errlen, "needs the form ADDRESS/PREFIXLEN");
	if ((size_t)(slash - s) >= sizeof(addr))
		return bad(err, errlen, "the address is too long");
	memcpy(addr, s, (size_t)(slash - s));
	addr[slash - s] = '\0';
	if (inet_pton(family, addr, out->addr) != 1)
		return bad(err, errlen, "'%s' is not an %s address", addr,
			   family == AF_INET ? "IPv4 (NCCL_IB_ADDR_FAMILY=AF_INET)"
					     : "IPv6 (NCCL_IB_ADDR_FAMILY=AF_INET6)");
	if (env_parse_long(slash + 1, 0, max, &len))
		return bad(err, errlen, "prefix length '%s' is not a number from 0 to %d",
			   slash + 1, max);
	out->prefixlen = (int)len;
	return 0;
}

/* Compare the first @bits bits of @a and @b. */
static bool bits_equal(const uint8_t *a, const uint8_t *b, int bits)
{
	int whole = bits / 8, rest = bits % 8;

	if (memcmp(a, b, (size_t)whole))
		return false;
	if (!rest)
		return true;
	return ((a[whole] ^ b[whole]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

bool nccl_range_match(const struct nccl_range *r, const uint8_t raw[16])
{
	if (!r)
		return true;
	/* NCCL compares an IPv4 range with the last 4 bytes of the GID. */
	if (r->family == AF_INET)
		return bits_equal(r->addr, raw + 12, r->prefixlen);
	return bits_equal(r->addr, raw, r->prefixlen);
}

/* ::ffff:a.b.c.d and ff0e::ffff:a.b.c.d count as IPv4, as in NCCL. */
static int gid_family(const uint8_t raw[16])
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t mcast[12] = { 0xff, 0x0e, [10] = 0xff, [11] = 0xff };

	if (!memcmp(raw, mapped, 12) || !memcmp(raw, mcast, 12))
		return AF_INET;
	return AF_INET6;
}

/* Not empty, not fe80:: alone, not link-local. */
static bool gid_valid(const uint8_t raw[16])
{
	static const uint8_t zero[16];
	static const uint8_t ll[8] = { 0xfe, 0x80 };

	if (!memcmp(raw, zero, 16))
		return false;
	if (!memcmp(raw, ll, 2) && !memcmp(raw + 4, zero, 12) && !raw[2] && !raw[3])
		return false;
	return memcmp(raw, ll, 8) != 0;
}

/* NCCL's ncclUpdateGidIndex: whether candidate @c should replace the current @cur. */
static bool nccl_prefers(const struct nccl_gid *cur, const struct nccl_gid *c, int family,
			 int roce_ver, const struct nccl_range *range)
{
	int cur_fam = gid_family(cur->raw), c_fam = gid_family(c->raw);
	bool in_range = nccl_range_match(range, c->raw);

	if (c_fam != cur_fam && c_fam == family && in_range)
		return true;
	if (c_fam != family || !gid_valid(c->raw) || !in_range)
		return false;
	return (cur->roce_ver != c->roce_ver || !gid_valid(cur->raw)) && c->roce_ver == roce_ver;
}

int nccl_auto_gid_index(const struct nccl_gid *tbl, size_t n, int family, int roce_ver,
			const struct nccl_range *range)
{
	size_t i, best = 0;

	for (i = 1; i < n; i++)
		if (nccl_prefers(&tbl[best], &tbl[i], family, roce_ver, range))
			best = i;
	return (int)best;
}

int nccl_version_from_soname(const char *file)
{
	unsigned int major, minor, patch;
	int used = 0;

	if (sscanf(file, "libnccl.so.%u.%u.%u%n", &major, &minor, &patch, &used) != 3 ||
	    file[used] || major > 99 || minor > 99 || patch > 99)
		return -EINVAL;
	return (int)(major * 10000 + minor * 100 + patch);
}
