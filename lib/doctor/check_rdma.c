// SPDX-License-Identifier: MIT
/*
 * Doctor checks of the RDMA ports: their state, RoCE addressing and GIDs,
 * MTU.  Whether devices exist at all is check_devices.c's; the rules these
 * share with rdmactl env are port_rules.c's.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "doctor/check.h"
#include "doctor/checks.h"
#include "doctor/jobenv.h"
#include "doctor/port_rules.h"
#include "node/gids.h"
#include "node/netdev.h"

/* Skip a check that needs devices when there are none; true when skipped. */
static bool need_devices(const struct node_facts *d, struct check_result *r)
{
	if (d->node.n)
		return false;
	check_skip(r, "no RDMA devices (see the devices check)");
	return true;
}

static bool is_roce(const struct rdma_port *p)
{
	return p->link_layer == LINK_LAYER_ETHERNET;
}

/* A port that stands for another function on a switchdev eswitch (not the uplink). */
static bool fn_rep_port(struct node_facts *d, const struct rdma_port *p)
{
	const struct rep *rep = doctor_rep(d, p->netdev);

	return rep && rep->flavour != REP_PHYSICAL;
}

/*
 * An active port's device and netdev names, as a job's variables carry
 * them (jobenv_name_bad(): rdmactl env refuses the port for the same
 * reason); false, noted, when one cannot be.
 */
static bool port_names_ok(struct check_result *r, const struct rdma_dev *dev,
			  const struct rdma_port *p)
{
	const char *why = jobenv_name_bad(dev->name, true);

	if (why) {
		check_note(r, CHECK_FAIL, "%s/%u: no job variable can name RDMA device '%s': %s",
			   dev->name, p->num, dev->name, why);
		check_fix(r, "rdma dev set %s name NEWNAME", dev->name);
		return false;
	}
	if (p->netdev[0] && (why = jobenv_name_bad(p->netdev, false))) {
		check_note(r, CHECK_FAIL, "%s/%u: no job variable can name its netdev '%s': %s",
			   dev->name, p->num, p->netdev, why);
		check_fix(r, "ip link set dev %s name NEWNAME", p->netdev);
		return false;
	}
	return true;
}

/* A down slave's fix: up by hand where the administrator downed it, else its wire. */
static void bond_slave_fix(struct check_result *r, const char *bond, const struct netdev_bond *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (!b->slaves[i].up)
			check_fix(r, "ip link set %s up, or check its cable and switch port "
				  "(cat /proc/net/bonding/%s)", b->slaves[i].name, bond);
}

/*
 * The bond a port's traffic leaves by, when it does (rxe over bond0, or
 * mlx5's RoCE LAG, whose GIDs are bond0's): its mode, slaves and hashing
 * said; warned when a slave is down (the port runs without its
 * redundancy and on part of its bandwidth) or when the bond hashes by
 * MACs or IP addresses only, which puts all RoCE v2 traffic to one peer
 * on one slave.
 */
static void port_bond(struct node_facts *d, struct check_result *r, const struct rdma_dev *dev,
		      const struct rdma_port *p, const char *ifname)
{
	char say[64 + NETDEV_BOND_SLAVES * (IF_NAMESIZE + 8)];
	struct netdev_bond b;

	if (netdev_bond_get(d->ctx, ifname, &b))
		return;
	netdev_bond_say(ifname, &b, say, sizeof(say));
	if (b.n_up < b.n) {
		check_note(r, CHECK_WARN, "%s/%u: bond %s: %zu of %zu slaves up (%s)", dev->name,
			   p->num, say, b.n_up, b.n,
			   b.n_up > 1 ? "less to fail over to"
			   : netdev_bond_hashes(&b) ? "no failover left, and part of its bandwidth"
			   : "no failover left");
		bond_slave_fix(r, ifname, &b);
	} else if (netdev_bond_hashes(&b) && !netdev_bond_spreads_udp(&b)) {
		check_note(r, CHECK_WARN, "%s/%u: bond %s: %s hashes no UDP port, so all RoCE v2 "
			   "traffic to one peer takes one slave", dev->name, p->num, say,
			   b.hash_policy[0] ? b.hash_policy : "its xmit_hash_policy");
		check_fix(r, "ip link set %s type bond xmit_hash_policy layer3+4 (lasting: the "
			  "bond's configuration, e.g. netplan's transmit-hash-policy: layer3+4)",
			  ifname);
	} else {
		check_note(r, CHECK_OK, "%s/%u: bond %s", dev->name, p->num, say);
	}
}

