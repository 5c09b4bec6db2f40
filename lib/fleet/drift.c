// SPDX-License-Identifier: MIT
/* Facts that should match across a fleet, and the nodes that differ (see drift.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "doctor/doc.h"
#include "fleet/drift.h"
#include "fleet/fleet.h"

/* A hostlist this long or shorter is named in a fix ("as on lab-[a-b]"). */
#define FIX_NODES_MAX 40

/* One node's value of a fact; NULL: null. */
struct sample {
	char *value;
	size_t node;
};

/* The nodes of one value: samples [first, first + n). */
struct group {
	size_t first, n;
};

/* What a fix is made from. */
struct fix_in {
	const struct fleet *fleet;
	const char *arg;	/* the fact's argument: a variable, a model, a path */
	const char *value;	/* the majority's */
	const char *nodes;	/* the majority's nodes, folded */
	const struct sample *s;	/* the samples of the other nodes */
	size_t ns;
};

/* What a getter found of a fact on one node. */
enum got {
	GOT_NONE,	/* the fact is not the node's (no HCA of that model): left out */
	GOT_VALUE,	/* *value (malloc'd; NULL for null) */
	GOT_UNREAD,	/* the node could not read it: missing, or not a value */
};

/* A got, or -ENOMEM. */
typedef int (*getter)(struct json_object *node, const char *arg, char **value);
typedef char *(*fixer)(const struct fix_in *in);

struct fact {
	char *name;
	getter get;
	char *arg;
	fixer fix;
	/*
	 * Null is a value of the fact: no OFED, an unset variable, no
	 * routable GID, an empty set.  Elsewhere (the kernel, a memlock
	 * limit, the active ports) null is what the node could not read.
	 */
	bool null_is_value;
};

/* ---- values ---- */

