// SPDX-License-Identifier: MIT
/*
 * Hostlists: expanding "node[01-04],gpu[1-2]" into names and folding names
 * back.  hostlist.h says where this follows Slurm and where ClusterShell.
 *
 * An item is read whole into parts (text, or a group of ranges) and checked,
 * with the number of hosts it makes, before anything is expanded: a typo
 * such as n[1-100000] or a product of groups fails at once, in time
 * proportional to its length.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "base/file.h"
#include "base/outfile.h"
#include "base/text.h"
#include "launch/hostlist.h"

#define DIGITS_MAX 18		/* 10^18 - 1 fits in an unsigned long long */
#define QUOTE_MAX 64		/* a value shown longer (escaped) loses its middle */
#define QUOTED_SIZE (QUOTE_MAX + 4)	/* "..." and the NUL */
#define WHY_SIZE 512

/* ---- messages ---- */

/* Why a hostlist was refused, before the input is named around it. */
struct why {
	char text[WHY_SIZE];
};

static int why(struct why *w, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int why(struct why *w, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->text, sizeof(w->text), fmt, ap);
	va_end(ap);
	return code;
}

/* A value from the user, fit to quote: escaped, and cut in the middle when long. */
static const char *quote(const char *s, size_t len, char buf[QUOTED_SIZE])
{
	return text_safe_n(s, len, buf, QUOTED_SIZE, 0);
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- the set of names ---- */

void hostlist_init(struct hostlist *hl)
{
	memset(hl, 0, sizeof(*hl));
}

void hostlist_free(struct hostlist *hl)
{
	size_t i;

	for (i = 0; i < hl->n; i++)
		free(hl->names[i]);
	free(hl->names);
	free(hl->slots);
	hostlist_init(hl);
}

/* FNV-1a: short names, no adversary who can pick them to collide. */
static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

/* The slot holding @s, or the free slot where it would go. */
static size_t *slot_of(const struct hostlist *hl, const char *s, size_t len)
{
	size_t mask = hl->nslots - 1, i = hash(s, len) & mask;

	while (hl->slots[i]) {
		const char *name = hl->names[hl->slots[i] - 1];

		if (!strncmp(name, s, len) && !name[len])
			break;
		i = (i + 1) & mask;
	}
	return &hl->slots[i];
}

/* A table for @want names, filled with the current ones. */
static int rehash(struct hostlist *hl, size_t want)
{
	size_t nslots = 16, i;
	size_t *slots;

	while (nslots < 2 * want + 2)
		nslots *= 2;
	slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	free(hl->slots);
	hl->slots = slots;
	hl->nslots = nslots;
	for (i = 0; i < hl->n; i++)
		*slot_of(hl, hl->names[i], strlen(hl->names[i])) = i + 1;
	return 0;
}

bool hostlist_has(const struct hostlist *hl, const char *name)
{
	return hl->nslots && *slot_of(hl, name, strlen(name));
}

/* Append @s (@len bytes, a checked name) unless it is there already. */
static int add_name(struct hostlist *hl, const char *s, size_t len)
{
	size_t *slot;

	if (2 * (hl->n + 1) + 2 > hl->nslots && rehash(hl, 2 * (hl->n + 1)))
		return -ENOMEM;
	slot = slot_of(hl, s, len);
	if (*slot)
		return 0;
	if (hl->n == hl->cap) {
		size_t cap = hl->cap ? 2 * hl->cap : 64;
		char **names = realloc(hl->names, cap * sizeof(*names));

		if (!names)
			return -ENOMEM;
		hl->names = names;
		hl->cap = cap;
	}
	hl->names[hl->n] = strndup(s, len);
	if (!hl->names[hl->n])
		return -ENOMEM;
	*slot = ++hl->n;
	return 0;
}

/* The table again after names went; the old one is big enough, so no memory is needed. */
static void reindex(struct hostlist *hl)
{
	size_t i;

	if (hl->nslots)
		memset(hl->slots, 0, hl->nslots * sizeof(*hl->slots));
	for (i = 0; i < hl->n; i++)
		*slot_of(hl, hl->names[i], strlen(hl->names[i])) = i + 1;
}

/* Back to the first @n names and @written hosts, after an error. */
static void truncate_to(struct hostlist *hl, size_t n, size_t written)
{
	while (hl->n > n)
		free(hl->names[--hl->n]);
	hl->written = written;
	reindex(hl);
}

int hostlist_exclude(struct hostlist *hl, const struct hostlist *x)
{
	size_t i, kept = 0;

	for (i = 0; i < hl->n; i++) {
		if (hostlist_has(x, hl->names[i]))
			free(hl->names[i]);
		else
			hl->names[kept++] = hl->names[i];
	}
	hl->n = kept;
	reindex(hl);
	return 0;
}

/* ---- parsing ---- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Bytes at @s before one of @stop, at most @len (a NUL is no stop: files may hold one). */
static size_t span_to(const char *s, size_t len, const char *stop)
{
	size_t i = 0;

	while (i < len && (!s[i] || !strchr(stop, s[i])))
		i++;
	return i;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* What a host name may hold: RFC 1123 letters, digits and '-', with '.' and '_'. */
static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
	       c == '-' || c == '.' || c == '_';
}

struct range {
	unsigned long long lo, hi;
	int width;		/* zero-padded to this many digits; 0: none */
};

/* Text, or a group "[...]" of ranges (text NULL); cur/val step through it. */
struct part {
	const char *text;
	size_t len;
	size_t r0, nr;		/* the group's ranges in item.ranges */
	size_t cur;		/* the range being expanded */
	unsigned long long val;
};

/* One item ("rack[1-2]-node[01-04]") read into parts. */
struct item {
	struct part *parts;
	size_t nparts, partcap;
	struct range *ranges;
	size_t nranges, rangecap;
	unsigned long long count;	/* hosts it makes, at most HOSTLIST_MAX + 1 */
	size_t namelen;			/* of its longest name */
};

static void item_free(struct item *it)
{
	free(it->parts);
	free(it->ranges);
}

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int add_part(struct item *it, const char *text, size_t len, size_t r0, size_t nr)
{
	if (grow((void **)&it->parts, &it->partcap, it->nparts + 1, sizeof(*it->parts)))
		return -ENOMEM;
	it->parts[it->nparts++] = (struct part){ .text = text, .len = len, .r0 = r0, .nr = nr };
	return 0;
}

static size_t ndigits(unsigned long long v)
{
	size_t n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* A count that stops growing above the cap, so a product never overflows. */
static unsigned long long capped(unsigned long long v)
{
	return v > HOSTLIST_MAX ? HOSTLIST_MAX + 1ULL : v;
}

/* @len decimal digits at @s; -EINVAL when they are not, -ERANGE when too many. */
static int parse_num(const char *s, size_t len, unsigned long long *v)
{
	size_t i;

	if (!len)
		return -EINVAL;
	*v = 0;
	for (i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return -EINVAL;
		*v = *v * 10 + (unsigned long long)(s[i] - '0');
		if (i + 1 > DIGITS_MAX)
			return -ERANGE;
	}
	return 0;
}

/* One number of a range, with the message when it is none. */
static int range_end(const char *tok, size_t tlen, const char *s, size_t len,
		     unsigned long long *v, struct why *w)
{
	char q[QUOTED_SIZE];
	int ret = parse_num(s, len, v);

	if (ret == -ERANGE)
		return why(w, -EINVAL, "number '%s' has more than %d digits",
			   quote(s, len, q), DIGITS_MAX);
	if (ret)
		return why(w, -EINVAL, "'%s' is not a number or a range", quote(tok, tlen, q));
	return 0;
}

static bool padded(const char *digits, size_t len)
{
	return len > 1 && digits[0] == '0';
}

/* "7", "08-10" or "01-100": the low end sets the width, as in Slurm. */
static int parse_range(const char *tok, size_t tlen, struct range *r, struct why *w)
{
	const char *dash = memchr(tok, '-', tlen);
	size_t lolen = dash ? (size_t)(dash - tok) : tlen;
	const char *hi = dash ? dash + 1 : tok;
	size_t hilen = dash ? tlen - lolen - 1 : tlen;

	if (range_end(tok, tlen, tok, lolen, &r->lo, w) ||
	    range_end(tok, tlen, hi, hilen, &r->hi, w))
		return -EINVAL;
	if (r->hi < r->lo)
		return why(w, -EINVAL, "range %.*s goes down", (int)tlen, tok);
	/* node[1-010]: 1-10 as Slurm reads it, or 001-010?  Ask, as nodeset does. */
	if (padded(hi, hilen) && hilen != lolen)
		return why(w, -EINVAL, "range %.*s: the high end is padded to %zu digits, the low end has %zu",
			   (int)tlen, tok, hilen, lolen);
	r->width = padded(tok, lolen) ? (int)lolen : 0;
	return 0;
}

/* The inside of "[...]": ranges separated by commas. */
static int parse_group(struct item *it, const char *s, size_t len, struct why *w)
{
	unsigned long long hosts = 0;
	size_t r0 = it->nranges, maxlen = 0, i = 0;
	char q[QUOTED_SIZE];

	if (!len)
		return why(w, -EINVAL, "empty brackets '[]'");
	while (i <= len) {
		size_t tlen = span_to(s + i, len - i, ",");
		struct range *r;

		if (!tlen)
			return why(w, -EINVAL, "empty range in '[%s]'", quote(s, len, q));
		if (grow((void **)&it->ranges, &it->rangecap, it->nranges + 1, sizeof(*r)))
			return -ENOMEM;
		r = &it->ranges[it->nranges];
		if (parse_range(s + i, tlen, r, w))
			return -EINVAL;
		it->nranges++;
		hosts = capped(hosts + capped(r->hi - r->lo + 1));
		if (ndigits(r->hi) > maxlen)
			maxlen = ndigits(r->hi);
		if ((size_t)r->width > maxlen)
			maxlen = (size_t)r->width;
		i += tlen + 1;
	}
	it->count = capped(it->count * hosts);
	it->namelen += maxlen;
	return add_part(it, NULL, 0, r0, it->nranges - r0);
}

/* Text between groups: host name characters only. */
static int parse_text(struct item *it, const char *s, size_t len, struct why *w)
{
	char q[QUOTED_SIZE];
	size_t i;

	for (i = 0; i < len; i++)
		if (!name_char(s[i]))
			return why(w, -EINVAL, "'%s' cannot be in a host name", quote(s + i, 1, q));
	it->namelen += len;
	return add_part(it, s, len, 0, 0);
}

/* Parts of one item, with neither ',' nor blanks outside brackets. */
static int parse_parts(struct item *it, const char *s, size_t len, struct why *w)
{
	size_t i = 0;

	while (i < len) {
		size_t n = span_to(s + i, len - i, "[]");
		int ret;

		if (n) {
			if ((ret = parse_text(it, s + i, n, w)))
				return ret;
			i += n;
			continue;
		}
		if (s[i] == ']')
			return why(w, -EINVAL, "']' without '['");
		n = span_to(s + i + 1, len - i - 1, "[]");
		if (i + 1 + n == len)
			return why(w, -EINVAL, "'[' is not closed");
		if (s[i + 1 + n] == '[')
			return why(w, -EINVAL, "'[' inside brackets");
		if ((ret = parse_group(it, s + i + 1, n, w)))
			return ret;
		i += n + 2;
	}
	return 0;
}

static int parse_item(struct item *it, const char *s, size_t len, struct why *w)
{
	int ret;

	it->nparts = it->nranges = 0;
	it->count = 1;
	it->namelen = 0;
	if ((ret = parse_parts(it, s, len, w)))
		return ret;
	/* ssh, pdsh and srun would read "-oProxyCommand=..." as an option. */
	if (s[0] == '-')
		return why(w, -EINVAL, "a host name cannot start with '-'");
	if (it->namelen > HOSTLIST_NAME_MAX)
		return why(w, -EINVAL, "it makes host names longer than %d characters",
			   HOSTLIST_NAME_MAX);
	return 0;
}

/* The next name of @it into @buf, the last group turning fastest; false when done. */
static bool item_next(struct item *it, bool first)
{
	size_t p = it->nparts;

	if (first) {
		for (p = 0; p < it->nparts; p++) {
			if (it->parts[p].text)
				continue;
			it->parts[p].cur = it->parts[p].r0;
			it->parts[p].val = it->ranges[it->parts[p].r0].lo;
		}
		return true;
	}
	while (p--) {
		struct part *pt = &it->parts[p];

		if (pt->text)
			continue;
		if (pt->val < it->ranges[pt->cur].hi) {
			pt->val++;
			return true;
		}
		if (pt->cur + 1 < pt->r0 + pt->nr) {
			pt->val = it->ranges[++pt->cur].lo;
			return true;
		}
		pt->cur = pt->r0;
		pt->val = it->ranges[pt->cur].lo;
	}
	return false;
}

static size_t item_name(const struct item *it, char *buf, size_t size)
{
	size_t p, off = 0;

	for (p = 0; p < it->nparts; p++) {
		const struct part *pt = &it->parts[p];

		if (pt->text) {
			memcpy(buf + off, pt->text, pt->len);
			off += pt->len;
		} else {
			off += (size_t)snprintf(buf + off, size - off, "%0*llu",
						it->ranges[pt->cur].width, pt->val);
		}
	}
	buf[off] = '\0';
	return off;
}

static int expand(struct hostlist *hl, struct item *it)
{
	/* Room for the longest name parse_item allows, and snprintf's NUL. */
	char name[HOSTLIST_NAME_MAX + DIGITS_MAX + 2];
	bool first = true;
	int ret;

	while (item_next(it, first)) {
		first = false;
		if ((ret = add_name(hl, name, item_name(it, name, sizeof(name)))))
			return ret;
	}
	return 0;
}

/* The end of the item at @s[i]: a ',' or blank outside brackets. */
static size_t item_end(const char *s, size_t len, size_t i)
{
	int depth = 0;

	for (; i < len; i++) {
		if (!depth && (s[i] == ',' || is_space(s[i])))
			break;
		if (s[i] == '[')
			depth++;
		else if (s[i] == ']' && depth)
			depth--;
	}
	return i;
}

static int add_item(struct hostlist *hl, struct item *it, const char *s, size_t len,
		    struct why *w)
{
	int ret = parse_item(it, s, len, w);

	if (ret)
		return ret;
	if (it->count > HOSTLIST_MAX)
		return why(w, -E2BIG, "more than %d hosts", HOSTLIST_MAX);
	if (it->count > HOSTLIST_MAX - hl->written)
		return why(w, -E2BIG, "more than %d hosts in all", HOSTLIST_MAX);
	hl->written += it->count;
	return expand(hl, it);
}

/* Items separated by commas and blanks; an empty one between commas is an error. */
static int parse_items(struct hostlist *hl, const char *s, size_t len, struct why *w)
{
	struct item it = { 0 };
	bool item = false, comma = false;
	size_t i = 0, end;
	int ret = 0;

	while (!ret) {
		while (i < len && is_space(s[i]))
			i++;
		if (i == len)
			break;
		if (s[i] == ',') {
			if (!item)
				ret = why(w, -EINVAL, comma ? "empty item between two commas" :
							      "empty item at the start");
			item = false;
			comma = true;
			i++;
			continue;
		}
		end = item_end(s, len, i);
		ret = add_item(hl, &it, s + i, end - i, w);
		item = true;
		i = end;
	}
	item_free(&it);
	if (!ret && comma && !item)
		ret = why(w, -EINVAL, "empty item at the end");
	if (!ret && !comma && !item)
		ret = why(w, -EINVAL, "names no host");
	return ret;
}

/* parse_items, all or nothing, with the message naming @prefix and the input. */
static int parse_all(struct hostlist *hl, const char *s, size_t len, const char *prefix,
		     char *err, size_t errlen)
{
	size_t n = hl->n, written = hl->written;
	char q[QUOTED_SIZE];
	struct why w;
	int ret = parse_items(hl, s, len, &w);

	if (!ret)
		return 0;
	truncate_to(hl, n, written);
	if (ret == -ENOMEM)
		set_err(err, errlen, "%sFailed to expand hostlist '%s': %s", prefix,
			quote(s, len, q), strerror(ENOMEM));
	else
		set_err(err, errlen, "%sinvalid hostlist '%s': %s", prefix, quote(s, len, q),
			w.text);
	return ret;
}

int hostlist_parse(struct hostlist *hl, const char *s, char *err, size_t errlen)
{
	return parse_all(hl, s, strlen(s), "", err, errlen);
}

int hostlist_add(struct hostlist *hl, const char *name, char *err, size_t errlen)
{
	size_t len = strlen(name);
	char q[QUOTED_SIZE];

	if (len && strcspn(name, "[], \t\n\r\v\f") == len)
		return parse_all(hl, name, len, "", err, errlen);
	set_err(err, errlen, "invalid host name '%s'", quote(name, len, q));
	return -EINVAL;
}

/* ---- files ---- */

/* The hostlist of one line: what is before '#', without blanks around it. */
static size_t line_text(const char *line, size_t len, const char **start)
{
	const char *hash_sign = memchr(line, '#', len);

	if (hash_sign)
		len = (size_t)(hash_sign - line);
	while (len && is_space(*line)) {
		line++;
		len--;
	}
	while (len && is_space(line[len - 1]))
		len--;
	*start = line;
	return len;
}

static int parse_lines(struct hostlist *hl, const char *path, const char *buf, size_t len,
		       char *err, size_t errlen)
{
	char q[QUOTED_SIZE], prefix[QUOTED_SIZE + 32];
	size_t off = 0, lineno = 0;
	int ret;

	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off), *text;
		size_t linelen = nl ? (size_t)(nl - buf) - off : len - off;
		size_t tlen = line_text(buf + off, linelen, &text);

		lineno++;
		off += linelen + 1;
		if (!tlen)
			continue;
		snprintf(prefix, sizeof(prefix), "%s:%zu: ", quote(path, strlen(path), q), lineno);
		if ((ret = parse_all(hl, text, tlen, prefix, err, errlen)))
			return ret;
	}
	return 0;
}

