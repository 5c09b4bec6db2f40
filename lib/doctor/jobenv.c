// SPDX-License-Identifier: MIT
/*
 * rdmactl env's model: the ports a job uses on this node and the values
 * of the variables NCCL, UCX and Open MPI read for them.  Every value is
 * the one a doctor check names (the GID index of roce.gid, the ports the
 * ports check calls ACTIVE), and every refusal carries that check's
 * reason and fix, so that the command and the doctor never disagree.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/root.h"
#include "base/sysfs.h"
#include "doctor/check.h"
#include "doctor/checks.h"
#include "doctor/jobenv.h"
#include "doctor/port_rules.h"
#include "node/envparse.h"
#include "node/gids.h"
#include "node/ucx.h"

#define PLAIN "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

/*
 * A shell that evaluates "export NAME=value" would expand "$", "`", "*",
 * "~" and split at ";" and blanks; names of these characters alone need
 * no quotes.
 */
bool jobenv_name_ok(const char *s)
{
	return *s && strspn(s, PLAIN) == strlen(s);
}

/*
 * Netdev names may hold anything but '/', ':' and white space (the
 * kernel's dev_valid_name(): "rail#2" is one), RDMA device names ':' too;
 * what no line or list carries is refused, the rest is quoted.
 */
const char *jobenv_name_bad(const char *s, bool rdma_dev)
{
	const unsigned char *c;

	if (!*s)
		return "it is empty";
	for (c = (const unsigned char *)s; *c; c++) {
		if (*c < 0x20 || *c == 0x7f || *c == ' ')
			return "a control character or a blank ends or splits the TaskProlog's "
			       "'export NAME=value' line";
		if (*c == ',')
			return "NCCL, UCX and Open MPI split their lists at ','";
		if (*c == ':' && rdma_dev)
			return "NCCL and UCX read what follows ':' as the port";
	}
	if (*s == '^' || *s == '=')
		return "a leading '^' or '=' makes NCCL read its list otherwise";
	return NULL;
}

const char *jobenv_assignment(const char *name, const char *value, char *buf, size_t len)
{
	size_t off;

	if (strspn(value, PLAIN "=,:") == strlen(value) && *value) {
		snprintf(buf, len, "%s=%s", name, value);
		return buf;
	}
	off = (size_t)snprintf(buf, len, "%s='", name);
	for (; *value && off + 5 < len; value++) {
		if (*value == '\'')
			off += (size_t)snprintf(buf + off, len - off, "'\\''");
		else
			buf[off++] = *value;
	}
	snprintf(buf + off, len - off, "'");
	return buf;
}

static bool is_rep(struct node_facts *d, const struct rdma_port *p)
{
	return p->netdev[0] && doctor_rep(d, p->netdev);
}

/* The line of a doctor check @id's result @r, after @what: "WHAT: FOUND (doctor check ID). Fix: FIX". */
static int refuse(struct jobenv *e, const char *what, const char *id, const struct check_result *r)
{
	snprintf(e->why, sizeof(e->why), "%.160s: %s (doctor check %.16s)%s%s", what, r->found, id,
		 r->fix[0] ? ". Fix: " : "", r->fix);
	return -ENODATA;
}

static int no_device(struct node_facts *d, struct jobenv *e)
{
	struct check_result r = { 0 };

	check_devices(d, &r);
	return refuse(e, "Failed to find the job's RDMA ports", "devices", &r);
}

/* Why @p is no port for a job: a representor, or not ACTIVE and LinkUp (with the doctor's words). */
static bool port_unusable(struct node_facts *d, const struct rdma_dev *dev, const struct rdma_port *p,
			  struct check_result *r)
{
	const struct rep *rep = is_rep(d, p) ? doctor_rep(d, p->netdev) : NULL;
	char what[64];

	memset(r, 0, sizeof(*r));
	if (rep) {
		check_note(r, CHECK_FAIL, "%s/%u is the representor %s (%s): a port of the eswitch, "
			   "not one of this node's own", dev->name, p->num, p->netdev,
			   rep_describe(rep, what, sizeof(what)));
		return true;
	}
	/* 4 = ACTIVE, 5 = LinkUp, as the ports check wants them. */
	if (p->state == 4 && p->phys_state == 5)
		return false;
	doctor_port_down(d, r, dev, p);
	return true;
}

