// SPDX-License-Identifier: MIT
/*
 * Functions and representors from sysfs, with devlink live (node/fn.h).
 * Every path is below the context's root and reached through the links
 * the kernel makes (device, physfn, virtfnN), so a recorded tree reads
 * like the node; links that would leave the root are not followed.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/devlink.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/root.h"
#include "base/sysfs.h"
#include "node/fn.h"
#include "node/netdev.h"
#include "node/rdma.h"

#define PCI_VENDOR_MELLANOX 0x15b3

/* BlueField DPUs by the PCI device ID of their NIC functions (pci.ids). */
static const struct {
	unsigned int device;
	const char *model;
} bluefields[] = {
	{ 0xa2d2, "BlueField" },
	{ 0xa2d6, "BlueField-2" },
	{ 0xa2dc, "BlueField-3" },
};

/* ---- sysfs below the root ---- */

/*
 * The name of the directory above @path once its links are resolved
 * (an SF's parent: ".../0000:03:00.0/mlx5_core.sf.4" -> "0000:03:00.0"),
 * when it stays below the root.
 */
static int parent_name(const struct ctx *ctx, const char *path, char *buf, size_t len)
{
	char real[PATH_MAX];
	const char *base;
	char *slash;

	/* Resolved inside the root: a link never leads to the analysing host's files. */
	if (root_resolve(ctx, path, real, sizeof(real)))
		return -ENOENT;
	slash = strrchr(real, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (!*base || strlen(base) >= len)
		return -EINVAL;
	memcpy(buf, base, strlen(base) + 1);
	return 0;
}

/* A number file ("4", "0x15b3"); -1 when absent or junk (junk warned). */
static long read_num(const struct ctx *ctx, const char *path)
{
	char buf[32], *end;
	long v;

	if (read_line(ctx, path, buf, sizeof(buf)) < 0)
		return -1;
	v = strtol(buf, &end, 0);
	if (end == buf || *end || v < 0) {
		read_warning(ctx, path, -EINVAL, *buf ? "not a number" : "empty");
		return -1;
	}
	return v;
}

static bool is_pci_addr(const char *s)
{
	unsigned int dom, bus, slot, fn;
	char end;

	return sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &slot, &fn, &end) == 4;
}

typedef void entry_fn(const struct ctx *ctx, const char *dir, const char *name, void *arg);

/* Each entry of @dir (below the root) but dot files, in name order. */
static void each_entry(const struct ctx *ctx, const char *dir, entry_fn *fn, void *arg)
{
	struct dirent **list;
	int i, n, fd;

	fd = root_open(ctx, dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
	if (fd < 0)
		return;
	n = scandirat(fd, ".", &list, NULL, alphasort);
	close(fd);
	if (n < 0)
		return;
	for (i = 0; i < n; i++) {
		if (list[i]->d_name[0] != '.')
			fn(ctx, dir, list[i]->d_name, arg);
		free(list[i]);
	}
	free(list);
}

/* ---- the list of functions ---- */

/*
 * The function at @addr, added when new; NULL with errno ENOMEM, or
 * ENAMETOOLONG for an address or path no function of the kernel's has.
 */
static struct fn *fn_add(struct fn_node *f, const char *addr, enum fn_kind kind, const char *path)
{
	struct fn *fns;
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->fns[i].addr, addr))
			return &f->fns[i];
	errno = ENAMETOOLONG;
	if (strlen(addr) >= sizeof(fns->addr) || strlen(path) >= sizeof(fns->path))
		return NULL;
	errno = ENOMEM;
	fns = realloc(f->fns, (f->n + 1) * sizeof(*fns));
	if (!fns)
		return NULL;
	f->fns = fns;
	memset(&fns[f->n], 0, sizeof(*fns));
	memcpy(fns[f->n].addr, addr, strlen(addr) + 1);
	memcpy(fns[f->n].path, path, strlen(path) + 1);
	fns[f->n].kind = kind;
	fns[f->n].num = fns[f->n].vfs = fns[f->n].vfs_total = fns[f->n].sf_state = -1;
	fns[f->n].eswitch = DL_ESWITCH_UNKNOWN;
	return &fns[f->n++];
}

/* fn_add()'s failure as a result: out of memory stops the load, a name too long is skipped. */
static int add_failed(void)
{
	return errno == ENOMEM ? -ENOMEM : 0;
}