int hostlist_read_file(struct hostlist *hl, const char *path, char *err, size_t errlen)
{
	size_t len, n = hl->n, written = hl->written;
	char q[QUOTED_SIZE], *buf = NULL;
	mode_t mode = 0;
	/* Not a FIFO nobody writes (waited on for ever), nor a device read without end. */
	int ret = file_read_all(path, HOSTLIST_FILE_MAX, 0, &buf, &len, &mode);

	if (ret == -EINVAL && mode) {
		set_err(err, errlen, "Failed to read hostlist file '%s': it is %s, not a regular file",
			quote(path, strlen(path), q), file_kind(mode));
		return -EINVAL;
	}
	if (ret) {
		set_err(err, errlen, "Failed to read hostlist file '%s': %s",
			quote(path, strlen(path), q),
			ret == -EFBIG ? "larger than 16 MiB" : strerror(-ret));
		return ret;
	}
	ret = parse_lines(hl, path, buf, len, err, errlen);
	/* An empty file is an empty list, refused as -w ' ' is: never "no -w at all". */
	if (!ret && hl->written == written) {
		set_err(err, errlen, "invalid hostlist file '%s': names no host",
			quote(path, strlen(path), q));
		ret = -EINVAL;
	}
	if (ret)
		truncate_to(hl, n, written);
	free(buf);
	return ret;
}

