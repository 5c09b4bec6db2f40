// SPDX-License-Identifier: MIT
/*
 * The doctor's check table and its runner.  The checks are check_*.c's
 * (checks.h) and what they write with is check.c's: the table names the
 * checks, and nothing here is called back by them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/opt.h"
#include "base/output.h"
#include "base/sysfs.h"
#include "doctor/checks.h"
#include "doctor/doctor.h"

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
