// SPDX-License-Identifier: MIT
/*
 * Doctor check roce.qos: whether the RoCE traffic a job sends lands on a
 * lossless priority.  The job's traffic class (its variables, read as its
 * library reads them; rdma_cm's default_roce_tos) gives the packets'
 * DSCP (the class's upper six bits); the NIC's trust mode and DSCP map
 * (or, trusting PCP, the VLAN tag's PCP) give their priority; PFC or ECN
 * on that priority make it lossless (node/dcb.h reads the NIC's side).
 * What it does not model: NCCL's per-communicator trafficClass (2.24 and
 * later), a driver's default priority for DSCPs its table leaves out,
 * mqprio's priority-to-queue map.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/sysfs.h"
#include "doctor/check.h"
#include "doctor/checks.h"
#include "doctor/port_rules.h"
#include "node/dcb.h"
#include "node/envparse.h"
#include "node/netdev.h"

/* The class NCCL's and UCX's documentation give for RoCE: DSCP 26 with ECT(0) set. */
#define QOS_TC_ROCE 106

/* One traffic class a job sends with on a port, and where it comes from. */
struct qos_tc {
	const char *var;	/* the variable or option that sets it ("NCCL_IB_TC") */
	int tc;			/* 0..255; -1: a value the library refuses */
	bool set;		/* the job set it (rdmactl env never replaces it) */
	bool rdma_cm;		/* carried by rdma_cm: a VLAN's PCP from its egress map */
	int sl;			/* verbs: the service level, a VLAN's PCP on mlx5 */
	char said[128];		/* "NCCL_IB_TC=106", "NCCL_IB_TC unset (NCCL's 0)" */
};

#define QOS_TCS 3

/* ---- the job's side ---- */

/* An integer variable NCCL reads (nccl_parse_int()), or @dflt; its text in @t->said. */
static void nccl_tc(struct node_facts *d, struct qos_tc *t, const char *name, int dflt)
{
	const char *v = doctor_env(d, name);
	long long n = 0;
	int ret = v ? nccl_parse_int(v, &n) : -ENOENT;

	t->var = name;
	t->set = v != NULL;
	t->tc = ret == -ENOENT || ret == -ERANGE ? dflt : n < 0 || n > 255 ? -1 : (int)n;
	if (!v)
		snprintf(t->said, sizeof(t->said), "%s unset (NCCL's %d)", name, dflt);
	else
		snprintf(t->said, sizeof(t->said), "%s=%.40s", name, v);
}

/* NCCL_IB_SL as NCCL reads it: 0 unless set. */
static int nccl_sl(struct node_facts *d)
{
	const char *v = doctor_env(d, "NCCL_IB_SL");
	long long n = 0;

	return v && nccl_parse_int(v, &n) != -ERANGE && n >= 0 && n < 16 ? (int)n : 0;
}

/*
 * NCCL's classes (src/transport/net_ib): its data QPs send with the
 * connecting side's NCCL_IB_TC (0 unset), and the receiver's QP, which
 * writes the CTS (fifo) messages back, with NCCL_IB_FIFO_TC when set
 * (2.22.3 and later; RoCE only), else the same.
 */
static size_t nccl_tcs(struct node_facts *d, struct check_result *r, struct qos_tc *t)
{
	size_t n = 1;

	nccl_tc(d, &t[0], "NCCL_IB_TC", 0);
	t[0].sl = nccl_sl(d);
	doctor_find_nccl(d);
	if (doctor_env(d, "NCCL_IB_FIFO_TC") && d->nccl_version > 0 && d->nccl_version < 22203)
		check_note(r, CHECK_OK, "NCCL_IB_FIFO_TC is read from NCCL 2.22.3 on (this node's "
			   "%d.%d.%d ignores it)", d->nccl_version / 10000, d->nccl_version / 100 % 100,
			   d->nccl_version % 100);
	else if (doctor_env(d, "NCCL_IB_FIFO_TC")) {
		nccl_tc(d, &t[1], "NCCL_IB_FIFO_TC", t[0].tc);
		t[1].sl = t[0].sl;
		n++;
	}
	return n;
}

