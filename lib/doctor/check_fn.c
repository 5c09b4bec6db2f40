// SPDX-License-Identifier: MIT
/*
 * The doctor's check of SR-IOV virtual functions and scalable functions
 * (node/fn.h).  A VF or SF without its driver has neither RDMA device nor
 * netdev; an SF added with `devlink port add ... flavour pcisf` stays
 * without a device until activated; and a VF's link follows its PF's
 * port, so a VF on a PF that is down is down too, however "up" its netdev
 * looks inside a container.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/sysfs.h"
#include "doctor/check.h"
#include "doctor/checks.h"
#include "node/netdev.h"

/* IFF_UP of /sys/class/net/IF/flags ("0x1003"): up by the administrator. */
static bool admin_up(const struct node_facts *d, const char *ifname)
{
	char path[64 + IF_NAMESIZE], buf[32];

	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", ifname);
	return read_line(d->ctx, path, buf, sizeof(buf)) > 0 && (strtoul(buf, NULL, 0) & 0x1);
}

static bool link_down(const struct node_facts *d, const char *ifname)
{
	char state[16] = "unknown";

	netdev_sysfs_state(d->ctx, ifname, state, sizeof(state));
	return strcmp(state, "up") && strcmp(state, "unknown");
}

/* "VF 3 of mlx5_0 (0000:3b:00.5)" */
static char *name_of(const struct fn_node *f, const struct fn *fn, char *buf, size_t len)
{
	char what[96];

	snprintf(buf, len, "%s (%s)", fn_describe(f, fn, what, sizeof(what)), fn->addr);
	return buf;
}

/* A VF on a PF that is down: seen on the PF's netdev, or, in a container, on the VF's own. */
static bool vf_pf_down(struct node_facts *d, struct check_result *r, const struct fn *vf,
		       const struct fn *pf, const char *name)
{
	if (pf && pf->netdev[0] && link_down(d, pf->netdev)) {
		check_note(r, CHECK_FAIL, "%s: its PF's netdev %s is down, and a VF's link follows "
			   "its PF's port", name, pf->netdev);
		check_fix(r, "ip link set %s up (and check its cable: rdmactl ports %s)", pf->netdev,
			  pf->rdma[0] ? pf->rdma : pf->netdev);
		return true;
	}
	if (pf && pf->netdev[0])
		return false;
	if (!vf->netdev[0] || !admin_up(d, vf->netdev) || !link_down(d, vf->netdev))
		return false;
	check_note(r, CHECK_FAIL, "%s: %s is up but has no link: a VF's link follows its PF's "
		   "port, so its PF %s (in another network namespace, not seen here) is down", name,
		   vf->netdev, vf->parent);
	check_fix(r, "on the host: bring up the netdev of PF %s and check its cable (rdmactl "
		  "ports there), or undo a forced VF state: ip link set PF_NETDEV vf %d state auto",
		  vf->parent, vf->num);
	return true;
}

static void check_vf(struct node_facts *d, struct check_result *r, const struct fn_node *f,
		     const struct fn *vf)
{
	const struct fn *pf = fn_find(f, vf->parent);
	char name[160];

	name_of(f, vf, name, sizeof(name));
	if (!vf->driver[0]) {
		check_note(r, CHECK_WARN, "%s has no driver bound: it has no RDMA device or netdev", name);
		check_fix(r, "echo %s > /sys/bus/pci/drivers/%s/bind (or give it to a VM through "
			  "vfio-pci)", vf->addr, pf && pf->driver[0] ? pf->driver : "mlx5_core");
		return;
	}
	if (!strcmp(vf->driver, "vfio-pci") || !strcmp(vf->driver, "pci-stub")) {
		check_note(r, CHECK_OK, "%s is bound to %s (a VM's)", name, vf->driver);
		return;
	}
	if (vf_pf_down(d, r, vf, pf, name))
		return;
	check_note(r, CHECK_OK, "%s: %s%s%s%s", name, vf->rdma[0] ? vf->rdma : vf->driver,
		   vf->netdev[0] ? " (" : "", vf->netdev, vf->netdev[0] ? ")" : "");
}

/* "mlx5_core.sf.5" is bound by the driver "mlx5_core.sf". */
static void sf_driver(const char *addr, char *buf, size_t len)
{
	const char *dot = strstr(addr, ".sf.");

	snprintf(buf, len, "%.*s.sf", dot ? (int)(dot - addr) : (int)strlen(addr), addr);
}

static void check_sf(struct check_result *r, const struct fn_node *f, const struct fn *sf)
{
	char name[160], what[96], drv[64];

	if (!sf->path[0]) {
		/* Known to devlink only: a port added, its function not activated. */
		check_note(r, CHECK_WARN, "%s is inactive (devlink port %s): it has no device yet",
			   fn_describe(f, sf, what, sizeof(what)), sf->addr);
		check_fix(r, "devlink port function set %s state active", sf->addr);
		return;
	}
	name_of(f, sf, name, sizeof(name));
	if (!sf->driver[0]) {
		sf_driver(sf->addr, drv, sizeof(drv));
		check_note(r, CHECK_WARN, "%s has no driver bound: it has no RDMA device or netdev", name);
		check_fix(r, "echo %s > /sys/bus/auxiliary/drivers/%s/bind", sf->addr, drv);
		return;
	}
	check_note(r, CHECK_OK, "%s: %s%s%s%s", name, sf->rdma[0] ? sf->rdma : sf->driver,
		   sf->netdev[0] ? " (" : "", sf->netdev, sf->netdev[0] ? ")" : "");
}

void check_functions(struct node_facts *d, struct check_result *r)
{
	const struct fn_node *f = doctor_fns(d);
	size_t i;

	for (i = 0; i < f->n; i++) {
		if (f->fns[i].kind == FN_VF)
			check_vf(d, r, f, &f->fns[i]);
		else if (f->fns[i].kind == FN_SF)
			check_sf(r, f, &f->fns[i]);
	}
	if (!r->found[0])
		check_skip(r, "no SR-IOV VF or scalable function here");
}