int hostlist_parse_arg(struct hostlist *hl, const char *arg, char *err, size_t errlen)
{
	if (arg[0] == '@')
		return hostlist_read_file(hl, arg + 1, err, errlen);
	return hostlist_parse(hl, arg, err, errlen);
}

/* ---- folding ---- */

/* A number in a name as written: "007" is 7, 3 digits, padded. */
struct fnum {
	unsigned long long v;
	size_t len;
	bool pad;
};

/* A name split for folding: its numbers, and the rest with "%s" for each. */
struct fname {
	char *pat;
	struct fnum *nums;
	size_t d;
};

/*
 * One position of a folded line: a single number (text NULL), or a folded
 * set "1-3,5" of count numbers whose smallest is first.
 */
struct axis {
	char *text;
	size_t count;
	struct fnum first;
};

/* A line of the output: a pattern and a number or set at each "%s". */
struct fline {
	const char *pat;
	size_t d;
	struct axis *ax;
};

struct sbuf {
	char *s;
	size_t len, cap;
	int err;
};

static void sb_add(struct sbuf *sb, const char *s, size_t len)
{
	if (sb->err || grow((void **)&sb->s, &sb->cap, sb->len + len + 1, 1)) {
		sb->err = -ENOMEM;
		return;
	}
	memcpy(sb->s + sb->len, s, len);
	sb->len += len;
	sb->s[sb->len] = '\0';
}

