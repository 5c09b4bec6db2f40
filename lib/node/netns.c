// SPDX-License-Identifier: MIT
/* The RDMA netns mode and the devices other namespaces hold (node/netns.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/root.h"
#include "base/sysfs.h"
#include "node/netns.h"
#include "node/rdma.h"
#include "node/rdma_nl.h"

#define UVERBS_CLASS "/sys/class/infiniband_verbs"

/* ib_core's parameter: "Y" shared, "N" exclusive. */
static enum rdma_netns_mode mode_from_sysfs(const struct ctx *ctx)
{
	char buf[16];

	if (read_line(ctx, "/sys/module/ib_core/parameters/netns_mode", buf, sizeof(buf)) <= 0)
		return NETNS_UNKNOWN;
	if (!strcmp(buf, "Y") || !strcmp(buf, "1"))
		return NETNS_SHARED;
	if (!strcmp(buf, "N") || !strcmp(buf, "0"))
		return NETNS_EXCLUSIVE;
	read_warning(ctx, "/sys/module/ib_core/parameters/netns_mode", -EINVAL, "not Y or N");
	return NETNS_UNKNOWN;
}

static enum rdma_netns_mode mode_load(const struct ctx *ctx)
{
	int ret;

	if (!ctx->root[0]) {
		ret = rdma_nl_netns_mode();
		if (ret >= 0)
			return ret ? NETNS_SHARED : NETNS_EXCLUSIVE;
		log_info(ctx, "RDMA netlink gives no netns mode (%s): reading ib_core's parameter",
			 strerror(-ret));
	}
	return mode_from_sysfs(ctx);
}

static void add_hidden(struct rdma_netns *ns, const char *name)
{
	size_t i;

	for (i = 0; i < ns->n_hidden; i++)
		if (!strcmp(ns->hidden[i], name))
			return;
	if (ns->n_hidden < NETNS_HIDDEN_MAX && strlen(name) < sizeof(ns->hidden[0]))
		memcpy(ns->hidden[ns->n_hidden++], name, strlen(name) + 1);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* uverbsN/ibdev ("mlx5_0") of every verbs device, less those @node lists. */
static void hidden_load(const struct ctx *ctx, const struct rdma_node *node, struct rdma_netns *ns)
{
	char path[512], name[64];
	struct dirent *de;
	DIR *d;

	d = root_opendir(ctx, UVERBS_CLASS);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "uverbs", 6) || strlen(de->d_name) > 32)
			continue;
		snprintf(path, sizeof(path), UVERBS_CLASS "/%s/ibdev", de->d_name);
		if (read_line(ctx, path, name, sizeof(name)) > 0 && !rdma_dev_find(node, name))
			add_hidden(ns, name);
	}
	closedir(d);
	qsort(ns->hidden, ns->n_hidden, sizeof(ns->hidden[0]), cmp_name);
}

void rdma_netns_load(const struct ctx *ctx, const struct rdma_node *node, struct rdma_netns *out)
{
	memset(out, 0, sizeof(*out));
	out->mode = mode_load(ctx);
	/* In shared mode every namespace sees every device: nothing is another's. */
	if (out->mode != NETNS_SHARED)
		hidden_load(ctx, node, out);
}

const char *rdma_netns_mode_str(enum rdma_netns_mode mode)
{
	return mode == NETNS_SHARED ? "shared" : mode == NETNS_EXCLUSIVE ? "exclusive" : NULL;
}

char *rdma_netns_hidden_list(const struct rdma_netns *ns, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < ns->n_hidden && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", ns->hidden[i]);
	return buf;
}

bool rdma_netns_explain(const struct rdma_netns *ns, char *why, size_t wlen, char *fix, size_t flen)
{
	char list[512];
	const char *dev = ns->n_hidden ? ns->hidden[0] : "DEV";

	if (ns->mode != NETNS_EXCLUSIVE)
		return false;
	rdma_netns_hidden_list(ns, list, sizeof(list));
	if (ns->n_hidden)
		snprintf(why, wlen, "the RDMA netns mode is exclusive (rdma system show): each RDMA "
			 "device belongs to one network namespace, and %s %s to another one",
			 list, ns->n_hidden == 1 ? "belongs" : "belong");
	else
		snprintf(why, wlen, "the RDMA netns mode is exclusive (rdma system show): each RDMA "
			 "device belongs to one network namespace, and none belongs to this one");
	/* The kernel refuses the switch (EBUSY) while any other namespace exists. */
	snprintf(fix, flen, "rdma system set netns shared (in the initial network namespace, once "
		 "no other exists), or move a device here: rdma dev set %s netns NS", dev);
	return true;
}
