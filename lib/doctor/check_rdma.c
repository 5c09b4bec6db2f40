// SPDX-License-Identifier: MIT
/* Doctor checks of the RDMA stack itself: devices, ports, RoCE addressing, MTU. */
#include <dirent.h>
#include <netinet/in.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "base/ctx.h"
#include "base/sysfs.h"
#include "doctor/doctor.h"
#include "doctor/jobenv.h"
#include "node/envparse.h"
#include "node/gids.h"
#include "node/netdev.h"
#include "node/rdma_load.h"

/* Copy @src into @dst, cut to fit. */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool path_exists(const struct doctor *d, const char *path)
{
	char full[4096];
	DIR *dir;

	if (root_path(d->ctx, full, sizeof(full), "%s", path))
		return false;
	dir = opendir(full);
	if (!dir)
		return false;
	closedir(dir);
	return true;
}

/* First entry of @dir (below the root) that is not "." , ".." or @except. */
static bool first_entry(const struct doctor *d, const char *dir, const char *except,
			char *buf, size_t len)
{
	char full[4096];
	struct dirent *de;
	bool found = false;
	DIR *dd;

	if (root_path(d->ctx, full, sizeof(full), "%s", dir))
		return false;
	dd = opendir(full);
	if (!dd)
		return false;
	while (!found && (de = readdir(dd)))
		if (de->d_name[0] != '.' && (!except || strcmp(de->d_name, except))) {
			copy_str(buf, len, de->d_name);
			found = true;
		}
	closedir(dd);
	return found;
}

/* An up netdev to offer in "rdma link add ... netdev IF". */
static void guess_netdev(const struct doctor *d, char *buf, size_t len)
{
	char full[4096], state[16];
	struct dirent *de;
	DIR *dd;

	snprintf(buf, len, "IF");
	if (root_path(d->ctx, full, sizeof(full), "/sys/class/net"))
		return;
	dd = opendir(full);
	if (!dd)
		return;
	while ((de = readdir(dd))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "lo") || strlen(de->d_name) >= 16)
			continue;
		if (!netdev_sysfs_state(d->ctx, de->d_name, state, sizeof(state)) && !strcmp(state, "up")) {
			snprintf(buf, len, "%s", de->d_name);
			break;
		}
	}
	closedir(dd);
}

/* Devices the kernel has but libibverbs did not open: provider or /dev missing. */
static void devices_unopened(struct doctor *d, struct check_result *r, const char *kdev)
{
	char path[256], driver[64] = "", node[64];

	if (!first_entry(d, "/dev/infiniband", NULL, node, sizeof(node))) {
		check_note(r, CHECK_FAIL, "the kernel has %s but /dev/infiniband is missing or empty "
			   "(a container started without it)", kdev);
		check_fix(r, "start the container with --device=/dev/infiniband "
			  "(docker/podman) or mount /dev/infiniband into it");
		return;
	}
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/driver", kdev);
	if (read_link_base(d->ctx, path, driver, sizeof(driver)))
		driver[0] = '\0';
	check_note(r, CHECK_FAIL, "the kernel has %s%s%s%s but libibverbs could not open it: its "
		   "provider library is missing (libibverbs warns \"couldn't load driver\")", kdev,
		   driver[0] ? " (driver " : "", driver, driver[0] ? ")" : "");
	check_fix(r, "apt-get install ibverbs-providers (dnf install libibverbs), then "
		  "check with: ibv_devices");
}

/* No device in /sys/class/infiniband at all: which layer is missing. */
static void devices_none(struct doctor *d, struct check_result *r)
{
	char ifname[32];

	guess_netdev(d, ifname, sizeof(ifname));
	if (!path_exists(d, "/sys/module/ib_core")) {
		check_note(r, CHECK_FAIL, "no RDMA device: no kernel RDMA driver is loaded (no ib_core)");
		check_fix(r, "modprobe mlx5_ib (NVIDIA/Mellanox NICs), or for Soft-RoCE: "
			  "modprobe rdma_rxe && rdma link add rxe0 type rxe netdev %s", ifname);
	} else if (path_exists(d, "/sys/module/rdma_rxe")) {
		check_note(r, CHECK_FAIL, "no RDMA device: rdma_rxe is loaded but no Soft-RoCE link exists");
		check_fix(r, "rdma link add rxe0 type rxe netdev %s", ifname);
	} else {
		check_note(r, CHECK_FAIL, "no RDMA device: ib_core is loaded but no NIC driver "
			   "registered a device");
		check_fix(r, "modprobe mlx5_ib (or your NIC's RDMA driver; see lspci and dmesg), "
			  "or for Soft-RoCE: modprobe rdma_rxe && rdma link add rxe0 type rxe netdev %s",
			  ifname);
	}
}

/*
 * Whether libibverbs lists @name: RDMA netlink names every device the
 * kernel has, verbs only those whose provider library loaded and whose
 * /dev/infiniband node exists.  True when it cannot be known (a --root
 * tree that did not record it).
 */
