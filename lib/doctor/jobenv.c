// SPDX-License-Identifier: MIT
/*
 * rdmactl env's model: the ports a job uses on this node and the values
 * of the variables NCCL, UCX and Open MPI read for them.  Every value is
 * the one a doctor check names (the GID index of roce.gid, the ports the
 * ports check calls ACTIVE), and every refusal carries that check's
 * reason and fix, so that the command and the doctor never disagree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"
#include "doctor/jobenv.h"
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
			 "(NCCL reads at most %d entries of NCCL_IB_HCA). Fix: choose them with -d",
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

/* The netdev a port's traffic leaves by: its own, else the chosen GID's. */
static const char *port_ifname(const struct jobenv_port *jp)
{
	return jp->port->netdev[0] ? jp->port->netdev : jp->gid ? jp->gid->netdev : "";
}

static int names_ok(struct jobenv *e, const struct jobenv_port *jp)
{
	const char *nd = port_ifname(jp);

	if (!jobenv_name_ok(jp->dev->name))
		return bad_name(e, "RDMA device", jp->dev->name,
				"rdma dev set DEV name NEWNAME, or choose other ports with -d");
	if (nd[0] && !jobenv_name_ok(nd))
		return bad_name(e, "netdev", nd,
				"ip link set dev IF name NEWNAME, or choose other ports with -d");
	return 0;
}

/* The GID on each port (roce.gid's choice), and one index for all of them. */
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

/* NCCL_IB_GID_INDEX and UCX_IB_GID_INDEX hold one index for every device. */
static int one_index(struct jobenv *e)
{
	const struct jobenv_port *a = &e->ports[0];
	size_t i;

	for (i = 1; i < e->n; i++) {
		const struct jobenv_port *b = &e->ports[i];

		if (b->gid->index == a->gid->index)
			continue;
		snprintf(e->why, sizeof(e->why), "Failed to find one GID index for %s/%u and %s/%u: "
			 "they need %u and %u (doctor check roce.gid), and NCCL_IB_GID_INDEX and "
			 "UCX_IB_GID_INDEX hold one index for every device. Fix: choose the ports "
			 "with -d, as in -d %s/%u", a->dev->name, a->port->num, b->dev->name,
			 b->port->num, a->gid->index, b->gid->index, a->dev->name, a->port->num);
		return -ENODATA;
	}
	e->gid_index = a->gid->index;
	return 0;
}

/* "a,b": the ports' netdevs, each once. */
static void join_ifnames(struct jobenv *e)
{
	size_t i, off = 0, n;
	const char *nd, *at;

	e->ifnames[0] = '\0';
	for (i = 0; i < e->n && off < sizeof(e->ifnames); i++) {
		nd = port_ifname(&e->ports[i]);
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
 * Whether the job's UCX, at the GID index printed, drops every UD packet on
 * one of the ports (UCX before 1.19 off mlx5 with an IPv4 GID): then the
 * variable that keeps it from doing so goes with the others.
 */
static void ucx_dgid(struct doctor *d, struct jobenv *e)
{
	struct ucx_install u;
	char idx[16], why[256];
	size_t i;

	if (ucx_find(d->ctx, &u) < 0)
		return;
	snprintf(idx, sizeof(idx), "%u", e->gid_index);
	for (i = 0; i < e->n && !e->ucx_dgid_off; i++)
		e->ucx_dgid_off = ucx_needs_dgid_check_off(e->ports[i].dev, e->ports[i].port, u.version,
							   idx, why, sizeof(why));
}

int jobenv_build(struct doctor *d, const struct jobenv_pick *picks, size_t n, struct jobenv *e)
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
	ret = take_ports(d, picks, n, e);
	if (ret)
		return ret;
	qsort(e->ports, e->n, sizeof(e->ports[0]), cmp_port);
	ret = choose_gids(e);
	for (i = 0; !ret && i < e->n; i++)
		ret = names_ok(e, &e->ports[i]);
	if (!ret)
		ret = one_index(e);
	if (!ret)
		join_ifnames(e);
	if (!ret)
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

static struct jobenv_var *var(struct jobenv_var *v, size_t *n, const char *name)
{
	v[*n].name = name;
	v[*n].value[0] = '\0';
	return &v[(*n)++];
}

static void ucx_vars(const struct jobenv *e, struct jobenv_var *v, size_t *n)
{
	hca_list(e, "", var(v, n, "UCX_NET_DEVICES")->value, JOBENV_VALUE_MAX);
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
		snprintf(var(v, &n, "NCCL_IB_GID_INDEX")->value, JOBENV_VALUE_MAX, "%u", e->gid_index);
		if (e->ifnames[0])
			snprintf(var(v, &n, "NCCL_SOCKET_IFNAME")->value, JOBENV_VALUE_MAX, "=%s",
				 e->ifnames);
		break;
	case JOBENV_UCX:
		ucx_vars(e, v, &n);
		break;
	case JOBENV_MPI:
		ucx_vars(e, v, &n);
		snprintf(var(v, &n, "OMPI_MCA_pml")->value, JOBENV_VALUE_MAX, "ucx");
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
