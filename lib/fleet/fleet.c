// SPDX-License-Identifier: MIT
/* The fleet in memory: nodes by name, their text, their documents (see fleet.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/text.h"
#include "doctor/doc.h"
#include "fleet/fleet.h"

/* The longest reason kept for a node: one line of the report. */
#define ERROR_MAX 512
/* How much of a node's junk its reason quotes. */
#define SNIPPET_MAX 120
/* Lines opening '{' tried as the start of a document among other lines. */
#define EMBED_TRIES 16

void fleet_init(struct fleet *fleet)
{
	memset(fleet, 0, sizeof(*fleet));
}

static void node_free(struct fleet_node *nd)
{
	free(nd->name);
	free(nd->doc);
	free(nd->error);
	free(nd->text);
	free(nd->rejected);
	free(nd->hint);
	free(nd);
}

void fleet_free(struct fleet *fleet)
{
	size_t i;

	for (i = 0; i < fleet->n; i++)
		node_free(fleet->nodes[i]);
	free(fleet->nodes);
	free(fleet->slots);
	json_object_put(fleet->notes);
	fleet_init(fleet);
}

bool fleet_host_ok(const char *s, size_t len)
{
	size_t i;

	if (!len || len > HOSTLIST_NAME_MAX || s[0] == '-')
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') &&
		    c != '.' && c != '_' && c != '-')
			return false;
	}
	return true;
}

/* ---- nodes by name: open addressing over the node array ---- */

static size_t name_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return (size_t)h;
}

/* The slot holding @name, or the free slot where it would go. */
static size_t slot_of(const struct fleet *fleet, const char *name)
{
	size_t mask = fleet->nslots - 1, i = name_hash(name) & mask;

	while (fleet->slots[i] && strcmp(fleet->nodes[fleet->slots[i] - 1]->name, name))
		i = (i + 1) & mask;
	return i;
}

static int rehash(struct fleet *fleet, size_t nslots)
{
	size_t i, *old = fleet->slots;

	fleet->slots = calloc(nslots, sizeof(*fleet->slots));
	if (!fleet->slots) {
		fleet->slots = old;
		return -ENOMEM;
	}
	free(old);
	fleet->nslots = nslots;
	for (i = 0; i < fleet->n; i++)
		fleet->slots[slot_of(fleet, fleet->nodes[i]->name)] = i + 1;
	return 0;
}

struct fleet_node *fleet_find(const struct fleet *fleet, const char *name)
{
	size_t i;

	if (!fleet->nslots)
		return NULL;
	i = slot_of(fleet, name);
	return fleet->slots[i] ? fleet->nodes[fleet->slots[i] - 1] : NULL;
}