const struct fn *fn_find(const struct fn_node *f, const char *addr)
{
	size_t i;

	for (i = 0; f && addr && i < f->n; i++)
		if (!strcmp(f->fns[i].addr, addr))
			return &f->fns[i];
	return NULL;
}

const struct fn *fn_of_rdma(const struct fn_node *f, const char *rdma)
{
	size_t i;

	for (i = 0; f && rdma && *rdma && i < f->n; i++)
		if (!strcmp(f->fns[i].rdma, rdma))
			return &f->fns[i];
	return NULL;
}

const struct rep *rep_of_netdev(const struct fn_node *f, const char *netdev)
{
	size_t i;

	for (i = 0; f && netdev && *netdev && i < f->nreps; i++)
		if (!strcmp(f->reps[i].netdev, netdev))
			return &f->reps[i];
	return NULL;
}

/* The function behind one RDMA device: its "device" link says which. */
static int fn_from_rdma(const struct ctx *ctx, struct fn_node *f, const struct rdma_dev *dev)
{
	char path[256], sub[300], addr[64];
	enum fn_kind kind;
	struct fn *fn;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", dev->name);
	if (read_link_base(ctx, path, addr, sizeof(addr)))
		return 0;	/* a software device: no parent */
	snprintf(sub, sizeof(sub), "%s/sfnum", path);
	if (root_exists(ctx, sub))
		kind = FN_SF;
	else if (is_pci_addr(addr))
		kind = FN_PF;
	else
		return 0;
	snprintf(sub, sizeof(sub), "%s/physfn", path);
	if (kind == FN_PF && root_exists(ctx, sub))
		kind = FN_VF;
	fn = fn_add(f, addr, kind, path);
	if (!fn)
		return add_failed();
	snprintf(fn->rdma, sizeof(fn->rdma), "%s", dev->name);
	if (kind != FN_VF || read_link_base(ctx, sub, addr, sizeof(fn->parent)))
		return 0;
	memcpy(fn->parent, addr, strlen(addr) + 1);
	/* From a copy: adding the PF may move the array @fn is in. */
	return fn_add(f, addr, FN_PF, sub) ? 0 : add_failed();
}

struct vf_walk {
	struct fn_node *f;
	size_t pf;	/* index of the PF */
	int ret;
};

/* One "virtfnN" link of a PF: its VF N. */
static void vf_entry(const struct ctx *ctx, const char *dir, const char *name, void *arg)
{
	struct vf_walk *w = arg;
	char path[300], addr[64], pf[64], *end;
	long num;
	struct fn *vf;

	if (strncmp(name, "virtfn", 6) || (num = strtol(name + 6, &end, 10)) < 0 || *end ||
	    end == name + 6)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (read_link_base(ctx, path, addr, sizeof(addr)) || !is_pci_addr(addr))
		return;
	memcpy(pf, w->f->fns[w->pf].addr, sizeof(pf));
	vf = fn_add(w->f, addr, FN_VF, path);
	if (!vf) {
		w->ret = add_failed();
		return;
	}
	vf->kind = FN_VF;
	vf->num = (int)num;
	snprintf(vf->parent, sizeof(vf->parent), "%s", pf);
}

/* A PF's SR-IOV state and its VFs. */
static int pf_expand(const struct ctx *ctx, struct fn_node *f, size_t i)
{
	struct vf_walk w = { f, i, 0 };
	char path[300], dir[256];

	snprintf(dir, sizeof(dir), "%s", f->fns[i].path);
	snprintf(path, sizeof(path), "%s/sriov_totalvfs", dir);
	f->fns[i].vfs_total = (int)read_num(ctx, path);
	snprintf(path, sizeof(path), "%s/sriov_numvfs", dir);
	f->fns[i].vfs = (int)read_num(ctx, path);
	each_entry(ctx, dir, vf_entry, &w);
	return w.ret;
}

/* One auxiliary device: an SF when it has an "sfnum". */
static void aux_entry(const struct ctx *ctx, const char *dir, const char *name, void *arg)
{
	struct vf_walk *w = arg;
	char path[300], sub[320], parent[32];
	long num;
	struct fn *sf;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(sub, sizeof(sub), "%s/sfnum", path);
	if ((num = read_num(ctx, sub)) < 0 || parent_name(ctx, path, parent, sizeof(parent)) ||
	    !is_pci_addr(parent))
		return;
	sf = fn_add(w->f, name, FN_SF, path);
	if (!sf || !fn_add(w->f, parent, FN_PF, path)) {
		w->ret = add_failed();
		return;
	}
	/* fn_add may have moved the array: look the SF up again. */
	sf = (struct fn *)fn_find(w->f, name);
	sf->num = (int)num;
	snprintf(sf->parent, sizeof(sf->parent), "%s", parent);
}