static bool verbs_has(const struct doctor *d, const char *name)
{
	char *names = NULL;
	bool found;
	int ret = verbs_devices(d->ctx, &names);

	found = ret == -ENODATA || (!ret && verbs_devices_has(names, name));
	free(names);
	return found;
}

/* The netns mode, and the devices other namespaces hold (exclusive mode). */
static void devices_netns(struct doctor *d, struct check_result *r)
{
	const struct rdma_netns *ns = doctor_netns(d);
	char list[512];

	if (ns->mode == NETNS_UNKNOWN)
		return;
	check_note(r, CHECK_OK, "RDMA netns mode %s%s%s", rdma_netns_mode_str(ns->mode),
		   ns->n_hidden ? ", other namespaces hold " : "",
		   rdma_netns_hidden_list(ns, list, sizeof(list)));
}

/* None here, because exclusive mode gave them to other namespaces; true when so. */
static bool devices_elsewhere(struct doctor *d, struct check_result *r)
{
	char why[512], fix[256];

	if (!rdma_netns_explain(doctor_netns(d), why, sizeof(why), fix, sizeof(fix)))
		return false;
	check_note(r, CHECK_FAIL, "no RDMA device in this network namespace: %s", why);
	check_fix(r, "%s", fix);
	return true;
}

void check_devices(struct doctor *d, struct check_result *r)
{
	char kdev[64];
	size_t i;

	if (d->node_err) {
		check_note(r, CHECK_FAIL, "could not read the RDMA devices: %s", strerror(-d->node_err));
		check_fix(r, "run again with -v to see why");
		return;
	}
	if (!d->node.n) {
		if (devices_elsewhere(d, r))
			return;
		if (first_entry(d, "/sys/class/infiniband", NULL, kdev, sizeof(kdev)))
			devices_unopened(d, r, kdev);
		else
			devices_none(d, r);
		return;
	}
	for (i = 0; i < d->node.n; i++) {
		const struct rdma_dev *dev = &d->node.devs[i];

		if (!verbs_has(d, dev->name)) {
			devices_unopened(d, r, dev->name);
			continue;
		}
		check_note(r, CHECK_OK, "%s (%s%s%u port%s)", dev->name, dev->driver,
			   dev->driver[0] ? ", " : "", dev->nports, dev->nports == 1 ? "" : "s");
	}
	devices_netns(d, r);
}

/* Skip a check that needs devices when there are none; true when skipped. */
static bool need_devices(const struct doctor *d, struct check_result *r)
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

/* IFF_UP of /sys/class/net/IF/flags ("0x1003"): up by the administrator. */
static bool netdev_admin_up(const struct doctor *d, const char *ifname)
{
	char path[64 + IF_NAMESIZE], buf[32];

	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", ifname);
	return read_line(d->ctx, path, buf, sizeof(buf)) > 0 && (strtoul(buf, NULL, 0) & 0x1);
}

void doctor_port_down(struct doctor *d, struct check_result *r, const struct rdma_dev *dev,
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

/* A port that stands for another function on a switchdev eswitch (not the uplink). */
static bool fn_rep_port(struct doctor *d, const struct rdma_port *p)
{
	const struct rep *rep = doctor_rep(d, p->netdev);

	return rep && rep->flavour != REP_PHYSICAL;
}

void check_ports(struct doctor *d, struct check_result *r)
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
			if (p->state == 4 && p->phys_state == 5)
				check_note(r, CHECK_OK, "%s/%u ACTIVE LinkUp%s%s%s", dev->name, p->num,
					   p->netdev[0] ? " (" : "", p->netdev,
					   p->netdev[0] ? ")" : "");
			else
				doctor_port_down(d, r, dev, p);
		}
	}
	if (reps)
		check_note(r, CHECK_OK, "%u representor port%s not judged (they stand for other "
			   "functions: rdmactl devices)", reps, reps == 1 ? "" : "s");
	if (!r->found[0])
		check_note(r, CHECK_FAIL, "no device has a port");
}

static void roce_ipv4_port(struct doctor *d, struct check_result *r, const struct rdma_dev *dev,
			   const struct rdma_port *p)
{
	(void)d;
	char v4[INET_ADDRSTRLEN], gid[48];
	const char *nd = p->netdev[0] ? p->netdev : "its netdev";
	size_t k;

	for (k = 0; k < p->n_gids; k++)
		if (gid_ipv4(p->gids[k].raw, v4, sizeof(v4))) {
			check_note(r, CHECK_OK, "%s/%u %s has %s", dev->name, p->num, nd, v4);
			return;
		}
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

typedef void roce_port_fn(struct doctor *d, struct check_result *r,
			  const struct rdma_dev *dev, const struct rdma_port *p);

/*
 * Run @fn on every RoCE port; skip the check with @why_none when there is
 * none.  False when the node has no devices (need_devices said so).
 */
static bool each_roce_port(struct doctor *d, struct check_result *r, roce_port_fn *fn,
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

void check_roce_ipv4(struct doctor *d, struct check_result *r)
{
	each_roce_port(d, r, roce_ipv4_port, "no RoCE port (InfiniBand only)");
}

/* "2.21.5" from 22105. */
static char *nccl_ver_str(int v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
	return buf;
}

/* What NCCL does with the GID table when NCCL_IB_GID_INDEX is unset. */
static void roce_gid_nccl(struct doctor *d, struct check_result *r, unsigned int index)
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
	} else if (d->target == FOR_NCCL) {
		check_note(r, CHECK_WARN, "no libnccl found here to tell its version: NCCL before 2.21 "
			   "uses index 0 unless NCCL_IB_GID_INDEX is set, 2.21 and later find %u", index);
		check_fix(r, "export NCCL_IB_GID_INDEX=%u", index);
	} else {
		check_note(r, CHECK_OK, "NCCL before 2.21 needs NCCL_IB_GID_INDEX=%u, later ones find it",
			   index);
	}
}