static int grow_nodes(struct fleet *fleet)
{
	size_t cap = fleet->cap ? fleet->cap * 2 : 64;
	struct fleet_node **nodes;

	if (fleet->n < fleet->cap)
		return 0;
	nodes = realloc(fleet->nodes, cap * sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	fleet->nodes = nodes;
	fleet->cap = cap;
	return 0;
}

int fleet_add(struct fleet *fleet, const char *name, struct fleet_node **out)
{
	struct fleet_node *nd = fleet_find(fleet, name);

	if (nd)
		goto found;
	if (fleet->n >= FLEET_NODES_MAX)
		return -E2BIG;
	if ((fleet->n + 1) * 2 >= fleet->nslots && rehash(fleet, fleet->nslots ? fleet->nslots * 2 : 128))
		return -ENOMEM;
	if (grow_nodes(fleet))
		return -ENOMEM;
	nd = calloc(1, sizeof(*nd));
	if (!nd || !(nd->name = strdup(name))) {
		free(nd);
		return -ENOMEM;
	}
	nd->rc = -1;
	nd->task = -1;
	fleet->nodes[fleet->n++] = nd;
	fleet->slots[slot_of(fleet, name)] = fleet->n;
found:
	if (out)
		*out = nd;
	return 0;
}

/* ---- feeding ---- */

/*
 * Follow the JSON nesting of @s, to see where a document ends and whether
 * another begins after it: -EEXIST then.  Text that is not JSON is left
 * for fleet_finish() to judge.
 */
static int scan(struct fleet_node *nd, const char *s)
{
	for (; *s; s++) {
		if (nd->in_str) {
			if (nd->esc)
				nd->esc = false;
			else if (*s == '\\')
				nd->esc = true;
			else if (*s == '"')
				nd->in_str = false;
			continue;
		}
		if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			continue;
		if (nd->ended && !nd->depth)
			return *s == '{' ? -EEXIST : 0;
		if (*s == '"')
			nd->in_str = true;
		else if (*s == '{' || *s == '[')
			nd->depth++, nd->opened++;
		else if ((*s == '}' || *s == ']') && nd->depth && !--nd->depth)
			nd->ended = true;
	}
	return 0;
}

/* Refuse the rest of @nd's text, saying why; returns @ret. */
static int reject(struct fleet *fleet, struct fleet_node *nd, int ret, const char *why)
{
	char buf[256];

	if (fleet->lineno)
		snprintf(buf, sizeof(buf), "%s (line %lu)", why, fleet->lineno);
	else
		snprintf(buf, sizeof(buf), "%s", why);
	free(nd->rejected);
	nd->rejected = strdup(buf);
	fleet->total -= nd->len;
	free(nd->text);
	nd->text = NULL;
	nd->len = nd->cap = 0;
	return nd->rejected ? ret : -ENOMEM;
}

static int append(struct fleet *fleet, struct fleet_node *nd, const char *line)
{
	size_t n = strlen(line), cap;
	char *text;

	if (nd->rejected)
		return 0;
	if (!nd->line)
		nd->line = fleet->lineno;
	nd->in_str = nd->esc = false;	/* no JSON string holds a newline */
	if (scan(nd, line) == -EEXIST)
		return reject(fleet, nd, -EEXIST, "a second document began after the first ended");
	if (nd->len + n + 1 > FLEET_DOC_MAX)
		return reject(fleet, nd, -EFBIG, "output over 4 MiB: no doctor document is that long");
	if (fleet->total + n + 1 > FLEET_TOTAL_MAX)
		return -ENOSPC;
	if (nd->len + n + 2 > nd->cap) {
		/* A document on one line (the usual) takes its size, not a page more. */
		cap = nd->cap ? nd->cap : nd->len + n + 2;
		while (cap < nd->len + n + 2)
			cap *= 2;
		text = realloc(nd->text, cap);
		if (!text)
			return -ENOMEM;
		nd->text = text;
		nd->cap = cap;
	}
	memcpy(nd->text + nd->len, line, n);
	nd->len += n;
	nd->text[nd->len++] = '\n';
	nd->text[nd->len] = '\0';
	fleet->total += n + 1;
	return 0;
}

int fleet_feed_line(struct fleet *fleet, const char *host, const char *line)
{
	struct fleet_node *nd;
	int ret = fleet_add(fleet, host, &nd);

	return ret ? ret : append(fleet, nd, line);
}

int fleet_feed_task(struct fleet *fleet, unsigned long task, const char *line)
{
	struct fleet_node *nd;
	char name[32];
	int ret;

	snprintf(name, sizeof(name), "task %lu", task);
	ret = fleet_add(fleet, name, &nd);
	if (ret)
		return ret;
	nd->task = (long)task;
	return append(fleet, nd, line);
}

int fleet_node_fail(struct fleet *fleet, const char *host, const char *fmt, ...)
{
	struct fleet_node *nd;
	char *why, *joined;
	va_list ap;
	int ret = fleet_add(fleet, host, &nd), n;

	if (ret)
		return ret;
	va_start(ap, fmt);
	n = vasprintf(&why, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	if (!nd->error) {
		nd->error = why;
		return 0;
	}
	n = asprintf(&joined, "%s; %s", nd->error, why);
	free(why);
	if (n < 0)
		return -ENOMEM;
	free(nd->error);
	nd->error = joined;
	return 0;
}

int fleet_note(struct fleet *fleet, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (!fleet->notes && !(fleet->notes = json_object_new_array()))
		return -ENOMEM;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	n = json_object_array_add(fleet->notes, json_object_new_string(s));
	free(s);
	return n ? -ENOMEM : 0;
}

int fleet_node_rc(struct fleet *fleet, const char *host, int rc)
{
	struct fleet_node *nd;
	int ret = fleet_add(fleet, host, &nd);

	if (!ret)
		nd->rc = rc;
	return ret;
}

/* ---- finishing: each node's text into its document ---- */

/* @s quoted for a reason: blanks (newlines too) squeezed, escaped, cut. */
static void snippet(const char *s, char *out, size_t len)
{
	char flat[SNIPPET_MAX * 2 + 1];
	size_t n = 0;

	s += strspn(s, " \t\r\n");
	while (*s && n + 1 < sizeof(flat)) {
		if (strchr(" \t\r\n", *s)) {
			s += strspn(s, " \t\r\n");
			if (*s)
				flat[n++] = ' ';
			continue;
		}
		flat[n++] = *s++;
	}
	flat[n] = '\0';
	text_safe(flat, out, len < SNIPPET_MAX ? len : SNIPPET_MAX, 0);
}

static const char *json_kind(struct json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_array:
		return "a JSON array";
	case json_type_string:
		return "a JSON string";
	case json_type_null:
		return "JSON null";
	case json_type_object:
		return "a JSON object";
	default:
		return "a JSON number or boolean";
	}
}

static bool str_or_null(struct json_object *o, const char *key)
{
	struct json_object *v;

	return !json_object_object_get_ex(o, key, &v) || !v ||
	       json_object_is_type(v, json_type_string);
}

/*
 * The shape summary.c relies on: checks[] of {id, status, found, fix}, node{}
 * (doctor/doc.h).  A status in another case (capitals, from an older
 * rdmactl) is rewritten as check_status_str() spells it, so the fleet's
 * document has one spelling.
 */
static bool doc_shape(struct json_object *doc, char *why, size_t len)
{
	struct json_object *checks, *c, *v;
	size_t i;
	int st;

	if (!json_object_object_get_ex(doc, DOC_CHECKS, &checks) ||
	    !json_object_is_type(checks, json_type_array)) {
		snprintf(why, len, "a JSON object without a \"%s\" array", DOC_CHECKS);
		return false;
	}
	for (i = 0; i < json_object_array_length(checks); i++) {
		c = json_object_array_get_idx(checks, i);
		if (!json_object_is_type(c, json_type_object) ||
		    !json_object_object_get_ex(c, DOC_ID, &v) || !json_object_is_type(v, json_type_string) ||
		    !json_object_object_get_ex(c, DOC_STATUS, &v) ||
		    !json_object_is_type(v, json_type_string) ||
		    !str_or_null(c, DOC_FOUND) || !str_or_null(c, DOC_FIX)) {
			snprintf(why, len, "%s[%zu] is not {\"%s\", \"%s\", \"%s\", \"%s\"}", DOC_CHECKS,
				 i, DOC_ID, DOC_STATUS, DOC_FOUND, DOC_FIX);
			return false;
		}
		st = check_status_parse(json_object_get_string(v));
		if (st < 0) {
			char q[SNIPPET_MAX];

			/* Quoted as it is: "ok " is no status, and must not show as ok. */
			text_safe(json_object_get_string(v), q, sizeof(q), 0);
			snprintf(why, len, "'%s' in %s[%zu] is no status (%s)", q, DOC_CHECKS, i,
				 check_status_list());
			return false;
		}
		if (strcmp(json_object_get_string(v), check_status_str((enum check_status)st)))
			json_object_object_add(c, DOC_STATUS,
					       json_object_new_string(check_status_str((enum check_status)st)));
	}
	if (json_object_object_get_ex(doc, DOC_NODE, &v) && !json_object_is_type(v, json_type_object)) {
		snprintf(why, len, "its \"%s\" is not an object", DOC_NODE);
		return false;
	}
	return true;
}

/* The JSON value at @text; @e and where it ended in @end.  -ENOMEM. */
static int parse_at(const char *text, size_t len, struct json_object **o,
		    enum json_tokener_error *e, size_t *end)
{
	struct json_tokener *tok = json_tokener_new();

	if (!tok)
		return -ENOMEM;
	*o = json_tokener_parse_ex(tok, text, (int)len);
	*e = json_tokener_get_error(tok);
	*end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	return 0;
}

/* Parse @nd's text; 1 and *@doc when it is a doctor document, else 0 and @why. */
static int parse_doc(const struct fleet_node *nd, struct json_object **doc, char *why,
		     size_t len)
{
	struct json_object *o;
	enum json_tokener_error e;
	size_t end;
	char q[SNIPPET_MAX];

	if (parse_at(nd->text, nd->len, &o, &e, &end))
		return -ENOMEM;
	if (e == json_tokener_continue) {
		snippet(nd->text, q, sizeof(q));
		snprintf(why, len, "the document is cut short after %zu bytes: '%s'", nd->len, q);
	} else if (e != json_tokener_success) {
		snippet(nd->text, q, sizeof(q));
		snprintf(why, len, "'%s'", q);
	} else if (nd->text[end + strspn(nd->text + end, " \t\r\n")]) {
		snippet(nd->text + end, q, sizeof(q));
		snprintf(why, len, "text after the document: '%s'", q);
	} else if (!json_object_is_type(o, json_type_object)) {
		snprintf(why, len, "%s", json_kind(o));
	} else if (doc_shape(o, why, len)) {
		*doc = o;
		return 1;
	}
	json_object_put(o);
	return 0;
}

/* Nothing but blanks in @s[0..n). */
static bool blank(const char *s, size_t n)
{
	while (n && strchr(" \t\r\n", *s) && *s)
		s++, n--;
	return !n;
}

/*
 * A document among other lines: a node's stderr gathered with 2>&1
 * ("Warning: Permanently added 'lab-a' to the list of known hosts.",
 * rdmactl's own warnings, which its document has too).  The document
 * must start and end lines of its own; the first of EMBED_TRIES lines
 * opening '{' where one does is taken.  The text beside it is quoted in
 * @beside.  1 and *@doc, 0 when there is none, or -ENOMEM.
 */
static int embedded_doc(const struct fleet_node *nd, struct json_object **doc, char *beside,
			size_t len)
{
	struct json_object *o;
	enum json_tokener_error e;
	size_t off, end, tries = 0;
	char why[ERROR_MAX], *before;

	for (off = 0; off < nd->len && tries < EMBED_TRIES; off += strcspn(nd->text + off, "\n") + 1) {
		if (nd->text[off + strspn(nd->text + off, " \t")] != '{')
			continue;
		tries++;
		if (parse_at(nd->text + off, nd->len - off, &o, &e, &end))
			return -ENOMEM;
		end += off;	/* json-c takes the blanks after a value, newlines too */
		if (e == json_tokener_success && json_object_is_type(o, json_type_object) &&
		    (nd->text[end - 1] == '\n' || blank(nd->text + end, strcspn(nd->text + end, "\n"))) &&
		    doc_shape(o, why, sizeof(why))) {
			before = blank(nd->text, off) ? NULL : strndup(nd->text, off);
			snippet(before ? before : nd->text + end, beside, len);
			free(before);
			*doc = o;
			return 1;
		}
		json_object_put(o);
	}
	return 0;
}

/* The reason @nd has no document: its launcher's causes, then what its text was. */
static int node_error(struct fleet_node *nd, const char *what)
{
	char raw[ERROR_MAX * 2], safe[ERROR_MAX], rc[32] = "";

	if (nd->rc >= 0 && !nd->error)
		snprintf(rc, sizeof(rc), " (exit code %d)", nd->rc);
	snprintf(raw, sizeof(raw), "%s%s%s%s", nd->error ? nd->error : "",
		 nd->error && what ? "; " : "", what ? what : "", rc);
	free(nd->error);
	nd->error = strdup(text_safe(raw, safe, sizeof(safe), 0));
	return nd->error ? 0 : -ENOMEM;
}

/*
 * An srun task takes the name its document gives (node.hostname), else
 * the one srun's own notes gave it, when either is a host name.
 */
static int name_task(struct fleet_node *nd, struct json_object *doc)
{
	struct json_object *node, *host;
	const char *name = nd->hint;
	char *copy;

	if (nd->task < 0)
		return 0;
	if (doc && json_object_object_get_ex(doc, DOC_NODE, &node) &&
	    json_object_object_get_ex(node, "hostname", &host) &&
	    json_object_is_type(host, json_type_string) &&
	    fleet_host_ok(json_object_get_string(host), strlen(json_object_get_string(host))))
		name = json_object_get_string(host);
	if (!name || !fleet_host_ok(name, strlen(name)))
		return 0;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(nd->name);
	nd->name = copy;
	return 0;
}

/*
 * Keep @doc as its compact text, not as a tree: a json-c tree takes ten
 * to thirty times the text's memory (an object is a 16-entry hash table),
 * which for 65 536 nodes is more than a login node has.  The report
 * parses each document again, one at a time, when it reads it.
 */
static int keep_doc(struct fleet_node *nd, struct json_object *doc)
{
	int ret = name_task(nd, doc);

	if (!ret) {
		nd->doc = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
								     JSON_C_TO_STRING_NOSLASHESCAPE));
		ret = nd->doc ? 0 : -ENOMEM;
	}
	json_object_put(doc);
	if (ret)
		return ret;
	free(nd->error);	/* it answered in full: the launcher's words are moot */
	nd->error = NULL;
	return 0;
}