/* The PF of an SF found through the auxiliary bus is the SF directory's "..". */
static void fix_pf_paths(struct fn_node *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		struct fn *fn = &f->fns[i];
		size_t len = strlen(fn->path);

		if (fn->kind == FN_PF && !strncmp(fn->path, "/sys/bus/auxiliary/", 19) &&
		    len + 3 < sizeof(fn->path))
			memcpy(fn->path + len, "/..", 4);
	}
}

struct pick {
	const struct ctx *ctx;
	const struct rdma_node *node;
	char *buf;
	size_t len;
};

/* A netdev of the function that is not a representor (the uplink of a switchdev PF). */
static void netdev_entry(const struct ctx *ctx, const char *dir, const char *name, void *arg)
{
	struct pick *p = arg;
	char path[400], ppn[32];
	struct rep r;

	if (p->buf[0] || strlen(name) >= p->len)
		return;
	snprintf(path, sizeof(path), "%s/%s/phys_port_name", dir, name);
	if (read_line(ctx, path, ppn, sizeof(ppn)) > 0 && rep_parse_name(ppn, &r) &&
	    r.flavour != REP_PHYSICAL)
		return;
	memcpy(p->buf, name, strlen(name) + 1);
}

/* The function's RDMA device, when this namespace sees it. */
static void rdma_entry(const struct ctx *ctx, const char *dir, const char *name, void *arg)
{
	struct pick *p = arg;

	(void)ctx;
	(void)dir;
	if (!p->buf[0] && rdma_dev_find(p->node, name) && strlen(name) < p->len)
		memcpy(p->buf, name, strlen(name) + 1);
}

/* Driver, PCI IDs, netdev and RDMA device of one function. */
static void fn_fill(const struct ctx *ctx, const struct rdma_node *node, struct fn *fn)
{
	char path[300];
	struct pick p = { ctx, node, fn->netdev, sizeof(fn->netdev) };

	if (!fn->path[0])
		return;
	snprintf(path, sizeof(path), "%s/driver", fn->path);
	if (read_link_base(ctx, path, fn->driver, sizeof(fn->driver)))
		fn->driver[0] = '\0';
	if (fn->kind != FN_SF) {
		long v;

		snprintf(path, sizeof(path), "%s/vendor", fn->path);
		fn->vendor = (unsigned int)((v = read_num(ctx, path)) > 0 ? v : 0);
		snprintf(path, sizeof(path), "%s/device", fn->path);
		fn->device = (unsigned int)((v = read_num(ctx, path)) > 0 ? v : 0);
	}
	snprintf(path, sizeof(path), "%s/net", fn->path);
	if (!fn->netdev[0])
		each_entry(ctx, path, netdev_entry, &p);
	p.buf = fn->rdma;
	p.len = sizeof(fn->rdma);
	snprintf(path, sizeof(path), "%s/infiniband", fn->path);
	if (!fn->rdma[0])
		each_entry(ctx, path, rdma_entry, &p);
}

static int load_fns(const struct ctx *ctx, const struct rdma_node *node, struct fn_node *f)
{
	struct vf_walk w = { f, 0, 0 };
	size_t i, n;
	int ret;

	for (i = 0; i < node->n; i++)
		if ((ret = fn_from_rdma(ctx, f, &node->devs[i])))
			return ret;
	each_entry(ctx, "/sys/bus/auxiliary/devices", aux_entry, &w);
	if (w.ret)
		return w.ret;
	fix_pf_paths(f);
	/* The PFs known so far, not the VFs they add. */
	n = f->n;
	for (i = 0; i < n; i++)
		if (f->fns[i].kind == FN_PF && (ret = pf_expand(ctx, f, i)))
			return ret;
	for (i = 0; i < f->n; i++)
		fn_fill(ctx, node, &f->fns[i]);
	return 0;
}

/* ---- representors ---- */

/* "12" at *@s -> 12, advancing *@s; -1 without a digit. */
static int take_num(const char **s)
{
	long v;
	char *end;

	if (!isdigit((unsigned char)**s))
		return -1;
	v = strtol(*s, &end, 10);
	if (v > 65535)
		return -1;
	*s = end;
	return (int)v;
}

