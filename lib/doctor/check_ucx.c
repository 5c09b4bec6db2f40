// SPDX-License-Identifier: MIT
/*
 * Doctor check of a known UCX bug against this node's ports (node/ucx.c):
 * before 1.19, UCX's UD transport on a RoCE device other than mlx5 drops
 * every packet sent to an IPv4 GID, and RC, whose connections are set up
 * over UD, fails with it ("UD endpoint ... unhandled timeout error").
 */
#include <stdio.h>
#include <string.h>

#include "doctor/check.h"
#include "doctor/checks.h"
#include "node/envparse.h"
#include "node/ucx.h"

/* "1.13.1", or "of unknown release". */
static const char *ucx_release(const struct ucx_install *u, char *buf, size_t len)
{
	if (u->version > 0)
		snprintf(buf, len, "%d.%d.%d", u->version / 10000, u->version / 100 % 100,
			 u->version % 100);
	else
		snprintf(buf, len, "of unknown release");
	return buf;
}

/*
 * Whether UCX_TLS (an RDMA transport: node/envparse.h) and UCX_NET_DEVICES
 * (unset, "all", or DEV:PORT entries) let UCX use @dev/@p.
 */
static bool ucx_selects_rdma(struct node_facts *d)
{
	struct ucx_tls t;

	ucx_tls_parse(doctor_env(d, "UCX_TLS"), &t);
	return t.rdma;
}

static bool ucx_selects(struct node_facts *d, const struct rdma_dev *dev, const struct rdma_port *p)
{
	return ucx_selects_rdma(d) &&
	       ucx_list_selects(doctor_env(d, "UCX_NET_DEVICES"), dev->name, (int)p->num);
}

/* A UCX setting as the job's UCX reads it, and where: "environment", or the file and line. */
struct ucx_setting {
	const char *name;
	const char *value;
	const char *where;
};

/*
 * What ud_verbs reads for ETH_DGID_CHECK, as UCX resolves it: the
 * transport's own prefix first, UCX_UD_VERBS_ETH_DGID_CHECK, then
 * UCX_UD_ETH_DGID_CHECK (as ucx_info -c shows), each from the
 * environment before UCX's files (doctor_env()).  True when one is set.
 */
static bool dgid_check_setting(struct node_facts *d, struct ucx_setting *s)
{
	static const char *const names[] = { "UCX_UD_VERBS_ETH_DGID_CHECK", "UCX_UD_ETH_DGID_CHECK" };
	size_t i;

	for (i = 0; i < 2; i++) {
		s->name = names[i];
		s->value = doctor_env(d, names[i]);
		s->where = doctor_env_file(d, names[i]);
		if (!s->where)
			s->where = "environment";
		if (s->value)
			return true;
	}
	return false;
}

/* The setting, when it is one UCX refuses: noted, and false. */
static bool setting_ok(struct check_result *r, const struct ucx_setting *s, enum check_status bad)
{
	if (ucx_parse_bool(s->value) >= 0)
		return true;
	check_note(r, bad, "%s='%.60s' (%s) is not a UCX boolean (y or n): UCX refuses it", s->name,
		   s->value, s->where);
	return false;
}

/* One port that needs the check off: ok when it is off, else @bad with the fix. */
static void port_needs(struct check_result *r, const char *why, const struct ucx_setting *s,
		       bool off, enum check_status bad)
{
	if (off) {
		check_note(r, CHECK_OK, "%s needs UCX_UD_VERBS_ETH_DGID_CHECK=n: set by %s=%s (%s)", why,
			   s->name, s->value, s->where);
		return;
	}
	check_note(r, bad, "%s: before 1.19, UD takes a packet's address family from the "
		   "completion's sl, which only mlx5 fills, so it drops every RoCE v2 IPv4 packet and "
		   "UD and RC (connected over UD) time out ('UD endpoint ... unhandled timeout error')",
		   why);
	if (!r->fix[0])
		check_fix(r, "export UCX_UD_VERBS_ETH_DGID_CHECK=n (or install UCX 1.19 or later)");
}

void check_ucx_ud_dgid(struct node_facts *d, struct check_result *r)
{
	/* Default mode: a node that also runs NCCL or perftest keeps UCX for Open MPI alone. */
	enum check_status bad = DOCTOR_FOR_UCX(d) ? CHECK_FAIL : CHECK_WARN;
	const char *gid_index = doctor_env(d, "UCX_IB_GID_INDEX");
	const struct ucx_install *u;
	struct ucx_setting s = { 0 };
	char rel[32], why[256];
	bool off = false, any = false;
	size_t i;
	unsigned int j;

	if (d->target == JOB_NCCL || d->target == JOB_PERFTEST) {
		check_skip(r, "--for %s: UCX does not apply", job_kind_name(d->target));
		return;
	}
	u = doctor_ucx(d);
	if (u->version < 0) {
		check_skip(r, "UCX is not installed (no libucp.so.0, no libucx0 package)");
		return;
	}
	check_note(r, CHECK_OK, "UCX %s (%s)", ucx_release(u, rel, sizeof(rel)),
		   u->from[0] ? u->from : u->lib);
	if (u->version >= UCX_DGID_FIXED) {
		check_note(r, CHECK_OK, "it reads a packet's address family from the GRH");
		return;
	}
	/* Release unknown: the bug may be fixed, so never more than a warning. */
	if (u->version == 0)
		bad = CHECK_WARN;
	if (dgid_check_setting(d, &s) && setting_ok(r, &s, bad))
		off = ucx_parse_bool(s.value) == 0;
	for (i = 0; i < d->node.n; i++)
		for (j = 0; d->node.devs[i].ports && j < d->node.devs[i].nports; j++) {
			const struct rdma_dev *dev = &d->node.devs[i];
			const struct rdma_port *p = &dev->ports[j];

			if (p->state != 4 || !ucx_selects(d, dev, p))
				continue;
			any = true;
			if (ucx_needs_dgid_check_off(dev, p, u->version, gid_index, why, sizeof(why)))
				port_needs(r, why, &s, off, bad);
			else
				check_note(r, CHECK_OK, "%s", why);
		}
	if (!any && !ucx_selects_rdma(d))
		check_note(r, CHECK_OK, "UCX_TLS='%.60s' runs no RDMA transport: UD is not used",
			   doctor_env(d, "UCX_TLS"));
	else if (!any)
		check_note(r, CHECK_OK, "no active RDMA port for UCX");
}
