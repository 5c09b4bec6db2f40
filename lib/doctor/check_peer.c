// SPDX-License-Identifier: MIT
/*
 * The two-node checks of `rdmactl doctor --peer HOST`.  The peer runs
 * `rdmactl probe --server`; the doctor asks it once, on the first check
 * that needs it, and keeps what it learnt in struct peer_node:
 *
 *   1. the route to HOST (which netdev, which source address);
 *   2. the control connection (TCP), HELLO and the token's proof as the
 *      probe client does them (probe_client_open), then NODE_INFO_REQ for
 *      the peer's versions, MTUs and GIDs (an older server says UNSUPPORTED);
 *   3. a short RDMA probe: its set-up gives both ends' active MTU and GID,
 *      its row the bandwidth; when it fails with the control connection
 *      up, a TCP probe tells "TCP reaches the peer but RoCE does not".
 *
 * The bandwidth is compared with the local port's rate: under
 * PEER_MIN_FRACTION of it is a warning.  Software devices (rxe, siw) are
 * CPU-bound and not compared.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "doctor/check.h"
#include "doctor/checks.h"
#include "doctor/doctor_peer.h"
#include "node/gids.h"
#include "node/hwcnt.h"
#include "node/netdev.h"
#include "node/nodeinfo.h"
#include "probe/probe.h"
#include "probe/probe_ctl.h"

/* A probe under half the port's rate is worth a look (documented in rdmactl-doctor(8)). */
#define PEER_MIN_FRACTION 0.5
#define PEER_TIMEOUT_MS 5000
#define PEER_PROBE_MS 1000
#define PEER_BUSY_TRIES 10
/* On a software device, ACK timeouts at most one in this many packets are late ACKs. */
#define PEER_SOFT_LATE_ACK_PACKETS 100

struct peer_node {
	char ip[INET6_ADDRSTRLEN];	/* HOST resolved */
	int resolve_err;		/* getaddrinfo's EAI_*, 0 */
	char route_if[IF_NAMESIZE];
	char route_src[INET6_ADDRSTRLEN];
	int route_err;
	int ctl_err;			/* 0: the control connection and HELLO worked */
	char software[64];
	int info_err;			/* NODE_INFO: 0, -EOPNOTSUPP, ... */
	struct json_object *info;
	bool have_sum;
	struct probe_summary sum;
	bool have_row;
	struct probe_row row;
	bool counted;			/* the port's trouble counters were read around the probe */
	struct hwcnt grew;
	int rdma_err;
	int tcp_err;			/* the TCP probe; 1 when not run */
};

static int resolve(struct peer_node *pn, const char *host)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	int ret = getaddrinfo(host, NULL, &hints, &res);

	if (ret)
		return ret;
	if (res->ai_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr, pn->ip,
			  sizeof(pn->ip));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)res->ai_addr)->sin6_addr, pn->ip,
			  sizeof(pn->ip));
	freeaddrinfo(res);
	return 0;
}

/* The probe client's settings for a short session with the peer. */
static void peer_cfg(const struct node_facts *d, struct probe_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->port = (uint16_t)d->peer_port;
	cfg->timeout_ms = PEER_TIMEOUT_MS;
	cfg->gid_index = -1;
	cfg->token = d->token;
	cfg->ack_timeout = d->peer_ack_timeout;
}

/*
 * HELLO (and the token's proof) as the probe client does them, then
 * NODE_INFO_REQ, on a connection of its own.
 */
static void ask_node_info(struct node_facts *d, struct peer_node *pn)
{
	struct probe_frame f = { .type = PROBE_MSG_NODE_INFO_REQ };
	struct probe_hello hello;
	struct probe_ctl c;
	struct probe_cfg cfg;

	peer_cfg(d, &cfg);
	pn->ctl_err = probe_client_open(d->ctx, pn->ip, &cfg, &c, &hello);
	if (pn->ctl_err)
		return;
	snprintf(pn->software, sizeof(pn->software), "%s", hello.software);
	pn->info_err = ctl_send(&c, &f);
	if (!pn->info_err)
		pn->info_err = doctor_peer_read_info(&c, &pn->info);
	/* A server without the handler answers ERROR(UNSUPPORTED) and goes on. */
	if (pn->info_err == -EREMOTEIO && c.last_error.code == PROBE_ERR_UNSUPPORTED)
		pn->info_err = -EOPNOTSUPP;
	ctl_close(&c);
}

static void on_setup(struct probe_report *rep, const struct probe_summary *s)
{
	struct peer_node *pn = rep->arg;

	pn->sum = *s;
	pn->have_sum = true;
}

