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
#include "base/text.h"
#include "doctor/check.h"
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