/* [cN](pN[sM] | pfN[vfM | sfM]), the whole of @name. */
bool rep_parse_name(const char *name, struct rep *r)
{
	const char *s = name;

	r->controller = 0;
	r->pf = r->vf = r->sf = r->port = -1;
	if (*s == 'c' && (s++, (r->controller = take_num(&s)) < 0))
		return false;
	if (!strncmp(s, "pf", 2)) {
		s += 2;
		if ((r->pf = take_num(&s)) < 0)
			return false;
		r->flavour = REP_PF;
		if (!strncmp(s, "vf", 2) || !strncmp(s, "sf", 2)) {
			r->flavour = *s == 'v' ? REP_VF : REP_SF;
			s += 2;
			if ((*(r->flavour == REP_VF ? &r->vf : &r->sf) = take_num(&s)) < 0)
				return false;
		}
		return !*s;
	}
	if (*s != 'p' || r->controller)
		return false;
	s++;
	if ((r->port = take_num(&s)) < 0)
		return false;
	r->flavour = REP_PHYSICAL;
	/* "p0s1": a split port */
	return !*s || (*s == 's' && (s++, take_num(&s) >= 0) && !*s);
}

char *rep_describe(const struct rep *r, char *buf, size_t len)
{
	char who[24] = "";

	if (r->flavour == REP_PHYSICAL) {
		snprintf(buf, len, "uplink port %d", r->port);
		return buf;
	}
	if (r->controller == 1)
		snprintf(who, sizeof(who), "host ");
	else if (r->controller > 1)
		snprintf(who, sizeof(who), "host %d ", r->controller);
	if (r->flavour == REP_PF)
		snprintf(buf, len, "%sPF %d", who, r->pf);
	else if (r->flavour == REP_VF)
		snprintf(buf, len, "%sVF %d of PF %d", who, r->vf, r->pf);
	else
		snprintf(buf, len, "%sSF %d of PF %d", who, r->sf, r->pf);
	return buf;
}

/* "0000:03:00.0" with function @pf: the PF a representor's pfnum names (mlx5: the PCI function). */
static void pf_addr(const char *manager, int pf, char *buf, size_t len)
{
	const char *dot = strrchr(manager, '.');

	if (!dot || pf < 0 || pf > 7)
		snprintf(buf, len, "%s", manager);
	else
		snprintf(buf, len, "%.*s.%d", (int)(dot - manager), manager, pf);
}

/* The RDMA device of the local function @r stands for (this side's VF or SF). */
static void rep_function(const struct fn_node *f, struct rep *r)
{
	char parent[32];
	size_t i;

	if (r->controller || (r->flavour != REP_VF && r->flavour != REP_SF))
		return;
	pf_addr(r->pci, r->pf, parent, sizeof(parent));
	for (i = 0; i < f->n; i++) {
		const struct fn *fn = &f->fns[i];

		if (strcmp(fn->parent, parent) || fn->num != (r->flavour == REP_VF ? r->vf : r->sf) ||
		    fn->kind != (r->flavour == REP_VF ? FN_VF : FN_SF))
			continue;
		snprintf(r->function, sizeof(r->function), "%s", fn->rdma);
	}
}

static void rep_port(const struct rdma_node *node, struct rep *r)
{
	const struct rdma_dev *dev;
	const struct rdma_port *p = rdma_port_by_netdev(node, r->netdev, &dev);

	if (p) {
		snprintf(r->rdma, sizeof(r->rdma), "%s", dev->name);
		r->rdma_port = p->num;
	}
}

struct rep_walk {
	const struct rdma_node *node;
	struct fn_node *f;
	int ret;
};

static void rep_entry(const struct ctx *ctx, const char *dir, const char *name, void *arg)
{
	struct rep_walk *w = arg;
	char path[400];
	struct rep r, *reps;

	if (!netdev_class_entry(ctx, name))
		return;
	memset(&r, 0, sizeof(r));
	snprintf(path, sizeof(path), "%s/%s/phys_port_name", dir, name);
	if (strlen(name) >= sizeof(r.netdev) || read_line(ctx, path, r.port_name, sizeof(r.port_name)) <= 0 ||
	    !rep_parse_name(r.port_name, &r))
		return;
	memcpy(r.netdev, name, strlen(name) + 1);
	snprintf(path, sizeof(path), "%s/%s/device", dir, name);
	read_link_base(ctx, path, r.pci, sizeof(r.pci));
	snprintf(path, sizeof(path), "%s/%s/operstate", dir, name);
	if (read_line(ctx, path, r.operstate, sizeof(r.operstate)) < 0)
		r.operstate[0] = '\0';
	rep_port(w->node, &r);
	reps = realloc(w->f->reps, (w->f->nreps + 1) * sizeof(*reps));
	if (!reps) {
		w->ret = -ENOMEM;
		return;
	}
	w->f->reps = reps;
	reps[w->f->nreps++] = r;
}

