// SPDX-License-Identifier: MIT
/*
 * The link map (see linkmap.h): the results as they come in and the
 * nodes that did not take part.  What they say is worked out in
 * linkmap_state.c (the links that count, the median, each node's
 * counts), linkmap_find.c (findings), linkmap_retest.c and
 * linkmap_print.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/linkmap.h"

static const char *const cause_names[] = {
	[CAUSE_NONE] = "none",
	[CAUSE_ROCE_BLOCKED] = "roce_blocked",
	[CAUSE_MTU] = "mtu",
	[CAUSE_TIMEOUT] = "timeout",
	[CAUSE_UNREACHABLE] = "unreachable",
	[CAUSE_NODE_DOWN] = "node_down",
	[CAUSE_OTHER] = "other",
};

const char *link_cause_name(enum link_cause c)
{
	return (unsigned int)c < sizeof(cause_names) / sizeof(cause_names[0]) ? cause_names[c] : "unknown";
}

enum link_cause link_cause_of(int err, const char *why, unsigned int mtu, unsigned int peer_mtu)
{
	if (strstr(why, "4791"))
		return CAUSE_ROCE_BLOCKED;
	if (err == -ECONNREFUSED || err == -EHOSTUNREACH || err == -ENETUNREACH ||
	    strstr(why, "cannot resolve"))
		return CAUSE_UNREACHABLE;
	if (err == -ETIMEDOUT)
		return CAUSE_TIMEOUT;
	if (mtu && peer_mtu && mtu != peer_mtu)
		return CAUSE_MTU;
	return CAUSE_OTHER;
}

void linkmap_init(struct linkmap *m, char *const *names, uint32_t nodes, uint32_t rails,
		  double slow)
{
	memset(m, 0, sizeof(*m));
	m->names = names;
	m->nodes = nodes;
	m->rails = rails ? rails : 1;
	m->slow = slow;
	m->median_lat_us = -1;
}

int linkmap_add(struct linkmap *m, const struct link_result *r)
{
	if (r->client >= m->nodes || r->server >= m->nodes || r->client == r->server ||
	    r->rail >= m->rails)
		return -EINVAL;
	if (m->n == m->cap) {
		size_t cap = m->cap * 2 + 64;
		struct link_result *res = realloc(m->res, cap * sizeof(*res));

		if (!res)
			return -ENOMEM;
		m->res = res;
		m->cap = cap;
	}
	m->res[m->n++] = *r;
	return 0;
}

int linkmap_node_down(struct linkmap *m, uint32_t node, const char *why)
{
	char *copy;

	if (node >= m->nodes)
		return -EINVAL;
	if (!m->down && !(m->down = calloc(m->nodes, sizeof(*m->down))))
		return -ENOMEM;
	copy = strdup(why ? why : "");
	if (!copy)
		return -ENOMEM;
	free(m->down[node]);
	m->down[node] = copy;
	return 0;
}

void linkmap_finding_release(struct finding *f)
{
	free(f->cand);
	free(f->pairs);
	f->cand = NULL;
	f->pairs = NULL;
	f->ncand = f->npairs = 0;
}

void linkmap_free(struct linkmap *m)
{
	uint32_t i;

	for (i = 0; i < m->nfind; i++)
		linkmap_finding_release(&m->find[i]);
	for (i = 0; m->down && i < m->nodes; i++)
		free(m->down[i]);
	free(m->down);
	free(m->res);
	free(m->find);
	memset(m, 0, sizeof(*m));
}