/*
 * UCX's global class of @dev's port @num, as UCX 1.21 reads it for "auto"
 * (uct_ib_device_query_roce_tclass(): MLNX_OFED's
 * /sys/class/infiniband/DEV/tc/PORT/traffic_class, "Global tclass=N"),
 * else its RoCE v2 default, 106 (1.6 to 1.20 always).
 */
static int ucx_auto_tc(struct node_facts *d, const struct rdma_dev *dev, const struct rdma_port *p,
		       char *why, size_t len)
{
	const struct ucx_install *u = doctor_ucx(d);
	char path[256], buf[64];
	unsigned long tc;

	if (u->version > 0 && u->version < 10600) {
		snprintf(why, len, "UCX before 1.6: 0");
		return 0;
	}
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/tc/%u/traffic_class", dev->name, p->num);
	if ((u->version <= 0 || u->version >= 12100) && read_line(d->ctx, path, buf, sizeof(buf)) > 0 &&
	    sscanf(buf, "Global tclass=%lu", &tc) == 1 && tc < 256) {
		snprintf(why, len, "UCX's auto: the port's global tclass %lu", tc);
		return (int)tc;
	}
	snprintf(why, len, "UCX's auto: %d on RoCE v2", QOS_TC_ROCE);
	return QOS_TC_ROCE;
}

/* UCX_IB_SL: "auto" picks 0 on RoCE; a number is the level. */
static int ucx_sl(struct node_facts *d)
{
	const char *v = doctor_env(d, "UCX_IB_SL");
	long n;

	return v && !env_parse_long(v, 0, 15, &n) ? (int)n : 0;
}

/* UCX_IB_TRAFFIC_CLASS (uct_ib_iface_config_table[]): "auto" or a number, else UCX fails. */
static size_t ucx_tcs(struct node_facts *d, const struct rdma_dev *dev, const struct rdma_port *p,
		      struct qos_tc *t)
{
	const char *v = doctor_env(d, "UCX_IB_TRAFFIC_CLASS");
	char why[96];
	long n;

	t->var = "UCX_IB_TRAFFIC_CLASS";
	t->sl = ucx_sl(d);
	t->set = v && strcmp(v, "auto");
	if (!t->set) {
		t->tc = ucx_auto_tc(d, dev, p, why, sizeof(why));
		snprintf(t->said, sizeof(t->said), "UCX_IB_TRAFFIC_CLASS %s (%s)", v ? "auto" : "unset",
			 why);
		return 1;
	}
	t->tc = env_parse_long(v, 0, 255, &n) ? -1 : (int)n;
	snprintf(t->said, sizeof(t->said), "UCX_IB_TRAFFIC_CLASS=%.40s", v);
	return 1;
}

/*
 * rdma_cm's TOS for @dev's port: configfs's default_roce_tos when someone
 * made the device's directory (mkdir /sys/kernel/config/rdma_cm/DEV),
 * else the kernel's default, 0.
 */
static int roce_tos(struct node_facts *d, const struct rdma_dev *dev, const struct rdma_port *p,
		    bool *set)
{
	char path[256], buf[16];

	snprintf(path, sizeof(path), "/sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos",
		 dev->name, p->num);
	*set = read_line(d->ctx, path, buf, sizeof(buf)) > 0;
	return *set ? atoi(buf) & 0xff : 0;
}

/*
 * perftest's: ib_write_bw and its kin send with --tclass (0 when not
 * given) over verbs, and with -R through rdma_cm, whose TOS is --tos or
 * else the port's default_roce_tos.
 */
static size_t perftest_tcs(struct node_facts *d, const struct rdma_dev *dev, const struct rdma_port *p,
			   struct qos_tc *t)
{
	bool set;

	t[0] = (struct qos_tc){ .var = "--tclass", .tc = 0 };
	snprintf(t[0].said, sizeof(t[0].said), "perftest without --tclass (0)");
	t[1] = (struct qos_tc){ .var = "default_roce_tos", .rdma_cm = true };
	t[1].tc = roce_tos(d, dev, p, &set);
	t[1].set = set;
	snprintf(t[1].said, sizeof(t[1].said), "perftest -R: rdma_cm's default_roce_tos %d%s",
		 t[1].tc, set ? "" : " (unset)");
	return 2;
}

