// SPDX-License-Identifier: MIT
/*
 * RDMA transport of the probe: device and GID choice, verbs resources,
 * QP state changes (or rdma_cm), the RDMA WRITE bandwidth loop and the
 * write ping-pong for latency.  Layout and posting policy: probe_rdma.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/log.h"
#include "node/gids.h"
#include "node/netdev.h"
#include "node/rdma.h"
#include "node/rdma_load.h"
#include "probe/probe_rdma.h"
#include "probe/probe_sess.h"
#include "probe/probe_tcp.h"

#define MAX_SAMPLES 65536

struct rdma_state {
	bool cm;
	struct ibv_context *vctx;	/* ours to close unless cm */
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;	/* the CQ's events, for a writer that sleeps */
	struct ibv_cq *cq;
	bool armed;			/* the CQ will raise an event on chan */
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	uint64_t region;		/* bytes of each send / receive region */
	struct ibv_qp *qp[PROBE_MAX_QPS];
	uint32_t psn[PROBE_MAX_QPS];
	unsigned int nqp;
	/* where we are */
	char dev[64];
	uint8_t port;
	int gid_index;			/* -1: chosen by rdma_cm */
	uint8_t gid[16];
	enum gid_type gid_type;
	struct ibv_port_attr pattr;
	uint32_t max_inline;
	/* rdma_cm */
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_id *ids[PROBE_MAX_QPS];
	/* bandwidth run */
	uint64_t posted[PROBE_MAX_QPS], completed[PROBE_MAX_QPS], goal[PROBE_MAX_QPS];
	uint32_t unsignaled[PROBE_MAX_QPS];
	uint32_t window;		/* writes each QP may have in flight now */
	uint64_t *t_ns, *bytes;
	size_t nsamples;
};

static uint8_t *tx_region(const struct rdma_state *r, unsigned int q)
{
	return r->buf + (size_t)q * 2 * r->region;
}

static uint8_t *rx_region(const struct rdma_state *r, unsigned int q)
{
	return tx_region(r, q) + r->region;
}

/* The session's state, with room for the bandwidth samples; set as s->priv. */
static struct rdma_state *state_new(struct probe_sess *s, bool cm)
{
	struct rdma_state *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	s->priv = r;	/* from here rdma_teardown frees what we have */
	r->t_ns = calloc(MAX_SAMPLES, sizeof(*r->t_ns));
	r->bytes = calloc(MAX_SAMPLES, sizeof(*r->bytes));
	if (!r->t_ns || !r->bytes)
		return NULL;
	r->cm = cm;
	r->gid_index = -1;
	r->region = s->req.size_max;
	return r;
}

/* ---- choosing device, port and GID ---- */

static const struct rdma_gid *gid_by_index(const struct rdma_port *p, int index)
{
	size_t i;

	for (i = 0; i < p->n_gids; i++)
		if ((int)p->gids[i].index == index)
			return &p->gids[i];
	return NULL;
}

/* The RoCE v2 GID carrying IPv4 address @ip, if the port has one. */
static const struct rdma_gid *gid_by_ip(const struct rdma_port *p, const char *ip)
{
	char v4[INET_ADDRSTRLEN];
	size_t i;

	for (i = 0; i < p->n_gids; i++)
		if (p->gids[i].type == GID_TYPE_ROCE_V2 && gid_ipv4(p->gids[i].raw, v4, sizeof(v4)) &&
		    !strcmp(v4, ip))
			return &p->gids[i];
	return NULL;
}

struct pick {
	struct rdma_dev *dev;
	struct rdma_port *port;
	const struct rdma_gid *gid;
	char how[160];
};

/*
 * The port whose traffic leaves by the netdev the kernel routes the peer
 * through (its own, or a VLAN, macvlan or LAG bond stacked on it), else
 * the one whose GID holds our control address.
 */
static int pick_auto_port(struct probe_sess *s, struct rdma_node *node, struct pick *pk)
{
	char ifname[IF_NAMESIZE] = "", src[64] = "", how[80];
	const struct rdma_dev *dev = NULL;
	const struct rdma_port *port;
	int ret;

	ret = netdev_route_to(s->ctx, s->ctl.peer, ifname, sizeof(ifname), src, sizeof(src));
	port = rdma_port_by_route(node, ret ? NULL : ifname, s->ctl.local, &dev, how, sizeof(how));
	if (port) {
		pk->dev = (struct rdma_dev *)dev;
		pk->port = (struct rdma_port *)port;
		snprintf(pk->how, sizeof(pk->how), "peer %.70s: %s", s->ctl.peer, how);
		return 0;
	}
	return probe_fail(s, -ENETUNREACH, PROBE_ERR_SETUP,
			  "Failed to choose an RDMA port: no port's netdev routes to %s%s%s%s; "
			  "name one with -d DEV[/PORT]", s->ctl.peer, ret ? "" : " (the route goes through ",
			  ret ? "" : ifname, ret ? "" : ")");
}

static int pick_named_port(struct probe_sess *s, struct rdma_node *node, struct pick *pk)
{
	const struct probe_cfg *c = s->cfg;
	char names[256];

	pk->dev = rdma_dev_find(node, c->dev);
	if (!pk->dev)
		return probe_fail(s, -EINVAL, PROBE_ERR_SETUP, "Failed to use device '%s': no such "
				  "RDMA device. Devices: %s", c->dev, rdma_dev_names(node, names, sizeof(names)));
	pk->port = rdma_port_find(pk->dev, c->ib_port ? c->ib_port : 1);
	if (!pk->port)
		return probe_fail(s, -EINVAL, PROBE_ERR_SETUP, "Failed to use port %u of '%s': it has %u "
				  "port(s)", c->ib_port, c->dev, pk->dev->nports);
	snprintf(pk->how, sizeof(pk->how), "given with -d");
	return 0;
}

