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

int jobenv_for_parse(const char *s, enum jobenv_for *out)
{
	static const char *const names[] = { "nccl", "ucx", "mpi" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum jobenv_for)i;
			return 0;
		}
	return -EINVAL;
}

const char *jobenv_for_str(enum jobenv_for f)
{
	return f == JOBENV_NCCL ? "nccl" : f == JOBENV_UCX ? "ucx" : "mpi";
}

/*
 * Slurm's TaskProlog takes everything after "export NAME=" as the value,
 * quotes included, and a shell that evaluates the line would expand "$",
 * "`", ";" and blanks; NCCL and UCX split lists at ',' and read a leading
 * '^' or '='.  Netdev names may hold all of these (only '/', ':' and white
 * space are refused by the kernel), so only plain names pass.
 */
bool jobenv_name_ok(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789._-") == strlen(s);
}

static bool is_rep(struct doctor *d, const struct rdma_port *p)
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

static int no_device(struct doctor *d, struct jobenv *e)
{
	struct check_result r = { 0 };

	check_devices(d, &r);
	return refuse(e, "Failed to find the job's RDMA ports", "devices", &r);
}

/* Why @p is no port for a job: a representor, or not ACTIVE and LinkUp (with the doctor's words). */
static bool port_unusable(struct doctor *d, const struct rdma_dev *dev, const struct rdma_port *p,
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

static int use_port(struct jobenv *e, const struct rdma_dev *dev, const struct rdma_port *p)
{
	if (have_port(e, p))
		return 0;
	if (e->n == JOBENV_PORTS_MAX) {
		snprintf(e->why, sizeof(e->why), "Failed to list the job's ports: more than %d "
			 "(NCCL reads at most %d entries of NCCL_IB_HCA). Fix: choose them with "
			 "RDMACTL_ENV_DEVICES (rdmactl env -d)",
			 JOBENV_PORTS_MAX, JOBENV_PORTS_MAX);
		return -ENODATA;
	}
	e->ports[e->n].dev = dev;
	e->ports[e->n++].port = p;
	return 0;
}

/*
 * Every usable port of @dev (@only: that one), the others to the skipped
 * list.  A port asked for by number must be usable.
 */
static int take_dev(struct doctor *d, struct jobenv *e, const struct rdma_dev *dev,
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
static int check_pick(const struct doctor *d, const struct jobenv_pick *pk, struct jobenv *e,
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

static int take_ports(struct doctor *d, const struct jobenv_pick *picks, size_t n, struct jobenv *e)
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

/* A name refused for a value, with what to do. */
static int bad_name(struct jobenv *e, const char *kind, const char *name, const char *fix)
{
	snprintf(e->why, sizeof(e->why), "Failed to export %s '%s': a value Slurm's TaskProlog and "
		 "a shell both read as written may hold only letters, digits, '.', '_' and '-'. "
		 "Fix: %s", kind, name, fix);
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
 * The netdev a port's traffic leaves by: its own, else the chosen GID's;
 * "" when it is not in this namespace's /sys/class/net (a container given
 * the device but not the netdev), since a job cannot bind to it.
 */
static void port_ifname(const struct ctx *ctx, struct jobenv *e, struct jobenv_port *jp)
{
	const char *nd = jp->port->netdev[0] ? jp->port->netdev : jp->gid ? jp->gid->netdev : "";

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
	if (!jobenv_name_ok(jp->dev->name))
		return bad_name(e, "RDMA device", jp->dev->name,
				"rdma dev set DEV name NEWNAME, or choose other ports with "
				"RDMACTL_ENV_DEVICES (rdmactl env -d)");
	if (jp->ifname[0] && !jobenv_name_ok(jp->ifname))
		return bad_name(e, "netdev", jp->ifname,
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
static int nccl_plan(struct doctor *d, struct jobenv *e, const struct jobenv_port *b)
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
static int ucx_plan(struct doctor *d, struct jobenv *e, const struct jobenv_port *b)
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
static bool nccl_job_selects_gid(void)
{
	return doctor_env("NCCL_IB_ADDR_FAMILY") || doctor_env("NCCL_IB_ROCE_VERSION_NUM") ||
	       doctor_env("NCCL_IB_ADDR_RANGE");
}

/* The job chose how its library picks the GID (env.nccl or env.ucx judged it). */
static bool job_chose_gid(enum jobenv_for f)
{
	const char *ucx = doctor_env("UCX_IB_GID_INDEX");

	if (f == JOBENV_NCCL)
		return doctor_env("NCCL_IB_GID_INDEX") || nccl_job_selects_gid();
	return ucx && strcmp(ucx, "auto");
}

/*
 * One index for every port where they agree (right for every release);
 * where they differ, nothing, if the job's library finds each port's
 * entry itself, else no value is right.
 */
static int gid_plan(struct doctor *d, enum jobenv_for f, struct jobenv *e)
{
	const struct jobenv_port *b = index_differs(e);
	int ret;

	memset(&e->plan, 0, sizeof(e->plan));
	e->gid_index = e->ports[0].gid->index;
	e->index_set = !b;
	if (!b || job_chose_gid(f))
		return 0;
	e->index_differs = true;
	if (f == JOBENV_NCCL)
		ret = nccl_plan(d, e, b);
	else if (e->have_ucx)
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
static void ucx_dgid(struct doctor *d, struct jobenv *e)
{
	const struct ucx_install *u = doctor_ucx(d);
	const char *job = doctor_env("UCX_IB_GID_INDEX");
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

/* The job's own variables of @f's library: kept, unless the doctor's check fails them. */
static int judge_job_vars(struct doctor *d, enum jobenv_for f, struct jobenv *e)
{
	struct check_result r = { 0 };
	bool nccl = f == JOBENV_NCCL;

	if (nccl)
		check_env_nccl(d, &r);
	else
		check_env_ucx(d, &r);
	if (r.status != CHECK_FAIL)
		return 0;
	return refuse(e, nccl ? "Failed to keep the job's NCCL variables"
			      : "Failed to keep the job's UCX variables",
		      nccl ? "env.nccl" : "env.ucx", &r);
}

/* Whether the job's own port list (NCCL_IB_HCA, UCX_NET_DEVICES) selects @jp; true when none. */
static bool job_selects(enum jobenv_for f, const struct jobenv_port *jp)
{
	const char *val = doctor_env(f == JOBENV_NCCL ? "NCCL_IB_HCA" : "UCX_NET_DEVICES");
	struct env_list l;
	char err[160];

	if (f != JOBENV_NCCL)
		return ucx_list_selects(val, jp->dev->name, (int)jp->port->num);
	return !val || nccl_list_parse(val, &l, err, sizeof(err)) ||
	       nccl_list_match(&l, jp->dev->name, (int)jp->port->num);
}

/* Only the ports the job's own list selects: the others to the skipped list. */
static int narrow_to_job(enum jobenv_for f, struct jobenv *e)
{
	const char *var = f == JOBENV_NCCL ? "NCCL_IB_HCA" : "UCX_NET_DEVICES";
	struct check_result r;
	size_t i, kept = 0;
	int ret = 0;

	for (i = 0; i < e->n && !ret; i++) {
		if (job_selects(f, &e->ports[i])) {
			e->ports[kept++] = e->ports[i];
			continue;
		}
		memset(&r, 0, sizeof(r));
		check_note(&r, CHECK_OK, "%s/%u is not selected by the job's %s='%.80s'",
			   e->ports[i].dev->name, e->ports[i].port->num, var, doctor_env(var));
		ret = skip_add(e, e->ports[i].dev, e->ports[i].port, &r);
	}
	e->n = kept;
	if (ret || kept)
		return ret;
	snprintf(e->why, sizeof(e->why), "Failed to find the job's RDMA ports: the job's %s='%.80s' "
		 "selects none of the active ports (doctor check env.%s). Fix: unset %s, or name "
		 "ports that are active (rdmactl ports)", var, doctor_env(var),
		 f == JOBENV_NCCL ? "nccl" : "ucx", var);
	return -ENODATA;
}

int jobenv_build(struct doctor *d, enum jobenv_for f, const struct jobenv_pick *picks, size_t n,
		 struct jobenv *e)
{
	size_t i;
	int ret;

	memset(e, 0, sizeof(*e));
	if (d->node_err) {
		snprintf(e->why, sizeof(e->why), "Failed to read RDMA devices: %s",
			 strerror(-d->node_err));
		return d->node_err;
	}
	if (!d->node.n)
		return no_device(d, e);
	/* UCX's variables only where UCX is: Open MPI's pml=ucx without it fails every job. */
	e->have_ucx = doctor_ucx(d)->version >= 0;
	if (f != JOBENV_NCCL && !e->have_ucx)
		note(e, "UCX is not installed here (no libucp.so.0, no libucx0 package): no UCX "
		     "variable and no OMPI_MCA_pml=ucx");
	ret = take_ports(d, picks, n, e);
	if (!ret && (f == JOBENV_NCCL || e->have_ucx))
		ret = judge_job_vars(d, f, e);
	if (!ret && (f == JOBENV_NCCL || e->have_ucx))
		ret = narrow_to_job(f, e);
	if (ret)
		return ret;
	qsort(e->ports, e->n, sizeof(e->ports[0]), cmp_port);
	ret = choose_gids(e);
	for (i = 0; !ret && i < e->n; i++) {
		port_ifname(d->ctx, e, &e->ports[i]);
		ret = names_ok(e, &e->ports[i]);
	}
	if (!ret)
		ret = gid_plan(d, f, e);
	if (!ret)
		join_ifnames(e);
	if (!ret && e->have_ucx)
		ucx_dgid(d, e);
	return ret;
}

void jobenv_free(struct jobenv *e)
{
	free(e->skipped);
	e->skipped = NULL;
	e->n_skipped = 0;
}

/* "PREFIXdev:port,dev:port". */
static void hca_list(const struct jobenv *e, const char *prefix, char *buf, size_t len)
{
	size_t i, off;

	off = (size_t)snprintf(buf, len, "%s", prefix);
	for (i = 0; i < e->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s:%u", i ? "," : "",
					e->ports[i].dev->name, e->ports[i].port->num);
}

/* A variable to print, or kept when the job set it. */
static struct jobenv_var *var(struct jobenv_var *v, size_t *n, const char *name)
{
	v[*n].name = name;
	v[*n].value[0] = '\0';
	v[*n].kept = doctor_env(name) != NULL;
	return &v[(*n)++];
}

static void ucx_vars(const struct jobenv *e, struct jobenv_var *v, size_t *n)
{
	hca_list(e, "", var(v, n, "UCX_NET_DEVICES")->value, JOBENV_VALUE_MAX);
	if (e->index_set || doctor_env("UCX_IB_GID_INDEX"))
		snprintf(var(v, n, "UCX_IB_GID_INDEX")->value, JOBENV_VALUE_MAX, "%u", e->gid_index);
	if (e->ucx_dgid_off)
		snprintf(var(v, n, "UCX_UD_VERBS_ETH_DGID_CHECK")->value, JOBENV_VALUE_MAX, "n");
}

size_t jobenv_vars(const struct jobenv *e, enum jobenv_for f, struct jobenv_var *v)
{
	size_t n = 0;

	switch (f) {
	case JOBENV_NCCL:
		/* '=': whole names, so that mlx5_1 does not also select mlx5_10. */
		hca_list(e, "=", var(v, &n, "NCCL_IB_HCA")->value, JOBENV_VALUE_MAX);
		if ((e->index_set && !nccl_job_selects_gid()) || doctor_env("NCCL_IB_GID_INDEX"))
			snprintf(var(v, &n, "NCCL_IB_GID_INDEX")->value, JOBENV_VALUE_MAX, "%u",
				 e->gid_index);
		if (e->ifnames[0])
			snprintf(var(v, &n, "NCCL_SOCKET_IFNAME")->value, JOBENV_VALUE_MAX, "=%s",
				 e->ifnames);
		break;
	case JOBENV_UCX:
		if (e->have_ucx)
			ucx_vars(e, v, &n);
		break;
	case JOBENV_MPI:
		if (e->have_ucx) {
			ucx_vars(e, v, &n);
			snprintf(var(v, &n, "OMPI_MCA_pml")->value, JOBENV_VALUE_MAX, "ucx");
		}
		if (!e->ifnames[0])
			break;
		/* mpirun's and orted's out-of-band channel, and the TCP BTL if one runs. */
		snprintf(var(v, &n, "OMPI_MCA_oob_tcp_if_include")->value, JOBENV_VALUE_MAX, "%s",
			 e->ifnames);
		snprintf(var(v, &n, "OMPI_MCA_btl_tcp_if_include")->value, JOBENV_VALUE_MAX, "%s",
			 e->ifnames);
		break;
	}
	return n;
}