/* A JSON value as a fact's text: strings and numbers; null as NULL; anything else unread. */
static int text_of(struct json_object *v, char **out)
{
	*out = NULL;
	if (!v)
		return GOT_VALUE;
	if (!json_object_is_type(v, json_type_string) && !json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return GOT_UNREAD;
	*out = strdup(json_object_get_string(v));
	return *out ? GOT_VALUE : -ENOMEM;
}

/* "memlock/shell": node.memlock.shell. */
static int get_path(struct json_object *node, const char *path, char **value)
{
	char key[64];
	size_t n;

	for (;;) {
		n = strcspn(path, "/");
		snprintf(key, sizeof(key), "%.*s", (int)n, path);
		if (!json_object_is_type(node, json_type_object) ||
		    !json_object_object_get_ex(node, key, &node))
			return GOT_UNREAD;
		if (!path[n])
			return text_of(node, value);
		path += n + 1;
	}
}

/* What firmware is compared within: the HCA model (hca_type, board_id), else the provider. */
static const char *model_key(struct json_object *dev)
{
	struct json_object *v;
	const char *s;

	if (json_object_object_get_ex(dev, "model", &v) && (s = json_object_get_string(v)) && *s &&
	    json_object_is_type(v, json_type_string))
		return s;
	if (json_object_object_get_ex(dev, "provider", &v) && (s = json_object_get_string(v)) && *s &&
	    json_object_is_type(v, json_type_string))
		return s;
	return "";
}

static int by_text(const void *a, const void *b)
{
	return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

/* @n texts sorted, each once, joined with ","; NULL for none. */
static int join_set(const char **v, size_t n, char **value)
{
	size_t i, len = 1;
	char *out;

	*value = NULL;
	if (!n)
		return GOT_VALUE;
	qsort(v, n, sizeof(*v), by_text);
	for (i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	out = malloc(len);
	if (!out)
		return -ENOMEM;
	out[0] = '\0';
	for (i = 0; i < n; i++)
		if (!i || strcmp(v[i], v[i - 1]))
			sprintf(out + strlen(out), "%s%s", out[0] ? "," : "", v[i]);
	*value = out;
	return GOT_VALUE;
}

/*
 * "ports/netdev_mtu": the set of node.ports[].netdev_mtu.  With @model,
 * of the devices of that model only, and the fact is absent without one.
 * An element without the key was not read (a null is a value: an IB
 * port has no netdev), and neither is the set then: a port left out
 * must not make the node's set differ from the others'.
 */
static int get_set_of(struct json_object *node, const char *path, const char *model, char **value)
{
	struct json_object *arr, *el, *v;
	const char **vals;
	size_t i, n = 0, len = strcspn(path, "/");
	char key[32];
	int ret;

	snprintf(key, sizeof(key), "%.*s", (int)len, path);
	if (!json_object_object_get_ex(node, key, &arr) || !json_object_is_type(arr, json_type_array))
		return GOT_UNREAD;
	vals = malloc((json_object_array_length(arr) + 1) * sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (i = 0, ret = 0; i < json_object_array_length(arr); i++) {
		el = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(el, json_type_object) || (model && strcmp(model_key(el), model)))
			continue;
		if (!json_object_object_get_ex(el, path + len + 1, &v) ||
		    json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array)) {
			ret = GOT_UNREAD;
			break;
		}
		if (v)
			vals[n++] = json_object_get_string(v);
	}
	if (ret != GOT_UNREAD)
		ret = model && !n ? GOT_NONE : join_set(vals, n, value);
	free(vals);
	return ret;
}

static int get_set(struct json_object *node, const char *path, char **value)
{
	return get_set_of(node, path, NULL, value);
}

/* Firmware of the HCAs of model @model. */
static int get_fw(struct json_object *node, const char *model, char **value)
{
	return get_set_of(node, "devices/fw_ver", model, value);
}

/* node.env.NAME; null when the node has an env but not NAME. */
static int get_env(struct json_object *node, const char *name, char **value)
{
	struct json_object *env, *v = NULL;

	if (!json_object_object_get_ex(node, "env", &env) || !json_object_is_type(env, json_type_object))
		return GOT_UNREAD;
	json_object_object_get_ex(env, name, &v);
	return text_of(v, value);
}

/*
 * ---- fixes: the odd nodes brought in line with the majority ----
 * Said to the nodes the row names under "differs", which they need not repeat.
 */

static char *fix_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fix_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

static char *fix_kernel(const struct fix_in *in)
{
	return in->value ? fix_fmt("boot kernel %s, as the others run", in->value) : NULL;
}

static char *fix_rdma_core(const struct fix_in *in)
{
	return in->value ? fix_fmt("install rdma-core %s, as on the others", in->value) : NULL;
}

static char *fix_ofed(const struct fix_in *in)
{
	if (!in->value)
		return fix_fmt("remove MLNX_OFED (ofed_uninstall.sh): the others run the inbox drivers");
	return fix_fmt("install %s, as on the others", in->value);
}

static char *fix_fw(const struct fix_in *in)
{
	if (!in->value || strchr(in->value, ','))
		return NULL;
	return fix_fmt("update the firmware of their %s%sHCAs to %s, as on the others", in->arg,
		       in->arg[0] ? " " : "", in->value);
}

/*
 * The netdev of @doc's ports whose MTU is not @value into *@name, or
 * false when one names another than *@name already holds (or out of memory).
 */
static bool port_netdev(struct json_object *doc, const char *value, char **name)
{
	struct json_object *node, *ports, *p, *v;
	size_t j;

	if (!json_object_object_get_ex(doc, DOC_NODE, &node) ||
	    !json_object_object_get_ex(node, "ports", &ports))
		return true;
	for (j = 0; j < json_object_array_length(ports); j++) {
		p = json_object_array_get_idx(ports, j);
		if (!json_object_object_get_ex(p, "netdev_mtu", &v) || !v ||
		    !strcmp(json_object_get_string(v), value) ||
		    !json_object_object_get_ex(p, "netdev", &v) || !v)
			continue;
		if (*name ? strcmp(*name, json_object_get_string(v))
			  : !(*name = strdup(json_object_get_string(v))))
			return false;
	}
	return true;
}

/*
 * The netdev of the odd nodes' ports at another MTU, when they all name
 * the same one, else "IF"; malloc'd, NULL when out of memory.
 */
static char *odd_netdev(const struct fix_in *in)
{
	char *name = NULL;
	bool one = true;
	size_t i;

	for (i = 0; i < in->ns && one; i++) {
		struct json_object *doc = fleet_doc(in->fleet->nodes[in->s[i].node]);

		one = port_netdev(doc, in->value, &name);
		json_object_put(doc);
	}
	if (one && name)
		return name;
	free(name);
	return strdup("IF");
}

static char *fix_mtu(const struct fix_in *in)
{
	char *dev, *fix;

	if (!in->value || strchr(in->value, ',') || !(dev = odd_netdev(in)))
		return NULL;
	fix = fix_fmt("ip link set %s mtu %s, as on the others (lasting: nmcli con mod %s "
		      "802-3-ethernet.mtu %s)", dev, in->value, dev, in->value);
	free(dev);
	return fix;
}

static char *fix_gid(const struct fix_in *in)
{
	size_t i;

	/* Without a GID at all, the node's own roce.gid check says why. */
	for (i = 0; i < in->ns; i++)
		if (!in->s[i].value)
			return NULL;
	return fix_fmt("their routable RoCE v2 GID is at another index than the others': leave "
		       "NCCL_IB_GID_INDEX and UCX_IB_GID_INDEX unset (NCCL 2.21 and later find it) "
		       "or set them per node");
}

static char *fix_memlock(const struct fix_in *in)
{
	return fix_fmt("give them the %s memlock limit of the others (%s): 'rdmactl limits' there "
		       "prints the lines to write", in->arg + strlen("memlock/"),
		       in->value ? in->value : "none");
}

static char *fix_env(const struct fix_in *in)
{
	if (!in->value)
		return fix_fmt("unset %s, as on the others", in->arg);
	if (strlen(in->nodes) <= FIX_NODES_MAX)
		return fix_fmt("set %s=%s, as on %s", in->arg, in->value, in->nodes);
	return fix_fmt("set %s=%s, as on the others", in->arg, in->value);
}

/* Only when the odd nodes have fewer active ports: more is no fault of theirs. */
static char *fix_ports(const struct fix_in *in)
{
	size_t i;

	if (!in->value)
		return NULL;
	for (i = 0; i < in->ns; i++)
		if (!in->s[i].value || atol(in->s[i].value) >= atol(in->value))
			return NULL;
	return fix_fmt("bring up their ports ('rdmactl ports' there says why they are down): the "
		       "others have %s active", in->value);
}

/* ---- the tally of one fact ---- */

static int value_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return !!a - !!b;	/* null first */
	return strverscmp(a, b);
}

static int by_value(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = value_cmp(x->value, y->value);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Groups of the samples @arg by size, the largest first; equal sizes by value. */
static int by_size(const void *a, const void *b, void *arg)
{
	const struct group *x = a, *y = b;
	const struct sample *s = arg;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return value_cmp(s[x->first].value, s[y->first].value);
}

/* The groups of equal values of the sorted samples @s, largest first. */
static size_t group_samples(const struct sample *s, size_t n, struct group *g)
{
	size_t i, ng = 0;

	for (i = 0; i < n; i++) {
		if (!i || value_cmp(s[i].value, s[i - 1].value))
			g[ng++] = (struct group){ .first = i, .n = 0 };
		g[ng - 1].n++;
	}
	qsort_r(g, ng, sizeof(*g), by_size, (void *)s);
	return ng;
}

/* The nodes of groups @g[from..ng-1] folded into one hostlist. */
static char *fold_groups(const struct fleet *fleet, const struct sample *s, const struct group *g,
			 size_t from, size_t ng)
{
	size_t i, k, n = 0, *idx;
	char *out;

	for (i = from; i < ng; i++)
		n += g[i].n;
	idx = malloc((n + 1) * sizeof(*idx));
	if (!idx)
		return NULL;
	for (n = 0, i = from; i < ng; i++)
		for (k = 0; k < g[i].n; k++)
			idx[n++] = s[g[i].first + k].node;
	out = fleet_fold(fleet, idx, n);
	free(idx);
	return out;
}

static struct json_object *value_json(const char *v)
{
	return v ? json_object_new_string(v) : NULL;
}

static struct json_object *differs(const struct fleet *fleet, const struct sample *s,
				   const struct group *g, size_t from, size_t ng)
{
	struct json_object *arr = json_object_new_array(), *o;
	size_t i;

	for (i = from; arr && i < ng; i++) {
		char *nodes = fold_groups(fleet, s, g, i, i + 1);

		o = json_object_new_object();
		json_object_object_add(o, "value", value_json(s[g[i].first].value));
		json_object_object_add(o, "count", json_object_new_int64((int64_t)g[i].n));
		json_object_object_add(o, "nodes", nodes ? json_object_new_string(nodes) : NULL);
		json_object_array_add(arr, o);
		free(nodes);
	}
	return arr;
}

/* The fix of @f for the nodes outside the majority group g[0]. */
static char *make_fix(const struct fleet *fleet, const struct fact *f, struct sample *s,
		      const struct group *g, size_t ng, const char *maj_nodes)
{
	struct fix_in in = { .fleet = fleet, .arg = f->arg, .value = s[g[0].first].value,
			     .nodes = maj_nodes };
	struct sample *odd;
	size_t i, k;
	char *fix;

	if (!f->fix)
		return NULL;
	odd = malloc(fleet->n * sizeof(*odd));
	if (!odd)
		return NULL;
	for (i = 1; i < ng; i++)
		for (k = 0; k < g[i].n; k++)
			odd[in.ns++] = s[g[i].first + k];
	in.s = odd;
	fix = f->fix(&in);
	free(odd);
	return fix;
}

/*
 * {"count", "nodes"} of the @nu nodes @unread that could not read a fact,
 * or NULL (JSON null) when none did.  Never a value: they are in no group,
 * get no fix and are not marked odd.
 */
static struct json_object *not_read(const struct fleet *fleet, const size_t *unread, size_t nu)
{
	struct json_object *o;
	char *nodes;

	if (!nu || !(o = json_object_new_object()))
		return NULL;
	nodes = fleet_fold(fleet, unread, nu);
	json_object_object_add(o, "count", json_object_new_int64((int64_t)nu));
	json_object_object_add(o, "nodes", nodes ? json_object_new_string(nodes) : NULL);
	free(nodes);
	return o;
}

/*
 * The row of fact @f, whose @n samples fall in @ng groups (none when no
 * node read it); marks the odd nodes, and makes a fix only for nodes of a
 * value other than the majority's.
 */
static struct json_object *fact_row(const struct fleet *fleet, const struct fact *f,
				    struct sample *s, size_t n, const struct group *g, size_t ng,
				    bool *odd)
{
	struct json_object *row = json_object_new_object();
	bool maj = ng && g[0].n * 2 > n;
	char *nodes = maj ? fold_groups(fleet, s, g, 0, 1) : NULL, *fix = NULL;
	size_t i, k;

	if (!row)
		return NULL;
	json_object_object_add(row, "fact", json_object_new_string(f->name));
	json_object_object_add(row, "majority", maj ? value_json(s[g[0].first].value) : NULL);
	json_object_object_add(row, "majority_count", json_object_new_int64(maj ? (int64_t)g[0].n : 0));
	json_object_object_add(row, "majority_nodes", nodes ? json_object_new_string(nodes) : NULL);
	json_object_object_add(row, "differs", differs(fleet, s, g, maj ? 1 : 0, ng));
	if (maj && nodes && ng > 1)
		fix = make_fix(fleet, f, s, g, ng, nodes);
	json_object_object_add(row, "fix", fix ? json_object_new_string(fix) : NULL);
	for (i = maj ? 1 : ng; i < ng; i++)
		for (k = 0; k < g[i].n; k++)
			odd[s[g[i].first + k].node] = true;
	free(nodes);
	free(fix);
	return row;
}

/*
 * Add the row of @f, of its @n samples @s, to @rows when its nodes differ
 * or @nu nodes @unread could not read it.  0 or -ENOMEM.
 */
static int tally(const struct fleet *fleet, const struct fact *f, struct sample *s, size_t n,
		 const size_t *unread, size_t nu, struct json_object *rows, bool *odd)
{
	struct group *g = calloc(n + 1, sizeof(*g));
	struct json_object *row;
	size_t ng;

	if (!g)
		return -ENOMEM;
	qsort(s, n, sizeof(*s), by_value);
	ng = group_samples(s, n, g);
	if (ng > 1 || nu) {
		row = fact_row(fleet, f, s, n, g, ng, odd);
		if (row)
			json_object_object_add(row, "not_read", not_read(fleet, unread, nu));
		if (!row || json_object_array_add(rows, row)) {
			json_object_put(row);
			free(g);
			return -ENOMEM;
		}
	}
	free(g);
	return 0;
}

/* ---- the facts ---- */

/* The facts every node has, in report order; fw_ver and env.* are added per model and name. */
static const struct fact fixed[] = {
	{ "kernel", get_path, "kernel", fix_kernel, false },
	/* null: libibverbs not found, which the versions check says */
	{ "rdma_core", get_path, "rdma_core", fix_rdma_core, true },
	{ "ofed", get_path, "ofed", fix_ofed, true },
	{ "provider", get_set, "devices/provider", NULL, true },
	{ "link_layer", get_set, "ports/link_layer", NULL, true },
	{ "active_mtu", get_set, "ports/active_mtu", NULL, true },
	{ "netdev_mtu", get_set, "ports/netdev_mtu", fix_mtu, true },
	{ "gid_index", get_set, "ports/gid_index", fix_gid, true },
	{ "memlock.shell", get_path, "memlock/shell", fix_memlock, false },
	{ "memlock.pam", get_path, "memlock/pam", fix_memlock, false },
	{ "memlock.systemd", get_path, "memlock/systemd", fix_memlock, false },
	{ "active_ports", get_path, "active_ports", fix_ports, false },
};

#define NFIXED (sizeof(fixed) / sizeof(fixed[0]))

static const struct fact fw = { .get = get_fw, .fix = fix_fw, .null_is_value = true };
static const struct fact env_var = { .get = get_env, .fix = fix_env, .null_is_value = true };

/* The names of @key of @node (devices: their model keys; env: the variables) into @set. */
static void names_in(struct json_object *node, const char *key, struct json_object *set)
{
	struct json_object *v;
	size_t j;

	if (!json_object_object_get_ex(node, key, &v))
		return;
	if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, name, val) {
			(void)val;
			json_object_object_add(set, name, NULL);
		}
	}
	for (j = 0; json_object_is_type(v, json_type_array) && j < json_object_array_length(v); j++)
		if (json_object_is_type(json_object_array_get_idx(v, j), json_type_object))
			json_object_object_add(set, model_key(json_object_array_get_idx(v, j)), NULL);
}