static int pick_gid(struct probe_sess *s, struct pick *pk)
{
	const char *why = NULL;

	if (s->cfg->gid_index >= 0) {
		pk->gid = gid_by_index(pk->port, s->cfg->gid_index);
		if (!pk->gid)
			return probe_fail(s, -EINVAL, PROBE_ERR_SETUP, "Failed to use GID index '%d' on "
					  "%s/%u: that entry is empty; see `rdmactl gids %s`",
					  s->cfg->gid_index, pk->dev->name, pk->port->num, pk->dev->name);
		return 0;
	}
	if (pk->port->link_layer == LINK_LAYER_INFINIBAND) {
		pk->gid = gid_by_index(pk->port, 0);
		why = "InfiniBand: GID 0";
	} else {
		pk->gid = gid_by_ip(pk->port, s->ctl.local);
		why = "RoCE v2 GID of this end's address";
		if (!pk->gid)
			pk->gid = gid_recommend(pk->port, strchr(s->ctl.peer, ':') != NULL, &why);
	}
	if (!pk->gid)
		return probe_fail(s, -EADDRNOTAVAIL, PROBE_ERR_SETUP, "Failed to choose a GID on %s/%u: "
				  "%s; no route from a GID to %s", pk->dev->name, pk->port->num,
				  why ? why : "none", s->ctl.peer);
	log_info(s->ctx, "using GID index %u (%s): %s", pk->gid->index, gid_type_str(pk->gid->type), why);
	return 0;
}

static int pick_endpoint(struct probe_sess *s, struct rdma_state *r)
{
	struct rdma_node node;
	struct pick pk = { 0 };
	int ret;

	ret = rdma_node_load(s->ctx, &node, RDMA_LOAD_GIDS);
	if (ret)
		return probe_fail(s, ret, PROBE_ERR_SETUP, "Failed to read RDMA devices: %s",
				  strerror(-ret));
	if (!node.n)
		ret = probe_fail(s, -ENODEV, PROBE_ERR_SETUP, "Failed to find an RDMA device: none on "
				 "this node (load a driver, or `rdma link add rxe0 type rxe netdev IF`)");
	else if (s->cfg->dev[0])
		ret = pick_named_port(s, &node, &pk);
	else
		ret = pick_auto_port(s, &node, &pk);
	if (!ret)
		ret = pick_gid(s, &pk);
	if (!ret) {
		snprintf(r->dev, sizeof(r->dev), "%s", pk.dev->name);
		r->port = (uint8_t)pk.port->num;
		r->gid_index = (int)pk.gid->index;
		memcpy(r->gid, pk.gid->raw, 16);
		r->gid_type = pk.gid->type;
		log_info(s->ctx, "using %s/%u (%s)", r->dev, r->port, pk.how);
	}
	rdma_node_free(&node);
	return ret;
}

/* ---- verbs resources ---- */

static int open_device(struct probe_sess *s, struct rdma_state *r)
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to list verbs devices: %s",
				  strerror(errno));
	for (i = 0; i < n && !r->vctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), r->dev))
			r->vctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!r->vctx)
		return probe_fail(s, -ENODEV, PROBE_ERR_SETUP, "Failed to open device '%s': %s", r->dev,
				  strerror(errno ? errno : ENODEV));
	return 0;
}

static int memlock_fail(struct probe_sess *s, int err)
{
	struct rlimit rl;
	char cur[32];

	getrlimit(RLIMIT_MEMLOCK, &rl);
	if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(cur, sizeof(cur), "unlimited");
	else
		snprintf(cur, sizeof(cur), "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
	return probe_fail(s, err, PROBE_ERR_SETUP,
			  "Failed to register %zu B of memory (ibv_reg_mr): %s. Locked memory "
			  "limit (ulimit -l) is %s; raise it above the size (see `rdmactl limits`)",
			  ((struct rdma_state *)s->priv)->buf_len, strerror(-err), cur);
}

/* PD, CQ, the zeroed buffer and its MR on @r->vctx. */
static int open_resources(struct probe_sess *s, struct rdma_state *r)
{
	int cqe = (int)(s->req.qps * s->req.depth + 16);

	if (ibv_query_port(r->vctx, r->port, &r->pattr))
		return probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to query port %s/%u: %s",
				  r->dev, r->port, strerror(errno));
	if (r->pattr.state != IBV_PORT_ACTIVE)
		return probe_fail(s, -ENETDOWN, PROBE_ERR_SETUP, "Failed to use port %s/%u: it is %s, "
				  "not ACTIVE; check the link (rdma link show)", r->dev, r->port,
				  port_state_str(r->pattr.state));
	r->pd = ibv_alloc_pd(r->vctx);
	if (!r->pd)
		return probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to allocate a PD: %s", strerror(errno));
	r->chan = ibv_create_comp_channel(r->vctx);
	if (!r->chan)
		return probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to create a completion channel: %s",
				  strerror(errno));
	r->cq = ibv_create_cq(r->vctx, cqe, NULL, r->chan, 0);
	if (!r->cq)
		return probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to create a CQ of %d entries: %s",
				  cqe, strerror(errno));
	r->buf_len = (size_t)s->req.qps * 2 * r->region;
	r->buf = aligned_alloc(4096, (r->buf_len + 4095) / 4096 * 4096);
	if (!r->buf)
		return probe_fail(s, -ENOMEM, PROBE_ERR_SETUP, "Failed to allocate %zu B", r->buf_len);
	memset(r->buf, 0, r->buf_len);
	r->mr = ibv_reg_mr(r->pd, r->buf, r->buf_len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!r->mr)
		return memlock_fail(s, -errno);
	return 0;
}

