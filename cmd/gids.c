// SPDX-License-Identifier: MIT
/*
 * rdmactl gids [DEV[/PORT]]: the GID tables, laid out as show_gids prints
 * them, and with --recommend the index a job should use on each port.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "cmds.h"
#include "doctor/doctor.h"
#include "doctor/jobenv.h"
#include "node/gids.h"
#include "node/rdma.h"
#include "node/rdma_load.h"

enum {
	OPT_V1 = OPT_LONG_BASE,
	OPT_V2,
	OPT_IPV4,
	OPT_IPV6,
	OPT_NETDEV,
	OPT_RECOMMEND,
};

const struct opt gids_opts[] = {
	{ "v1", OPT_V1, ARG_NONE, NULL, "only RoCE v1 entries" },
	{ "v2", OPT_V2, ARG_NONE, NULL, "only RoCE v2 entries" },
	{ "ipv4", OPT_IPV4, ARG_NONE, NULL, "only entries with an IPv4 address (::ffff:a.b.c.d)" },
	{ "ipv6", OPT_IPV6, ARG_NONE, NULL,
	  "only IPv6 entries; with --recommend, choose a global IPv6 GID" },
	{ "netdev", OPT_NETDEV, ARG_NETDEV, "IF", "only entries on network interface IF" },
	{ "recommend", OPT_RECOMMEND, ARG_NONE, NULL,
	  "the GID index a job should use on each port, as NCCL, UCX and perftest take it" },
	{ 0 }
};

/* Header "IPv4" as show_gids writes it; the keys are the JSON names. */
static const struct column gids_cols[] = {
	{ "dev", "DEV", 0, NULL },
	{ "port", "PORT", 0, NULL },
	{ "index", "INDEX", 0, NULL },
	{ "gid", "GID", 0, NULL },
	{ "ipv4", "IPv4", 0, NULL },
	{ "ver", "VER", 0, NULL },
	{ "netdev", "NETDEV", 0, NULL },
	{ 0 }
};

struct filter {
	bool v1, v2, ipv4, ipv6, recommend;
	const char *netdev;
	const char *devport;	/* the positional, as given */
	char dev[64];
	unsigned int port;	/* 0: every port */
};

/* A port to show, with its device. */
struct target {
	const struct rdma_dev *dev;
	const struct rdma_port *port;
};

/* parse_opts() printed the usage: nothing else to do. */
#define HELP_SHOWN (-1)

static int parse_opts(struct ctx *ctx, int argc, char **argv, struct filter *f)
{
	struct optparser p;
	int c;

	if (opt_init(&p, ctx, command_find("gids"), argc, argv))
		return RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case OPT_V1:
			f->v1 = true;
			break;
		case OPT_V2:
			f->v2 = true;
			break;
		case OPT_IPV4:
			f->ipv4 = true;
			break;
		case OPT_IPV6:
			f->ipv6 = true;
			break;
		case OPT_NETDEV:
			f->netdev = p.optarg;
			break;
		case OPT_RECOMMEND:
			f->recommend = true;
			break;
		default:
			return c == OPT_HELP ? HELP_SHOWN : RC_USAGE;
		}
	}
	if (opt_check_args(&p))
		return RC_USAGE;
	f->devport = p.optind < argc ? argv[p.optind] : NULL;
	return RC_OK;
}

static int check_opts(const struct ctx *ctx, struct filter *f)
{
	if (f->devport && rdma_parse_devport(f->devport, f->dev, sizeof(f->dev), &f->port)) {
		log_err(ctx, "Failed to parse '%s': expected DEV or DEV/PORT, as in mlx5_0 or mlx5_0/1",
			f->devport);
		return RC_USAGE;
	}
	if (f->recommend && f->v1) {
		log_err(ctx, "Failed to combine '--v1' with '--recommend': a job should use RoCE v2; "
			"drop --v1");
		return RC_USAGE;
	}
	if (f->recommend && f->ipv4 && f->ipv6) {
		log_err(ctx, "Failed to combine '--ipv4' and '--ipv6' with '--recommend': choose one");
		return RC_USAGE;
	}
	return RC_OK;
}

static void no_devices(const struct ctx *ctx)
{
	log_err(ctx, "No RDMA devices found. Check that a kernel RDMA driver is loaded "
		"(lsmod | grep -e mlx5_ib -e rdma_rxe), that a Soft-RoCE link exists "
		"(rdma link add rxe0 type rxe netdev IF), and, in a container, that "
		"/dev/infiniband is passed in.");
}

/* "1, 2": the port numbers of @dev. */
static char *port_names(const struct rdma_dev *dev, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; dev->ports && i < dev->nports && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u", i ? ", " : "",
					dev->ports[i].num);
	return buf;
}