static int skip_add(struct jobenv *e, const struct rdma_dev *dev, const struct rdma_port *p,
		    const struct check_result *r)
{
	struct jobenv_skip *s = realloc(e->skipped, (e->n_skipped + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	e->skipped = s;
	s = &e->skipped[e->n_skipped++];
	s->dev = dev;
	s->port = p;
	snprintf(s->why, sizeof(s->why), "%s", r->found);
	snprintf(s->fix, sizeof(s->fix), "%s", r->fix);
	return 0;
}

static bool have_port(const struct jobenv *e, const struct rdma_port *p)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (e->ports[i].port == p)
			return true;
	return false;
}

/* Add @p to the job's ports: as many as the node has (NCCL's own limit is applied later). */
static int use_port(struct jobenv *e, const struct rdma_dev *dev, const struct rdma_port *p)
{
	struct jobenv_port *ports;

	if (have_port(e, p))
		return 0;
	ports = realloc(e->ports, (e->n + 1) * sizeof(*ports));
	if (!ports)
		return -ENOMEM;
	e->ports = ports;
	memset(&e->ports[e->n], 0, sizeof(e->ports[0]));
	e->ports[e->n].dev = dev;
	e->ports[e->n++].port = p;
	return 0;
}

/*
 * Every usable port of @dev (@only: that one), the others to the skipped
 * list.  A port asked for by number must be usable.
 */
static int take_dev(struct node_facts *d, struct jobenv *e, const struct rdma_dev *dev,
		    unsigned int only)
{
	struct check_result r;
	unsigned int j;
	int ret = 0;

	for (j = 0; !ret && dev->ports && j < dev->nports; j++) {
		const struct rdma_port *p = &dev->ports[j];

		if (only && p->num != only)
			continue;
		if (!port_unusable(d, dev, p, &r)) {
			ret = use_port(e, dev, p);
		} else if (only) {
			ret = refuse(e, "Failed to use the port asked for", "ports", &r);
		} else {
			ret = skip_add(e, dev, p, &r);
		}
	}
	return ret;
}

/* "mlx5_0/1 is DOWN ...; mlx5_1/1 is ...": why nothing was usable. */
static int no_active_port(struct jobenv *e)
{
	struct check_result r = { 0 };
	size_t i;

	for (i = 0; i < e->n_skipped; i++) {
		check_note(&r, CHECK_FAIL, "%s", e->skipped[i].why);
		/* Two ports on one netdev have one fix. */
		if (e->skipped[i].fix[0] && !strstr(r.fix, e->skipped[i].fix))
			check_fix(&r, "%s", e->skipped[i].fix);
	}
	if (!e->n_skipped)
		check_note(&r, CHECK_FAIL, "no device has a port");
	return refuse(e, "Failed to find an active RDMA port", "ports", &r);
}

/* -d names a device and port that exist; -EINVAL naming what does when not. */
static int check_pick(const struct node_facts *d, const struct jobenv_pick *pk, struct jobenv *e,
		      const struct rdma_dev **dev)
{
	char names[512];
	size_t off = 0;
	unsigned int j;

	*dev = rdma_dev_find(&d->node, pk->dev);
	if (!*dev) {
		snprintf(e->why, sizeof(e->why), "Unknown device '%s'. Devices: %s", pk->dev,
			 rdma_dev_names(&d->node, names, sizeof(names)));
		return -EINVAL;
	}
	if (!pk->port || rdma_port_find(*dev, pk->port))
		return 0;
	names[0] = '\0';
	for (j = 0; (*dev)->ports && j < (*dev)->nports && off < sizeof(names); j++)
		off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%u", j ? ", " : "",
					(*dev)->ports[j].num);
	snprintf(e->why, sizeof(e->why), "Unknown port '%s/%u'. Ports of %s: %s", pk->dev, pk->port,
		 pk->dev, names[0] ? names : "none");
	return -EINVAL;
}

static int take_ports(struct node_facts *d, const struct jobenv_pick *picks, size_t n, struct jobenv *e)
{
	const struct rdma_dev *dev;
	size_t i;
	int ret = 0;

	/* Every -d first: a typo is a usage error even after a port that is refused. */
	for (i = 0; !ret && i < n; i++)
		ret = check_pick(d, &picks[i], e, &dev);
	for (i = 0; !ret && i < n; i++)
		ret = take_dev(d, e, rdma_dev_find(&d->node, picks[i].dev), picks[i].port);
	/* None: every device, as the ports check looks at them. */
	for (i = 0; !ret && !n && i < d->node.n; i++)
		ret = take_dev(d, e, &d->node.devs[i], 0);
	if (!ret && !e->n)
		ret = no_active_port(e);
	return ret;
}

static int cmp_port(const void *a, const void *b)
{
	const struct jobenv_port *x = a, *y = b;
	int c = strverscmp(x->dev->name, y->dev->name);	/* mlx5_2 before mlx5_10 */

	return c ? c : (x->port->num > y->port->num) - (x->port->num < y->port->num);
}

/* A name refused for a value, with the ports check's reason and what to do. */
static int bad_name(struct jobenv *e, const char *kind, const char *name, const char *why,
		    const char *fix)
{
	snprintf(e->why, sizeof(e->why), "Failed to export %s '%s': %s (doctor check ports). "
		 "Fix: %s", kind, name, why, fix);
	return -ENODATA;
}

/* Whether the netdev @name is in /sys/class/net (below the root): this namespace's. */
static bool netdev_here(const struct ctx *ctx, const char *name)
{
	char path[512];

	return !strchr(name, '/') &&
	       (size_t)snprintf(path, sizeof(path), "/sys/class/net/%s", name) < sizeof(path) &&
	       root_exists(ctx, path);
}