/* Only the entries on the port's own netdev: a VLAN's or macvlan's GIDs are another path. */
bool doctor_gid_choose(const struct rdma_port *p, struct gid_choice *c)
{
	return gid_choose(p, false, p->netdev[0] ? p->netdev : NULL, c);
}

static void roce_gid_port(struct doctor *d, struct check_result *r, const struct rdma_dev *dev,
			  const struct rdma_port *p)
{
	struct gid_choice c;
	char v4[INET_ADDRSTRLEN] = "";

	if (!doctor_gid_choose(p, &c)) {
		check_note(r, CHECK_FAIL, "%s/%u: %s", dev->name, p->num, c.why);
		if (c.fix[0])
			check_fix(r, "%s", c.fix);
		return;
	}
	gid_ipv4(c.gid->raw, v4, sizeof(v4));
	check_note(r, CHECK_OK, "%s/%u: use GID index %u (RoCE v2, %s)", dev->name, p->num,
		   c.gid->index, v4[0] ? v4 : "IPv6");
	if (d->target == FOR_PERFTEST)
		check_note(r, CHECK_OK, "perftest: -d %s -i %u -x %u", dev->name, p->num, c.gid->index);
	if (doctor_env("NCCL_IB_GID_INDEX"))
		check_note(r, CHECK_OK, "NCCL_IB_GID_INDEX is set (see env.nccl)");
	else if ((d->target == FOR_ANY || d->target == FOR_NCCL) && !d->gid_spread)
		roce_gid_nccl(d, r, c.gid->index);
}

/*
 * Where a job's ports need different indexes, whether its library finds
 * each port's entry itself: the plan rdmactl env follows, so that env
 * refuses a node exactly where this check fails it, with these words.
 */
static void roce_gid_plan(struct doctor *d, struct check_result *r, enum jobenv_for f)
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

void check_roce_gid(struct doctor *d, struct check_result *r)
{
	struct check_result plan = { 0 };

	d->gid_spread = false;
	if (d->node.n && d->target != FOR_PERFTEST) {
		if (d->target != FOR_UCX && d->target != FOR_MPI)
			roce_gid_plan(d, &plan, JOBENV_NCCL);
		if (d->target != FOR_NCCL)
			roce_gid_plan(d, &plan, JOBENV_UCX);
	}
	each_roce_port(d, r, roce_gid_port, "no RoCE port (InfiniBand uses the port GID)");
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

static void mtu_port(struct doctor *d, struct check_result *r, const struct rdma_dev *dev,
		     const struct rdma_port *p)
{
	int mtu = 0, allowed, active, err = p->netdev[0] ? netdev_sysfs_mtu(d->ctx, p->netdev, &mtu)
							  : -ENODEV;

	if (err) {
		mtu_unknown(r, dev, p, err);
		return;
	}
	allowed = roce_mtu_for_netdev(dev->driver, mtu);
	active = p->active_mtu ? p->active_mtu : allowed;
	if (active >= 4096 || (p->max_mtu && active >= p->max_mtu)) {
		check_note(r, CHECK_OK, "%s/%u active MTU %d (max %d), %s MTU %d", dev->name, p->num,
			   active, p->max_mtu, p->netdev, mtu);
		return;
	}
	check_note(r, CHECK_WARN, "%s/%u: %s MTU %d limits the RDMA MTU to %d (max %d); "
		   "4096 needs a netdev MTU of at least %d", dev->name, p->num, p->netdev, mtu,
		   active, p->max_mtu ? p->max_mtu : 4096,
		   roce_netdev_mtu_needed(dev->driver, 4096));
	check_fix(r, "ip link set %s mtu 9000 on every node and switch port (lasting: "
		  "nmcli con mod %s 802-3-ethernet.mtu 9000)", p->netdev, p->netdev);
}

void check_mtu(struct doctor *d, struct check_result *r)
{
	if (each_roce_port(d, r, mtu_port,
			   "no RoCE port (InfiniBand MTUs are set by the subnet manager)"))
		doctor_peer_mtu(d, r);
}