static void qp_init_attr(struct probe_sess *s, struct rdma_state *r, struct ibv_qp_init_attr *a,
			 uint32_t inl)
{
	memset(a, 0, sizeof(*a));
	a->send_cq = r->cq;
	a->recv_cq = r->cq;
	a->qp_type = IBV_QPT_RC;
	a->sq_sig_all = 0;
	a->cap.max_send_wr = s->req.depth;
	a->cap.max_recv_wr = 1;
	a->cap.max_send_sge = 1;
	a->cap.max_recv_sge = 1;
	a->cap.max_inline_data = inl;
}

/* A QP; inline data if the device takes it, else without. */
static int create_qp(struct probe_sess *s, struct rdma_state *r, unsigned int q, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr a;
	uint32_t inl = PROBE_INLINE_WANT;
	int tries;

	for (tries = 0; tries < 2; tries++, inl = 0) {
		qp_init_attr(s, r, &a, inl);
		if (id) {
			if (!rdma_create_qp(id, r->pd, &a)) {
				r->qp[q] = id->qp;
				break;
			}
		} else if ((r->qp[q] = ibv_create_qp(r->pd, &a))) {
			break;
		}
	}
	if (!r->qp[q])
		return probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to create RC QP %u (depth %u): %s",
				  q, s->req.depth, strerror(errno));
	r->nqp = q + 1;
	r->max_inline = a.cap.max_inline_data;
	r->psn[q] = (uint32_t)lrand48() & 0xffffff;
	return 0;
}

static int qp_to_init(struct rdma_state *r, unsigned int q)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = r->port,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE,
	};
	int ret = ibv_modify_qp(r->qp[q], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS);

	return ret ? -ret : 0;
}

static enum ibv_mtu mtu_enum(unsigned int bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	default: return IBV_MTU_4096;
	}
}

static int qp_to_rtr(struct probe_sess *s, struct rdma_state *r, unsigned int q)
{
	const struct probe_ep_info *rem = &s->remote;
	unsigned int mtu = s->local.mtu < rem->mtu ? s->local.mtu : rem->mtu;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu_enum(mtu),
		.dest_qp_num = rem->qp[q].qpn,
		.rq_psn = rem->qp[q].psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
	};
	int ret;

	a.ah_attr.dlid = rem->lid;
	a.ah_attr.port_num = r->port;
	if (r->pattr.link_layer == IBV_LINK_LAYER_ETHERNET || !gid_is_empty(rem->gid)) {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, rem->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)r->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	ret = ibv_modify_qp(r->qp[q], &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	return ret ? -ret : 0;
}

static int qp_to_rts(const struct probe_sess *s, struct rdma_state *r, unsigned int q)
{
	/*
	 * timeout 14: 4.096 us * 2^14 = 67 ms per try; 7 retries: a lost path
	 * shows in ~0.5 s on hardware.  rxe reads retry_cnt 7 as retry forever
	 * (rxe_comp.c): on Soft-RoCE a blocked path ends at the stall timeout
	 * (--timeout) instead.  6 was tried: it failed the lab's 3%-lossy
	 * links outright (go-back-N resends whole windows, and one loss in a
	 * window is likely), which the lab's tests rightly call slow, not down.
	 * RDMACTL_PROBE_ACK_TIMEOUT (a test aid) sets another.
	 */
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = s->cfg->ack_timeout ? s->cfg->ack_timeout : 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = r->psn[q],
		.max_rd_atomic = 1,
	};
	int ret = ibv_modify_qp(r->qp[q], &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);

	return ret ? -ret : 0;
}

static int transition_fail(struct probe_sess *s, int err, const char *state, unsigned int q)
{
	return probe_fail(s, err, PROBE_ERR_SETUP,
			  "Failed to move QP %u to %s: %s. This end: GID index %u (%s), MTU %u; "
			  "peer: GID index %u (%s), MTU %u. Check both use a RoCE v2 GID of the "
			  "same subnet (-x) and the port is ACTIVE", q, state, strerror(-err),
			  s->local.gid_index, gid_type_str((enum gid_type)s->local.gid_type), s->local.mtu,
			  s->remote.gid_index, gid_type_str((enum gid_type)s->remote.gid_type),
			  s->remote.mtu);
}

static int verbs_setup(struct probe_sess *s)
{
	struct rdma_state *r = state_new(s, false);
	unsigned int q;
	int ret;

	if (!r)
		return probe_fail(s, -ENOMEM, PROBE_ERR_SETUP, "Failed to allocate RDMA state");
	ret = pick_endpoint(s, r);
	if (!ret)
		ret = open_device(s, r);
	if (!ret)
		ret = open_resources(s, r);
	for (q = 0; !ret && q < s->req.qps; q++) {
		ret = create_qp(s, r, q, NULL);
		if (!ret && (ret = qp_to_init(r, q)))
			ret = transition_fail(s, ret, "INIT", q);
	}
	return ret;
}