static void sb_num(struct sbuf *sb, unsigned long long v, int width)
{
	char buf[DIGITS_MAX + 2];

	sb_add(sb, buf, (size_t)snprintf(buf, sizeof(buf), "%0*llu", width, v));
}

/* Order of numbers in a group, as nodeset's: by length, then value. */
static int fnum_cmp(const struct fnum *a, const struct fnum *b)
{
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->v < b->v ? -1 : a->v > b->v;
}

/* Whether @next may continue a range begun by @start (nodeset's padding rule). */
static bool same_width(const struct fnum *start, const struct fnum *next)
{
	return start->pad ? next->len == start->len : !next->pad;
}

/* Sorted distinct numbers as "1-3,5" or "08-10"; a range keeps one width. */
static void fold_nums(struct sbuf *sb, const struct fnum *v, size_t n)
{
	size_t i = 0, j;

	while (i < n) {
		int width = v[i].pad ? (int)v[i].len : 0;

		for (j = i; j + 1 < n && v[j + 1].v == v[j].v + 1 && same_width(&v[i], &v[j + 1]); j++)
			;
		sb_num(sb, v[i].v, width);
		if (j > i) {
			sb_add(sb, "-", 1);
			sb_num(sb, v[j].v, width);
		}
		if (j + 1 < n)
			sb_add(sb, ",", 1);
		i = j + 1;
	}
}

