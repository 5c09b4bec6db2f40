// SPDX-License-Identifier: MIT
/*
 * The two-node test's table, printed alike by both ends: the client
 * (probe_client.c) and the server (probe_server.c).  The session itself
 * is lib/probe/probe.c; this is its report (struct probe_report).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "cmds.h"
#include "node/hwcnt.h"
#include "node/rdma.h"
#include "probe_mode.h"

static const struct column probe_cols[] = {
	{ "bytes", "BYTES", COL_RIGHT, NULL },
	{ "msgs", "MSGS", COL_RIGHT, NULL },
	{ "bw_peak_gbps", "PEAK_Gb/s", COL_RIGHT, NULL },
	{ "bw_avg_gbps", "AVG_Gb/s", COL_RIGHT, NULL },
	{ "bw_peak_MBps", "PEAK_MB/s", COL_RIGHT, NULL },
	{ "bw_avg_MBps", "AVG_MB/s", COL_RIGHT, NULL },
	{ "msg_rate_mpps", "MRATE_Mpps", COL_RIGHT, NULL },
	{ "lat_min_us", "LAT_MIN_us", COL_RIGHT, NULL },
	{ "lat_median_us", "LAT_MED_us", COL_RIGHT, NULL },
	{ "lat_p99_us", "LAT_P99_us", COL_RIGHT, NULL },
	{ "verify_errors", "VERIFY_ERR", COL_RIGHT | COL_WIDE, NULL },
	{ 0 }
};

struct probe_out {
	struct ctx *ctx;
	struct probe_report rep;
	struct table *t;
	struct json_object *info;
	bool server, once, verify;
	double best_gbps;
	uint64_t verify_errors;
	int err;
	/* The port counters that grew during the session (RDMA, when readable). */
	bool counted;
	char counted_port[80];
	struct hwcnt grew;
};

static struct json_object *ep_json(const struct probe_ep_info *ep, const char *gid_type, bool rdma)
{
	struct json_object *o = json_object_new_object();
	char gid[48];

	row_str(o, "address", ep->addr);
	if (!rdma)
		return o;
	row_str(o, "device", ep->dev);
	row_int(o, "port", ep->port_num);
	if (ep->gid_index == UINT32_MAX)
		row_str(o, "gid_index", NULL);
	else
		row_int(o, "gid_index", ep->gid_index);
	row_str(o, "gid", gid_str(ep->gid, gid, sizeof(gid)));
	row_str(o, "gid_type", gid_type);
	row_int(o, "active_mtu", ep->mtu);
	return o;
}

static void ep_text(struct ctx *ctx, const char *who, const struct probe_ep_info *ep,
		    const char *gid_type, bool rdma)
{
	char gidx[16] = "rdma_cm";

	if (!rdma) {
		print_text(ctx, "  %-6s %s\n", who, ep->addr);
		return;
	}
	if (ep->gid_index != UINT32_MAX)
		snprintf(gidx, sizeof(gidx), "%u", ep->gid_index);
	print_text(ctx, "  %-6s %s  %s/%u  GID index %s (%s)  active MTU %u\n", who, ep->addr, ep->dev,
		   ep->port_num, gidx, gid_type, ep->mtu);
}

static void on_setup(struct probe_report *rep, const struct probe_summary *m)
{
	struct probe_out *o = rep->arg;
	bool rdma = strcmp(m->transport, "tcp");
	struct json_object *info = json_object_new_object();

	row_str(info, "transport", m->transport);
	json_object_object_add(info, "local", ep_json(&m->local, m->local_gid_type, rdma));
	json_object_object_add(info, "remote", ep_json(&m->remote, m->remote_gid_type, rdma));
	if (rdma) {
		row_int(info, "path_mtu", m->path_mtu);
		row_int(info, "inline_max", m->inline_max);
	}
	json_object_put(o->info);
	o->info = info;
	print_text(o->ctx, "%s probe over %s\n", o->server ? "Serving a" : "A", m->transport);
	ep_text(o->ctx, "local", &m->local, m->local_gid_type, rdma);
	ep_text(o->ctx, "remote", &m->remote, m->remote_gid_type, rdma);
	if (rdma)
		print_text(o->ctx, "  path MTU %u, writes up to %u B posted inline\n", m->path_mtu,
			   m->inline_max);
}

static void on_row(struct probe_report *rep, const struct probe_row *r)
{
	struct probe_out *o = rep->arg;
	struct json_object *row = table_row(o->t);

	row_int(row, "bytes", (int64_t)r->size);
	row_int(row, "msgs", (int64_t)r->msgs);
	row_double(row, "bw_peak_gbps", r->peak_gbps, 3);
	row_double(row, "bw_avg_gbps", r->avg_gbps, 3);
	row_double(row, "bw_peak_MBps", r->peak_gbps * 1e3 / 8, 2);
	row_double(row, "bw_avg_MBps", r->avg_gbps * 1e3 / 8, 2);
	row_double(row, "msg_rate_mpps", r->msg_rate_mpps, 4);
	if (r->lat_min_us >= 0) {
		row_double(row, "lat_min_us", r->lat_min_us, 2);
		row_double(row, "lat_median_us", r->lat_med_us, 2);
		row_double(row, "lat_p99_us", r->lat_p99_us, 2);
	} else {
		row_nulls(row, "lat_min_us", "lat_median_us", "lat_p99_us", NULL);
	}
	if (o->verify)
		row_int(row, "verify_errors", (int64_t)r->verify_errors);
	else
		row_str(row, "verify_errors", NULL);
	if (r->avg_gbps > o->best_gbps)
		o->best_gbps = r->avg_gbps;
	o->verify_errors += r->verify_errors;
}