static void rdma_local_info(struct probe_sess *s, struct probe_ep_info *ep)
{
	struct rdma_state *r = s->priv;
	unsigned int q;

	memset(ep, 0, sizeof(*ep));
	ep->transport = PROBE_TRANSPORT_RDMA;
	ep->gid_type = (uint8_t)r->gid_type;
	ep->mtu = (uint16_t)ib_mtu_bytes(r->pattr.active_mtu);
	ep->gid_index = r->gid_index < 0 ? UINT32_MAX : (uint32_t)r->gid_index;
	memcpy(ep->gid, r->gid, 16);
	ep->lid = r->pattr.lid;
	ep->port_num = r->port;
	ep->buf_len = r->region;
	snprintf(ep->dev, sizeof(ep->dev), "%s", r->dev);
	snprintf(ep->addr, sizeof(ep->addr), "%s", s->ctl.local);
	ep->nqps = (uint16_t)r->nqp;
	for (q = 0; q < r->nqp; q++) {
		ep->qp[q].qpn = r->qp[q]->qp_num;
		ep->qp[q].psn = r->psn[q];
		ep->qp[q].rkey = r->mr->rkey;
		ep->qp[q].addr = (uintptr_t)rx_region(r, q);
	}
}

static int verbs_finish(struct probe_sess *s)
{
	struct rdma_state *r = s->priv;
	unsigned int q;
	int ret;

	if (s->remote.buf_len < s->req.size_max)
		return probe_fail(s, -EPROTO, PROBE_ERR_BAD_REQUEST, "Failed to connect: the peer's "
				  "buffer (%llu B) is smaller than the test", (unsigned long long)s->remote.buf_len);
	for (q = 0; q < r->nqp; q++) {
		if ((ret = qp_to_rtr(s, r, q)))
			return transition_fail(s, ret, "RTR", q);
		if ((ret = qp_to_rts(s, r, q)))
			return transition_fail(s, ret, "RTS", q);
	}
	s->summary.inline_max = r->max_inline;
	log_info(s->ctx, "path MTU %u (this end %u, peer %u), inline up to %u B",
		 s->local.mtu < s->remote.mtu ? s->local.mtu : s->remote.mtu, s->local.mtu,
		 s->remote.mtu, r->max_inline);
	return 0;
}

static void rdma_prepare(struct probe_sess *s, uint64_t size)
{
	struct rdma_state *r = s->priv;
	unsigned int q;

	for (q = 0; q < r->nqp; q++) {
		probe_fill(tx_region(r, q), s->req.seed, size, 0, size);
		probe_corrupt_for_test(s, tx_region(r, q));
		memset(rx_region(r, q), 0, size);
	}
}

/* ---- bandwidth ---- */

static const char *wc_hint(enum ibv_wc_status st, bool roce)
{
	switch (st) {
	case IBV_WC_RETRY_EXC_ERR:
		return roce ? "packets are not arriving: UDP port 4791 blocked by a firewall, "
			      "a wrong GID index (-x) or the peer on another subnet"
			    : "the peer does not answer: check the link, LIDs and the subnet manager";
	case IBV_WC_REM_ACCESS_ERR:
		return "the peer refused the write: its buffer or rkey does not match";
	case IBV_WC_REM_INV_REQ_ERR:
		/* The responder's NAK for a packet it cannot take: longer than
		 * its path MTU, or (seen on rxe over a lossy path) out of its
		 * message's order. */
		return "the peer rejected a packet as invalid: a path MTU larger than the peer's, "
		       "or packets lost on the way (the port counters tell)";
	case IBV_WC_WR_FLUSH_ERR:
		return "the QP was already in error";
	case IBV_WC_LOC_LEN_ERR:
	case IBV_WC_LOC_PROT_ERR:
		return "local buffer problem";
	default:
		return "see the peer's log";
	}
}

static int wc_fail(struct probe_sess *s, const struct ibv_wc *wc, uint64_t size)
{
	struct rdma_state *r = s->priv;

	return probe_fail(s, -EIO, PROBE_ERR_RUN, "Failed to RDMA WRITE (size %llu, QP %u): work "
			  "completion error '%s' (%d): %s", (unsigned long long)size,
			  (unsigned int)(wc->wr_id >> 32), ibv_wc_status_str(wc->status), wc->status,
			  wc_hint(wc->status, r->pattr.link_layer == IBV_LINK_LAYER_ETHERNET));
}

static int post_write(struct probe_sess *s, struct rdma_state *r, unsigned int q, uint64_t size,
		      uint32_t covered)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)tx_region(r, q),
		.length = (uint32_t)size,
		.lkey = r->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)q << 32 | covered,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = (covered ? IBV_SEND_SIGNALED : 0) |
			      (size <= r->max_inline ? IBV_SEND_INLINE : 0),
	}, *bad;

	wr.wr.rdma.remote_addr = s->remote.qp[q].addr;
	wr.wr.rdma.rkey = s->remote.qp[q].rkey;
	return ibv_post_send(r->qp[q], &wr, &bad);
}

/* Post what QP @q may post now: up to the window in flight, one in cq_mod signaled. */
static int post_some(struct probe_sess *s, struct rdma_state *r, unsigned int q, uint64_t size,
		     uint32_t mod)
{
	while (r->posted[q] < r->goal[q] && r->posted[q] - r->completed[q] < r->window) {
		uint64_t n = r->posted[q] + 1;
		bool sig = n % mod == 0 || n == r->goal[q];
		int ret = post_write(s, r, q, size, sig ? r->unsignaled[q] + 1 : 0);

		if (ret)
			return probe_fail(s, -ret, PROBE_ERR_RUN, "Failed to post an RDMA WRITE on QP %u: %s",
					  q, strerror(ret));
		r->posted[q] = n;
		r->unsignaled[q] = sig ? 0 : r->unsignaled[q] + 1;
	}
	return 0;
}