/* @name into its pattern and numbers; -EINVAL when it is no host name. */
static int fname_split(const char *name, struct fname *f)
{
	size_t len = strlen(name), i, d = 0;
	char *p;

	if (!len || len > HOSTLIST_NAME_MAX || name[0] == '-')
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!name_char(name[i]))
			return -EINVAL;
	/* Room for every number, and "%s" is never longer than the digits it stands for plus one. */
	f->nums = malloc(len * sizeof(*f->nums) + 2 * len + 1);
	if (!f->nums)
		return -ENOMEM;
	p = f->pat = (char *)(f->nums + len);
	for (i = 0; i < len;) {
		size_t n = 0;

		while (i + n < len && is_digit(name[i + n]))
			n++;
		if (n && n <= DIGITS_MAX) {
			parse_num(name + i, n, &f->nums[d].v);
			f->nums[d].len = n;
			f->nums[d++].pad = padded(name + i, n);
			p = stpcpy(p, "%s");
			i += n;
		} else if (n) {
			memcpy(p, name + i, n);
			p += n;
			i += n;
		} else {
			*p++ = name[i++];
		}
	}
	*p = '\0';
	f->d = d;
	return 0;
}

static int fname_cmp(const void *pa, const void *pb)
{
	const struct fname *a = pa, *b = pb;
	int c = strcmp(a->pat, b->pat);
	size_t k;

	/* The same pattern has the same count of numbers. */
	for (k = 0; !c && k < a->d; k++)
		c = fnum_cmp(&a->nums[k], &b->nums[k]);
	return c;
}

