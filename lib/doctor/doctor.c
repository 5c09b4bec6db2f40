// SPDX-License-Identifier: MIT
/* The doctor's check table, its runner, and helpers the checks share. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/opt.h"
#include "base/output.h"
#include "base/sysfs.h"
#include "base/text.h"
#include "doctor/doctor.h"
#include "node/versions.h"

/* Stable IDs: scripts select them with --only/--skip. Keep them once shipped. */
const struct check doctor_checks[] = {
	{ .id = "devices", .fn = check_devices, .node = true,
	  .desc = "RDMA devices present; if none, why (driver, Soft-RoCE link, provider library, container)" },
	{ .id = "ports", .fn = check_ports, .node = true,
	  .desc = "every port ACTIVE and LinkUp; a down port named with its netdev's state" },
	{ .id = "roce.ipv4", .fn = check_roce_ipv4, .node = true,
	  .desc = "each RoCE port's netdev has an IPv4 address (else only link-local GIDs)" },
	{ .id = "roce.gid", .fn = check_roce_gid, .node = true,
	  .desc = "a routable RoCE v2 GID exists; its index, and whether NCCL would find it alone" },
	{ .id = "mtu", .fn = check_mtu, .node = true,
	  .desc = "the netdev MTU lets RoCE use a 4096-byte RDMA MTU; with --peer, both ends agree" },
	{ .id = "memlock.shell", .fn = check_memlock_shell,
	  .desc = "locked-memory limit of this shell (ulimit -l)" },
	{ .id = "memlock.login", .fn = check_memlock_login,
	  .desc = "locked-memory limit of PAM logins (limits.conf, limits.d)" },
	{ .id = "memlock.systemd", .fn = check_memlock_systemd,
	  .desc = "locked-memory limit of systemd services (DefaultLimitMEMLOCK)" },
	{ .id = "firewall", .fn = check_firewall,
	  .desc = "firewalld, nftables and iptables rules against RoCE v2 (UDP 4791) and the TCP ports" },
	{ .id = "env.nccl", .fn = check_env_nccl, .node = true,
	  .desc = "NCCL_* variables name devices, interfaces and GIDs that exist" },
	{ .id = "env.ucx", .fn = check_env_ucx, .node = true,
	  .desc = "UCX_NET_DEVICES and UCX_IB_GID_INDEX name devices and GIDs that exist" },
	{ .id = "ucx.ud_dgid", .fn = check_ucx_ud_dgid, .node = true,
	  .desc = "UCX before 1.19 on a RoCE device other than mlx5 with an IPv4 GID drops every UD packet unless UCX_UD_VERBS_ETH_DGID_CHECK=n" },
	{ .id = "functions", .fn = check_functions, .node = true,
	  .desc = "SR-IOV VFs and SFs have their driver bound and SFs are active; no VF sits on a PF that is down" },
	{ .id = "gpudirect", .fn = check_gpudirect,
	  .desc = "with an NVIDIA driver, nvidia-peermem loaded or DMA-BUF usable" },
	{ .id = "versions", .fn = check_versions,
	  .desc = "kernel, rdma-core and OFED versions; with --peer, the same on both ends" },
	{ .id = "peer", .fn = check_peer,
	  .desc = "with --peer: control connection, route, subnet, MTUs, then a short RDMA probe" },
	{ 0 }
};

size_t doctor_count(void)
{
	size_t n = 0;

	while (doctor_checks[n].id)
		n++;
	return n;
}

/*
 * A note that does not fit (a long --peer name) is cut in its middle, so
 * that what was found about it, at its end, survives.
 */
static void append(char *buf, size_t len, const char *fmt, va_list ap)
{
	size_t off = strlen(buf);
	char *text = NULL;

	if (off && off + 2 < len) {
		memcpy(buf + off, "; ", 3);
		off += 2;
	}
	if (off + 16 > len)
		return;
	if (vasprintf(&text, fmt, ap) < 0) {
		snprintf(buf + off, len - off, "%s", fmt);
		return;
	}
	if (strlen(text) < len - off)
		memcpy(buf + off, text, strlen(text) + 1);
	else
		text_safe(text, buf + off, len - off, TEXT_KEEP_NL);
	free(text);
}