static uint64_t sum(const uint64_t *v, unsigned int n)
{
	uint64_t t = 0;

	while (n--)
		t += v[n];
	return t;
}

static void record(struct rdma_state *r, uint64_t bytes)
{
	if (r->nsamples >= MAX_SAMPLES)
		return;
	r->t_ns[r->nsamples] = now_ns();
	r->bytes[r->nsamples++] = bytes;
}

/* Poll one batch; the number of completions, or -errno (explained). */
static int poll_batch(struct probe_sess *s, struct rdma_state *r, uint64_t size)
{
	struct ibv_wc wc[PROBE_POLL_BATCH];
	int i, n = ibv_poll_cq(r->cq, PROBE_POLL_BATCH, wc);

	if (n < 0)
		return probe_fail(s, -EIO, PROBE_ERR_RUN, "Failed to poll the CQ");
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			return wc_fail(s, &wc[i], size);
		r->completed[wc[i].wr_id >> 32] += wc[i].wr_id & 0xffffffff;
	}
	if (n)
		record(r, sum(r->completed, r->nqp) * size);
	return n;
}

/*
 * Signal one write in this many, as ib_write_bw does: one in min(100,
 * depth), but every write over 8 KiB.  Signaling 1 in 100 large writes
 * drained the pipe between batches (half ib_write_bw's rate in the lab),
 * and the stall timeout, which sees progress only as completions, saw
 * none while two QPs moved 12.5 MiB of 64 KiB writes: on a slow link a
 * healthy --qps 2 run failed with "no completion for 10000 ms".
 */
static uint32_t signal_every(const struct probe_sess *s, uint64_t size)
{
	if (size > PROBE_CQ_MOD_MAX_SIZE)
		return 1;
	return s->req.depth < PROBE_CQ_MOD ? s->req.depth : PROBE_CQ_MOD;
}

/* Duration over: stop at the next signaled write of each QP, so all complete. */
static void end_duration(struct rdma_state *r, uint32_t mod)
{
	unsigned int q;

	for (q = 0; q < r->nqp; q++)
		if (r->goal[q] == UINT64_MAX)
			r->goal[q] = (r->posted[q] + mod) / mod * mod;
}

/*
 * The writes a QP keeps in flight.  A run of -n writes keeps --depth.  A
 * run of -D seconds ends by waiting for what is in flight, so there it
 * keeps no more than the link moves in a tenth of the duration, at the
 * rate measured so far: 128 writes of 64 KiB are 8 MiB, a millisecond at
 * 100 Gb/s but 13 s on a lossy emulated link (seen in the lab, 1 s runs
 * lasting 13 s; 2.8 s at a depth of 16).  The rate is unchanged as long
 * as a tenth of the duration exceeds the round trip.  It never falls
 * below one signaled write's worth (mod) and 2, so the pipe keeps moving.
 */
static uint32_t duration_window(const struct probe_sess *s, const struct rdma_state *r,
				uint32_t mod, uint64_t elapsed_ns)
{
	uint32_t floor = mod > 2 ? mod : 2, depth = s->req.depth;
	double w = 16;		/* until the first completions show a rate */

	if (!s->req.duration_ms)
		return depth;
	if (elapsed_ns)
		w = (double)sum(r->completed, r->nqp) * 1e9 / (double)elapsed_ns *
		    s->req.duration_ms / 1e4 / r->nqp;
	if (w < floor)
		w = floor;
	return w < depth ? (uint32_t)w : depth;
}

/*
 * The writer polls its CQ flat out, as ib_write_bw does, while completions
 * come less than PROBE_SPIN_NS apart; past that it sleeps on the CQ's
 * completion channel until the next one (PROBE_NAP_MAX_MS at most, for the
 * deadline, the stall timeout and the progress line).  A healthy link
 * whose writes complete that far apart moves under 16 Gb/s in 4-KiB
 * writes signaled one in 100 (2.6 Gb/s in 64-KiB ones, each signaled),
 * and keeps the rest of its window in flight for longer than a wake-up
 * takes, so the rate is the same; a slow or stalled link (a blocked port,
 * a dead peer, a lossy link waiting out its ACK timeout, a software RoCE
 * device) no longer takes a whole core from what else runs on the node:
 * under emulation the spinning was two fifths of a writer's CPU
 * (tests/lab/README.md, Cost).  RDMACTL_PROBE_BUSY_POLL (a test aid)
 * polls as ib_write_bw does, until completions stop for
 * PROBE_BUSY_SPIN_NS (a stalled link).
 */
#define PROBE_SPIN_NS		(200 * 1000ull)
#define PROBE_BUSY_SPIN_NS	(100 * 1000 * 1000ull)
#define PROBE_NAP_MAX_MS	100

/*
 * Wait up to @ms for the CQ's next completion.  The first call arms the
 * CQ and returns at once, for the caller to poll once more: a completion
 * that came before the arming raises no event.
 */