/* The classes of a job of kind @k on @dev/@p; of JOB_ANY, those the job set. */
static size_t job_tcs(struct node_facts *d, struct check_result *r, enum job_kind k,
		      const struct rdma_dev *dev, const struct rdma_port *p, struct qos_tc *t)
{
	size_t n = 0;

	/* Every field a reader of @t looks at is set: rdma_cm and sl too. */
	memset(t, 0, QOS_TCS * sizeof(*t));
	switch (k) {
	case JOB_NCCL:
		return nccl_tcs(d, r, t);
	case JOB_UCX:
	case JOB_MPI:
		return ucx_tcs(d, dev, p, t);
	case JOB_PERFTEST:
		return perftest_tcs(d, dev, p, t);
	default:
		break;
	}
	if (doctor_env(d, "NCCL_IB_TC") || doctor_env(d, "NCCL_IB_FIFO_TC"))
		n = nccl_tcs(d, r, t);
	if (doctor_env(d, "UCX_IB_TRAFFIC_CLASS"))
		n += ucx_tcs(d, dev, p, t + n);
	return n;
}

/* Whether the job --for names uses @p (NCCL_IB_HCA; UCX_TLS and UCX_NET_DEVICES). */
static bool job_uses(struct node_facts *d, const struct rdma_dev *dev, const struct rdma_port *p)
{
	struct env_list hca;
	struct ucx_tls tls;
	char err[128];
	bool uses = true;

	if (p->state != 4 || p->link_layer != LINK_LAYER_ETHERNET || !p->netdev[0] ||
	    doctor_rep(d, p->netdev))
		return false;
	if (d->target == JOB_NCCL && doctor_env(d, "NCCL_IB_HCA") &&
	    !nccl_list_parse(doctor_env(d, "NCCL_IB_HCA"), &hca, err, sizeof(err))) {
		uses = nccl_list_match(&hca, dev->name, (int)p->num);
	}
	if (DOCTOR_FOR_UCX(d)) {
		ucx_tls_parse(doctor_env(d, "UCX_TLS"), &tls);
		uses = tls.rdma && ucx_list_selects(doctor_env(d, "UCX_NET_DEVICES"), dev->name,
						    (int)p->num);
	}
	return uses;
}

/* ---- the NIC's side ---- */

/* What one port's netdev says, read once for all the job's classes. */
struct qos_nic {
	const char *netdev;	/* the port's: its DCB, ECN */
	const char *vlan;	/* the VLAN whose tag the job's GID sends with, else NULL */
	bool cm_vlan;		/* that GID's netdev is the VLAN itself (rdma_cm's egress map) */
	char vlan_buf[IF_NAMESIZE];
	struct dcb_state dcb;
	int err;		/* dcb_read()'s */
};

/* The priority a packet of @t gets on @nic, and how, in @how. */
static int qos_prio(struct node_facts *d, const struct qos_nic *nic, const struct qos_tc *t, char *how,
		    size_t len)
{
	unsigned int dscp = (unsigned int)t->tc >> 2;
	int pcp;

	if (dcb_trusts_dscp(&nic->dcb)) {
		if (nic->dcb.dscp_prio[dscp] < 0) {
			snprintf(how, len, "trust DSCP, no entry for it");
			return 0;
		}
		snprintf(how, len, "trust DSCP");
		return nic->dcb.dscp_prio[dscp];
	}
	if (!nic->vlan) {
		snprintf(how, len, "trust PCP, untagged");
		return 0;
	}
	if (!t->rdma_cm) {
		/* mlx5 puts a RoCE QP's service level in the tag (NCCL_IB_SL, UCX_IB_SL: 0). */
		snprintf(how, len, "trust PCP, %s's PCP is the service level %d", nic->vlan, t->sl);
		return t->sl & 7;
	}
	/* rdma_cm: iboe_tos_to_sl(), 0 unless the GID's netdev is the VLAN (a macvlan on one). */
	if (!nic->cm_vlan) {
		snprintf(how, len, "trust PCP, %s's tag with rdma_cm's PCP 0: its GID's netdev is "
			 "no VLAN, so no egress map applies", nic->vlan);
		return 0;
	}
	/* rdma_cm: iboe_tos_to_sl(), the TOS's skb priority through the VLAN's egress map. */
	pcp = dcb_vlan_pcp(d->ctx, nic->vlan, dcb_tos_prio((unsigned int)t->tc));
	snprintf(how, len, "trust PCP, %s's egress map", nic->vlan);
	return pcp < 0 ? 0 : pcp;
}