static void on_row(struct probe_report *rep, const struct probe_row *row)
{
	struct peer_node *pn = rep->arg;

	pn->row = *row;
	pn->have_row = true;
}

static void on_counters(struct probe_report *rep, const char *dev, unsigned int port,
			const struct hwcnt *grew)
{
	struct peer_node *pn = rep->arg;

	(void)dev;
	(void)port;
	pn->grew = *grew;
	pn->counted = true;
}

static int run_probe(struct node_facts *d, struct peer_node *pn, enum probe_transport tr)
{
	struct probe_report rep = { .setup = on_setup, .row = on_row, .counters = on_counters,
				    .arg = pn };
	struct probe_cfg cfg;

	peer_cfg(d, &cfg);
	cfg.req.transport = (uint8_t)tr;
	cfg.req.qps = 1;
	cfg.req.depth = 16;
	cfg.req.size_min = cfg.req.size_max = PROBE_DEFAULT_SIZE;
	cfg.req.duration_ms = PEER_PROBE_MS;
	return probe_client(d->ctx, pn->ip, &cfg, &rep);
}

/* Ask the peer everything once; NULL without --peer. */
static struct peer_node *peer_get(struct node_facts *d)
{
	struct peer_node *pn;

	if (!d->peer)
		return NULL;
	if (d->pn)
		return d->pn;
	pn = calloc(1, sizeof(*pn));
	if (!pn)
		return NULL;
	d->pn = pn;
	pn->tcp_err = 1;
	pn->resolve_err = resolve(pn, d->peer);
	if (pn->resolve_err)
		return pn;
	pn->route_err = netdev_route_to(d->ctx, pn->ip, pn->route_if, sizeof(pn->route_if),
					pn->route_src, sizeof(pn->route_src));
	ask_node_info(d, pn);
	if (pn->ctl_err)
		return pn;
	pn->rdma_err = run_probe(d, pn, PROBE_TRANSPORT_RDMA);
	if (pn->rdma_err) {
		struct probe_summary keep = pn->sum;
		bool had = pn->have_sum;

		/*
		 * The server may still be ending the failed session and answer
		 * BUSY (an ERROR: -EREMOTEIO); it is free again within seconds.
		 */
		for (int i = 0; i < PEER_BUSY_TRIES; i++) {
			pn->tcp_err = run_probe(d, pn, PROBE_TRANSPORT_TCP);
			if (pn->tcp_err != -EREMOTEIO)
				break;
			sleep(1);
		}
		pn->sum = keep;
		pn->have_sum = had;
		pn->have_row = false;
	}
	return pn;
}

void doctor_peer_free(struct node_facts *d)
{
	if (!d->pn)
		return;
	json_object_put(d->pn->info);
	free(d->pn);
	d->pn = NULL;
}

/* Field @key of the first port of the peer's NODE_INFO, or of the top level. */
static struct json_object *info_get(const struct peer_node *pn, const char *key, bool port)
{
	struct json_object *ports, *v;

	if (!pn->info)
		return NULL;
	if (port) {
		if (!json_object_object_get_ex(pn->info, "ports", &ports) ||
		    !json_object_is_type(ports, json_type_array) || !json_object_array_length(ports))
			return NULL;
		return json_object_object_get_ex(json_object_array_get_idx(ports, 0), key, &v) ? v : NULL;
	}
	return json_object_object_get_ex(pn->info, key, &v) ? v : NULL;
}