static int cq_sleep(struct probe_sess *s, struct rdma_state *r, int ms)
{
	struct pollfd p = { .fd = r->chan->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	if (!r->armed) {
		if (ibv_req_notify_cq(r->cq, 0))
			return probe_fail(s, -EIO, PROBE_ERR_RUN, "Failed to arm the CQ");
		r->armed = true;
		return 0;
	}
	if (poll(&p, 1, ms) <= 0)
		return 0;
	if (ibv_get_cq_event(r->chan, &cq, &ctx))
		return probe_fail(s, -EIO, PROBE_ERR_RUN, "Failed to read the CQ's event");
	ibv_ack_cq_events(cq, 1);
	r->armed = false;
	return 0;
}

/* How long the writer may sleep: to the duration's end, the stall timeout or PROBE_NAP_MAX_MS. */
static int nap_ms(uint64_t now, uint64_t deadline, uint64_t stall_at)
{
	uint64_t until = stall_at, ms;

	if (deadline > now && deadline < until)
		until = deadline;
	ms = until > now ? (until - now) / 1000000 + 1 : 1;
	return ms < PROBE_NAP_MAX_MS ? (int)ms : PROBE_NAP_MAX_MS;
}

static int bw_loop(struct probe_sess *s, struct rdma_state *r, uint64_t size, uint64_t start)
{
	uint32_t mod = signal_every(s, size);
	uint64_t tmo = (uint64_t)s->cfg->timeout_ms * 1000000ull, last = start, spins = 0;
	uint64_t deadline = start + (uint64_t)s->req.duration_ms * 1000000ull;
	uint64_t spin = s->cfg->busy_poll ? PROBE_BUSY_SPIN_NS : PROBE_SPIN_NS;
	unsigned int q;
	int n;

	while (sum(r->completed, r->nqp) < sum(r->goal, r->nqp)) {
		for (q = 0; q < r->nqp; q++)
			if ((n = post_some(s, r, q, size, mod)))
				return n;
		n = poll_batch(s, r, size);
		if (n < 0)
			return n;
		if (!n && ++spins % 256)
			continue;
		uint64_t now = now_ns();

		if (n) {
			last = now;
			r->window = duration_window(s, r, mod, now - start);
		} else if (now - last > tmo)
			return probe_fail(s, -ETIMEDOUT, PROBE_ERR_RUN, "Failed to complete RDMA WRITEs "
					  "(size %llu): no completion for %d ms: %s",
					  (unsigned long long)size, s->cfg->timeout_ms,
					  r->pattr.link_layer == IBV_LINK_LAYER_ETHERNET
					  ? "packets are not arriving (UDP port 4791 blocked by a "
					    "firewall, a wrong GID index or another subnet) or the peer died"
					  : "the peer does not answer; check the link");
		if (s->req.duration_ms && now >= deadline)
			end_duration(r, mod);
		probe_progress(s, size, sum(r->completed, r->nqp) * size, start);
		if (!n && now - last > spin && (n = cq_sleep(s, r, nap_ms(now, deadline, last + tmo))))
			return n;
	}
	return 0;
}

static int send_bw(struct probe_sess *s, struct rdma_state *r, uint64_t size, struct probe_result *out)
{
	uint64_t start, el, total, win;
	unsigned int q;
	int ret;

	for (q = 0; q < r->nqp; q++) {
		r->posted[q] = r->completed[q] = r->unsignaled[q] = 0;
		r->goal[q] = s->req.iters ? s->req.iters : UINT64_MAX;
	}
	r->nsamples = 0;
	r->window = duration_window(s, r, signal_every(s, size), 0);
	start = now_ns();
	record(r, 0);
	ret = bw_loop(s, r, size, start);
	if (ret)
		return ret;
	el = r->t_ns[r->nsamples - 1] - start;
	total = sum(r->completed, r->nqp);
	out->msgs = total;
	out->bytes = total * size;
	out->elapsed_ns = el;
	out->avg_bps = el ? (uint64_t)((double)out->bytes * 8e9 / (double)el) : 0;
	/*
	 * A window holds twice what can be in flight at least: completions
	 * that piled up while we were not polling (up to depth per QP) are
	 * collected in a few quick polls, and a shorter window would time
	 * their collection, not their transfer.
	 */
	win = 2 * (uint64_t)s->req.depth * size * r->nqp;
	if (win < out->bytes / 20)
		win = out->bytes / 20;
	out->peak_bps = probe_peak_bps(r->t_ns, r->bytes, r->nsamples, win < out->bytes ? win : out->bytes);
	return 0;
}

/* Wait for the peer's DONE (its writes are all placed), then check what it wrote. */
static int recv_bw(struct probe_sess *s, struct rdma_state *r, uint64_t size, struct probe_result *out)
{
	struct probe_frame f;
	unsigned int q;
	int ret = ctl_expect(&s->ctl, PROBE_MSG_DONE, &f);

	if (ret == -EREMOTEIO)
		return probe_fail(s, ret, 0, "Failed to measure: the peer reported: %s",
				  s->ctl.last_error.msg);
	if (ret)
		return probe_fail(s, ret, PROBE_ERR_TIMEOUT, "Failed to receive DONE (size %llu): %s",
				  (unsigned long long)size, ctl_strerror(ret));
	if (s->req.flags & PROBE_F_VERIFY)
		for (q = 0; q < r->nqp; q++) {
			out->verify_errors += probe_check(rx_region(r, q), s->req.seed, size, 0, size);
			out->verified += size;
		}
	return 0;
}

static int rdma_bandwidth(struct probe_sess *s, uint64_t size, struct probe_result *out)
{
	struct rdma_state *r = s->priv;
	struct probe_frame f = { .type = PROBE_MSG_DONE };
	int ret;

	if (probe_is_sender(s)) {
		ret = send_bw(s, r, size, out);
		if (ret)
			return ret;
		f.u.done.size = size;
		ret = ctl_send(&s->ctl, &f);
		if (ret)
			return probe_fail(s, ret, 0, "Failed to send DONE: %s", strerror(-ret));
	}
	if (s->server || (s->req.flags & PROBE_F_BIDIR)) {
		ret = recv_bw(s, r, size, out);
		if (ret)
			return ret;
	}
	/* The latency ping-pong polls this byte: clear it before the peer may write it. */
	((volatile uint8_t *)rx_region(r, 0))[size - 1] = 0;
	return 0;
}

/* ---- latency: a ping-pong of writes, each end polling its receive region ---- */

static int wait_byte(struct probe_sess *s, volatile uint8_t *p, uint8_t v, uint64_t deadline)
{
	uint64_t spins = 0;

	while (*p != v)
		if (!(++spins % 4096) && now_ns() > deadline)
			return probe_fail(s, -ETIMEDOUT, PROBE_ERR_RUN, "Failed to run the write ping-pong: "
					  "no write from the peer for %d ms", s->cfg->timeout_ms);
	return 0;
}

static int wait_send(struct probe_sess *s, struct rdma_state *r, uint64_t size, uint64_t deadline)
{
	struct ibv_wc wc;
	uint64_t spins = 0;
	int n;

	while (!(n = ibv_poll_cq(r->cq, 1, &wc)))
		if (!(++spins % 4096) && now_ns() > deadline)
			return probe_fail(s, -ETIMEDOUT, PROBE_ERR_RUN, "Failed to complete a ping-pong write");
	if (n < 0)
		return probe_fail(s, -EIO, PROBE_ERR_RUN, "Failed to poll the CQ");
	return wc.status == IBV_WC_SUCCESS ? 0 : wc_fail(s, &wc, size);
}

static int rdma_latency(struct probe_sess *s, uint64_t size, struct probe_result *out)
{
	struct rdma_state *r = s->priv;
	uint32_t i, rounds = probe_lat_rounds(&s->req, size);
	volatile uint8_t *in = rx_region(r, 0) + size - 1, *mine = tx_region(r, 0) + size - 1;
	uint64_t tmo = (uint64_t)s->cfg->timeout_ms * 1000000ull;
	uint64_t *ns = calloc(rounds, sizeof(*ns));
	int ret = 0;

	if (!ns)
		return probe_fail(s, -ENOMEM, PROBE_ERR_RUN, "Failed to allocate latency samples");
	for (i = 0; i < rounds && !ret; i++) {
		uint8_t v = (uint8_t)(i % 255 + 1);
		uint64_t t0 = now_ns();

		if (s->server)
			ret = wait_byte(s, in, v, t0 + tmo);
		*mine = v;
		if (!ret && (ret = post_write(s, r, 0, size, 1)))
			ret = probe_fail(s, -ret, PROBE_ERR_RUN, "Failed to post a ping-pong write: %s",
					 strerror(ret));
		if (!ret && !s->server)
			ret = wait_byte(s, in, v, t0 + tmo);
		ns[i] = (now_ns() - t0) / 2;
		if (!ret)
			ret = wait_send(s, r, size, t0 + tmo);
	}
	if (!ret && !s->server)
		probe_lat_stats(ns, rounds, out);
	free(ns);
	/* Restore the pattern byte the ping-pong changed. */
	*mine = probe_pattern(s->req.seed, size, size - 1);
	return ret;
}

/* ---- rdma_cm ---- */

/* Wait for one event of @type on the channel within the timeout; *@id gets its cm_id. */
static int cm_wait(struct probe_sess *s, struct rdma_state *r, enum rdma_cm_event_type type,
		   struct rdma_cm_id **id, const char *step)
{
	struct pollfd p = { r->ec->fd, POLLIN, 0 };
	struct rdma_cm_event *ev;
	int got, status;

	if (poll(&p, 1, s->cfg->timeout_ms) <= 0)
		return probe_fail(s, -ETIMEDOUT, PROBE_ERR_SETUP, "Failed to %s: no rdma_cm event in %d ms; "
				  "is UDP port 4791 open on both nodes?", step, s->cfg->timeout_ms);
	if (rdma_get_cm_event(r->ec, &ev))
		return probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to %s: %s", step, strerror(errno));
	got = ev->event;
	status = ev->status;
	if (id)
		*id = ev->id;
	rdma_ack_cm_event(ev);
	if (got != (int)type)
		return probe_fail(s, -ECONNREFUSED, PROBE_ERR_SETUP, "Failed to %s: rdma_cm said %s "
				  "(status %d) instead of %s", step, rdma_event_str(got), status,
				  rdma_event_str(type));
	return 0;
}

static int cm_addr(const char *ip, uint16_t port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, ip, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		return 0;
	}
	if (inet_pton(AF_INET6, ip, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		return 0;
	}
	return -EINVAL;
}

static int cm_setup(struct probe_sess *s)
{
	struct rdma_state *r = state_new(s, true);
	struct sockaddr_storage ss;

	if (!r)
		return probe_fail(s, -ENOMEM, PROBE_ERR_SETUP, "Failed to allocate RDMA state");
	r->ec = rdma_create_event_channel();
	if (!r->ec)
		return probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to open rdma_cm: %s; is rdma_ucm "
				  "loaded?", strerror(errno));
	if (!s->server)
		return 0;
	if (rdma_create_id(r->ec, &r->listen_id, NULL, RDMA_PS_TCP) ||
	    cm_addr(s->ctl.local, s->cfg->port, &ss) ||
	    rdma_bind_addr(r->listen_id, (struct sockaddr *)&ss) || rdma_listen(r->listen_id, 8))
		return probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to listen with rdma_cm on %s "
				  "port %u: %s; does an RDMA device hold that address?", s->ctl.local,
				  s->cfg->port, strerror(errno));
	return 0;
}