/*
 * An active port whose traffic leaves by a netdev stacked on its own (a
 * VLAN, a bond): that netdev must be up too; and a bond said.
 */
static void port_carrier(struct node_facts *d, struct check_result *r, const struct rdma_dev *dev,
			 const struct rdma_port *p)
{
	const struct rdma_gid *g = doctor_gid_carrier(p);
	char state[32] = "unknown";

	if (g && (netdev_sysfs_state(d->ctx, g->netdev, state, sizeof(state)) ||
		  strcmp(state, "up"))) {
		check_note(r, CHECK_FAIL, "%s/%u is ACTIVE but its traffic leaves by %s, which is %s",
			   dev->name, p->num, g->netdev, state);
		check_fix(r, "ip link set %s up", g->netdev);
		return;
	}
	if (is_roce(p))
		port_bond(d, r, dev, p, g ? g->netdev : p->netdev);
}

void check_ports(struct node_facts *d, struct check_result *r)
{
	size_t i;
	unsigned int j, reps = 0;

	if (need_devices(d, r))
		return;
	for (i = 0; i < d->node.n; i++) {
		const struct rdma_dev *dev = &d->node.devs[i];

		for (j = 0; j < dev->nports; j++) {
			const struct rdma_port *p = &dev->ports[j];

			/* Its state is that of the function it stands for, not this node's. */
			if (fn_rep_port(d, p)) {
				reps++;
				continue;
			}
			/* 4 = ACTIVE, 5 = LinkUp */
			if (p->state == 4 && p->phys_state == 5 && port_names_ok(r, dev, p)) {
				check_note(r, CHECK_OK, "%s/%u ACTIVE LinkUp%s%s%s", dev->name, p->num,
					   p->netdev[0] ? " (" : "", p->netdev,
					   p->netdev[0] ? ")" : "");
				port_carrier(d, r, dev, p);
			} else if (!(p->state == 4 && p->phys_state == 5))
				doctor_port_down(d, r, dev, p);
		}
	}
	if (reps)
		check_note(r, CHECK_OK, "%u representor port%s not judged (they stand for other "
			   "functions: rdmactl devices)", reps, reps == 1 ? "" : "s");
	if (!r->found[0])
		check_note(r, CHECK_FAIL, "no device has a port");
}

/*
 * The netdev an entry's traffic leaves by, in words: "ens19f0np0.100
 * (VLAN 100 on ens19f0np0)" for one stacked on the port's netdev, whose
 * address, MTU and state are the ones that count; else the port's netdev.
 */
static const char *gid_carrier(struct node_facts *d, const struct rdma_port *p,
			       const struct rdma_gid *g, char *buf, size_t len)
{
	char how[64];

	if (g && g->stacked)
		snprintf(buf, len, "%s (%s)", g->netdev,
			 netdev_stack_say(d->ctx, g->netdev, p->netdev, how, sizeof(how)));
	else
		snprintf(buf, len, "%s", p->netdev[0] ? p->netdev : "its netdev");
	return buf;
}

static void roce_ipv4_port(struct node_facts *d, struct check_result *r, const struct rdma_dev *dev,
			   const struct rdma_port *p)
{
	char v4[INET_ADDRSTRLEN], gid[48], nd[IF_NAMESIZE + 80];
	size_t k;

	for (k = 0; k < p->n_gids; k++)
		if (gid_ipv4(p->gids[k].raw, v4, sizeof(v4))) {
			check_note(r, CHECK_OK, "%s/%u %s has %s", dev->name, p->num,
				   gid_carrier(d, p, &p->gids[k], nd, sizeof(nd)), v4);
			return;
		}
	gid_carrier(d, p, NULL, nd, sizeof(nd));
	if (p->n_gids)
		check_note(r, CHECK_FAIL, "%s/%u: %s has no IPv4 address, so only GIDs such as %s "
			   "exist and IPv4 peers are unreachable (UCX: RDMA_CM_EVENT_ADDR_ERROR)",
			   dev->name, p->num, nd, gid_str(p->gids[0].raw, gid, sizeof(gid)));
	else
		check_note(r, CHECK_FAIL, "%s/%u: %s has no IPv4 address and the GID table is empty",
			   dev->name, p->num, nd);
	check_fix(r, "ip addr add ADDRESS/PREFIX dev %s (the address peers reach this node at)",
		  p->netdev[0] ? p->netdev : "IF");
}

