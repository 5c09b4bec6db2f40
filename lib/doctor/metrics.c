// SPDX-License-Identifier: MIT
/*
 * The doctor's results as Prometheus metrics (doctor/metrics.h).  Each
 * family is written whole, HELP and TYPE first, then its samples: the text
 * format wants a family's samples together, so the ports are walked once
 * per family rather than once in all.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/output.h"
#include "base/text.h"
#include "doctor/doc.h"
#include "doctor/doctor.h"
#include "doctor/metrics.h"
#include "doctor/port_rules.h"
#include "node/gids.h"
#include "node/hwcnt.h"
#include "node/limits.h"
#include "node/netdev.h"
#include "node/rdma.h"

#ifndef RDMACTL_VERSION
#define RDMACTL_VERSION "unknown"
#endif

/*
 * The hardware counters that point at loss, by the family they are
 * exported in; the driver's own name stays in the "counter" label, since
 * rxe and mlx5 count the same event under different names (hwcnt.c).
 */
static const struct {
	const char *counter, *family;
} loss_counters[] = {
	{ "completer_retry_err", "rdmactl_port_retransmissions_total" },
	{ "local_ack_timeout_err", "rdmactl_port_retransmissions_total" },
	{ "rcvd_seq_err", "rdmactl_port_sequence_errors_total" },
	{ "packet_seq_err", "rdmactl_port_sequence_errors_total" },
	{ "out_of_sequence", "rdmactl_port_sequence_errors_total" },
	{ "out_of_seq_request", "rdmactl_port_sequence_errors_total" },
	{ "implied_nak_seq_err", "rdmactl_port_sequence_errors_total" },
	{ "np_cnp_sent", "rdmactl_port_cnp_sent_total" },
	{ "rp_cnp_handled", "rdmactl_port_cnp_handled_total" },
	{ "np_ecn_marked_roce_packets", "rdmactl_port_ecn_marked_packets_total" },
};

static const struct {
	const char *name, *help;
} loss_families[] = {
	{ "rdmactl_port_retransmissions_total",
	  "Requests sent again after an ACK timeout (packets lost on the path), from the port's hw_counters." },
	{ "rdmactl_port_sequence_errors_total",
	  "Packet sequence gaps seen or NAKed (packets lost on the path), from the port's hw_counters." },
	{ "rdmactl_port_cnp_sent_total",
	  "Congestion notification packets sent: the fabric marked packets for congestion." },
	{ "rdmactl_port_cnp_handled_total",
	  "Congestion notification packets received: this end was told to slow down." },
	{ "rdmactl_port_ecn_marked_packets_total", "ECN-marked RoCE packets received." },
};

/* What every family walks: the node's ports, each with its counters. */
struct metrics {
	struct node_facts *d;
	FILE *f;
	struct hwcnt *cnt;	/* one per port in node order; n 0 when unread */
	size_t nports;
	const char *loss;	/* the counter family port_loss() writes */
};

typedef void port_fn(struct metrics *m, const struct rdma_dev *dev, const struct rdma_port *p,
		     const struct hwcnt *cnt);

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * A label value in quotes, with \, " and newline escaped as the format
 * asks.  The format wants UTF-8, and Linux allows a netdev named
 * "ens\xff": text_safe() writes such a byte (and any control byte but
 * newline and tab) as the four characters "\xff", as the tables show it,
 * so that two such names stay two series.
 */