/* Resources on the device rdma_cm chose, once the first cm_id knows it. */
static int cm_resources(struct probe_sess *s, struct rdma_state *r, struct rdma_cm_id *id)
{
	if (r->pd)
		return 0;
	r->vctx = id->verbs;
	r->port = id->port_num;
	snprintf(r->dev, sizeof(r->dev), "%s", ibv_get_device_name(id->verbs->device));
	memcpy(r->gid, &id->route.addr.addr.ibaddr.sgid, 16);
	r->gid_type = GID_TYPE_UNKNOWN;
	log_info(s->ctx, "rdma_cm chose %s/%u", r->dev, r->port);
	return open_resources(s, r);
}

static struct rdma_conn_param cm_param(void)
{
	struct rdma_conn_param p = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};

	return p;
}

static int cm_connect_one(struct probe_sess *s, struct rdma_state *r, unsigned int q)
{
	struct rdma_conn_param param = cm_param();
	struct sockaddr_storage src, dst;
	struct rdma_cm_id *id;
	int ret;

	if (rdma_create_id(r->ec, &r->ids[q], NULL, RDMA_PS_TCP))
		return probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to create a cm_id: %s", strerror(errno));
	id = r->ids[q];
	if (cm_addr(s->ctl.local, 0, &src) || cm_addr(s->ctl.peer, s->cfg->port, &dst))
		return probe_fail(s, -EINVAL, PROBE_ERR_SETUP, "Failed to parse the addresses");
	if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, s->cfg->timeout_ms))
		return probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to resolve %s with rdma_cm: %s; "
				  "no RDMA device holds %s?", s->ctl.peer, strerror(errno), s->ctl.local);
	ret = cm_wait(s, r, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, "resolve the peer's address");
	if (!ret && rdma_resolve_route(id, s->cfg->timeout_ms))
		ret = probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to resolve the route: %s", strerror(errno));
	if (!ret)
		ret = cm_wait(s, r, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, "resolve the route to the peer");
	if (!ret)
		ret = cm_resources(s, r, id);
	if (!ret)
		ret = create_qp(s, r, q, id);
	if (!ret && rdma_connect(id, &param))
		ret = probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to connect QP %u: %s", q, strerror(errno));
	if (!ret)
		ret = cm_wait(s, r, RDMA_CM_EVENT_ESTABLISHED, NULL, "connect through rdma_cm");
	return ret;
}