bool doctor_each_roce_port(struct node_facts *d, struct check_result *r, roce_port_fn *fn,
			   const char *why_none)
{
	size_t i;
	unsigned int j;

	if (need_devices(d, r))
		return false;
	/* Representors (and a switchdev uplink) are switch ports: no job addresses them. */
	for (i = 0; i < d->node.n; i++)
		for (j = 0; j < d->node.devs[i].nports; j++)
			if (is_roce(&d->node.devs[i].ports[j]) &&
			    !doctor_rep(d, d->node.devs[i].ports[j].netdev))
				fn(d, r, &d->node.devs[i], &d->node.devs[i].ports[j]);
	if (!r->found[0])
		check_skip(r, "%s", why_none);
	return true;
}

void check_roce_ipv4(struct node_facts *d, struct check_result *r)
{
	doctor_each_roce_port(d, r, roce_ipv4_port, "no RoCE port (InfiniBand only)");
}

/* "2.21.5" from 22105. */
static char *nccl_ver_str(int v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
	return buf;
}

/* What NCCL does with the GID table when NCCL_IB_GID_INDEX is unset. */
static void roce_gid_nccl(struct node_facts *d, struct check_result *r, unsigned int index)
{
	char ver[16];

	if (index == 0)
		return;
	doctor_find_nccl(d);
	if (d->nccl_version >= 22100) {
		check_note(r, CHECK_OK, "NCCL %s (%s) finds it itself",
			   nccl_ver_str(d->nccl_version, ver, sizeof(ver)), d->nccl_lib);
	} else if (d->nccl_version > 0) {
		check_note(r, CHECK_WARN, "NCCL %s (%s) is older than 2.21 and uses GID index 0 "
			   "unless NCCL_IB_GID_INDEX is set",
			   nccl_ver_str(d->nccl_version, ver, sizeof(ver)), d->nccl_lib);
		check_fix(r, "export NCCL_IB_GID_INDEX=%u", index);
	} else if (d->target == JOB_NCCL) {
		check_note(r, CHECK_WARN, "no libnccl found here to tell its version: NCCL before 2.21 "
			   "uses index 0 unless NCCL_IB_GID_INDEX is set, 2.21 and later find %u", index);
		check_fix(r, "export NCCL_IB_GID_INDEX=%u", index);
	} else {
		check_note(r, CHECK_OK, "NCCL before 2.21 needs NCCL_IB_GID_INDEX=%u, later ones find it",
			   index);
	}
}

static void roce_gid_port(struct node_facts *d, struct check_result *r, const struct rdma_dev *dev,
			  const struct rdma_port *p)
{
	struct gid_choice c;
	char v4[INET_ADDRSTRLEN] = "", on[IF_NAMESIZE + 84] = "", nd[IF_NAMESIZE + 80];

	if (!doctor_gid_choose(p, &c)) {
		check_note(r, CHECK_FAIL, "%s/%u: %s", dev->name, p->num, c.why);
		if (c.fix[0])
			check_fix(r, "%s", c.fix);
		return;
	}
	gid_ipv4(c.gid->raw, v4, sizeof(v4));
	if (c.gid->stacked)
		snprintf(on, sizeof(on), " on %s, %s", c.gid->netdev,
			 netdev_stack_say(d->ctx, c.gid->netdev, p->netdev, nd, sizeof(nd)));
	check_note(r, CHECK_OK, "%s/%u: use GID index %u (RoCE v2, %s%s)", dev->name, p->num,
		   c.gid->index, v4[0] ? v4 : "IPv6", on);
	if (d->target == JOB_PERFTEST)
		check_note(r, CHECK_OK, "perftest: -d %s -i %u -x %u", dev->name, p->num, c.gid->index);
	if (doctor_env(d, "NCCL_IB_GID_INDEX"))
		check_note(r, CHECK_OK, "NCCL_IB_GID_INDEX is set (see env.nccl)");
	else if ((d->target == JOB_ANY || d->target == JOB_NCCL) && !d->gid_spread)
		roce_gid_nccl(d, r, c.gid->index);
}

/*
 * Where a job's ports need different indexes, whether its library finds
 * each port's entry itself: the plan rdmactl env follows, so that env
 * refuses a node exactly where this check fails it, with these words.
 */