/* Whether priority @prio is lossless on @nic: 2 by PFC, 1 by ECN, 0 lossy, -1 ECN unknown. */
static int lossless(struct node_facts *d, const struct qos_nic *nic, int prio)
{
	int ecn;

	if (nic->dcb.pfc_en & (1u << prio))
		return 2;
	ecn = dcb_ecn(d->ctx, nic->netdev, (unsigned int)prio);
	return ecn < 0 ? -1 : ecn;
}

/* The lowest priority with PFC, else with ECN; -1 when none is lossless. */
static int lossless_prio(struct node_facts *d, const struct qos_nic *nic)
{
	int p;

	for (p = 0; p < DCB_PRIOS; p++)
		if (nic->dcb.pfc_en & (1u << p))
			return p;
	for (p = 0; p < DCB_PRIOS; p++)
		if (dcb_ecn(d->ctx, nic->netdev, (unsigned int)p) == 1)
			return p;
	return -1;
}

/* A DSCP the NIC maps to @prio: 26 when it does, else the lowest; -1 for none. */
static int dscp_to(const struct qos_nic *nic, int prio)
{
	int dscp;

	if (nic->dcb.dscp_prio[26] == prio)
		return 26;
	for (dscp = 0; dscp < DCB_DSCPS; dscp++)
		if (nic->dcb.dscp_prio[dscp] == prio)
			return dscp;
	return -1;
}

/* How the job sets class @tc: the variable, or perftest's option. */
static void fix_job(struct check_result *r, const struct qos_tc *t, const struct rdma_dev *dev,
		    const struct rdma_port *p, int tc)
{
	if (!strcmp(t->var, "--tclass"))
		check_fix(r, "ib_write_bw --tclass=%d (and the same on the other end)", tc);
	else if (!strcmp(t->var, "default_roce_tos"))
		check_fix(r, "mkdir -p /sys/kernel/config/rdma_cm/%s && echo %d > "
			  "/sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos",
			  dev->name, tc, dev->name, p->num);
	else
		check_fix(r, "export %s=%d", t->var, tc);
}

/* How the job sets the service level @sl, which mlx5 sends as a VLAN's PCP. */
static void fix_sl(struct check_result *r, const struct qos_tc *t, int sl)
{
	if (!strcmp(t->var, "--tclass"))
		check_fix(r, "ib_write_bw --sl=%d (and the same on the other end)", sl);
	else
		check_fix(r, "export %s=%d", !strncmp(t->var, "NCCL", 4) ? "NCCL_IB_SL" : "UCX_IB_SL", sl);
}

/* PFC on priority @prio of @nic, in dcb's and mlnx_qos's words. */
static void fix_pfc(struct check_result *r, const struct qos_nic *nic, int prio)
{
	char list[32];
	int i, off = 0;

	for (i = 0; i < DCB_PRIOS; i++)
		off += snprintf(list + off, sizeof(list) - (size_t)off, "%s%d", i ? "," : "",
				i == prio || (nic->dcb.pfc_en & (1u << i)));
	check_fix(r, "dcb pfc set dev %s prio-pfc %d:on (mlnx_qos -i %s --pfc %s), and PFC on "
		  "priority %d at the switch", nic->netdev, prio, nic->netdev, list, prio);
}

/*
 * The fixes of a lossy class.  When the NIC maps some DSCP to a lossless
 * priority, the job's class that carries it (the variable's value).  Else
 * the NIC's settings: PFC on priority 3 (the profile NVIDIA ships) unless
 * one is lossless already, and the job's DSCP mapped there; a job on DSCP
 * 0, the class all other traffic shares, moves to 26 (class 106) first.
 */