static int cm_accept_one(struct probe_sess *s, struct rdma_state *r, unsigned int q)
{
	struct rdma_conn_param param = cm_param();
	int ret;

	ret = cm_wait(s, r, RDMA_CM_EVENT_CONNECT_REQUEST, &r->ids[q], "accept an rdma_cm connection");
	if (!ret)
		ret = cm_resources(s, r, r->ids[q]);
	if (!ret)
		ret = create_qp(s, r, q, r->ids[q]);
	if (!ret && rdma_accept(r->ids[q], &param))
		ret = probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to accept QP %u: %s", q, strerror(errno));
	if (!ret)
		ret = cm_wait(s, r, RDMA_CM_EVENT_ESTABLISHED, NULL, "establish the rdma_cm connection");
	return ret;
}

static int cm_connect(struct probe_sess *s)
{
	struct rdma_state *r = s->priv;
	unsigned int q;
	int ret = 0;

	for (q = 0; q < s->req.qps && !ret; q++)
		ret = s->server ? cm_accept_one(s, r, q) : cm_connect_one(s, r, q);
	return ret;
}

static int cm_finish(struct probe_sess *s)
{
	struct rdma_state *r = s->priv;

	s->summary.inline_max = r->max_inline;
	return 0;
}

/* ---- teardown, in reverse ---- */

static void rdma_teardown(struct probe_sess *s)
{
	struct rdma_state *r = s->priv;
	unsigned int q;

	if (!r)
		return;
	for (q = 0; q < PROBE_MAX_QPS; q++) {
		if (r->cm && r->ids[q]) {
			if (r->qp[q])
				rdma_destroy_qp(r->ids[q]);
			rdma_destroy_id(r->ids[q]);
		} else if (r->qp[q]) {
			ibv_destroy_qp(r->qp[q]);
		}
	}
	if (r->mr)
		ibv_dereg_mr(r->mr);
	free(r->buf);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->chan)
		ibv_destroy_comp_channel(r->chan);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (!r->cm && r->vctx)
		ibv_close_device(r->vctx);
	if (r->listen_id)
		rdma_destroy_id(r->listen_id);
	if (r->ec)
		rdma_destroy_event_channel(r->ec);
	free(r->t_ns);
	free(r->bytes);
	free(r);
	s->priv = NULL;
}

const struct probe_ops probe_rdma_ops = {
	.name = "rdma",
	.setup = verbs_setup,
	.local_info = rdma_local_info,
	.finish = verbs_finish,
	.prepare = rdma_prepare,
	.bandwidth = rdma_bandwidth,
	.latency = rdma_latency,
	.teardown = rdma_teardown,
};

const struct probe_ops probe_rdma_cm_ops = {
	.name = "rdma-cm",
	.setup = cm_setup,
	.connect = cm_connect,
	.local_info = rdma_local_info,
	.finish = cm_finish,
	.prepare = rdma_prepare,
	.bandwidth = rdma_bandwidth,
	.latency = rdma_latency,
	.teardown = rdma_teardown,
};