/* Whether @a and @b differ only in their last number. */
static bool same_but_last(const struct fname *a, const struct fname *b)
{
	size_t k;

	if (strcmp(a->pat, b->pat))
		return false;
	for (k = 0; k + 1 < a->d; k++)
		if (fnum_cmp(&a->nums[k], &b->nums[k]))
			return false;
	return true;
}

/* Equal when the same numbers: a set's text is the same for the same set. */
static int axis_cmp(const struct axis *a, const struct axis *b)
{
	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	if (a->count == 1)
		return fnum_cmp(&a->first, &b->first);
	return strcmp(a->text, b->text);
}

/* Lines alike but at position *@axis sort together, by that position. */
static int fline_cmp(const void *pa, const void *pb, void *axis)
{
	const struct fline *a = pa, *b = pb;
	size_t k, merge_axis = *(const size_t *)axis;
	int c = strcmp(a->pat, b->pat);

	for (k = 0; !c && k < a->d; k++)
		if (k != merge_axis)
			c = axis_cmp(&a->ax[k], &b->ax[k]);
	if (!c && merge_axis < a->d)
		c = axis_cmp(&a->ax[merge_axis], &b->ax[merge_axis]);
	return c;
}

/* The order of the output: by pattern, then by the first number at each position. */
static int fline_out_cmp(const void *pa, const void *pb)
{
	const struct fline *a = pa, *b = pb;
	int c = strcmp(a->pat, b->pat);
	size_t k;

	for (k = 0; !c && k < a->d; k++)
		c = fnum_cmp(&a->ax[k].first, &b->ax[k].first);
	return c;
}