static void on_counters(struct probe_report *rep, const char *dev, unsigned int port,
			const struct hwcnt *grew)
{
	struct probe_out *o = rep->arg;
	struct json_object *c = json_object_new_object();
	unsigned int i;

	for (i = 0; i < grew->n; i++)
		row_int(c, grew->c[i].name, (int64_t)grew->c[i].value);
	if (o->info)
		json_object_object_add(o->info, "port_counters", c);
	else
		json_object_put(c);
	o->counted = true;
	o->grew = *grew;
	snprintf(o->counted_port, sizeof(o->counted_port), "%s/%u", dev, port);
}

/* After the table: what the port counted, quiet or not. */
static void counters_text(struct probe_out *o)
{
	unsigned int i;

	if (!o->counted)
		return;
	o->counted = false;
	if (!o->grew.n) {
		print_text(o->ctx, "  %s counted no retransmission, sequence gap, RNR NAK or congestion "
			   "mark during the run\n", o->counted_port);
		return;
	}
	print_text(o->ctx, "  %s counters that grew during the run (port-wide: other traffic counts too):\n",
		   o->counted_port);
	for (i = 0; i < o->grew.n; i++)
		print_text(o->ctx, "    %s +%llu: %s\n", o->grew.c[i].name,
			   (unsigned long long)o->grew.c[i].value, hwcnt_meaning(o->grew.c[i].name));
}

static void emit(struct probe_out *o, const char *peer, int err)
{
	bool rows = table_rows(o->t) > 0;

	if (o->ctx->json) {
		struct json_object *info = o->info ? o->info : json_object_new_object();

		if (o->server)
			row_str(info, "client", peer);
		row_bool(info, "ok", !err);
		json_attach(o->ctx, "probe", info);
		o->info = NULL;
	}
	table_emit(o->ctx, o->t, "results");
	o->t = table_new(probe_cols);
	if (rows)
		print_text(o->ctx, "  MB = 10^6 bytes, Gb = 10^9 bits (perftest's MB/sec or MiB/sec is 2^20 B/s = "
			   "MB/s / 1.048576); latency = half a write round trip\n");
	counters_text(o);
}

static void on_end(struct probe_report *rep, const char *peer, int err)
{
	struct probe_out *o = rep->arg;

	o->err = err;
	if (!o->server)
		return;
	emit(o, peer, err);
	/* A long-running server prints one JSON document per session, a failed one with its error. */
	if (!o->once && o->ctx->json) {
		if (err)
			attach_error(o->ctx, err == -EINVAL ? RC_USAGE : RC_PROBLEM);
		output_finish(o->ctx);
		log_last_error_clear();
	}
	fflush(stdout);
}

static int verdict(struct probe_out *o, const struct probe_cfg *cfg)
{
	if (o->verify_errors) {
		log_err(o->ctx, "Failed to verify the data: %llu byte(s) differ from the pattern "
			"written; the path corrupts data", (unsigned long long)o->verify_errors);
		return RC_PROBLEM;
	}
	if (cfg->expect_gbps > 0 && o->best_gbps < cfg->expect_gbps) {
		log_err(o->ctx, "Failed to reach the expected bandwidth: %.3f Gb/s < %.3f Gb/s (--expect)",
			o->best_gbps, cfg->expect_gbps);
		return RC_PROBLEM;
	}
	return RC_OK;
}

int probe_table_run(struct ctx *ctx, struct probe_args *a, const char *peer)
{
	struct probe_out o = { .ctx = ctx, .server = a->server, .once = a->cfg.once };
	int ret, rc;

	o.verify = a->cfg.req.flags & PROBE_F_VERIFY;
	o.rep = (struct probe_report){ .setup = on_setup, .row = on_row, .counters = on_counters,
				       .end = on_end, .arg = &o };
	o.t = table_new(probe_cols);
	if (!o.t)
		return RC_PROBLEM;
	if (a->server)
		ret = probe_server(ctx, &a->cfg, &o.rep);
	else
		ret = probe_client(ctx, peer, &a->cfg, &o.rep);
	if (!a->server)
		emit(&o, peer, ret);
	table_free(o.t);
	json_object_put(o.info);
	if (ret)
		return ret == -EINVAL ? RC_USAGE : RC_PROBLEM;
	rc = a->server ? RC_OK : verdict(&o, &a->cfg);
	return rc;
}

