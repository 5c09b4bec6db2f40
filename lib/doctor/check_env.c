// SPDX-License-Identifier: MIT
/*
 * Doctor checks of the variables NCCL and UCX read to choose devices,
 * interfaces and GIDs: each value is matched against this node the way the
 * library itself would match it (node/envparse.c), and every bad value is
 * named with the variable, the value and what exists instead.
 */
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/opt.h"
#include "base/root.h"
#include "base/sysfs.h"
#include "doctor/check.h"
#include "doctor/checks.h"
#include "doctor/port_rules.h"
#include "node/envparse.h"
#include "node/gids.h"
#include "node/netdev.h"

#define MAX_NAMES 64

struct names {
	char v[MAX_NAMES][IF_NAMESIZE + 48];
	const char *p[MAX_NAMES];
	size_t n;
};

static void names_add(struct names *ns, const char *name)
{
	if (ns->n == MAX_NAMES)
		return;
	snprintf(ns->v[ns->n], sizeof(ns->v[0]), "%s", name);
	ns->p[ns->n] = ns->v[ns->n];
	ns->n++;
}

static char *names_join(const struct names *ns, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < ns->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", ns->p[i]);
	if (!ns->n)
		snprintf(buf, len, "none");
	return buf;
}

static void dev_names(const struct node_facts *d, struct names *ns)
{
	size_t i;

	ns->n = 0;
	for (i = 0; i < d->node.n; i++)
		names_add(ns, d->node.devs[i].name);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Network interfaces in /sys/class/net (below the root). */
static void if_names(const struct node_facts *d, struct names *ns)
{
	struct dirent *de;
	DIR *dd;

	ns->n = 0;
	dd = root_opendir(d->ctx, "/sys/class/net");
	if (!dd)
		return;
	while ((de = readdir(dd)))
		if (strlen(de->d_name) < IF_NAMESIZE && netdev_class_entry(d->ctx, de->d_name))
			names_add(ns, de->d_name);
	closedir(dd);
	/* Sorted, so messages do not depend on directory order. */
	qsort(ns->v, ns->n, sizeof(ns->v[0]), cmp_name);
	for (size_t i = 0; i < ns->n; i++)
		ns->p[i] = ns->v[i];
}

/* " (did you mean 'mlx5_1'?)" or "". */
static const char *did_you_mean(const char *word, const struct names *ns, char *buf, size_t len)
{
	const char *near = closest_word(word, ns->p, ns->n);

	buf[0] = '\0';
	if (near)
		snprintf(buf, len, " (did you mean '%.80s'?)", near);
	return buf;
}

/* The representor of another function @ifname is, or NULL (an uplink is none). */
static const struct rep *fn_rep(struct node_facts *d, const char *ifname)
{
	const struct rep *rep = ifname[0] ? doctor_rep(d, ifname) : NULL;

	return rep && rep->flavour != REP_PHYSICAL ? rep : NULL;
}

static bool is_netdev(const struct node_facts *d, const char *name)
{
	char path[512];

	return !strchr(name, '/') &&
	       (size_t)snprintf(path, sizeof(path), "/sys/class/net/%s", name) < sizeof(path) &&
	       root_exists(d->ctx, path);
}

/* ---- NCCL ---- */

static const char *const nccl_vars[] = {
	"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_IB_GID_INDEX", "NCCL_IB_DISABLE",
	"NCCL_IB_ROCE_VERSION_NUM", "NCCL_IB_ADDR_FAMILY", "NCCL_IB_ADDR_RANGE", NULL
};
static const char *const ucx_vars[] = { "UCX_NET_DEVICES", "UCX_IB_GID_INDEX", "UCX_TLS", NULL };

static bool any_set(struct node_facts *d, const char *const *vars)
{
	for (; *vars; vars++)
		if (doctor_env(d, *vars))
			return true;
	return false;
}

/* "NAME=VALUE from FILE:LINE" for each of @vars a library's file sets: what the job runs with. */
static void note_files(struct node_facts *d, struct check_result *r, const char *const *vars)
{
	char said[CHECK_TEXT];

	for (; *vars; vars++)
		if (doctor_env_file(d, *vars))
			check_note(r, CHECK_OK, "%s", doctor_env_said(d, *vars, said, sizeof(said)));
}

/* The ports NCCL would open: ACTIVE, and selected by NCCL_IB_HCA. */
static bool nccl_uses(const struct env_list *hca, const struct rdma_dev *dev,
		      const struct rdma_port *p)
{
	return p->state == 4 && nccl_list_match(hca, dev->name, (int)p->num);
}

/* Devices an entry matches; "" when none. */
static void entry_matches(const struct node_facts *d, const struct env_list *l, size_t k,
			  char *buf, size_t len)
{
	size_t i, off = 0;
	unsigned int j;

	buf[0] = '\0';
	for (i = 0; i < d->node.n; i++) {
		const struct rdma_dev *dev = &d->node.devs[i];

		for (j = 0; j < dev->nports && off < len; j++)
			if (nccl_item_match(l, k, dev->name, (int)dev->ports[j].num))
				off += (size_t)snprintf(buf + off, len - off, "%s%s:%u", off ? ", " : "",
							dev->name, dev->ports[j].num);
	}
}

/* Append "name[:port]" to the corrected value @fixed. */
static void fixed_add(char *fixed, size_t len, const char *name, int port)
{
	size_t off = strlen(fixed);

	char item[ENV_NAME_MAX + 8];
	const char *at;
	size_t n;

	if (!name || off >= len)
		return;
	if (port > 0)
		snprintf(item, sizeof(item), "%s:%d", name, port);
	else
		snprintf(item, sizeof(item), "%s", name);
	/* Once only: two wrong entries may be corrected to the same one. */
	n = strlen(item);
	for (at = strstr(fixed, item); at; at = strstr(at + 1, item))
		if ((at == fixed || strchr(",^=", at[-1])) && (at[n] == ',' || !at[n]))
			return;
	if (port > 0)
		snprintf(fixed + off, len - off, "%s%s:%d", off && fixed[off - 1] != '^' &&
			 fixed[off - 1] != '=' ? "," : "", name, port);
	else
		snprintf(fixed + off, len - off, "%s%s", off && fixed[off - 1] != '^' &&
			 fixed[off - 1] != '=' ? "," : "", name);
}

/*
 * A device for this node's own traffic, to suggest instead of a
 * representor: none of its ports stands for another function, and one is
 * ACTIVE (on a DPU's Arm side, an SF's device).  NULL when none.
 */
static const struct rdma_dev *job_device(struct node_facts *d, int *port)
{
	size_t i;
	unsigned int j, reps, active;

	for (i = 0; i < d->node.n; i++) {
		const struct rdma_dev *dev = &d->node.devs[i];

		for (j = reps = active = 0; dev->ports && j < dev->nports; j++) {
			reps += fn_rep(d, dev->ports[j].netdev) != NULL;
			if (!active && dev->ports[j].state == 4)
				active = dev->ports[j].num;
		}
		if (!reps && active) {
			*port = (int)active;
			return dev;
		}
	}
	return NULL;
}

/* Add to @fixed what a representor entry should have named: its function, or a job device. */
static void fixed_instead_of_rep(struct node_facts *d, const struct rep *rep, char *fixed, size_t flen,
				 bool with_port)
{
	const struct rdma_dev *dev;
	int port = 1;

	if (rep && rep->function[0])
		fixed_add(fixed, flen, rep->function, with_port ? 1 : -1);
	else if ((dev = job_device(d, &port)))
		fixed_add(fixed, flen, dev->name, with_port ? port : -1);
}

/* An entry of NCCL_IB_HCA that names a netdev, not an RDMA device; true when so. */
static bool nccl_hca_netdev(struct node_facts *d, struct check_result *r, const char *val,
			    const struct env_item *it, char *fixed, size_t flen)
{
	const struct rdma_dev *dev = NULL;
	const struct rdma_port *p;
	const struct rep *rep;
	char what[64];

	if (!is_netdev(d, it->name))
		return false;
	if ((rep = fn_rep(d, it->name))) {
		check_note(r, CHECK_FAIL, "NCCL_IB_HCA='%.80s': '%.80s' is the representor of %s, a "
			   "switch port standing for that function, not an RDMA device of this node",
			   val, it->name, rep_describe(rep, what, sizeof(what)));
		fixed_instead_of_rep(d, rep, fixed, flen, false);
	} else if ((p = rdma_port_by_netdev(&d->node, it->name, &dev))) {
		check_note(r, CHECK_FAIL, "NCCL_IB_HCA='%.80s': '%.80s' is the netdev of %s:%u; "
			   "NCCL_IB_HCA names RDMA devices", val, it->name, dev->name, p->num);
		fixed_add(fixed, flen, dev->name, (int)p->num);
	} else {
		check_note(r, CHECK_FAIL, "NCCL_IB_HCA='%.80s': '%.80s' is a netdev with no RDMA "
			   "device behind it (NCCL can use it only for sockets: NCCL_SOCKET_IFNAME)",
			   val, it->name);
		fixed_instead_of_rep(d, NULL, fixed, flen, false);
	}
	return true;
}

/*
 * Ports an entry selects that are representors of other functions (a
 * switchdev eswitch's ports): NCCL would send there.  Their names go to
 * @reps, the entry's other ports to @own ("mlx5_0:5").
 */
static void hca_rep_ports(struct node_facts *d, const struct env_list *l, size_t k, char *reps,
			  size_t rlen, char *own, size_t olen)
{
	size_t i, ro = 0, oo = 0;
	unsigned int j;

	reps[0] = own[0] = '\0';
	for (i = 0; i < d->node.n; i++) {
		const struct rdma_dev *dev = &d->node.devs[i];

		for (j = 0; j < dev->nports; j++) {
			const struct rdma_port *p = &dev->ports[j];

			if (!nccl_item_match(l, k, dev->name, (int)p->num))
				continue;
			if (fn_rep(d, p->netdev) && ro < rlen)
				ro += (size_t)snprintf(reps + ro, rlen - ro, "%s%s:%u (%s)", ro ? ", " : "",
						       dev->name, p->num, p->netdev);
			else if (!fn_rep(d, p->netdev) && oo < olen)
				oo += (size_t)snprintf(own + oo, olen - oo, "%s%s:%u", oo ? "," : "",
						       dev->name, p->num);
		}
	}
}

/* True when the entry selects representor ports (noted, the fix in @fixed). */
static bool nccl_hca_reps(struct node_facts *d, struct check_result *r, const char *val,
			  const struct env_list *l, size_t k, char *fixed, size_t flen)
{
	char reps[256], own[128], entry[ENV_NAME_MAX + 8];

	hca_rep_ports(d, l, k, reps, sizeof(reps), own, sizeof(own));
	if (!reps[0])
		return false;
	snprintf(entry, sizeof(entry), "%s", l->items[k].name);
	if (l->items[k].port > 0)
		snprintf(entry + strlen(entry), sizeof(entry) - strlen(entry), ":%d", l->items[k].port);
	check_note(r, own[0] ? CHECK_WARN : CHECK_FAIL, "NCCL_IB_HCA='%.80s': '%s' selects "
		   "representor ports %s: they stand for other functions (a DPU's host, VFs, SFs), "
		   "not for this node's traffic", val, entry, reps);
	if (own[0]) {
		check_fix(r, "export NCCL_IB_HCA=%s (the ports that are not representors)", own);
		fixed_add(fixed, flen, own, -1);
	} else {
		fixed_instead_of_rep(d, NULL, fixed, flen, false);
	}
	return true;
}

/*
 * What an entry naming no port should have named: the device it names
 * (else the closest name), with the port asked for where that device has
 * it, else its first ACTIVE port (=mlx5_1:2 on a one-port mlx5_1 is
 * mlx5_1:1, not another device's port 2).
 */
static void nccl_fix_entry(struct node_facts *d, const struct env_item *it, const char *near,
			   char *fixed, size_t flen)
{
	const struct rdma_dev *dev = rdma_dev_find(&d->node, it->name);
	unsigned int j;
	int port = it->port;

	if (!dev && near)
		dev = rdma_dev_find(&d->node, near);
	if (!dev) {
		fixed_add(fixed, flen, near, it->port);
		return;
	}
	if (port > 0 && !rdma_port_find(dev, (unsigned int)port)) {
		port = dev->nports ? (int)dev->ports[0].num : 1;
		for (j = 0; dev->ports && j < dev->nports; j++)
			if (dev->ports[j].state == 4) {
				port = (int)dev->ports[j].num;
				break;
			}
	}
	fixed_add(fixed, flen, dev->name, port);
}

/* One entry of NCCL_IB_HCA; its corrected form goes to @fixed. */
static void nccl_hca_entry(struct node_facts *d, struct check_result *r, const char *val,
			   const struct env_list *l, size_t k, const struct names *devs,
			   char *fixed, size_t flen)
{
	const struct env_item *it = &l->items[k];
	const struct rdma_dev *dev;
	char match[256], hint[128], all[256];

	entry_matches(d, l, k, match, sizeof(match));
	if (!match[0] && !l->negate && nccl_hca_netdev(d, r, val, it, fixed, flen))
		return;
	if (match[0] && !l->negate && nccl_hca_reps(d, r, val, l, k, fixed, flen))
		return;
	if (!match[0] && it->port > 0 && (dev = rdma_dev_find(&d->node, it->name))) {
		check_note(r, l->negate ? CHECK_WARN : CHECK_FAIL,
			   "NCCL_IB_HCA='%.80s': %s has no port %d", val, dev->name, it->port);
		nccl_fix_entry(d, it, NULL, fixed, flen);
		return;
	}
	if (!match[0]) {
		check_note(r, l->negate ? CHECK_WARN : CHECK_FAIL,
			   "NCCL_IB_HCA='%.80s': '%.80s' names no device%s%s; devices: %s", val, it->name,
			   it->port > 0 ? " port" : "", did_you_mean(it->name, devs, hint, sizeof(hint)),
			   names_join(devs, all, sizeof(all)));
		nccl_fix_entry(d, it, closest_word(it->name, devs->p, devs->n), fixed, flen);
		return;
	}
	fixed_add(fixed, flen, it->name, it->port);
	/* A prefix that also catches longer names: mlx5_1 selects mlx5_10. */
	if (!l->exact && strchr(match, ',') && rdma_dev_find(&d->node, it->name)) {
		check_note(r, CHECK_WARN, "NCCL_IB_HCA='%.80s': '%.80s' is a prefix and also selects %s",
			   val, it->name, match);
		check_fix(r, "export NCCL_IB_HCA='=%.80s' (a leading '=' matches whole names)", val);
	}
}

static void nccl_hca(struct node_facts *d, struct check_result *r, struct env_list *hca)
{
	const char *val = doctor_env(d, "NCCL_IB_HCA");
	char err[160], sel[256] = "", fixed[512] = "";
	struct names devs;
	size_t i, off = 0;
	unsigned int j;

	if (!val)
		return;
	if (nccl_list_parse(val, hca, err, sizeof(err))) {
		check_note(r, CHECK_FAIL, "NCCL_IB_HCA='%.80s': %s", val, err);
		check_fix(r, "export NCCL_IB_HCA=DEV[:PORT][,DEV[:PORT]...] (see rdmactl devices)");
		memset(hca, 0, sizeof(*hca));
		return;
	}
	dev_names(d, &devs);
	snprintf(fixed, sizeof(fixed), "%s%s", hca->negate ? "^" : "", hca->exact ? "=" : "");
	for (i = 0; i < hca->n; i++)
		nccl_hca_entry(d, r, val, hca, i, &devs, fixed, sizeof(fixed));
	if (r->status == CHECK_FAIL && strcmp(fixed, val) && fixed[strspn(fixed, "^=")])
		check_fix(r, "export NCCL_IB_HCA=%s", fixed);
	for (i = 0; i < d->node.n; i++)
		for (j = 0; j < d->node.devs[i].nports && off < sizeof(sel); j++)
			if (nccl_uses(hca, &d->node.devs[i], &d->node.devs[i].ports[j]))
				off += (size_t)snprintf(sel + off, sizeof(sel) - off, "%s%s:%u",
							off ? ", " : "", d->node.devs[i].name,
							d->node.devs[i].ports[j].num);
	if (!sel[0]) {
		check_note(r, CHECK_FAIL, "NCCL_IB_HCA='%.80s' selects no active port: NCCL falls back "
			   "to TCP sockets", val);
		if (!r->fix[0])
			check_fix(r, "export NCCL_IB_HCA=%s", devs.n ? devs.p[0] : "DEV");
	} else {
		check_note(r, CHECK_OK, "NCCL_IB_HCA='%.80s' selects %s", val, sel);
	}
}

/* NCCL takes interfaces with an IPv4 or IPv6 address (not ::1). */
static bool if_usable(struct node_facts *d, const char *name, char *why, size_t len)
{
	struct netdev_info info;
	char state[16] = "unknown";
	bool ok;
	int ret;

	netdev_sysfs_state(d->ctx, name, state, sizeof(state));
	if (strcmp(state, "up") && strcmp(state, "unknown")) {
		snprintf(why, len, "%s is %s", name, state);
		return false;
	}
	/* A recorded root has no addresses: the state is all we know. */
	if (d->ctx->root[0])
		return true;
	memset(&info, 0, sizeof(info));
	ret = netdev_get(d->ctx, name, &info);
	if (ret)
		return true;
	ok = info.n_addrs > 0;
	if (!ok)
		snprintf(why, len, "%s has no IP address", name);
	netdev_info_free(&info);
	return ok;
}

static void nccl_ifname(struct node_facts *d, struct check_result *r)
{
	const char *val = doctor_env(d, "NCCL_SOCKET_IFNAME");
	char err[160], hint[128], all[512], why[96] = "", sel[256] = "";
	struct env_list l;
	struct names ifs;
	size_t i, k, off = 0;

	/* NCCL ignores a one-character value. */
	if (!val || strlen(val) < 2)
		return;
	if (nccl_list_parse(val, &l, err, sizeof(err))) {
		check_note(r, CHECK_FAIL, "NCCL_SOCKET_IFNAME='%.80s': %s", val, err);
		check_fix(r, "export NCCL_SOCKET_IFNAME=IF (an interface with an address)");
		return;
	}
	if_names(d, &ifs);
	for (k = 0; k < l.n && !l.negate; k++) {
		bool hit = false;

		for (i = 0; i < ifs.n && !hit; i++)
			hit = nccl_item_match(&l, k, ifs.p[i], -1);
		if (!hit) {
			check_note(r, CHECK_FAIL, "NCCL_SOCKET_IFNAME='%.80s': no interface '%.80s'%s; "
				   "interfaces: %s", val, l.items[k].name,
				   did_you_mean(l.items[k].name, &ifs, hint, sizeof(hint)),
				   names_join(&ifs, all, sizeof(all)));
			if (closest_word(l.items[k].name, ifs.p, ifs.n))
				check_fix(r, "export NCCL_SOCKET_IFNAME=%s%s", l.exact ? "=" : "",
					  closest_word(l.items[k].name, ifs.p, ifs.n));
			else
				check_fix(r, "export NCCL_SOCKET_IFNAME=IF (an up interface with an "
					  "address)");
		}
	}
	for (i = 0; i < ifs.n; i++)
		if (nccl_list_match(&l, ifs.p[i], -1) && if_usable(d, ifs.p[i], why, sizeof(why)) &&
		    off < sizeof(sel))
			off += (size_t)snprintf(sel + off, sizeof(sel) - off, "%s%s", off ? ", " : "",
						ifs.p[i]);
	if (!sel[0] && r->status != CHECK_FAIL) {
		check_note(r, CHECK_FAIL, "NCCL_SOCKET_IFNAME='%.80s' selects no usable interface%s%s", val,
			   why[0] ? ": " : "", why);
		check_fix(r, "ip link set IF up, or export NCCL_SOCKET_IFNAME= an interface with an address");
	} else if (sel[0]) {
		check_note(r, CHECK_OK, "NCCL_SOCKET_IFNAME='%.80s' selects %s", val, sel);
	}
}

static const struct rdma_gid *port_gid(const struct rdma_port *p, unsigned int index)
{
	size_t k;

	for (k = 0; k < p->n_gids; k++)
		if (p->gids[k].index == index)
			return &p->gids[k];
	return NULL;
}

/*
 * A RoCE v2 IPv6 GID chosen on a port whose best GID (@best, NULL when
 * none) is IPv4: the job's peers are addressed by IPv4, a RoCE fabric's
 * usual family, so this rank cannot reach them.
 */
static bool ipv6_beside_ipv4(const struct rdma_gid *g, const struct rdma_gid *best)
{
	char v4[INET_ADDRSTRLEN];

	return best && best != g && gid_ipv4(best->raw, v4, sizeof(v4)) &&
	       !gid_ipv4(g->raw, v4, sizeof(v4));
}

/*
 * One RoCE port against a forced GID index (NCCL_IB_GID_INDEX,
 * UCX_IB_GID_INDEX).  @spread: the job's ports need different indexes,
 * so no one value is the fix: the variable unset is (NCCL 2.21 and UCX
 * 1.7 find each port's entry; rdmactl env says where they cannot).
 */
static void gid_index_port(struct node_facts *d, struct check_result *r, const char *var, long index,
			   const struct rdma_dev *dev, const struct rdma_port *p, bool spread)
{
	const struct rdma_gid *g = port_gid(p, (unsigned int)index);
	bool nccl = !strncmp(var, "NCCL", 4);
	struct gid_choice c;
	char gs[48], better[32] = "", drop[400];

	if (doctor_gid_choose(p, &c))
		snprintf(better, sizeof(better), " (use %u)", c.gid->index);
	if (!g) {
		check_note(r, CHECK_FAIL, "%s=%ld: %s/%u has no GID %ld%s", var, index, dev->name,
			   p->num, index, better);
	} else if (gid_is_link_local(g->raw)) {
		check_note(r, CHECK_FAIL, "%s=%ld: %s/%u GID %ld is link-local (%s), not routable and "
			   "of another family than the peers' IPv4 GIDs%s", var, index, dev->name, p->num,
			   index, gid_str(g->raw, gs, sizeof(gs)), better);
	} else if (g->type != GID_TYPE_ROCE_V2) {
		check_note(r, CHECK_FAIL, "%s=%ld: %s/%u GID %ld is RoCE %s, not v2%s", var, index,
			   dev->name, p->num, index, gid_type_str(g->type), better);
	} else if (ipv6_beside_ipv4(g, better[0] ? c.gid : NULL)) {
		/*
		 * Seen in the lab (UCX 1.13 on rxe): a rank whose index named an
		 * IPv6 GID could not address its IPv4 peers, "ibv_create_ah(...
		 * dgid=::ffff:10.99.0.1 sgid_index=1 ...) failed: Invalid
		 * argument", and the collective failed.
		 */
		check_note(r, CHECK_FAIL, "%s=%ld: %s/%u GID %ld is IPv6 (%s) where this port's IPv4 GID "
			   "is %u: the peers' IPv4 GIDs are of another family, not reachable from it "
			   "(ibv_create_ah fails)", var, index, dev->name, p->num, index,
			   gid_str(g->raw, gs, sizeof(gs)), c.gid->index);
	} else {
		check_note(r, CHECK_OK, "%s=%ld: %s/%u GID %ld is RoCE v2 %s", var, index, dev->name,
			   p->num, index, gid_str(g->raw, gs, sizeof(gs)));
		return;
	}
	doctor_env_drop(d, var, drop, sizeof(drop));
	if (better[0] && spread && doctor_env_file(d, var))
		/* The environment outranks the file: the library's own "choose" overrides it. */
		check_fix(r, "export %s=%s, or %s: the job's ports need different GID indexes, and "
			  "%s find each port's entry (see roce.gid)", var, nccl ? "-1" : "auto", drop,
			  nccl ? "NCCL 2.21 and later" : "UCX 1.7 and later");
	else if (better[0] && spread)
		check_fix(r, "%s: the job's ports need different GID indexes, and %s find "
			  "each port's entry (see roce.gid)", drop, nccl ? "NCCL 2.21 and later" :
			  "UCX 1.7 and later");
	else if (better[0])
		check_fix(r, "export %s=%u", var, c.gid->index);
	else
		check_fix(r, "%s, and give %s/%u an IPv4 address", drop, dev->name, p->num);
}

static bool ucx_uses(struct node_facts *d, const struct rdma_dev *dev, const struct rdma_port *p);

/*
 * Whether the RoCE ports a job uses (NCCL's by @hca, UCX's when NULL) need
 * different GID indexes: roce.gid's choice differs between two of them.
 */
static bool indexes_spread(struct node_facts *d, const struct env_list *hca)
{
	struct gid_choice c;
	long first = -1;
	size_t i;
	unsigned int j;

	for (i = 0; i < d->node.n; i++)
		for (j = 0; j < d->node.devs[i].nports; j++) {
			const struct rdma_dev *dev = &d->node.devs[i];
			const struct rdma_port *p = &dev->ports[j];

			if (p->link_layer != LINK_LAYER_ETHERNET || doctor_rep(d, p->netdev) ||
			    !(hca ? nccl_uses(hca, dev, p) : ucx_uses(d, dev, p)) || !doctor_gid_choose(p, &c))
				continue;
			if (first >= 0 && (long)c.gid->index != first)
				return true;
			first = c.gid->index;
		}
	return false;
}

/*
 * NCCL_IB_GID_INDEX=-1: NCCL 2.21 and later find each port's entry
 * (ncclIbGetGidIndex(), -1 became the default); before 2.21 the value is
 * passed to ibv_query_gid() as an index, which no port has, and NCCL
 * fails to open the device.
 */
static void nccl_gid_auto(struct node_facts *d, struct check_result *r, const struct env_list *hca)
{
	const struct rdma_port *p = NULL;
	struct gid_choice c;
	char drop[400];
	size_t i;
	unsigned int j;

	doctor_find_nccl(d);
	if (d->nccl_version <= 0 || d->nccl_version >= 22100) {
		check_note(r, CHECK_OK, "NCCL_IB_GID_INDEX=-1: NCCL 2.21 and later find each port's "
			   "entry themselves");
		return;
	}
	check_note(r, CHECK_FAIL, "NCCL_IB_GID_INDEX=-1: NCCL %d.%d.%d (%s), older than 2.21, "
		   "reads it as GID index -1, which no port has (ibv_query_gid fails), not as "
		   "'choose'", d->nccl_version / 10000, d->nccl_version / 100 % 100,
		   d->nccl_version % 100, d->nccl_lib);
	for (i = 0; !p && i < d->node.n; i++)
		for (j = 0; !p && j < d->node.devs[i].nports; j++)
			if (d->node.devs[i].ports[j].link_layer == LINK_LAYER_ETHERNET &&
			    nccl_uses(hca, &d->node.devs[i], &d->node.devs[i].ports[j]))
				p = &d->node.devs[i].ports[j];
	if (p && !indexes_spread(d, hca) && doctor_gid_choose(p, &c))
		check_fix(r, "export NCCL_IB_GID_INDEX=%u", c.gid->index);
	else
		check_fix(r, "%s, and install NCCL 2.21 or later (see roce.gid)",
			  doctor_env_drop(d, "NCCL_IB_GID_INDEX", drop, sizeof(drop)));
}

static void nccl_gid_index(struct node_facts *d, struct check_result *r, const struct env_list *hca)
{
	const char *val = doctor_env(d, "NCCL_IB_GID_INDEX");
	char drop[400], read[48] = "";
	long long index;
	size_t i;
	unsigned int j;
	bool spread;
	int ret;

	if (!val)
		return;
	ret = nccl_parse_int(val, &index);
	if (ret == -EINVAL)
		snprintf(read, sizeof(read), ": NCCL reads it as %lld", index);
	if (ret || index < -1 || index > 255) {
		check_note(r, CHECK_FAIL, "NCCL_IB_GID_INDEX='%.80s' is not a GID index (0-255, or -1 "
			   "to let NCCL 2.21+ choose)%s", val, read);
		check_fix(r, "%s (see roce.gid for the index to use)",
			  doctor_env_drop(d, "NCCL_IB_GID_INDEX", drop, sizeof(drop)));
		return;
	}
	/* "0x5" and "010": NCCL reads them as numbers of base 16 and 8. */
	if (strspn(val, "-0123456789") != strlen(val) || (val[0] == '0' && val[1]))
		check_note(r, CHECK_OK, "NCCL_IB_GID_INDEX='%.80s' is %lld to NCCL (strtoll, base 0)",
			   val, index);
	if (index < 0) {
		nccl_gid_auto(d, r, hca);
		return;
	}
	spread = indexes_spread(d, hca);
	for (i = 0; i < d->node.n; i++)
		for (j = 0; j < d->node.devs[i].nports; j++) {
			const struct rdma_port *p = &d->node.devs[i].ports[j];

			if (p->link_layer == LINK_LAYER_ETHERNET && nccl_uses(hca, &d->node.devs[i], p))
				gid_index_port(d, r, "NCCL_IB_GID_INDEX", (long)index, &d->node.devs[i], p,
					       spread);
		}
}

static void nccl_disable(struct node_facts *d, struct check_result *r)
{
	const char *val = doctor_env(d, "NCCL_IB_DISABLE");
	long v;

	if (!val)
		return;
	if (env_parse_long(val, 0, 1, &v)) {
		check_note(r, CHECK_FAIL, "NCCL_IB_DISABLE='%.80s' is neither 0 nor 1", val);
		check_fix(r, "unset NCCL_IB_DISABLE");
	} else if (v == 1) {
		check_note(r, CHECK_WARN, "NCCL_IB_DISABLE=1: NCCL uses TCP sockets, not RDMA "
			   "(tens of ms per step instead of a few)");
		check_fix(r, "unset NCCL_IB_DISABLE");
	}
}

/* The GID table of @p as NCCL reads it, index by index. */
static size_t nccl_table(const struct rdma_port *p, struct nccl_gid *tbl, size_t cap)
{
	size_t k, n = 0;

	memset(tbl, 0, cap * sizeof(*tbl));
	for (k = 0; k < cap; k++)
		tbl[k].roce_ver = -1;
	for (k = 0; k < p->n_gids; k++) {
		const struct rdma_gid *g = &p->gids[k];

		if (g->index >= cap)
			continue;
		memcpy(tbl[g->index].raw, g->raw, 16);
		tbl[g->index].roce_ver = g->type == GID_TYPE_ROCE_V2 ? 2 :
					 g->type == GID_TYPE_ROCE_V1 ? 1 : -1;
		if (g->index + 1 > n)
			n = g->index + 1;
	}
	if (p->gid_tbl_len > 0 && (size_t)p->gid_tbl_len > n)
		n = (size_t)p->gid_tbl_len < cap ? (size_t)p->gid_tbl_len : cap;
	return n;
}

int doctor_nccl_auto(const struct rdma_port *p)
{
	struct nccl_gid tbl[256];
	size_t n = nccl_table(p, tbl, 256);

	return nccl_auto_gid_index(tbl, n, AF_INET, 2, NULL);
}

struct nccl_sel {
	int family, roce_ver;
	struct nccl_range range;
	bool have_range;
	char what[192];		/* "NCCL_IB_ADDR_FAMILY=AF_INET6, ..." for messages */
};

/* Parse the three selection variables; false (noted) when one is bad. */
static bool nccl_sel_parse(struct node_facts *d, struct check_result *r, struct nccl_sel *s)
{
	const char *fam = doctor_env(d, "NCCL_IB_ADDR_FAMILY"), *ver = doctor_env(d, "NCCL_IB_ROCE_VERSION_NUM"),
		   *range = doctor_env(d, "NCCL_IB_ADDR_RANGE");
	char err[160];
	long v = 2;
	size_t off = 0;

	s->family = AF_INET;
	if (fam && nccl_addr_family_parse(fam, &s->family)) {
		check_note(r, CHECK_FAIL, "NCCL_IB_ADDR_FAMILY='%.80s' is neither AF_INET nor AF_INET6 "
			   "(NCCL silently uses AF_INET)", fam);
		check_fix(r, "export NCCL_IB_ADDR_FAMILY=AF_INET");
		return false;
	}
	if (ver && env_parse_long(ver, 1, 2, &v)) {
		check_note(r, CHECK_FAIL, "NCCL_IB_ROCE_VERSION_NUM='%.80s' is neither 1 nor 2", ver);
		check_fix(r, "export NCCL_IB_ROCE_VERSION_NUM=2");
		return false;
	}
	s->roce_ver = (int)v;
	s->have_range = range != NULL;
	if (range && nccl_addr_range_parse(range, s->family, &s->range, err, sizeof(err))) {
		check_note(r, CHECK_FAIL, "NCCL_IB_ADDR_RANGE='%.80s': %s", range, err);
		check_fix(r, "export NCCL_IB_ADDR_RANGE=ADDRESS/PREFIXLEN of the RoCE subnet");
		return false;
	}
	s->what[0] = '\0';
	if (fam)
		off += (size_t)snprintf(s->what + off, sizeof(s->what) - off, "NCCL_IB_ADDR_FAMILY=%s", fam);
	if (ver && off < sizeof(s->what))
		off += (size_t)snprintf(s->what + off, sizeof(s->what) - off, "%sNCCL_IB_ROCE_VERSION_NUM=%s",
					off ? ", " : "", ver);
	if (range && off < sizeof(s->what))
		snprintf(s->what + off, sizeof(s->what) - off, "%sNCCL_IB_ADDR_RANGE=%s",
			 off ? ", " : "", range);
	return true;
}

/* Whether NCCL's pick on @p is one the variables asked for. */
static void nccl_sel_port(struct check_result *r, const struct nccl_sel *s,
			  const struct rdma_dev *dev, const struct rdma_port *p)
{
	struct nccl_gid tbl[256];
	size_t n = nccl_table(p, tbl, 256);
	char gs[48], v4[INET_ADDRSTRLEN];
	int idx = nccl_auto_gid_index(tbl, n, s->family, s->roce_ver,
				      s->have_range ? &s->range : NULL);
	const struct nccl_gid *g = &tbl[idx];
	bool fam_ok = gid_ipv4(g->raw, v4, sizeof(v4)) == (s->family == AF_INET);

	if (fam_ok && g->roce_ver == s->roce_ver && !gid_is_link_local(g->raw) &&
	    !gid_is_empty(g->raw) && (!s->have_range || nccl_range_match(&s->range, g->raw))) {
		check_note(r, CHECK_OK, "%s: NCCL picks %s/%u GID %d (%s)", s->what, dev->name, p->num,
			   idx, gid_str(g->raw, gs, sizeof(gs)));
		return;
	}
	check_note(r, CHECK_FAIL, "%s: no GID of %s/%u fits, so NCCL falls back to GID %d (%s, %s)",
		   s->what, dev->name, p->num, idx, gid_str(g->raw, gs, sizeof(gs)),
		   g->roce_ver == 2 ? "RoCE v2" : g->roce_ver == 1 ? "RoCE v1" : "type unknown");
	check_fix(r, "unset NCCL_IB_ADDR_FAMILY NCCL_IB_ROCE_VERSION_NUM NCCL_IB_ADDR_RANGE, or "
		  "set them to what 'rdmactl gids' shows");
}

static void nccl_selection(struct node_facts *d, struct check_result *r, const struct env_list *hca)
{
	struct nccl_sel s;
	size_t i;
	unsigned int j;

	if (!doctor_env(d, "NCCL_IB_ADDR_FAMILY") && !doctor_env(d, "NCCL_IB_ROCE_VERSION_NUM") &&
	    !doctor_env(d, "NCCL_IB_ADDR_RANGE"))
		return;
	if (!nccl_sel_parse(d, r, &s))
		return;
	if (doctor_env(d, "NCCL_IB_GID_INDEX")) {
		check_note(r, CHECK_WARN, "%s has no effect: NCCL_IB_GID_INDEX is set", s.what);
		check_fix(r, "unset NCCL_IB_GID_INDEX, or the selection variables");
		return;
	}
	for (i = 0; i < d->node.n; i++)
		for (j = 0; j < d->node.devs[i].nports; j++) {
			const struct rdma_port *p = &d->node.devs[i].ports[j];

			if (p->link_layer == LINK_LAYER_ETHERNET && nccl_uses(hca, &d->node.devs[i], p))
				nccl_sel_port(r, &s, &d->node.devs[i], p);
		}
}

void check_env_nccl(struct node_facts *d, struct check_result *r)
{
	struct env_list hca;

	if (DOCTOR_FOR_UCX(d) || d->target == JOB_PERFTEST) {
		check_skip(r, "--for %s: NCCL's variables do not apply", job_kind_name(d->target));
		return;
	}
	if (!any_set(d, nccl_vars)) {
		if (d->target == JOB_NCCL)
			check_note(r, CHECK_OK, "no NCCL_IB_*/NCCL_SOCKET_IFNAME set: NCCL chooses itself");
		else
			check_skip(r, "no NCCL_* variable set (--for nccl checks NCCL anyway)");
		return;
	}
	memset(&hca, 0, sizeof(hca));
	note_files(d, r, nccl_vars);
	nccl_disable(d, r);
	nccl_hca(d, r, &hca);
	nccl_ifname(d, r);
	nccl_gid_index(d, r, &hca);
	nccl_selection(d, r, &hca);
}

/* ---- UCX ---- */

/* A "dev:port" entry of UCX_NET_DEVICES; its corrected form goes to @fixed. */
static void ucx_rdma_entry(struct node_facts *d, struct check_result *r, const struct env_item *it,
			   const struct names *devs, char *fixed, size_t flen)
{
	const struct rdma_dev *dev = rdma_dev_find(&d->node, it->name);
	const struct rdma_port *p = dev ? rdma_port_find(dev, (unsigned int)it->port) : NULL;
	char hint[128], all[256];

	if (!dev) {
		check_note(r, CHECK_FAIL, "no RDMA device '%.80s'%s; devices: %s", it->name,
			   did_you_mean(it->name, devs, hint, sizeof(hint)),
			   names_join(devs, all, sizeof(all)));
		fixed_add(fixed, flen, closest_word(it->name, devs->p, devs->n), it->port);
	} else if (!p) {
		check_note(r, CHECK_FAIL, "%s has no port %d", it->name, it->port);
		fixed_add(fixed, flen, it->name, dev->nports ? (int)dev->ports[0].num : 1);
	} else if (fn_rep(d, p->netdev)) {
		check_note(r, CHECK_FAIL, "%s:%d is a representor port (%s, %s): it stands for "
			   "that function, not for this node's traffic", it->name, it->port, p->netdev,
			   rep_describe(fn_rep(d, p->netdev), hint, sizeof(hint)));
		fixed_instead_of_rep(d, fn_rep(d, p->netdev), fixed, flen, true);
	} else if (p->state != 4) {
		check_note(r, CHECK_FAIL, "%s:%d is %s (see the ports check)", it->name, it->port,
			   port_state_str(p->state));
		fixed_add(fixed, flen, it->name, it->port);
	} else {
		check_note(r, CHECK_OK, "%s:%d is ACTIVE", it->name, it->port);
		fixed_add(fixed, flen, it->name, it->port);
	}
}

/*
 * What an interface in UCX_NET_DEVICES is besides: a representor (wrong:
 * true, noted), a netdev without an RDMA device (UCX runs only TCP on it:
 * a warning, false), or an RDMA port's netdev (false).
 */
static bool ucx_netdev_role(struct node_facts *d, struct check_result *r, const struct env_item *it,
			    char *fixed, size_t flen)
{
	const struct rdma_dev *dev = NULL;
	const struct rep *rep = fn_rep(d, it->name);
	char what[64];

	if (rep) {
		check_note(r, CHECK_FAIL, "'%.80s' is the representor of %s: a switch port standing "
			   "for that function, not this node's interface", it->name,
			   rep_describe(rep, what, sizeof(what)));
		fixed_instead_of_rep(d, rep, fixed, flen, true);
		return true;
	}
	if (rdma_port_by_netdev(&d->node, it->name, &dev))
		return false;
	check_note(r, CHECK_WARN, "interface %s has no RDMA device behind it: UCX uses only TCP on it",
		   it->name);
	check_fix(r, "add the RDMA device and port to UCX_NET_DEVICES (DEV:PORT, see rdmactl devices)");
	return false;
}

/* A name without a port: a network interface (UCX's TCP transport). */
static void ucx_netdev_entry(struct node_facts *d, struct check_result *r, const struct env_item *it,
			     const struct names *ifs, char *fixed, size_t flen)
{
	char hint[128], state[16] = "unknown", all[512];
	const struct rdma_dev *dev = rdma_dev_find(&d->node, it->name);
	size_t i;
	bool found = false;

	for (i = 0; i < ifs->n && !found; i++)
		found = !strcmp(ifs->p[i], it->name);
	if (found && ucx_netdev_role(d, r, it, fixed, flen))
		return;
	if (found) {
		fixed_add(fixed, flen, it->name, -1);
		netdev_sysfs_state(d->ctx, it->name, state, sizeof(state));
		if (!strcmp(state, "up") || !strcmp(state, "unknown")) {
			check_note(r, CHECK_OK, "interface %s is up", it->name);
		} else {
			check_note(r, CHECK_FAIL, "interface %s is %s", it->name, state);
			check_fix(r, "ip link set %s up", it->name);
		}
	} else if (dev) {
		check_note(r, CHECK_FAIL, "UCX names RDMA devices with their port: '%.80s' matches "
			   "nothing", it->name);
		fixed_add(fixed, flen, it->name, dev->nports ? (int)dev->ports[0].num : 1);
	} else {
		check_note(r, CHECK_FAIL, "no interface or RDMA device '%.80s'%s; interfaces: %s", it->name,
			   did_you_mean(it->name, ifs, hint, sizeof(hint)), names_join(ifs, all, sizeof(all)));
		fixed_add(fixed, flen, closest_word(it->name, ifs->p, ifs->n), -1);
	}
}

/*
 * A UCX_NET_DEVICES of interfaces alone: UCX's InfiniBand/RoCE transports
 * name their devices DEV:PORT, so only its tcp transport runs, even on an
 * RDMA port's netdev.  The job's choice (env leaves it), said as
 * NCCL_IB_DISABLE=1 is, with the RDMA ports behind those interfaces.
 */
static void ucx_tcp_alone(struct node_facts *d, struct check_result *r, const struct env_list *l)
{
	const struct rdma_dev *dev;
	const struct rdma_port *p;
	char behind[256] = "";
	size_t k, off = 0;

	for (k = 0; k < l->n; k++)
		if (l->items[k].port > 0)
			return;
	for (k = 0; k < l->n && off < sizeof(behind); k++)
		if ((p = rdma_port_by_netdev(&d->node, l->items[k].name, &dev)) && p->state == 4)
			off += (size_t)snprintf(behind + off, sizeof(behind) - off, "%s%s:%u",
						off ? "," : "", dev->name, p->num);
	if (!behind[0])
		return;
	check_note(r, CHECK_WARN, "UCX_NET_DEVICES names interfaces and no RDMA port: UCX runs "
		   "its TCP transport alone, not RDMA (its RDMA transports name ports as DEV:PORT)");
	check_fix(r, "add %s to UCX_NET_DEVICES for RDMA (or leave it for TCP)", behind);
}

static void ucx_devices(struct node_facts *d, struct check_result *r)
{
	const char *val = doctor_env(d, "UCX_NET_DEVICES");
	char err[160], fixed[512] = "";
	struct names devs, ifs;
	struct env_list l;
	bool all;
	size_t k;

	if (!val)
		return;
	if (ucx_list_parse(val, &l, &all, err, sizeof(err))) {
		check_note(r, CHECK_FAIL, "UCX_NET_DEVICES='%.80s': %s", val, err);
		check_fix(r, "export UCX_NET_DEVICES=DEV:PORT[,IF...] (or all)");
		return;
	}
	if (all) {
		check_note(r, CHECK_OK, "UCX_NET_DEVICES=all");
		return;
	}
	dev_names(d, &devs);
	if_names(d, &ifs);
	check_note(r, CHECK_OK, "UCX_NET_DEVICES='%.80s'", val);
	for (k = 0; k < l.n; k++) {
		if (l.items[k].port > 0)
			ucx_rdma_entry(d, r, &l.items[k], &devs, fixed, sizeof(fixed));
		else
			ucx_netdev_entry(d, r, &l.items[k], &ifs, fixed, sizeof(fixed));
	}
	if (r->status == CHECK_FAIL && strcmp(fixed, val))
		check_fix(r, "export UCX_NET_DEVICES=%s", fixed[0] ? fixed : "all");
	else
		ucx_tcp_alone(d, r, &l);
}

/*
 * The ports UCX opens: the ACTIVE ones, only those UCX_NET_DEVICES names
 * when it names any (a bad value counts as none: ucx_devices() says so).
 */
static bool ucx_uses(struct node_facts *d, const struct rdma_dev *dev, const struct rdma_port *p)
{
	struct ucx_tls t;

	ucx_tls_parse(doctor_env(d, "UCX_TLS"), &t);
	return t.rdma && p->state == 4 &&
	       ucx_list_selects(doctor_env(d, "UCX_NET_DEVICES"), dev->name, (int)p->num);
}

/*
 * UCX_TLS: one without an InfiniBand/RoCE transport (rc, ud, dc) is the
 * job's choice of TCP or shared memory, said as NCCL_IB_DISABLE=1 is.
 */
static void ucx_tls(struct node_facts *d, struct check_result *r)
{
	const char *val = doctor_env(d, "UCX_TLS");
	struct ucx_tls t;

	if (!val)
		return;
	ucx_tls_parse(val, &t);
	if (t.rdma) {
		check_note(r, CHECK_OK, "UCX_TLS='%.80s' enables RDMA%s", val, t.tcp ? " and TCP" : "");
		return;
	}
	check_note(r, CHECK_WARN, "UCX_TLS='%.80s' enables no RDMA transport (rc, ud, dc): UCX runs "
		   "over %s, not RDMA", val, t.tcp ? "TCP sockets" : "shared memory alone (one node)");
	check_fix(r, "unset UCX_TLS, or add rc (or ud, dc) to it");
}

static void ucx_gid_index(struct node_facts *d, struct check_result *r)
{
	const char *val = doctor_env(d, "UCX_IB_GID_INDEX");
	size_t i;
	unsigned int j;
	long index;
	bool spread;

	if (!val || !strcmp(val, "auto"))
		return;
	if (env_parse_long(val, 0, 255, &index)) {
		check_note(r, CHECK_FAIL, "UCX_IB_GID_INDEX='%.80s' is not a GID index (0-255 or auto)", val);
		check_fix(r, "export UCX_IB_GID_INDEX=auto");
		return;
	}
	spread = indexes_spread(d, NULL);
	for (i = 0; i < d->node.n; i++)
		for (j = 0; j < d->node.devs[i].nports; j++)
			if (d->node.devs[i].ports[j].link_layer == LINK_LAYER_ETHERNET &&
			    ucx_uses(d, &d->node.devs[i], &d->node.devs[i].ports[j]))
				gid_index_port(d, r, "UCX_IB_GID_INDEX", index, &d->node.devs[i],
					       &d->node.devs[i].ports[j], spread);
}

void check_env_ucx(struct node_facts *d, struct check_result *r)
{
	if (d->target == JOB_NCCL || d->target == JOB_PERFTEST) {
		check_skip(r, "--for %s: UCX's variables do not apply", job_kind_name(d->target));
		return;
	}
	if (!any_set(d, ucx_vars)) {
		if (DOCTOR_FOR_UCX(d))
			check_note(r, CHECK_OK, "UCX_NET_DEVICES and UCX_IB_GID_INDEX unset: UCX uses "
				   "every device and picks the GID itself");
		else
			check_skip(r, "no UCX_NET_DEVICES or UCX_IB_GID_INDEX set (--for ucx checks UCX anyway)");
		return;
	}
	note_files(d, r, ucx_vars);
	ucx_tls(d, r);
	ucx_devices(d, r);
	ucx_gid_index(d, r);
}