/* Every node's HCA models and variables, each node's document read in turn.  0 or -ENOMEM. */
static int names_of(const struct fleet *fleet, struct json_object *models, struct json_object *env)
{
	struct json_object *doc, *node;
	size_t i;

	for (i = 0; i < fleet->n; i++) {
		if (!fleet->nodes[i]->doc)
			continue;
		if (!(doc = fleet_doc(fleet->nodes[i])))
			return -ENOMEM;
		if (json_object_object_get_ex(doc, DOC_NODE, &node)) {
			names_in(node, "devices", models);
			names_in(node, "env", env);
		}
		json_object_put(doc);
	}
	return 0;
}

/* The facts, in report order. */
struct facts {
	struct fact *f;
	size_t n, cap;
};

static int fact_add(struct facts *fs, const struct fact *proto, const char *name, const char *arg)
{
	struct fact *f;

	if (fs->n == fs->cap) {
		f = realloc(fs->f, (fs->cap ? fs->cap * 2 : 32) * sizeof(*f));
		if (!f)
			return -ENOMEM;
		fs->f = f;
		fs->cap = fs->cap ? fs->cap * 2 : 32;
	}
	f = &fs->f[fs->n];
	*f = *proto;
	f->arg = (char *)arg;
	f->name = strdup(name);
	if (!f->name)
		return -ENOMEM;
	fs->n++;
	return 0;
}