static int finish_node(struct fleet *fleet, struct fleet_node *nd)
{
	char why[ERROR_MAX], what[ERROR_MAX + 64], at[32] = "", beside[SNIPPET_MAX];
	struct json_object *doc = NULL;
	int ret;

	if (nd->line)
		snprintf(at, sizeof(at), " (line %lu)", nd->line);
	if (nd->rejected)
		return node_error(nd, nd->rejected) ?: name_task(nd, NULL);
	if (!nd->len || !nd->text[strspn(nd->text, " \t\r\n")])
		return node_error(nd, nd->error ? NULL : "no output") ?: name_task(nd, NULL);
	if (nd->opened > FLEET_DOC_OBJECTS_MAX) {
		snprintf(what, sizeof(what), "output is not a doctor document%s: it opens %zu JSON "
			 "objects and arrays, and no doctor document has over %u", at, nd->opened,
			 FLEET_DOC_OBJECTS_MAX);
		return node_error(nd, what) ?: name_task(nd, NULL);
	}
	ret = parse_doc(nd, &doc, why, sizeof(why));
	if (!ret && (ret = embedded_doc(nd, &doc, beside, sizeof(beside))) > 0 &&
	    fleet_note(fleet, "%s%s: lines beside its document: '%s'", nd->name, at, beside)) {
		json_object_put(doc);
		return -ENOMEM;
	}
	if (ret < 0)
		return ret;
	if (ret)
		return keep_doc(nd, doc);
	snprintf(what, sizeof(what), "output is not a doctor document%s: %s", at, why);
	return node_error(nd, what) ?: name_task(nd, NULL);
}