static void label_value(FILE *f, const char *raw)
{
	size_t len = strlen(raw) * 4 + 1;
	char *safe = malloc(len);
	const char *s;

	if (!safe) {
		fputs("\"?\"", f);
		return;
	}
	text_safe(raw, safe, len, TEXT_KEEP_NL);
	fputc('"', f);
	for (s = safe; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
	free(safe);
}

static void port_labels(FILE *f, const struct rdma_dev *dev, const struct rdma_port *p)
{
	fputs("device=", f);
	label_value(f, dev->name);
	fprintf(f, ",port=\"%u\"", p->num);
}

static void each_port(struct metrics *m, port_fn *fn)
{
	const struct rdma_node *node = &m->d->node;
	size_t i, k = 0;
	unsigned int j;

	if (m->d->node_err)
		return;
	for (i = 0; i < node->n; i++)
		for (j = 0; node->devs[i].ports && j < node->devs[i].nports; j++, k++)
			fn(m, &node->devs[i], &node->devs[i].ports[j], &m->cnt[k]);
}

static void info(struct metrics *m)
{
	family(m->f, "rdmactl_info", "gauge", "The rdmactl that wrote these metrics, in its labels.");
	fprintf(m->f, "rdmactl_info{version=\"%s\"} 1\n", RDMACTL_VERSION);
}

/* One series per check, 1 with the status it had: ok, warn, fail or skip. */
static void checks(struct metrics *m, const struct table *t)
{
	size_t i;

	family(m->f, "rdmactl_check_status", "gauge",
	       "Result of a doctor check: 1 for the status it had (ok, warn, fail, skip).");
	for (i = 0; i < table_rows(t); i++) {
		struct json_object *row = table_get_row(t, i), *st, *id;
		int status;

		if (!json_object_object_get_ex(row, DOC_STATUS, &st) ||
		    !json_object_object_get_ex(row, DOC_ID, &id) ||
		    (status = check_status_parse(json_object_get_string(st))) < 0)
			continue;
		fputs("rdmactl_check_status{check=", m->f);
		label_value(m->f, json_object_get_string(id));
		/* The label as the JSON spells it, whatever the row's case. */
		fprintf(m->f, ",status=\"%s\"} 1\n", check_status_str((enum check_status)status));
	}
}

static void port_state(struct metrics *m, const struct rdma_dev *dev, const struct rdma_port *p,
		       const struct hwcnt *cnt)
{
	(void)cnt;
	fputs("rdmactl_port_state{", m->f);
	port_labels(m->f, dev, p);
	fprintf(m->f, ",state=\"%s\",phys_state=\"%s\"} 1\n", port_state_str(p->state),
		phys_state_str(p->phys_state));
}

static void port_active_mtu(struct metrics *m, const struct rdma_dev *dev,
			    const struct rdma_port *p, const struct hwcnt *cnt)
{
	(void)cnt;
	if (!p->active_mtu)
		return;
	fputs("rdmactl_port_active_mtu_bytes{", m->f);
	port_labels(m->f, dev, p);
	fprintf(m->f, "} %d\n", p->active_mtu);
}

static void port_max_mtu(struct metrics *m, const struct rdma_dev *dev, const struct rdma_port *p,
			 const struct hwcnt *cnt)
{
	(void)cnt;
	if (!p->max_mtu)
		return;
	fputs("rdmactl_port_max_mtu_bytes{", m->f);
	port_labels(m->f, dev, p);
	fprintf(m->f, "} %d\n", p->max_mtu);
}

static void port_netdev_mtu(struct metrics *m, const struct rdma_dev *dev,
			    const struct rdma_port *p, const struct hwcnt *cnt)
{
	int mtu;

	(void)cnt;
	if (!p->netdev[0] || netdev_sysfs_mtu(m->d->ctx, p->netdev, &mtu))
		return;
	fputs("rdmactl_port_netdev_mtu_bytes{", m->f);
	port_labels(m->f, dev, p);
	fputs(",netdev=", m->f);
	label_value(m->f, p->netdev);
	fprintf(m->f, "} %d\n", mtu);
}

/* The GID index the roce.gid check recommends (RoCE v2, IPv4, on the port's netdev). */
static void port_gid(struct metrics *m, const struct rdma_dev *dev, const struct rdma_port *p,
		     const struct hwcnt *cnt)
{
	struct gid_choice c;

	(void)cnt;
	if (!doctor_gid_choose(p, &c))
		return;
	fputs("rdmactl_port_gid_index{", m->f);
	port_labels(m->f, dev, p);
	fprintf(m->f, "} %u\n", c.gid->index);
}

static void ports(struct metrics *m)
{
	family(m->f, "rdmactl_port_state", "gauge",
	       "An RDMA port: 1 with its logical and physical state in the labels.");
	each_port(m, port_state);
	family(m->f, "rdmactl_port_active_mtu_bytes", "gauge", "Active RDMA MTU of the port.");
	each_port(m, port_active_mtu);
	family(m->f, "rdmactl_port_max_mtu_bytes", "gauge", "Largest RDMA MTU the port supports.");
	each_port(m, port_max_mtu);
	family(m->f, "rdmactl_port_netdev_mtu_bytes", "gauge",
	       "MTU of the port's network interface (RoCE), which caps the RDMA MTU.");
	each_port(m, port_netdev_mtu);
	family(m->f, "rdmactl_port_gid_index", "gauge",
	       "The GID index jobs should use on the port (RoCE v2, IPv4), as the roce.gid check recommends.");
	each_port(m, port_gid);
}

static void memlock_value(FILE *f, const char *name, const char *scope, uint64_t v)
{
	if (v == MEMLOCK_INFINITY)
		fprintf(f, "%s{scope=\"%s\"} +Inf\n", name, scope);
	else
		fprintf(f, "%s{scope=\"%s\"} %llu\n", name, scope, (unsigned long long)v);
}

/* True when check @id ran (was not left out with --only or --skip). */
static bool check_ran(const struct table *t, const char *id)
{
	size_t i;

	for (i = 0; i < table_rows(t); i++) {
		struct json_object *row = table_get_row(t, i), *v;

		if (json_object_object_get_ex(row, DOC_ID, &v) && !strcmp(json_object_get_string(v), id))
			return true;
	}
	return false;
}

/*
 * The three scopes of the memlock.* checks, by the same names, each only
 * when its check ran: the timer's service skips memlock.shell, whose limit
 * would be the service's own and not a job's.
 */
static void memlock(struct metrics *m, const struct table *t)
{
	static const char *const scope[] = { "shell", "login", "systemd" };
	struct memlock ml[3];
	int ok[3];
	size_t i;

	ok[0] = check_ran(t, "memlock.shell") && !limits_process(m->d->ctx, 0, &ml[0]);
	ok[1] = check_ran(t, "memlock.login") && !limits_pam(m->d->ctx, NULL, &ml[1]);
	ok[2] = check_ran(t, "memlock.systemd") && !limits_systemd(m->d->ctx, &ml[2]);
	family(m->f, "rdmactl_memlock_soft_limit_bytes", "gauge",
	       "Soft locked-memory limit (RLIMIT_MEMLOCK) of this shell, PAM logins and systemd services; +Inf when unlimited.");
	for (i = 0; i < 3; i++)
		if (ok[i])
			memlock_value(m->f, "rdmactl_memlock_soft_limit_bytes", scope[i], ml[i].soft);
	family(m->f, "rdmactl_memlock_hard_limit_bytes", "gauge",
	       "Hard locked-memory limit (RLIMIT_MEMLOCK) of this shell, PAM logins and systemd services; +Inf when unlimited.");
	for (i = 0; i < 3; i++)
		if (ok[i])
			memlock_value(m->f, "rdmactl_memlock_hard_limit_bytes", scope[i], ml[i].hard);
}

/* The value of counter @name in @cnt; false when the port has no such counter. */
static bool counter_value(const struct hwcnt *cnt, const char *name, uint64_t *v)
{
	unsigned int i;

	for (i = 0; i < cnt->n; i++)
		if (!strcmp(cnt->c[i].name, name)) {
			*v = cnt->c[i].value;
			return true;
		}
	return false;
}

/* The counters of family m->loss, in the table's order (readdir's is the filesystem's). */
static void port_loss(struct metrics *m, const struct rdma_dev *dev, const struct rdma_port *p,
		      const struct hwcnt *cnt)
{
	size_t i;
	uint64_t v;

	for (i = 0; i < sizeof(loss_counters) / sizeof(loss_counters[0]); i++) {
		if (strcmp(loss_counters[i].family, m->loss) ||
		    !counter_value(cnt, loss_counters[i].counter, &v))
			continue;
		fprintf(m->f, "%s{", m->loss);
		port_labels(m->f, dev, p);
		fprintf(m->f, ",counter=\"%s\"} %llu\n", loss_counters[i].counter,
			(unsigned long long)v);
	}
}

static void counters(struct metrics *m)
{
	size_t i;

	for (i = 0; i < sizeof(loss_families) / sizeof(loss_families[0]); i++) {
		family(m->f, loss_families[i].name, "counter", loss_families[i].help);
		m->loss = loss_families[i].name;
		each_port(m, port_loss);
	}
}

/* Every port's counters, read once; a port without hw_counters has none. */
static int read_counters(struct metrics *m)
{
	const struct rdma_node *node = &m->d->node;
	size_t i, k = 0;
	unsigned int j;

	for (i = 0; !m->d->node_err && i < node->n; i++)
		m->nports += node->devs[i].ports ? node->devs[i].nports : 0;
	m->cnt = calloc(m->nports ? m->nports : 1, sizeof(*m->cnt));
	if (!m->cnt)
		return -ENOMEM;
	for (i = 0; !m->d->node_err && i < node->n; i++)
		for (j = 0; node->devs[i].ports && j < node->devs[i].nports; j++, k++)
			hwcnt_read(m->d->ctx, node->devs[i].name, node->devs[i].ports[j].num,
				   &m->cnt[k]);
	return 0;
}

int doctor_metrics(struct node_facts *d, const struct table *t, FILE *f)
{
	struct metrics m = { .d = d, .f = f };
	int ret = read_counters(&m);

	if (ret)
		return ret;
	info(&m);
	checks(&m, t);
	ports(&m);
	memlock(&m, t);
	counters(&m);
	free(m.cnt);
	return ferror(f) ? -EIO : 0;
}