/*
 * The facts named by @set's keys, in name order: "PREFIX KEY" made by
 * @proto's getter with KEY ("fw_ver MT4127"), or "PREFIXKEY" when @prefix
 * ends in a dot ("env.NCCL_IB_HCA").
 */
static int add_names(struct facts *fs, struct json_object *set, const char *prefix,
		     const struct fact *proto)
{
	size_t i, n = 0, cnt = (size_t)json_object_object_length(set);
	const char **keys = malloc((cnt + 1) * sizeof(*keys));
	bool dot = prefix[strlen(prefix) - 1] == '.';
	int ret = keys ? 0 : -ENOMEM;
	char *name;

	json_object_object_foreach(set, key, val) {
		(void)val;
		if (keys)
			keys[n++] = key;
	}
	if (keys)
		qsort(keys, n, sizeof(*keys), by_text);
	for (i = 0; !ret && i < n; i++) {
		if (asprintf(&name, "%s%s%s", prefix, !dot && keys[i][0] ? " " : "", keys[i]) < 0) {
			ret = -ENOMEM;
			break;
		}
		ret = fact_add(fs, proto, name, keys[i]);
		free(name);
	}
	free(keys);
	return ret;
}

/* kernel, rdma_core, ofed, fw_ver MODEL..., provider ... memlock.*, env.NAME..., active_ports. */
static int fact_list(struct facts *fs, struct json_object *models, struct json_object *env)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < 3; i++)
		ret = fact_add(fs, &fixed[i], fixed[i].name, fixed[i].arg);
	if (!ret)
		ret = add_names(fs, models, "fw_ver", &fw);
	for (i = 3; !ret && i < NFIXED - 1; i++)
		ret = fact_add(fs, &fixed[i], fixed[i].name, fixed[i].arg);
	if (!ret)
		ret = add_names(fs, env, "env.", &env_var);
	if (!ret)
		ret = fact_add(fs, &fixed[NFIXED - 1], fixed[NFIXED - 1].name, fixed[NFIXED - 1].arg);
	return ret;
}