static void appendf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	append(buf, len, fmt, ap);
	va_end(ap);
}

/* True when @items, "; " between them, already holds @item whole. */
static bool has_item(const char *items, const char *item)
{
	size_t n = strlen(item);
	const char *at;

	for (at = strstr(items, item); at; at = strstr(at + 1, item))
		if ((at == items || !strncmp(at - 2, "; ", 2)) && (!at[n] || !strncmp(at + n, "; ", 2)))
			return true;
	return false;
}

/*
 * A note is said once: what holds for the node ("NCCL 2.21.5 finds it
 * itself") would otherwise be repeated after each port a check looks at.
 */
void check_note(struct check_result *r, enum check_status status, const char *fmt, ...)
{
	va_list ap;
	char *text = NULL;
	int n;

	if (r->status == CHECK_SKIP)
		return;
	if (status > r->status && status != CHECK_SKIP)
		r->status = status;
	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		va_start(ap, fmt);
		append(r->found, sizeof(r->found), fmt, ap);
		va_end(ap);
		return;
	}
	if (!has_item(r->found, text))
		appendf(r->found, sizeof(r->found), "%s", text);
	free(text);
}

/*
 * A fix is given once: the same rule can block several of the ports a
 * check looks at, and deleting it twice would fail the second time.
 */
void check_fix(struct check_result *r, const char *fmt, ...)
{
	va_list ap;
	char *text = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (!has_item(r->fix, text))
		appendf(r->fix, sizeof(r->fix), "%s", text);
	free(text);
}

void check_skip(struct check_result *r, const char *fmt, ...)
{
	va_list ap;

	r->status = CHECK_SKIP;
	r->fix[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(r->found, sizeof(r->found), fmt, ap);
	va_end(ap);
}

/* ---- --only / --skip ---- */

/* "memlock" names memlock.shell and the other memlock.* checks. */
static bool id_covers(const char *word, size_t len, const char *id)
{
	return !strncmp(id, word, len) && (id[len] == '\0' || id[len] == '.');
}

size_t doctor_ids(const char **ids, size_t max)
{
	static const char *const groups[] = { "roce", "memlock", "env", "ucx" };
	size_t i, n = 0;

	/* Group names are IDs too ("memlock" for memlock.*): first. */
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]) && n < max; i++)
		ids[n++] = groups[i];
	for (i = 0; doctor_checks[i].id && n < max; i++)
		ids[n++] = doctor_checks[i].id;
	return n;
}

static int select_word(const struct ctx *ctx, const char *word, size_t len, const char *opt,
		       bool *sel)
{
	const char *ids[64];
	char w[64];
	size_t i, n = doctor_ids(ids, 64);
	bool hit = false;

	for (i = 0; doctor_checks[i].id; i++) {
		if (id_covers(word, len, doctor_checks[i].id)) {
			sel[i] = true;
			hit = true;
		}
	}
	if (hit)
		return 0;
	snprintf(w, sizeof(w), "%.*s", (int)(len < 63 ? len : 63), word);
	if (closest_word(w, ids, n))
		log_err(ctx, "Unknown check '%s' in --%s. Did you mean '%s'? ('rdmactl doctor --list' lists them)",
			w, opt, closest_word(w, ids, n));
	else
		log_err(ctx, "Unknown check '%s' in --%s. 'rdmactl doctor --list' lists the checks.",
			w, opt);
	return -EINVAL;
}