/* Whether the PCI function @pci manages representors of functions (switchdev). */
static bool has_fn_reps(const struct fn_node *f, const char *pci)
{
	size_t i;

	for (i = 0; i < f->nreps; i++)
		if (f->reps[i].flavour != REP_PHYSICAL && !strcmp(f->reps[i].pci, pci))
			return true;
	return false;
}

/* Representors of functions, and the uplinks of the eswitches they belong to. */
static int load_reps(const struct ctx *ctx, const struct rdma_node *node, struct fn_node *f)
{
	struct rep_walk w = { node, f, 0 };
	size_t i, n = 0;

	each_entry(ctx, "/sys/class/net", rep_entry, &w);
	if (w.ret)
		return w.ret;
	/* "p0" alone is a legacy PF's port name too: keep it only beside function representors. */
	for (i = 0; i < f->nreps; i++)
		if (f->reps[i].flavour != REP_PHYSICAL || has_fn_reps(f, f->reps[i].pci))
			f->reps[n++] = f->reps[i];
	f->nreps = n;
	for (i = 0; i < n; i++)
		rep_function(f, &f->reps[i]);
	return 0;
}

/* ---- devlink, eswitch modes, DPUs ---- */

/* An SF port devlink knows and sysfs does not: added, not activated. */
static int dl_sf(struct fn_node *f, const struct dl_port *p)
{
	char parent[32], addr[96];
	size_t i;
	struct fn *sf;

	pf_addr(p->dev, p->pf, parent, sizeof(parent));
	for (i = 0; i < f->n; i++)
		if (f->fns[i].kind == FN_SF && f->fns[i].num == p->sf && !strcmp(f->fns[i].parent, parent)) {
			f->fns[i].sf_state = p->fn_state;
			return 0;
		}
	snprintf(addr, sizeof(addr), "%s/%s/%u", p->bus, p->dev, p->index);
	sf = fn_add(f, addr, FN_SF, "");
	if (!sf)
		return add_failed();
	sf->num = (int)p->sf;
	sf->sf_state = p->fn_state;
	snprintf(sf->parent, sizeof(sf->parent), "%s", parent);
	return 0;
}

/* What devlink says over what sysfs guessed. */
static int merge_devlink(const struct dl_node *dl, struct fn_node *f)
{
	size_t i;
	int ret;

	for (i = 0; i < f->n; i++) {
		const struct dl_dev *d = devlink_dev_find(dl, "pci", f->fns[i].addr);

		if (f->fns[i].kind == FN_PF && d && d->eswitch != DL_ESWITCH_UNKNOWN)
			f->fns[i].eswitch = d->eswitch;
	}
	for (i = 0; i < dl->nports; i++) {
		const struct dl_port *p = &dl->ports[i];

		if (p->flavour == DEVLINK_PORT_FLAVOUR_PCI_SF && p->sf >= 0 && p->controller <= 0 &&
		    (ret = dl_sf(f, p)))
			return ret;
	}
	return 0;
}

static int load_devlink(const struct ctx *ctx, struct fn_node *f)
{
	struct dl_node dl;
	int ret;

	/* A recorded tree has no devlink: its representors tell the mode. */
	if (ctx->root[0])
		return 0;
	ret = devlink_load(ctx, &dl);
	if (ret) {
		log_info(ctx, "devlink unavailable (%s): eswitch modes from the representors",
			 strerror(-ret));
		return ret == -ENOMEM ? ret : 0;
	}
	ret = merge_devlink(&dl, f);
	devlink_free(&dl);
	return ret;
}

static const char *bluefield_model(unsigned int vendor, unsigned int device)
{
	size_t i;

	for (i = 0; vendor == PCI_VENDOR_MELLANOX && i < sizeof(bluefields) / sizeof(bluefields[0]); i++)
		if (bluefields[i].device == device)
			return bluefields[i].model;
	return NULL;
}

