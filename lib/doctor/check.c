// SPDX-License-Identifier: MIT
/*
 * What the checks write with (check_note(), check_fix(), check_skip()) and
 * the node's facts they load on first use (check.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/sysfs.h"
#include "base/text.h"
#include "doctor/check.h"
#include "node/limits.h"
#include "node/rdma_load.h"
#include "node/versions.h"

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

/* ---- the node's facts, loaded on first use ---- */

/* The directory of the libucp.so.0 a job would load, or "" (UCX reads ../etc/ucx/ucx.conf there). */
static const char *ucx_libdir(struct node_facts *d, char *buf, size_t len)
{
	const char *lib = doctor_ucx(d)->lib, *slash = strrchr(lib, '/');

	snprintf(buf, len, "%.*s", slash ? (int)(slash - lib) : 0, lib);
	return buf;
}

/* @name's entry of the cache, resolved on first use; NULL when the cache is full. */
static struct doctor_setting *setting(struct node_facts *d, const char *name)
{
	struct doctor_setting *ds;
	char dir[4096];
	size_t i;

	for (i = 0; i < d->n_settings; i++)
		if (!strcmp(d->settings[i].s.name, name))
			return &d->settings[i];
	if (d->n_settings == DOCTOR_SETTINGS || strlen(name) >= sizeof(ds->s.name))
		return NULL;
	ds = &d->settings[d->n_settings++];
	memset(ds, 0, sizeof(*ds));
	ds->env = getenv(name);
	if (!ds->env && !strncmp(name, "NCCL_", 5)) {
		limits_user_home(d->ctx, dir, sizeof(dir));
		ds->in_file = nccl_conf_setting(d->ctx, dir, name, &ds->s);
	} else if (!ds->env && !strncmp(name, "UCX_", 4) && doctor_ucx(d)->version >= 0) {
		/* Without UCX installed, nothing reads its files. */
		ds->in_file = ucx_conf_setting(d->ctx, ucx_libdir(d, dir, sizeof(dir)), name, &ds->s);
	}
	snprintf(ds->s.name, sizeof(ds->s.name), "%s", name);
	return ds;
}

const char *doctor_env(struct node_facts *d, const char *name)
{
	struct doctor_setting *ds = d ? setting(d, name) : NULL;
	const char *v = ds ? ds->env : getenv(name);

	if (ds && ds->in_file && !ds->overridden)
		v = ds->s.value;
	return v && *v ? v : NULL;
}

const char *doctor_env_file(struct node_facts *d, const char *name)
{
	struct doctor_setting *ds = d ? setting(d, name) : NULL;

	return ds && ds->in_file && !ds->overridden && ds->s.value[0] ? ds->s.where : NULL;
}

void doctor_env_override(struct node_facts *d, const char *name, bool on)
{
	struct doctor_setting *ds = setting(d, name);

	if (ds && ds->in_file)
		ds->overridden = on;
}

bool doctor_env_overridden(struct node_facts *d, const char *name)
{
	struct doctor_setting *ds = setting(d, name);

	return ds && ds->overridden;
}

void doctor_env_overrides_clear(struct node_facts *d)
{
	size_t i;

	for (i = 0; i < d->n_settings; i++)
		d->settings[i].overridden = false;
}

const char *doctor_env_said(struct node_facts *d, const char *name, char *buf, size_t len)
{
	struct doctor_setting *ds = setting(d, name);

	buf[0] = '\0';
	if (ds && ds->in_file)
		snprintf(buf, len, "%s=%.200s from %s", name, ds->s.value, ds->s.where);
	return buf;
}

const char *doctor_env_drop(struct node_facts *d, const char *name, char *buf, size_t len)
{
	const char *file = doctor_env_file(d, name);

	if (file)
		snprintf(buf, len, "delete %s from %s", name, file);
	else
		snprintf(buf, len, "unset %s", name);
	return buf;
}

void doctor_find_nccl(struct node_facts *d)
{
	if (!d->nccl_version)
		d->nccl_version = nccl_find(d->ctx, d->nccl_lib, sizeof(d->nccl_lib));
}

const struct ucx_install *doctor_ucx(struct node_facts *d)
{
	if (!d->ucx_loaded) {
		d->ucx_loaded = true;
		ucx_find(d->ctx, &d->ucx);
	}
	return &d->ucx;
}

const struct fn_node *doctor_fns(struct node_facts *d)
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

const struct rep *doctor_rep(struct node_facts *d, const char *netdev)
{
	return rep_of_netdev(doctor_fns(d), netdev);
}

const struct rdma_netns *doctor_netns(struct node_facts *d)
{
	if (!d->ns_loaded) {
		d->ns_loaded = true;
		rdma_netns_load(d->ctx, &d->node, &d->ns);
	}
	return &d->ns;
}

void doctor_load(struct node_facts *d, struct ctx *ctx, enum job_kind target,
		 const struct rdma_node *node)
{
	memset(d, 0, sizeof(*d));
	d->ctx = ctx;
	d->target = target;
	if (node) {
		d->node = *node;
		return;
	}
	d->node_err = rdma_node_load(ctx, &d->node, RDMA_LOAD_GIDS);
	d->node_owned = !d->node_err;
	d->node_warnings = read_warnings(ctx);
}

void doctor_free(struct node_facts *d)
{
	fn_free(&d->fns);
	d->fns_loaded = false;
	if (d->node_owned)
		rdma_node_free(&d->node);
	d->node_owned = false;
}