/* The device and port asked for exist; RC_USAGE naming those that do when not. */
static int check_target(const struct ctx *ctx, const struct rdma_node *node,
			const struct filter *f)
{
	const struct rdma_dev *dev;
	char names[512];

	if (!f->devport)
		return RC_OK;
	dev = rdma_dev_find(node, f->dev);
	if (!dev) {
		log_err(ctx, "Unknown device '%s'. Devices: %s", f->dev,
			rdma_dev_names(node, names, sizeof(names)));
		return RC_USAGE;
	}
	if (f->port && !rdma_port_find(dev, f->port)) {
		log_err(ctx, "Unknown port '%s'. Ports of %s: %s", f->devport, dev->name,
			port_names(dev, names, sizeof(names)));
		return RC_USAGE;
	}
	return RC_OK;
}

static int load_gids(const struct ctx *ctx, struct rdma_node *node, const struct filter *f)
{
	const char *failed;
	int ret;

	ret = rdma_node_load_gids(ctx, node, f->devport ? f->dev : NULL, &failed);
	if (ret) {
		log_err(ctx, "Failed to read the GID table%s%s%s: %s", failed ? " of '" : "",
			failed ? failed : "", failed ? "'" : "", strerror(-ret));
		return RC_PROBLEM;
	}
	return RC_OK;
}

static int cmp_target(const void *a, const void *b)
{
	const struct target *x = a, *y = b;
	int c = strverscmp(x->dev->name, y->dev->name);	/* mlx5_2 before mlx5_10 */

	return c ? c : (x->port->num > y->port->num) - (x->port->num < y->port->num);
}

/* The selected ports in device, port order; NULL with *@n 0 when none (or no memory). */
static struct target *targets(const struct rdma_node *node, const struct filter *f, size_t *n)
{
	struct target *t;
	size_t d, cap = 0;
	unsigned int p;

	*n = 0;
	for (d = 0; d < node->n; d++)
		cap += node->devs[d].ports ? node->devs[d].nports : 0;
	t = calloc(cap ? cap : 1, sizeof(*t));
	if (!t)
		return NULL;
	for (d = 0; d < node->n; d++) {
		const struct rdma_dev *dev = &node->devs[d];

		if (f->devport && strcmp(dev->name, f->dev))
			continue;
		for (p = 0; dev->ports && p < dev->nports; p++)
			if (!f->port || dev->ports[p].num == f->port)
				t[(*n)++] = (struct target){ dev, &dev->ports[p] };
	}
	qsort(t, *n, sizeof(*t), cmp_target);
	return t;
}

static bool port_has_netdev(const struct rdma_port *port, const char *netdev)
{
	size_t i;

	for (i = 0; i < port->n_gids; i++)
		if (!strcmp(port->gids[i].netdev, netdev))
			return true;
	return false;
}

/* @word is one of the words of "a, b, c". */
static bool in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* --netdev IF names a netdev some selected GID is on; RC_USAGE naming those that are when not. */
static int check_netdev(const struct ctx *ctx, const struct target *t, size_t n,
			const struct filter *f)
{
	char names[512] = "";
	size_t i, j, off = 0;

	if (!f->netdev)
		return RC_OK;
	for (i = 0; i < n; i++)
		if (port_has_netdev(t[i].port, f->netdev))
			return RC_OK;
	for (i = 0; i < n; i++) {
		for (j = 0; j < t[i].port->n_gids && off < sizeof(names); j++) {
			const char *nd = t[i].port->gids[j].netdev;

			if (!nd[0] || in_list(names, nd))
				continue;
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
						off ? ", " : "", nd);
		}
	}
	log_err(ctx, "Unknown netdev '%s': no GID is on it. Netdevs with GIDs: %s", f->netdev,
		names[0] ? names : "none");
	return RC_USAGE;
}

static bool gid_match(const struct filter *f, const struct rdma_gid *g)
{
	char v4[INET_ADDRSTRLEN];
	bool is4 = gid_ipv4(g->raw, v4, sizeof(v4));

	if ((f->v1 || f->v2) && !((f->v1 && g->type == GID_TYPE_ROCE_V1) ||
				  (f->v2 && g->type == GID_TYPE_ROCE_V2)))
		return false;
	if ((f->ipv4 || f->ipv6) && !((f->ipv4 && is4) || (f->ipv6 && !is4)))
		return false;
	return !f->netdev || !strcmp(f->netdev, g->netdev);
}