static void roce_gid_plan(struct node_facts *d, struct check_result *r, enum job_kind f)
{
	struct jobenv e;
	int ret = jobenv_build(d, f, NULL, 0, &e);

	if ((ret && e.plan_failed) || (!ret && e.index_differs && e.plan.found[0])) {
		check_note(r, e.plan.status, "%s", e.plan.found);
		if (e.plan.fix[0])
			check_fix(r, "%s", e.plan.fix);
	}
	d->gid_spread |= !ret ? e.index_differs : e.plan_failed;
	jobenv_free(&e);
}

void check_roce_gid(struct node_facts *d, struct check_result *r)
{
	struct check_result plan = { 0 };

	d->gid_spread = false;
	if (d->node.n && d->target != JOB_PERFTEST) {
		if (d->target != JOB_UCX && d->target != JOB_MPI)
			roce_gid_plan(d, &plan, JOB_NCCL);
		if (d->target != JOB_NCCL)
			roce_gid_plan(d, &plan, JOB_UCX);
	}
	doctor_each_roce_port(d, r, roce_gid_port, "no RoCE port (InfiniBand uses the port GID)");
	if (plan.found[0] && r->status != CHECK_SKIP) {
		check_note(r, plan.status, "%s", plan.found);
		if (plan.fix[0])
			check_fix(r, "%s", plan.fix);
	}
}

/*
 * A port whose netdev's MTU cannot be read: its active MTU alone says
 * whether it is fine.  A netdev that does not exist (a --root copy, a
 * netdev moved to another namespace) or an MTU known nowhere is no "ok".
 */
static void mtu_unknown(struct check_result *r, const struct rdma_dev *dev,
			const struct rdma_port *p, int err)
{
	if (err == -ENOENT)
		check_note(r, CHECK_WARN, "%s/%u: its netdev %s does not exist: its MTU cannot be "
			   "checked", dev->name, p->num, p->netdev);
	else if (!p->active_mtu && !p->netdev[0])
		check_note(r, CHECK_WARN, "%s/%u: it has no netdev and its active MTU cannot be "
			   "read", dev->name, p->num);
	else if (!p->active_mtu)
		check_note(r, CHECK_WARN, "%s/%u: neither its active MTU nor %s's MTU can be read "
			   "(%s)", dev->name, p->num, p->netdev, strerror(-err));
	else
		check_note(r, CHECK_OK, "%s/%u active %d, max %d (netdev MTU unknown)", dev->name,
			   p->num, p->active_mtu, p->max_mtu);
}

static void mtu_port(struct node_facts *d, struct check_result *r, const struct rdma_dev *dev,
		     const struct rdma_port *p)
{
	const struct rdma_gid *g = doctor_gid_carrier(p);
	const char *ifn = g ? g->netdev : p->netdev;
	char nd[IF_NAMESIZE + 80];
	int mtu = 0, allowed, active, err = ifn[0] ? netdev_sysfs_mtu(d->ctx, ifn, &mtu) : -ENODEV;

	if (err) {
		mtu_unknown(r, dev, p, err);
		return;
	}
	gid_carrier(d, p, g, nd, sizeof(nd));
	allowed = roce_mtu_for_netdev(dev->driver, mtu);
	active = p->active_mtu ? p->active_mtu : allowed;
	/* The port's active MTU follows its own netdev; a smaller VLAN MTU caps the frames. */
	if (g && allowed < active)
		active = allowed;
	if (active >= 4096 || (p->max_mtu && active >= p->max_mtu)) {
		check_note(r, CHECK_OK, "%s/%u active MTU %d (max %d), %s MTU %d", dev->name, p->num,
			   active, p->max_mtu, nd, mtu);
		return;
	}
	check_note(r, CHECK_WARN, "%s/%u: %s MTU %d limits the RDMA MTU to %d (max %d); "
		   "4096 needs a netdev MTU of at least %d", dev->name, p->num, nd, mtu,
		   active, p->max_mtu ? p->max_mtu : 4096,
		   roce_netdev_mtu_needed(dev->driver, 4096));
	check_fix(r, "ip link set %s mtu 9000 on every node and switch port (lasting: "
		  "nmcli con mod %s 802-3-ethernet.mtu 9000)", ifn, ifn);
}

void check_mtu(struct node_facts *d, struct check_result *r)
{
	if (doctor_each_roce_port(d, r, mtu_port,
			   "no RoCE port (InfiniBand MTUs are set by the subnet manager)"))
		doctor_peer_mtu(d, r);
}