/* Each fact's samples: s[k] holds ns[k] of them; unread[k] the nu[k] nodes that could not read it. */
struct samples {
	struct sample **s;
	size_t *ns, nf;
	size_t **unread, *nu;
};

static void samples_free(struct samples *sm)
{
	size_t k, i;

	for (k = 0; sm->s && k < sm->nf; k++) {
		for (i = 0; sm->s[k] && i < sm->ns[k]; i++)
			free(sm->s[k][i].value);
		free(sm->s[k]);
		if (sm->unread)
			free(sm->unread[k]);
	}
	free(sm->s);
	free(sm->ns);
	free(sm->unread);
	free(sm->nu);
}

/*
 * Every fact of @node (node @i) into @sm; a document without a node
 * object (@node NULL) read none of them.  0 or -ENOMEM.
 */
static int node_samples(const struct facts *fs, struct json_object *node, size_t i,
			struct samples *sm)
{
	size_t k;
	int ret;

	for (k = 0; k < fs->n; k++) {
		struct sample *x = &sm->s[k][sm->ns[k]];

		x->value = NULL;
		ret = node ? fs->f[k].get(node, fs->f[k].arg, &x->value) : GOT_UNREAD;
		if (ret < 0)
			return ret;
		if (ret == GOT_VALUE && !x->value && !fs->f[k].null_is_value)
			ret = GOT_UNREAD;
		if (ret == GOT_VALUE) {
			x->node = i;
			sm->ns[k]++;
		} else if (ret == GOT_UNREAD) {
			free(x->value);
			x->value = NULL;
			sm->unread[k][sm->nu[k]++] = i;
		}
	}
	return 0;
}