static void fix_lossy(struct node_facts *d, struct check_result *r, const struct qos_nic *nic,
		      const struct qos_tc *t, const struct rdma_dev *dev, const struct rdma_port *p)
{
	int good = lossless_prio(d, nic), to, dscp = t->tc >> 2;
	bool dscp_trusted = dcb_trusts_dscp(&nic->dcb);

	to = good >= 0 && dscp_trusted ? dscp_to(nic, good) : -1;
	if (to >= 0) {
		fix_job(r, t, dev, p, to * 4 + 2);
		return;
	}
	if (!dscp) {
		dscp = QOS_TC_ROCE >> 2;
		fix_job(r, t, dev, p, QOS_TC_ROCE);
	}
	if (good < 0) {
		good = 3;
		fix_pfc(r, nic, good);
	}
	if (dscp_trusted && nic->dcb.dscp_prio[dscp] == good)
		return;		/* mapped there already: PFC was what it lacked */
	if (dscp_trusted)
		check_fix(r, "dcb app replace dev %s dscp-prio %d:%d (mlnx_qos -i %s --dscp2prio set,%d,%d)",
			  nic->netdev, dscp, good, nic->netdev, dscp, good);
	else if (!nic->vlan || (t->rdma_cm && !nic->cm_vlan))
		/* mlx5: the first DSCP entry switches the port to trust DSCP. */
		check_fix(r, "dcb app add dev %s dscp-prio %d:%d (mlnx_qos -i %s --trust dscp "
			  "--dscp2prio set,%d,%d)", nic->netdev, dscp, good, nic->netdev, dscp, good);
	else if (t->rdma_cm)
		check_fix(r, "ip link set %s type vlan egress-qos-map %u:%d", nic->vlan,
			  dcb_tos_prio((unsigned int)t->tc), good);
	else
		fix_sl(r, t, good);
}

/* Where the congestion notifications ECN relies on go (mlx5's roce_np), when it says. */
static void note_cnp(struct node_facts *d, struct check_result *r, const struct qos_nic *nic)
{
	int prio, dscp;

	dcb_cnp(d->ctx, nic->netdev, &prio, &dscp);
	if (prio >= 0 && dscp >= 0)
		check_note(r, CHECK_OK, "%s sends CNPs on priority %d, DSCP %d", nic->netdev, prio,
			   dscp);
}

/* One class on one port: its priority and verdict (its DSCP said with the class). */
static void judge_tc(struct node_facts *d, struct check_result *r, const struct qos_nic *nic,
		     const struct qos_tc *t, const struct rdma_dev *dev, const struct rdma_port *p)
{
	char how[96];
	int prio, ll;

	if (t->tc < 0) {
		check_note(r, CHECK_FAIL, "%s is not a traffic class (0 to 255)", t->said);
		check_fix(r, "export %s=%d", t->var, QOS_TC_ROCE);
		return;
	}
	check_note(r, CHECK_OK, "%s: DSCP %d", t->said, t->tc >> 2);
	prio = qos_prio(d, nic, t, how, sizeof(how));
	ll = lossless(d, nic, prio);
	if (ll > 0) {
		check_note(r, CHECK_OK, "%s/%u %s: DSCP %d on priority %d (%s), lossless by %s",
			   dev->name, p->num, nic->netdev, t->tc >> 2, prio, how,
			   ll == 2 ? "PFC" : "ECN");
		if (ll == 1)
			note_cnp(d, r, nic);
		return;
	}
	check_note(r, ll < 0 ? CHECK_WARN : CHECK_FAIL,
		   "%s/%u %s: DSCP %d on priority %d (%s), %s", dev->name, p->num, nic->netdev,
		   t->tc >> 2, prio, how,
		   ll < 0 ? "no PFC, and ECN cannot be read (no ecn/ in sysfs)"
			  : "no PFC, no ECN: lossy");
	fix_lossy(d, r, nic, t, dev, p);
}

/* "has no DCB", "was not recorded": why @nic's DCB cannot be read. */
static const char *dcb_why(int err, char *buf, size_t len)
{
	if (err == -EOPNOTSUPP)
		return "has no DCB (its driver answers dcbnl: not supported)";
	if (err == -ENODATA)
		return "has no DCB recording in this tree (run/rdmactl/dcb)";
	snprintf(buf, len, "DCB cannot be read: %s", strerror(-err));
	return buf;
}

/*
 * The port's netdev and, when the job's GID is on a netdev stacked on it
 * that is a VLAN or sits on one, the VLAN; a macvlan or bond on the port's
 * netdev sends untagged.
 */