static bool mergeable(const struct fline *a, const struct fline *b, size_t axis)
{
	size_t k;

	if (strcmp(a->pat, b->pat) || axis + 1 >= a->d)
		return false;
	for (k = 0; k < a->d; k++)
		if (k != axis && axis_cmp(&a->ax[k], &b->ax[k]))
			return false;
	return true;
}

/* Set @ax to the folded @n numbers of @v (sorted, distinct). */
static int axis_fold(struct axis *ax, const struct fnum *v, size_t n)
{
	struct sbuf sb = { 0 };

	fold_nums(&sb, v, n);
	if (sb.err)
		return sb.err;
	free(ax->text);
	ax->text = sb.s;
	ax->count = n;
	ax->first = v[0];
	return 0;
}

struct folding {
	struct fname *names;
	size_t n;
	struct fline *lines;
	size_t nlines;
	struct axis *axes;	/* every line's axes, one after the other */
	struct fnum *tmp;	/* numbers being folded, at most n */
};

static void fline_free(struct fline *l)
{
	size_t k;

	for (k = 0; k < l->d; k++)
		free(l->ax[k].text);
}

static void folding_free(struct folding *fo)
{
	size_t i;

	for (i = 0; i < fo->nlines; i++)
		fline_free(&fo->lines[i]);
	for (i = 0; i < fo->n; i++)
		free(fo->names[i].nums);
	free(fo->names);
	free(fo->lines);
	free(fo->axes);
	free(fo->tmp);
}

static int split_all(struct folding *fo, const char *const *names, size_t n)
{
	size_t total = 0, i;
	int ret;

	fo->names = calloc(n ? n : 1, sizeof(*fo->names));
	fo->lines = calloc(n ? n : 1, sizeof(*fo->lines));
	fo->tmp = calloc(n ? n : 1, sizeof(*fo->tmp));
	if (!fo->names || !fo->lines || !fo->tmp)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if ((ret = fname_split(names[i], &fo->names[i])))
			return ret;
		fo->n++;
		total += fo->names[i].d;
	}
	fo->axes = calloc(total ? total : 1, sizeof(*fo->axes));
	return fo->axes ? 0 : -ENOMEM;
}