static void gid_row(struct table *t, const struct target *tg, const struct rdma_gid *g)
{
	struct json_object *row = table_row(t);
	char buf[GID_STR_LEN], v4[INET_ADDRSTRLEN];

	row_str(row, "dev", tg->dev->name);
	row_int(row, "port", tg->port->num);
	row_int(row, "index", g->index);
	row_str(row, "gid", gid_str(g->raw, buf, sizeof(buf)));
	row_str(row, "ipv4", gid_ipv4(g->raw, v4, sizeof(v4)) ? v4 : NULL);
	row_str(row, "ver", gid_type_str(g->type));
	row_str(row, "netdev", g->netdev[0] ? g->netdev : NULL);
}

static int list_gids(struct ctx *ctx, const struct target *tg, size_t n, const struct filter *f)
{
	struct table *t = table_new(gids_cols);
	size_t i, j;

	if (!t) {
		log_err(ctx, "Failed to build the table: %s", strerror(ENOMEM));
		return RC_PROBLEM;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < tg[i].port->n_gids; j++)
			if (gid_match(f, &tg[i].port->gids[j]))
				gid_row(t, &tg[i], &tg[i].port->gids[j]);
	n = table_rows(t);
	table_emit(ctx, t, "gids");
	/* show_gids ends with the count; JSON gets it as "count". */
	print_int(ctx, "count", "n_gids_found=%" PRId64 "\n", (int64_t)n);
	return RC_OK;
}

/* One port's recommendation as a JSON object, and its text. */
static struct json_object *choice_obj(const struct target *tg, const struct gid_choice *c)
{
	struct json_object *o = json_object_new_object();
	char buf[64], v4[INET_ADDRSTRLEN];
	const struct rdma_gid *g = c->gid;

	row_str(o, "dev", tg->dev->name);
	row_int(o, "port", tg->port->num);
	if (g) {
		row_int(o, "index", g->index);
		row_str(o, "gid", gid_str(g->raw, buf, sizeof(buf)));
		row_str(o, "ipv4", gid_ipv4(g->raw, v4, sizeof(v4)) ? v4 : NULL);
		row_str(o, "ver", gid_type_str(g->type));
		row_str(o, "netdev", g->netdev[0] ? g->netdev : NULL);
		row_int(o, "candidates", c->candidates);
		row_fmt(o, job_kind_name(JOB_NCCL), "NCCL_IB_GID_INDEX=%u", g->index);
		row_fmt(o, job_kind_name(JOB_UCX), "UCX_IB_GID_INDEX=%u", g->index);
		row_fmt(o, job_kind_name(JOB_PERFTEST), "-d %s -i %u -x %u", tg->dev->name,
			tg->port->num, g->index);
	} else {
		row_str(o, "index", NULL);
	}
	row_str(o, "reason", c->why);
	row_str(o, "fix", c->fix[0] ? c->fix : NULL);
	return o;
}

static void choice_text(struct ctx *ctx, const struct target *tg, const struct gid_choice *c)
{
	unsigned int i = c->gid->index;

	print_text(ctx, "%s/%u: GID index %u: %s\n", tg->dev->name, tg->port->num, i, c->why);
	print_text(ctx, "NCCL_IB_GID_INDEX=%u\nUCX_IB_GID_INDEX=%u\n", i, i);
	print_text(ctx, "perftest: -d %s -i %u -x %u\n", tg->dev->name, tg->port->num, i);
}

/* A port with no GID to use: a warning when others have one, else the error. */
static void no_gid(const struct ctx *ctx, const struct target *tg, const struct gid_choice *c,
		   bool others)
{
	const char *fix = c->fix[0] ? ". Fix: " : "";

	if (others)
		log_warn(ctx, "Failed to find a GID for jobs on %s/%u: %s%s%s", tg->dev->name,
			 tg->port->num, c->why, fix, c->fix);
	else
		log_err(ctx, "Failed to find a GID for jobs on %s/%u: %s%s%s", tg->dev->name,
			tg->port->num, c->why, fix, c->fix);
}

/* Whether the ports given a GID need different indexes. */
static bool indexes_differ(const struct target *tg, size_t n, const struct filter *f)
{
	struct gid_choice c;
	long first = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		if ((f->netdev && !port_has_netdev(tg[i].port, f->netdev)) ||
		    !gid_choose(tg[i].port, f->ipv6, f->netdev, &c))
			continue;
		if (first >= 0 && (long)c.gid->index != first)
			return true;
		first = c.gid->index;
	}
	return false;
}

/*
 * Ports that need different indexes: no one NCCL_IB_GID_INDEX or
 * UCX_IB_GID_INDEX serves them, so say so and print what rdmactl env
 * prints for a job on them (or why it refuses), from the same code.
 */