/*
 * The value of every fact on every node that has it, node by node: each
 * document is parsed once for all facts, not once a fact.  0 or -ENOMEM.
 */
static int collect(const struct fleet *fleet, const struct facts *fs, struct samples *sm)
{
	struct json_object *doc, *node;
	size_t i, k;
	int ret = 0;

	sm->nf = fs->n;
	sm->s = calloc(fs->n + 1, sizeof(*sm->s));
	sm->ns = calloc(fs->n + 1, sizeof(*sm->ns));
	sm->unread = calloc(fs->n + 1, sizeof(*sm->unread));
	sm->nu = calloc(fs->n + 1, sizeof(*sm->nu));
	if (!sm->s || !sm->ns || !sm->unread || !sm->nu)
		return -ENOMEM;
	for (k = 0; k < fs->n; k++)
		if (!(sm->s[k] = calloc(fleet->n + 1, sizeof(**sm->s))) ||
		    !(sm->unread[k] = calloc(fleet->n + 1, sizeof(**sm->unread))))
			return -ENOMEM;
	for (i = 0; !ret && i < fleet->n; i++) {
		if (!fleet->nodes[i]->doc)
			continue;
		if (!(doc = fleet_doc(fleet->nodes[i])))
			return -ENOMEM;
		if (!json_object_object_get_ex(doc, DOC_NODE, &node) ||
		    !json_object_is_type(node, json_type_object))
			node = NULL;
		ret = node_samples(fs, node, i, sm);
		json_object_put(doc);
	}
	return ret;
}

struct json_object *drift_rows(const struct fleet *fleet, bool *odd)
{
	struct json_object *rows = json_object_new_array(), *models = json_object_new_object(),
			   *env = json_object_new_object();
	struct facts fs = { 0 };
	struct samples sm = { 0 };
	size_t k;
	int ret = rows && models && env ? names_of(fleet, models, env) : -ENOMEM;

	if (!ret)
		ret = fact_list(&fs, models, env);
	if (!ret)
		ret = collect(fleet, &fs, &sm);
	for (k = 0; !ret && k < fs.n; k++)
		if (sm.ns[k] || sm.nu[k])
			ret = tally(fleet, &fs.f[k], sm.s[k], sm.ns[k], sm.unread[k], sm.nu[k], rows, odd);
	samples_free(&sm);
	for (k = 0; k < fs.n; k++)
		free(fs.f[k].name);
	free(fs.f);
	json_object_put(models);
	json_object_put(env);
	if (ret) {
		json_object_put(rows);
		return NULL;
	}
	return rows;
}