/* Sorted names into lines, each the names that differ only in their last number. */
static int fold_last(struct folding *fo)
{
	struct axis *ax = fo->axes;
	size_t i = 0, j, k, m;
	int ret;

	qsort(fo->names, fo->n, sizeof(*fo->names), fname_cmp);
	while (i < fo->n) {
		struct fname *f = &fo->names[i];
		struct fline *l = &fo->lines[fo->nlines++];

		*l = (struct fline){ .pat = f->pat, .d = f->d, .ax = ax };
		ax += f->d;
		for (k = 0; k < f->d; k++)
			l->ax[k] = (struct axis){ .count = 1, .first = f->nums[k] };
		for (j = i, m = 0; j < fo->n && same_but_last(f, &fo->names[j]); j++)
			if (f->d && (j == i || fname_cmp(&fo->names[j - 1], &fo->names[j])))
				fo->tmp[m++] = fo->names[j].nums[f->d - 1];
		if (f->d && (ret = axis_fold(&l->ax[f->d - 1], fo->tmp, m)))
			return ret;
		i = j;
	}
	return 0;
}

/* Merge lines that differ only at position @axis (all later ones folded already). */
static int fold_axis(struct folding *fo, size_t axis)
{
	size_t i = 0, j, m, x, out = 0;
	int ret;

	qsort_r(fo->lines, fo->nlines, sizeof(*fo->lines), fline_cmp, &axis);
	while (i < fo->nlines) {
		struct fline *l = &fo->lines[i];

		for (j = i + 1; j < fo->nlines && mergeable(l, &fo->lines[j], axis); j++)
			;
		for (x = i, m = 0; j > i + 1 && x < j; x++)
			fo->tmp[m++] = fo->lines[x].ax[axis].first;
		if (m && (ret = axis_fold(&l->ax[axis], fo->tmp, m)))
			return ret;
		/* The merged lines' own sets are in the first one now. */
		for (x = i + 1; x < j; x++)
			fline_free(&fo->lines[x]);
		fo->lines[out++] = *l;
		i = j;
	}
	fo->nlines = out;
	return 0;
}

static void put_axis(struct sbuf *sb, const struct axis *ax)
{
	if (!ax->text) {
		sb_num(sb, ax->first.v, (int)ax->first.len);
		return;
	}
	if (ax->count > 1)
		sb_add(sb, "[", 1);
	sb_add(sb, ax->text, strlen(ax->text));
	if (ax->count > 1)
		sb_add(sb, "]", 1);
}

static void put_line(struct sbuf *sb, const struct fline *l)
{
	const char *p = l->pat, *mark;
	size_t k = 0;

	while ((mark = strstr(p, "%s"))) {
		sb_add(sb, p, (size_t)(mark - p));
		put_axis(sb, &l->ax[k++]);
		p = mark + 2;
	}
	sb_add(sb, p, strlen(p));
}

int hostlist_fold(const char *const *names, size_t n, char **out)
{
	struct folding fo = { 0 };
	struct sbuf sb = { 0 };
	size_t i, maxd = 0;
	int ret;

	*out = NULL;
	if ((ret = split_all(&fo, names, n)) || (ret = fold_last(&fo)))
		goto err_fold;
	for (i = 0; i < fo.nlines; i++)
		if (fo.lines[i].d > maxd)
			maxd = fo.lines[i].d;
	/* Last position first; then each earlier one over lines alike elsewhere. */
	for (i = maxd >= 2 ? maxd - 1 : 0; i-- > 0;)
		if ((ret = fold_axis(&fo, i)))
			goto err_fold;
	qsort(fo.lines, fo.nlines, sizeof(*fo.lines), fline_out_cmp);
	sb_add(&sb, "", 0);
	for (i = 0; i < fo.nlines; i++) {
		if (i)
			sb_add(&sb, ",", 1);
		put_line(&sb, &fo.lines[i]);
	}
	if ((ret = sb.err))
		goto err_fold;
	*out = sb.s;
	folding_free(&fo);
	return 0;
err_fold:
	free(sb.s);
	folding_free(&fo);
	return ret;
}

int hostlist_str(const struct hostlist *hl, char **out)
{
	return hostlist_fold((const char *const *)hl->names, hl->n, out);
}