static void rails_differ(struct ctx *ctx, struct rdma_node *node, const struct filter *f,
			 struct json_object *out)
{
	static const enum job_kind kinds[] = { JOB_NCCL, JOB_UCX };
	static struct jobenv_var v[JOBENV_VARS_MAX];
	static char line[2 * JOBENV_VALUE_MAX];
	struct jobenv_pick pick = { .port = f->port };
	struct node_facts d;
	struct jobenv e;
	size_t i, k, nv;

	doctor_load(&d, ctx, JOB_ANY, node);

	snprintf(pick.dev, sizeof(pick.dev), "%s", f->dev);
	print_text(ctx, "The ports need different GID indexes: no one NCCL_IB_GID_INDEX or "
		   "UCX_IB_GID_INDEX is right for all of them. What rdmactl env prints:\n");
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct json_object *o = json_object_new_object();

		d.target = kinds[k];	/* what jobenv_build() reads, as env --for KIND */
		print_text(ctx, "rdmactl env --for %s:\n", job_kind_name(kinds[k]));
		if (jobenv_build(&d, kinds[k], &pick, f->dev[0] ? 1 : 0, &e)) {
			print_text(ctx, "  refused: %s\n", e.why);
			row_str(o, "error", e.why);
		} else {
			nv = jobenv_vars(&e, kinds[k], v);
			for (i = 0; i < nv; i++) {
				if (v[i].kept)
					continue;
				print_verbatim(ctx, "  export %s\n",
					   jobenv_assignment(v[i].name, v[i].value, line, sizeof(line)));
				row_str(o, v[i].name, v[i].value);
			}
			for (i = 0; i < e.n_notes; i++)
				print_text(ctx, "  (%s)\n", e.notes[i]);
		}
		json_object_object_add(out, job_kind_name(kinds[k]), o);
		jobenv_free(&e);
	}
	doctor_free(&d);
}

static int recommend(struct ctx *ctx, struct rdma_node *node, const struct target *tg, size_t n,
		     const struct filter *f)
{
	struct json_object *arr = json_object_new_array();
	size_t i, found = 0, missing = 0;
	struct gid_choice c;

	for (i = 0; i < n; i++) {
		/* With --netdev, only the ports that netdev is behind. */
		if (f->netdev && !port_has_netdev(tg[i].port, f->netdev))
			continue;
		if (gid_choose(tg[i].port, f->ipv6, f->netdev, &c)) {
			choice_text(ctx, &tg[i], &c);
			found++;
		} else {
			missing++;
		}
		json_object_array_add(arr, choice_obj(&tg[i], &c));
	}
	/* The ports without one, on stderr: an error when no port has one. */
	for (i = 0; i < n && missing; i++) {
		if ((f->netdev && !port_has_netdev(tg[i].port, f->netdev)) ||
		    gid_choose(tg[i].port, f->ipv6, f->netdev, &c))
			continue;
		no_gid(ctx, &tg[i], &c, found > 0);
	}
	if (ctx->json)
		json_attach(ctx, "recommend", arr);
	else
		json_object_put(arr);
	if (!f->ipv6 && indexes_differ(tg, n, f)) {
		struct json_object *env = json_object_new_object();

		rails_differ(ctx, node, f, env);
		if (ctx->json)
			json_attach(ctx, "env", env);
		else
			json_object_put(env);
	}
	return found ? RC_OK : RC_PROBLEM;
}

int cmd_gids(struct ctx *ctx, int argc, char **argv)
{
	struct filter f = { 0 };
	struct rdma_node node;
	struct target *tg;
	size_t n;
	int ret, rc;

	rc = parse_opts(ctx, argc, argv, &f);
	if (rc)
		return rc == HELP_SHOWN ? RC_OK : rc;
	rc = check_opts(ctx, &f);
	if (rc)
		return rc;
	ret = rdma_node_load(ctx, &node, RDMA_LOAD_PORTS);
	if (ret) {
		log_err_errno(ctx, ret, "Failed to read RDMA devices: %s", strerror(-ret));
		return RC_PROBLEM;
	}
	if (!node.n) {
		no_devices(ctx);
		rc = RC_PROBLEM;
		goto out;
	}
	rc = check_target(ctx, &node, &f);
	if (!rc)
		rc = load_gids(ctx, &node, &f);
	if (rc)
		goto out;
	tg = targets(&node, &f, &n);
	if (!tg) {
		log_err(ctx, "Failed to list ports: %s", strerror(ENOMEM));
		rc = RC_PROBLEM;
		goto out;
	}
	rc = check_netdev(ctx, tg, n, &f);
	if (!rc)
		rc = f.recommend ? recommend(ctx, &node, tg, n, &f) : list_gids(ctx, tg, n, &f);
	free(tg);
out:
	rdma_node_free(&node);
	return rc;
}
