// SPDX-License-Identifier: MIT
/*
 * Slurm's switch tree, read (see topology.h).  One pass makes the
 * switches and keeps each one's Switches= and Nodes= text; the tree is
 * then joined (children, loops, one root) and the run's nodes hung on
 * their leaves, each rule failing with the one line that names its value.
 */
#include <errno.h>

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/text.h"
#include "launch/hostlist.h"
#include "mesh/topology.h"

/* A value quoted in a message is cut to this many bytes. */
#define QUOTE_MAX 64
/* More switches than this is not a fabric's tree (a 100 000-GPU fabric has a few thousand). */
#define TOPO_SWITCHES_MAX 65536

struct tparse {
	const char *file;
	bool scontrol;
	char *const *names;
	uint32_t n;
	uint32_t *byname;	/* indexes of names sorted by name */
	struct topology *t;
	char **kids, **nodes;	/* [nsw]: Switches= and Nodes= as written, or NULL */
	uint32_t cap;
	char *err;
	size_t errlen;
};

static int fail(struct tparse *p, uint32_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "FILE:LINE: what" (@line 0: "FILE: what"); -EINVAL. */
static int fail(struct tparse *p, uint32_t line, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(p->err, p->errlen, "%s:%u: %s", p->file, line, what);
	else
		snprintf(p->err, p->errlen, "%s: %s", p->file, what);
	return -EINVAL;
}

/* @s (@len bytes) safe to show, cut to QUOTE_MAX. */
static const char *q(const char *s, size_t len, char *buf, size_t size)
{
	return text_safe_n(s, len < QUOTE_MAX ? len : QUOTE_MAX, buf, size, 0);
}

static int by_name(const void *x, const void *y, void *names)
{
	char *const *nm = names;

	return strcmp(nm[*(const uint32_t *)x], nm[*(const uint32_t *)y]);
}

/* The run's index of node @name, or TOPO_NONE. */
static uint32_t node_index(const struct tparse *p, const char *name)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(p->names[p->byname[mid]], name);

		if (!c)
			return p->byname[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return TOPO_NONE;
}

static uint32_t switch_index(const struct topology *t, const char *name)
{
	uint32_t i;

	for (i = 0; i < t->nsw; i++)
		if (!strcmp(t->sw[i].name, name))
			return i;
	return TOPO_NONE;
}

/* ---- one logical line: SwitchName=X [Switches=..] [Nodes=..] [LinkSpeed=N] ---- */

static int switch_add(struct tparse *p, const char *name, size_t len, uint32_t line)
{
	char buf[QUOTE_MAX * 4 + 8], *nm = strndup(name, len);
	uint32_t was;

	if (!nm)
		return -ENOMEM;
	if (!len || (was = switch_index(p->t, nm)) != TOPO_NONE) {
		free(nm);
		if (!len)
			return fail(p, line, "empty SwitchName=");
		return fail(p, line, "switch '%s' is defined twice (first on line %u)",
			    q(name, len, buf, sizeof(buf)), p->t->sw[was].line);
	}
	if (p->t->nsw == p->cap) {
		uint32_t cap = p->cap * 2 + 16;
		struct topo_switch *sw = cap > TOPO_SWITCHES_MAX ? NULL : realloc(p->t->sw, cap * sizeof(*sw));
		char **k = sw ? realloc(p->kids, cap * sizeof(*k)) : NULL;
		char **nd = k ? (p->kids = k, realloc(p->nodes, cap * sizeof(*nd))) : NULL;

		if (sw)
			p->t->sw = sw;
		if (!nd) {
			free(nm);
			return cap > TOPO_SWITCHES_MAX ? fail(p, line, "more than %d switches", TOPO_SWITCHES_MAX)
						       : -ENOMEM;
		}
		p->nodes = nd;
		p->cap = cap;
	}
	p->t->sw[p->t->nsw] = (struct topo_switch){ .name = nm, .parent = TOPO_NONE, .line = line };
	p->kids[p->t->nsw] = p->nodes[p->t->nsw] = NULL;
	p->t->nsw++;
	return 0;
}

/* Switches= or Nodes= of the line's switch: kept as written, once. */
static int list_set(struct tparse *p, char **slot, const char *key, const char *val, size_t len,
		    uint32_t line)
{
	char buf[QUOTE_MAX * 4 + 8];

	if (*slot)
		return fail(p, line, "%s given twice", key);
	if (!len)
		return fail(p, line, "empty %s of switch '%s'", key,
			    q(p->t->sw[p->t->nsw - 1].name, strlen(p->t->sw[p->t->nsw - 1].name), buf,
			      sizeof(buf)));
	*slot = strndup(val, len);
	return *slot ? 0 : -ENOMEM;
}

static int speed_set(struct tparse *p, const char *val, size_t len, uint32_t line)
{
	char buf[QUOTE_MAX * 4 + 8], *end;
	char num[32];
	unsigned long long v;

	if (!len || len >= sizeof(num))
		return fail(p, line, "bad LinkSpeed '%s': a whole number", q(val, len, buf, sizeof(buf)));
	memcpy(num, val, len);
	num[len] = '\0';
	v = strtoull(num, &end, 10);
	if (*end || num[0] < '0' || num[0] > '9')
		return fail(p, line, "bad LinkSpeed '%s': a whole number", q(val, len, buf, sizeof(buf)));
	p->t->sw[p->t->nsw - 1].link_speed = v;
	return 0;
}

/* One KEY=VALUE of a line (@first: the line's first). */
static int pair_read(struct tparse *p, const char *tok, size_t len, bool first, uint32_t line)
{
	char buf[QUOTE_MAX * 4 + 8];
	const char *eq = memchr(tok, '=', len);
	size_t klen = eq ? (size_t)(eq - tok) : len, vlen = eq ? len - klen - 1 : 0;
	uint32_t cur = p->t->nsw - 1;

#define KEY(k) (klen == strlen(k) && !strncasecmp(tok, k, klen))
	if (first && !KEY("SwitchName"))
		return fail(p, line, "expected SwitchName=, not '%s'", q(tok, len, buf, sizeof(buf)));
	if (!eq)
		return fail(p, line, "'%s' is not KEY=VALUE", q(tok, len, buf, sizeof(buf)));
	if (first)
		return switch_add(p, eq + 1, vlen, line);
	if (KEY("SwitchName"))
		return fail(p, line, "a second SwitchName= on one line");
	if (KEY("Switches"))
		return list_set(p, &p->kids[cur], "Switches=", eq + 1, vlen, line);
	if (KEY("Nodes"))
		return list_set(p, &p->nodes[cur], "Nodes=", eq + 1, vlen, line);
	if (KEY("LinkSpeed"))
		return speed_set(p, eq + 1, vlen, line);
#undef KEY
	/* scontrol prints Level= and, by release, more: what it adds is not the tree. */
	if (p->scontrol)
		return 0;
	return fail(p, line, "unknown key '%s' (SwitchName, Switches, Nodes, LinkSpeed)",
		    q(tok, klen, buf, sizeof(buf)));
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int line_read(struct tparse *p, const char *s, uint32_t line)
{
	bool first = true;
	int ret = 0;

	while (!ret && *s) {
		size_t len = 0;

		while (blank(*s))
			s++;
		while (s[len] && !blank(s[len]))
			len++;
		if (!len)
			break;
		ret = pair_read(p, s, len, first, line);
		first = false;
		s += len;
	}
	return ret;
}

/*
 * The logical lines of @text: `#` to the end of a line dropped, a line
 * ending in `\` joined to the next (Slurm's config parser does both, the
 * comment first), each numbered by its first line.
 */
static int lines_read(struct tparse *p, const char *text)
{
	size_t cap = 256, used = 0;
	char *buf = malloc(cap);
	uint32_t lineno = 0, start = 0;
	int ret = buf ? 0 : -ENOMEM;

	while (!ret && *text) {
		const char *nl = strchr(text, '\n'), *hash;
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		bool more;

		lineno++;
		hash = memchr(text, '#', len);
		if (hash)
			len = (size_t)(hash - text);
		while (len && blank(text[len - 1]))
			len--;
		more = len && text[len - 1] == '\\';
		if (more)
			len--;
		if (!used)
			start = lineno;
		if (used + len + 2 > cap) {
			char *nb = realloc(buf, cap = (used + len + 2) * 2);

			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
		}
		memcpy(buf + used, text, len);
		used += len;
		buf[used++] = ' ';
		buf[used] = '\0';
		if (!more) {
			ret = line_read(p, buf, start);
			used = 0;
		}
		text = nl ? nl + 1 : text + len + strlen(text + len);
	}
	if (!ret && used)
		ret = line_read(p, buf, start);
	free(buf);
	return ret;
}

/* ---- the tree ---- */

/* The names of hostlist @text into @hl; its error as the line's. */
static int names_of(struct tparse *p, const char *text, uint32_t line, const char *key,
		    struct hostlist *hl)
{
	char err[300];
	int ret;

	hostlist_init(hl);
	ret = hostlist_parse(hl, text, err, sizeof(err));
	if (ret == -ENOMEM)
		return ret;
	return ret ? fail(p, line, "%s %s", key, err) : 0;
}

static int children_join(struct tparse *p, uint32_t s)
{
	struct topology *t = p->t;
	char b1[QUOTE_MAX * 4 + 8], b2[QUOTE_MAX * 4 + 8], b3[QUOTE_MAX * 4 + 8];
	struct hostlist hl;
	size_t i;
	int ret = names_of(p, p->kids[s], t->sw[s].line, "Switches=", &hl);

	for (i = 0; !ret && i < hl.n; i++) {
		uint32_t c = switch_index(t, hl.names[i]);

		if (c == TOPO_NONE)
			ret = fail(p, t->sw[s].line, "switch '%s' of '%s' is not defined",
				   q(hl.names[i], strlen(hl.names[i]), b1, sizeof(b1)),
				   q(t->sw[s].name, strlen(t->sw[s].name), b2, sizeof(b2)));
		else if (t->sw[c].parent != TOPO_NONE)
			ret = fail(p, t->sw[s].line, "switch '%s' is under both '%s' and '%s'",
				   q(hl.names[i], strlen(hl.names[i]), b1, sizeof(b1)),
				   q(t->sw[t->sw[c].parent].name, strlen(t->sw[t->sw[c].parent].name), b2, sizeof(b2)),
				   q(t->sw[s].name, strlen(t->sw[s].name), b3, sizeof(b3)));
		else
			t->sw[c].parent = s;
	}
	hostlist_free(&hl);
	return ret;
}

/* Every switch reaches a root within nsw steps, or it is in a loop; then one root. */
static int tree_check(struct tparse *p)
{
	struct topology *t = p->t;
	char b1[QUOTE_MAX * 4 + 8], b2[QUOTE_MAX * 4 + 8];
	uint32_t s, a, steps;

	t->root = TOPO_NONE;
	for (s = 0; s < t->nsw; s++) {
		for (a = s, steps = 0; t->sw[a].parent != TOPO_NONE && steps <= t->nsw; steps++)
			a = t->sw[a].parent;
		/* Past nsw steps @a is in the loop itself: name it, not a switch hanging below. */
		if (t->sw[a].parent != TOPO_NONE)
			return fail(p, t->sw[a].line, "switch '%s' is in a loop: it is below itself",
				    q(t->sw[a].name, strlen(t->sw[a].name), b1, sizeof(b1)));
		t->sw[s].depth = steps;
		if (a == s && t->root == TOPO_NONE)
			t->root = s;
		else if (a == s)
			return fail(p, t->sw[s].line, "two roots, '%s' and '%s': a tree has one top switch",
				    q(t->sw[t->root].name, strlen(t->sw[t->root].name), b1, sizeof(b1)),
				    q(t->sw[s].name, strlen(t->sw[s].name), b2, sizeof(b2)));
	}
	return 0;
}

static int leaf_hang(struct tparse *p, uint32_t s)
{
	struct topology *t = p->t;
	char b1[QUOTE_MAX * 4 + 8], b2[QUOTE_MAX * 4 + 8], b3[QUOTE_MAX * 4 + 8];
	struct hostlist hl;
	size_t i;
	int ret = names_of(p, p->nodes[s], t->sw[s].line, "Nodes=", &hl);

	for (i = 0; !ret && i < hl.n; i++) {
		uint32_t v = node_index(p, hl.names[i]);

		if (v == TOPO_NONE)
			continue;
		if (t->leaf[v] != TOPO_NONE)
			ret = fail(p, t->sw[s].line, "node '%s' is under two leaves, '%s' (line %u) and '%s'",
				   q(hl.names[i], strlen(hl.names[i]), b1, sizeof(b1)),
				   q(t->sw[t->leaf[v]].name, strlen(t->sw[t->leaf[v]].name), b2, sizeof(b2)),
				   t->sw[t->leaf[v]].line, q(t->sw[s].name, strlen(t->sw[s].name), b3, sizeof(b3)));
		else
			t->leaf[v] = s;
	}
	hostlist_free(&hl);
	return ret;
}

/* Each switch's children or nodes, as the file allows them. */
static int kinds_check(struct tparse *p, uint32_t s)
{
	char b[QUOTE_MAX * 4 + 8];
	struct topo_switch *w = &p->t->sw[s];

	if (p->scontrol && p->kids[s] && p->nodes[s]) {
		free(p->nodes[s]);	/* scontrol's union of the leaves below */
		p->nodes[s] = NULL;
	}
	if (!p->kids[s] && !p->nodes[s])
		return fail(p, w->line, "switch '%s' has neither Nodes= nor Switches=",
			    q(w->name, strlen(w->name), b, sizeof(b)));
	if (p->kids[s] && p->nodes[s])
		return fail(p, w->line, "switch '%s' has both Nodes= and Switches=: a leaf holds nodes, "
			    "the switches above hold switches", q(w->name, strlen(w->name), b, sizeof(b)));
	w->leaf = p->nodes[s] != NULL;
	return 0;
}

static int tree_make(struct tparse *p)
{
	struct topology *t = p->t;
	char b[QUOTE_MAX * 4 + 8];
	uint32_t s, v;
	int ret = t->nsw ? 0 : fail(p, 0, "no SwitchName= line");

	for (s = 0; !ret && s < t->nsw; s++)
		ret = kinds_check(p, s);
	for (s = 0; !ret && s < t->nsw; s++)
		ret = p->kids[s] ? children_join(p, s) : 0;
	ret = ret ?: tree_check(p);
	for (s = 0; !ret && s < t->nsw; s++)
		ret = p->nodes[s] ? leaf_hang(p, s) : 0;
	for (v = 0; !ret && v < p->n; v++)
		if (t->leaf[v] == TOPO_NONE)
			ret = fail(p, 0, "node '%s' of -w is under no switch",
				   q(p->names[v], strlen(p->names[v]), b, sizeof(b)));
	return ret;
}

int topology_parse(const char *text, const char *file, bool scontrol, char *const *names,
		   uint32_t n, struct topology *t, char *err, size_t errlen)
{
	struct tparse p = { .file = file, .scontrol = scontrol, .names = names, .n = n, .t = t,
			    .err = err, .errlen = errlen };
	uint32_t i;
	int ret;

	memset(t, 0, sizeof(*t));
	t->nodes = n;
	t->root = TOPO_NONE;
	t->leaf = malloc(((size_t)n + 1) * sizeof(*t->leaf));
	p.byname = malloc(((size_t)n + 1) * sizeof(*p.byname));
	ret = t->leaf && p.byname ? 0 : -ENOMEM;
	for (i = 0; !ret && i < n; i++)
		t->leaf[i] = TOPO_NONE, p.byname[i] = i;
	if (!ret) {
		qsort_r(p.byname, n, sizeof(*p.byname), by_name, (void *)names);
		ret = lines_read(&p, text) ?: tree_make(&p);
	}
	for (i = 0; i < t->nsw; i++) {
		free(p.kids[i]);
		free(p.nodes[i]);
	}
	free(p.kids);
	free(p.nodes);
	free(p.byname);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: %s", file, strerror(ENOMEM));
	return ret;
}

void topology_free(struct topology *t)
{
	uint32_t i;

	for (i = 0; t->sw && i < t->nsw; i++)
		free(t->sw[i].name);
	free(t->sw);
	free(t->leaf);
	memset(t, 0, sizeof(*t));
}

bool topology_under(const struct topology *t, uint32_t a, uint32_t b)
{
	while (a != TOPO_NONE && a != b)
		a = t->sw[a].parent;
	return a == b;
}

uint32_t topology_common(const struct topology *t, uint32_t a, uint32_t b)
{
	while (t->sw[a].depth > t->sw[b].depth)
		a = t->sw[a].parent;
	while (t->sw[b].depth > t->sw[a].depth)
		b = t->sw[b].parent;
	while (a != b) {
		a = t->sw[a].parent;
		b = t->sw[b].parent;
	}
	return a;
}

int topology_leaf_nodes(const struct topology *t, char *const *names, uint32_t s, char **out)
{
	const char **on = calloc((size_t)t->nodes + 1, sizeof(*on));
	uint32_t v, k = 0;
	int ret;

	*out = NULL;
	if (!on)
		return -ENOMEM;
	for (v = 0; v < t->nodes; v++)
		if (t->leaf[v] == s)
			on[k++] = names[v];
	ret = k ? hostlist_fold(on, k, out) : -ENOENT;
	free(on);
	return ret;
}

/* A leaf's "hostlist": its nodes folded, null when it has none or they do not fold. */
static struct json_object *leaf_hostlist(const struct topology *t, char *const *names, uint32_t s)
{
	struct json_object *o;
	char *list = NULL;

	if (!t->sw[s].leaf || topology_leaf_nodes(t, names, s, &list))
		return NULL;
	o = json_object_new_string(list);
	free(list);
	return o;
}

struct json_object *topology_json(const struct topology *t, char *const *names)
{
	struct json_object *a = json_object_new_array();
	uint32_t s, v, *nodes = calloc((size_t)t->nsw + 1, sizeof(*nodes));

	for (v = 0; nodes && v < t->nodes; v++)
		nodes[t->leaf[v]]++;
	for (s = 0; a && nodes && s < t->nsw; s++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "switch", json_object_new_string(t->sw[s].name));
		json_object_object_add(o, "parent", t->sw[s].parent == TOPO_NONE ? NULL :
					  json_object_new_string(t->sw[t->sw[s].parent].name));
		json_object_object_add(o, "nodes", t->sw[s].leaf ? json_object_new_int64(nodes[s]) : NULL);
		json_object_object_add(o, "hostlist", leaf_hostlist(t, names, s));
		json_object_array_add(a, o);
	}
	free(nodes);
	return a;
}