static void nic_load(struct node_facts *d, const struct rdma_port *p, struct qos_nic *nic)
{
	const struct rdma_gid *g = doctor_gid_carrier(p);

	memset(nic, 0, sizeof(*nic));
	nic->netdev = p->netdev;
	if (g && netdev_tagging_vlan(d->ctx, g->netdev, nic->vlan_buf, sizeof(nic->vlan_buf))) {
		nic->vlan = nic->vlan_buf;
		nic->cm_vlan = !strcmp(nic->vlan, g->netdev);
	}
	nic->err = dcb_read(d->ctx, nic->netdev, &nic->dcb);
}

/* One port: each class judged; 1 when its DCB could be read, else its reason in @skip. */
static int judge_port(struct node_facts *d, struct check_result *r, const struct rdma_dev *dev,
		      const struct rdma_port *p, struct check_result *skip)
{
	struct qos_tc t[QOS_TCS];
	struct qos_nic nic;
	size_t i, n = job_tcs(d, r, d->target, dev, p, t);
	char buf[96];

	if (!n)
		return 0;
	nic_load(d, p, &nic);
	for (i = 0; i < n && nic.err; i++)
		check_note(skip, CHECK_OK, "%s: DSCP %d", t[i].said, t[i].tc >> 2);
	if (nic.err) {
		check_note(skip, CHECK_OK, "%s %s: its priority, PFC and ECN cannot be read",
			   nic.netdev, dcb_why(nic.err, buf, sizeof(buf)));
		return 0;
	}
	for (i = 0; i < n; i++)
		judge_tc(d, r, &nic, &t[i], dev, p);
	return 1;
}

void check_roce_qos(struct node_facts *d, struct check_result *r)
{
	struct check_result *skip = calloc(1, sizeof(*skip));
	size_t i, judged = 0, ports = 0;
	unsigned int j;

	if (!skip)
		return;
	if (d->target == JOB_ANY && !doctor_env(d, "NCCL_IB_TC") && !doctor_env(d, "NCCL_IB_FIFO_TC") &&
	    !doctor_env(d, "UCX_IB_TRAFFIC_CLASS")) {
		check_skip(r, "no NCCL_IB_TC, NCCL_IB_FIFO_TC or UCX_IB_TRAFFIC_CLASS set (--for nccl, "
			   "ucx, mpi or perftest judges what the job sends with)");
		goto out;
	}
	for (i = 0; i < d->node.n; i++)
		for (j = 0; j < d->node.devs[i].nports; j++) {
			const struct rdma_port *p = &d->node.devs[i].ports[j];

			if (!job_uses(d, &d->node.devs[i], p))
				continue;
			ports++;
			judged += (size_t)judge_port(d, r, &d->node.devs[i], p, skip);
		}
	if (!ports)
		check_skip(r, "no active RoCE port the job uses");
	else if (!judged)
		check_skip(r, "%s", skip->found);
	else if (skip->found[0])
		check_note(r, CHECK_WARN, "%s", skip->found);
out:
	free(skip);
}

int doctor_qos_tc(struct node_facts *d, enum job_kind k, const struct rdma_dev *dev,
		  const struct rdma_port *p)
{
	struct check_result *scratch;
	struct qos_tc t[QOS_TCS];
	struct qos_nic nic;
	int prio, good, to = -1;
	char how[96];

	if (k == JOB_ANY || k == JOB_PERFTEST ||
	    doctor_env(d, k == JOB_NCCL ? "NCCL_IB_TC" : "UCX_IB_TRAFFIC_CLASS"))
		return -1;
	scratch = calloc(1, sizeof(*scratch));
	if (!scratch)
		return -1;
	job_tcs(d, scratch, k, dev, p, t);
	free(scratch);
	nic_load(d, p, &nic);
	if (nic.err || t[0].tc < 0 || !dcb_trusts_dscp(&nic.dcb))
		return -1;
	prio = qos_prio(d, &nic, &t[0], how, sizeof(how));
	good = lossless(d, &nic, prio) > 0 ? -1 : lossless_prio(d, &nic);
	if (good >= 0)
		to = dscp_to(&nic, good);
	return to < 0 ? -1 : to * 4 + 2;
}
