// SPDX-License-Identifier: MIT
/*
 * One port's rules (port_rules.h): why a port is down and which GID a job
 * uses on it, in the words of the ports and roce.gid checks, for those
 * checks and for rdmactl env alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sysfs.h"
#include "doctor/port_rules.h"
#include "node/gids.h"
#include "node/netdev.h"

/* IFF_UP of /sys/class/net/IF/flags ("0x1003"): up by the administrator. */
static bool netdev_admin_up(const struct node_facts *d, const char *ifname)
{
	char path[64 + IF_NAMESIZE], buf[32];

	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", ifname);
	return read_line(d->ctx, path, buf, sizeof(buf)) > 0 && (strtoul(buf, NULL, 0) & 0x1);
}

void doctor_port_down(struct node_facts *d, struct check_result *r, const struct rdma_dev *dev,
		      const struct rdma_port *p)
{
	char state[32] = "unknown";
	const struct fn *fn;

	if (!p->netdev[0]) {
		check_note(r, CHECK_FAIL, "%s/%u is %s (%s)", dev->name, p->num,
			   port_state_str(p->state), phys_state_str(p->phys_state));
		check_fix(r, "check the cable and the switch port of %s/%u (rdma link show %s/%u)",
			  dev->name, p->num, dev->name, p->num);
		return;
	}
	netdev_sysfs_state(d->ctx, p->netdev, state, sizeof(state));
	fn = fn_of_rdma(doctor_fns(d), dev->name);
	if (fn && fn->kind == FN_VF && netdev_admin_up(d, p->netdev)) {
		check_note(r, CHECK_FAIL, "%s/%u is %s (%s); its netdev %s is up but has no link "
			   "(%s): a VF's link follows its PF %s (see the functions check)", dev->name,
			   p->num, port_state_str(p->state), phys_state_str(p->phys_state), p->netdev,
			   state, fn->parent);
		check_fix(r, "bring up the link of PF %s (see the functions check)", fn->parent);
		return;
	}
	check_note(r, CHECK_FAIL, "%s/%u is %s (%s); its netdev %s is %s", dev->name, p->num,
		   port_state_str(p->state), phys_state_str(p->phys_state), p->netdev, state);
	if (strcmp(state, "up"))
		check_fix(r, "ip link set %s up", p->netdev);
	else
		check_fix(r, "check the cable and the switch port of %s (rdma link show %s/%u)",
			  p->netdev, dev->name, p->num);
}

/*
 * The entries on the port's own netdev and on those stacked on it (a VLAN,
 * bond or macvlan: gid_choose()): a VLAN may carry the port's only address.
 * NCCL 2.21's ncclIbGetGidIndex() (src/transport/net_ib.cc) reads only
 * gid_attrs/types, never gid_attrs/ndevs: it takes the lowest RoCE v2
 * IPv4 entry whatever its netdev, the same entry as this lowest index.
 */
bool doctor_gid_choose(const struct rdma_port *p, struct gid_choice *c)
{
	return gid_choose(p, false, p->netdev[0] ? p->netdev : NULL, c);
}

const struct rdma_gid *doctor_gid_carrier(const struct rdma_port *p)
{
	struct gid_choice c;

	return doctor_gid_choose(p, &c) && c.gid->stacked ? c.gid : NULL;
}