static int by_name(const void *a, const void *b)
{
	return strverscmp((*(struct fleet_node *const *)a)->name,
			  (*(struct fleet_node *const *)b)->name);
}

/* After renaming, two nodes of one name: two tasks on one host, or a task and a host. */
static int duplicates(const struct fleet *fleet, char *err, size_t errlen)
{
	static const char one_task[] = "run one srun task per node (srun --ntasks-per-node=1)";
	char lines[64];
	size_t i;

	for (i = 1; i < fleet->n; i++) {
		const struct fleet_node *a = fleet->nodes[i - 1], *b = fleet->nodes[i];

		if (strcmp(a->name, b->name))
			continue;
		if (a->line > b->line) {
			const struct fleet_node *t = a;

			a = b, b = t;
		}
		if (a->line == b->line)
			snprintf(lines, sizeof(lines), "line %lu", a->line);
		else
			snprintf(lines, sizeof(lines), "lines %lu and %lu", a->line, b->line);
		if (a->task >= 0 && b->task >= 0)
			snprintf(err, errlen, "srun tasks %ld and %ld both ran on host '%s' (%s): %s",
				 a->task, b->task, a->name, lines, one_task);
		else
			snprintf(err, errlen, "host '%s' answers twice (%s): %s", a->name, lines,
				 one_task);
		return -EEXIST;
	}
	return 0;
}