static void note(struct jobenv *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct jobenv *e, const char *fmt, ...)
{
	va_list ap;

	if (e->n_notes == sizeof(e->notes) / sizeof(e->notes[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(e->notes[e->n_notes++], sizeof(e->notes[0]), fmt, ap);
	va_end(ap);
}

/*
 * The netdev a port's traffic leaves by: the chosen GID's where it is
 * stacked on the port's (a VLAN: it holds the IP address NCCL's and UCX's
 * sockets bind to, the port's own has none), else the port's own, else
 * the GID's; "" when it is not in this namespace's /sys/class/net (a
 * container given the device but not the netdev), since a job cannot
 * bind to it.
 */
static void port_ifname(const struct ctx *ctx, struct jobenv *e, struct jobenv_port *jp)
{
	const char *nd = jp->gid && jp->gid->stacked ? jp->gid->netdev
			 : jp->port->netdev[0] ? jp->port->netdev : jp->gid ? jp->gid->netdev : "";

	jp->ifname[0] = '\0';
	if (!nd[0])
		return;
	if (!netdev_here(ctx, nd)) {
		note(e, "%s/%u: its netdev %s is not in /sys/class/net here (another network "
		     "namespace): not named for sockets", jp->dev->name, jp->port->num, nd);
		return;
	}
	snprintf(jp->ifname, sizeof(jp->ifname), "%s", nd);
}

static int names_ok(struct jobenv *e, const struct jobenv_port *jp)
{
	const char *why;

	if ((why = jobenv_name_bad(jp->dev->name, true)))
		return bad_name(e, "RDMA device", jp->dev->name, why,
				"rdma dev set DEV name NEWNAME, or choose other ports with "
				"RDMACTL_ENV_DEVICES (rdmactl env -d)");
	if (jp->ifname[0] && (why = jobenv_name_bad(jp->ifname, false)))
		return bad_name(e, "netdev", jp->ifname, why,
				"ip link set dev IF name NEWNAME, or choose other ports with "
				"RDMACTL_ENV_DEVICES (rdmactl env -d)");
	return 0;
}

/* The GID on each port (roce.gid's choice). */
static int choose_gids(struct jobenv *e)
{
	struct check_result r = { 0 };
	struct gid_choice c;
	char what[160];
	size_t i;

	for (i = 0; i < e->n; i++) {
		struct jobenv_port *jp = &e->ports[i];

		if (!doctor_gid_choose(jp->port, &c)) {
			check_note(&r, CHECK_FAIL, "%s", c.why);
			if (c.fix[0])
				check_fix(&r, "%s", c.fix);
			snprintf(what, sizeof(what), "Failed to find a GID index for %s/%u",
				 jp->dev->name, jp->port->num);
			return refuse(e, what, "roce.gid", &r);
		}
		jp->gid = c.gid;
		snprintf(jp->why, sizeof(jp->why), "%s", c.why);
	}
	return 0;
}

/* The first port whose index differs from the first port's, or NULL. */
static const struct jobenv_port *index_differs(const struct jobenv *e)
{
	size_t i;

	for (i = 1; i < e->n; i++)
		if (e->ports[i].gid->index != e->ports[0].gid->index)
			return &e->ports[i];
	return NULL;
}

/* "DEV/PORT and DEV/PORT need GID indexes N and M" of @a and @b into @buf (cut to fit). */
static const char *two_needs(const struct jobenv_port *a, const struct jobenv_port *b, char *buf,
			     size_t len)
{
	snprintf(buf, len, "%.60s/%u and %.60s/%u need GID indexes %u and %u", a->dev->name,
		 a->port->num, b->dev->name, b->port->num, a->gid->index, b->gid->index);
	return buf;
}

/* The fix where no index serves the ports: one rail per job, by the knob a job has. */
static void one_rail_fix(struct check_result *r, const struct jobenv_port *a, const char *upgrade)
{
	check_fix(r, "%s, or give each job ports that agree: RDMACTL_ENV_DEVICES=%s/%u for the "
		  "TaskProlog (rdmactl env -d %s/%u)", upgrade, a->dev->name, a->port->num,
		  a->dev->name, a->port->num);
}

/*
 * NCCL 2.21 and later (NCCL_IB_GID_INDEX's default became -1: ncclIbGetGidIndex()
 * walks each device's table for RoCE v2 with an AF_INET address) find every
 * port's entry themselves; earlier releases use index 0 unless one index is set.
 */
static int nccl_plan(struct node_facts *d, struct jobenv *e, const struct jobenv_port *b)
{
	const struct jobenv_port *a = &e->ports[0];
	char need[192];
	size_t i;
	int idx;

	doctor_find_nccl(d);
	two_needs(a, b, need, sizeof(need));
	if (d->nccl_version > 0 && d->nccl_version < 22100) {
		check_note(&e->plan, CHECK_FAIL, "%s, and NCCL %d.%d.%d (%s), older than 2.21, takes "
			   "one NCCL_IB_GID_INDEX for every device", need, d->nccl_version / 10000,
			   d->nccl_version / 100 % 100, d->nccl_version % 100, d->nccl_lib);
		one_rail_fix(&e->plan, a, "install NCCL 2.21 or later (it finds each port's entry)");
		return -ENODATA;
	}
	for (i = 0; i < e->n; i++) {
		const struct jobenv_port *p = &e->ports[i];

		idx = doctor_nccl_auto(p->port);
		if (idx == (int)p->gid->index)
			continue;
		check_note(&e->plan, CHECK_FAIL, "%s, and on %s/%u NCCL 2.21+ would pick GID %d itself, "
			   "not %u", need, p->dev->name, p->port->num, idx, p->gid->index);
		one_rail_fix(&e->plan, a, "remove the entries NCCL prefers (see rdmactl gids)");
		return -ENODATA;
	}
	if (d->nccl_version > 0)
		check_note(&e->plan, CHECK_OK, "%s: no NCCL_IB_GID_INDEX, NCCL %d.%d.%d finds each "
			   "port's entry itself", need, d->nccl_version / 10000,
			   d->nccl_version / 100 % 100, d->nccl_version % 100);
	else
		check_note(&e->plan, CHECK_OK, "%s: no NCCL_IB_GID_INDEX, NCCL 2.21 and later find each "
			   "port's entry themselves (no libnccl found here; an older one needs one "
			   "rail per job)", need);
	note(e, "%s", e->plan.found);
	return 0;
}

/*
 * UCX 1.7 and later (UCX_IB_GID_INDEX=auto, the default: uct_ib_device_select_gid()
 * per device and port) take each port's first RoCE v2 IPv4 entry; 1.5 and 1.6
 * on upstream rdma-core took the first IPv4 entry of any RoCE version.
 */
static int ucx_plan(struct node_facts *d, struct jobenv *e, const struct jobenv_port *b)
{
	const struct ucx_install *u = doctor_ucx(d);
	const struct jobenv_port *a = &e->ports[0];
	const struct rdma_gid *g;
	char need[192];
	size_t i;

	two_needs(a, b, need, sizeof(need));
	if (u->version > 0 && u->version < 10700) {
		check_note(&e->plan, CHECK_FAIL, "%s, and UCX %d.%d.%d (%s), older than 1.7, does not "
			   "pick each port's RoCE v2 entry itself: UCX_IB_GID_INDEX holds one index for "
			   "every device", need, u->version / 10000, u->version / 100 % 100,
			   u->version % 100, u->from);
		one_rail_fix(&e->plan, a, "install UCX 1.7 or later");
		return -ENODATA;
	}
	for (i = 0; i < e->n; i++) {
		const struct jobenv_port *p = &e->ports[i];

		g = ucx_port_gid(p->port, NULL);
		if (g == p->gid)
			continue;
		check_note(&e->plan, CHECK_FAIL, "%s, and on %s/%u UCX would pick GID %d itself, not %u",
			   need, p->dev->name, p->port->num, g ? (int)g->index : -1, p->gid->index);
		one_rail_fix(&e->plan, a, "remove the entries UCX prefers (see rdmactl gids)");
		return -ENODATA;
	}
	check_note(&e->plan, CHECK_OK, "%s: no UCX_IB_GID_INDEX, UCX 1.7 and later pick each port's "
		   "entry themselves", need);
	note(e, "%s", e->plan.found);
	return 0;
}

/* NCCL_IB_ADDR_FAMILY and the others choose the GID: an index would override them. */
static bool nccl_job_selects_gid(struct node_facts *d)
{
	return doctor_env(d, "NCCL_IB_ADDR_FAMILY") || doctor_env(d, "NCCL_IB_ROCE_VERSION_NUM") ||
	       doctor_env(d, "NCCL_IB_ADDR_RANGE");
}

/* The job chose how its library picks the GID (env.nccl or env.ucx judged it). */
static bool job_chose_gid(struct node_facts *d, enum job_kind f)
{
	const char *ucx = doctor_env(d, "UCX_IB_GID_INDEX");

	if (f == JOB_NCCL)
		return doctor_env(d, "NCCL_IB_GID_INDEX") || nccl_job_selects_gid(d);
	return ucx && strcmp(ucx, "auto");
}

/*
 * One index for every port where they agree (right for every release);
 * where they differ, nothing, if the job's library finds each port's
 * entry itself, else no value is right.
 */
static int gid_plan(struct node_facts *d, enum job_kind f, struct jobenv *e)
{
	const struct jobenv_port *b = index_differs(e);
	int ret;

	memset(&e->plan, 0, sizeof(e->plan));
	if (f == JOB_NCCL)
		doctor_find_nccl(d);	/* the release decides what NCCL_IB_GID_INDEX may be */
	e->gid_index = e->ports[0].gid->index;
	e->index_set = !b;
	if (!b || job_chose_gid(d, f))
		return 0;
	e->index_differs = true;
	if (f == JOB_NCCL)
		ret = nccl_plan(d, e, b);
	else if (e->have_ucx && !e->ucx_no_rdma)
		ret = ucx_plan(d, e, b);
	else
		ret = 0;
	if (ret) {
		e->plan_failed = true;
		return refuse(e, "Failed to find a GID index for the job's ports", "roce.gid", &e->plan);
	}
	return 0;
}

/* "a,b": the ports' netdevs, each once. */
static void join_ifnames(struct jobenv *e)
{
	size_t i, off = 0, n;
	const char *nd, *at;

	e->ifnames[0] = '\0';
	for (i = 0; i < e->n && off < sizeof(e->ifnames); i++) {
		nd = e->ports[i].ifname;
		n = strlen(nd);
		if (!n)
			continue;
		for (at = strstr(e->ifnames, nd); at; at = strstr(at + 1, nd))
			if ((at == e->ifnames || at[-1] == ',') && (at[n] == ',' || !at[n]))
				break;
		if (!at)
			off += (size_t)snprintf(e->ifnames + off, sizeof(e->ifnames) - off, "%s%s",
						off ? "," : "", nd);
	}
}

/*
 * Whether the job's UCX, at the GID index it will use, drops every UD
 * packet on one of the ports (UCX before 1.19 off mlx5 with an IPv4 GID):
 * then the variable that keeps it from doing so goes with the others.
 */
static void ucx_dgid(struct node_facts *d, struct jobenv *e)
{
	const struct ucx_install *u = doctor_ucx(d);
	const char *job = doctor_env(d, "UCX_IB_GID_INDEX");
	char idx[16], why[256];
	size_t i;

	if (u->version < 0)
		return;
	snprintf(idx, sizeof(idx), "%u", e->gid_index);
	for (i = 0; i < e->n && !e->ucx_dgid_off; i++)
		e->ucx_dgid_off = ucx_needs_dgid_check_off(e->ports[i].dev, e->ports[i].port, u->version,
							   job ? job : e->index_set ? idx : NULL,
							   why, sizeof(why));
}

/* The variables rdmactl env exports for a job of kind @f (jobenv_vars()); NULL-terminated. */
static const char *const *exported(enum job_kind f)
{
	static const char *const nccl[] = { "NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_SOCKET_IFNAME", NULL };
	static const char *const ucx[] = { "UCX_NET_DEVICES", "UCX_IB_GID_INDEX", NULL };

	return f == JOB_NCCL ? nccl : ucx;
}

/* The doctor's check of @f's variables (env.nccl or env.ucx) into @r; whether it failed. */
static bool job_vars_fail(struct node_facts *d, enum job_kind f, struct check_result *r)
{
	memset(r, 0, sizeof(*r));
	if (f == JOB_NCCL)
		check_env_nccl(d, r);
	else
		check_env_ucx(d, r);
	return r->status == CHECK_FAIL;
}

/*
 * Where a site's file (/etc/nccl.conf, ucx.conf) gives a variable env
 * exports a value the doctor fails, env's own value outranks it (both
 * libraries fill from their files only what the environment leaves
 * unset): override the file's values one by one until the check passes,
 * then give back each override the check passes without, so that a
 * site's right value is kept.  True when the check then passes.
 */
static bool override_files(struct node_facts *d, enum job_kind f, struct jobenv *e)
{
	const char *const *names = exported(f);
	struct check_result r;
	bool failed = true;
	char said[CHECK_TEXT];
	size_t i;

	for (i = 0; names[i] && failed; i++)
		if (doctor_env_file(d, names[i])) {
			doctor_env_override(d, names[i], true);
			failed = job_vars_fail(d, f, &r);
		}
	if (failed)
		return false;
	for (i = 0; names[i]; i++) {
		if (!doctor_env_overridden(d, names[i]))
			continue;
		doctor_env_override(d, names[i], false);
		if (job_vars_fail(d, f, &r))
			doctor_env_override(d, names[i], true);
	}
	for (i = 0; names[i]; i++)
		if (doctor_env_overridden(d, names[i]))
			note(e, "%s fails env.%s here: the value exported outranks it",
			     doctor_env_said(d, names[i], said, sizeof(said)),
			     f == JOB_NCCL ? "nccl" : "ucx");
	return true;
}

/*
 * The job's own variables of @f's library, as it will read them (the
 * environment, then its files): kept, unless the doctor's check fails
 * them and no value env exports puts that right.
 */
static int judge_job_vars(struct node_facts *d, enum job_kind f, struct jobenv *e)
{
	struct check_result r;
	bool nccl = f == JOB_NCCL;

	if (!job_vars_fail(d, f, &r) || override_files(d, f, e))
		return 0;
	return refuse(e, nccl ? "Failed to keep the job's NCCL variables"
			      : "Failed to keep the job's UCX variables",
		      nccl ? "env.nccl" : "env.ucx", &r);
}

/* Whether the job's own port list (NCCL_IB_HCA, UCX_NET_DEVICES) selects @jp; true when none. */
static bool job_selects(struct node_facts *d, enum job_kind f, const struct jobenv_port *jp)
{
	const char *val = doctor_env(d, f == JOB_NCCL ? "NCCL_IB_HCA" : "UCX_NET_DEVICES");
	struct env_list l;
	char err[160];

	if (f != JOB_NCCL)
		return ucx_list_selects(val, jp->dev->name, (int)jp->port->num);
	return !val || nccl_list_parse(val, &l, err, sizeof(err)) ||
	       nccl_list_match(&l, jp->dev->name, (int)jp->port->num);
}

/* Only the ports the job's own list selects: the others to the skipped list. */
static int narrow_to_job(struct node_facts *d, enum job_kind f, struct jobenv *e)
{
	const char *var = f == JOB_NCCL ? "NCCL_IB_HCA" : "UCX_NET_DEVICES";
	struct check_result r;
	size_t i, kept = 0;
	int ret = 0;

	for (i = 0; i < e->n && !ret; i++) {
		if (job_selects(d, f, &e->ports[i])) {
			e->ports[kept++] = e->ports[i];
			continue;
		}
		memset(&r, 0, sizeof(r));
		check_note(&r, CHECK_OK, "%s/%u is not selected by the job's %s='%.80s'",
			   e->ports[i].dev->name, e->ports[i].port->num, var, doctor_env(d, var));
		ret = skip_add(e, e->ports[i].dev, e->ports[i].port, &r);
	}
	e->n = kept;
	if (ret || kept)
		return ret;
	snprintf(e->why, sizeof(e->why), "Failed to find the job's RDMA ports: the job's %s='%.80s' "
		 "selects none of the active ports (doctor check env.%s). Fix: unset %s, or name "
		 "ports that are active (rdmactl ports)", var, doctor_env(d, var),
		 f == JOB_NCCL ? "nccl" : "ucx", var);
	return -ENODATA;
}

/*
 * A site file's NCCL_SOCKET_IFNAME overridden where the ports have no
 * netdev to export in its place: nothing outranks it, so refused in the
 * check's words.
 */
static int ifname_unreplaced(struct node_facts *d, enum job_kind f, struct jobenv *e)
{
	struct check_result r;

	if (f != JOB_NCCL || e->ifnames[0] || !doctor_env_overridden(d, "NCCL_SOCKET_IFNAME"))
		return 0;
	doctor_env_override(d, "NCCL_SOCKET_IFNAME", false);
	job_vars_fail(d, f, &r);
	return refuse(e, "Failed to keep the job's NCCL variables", "env.nccl", &r);
}

/*
 * Whether the job's UCX runs over RDMA at all, as UCX 1.12 and later
 * select: UCX_TLS (node/envparse.h: ucx_tls_parse()) must enable an
 * InfiniBand/RoCE transport, and UCX_NET_DEVICES, which names those
 * transports' devices as DEV:PORT and the tcp transport's as netdevs,
 * must name one DEV:PORT (or be unset or "all").  A job that chose TCP
 * (or shared memory) is left alone: no UCX_NET_DEVICES of RDMA ports
 * would leave its TCP transport no device, and no GID index concerns it.
 * Where UCX_TLS names tcp beside RDMA, the ports' netdevs go into
 * UCX_NET_DEVICES too.
 */
static void ucx_choice(struct jobenv *e)
{
	const char *tls = doctor_env(e->d, "UCX_TLS"), *devs = doctor_env(e->d, "UCX_NET_DEVICES");
	struct env_list l;
	struct ucx_tls t;
	char err[160];
	bool all, port = false;
	size_t k;

	ucx_tls_parse(tls, &t);
	if (!t.rdma) {
		e->ucx_no_rdma = true;
		snprintf(e->silent, sizeof(e->silent), "the job's UCX_TLS='%.80s' enables no RDMA "
			 "transport (rc, ud, dc): UCX runs over %s, and its devices and GID index are "
			 "left to the job", tls, t.tcp ? "TCP" : "shared memory alone");
		note(e, "%s", e->silent);
		return;
	}
	if (devs && !ucx_list_parse(devs, &l, &all, err, sizeof(err)) && !all) {
		for (k = 0; k < l.n && !port; k++)
			port = l.items[k].port > 0;
		if (!port) {
			e->ucx_no_rdma = true;
			snprintf(e->silent, sizeof(e->silent), "the job's UCX_NET_DEVICES='%.80s' names "
				 "interfaces and no RDMA port (DEV:PORT): UCX runs its TCP transport "
				 "alone, and no UCX variable is added", devs);
			note(e, "%s", e->silent);
			return;
		}
	}
	e->ucx_tcp_too = t.tcp_named;
}

/* An allow list of Open MPI components ("tcp,self,vader"), not "^openib": the job chose them. */
static bool ompi_list_chosen(const struct jobenv *e, const char *name)
{
	const char *v = doctor_env(e->d, name);

	return v && *v != '^';
}

/*
 * Open MPI's choices of the job's that a value of env's would undo (Open
 * MPI 4.1; 5.0 reads the same names):
 *  - OMPI_MCA_btl as an allow list ("tcp,self,vader") chooses the BTLs,
 *    which only pml ob1 drives (through bml r2): with OMPI_MCA_pml=ucx
 *    it is ignored for point-to-point (ompi/mca/pml/ucx sends through
 *    UCX's own transports, UCX_TLS and UCX_NET_DEVICES), so the job would
 *    run over UCX, on RDMA, not over the TCP it chose.  No pml is set.
 *  - OMPI_MCA_{oob,btl}_tcp_if_exclude: Open MPI refuses an include list
 *    beside an exclude list (orte/mca/oob/tcp's component register
 *    returns ORTE_ERR_NOT_AVAILABLE, so mpirun has no out-of-band
 *    channel; the TCP BTL's include list overrides the exclude list).
 *    No include list is added.
 */
static bool ompi_pml_ucx(const struct jobenv *e)
{
	return e->have_ucx && !ompi_list_chosen(e, "OMPI_MCA_btl");
}

static bool ompi_include(const struct jobenv *e, const char *exclude)
{
	return doctor_env(e->d, exclude) == NULL;
}

/* For -v: the Open MPI values not printed because the job chose otherwise. */
static void ompi_notes(struct jobenv *e)
{
	if (e->have_ucx && !ompi_pml_ucx(e) && !doctor_env(e->d, "OMPI_MCA_pml"))
		note(e, "no OMPI_MCA_pml=ucx: the job's OMPI_MCA_btl='%.80s' chooses Open MPI's "
		     "BTLs, which pml=ucx would leave unused for point-to-point",
		     doctor_env(e->d, "OMPI_MCA_btl"));
	if (e->ifnames[0] && !ompi_include(e, "OMPI_MCA_oob_tcp_if_exclude"))
		note(e, "no OMPI_MCA_oob_tcp_if_include: the job set OMPI_MCA_oob_tcp_if_exclude, "
		     "and Open MPI refuses both");
	if (e->ifnames[0] && !ompi_include(e, "OMPI_MCA_btl_tcp_if_exclude"))
		note(e, "no OMPI_MCA_btl_tcp_if_include: the job set OMPI_MCA_btl_tcp_if_exclude, "
		     "which an include list would override");
}

/*
 * NCCL opens at most MAX_IB_DEVS (32) ports and reads as many entries of
 * NCCL_IB_HCA (parseStringList() drops the rest): the first 32 in order,
 * the others to the skipped list.
 */
static int nccl_limit(struct jobenv *e)
{
	struct check_result r;
	size_t i;
	int ret = 0;

	for (i = JOBENV_NCCL_PORTS_MAX; i < e->n && !ret; i++) {
		memset(&r, 0, sizeof(r));
		check_note(&r, CHECK_OK, "%s/%u: NCCL opens at most %d ports (MAX_IB_DEVS)",
			   e->ports[i].dev->name, e->ports[i].port->num, JOBENV_NCCL_PORTS_MAX);
		ret = skip_add(e, e->ports[i].dev, e->ports[i].port, &r);
	}
	if (e->n > JOBENV_NCCL_PORTS_MAX)
		e->n = JOBENV_NCCL_PORTS_MAX;
	return ret;
}

/* Whether every value fits its buffer: one entry per port, never cut. */
static int values_fit(struct jobenv *e)
{
	size_t i, need = 8;

	for (i = 0; i < e->n; i++)
		need += strlen(e->ports[i].dev->name) + 5 + strlen(e->ports[i].ifname) + 1;
	if (need < JOBENV_VALUE_MAX / 2)
		return 0;
	snprintf(e->why, sizeof(e->why), "Failed to list the job's ports: the %zu ports' names "
		 "need more than %d characters. Fix: choose them with RDMACTL_ENV_DEVICES "
		 "(rdmactl env -d)", e->n, JOBENV_VALUE_MAX / 2);
	return -ENODATA;
}

/*
 * The traffic class the job needs when it sets none (check roce.qos):
 * exported only when every port needs the same one; a port whose class
 * is lossless already, or unreadable, leaves the library's own.
 */
static void qos_class(struct node_facts *d, enum job_kind f, struct jobenv *e)
{
	size_t i;
	int tc;

	for (i = 0; i < e->n; i++) {
		tc = doctor_qos_tc(d, f, e->ports[i].dev, e->ports[i].port);
		if (tc < 0 || (i && tc != e->tc)) {
			if (i && e->tc_set)
				note(e, "the ports need different traffic classes for a lossless "
				     "priority: none exported (rdmactl doctor --only roce.qos)");
			e->tc_set = false;
			return;
		}
		e->tc = tc;
		e->tc_set = true;
	}
}

int jobenv_build(struct node_facts *d, enum job_kind f, const struct jobenv_pick *picks, size_t n,
		 struct jobenv *e)
{
	size_t i;
	int ret;

	memset(e, 0, sizeof(*e));
	e->d = d;
	if (d->node_err) {
		snprintf(e->why, sizeof(e->why), "Failed to read RDMA devices: %s",
			 strerror(-d->node_err));
		return d->node_err;
	}
	if (!d->node.n)
		return no_device(d, e);
	/* UCX's variables only where UCX is: Open MPI's pml=ucx without it fails every job. */
	e->have_ucx = doctor_ucx(d)->version >= 0;
	if (f != JOB_NCCL && !e->have_ucx) {
		snprintf(e->silent, sizeof(e->silent), "UCX is not installed here (no libucp.so.0, no "
			 "libucx0 package): no UCX variable and no OMPI_MCA_pml=ucx");
		note(e, "%s", e->silent);
	}
	if (f != JOB_NCCL && e->have_ucx)
		ucx_choice(e);
	ret = take_ports(d, picks, n, e);
	if (!ret && (f == JOB_NCCL || e->have_ucx))
		ret = judge_job_vars(d, f, e);
	if (!ret && (f == JOB_NCCL || (e->have_ucx && !e->ucx_no_rdma)))
		ret = narrow_to_job(d, f, e);
	if (ret)
		return ret;
	qsort(e->ports, e->n, sizeof(e->ports[0]), cmp_port);
	if (f == JOB_NCCL)
		ret = nccl_limit(e);
	if (!ret)
		ret = choose_gids(e);
	for (i = 0; !ret && i < e->n; i++) {
		port_ifname(d->ctx, e, &e->ports[i]);
		ret = names_ok(e, &e->ports[i]);
	}
	if (!ret)
		ret = values_fit(e);
	if (!ret)
		ret = gid_plan(d, f, e);
	if (!ret)
		join_ifnames(e);
	if (!ret)
		ret = ifname_unreplaced(d, f, e);
	if (!ret && f == JOB_MPI)
		ompi_notes(e);
	if (!ret && e->have_ucx && !e->ucx_no_rdma)
		ucx_dgid(d, e);
	if (!ret && (f == JOB_NCCL || (e->have_ucx && !e->ucx_no_rdma)))
		qos_class(d, f, e);
	return ret;
}

void jobenv_free(struct jobenv *e)
{
	if (e->d)
		doctor_env_overrides_clear(e->d);
	free(e->ports);
	e->ports = NULL;
	e->n = 0;
	free(e->skipped);
	e->skipped = NULL;
	e->n_skipped = 0;
}

/* "PREFIXdev:port,dev:port", and with @ifnames the ports' netdevs after them. */
static void hca_list(const struct jobenv *e, const char *prefix, bool ifnames, char *buf,
		     size_t len)
{
	size_t i, off;

	off = (size_t)snprintf(buf, len, "%s", prefix);
	for (i = 0; i < e->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s:%u", i ? "," : "",
					e->ports[i].dev->name, e->ports[i].port->num);
	if (ifnames && e->ifnames[0] && off < len)
		snprintf(buf + off, len - off, ",%s", e->ifnames);
}

/* A variable to print, or kept when the job set it (in the environment or a file). */
static struct jobenv_var *var(const struct jobenv *e, struct jobenv_var *v, size_t *n,
			      const char *name)
{
	v[*n].name = name;
	v[*n].value[0] = '\0';
	v[*n].kept = doctor_env(e->d, name) != NULL;
	return &v[(*n)++];
}

/* Whether env overrides a site file's value of @name (jobenv_build()). */
static bool overrides(const struct jobenv *e, const char *name)
{
	return e->d && doctor_env_overridden(e->d, name);
}

static void ucx_vars(const struct jobenv *e, struct jobenv_var *v, size_t *n)
{
	if (e->ucx_no_rdma)
		return;
	hca_list(e, "", e->ucx_tcp_too, var(e, v, n, "UCX_NET_DEVICES")->value, JOBENV_VALUE_MAX);
	if (e->index_set)
		snprintf(var(e, v, n, "UCX_IB_GID_INDEX")->value, JOBENV_VALUE_MAX, "%u", e->gid_index);
	else if (doctor_env(e->d, "UCX_IB_GID_INDEX") || overrides(e, "UCX_IB_GID_INDEX"))
		/* UCX 1.7 and later pick each port's entry (ucx_plan()). */
		snprintf(var(e, v, n, "UCX_IB_GID_INDEX")->value, JOBENV_VALUE_MAX, "auto");
	if (e->ucx_dgid_off)
		snprintf(var(e, v, n, "UCX_UD_VERBS_ETH_DGID_CHECK")->value, JOBENV_VALUE_MAX, "n");
	if (e->tc_set)
		snprintf(var(e, v, n, "UCX_IB_TRAFFIC_CLASS")->value, JOBENV_VALUE_MAX, "%d", e->tc);
}

/*
 * NCCL_IB_GID_INDEX: the ports' one index, unless the job's own
 * selection variables choose the GID; where the ports differ, -1 ("NCCL
 * 2.21 and later find each port's entry", nccl_plan()) only to override a
 * site file's wrong index, else nothing.
 */
static void nccl_gid_var(const struct jobenv *e, struct jobenv_var *v, size_t *n)
{
	bool selects = e->d && nccl_job_selects_gid(e->d), over = overrides(e, "NCCL_IB_GID_INDEX");
	bool old = e->d && e->d->nccl_version > 0 && e->d->nccl_version < 22100;
	struct jobenv_var *x;

	if (!over && !doctor_env(e->d, "NCCL_IB_GID_INDEX") && !(e->index_set && !selects))
		return;
	x = var(e, v, n, "NCCL_IB_GID_INDEX");
	if (e->index_set && (!selects || old))
		snprintf(x->value, JOBENV_VALUE_MAX, "%u", e->gid_index);
	else
		snprintf(x->value, JOBENV_VALUE_MAX, "-1");
}

size_t jobenv_vars(const struct jobenv *e, enum job_kind f, struct jobenv_var *v)
{
	size_t n = 0;

	switch (f) {
	case JOB_NCCL:
		/* '=': whole names, so that mlx5_1 does not also select mlx5_10. */
		hca_list(e, "=", false, var(e, v, &n, "NCCL_IB_HCA")->value, JOBENV_VALUE_MAX);
		nccl_gid_var(e, v, &n);
		if (e->ifnames[0])
			snprintf(var(e, v, &n, "NCCL_SOCKET_IFNAME")->value, JOBENV_VALUE_MAX, "=%s",
				 e->ifnames);
		if (e->tc_set)
			snprintf(var(e, v, &n, "NCCL_IB_TC")->value, JOBENV_VALUE_MAX, "%d", e->tc);
		break;
	case JOB_UCX:
		if (e->have_ucx)
			ucx_vars(e, v, &n);
		break;
	case JOB_MPI:
		if (e->have_ucx)
			ucx_vars(e, v, &n);
		if (ompi_pml_ucx(e))
			snprintf(var(e, v, &n, "OMPI_MCA_pml")->value, JOBENV_VALUE_MAX, "ucx");
		if (!e->ifnames[0])
			break;
		/* mpirun's and orted's out-of-band channel, and the TCP BTL if one runs. */
		if (ompi_include(e, "OMPI_MCA_oob_tcp_if_exclude"))
			snprintf(var(e, v, &n, "OMPI_MCA_oob_tcp_if_include")->value, JOBENV_VALUE_MAX,
				 "%s", e->ifnames);
		if (ompi_include(e, "OMPI_MCA_btl_tcp_if_exclude"))
			snprintf(var(e, v, &n, "OMPI_MCA_btl_tcp_if_include")->value, JOBENV_VALUE_MAX,
				 "%s", e->ifnames);
		break;
	default:	/* a kind rdmactl env does not take (job_kind.c): no variable */
		break;
	}
	return n;
}