/* Whether some representor of @pci stands for an external host's function. */
static bool manages_host(const struct fn_node *f, const char *pci)
{
	size_t i;

	for (i = 0; i < f->nreps; i++)
		if (f->reps[i].controller >= 1 && !strcmp(f->reps[i].pci, pci))
			return true;
	return false;
}

static void detect_dpu(struct fn_node *f)
{
	size_t i, off = 0;

	for (i = 0; i < f->n; i++) {
		const struct fn *fn = &f->fns[i];
		const char *model = fn->kind == FN_PF ? bluefield_model(fn->vendor, fn->device) : NULL;

		if (!model)
			continue;
		f->dpu.model = model;
		f->dpu.device = fn->device;
		f->dpu.arm |= manages_host(f, fn->addr);
		if (off < sizeof(f->dpu.pci))
			off += (size_t)snprintf(f->dpu.pci + off, sizeof(f->dpu.pci) - off, "%s%s",
						off ? ", " : "", fn->addr);
	}
}

/*
 * Without devlink: representors of functions mean switchdev; VFs without
 * any mean legacy, except on a DPU's host side, whose eswitch the Arm
 * side manages.
 */
static void infer_eswitch(struct fn_node *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		struct fn *fn = &f->fns[i];

		if (fn->kind != FN_PF || fn->eswitch != DL_ESWITCH_UNKNOWN)
			continue;
		if (has_fn_reps(f, fn->addr))
			fn->eswitch = DL_ESWITCH_SWITCHDEV;
		else if (fn->vfs > 0 && !(f->dpu.model && !f->dpu.arm))
			fn->eswitch = DL_ESWITCH_LEGACY;
	}
}

static int cmp_fn(const void *a, const void *b)
{
	return strcmp(((const struct fn *)a)->addr, ((const struct fn *)b)->addr);
}

/* By eswitch, then the uplink, this side's functions, the hosts' (as devlink lists them). */
static int cmp_rep(const void *a, const void *b)
{
	const struct rep *x = a, *y = b;
	int c = strcmp(x->pci, y->pci);

	if (c)
		return c;
	if (x->controller != y->controller)
		return x->controller - y->controller;
	if (x->flavour != y->flavour)
		return (int)x->flavour - (int)y->flavour;
	if (x->pf != y->pf)
		return x->pf - y->pf;
	if (x->vf != y->vf)
		return x->vf - y->vf;
	return x->sf - y->sf;
}

int fn_load(const struct ctx *ctx, const struct rdma_node *node, struct fn_node *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = load_fns(ctx, node, out);
	if (!ret)
		ret = load_reps(ctx, node, out);
	if (!ret)
		ret = load_devlink(ctx, out);
	if (ret) {
		fn_free(out);
		return ret;
	}
	detect_dpu(out);
	infer_eswitch(out);
	if (out->n)
		qsort(out->fns, out->n, sizeof(*out->fns), cmp_fn);
	if (out->nreps)
		qsort(out->reps, out->nreps, sizeof(*out->reps), cmp_rep);
	return 0;
}

void fn_free(struct fn_node *f)
{
	free(f->fns);
	free(f->reps);
	memset(f, 0, sizeof(*f));
}

const char *fn_kind_str(enum fn_kind k)
{
	return k == FN_PF ? "pf" : k == FN_VF ? "vf" : k == FN_SF ? "sf" : NULL;
}

char *fn_describe(const struct fn_node *f, const struct fn *fn, char *buf, size_t len)
{
	const struct fn *pf = fn_find(f, fn->parent);
	const char *of = pf && pf->rdma[0] ? pf->rdma : fn->parent;

	switch (fn->kind) {
	case FN_PF:
		if (fn->vfs_total > 0)
			snprintf(buf, len, "PF %d/%d VFs%s", fn->vfs > 0 ? fn->vfs : 0, fn->vfs_total,
				 fn->eswitch == DL_ESWITCH_SWITCHDEV ? ", switchdev" : "");
		else
			snprintf(buf, len, "PF%s", fn->eswitch == DL_ESWITCH_SWITCHDEV ? ", switchdev" : "");
		break;
	case FN_VF:
		snprintf(buf, len, "VF %d of %s", fn->num, of);
		break;
	case FN_SF:
		snprintf(buf, len, "SF %d of %s", fn->num, of);
		break;
	default:
		snprintf(buf, len, "-");
	}
	return buf;
}