int fleet_finish(struct fleet *fleet, char *err, size_t errlen)
{
	size_t i;
	int ret;

	if (fleet->finished)
		return 0;
	for (i = 0; i < fleet->n; i++) {
		struct fleet_node *nd = fleet->nodes[i];

		if ((ret = finish_node(fleet, nd)))
			return ret;
		free(nd->text);
		nd->text = NULL;
		nd->len = nd->cap = 0;
	}
	fleet->total = 0;
	qsort(fleet->nodes, fleet->n, sizeof(*fleet->nodes), by_name);
	if ((ret = duplicates(fleet, err, errlen)))
		return ret;
	if (fleet->nslots && (ret = rehash(fleet, fleet->nslots)))
		return ret;
	fleet->finished = true;
	return 0;
}

struct json_object *fleet_doc(const struct fleet_node *nd)
{
	return nd->doc ? json_tokener_parse(nd->doc) : NULL;
}

size_t fleet_reached(const struct fleet *fleet)
{
	size_t i, n = 0;

	for (i = 0; i < fleet->n; i++)
		n += fleet->nodes[i]->doc != NULL;
	return n;
}

char *fleet_fold(const struct fleet *fleet, const size_t *idx, size_t n)
{
	const char **hosts = malloc((n + 1) * sizeof(*hosts));
	size_t i, nh = 0, extra = 0;
	char *folded = NULL, *out;

	if (!hosts)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *name = fleet->nodes[idx[i]]->name;

		if (fleet_host_ok(name, strlen(name)))
			hosts[nh++] = name;
		else
			extra += strlen(name) + 1;
	}
	if (hostlist_fold(hosts, nh, &folded)) {
		free(hosts);
		return NULL;
	}
	free(hosts);
	out = realloc(folded, strlen(folded) + extra + 1);
	if (!out) {
		free(folded);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		const char *name = fleet->nodes[idx[i]]->name;

		if (!fleet_host_ok(name, strlen(name)))
			sprintf(out + strlen(out), "%s%s", out[0] ? "," : "", name);
	}
	return out;
}