static const char *info_str(const struct peer_node *pn, const char *key)
{
	struct json_object *v = info_get(pn, key, false);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* ---- pieces other checks add ---- */

/* The server answered but refused the handshake: why, or NULL for another failure. */
static const char *refusal(int err)
{
	switch (err) {
	case -EACCES:
		return "authentication failed";
	case -EPROTONOSUPPORT:
		return "it speaks another probe protocol version";
	default:
		return NULL;
	}
}

static void refusal_fix(struct node_facts *d, struct check_result *r, int err)
{
	if (err == -EACCES)
		check_fix(r, "set RDMACTL_TOKEN (or --token) to the token of the probe server on %s",
			  d->peer);
	else
		check_fix(r, "run the same rdmactl version on both nodes");
}

void doctor_peer_mtu(struct node_facts *d, struct check_result *r)
{
	struct peer_node *pn = peer_get(d);
	struct json_object *nd;
	int mine, theirs;

	if (!pn || !pn->have_sum)
		return;
	mine = pn->sum.local.mtu;
	theirs = pn->sum.remote.mtu;
	nd = info_get(pn, "netdev_mtu", true);
	if (mine == theirs) {
		check_note(r, CHECK_OK, "peer %s: active MTU %d on both ends", d->peer, mine);
		return;
	}
	check_note(r, CHECK_FAIL, "peer %s: active MTU %d here, %d there%s%s: a job that takes its "
		   "own end's MTU gets IBV_WC_LOC_LEN_ERR, and NCCL hangs", d->peer, mine, theirs,
		   nd ? ", peer netdev MTU " : "", nd ? json_object_get_string(nd) : "");
	check_fix(r, "give both netdevs the same MTU (ip link set IF mtu 9000 on each node)");
}

void doctor_peer_versions(struct node_facts *d, struct check_result *r, const char *kernel,
			  const char *rdma_core)
{
	struct peer_node *pn = peer_get(d);
	const char *pk, *pc;

	if (!pn)
		return;
	if (refusal(pn->ctl_err)) {
		check_note(r, CHECK_FAIL, "peer %s: cannot ask its versions: %s", d->peer,
			   refusal(pn->ctl_err));
		refusal_fix(d, r, pn->ctl_err);
		return;
	}
	if (pn->ctl_err)
		return;
	if (pn->info_err) {
		check_note(r, CHECK_OK, "peer %s runs %s, which does not report its versions", d->peer,
			   pn->software);
		return;
	}
	pk = info_str(pn, "kernel");
	pc = info_str(pn, "rdma_core");
	if (pk && strcmp(pk, kernel)) {
		check_note(r, CHECK_WARN, "peer %s runs kernel %s", d->peer, pk);
		check_fix(r, "run the same kernel on both nodes");
	}
	if (pc && strcmp(pc, rdma_core)) {
		check_note(r, CHECK_WARN, "peer %s has rdma-core %s", d->peer, pc);
		check_fix(r, "install the same rdma-core on both nodes");
	}
	if (r->status == CHECK_OK)
		check_note(r, CHECK_OK, "peer %s: the same kernel and rdma-core", d->peer);
}

void doctor_peer_firewall(struct node_facts *d, struct check_result *r)
{
	struct peer_node *pn = peer_get(d);

	if (!pn || pn->resolve_err)
		return;
	if (refusal(pn->ctl_err)) {
		check_note(r, CHECK_WARN, "peer %s: TCP port %u answers, but RoCE traffic not tested: %s",
			   d->peer, d->peer_port, refusal(pn->ctl_err));
		refusal_fix(d, r, pn->ctl_err);
		return;
	}
	if (pn->ctl_err) {
		check_note(r, CHECK_FAIL, "peer %s: TCP port %u does not answer (%s)", d->peer,
			   d->peer_port, ctl_strerror(pn->ctl_err));
		check_fix(r, "on %s: rdmactl probe --server, and open TCP %u there", d->peer,
			  d->peer_port);
		return;
	}
	if (!pn->rdma_err) {
		check_note(r, CHECK_OK, "peer %s: TCP and RoCE traffic both pass", d->peer);
		return;
	}
	/* Only a probe whose ends were both set up tells packets were lost. */
	if (!pn->have_sum) {
		check_note(r, CHECK_WARN, "peer %s: RoCE traffic not tested: the RDMA probe could not "
			   "set up (%s)", d->peer, strerror(-pn->rdma_err));
		check_fix(r, "see the devices and peer checks");
		return;
	}
	if (!pn->tcp_err) {
		check_note(r, CHECK_FAIL, "peer %s: TCP reaches the peer but RoCE does not (the RDMA "
			   "probe failed: %s)", d->peer, strerror(-pn->rdma_err));
		check_fix(r, "on both nodes let UDP 4791 in: nft list ruleset | grep 4791, or "
			  "rdmactl doctor --only firewall there");
	} else {
		check_note(r, CHECK_FAIL, "peer %s: the control connection works but neither an RDMA "
			   "nor a TCP data probe passed (%s)", d->peer, strerror(-pn->rdma_err));
		check_fix(r, "rdmactl probe %s -v, and rdmactl doctor on %s", d->peer, d->peer);
	}
}

/* ---- the peer check itself ---- */

/* The local address on @ifname whose prefix holds @ip; false when none. */
static bool same_subnet(struct node_facts *d, const char *ifname, const char *ip, char *mine,
			size_t len)
{
	struct netdev_info info;
	uint8_t a[16], b[16];
	bool found = false;
	size_t k;

	memset(&info, 0, sizeof(info));
	if (netdev_get(d->ctx, ifname, &info))
		return true;	/* cannot tell: do not accuse */
	for (k = 0; k < info.n_addrs && !found; k++) {
		const struct netdev_addr *na = &info.addrs[k];
		int fam = na->family, bits = na->prefixlen, whole, rest;

		if (inet_pton(fam, na->addr, a) != 1 || inet_pton(fam, ip, b) != 1)
			continue;
		whole = bits / 8;
		rest = bits % 8;
		found = !memcmp(a, b, (size_t)whole) &&
			(!rest || !((a[whole] ^ b[whole]) & (uint8_t)(0xff << (8 - rest))));
		if (found)
			snprintf(mine, len, "%s/%d", na->addr, na->prefixlen);
	}
	netdev_info_free(&info);
	return found;
}

static void peer_route(struct node_facts *d, struct check_result *r, struct peer_node *pn)
{
	const struct rdma_dev *dev = NULL;
	const struct rdma_port *p;
	char mine[64] = "";

	if (pn->route_err) {
		check_note(r, CHECK_FAIL, "no route to %s (%s)", pn->ip, strerror(-pn->route_err));
		check_fix(r, "ip route get %s", pn->ip);
		return;
	}
	/* A VLAN, macvlan or LAG bond stacked on a port's netdev carries that port's traffic. */
	p = rdma_port_by_route(&d->node, pn->route_if, NULL, &dev, NULL, 0);
	if (!p) {
		check_note(r, CHECK_FAIL, "the route to %s leaves through %s, which carries no RDMA port",
			   pn->ip, pn->route_if);
		check_fix(r, "use the peer's address on the RoCE network, or ip route add %s dev "
			  "ROCE_IF", pn->ip);
		return;
	}
	check_note(r, CHECK_OK, "route to %s via %s (%s/%u)", pn->ip, pn->route_if, dev->name, p->num);
	if (!same_subnet(d, pn->route_if, pn->ip, mine, sizeof(mine))) {
		check_note(r, CHECK_WARN, "%s is not in a subnet of %s: RoCE v2 then needs routers that "
			   "carry it", pn->ip, pn->route_if);
		check_fix(r, "put both RoCE netdevs in one subnet");
	} else if (mine[0]) {
		check_note(r, CHECK_OK, "same subnet (%s)", mine);
	}
}

static void peer_gids(struct check_result *r, const struct peer_node *pn)
{
	bool mine4 = pn->sum.local.gid[10] == 0xff && pn->sum.local.gid[11] == 0xff;
	bool theirs4 = pn->sum.remote.gid[10] == 0xff && pn->sum.remote.gid[11] == 0xff;
	char a[48], b[48];

	if (mine4 != theirs4) {
		check_note(r, CHECK_FAIL, "GID families differ: %s here, %s there",
			   gid_str(pn->sum.local.gid, a, sizeof(a)), gid_str(pn->sum.remote.gid, b, sizeof(b)));
		check_fix(r, "give both RoCE netdevs an IPv4 address (see roce.ipv4 on each node)");
	} else {
		check_note(r, CHECK_OK, "GIDs %s / %s (%s)", gid_str(pn->sum.local.gid, a, sizeof(a)),
			   gid_str(pn->sum.remote.gid, b, sizeof(b)), mine4 ? "IPv4" : "IPv6");
	}
}

static void peer_bandwidth(struct node_facts *d, struct check_result *r, const struct peer_node *pn)
{
	const struct rdma_dev *dev = rdma_dev_find(&d->node, pn->sum.local.dev);
	const struct rdma_port *p = dev ? rdma_port_find(dev, pn->sum.local.port_num) : NULL;
	bool soft = dev && rdma_dev_is_soft(dev);

	if (!pn->have_row)
		return;
	if (!p || p->rate_gbps <= 0 || soft) {
		check_note(r, CHECK_OK, "RDMA probe %.2f Gb/s%s", pn->row.avg_gbps,
			   soft ? " (Soft-RoCE: CPU-bound, not compared with the port rate)" : "");
		return;
	}
	if (pn->row.avg_gbps < p->rate_gbps * PEER_MIN_FRACTION) {
		check_note(r, CHECK_WARN, "RDMA probe %.2f Gb/s, under %.0f%% of %s/%u's %.0f Gb/s",
			   pn->row.avg_gbps, PEER_MIN_FRACTION * 100, dev->name, p->num, p->rate_gbps);
		check_fix(r, "rdmactl probe %s --qps 4 to measure longer; check PFC/ECN and the link "
			  "speed on both ends", d->peer);
	} else {
		check_note(r, CHECK_OK, "RDMA probe %.2f Gb/s of %.0f Gb/s", pn->row.avg_gbps,
			   p->rate_gbps);
	}
}

/*
 * The packets the probe sent (its messages in path-MTU packets), 0 when it
 * did not finish.
 */
static uint64_t peer_packets(const struct peer_node *pn)
{
	uint64_t mtu = pn->sum.path_mtu;

	if (!pn->have_row || !mtu || pn->rdma_err)
		return 0;
	return pn->row.msgs * ((pn->row.size + mtu - 1) / mtu);
}

/*
 * Late ACKs, not lost packets: on a software device the peer's ACKs come
 * from a kernel thread, and a CPU busy elsewhere for longer than the QP's
 * ACK timeout (67 ms, probe_rdma.c) makes this end send writes again that had arrived
 * (seen on Soft-RoCE pairs on a loaded host: +1 to +3 in a healthy
 * one-second probe).  So when only ACK timeouts grew, no sequence gap was
 * NAKed and they are at most one in PEER_SOFT_LATE_ACK_PACKETS packets.
 * Lost packets are NAKed as sequence errors, and a loss rate that matters
 * makes far more timeouts than that.
 */
static bool peer_late_acks(struct node_facts *d, const struct peer_node *pn, uint64_t packets)
{
	const struct rdma_dev *dev = rdma_dev_find(&d->node, pn->sum.local.dev);
	int64_t timeouts = hwcnt_ack_timeouts_only(&pn->grew);

	return packets && timeouts >= 0 && dev && rdma_dev_is_soft(dev) &&
	       (uint64_t)timeouts * PEER_SOFT_LATE_ACK_PACKETS <= packets;
}

/* Packets lost during the probe show in the port's counters, whatever the bandwidth. */
static void peer_losses(struct node_facts *d, struct check_result *r, const struct peer_node *pn)
{
	uint64_t packets = peer_packets(pn);
	char list[256] = "";
	size_t len = 0;
	unsigned int i;

	if (!pn->counted || !pn->grew.n)
		return;
	for (i = 0; i < pn->grew.n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s +%llu", i ? ", " : "",
					pn->grew.c[i].name, (unsigned long long)pn->grew.c[i].value);
	if (peer_late_acks(d, pn, packets)) {
		check_note(r, CHECK_OK, "%s/%u counted %s in about %llu packets of the RDMA probe, "
			   "no sequence gap: ACKs came late (on Soft-RoCE, a busy CPU) or were lost, "
			   "no write was", pn->sum.local.dev,
			   pn->sum.local.port_num, list, (unsigned long long)packets);
		return;
	}
	check_note(r, CHECK_WARN, "%s/%u counted %s during the RDMA probe: %s", pn->sum.local.dev,
		   pn->sum.local.port_num, list, hwcnt_meaning(pn->grew.c[0].name));
	check_fix(r, "RoCE needs a lossless path: check PFC or ECN on the switch ports and NICs, "
		  "the cabling, and nft/iptables rules on UDP 4791; rdmactl probe %s -D 10 "
		  "shows whether the counters keep growing", d->peer);
}

void check_peer(struct node_facts *d, struct check_result *r)
{
	struct peer_node *pn;

	if (!d->peer) {
		check_skip(r, "no --peer HOST given");
		return;
	}
	pn = peer_get(d);
	if (!pn) {
		check_note(r, CHECK_FAIL, "out of memory");
		return;
	}
	if (pn->resolve_err) {
		check_note(r, CHECK_FAIL, "cannot resolve '%s': %s", d->peer, gai_strerror(pn->resolve_err));
		check_fix(r, "give the peer's IP address on the RoCE network");
		return;
	}
	peer_route(d, r, pn);
	if (refusal(pn->ctl_err)) {
		check_note(r, CHECK_FAIL, "control connection to %s port %u: %s", pn->ip, d->peer_port,
			   refusal(pn->ctl_err));
		refusal_fix(d, r, pn->ctl_err);
		return;
	}
	if (pn->ctl_err) {
		check_note(r, CHECK_FAIL, "control connection to %s port %u: %s", pn->ip, d->peer_port,
			   ctl_strerror(pn->ctl_err));
		check_fix(r, "on %s: rdmactl probe --server", d->peer);
		return;
	}
	check_note(r, CHECK_OK, "control connection to %s (%s)", pn->ip, pn->software);
	if (pn->have_sum)
		peer_gids(r, pn);
	if (pn->rdma_err) {
		check_note(r, CHECK_FAIL, "the RDMA probe %s: %s%s",
			   pn->have_sum ? "failed" : "could not set up", strerror(-pn->rdma_err),
			   pn->have_sum && !pn->tcp_err ? " while TCP passes (see firewall)" : "");
		check_fix(r, "rdmactl probe %s -v", d->peer);
		peer_losses(d, r, pn);
		return;
	}
	peer_bandwidth(d, r, pn);
	peer_losses(d, r, pn);
}