int doctor_select(const struct ctx *ctx, const char *list, const char *opt, bool *sel)
{
	const char *p = list;

	if (!*list) {
		log_err(ctx, "Failed to read --%s: the list of check IDs is empty", opt);
		return -EINVAL;
	}
	while (*p) {
		size_t len = strcspn(p, ",");

		if (!len || select_word(ctx, p, len, opt, sel)) {
			if (!len)
				log_err(ctx, "Failed to read --%s '%s': empty check ID", opt, list);
			return -EINVAL;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* ---- running ---- */

static void add_problem(char *buf, size_t len, const char *id)
{
	size_t off = strlen(buf);

	snprintf(buf + off, len - off, "%s%s", off ? ", " : "", id);
}

/*
 * Files the check's verdict would rest on could not be read (warnings
 * @from..@to of ctx->warnings): it fails with what could not be read,
 * instead of a verdict built on missing data ("check the cable" for a
 * port state nobody could read).
 */
static void unread(const struct doctor *d, struct check_result *r, size_t from, size_t to)
{
	struct json_object *w = json_object_array_get_idx(d->ctx->warnings, from), *p, *e;

	if (!w || !json_object_object_get_ex(w, "path", &p) ||
	    !json_object_object_get_ex(w, "error", &e))
		return;
	memset(r, 0, sizeof(*r));
	check_note(r, CHECK_FAIL, "cannot read %s: %s%s", json_object_get_string(p),
		  json_object_get_string(e), to - from > 1 ? " (and more: see the warnings)" : "");
	check_fix(r, "%s", strstr(json_object_get_string(e), "run as root")
			       ? "run rdmactl doctor as root"
			       : "make the file readable, or record the node again (rdmactl snapshot)");
}

void doctor_run(struct doctor *d, const bool *sel, struct table *t, struct doctor_counts *c)
{
	struct check_result *r;
	size_t i, before;

	memset(c, 0, sizeof(*c));
	r = malloc(sizeof(*r));
	if (!r)
		return;
	for (i = 0; doctor_checks[i].id; i++) {
		struct json_object *row;

		if (!sel[i])
			continue;
		memset(r, 0, sizeof(*r));
		before = read_warnings(d->ctx);
		doctor_checks[i].fn(d, r);
		if (doctor_checks[i].node && d->node_warnings)
			unread(d, r, 0, d->node_warnings);
		if (read_warnings(d->ctx) > before)
			unread(d, r, before, read_warnings(d->ctx));
		if (r->status == CHECK_OK && !r->found[0])
			snprintf(r->found, sizeof(r->found), "nothing to check");
		row = table_row(t);
		row_str(row, DOC_STATUS, check_status_str(r->status));
		row_str(row, DOC_ID, doctor_checks[i].id);
		row_str(row, DOC_FOUND, r->found);
		row_str(row, DOC_FIX, r->status == CHECK_OK || r->status == CHECK_SKIP || !r->fix[0]
					    ? NULL : r->fix);
		c->n[r->status]++;
		if (r->status == CHECK_FAIL || r->status == CHECK_WARN)
			add_problem(c->problems, sizeof(c->problems), doctor_checks[i].id);
	}
	free(r);
}

/* ---- helpers for the checks ---- */

const char *doctor_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

const char *doctor_for_str(enum doctor_for f)
{
	static const char *const names[] = {
		[FOR_ANY] = "", [FOR_NCCL] = "nccl", [FOR_UCX] = "ucx", [FOR_PERFTEST] = "perftest",
		[FOR_MPI] = "mpi",
	};

	return (unsigned int)f < sizeof(names) / sizeof(names[0]) ? names[f] : "";
}

void doctor_find_nccl(struct doctor *d)
{
	if (!d->nccl_version)
		d->nccl_version = nccl_find(d->ctx, d->nccl_lib, sizeof(d->nccl_lib));
}

const struct ucx_install *doctor_ucx(struct doctor *d)
{
	if (!d->ucx_loaded) {
		d->ucx_loaded = true;
		ucx_find(d->ctx, &d->ucx);
	}
	return &d->ucx;
}

const struct fn_node *doctor_fns(struct doctor *d)
{
	int ret;

	if (!d->fns_loaded && !d->node_err) {
		d->fns_loaded = true;
		ret = fn_load(d->ctx, &d->node, &d->fns);
		if (ret)
			log_warn(d->ctx, "Failed to read the PCI functions of the RDMA devices: %s",
				 strerror(-ret));
	}
	return &d->fns;
}

const struct rep *doctor_rep(struct doctor *d, const char *netdev)
{
	return rep_of_netdev(doctor_fns(d), netdev);
}

const struct rdma_netns *doctor_netns(struct doctor *d)
{
	if (!d->ns_loaded) {
		d->ns_loaded = true;
		rdma_netns_load(d->ctx, &d->node, &d->ns);
	}
	return &d->ns;
}

void doctor_free(struct doctor *d)
{
	fn_free(&d->fns);
	d->fns_loaded = false;
}
