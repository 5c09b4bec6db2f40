/* SPDX-License-Identifier: MIT */
/*
 * rdmactl doctor --metrics: a doctor run in Prometheus' text exposition
 * format, for node_exporter's textfile collector, so a node whose MTU fell
 * back to 1500 after a reboot raises an alert instead of waiting for the
 * next job to hang.  Every family has its HELP and TYPE lines, names start
 * with rdmactl_, values are in base units (bytes), counters end in _total:
 *
 *   # HELP rdmactl_check_status Result of a doctor check: 1 for its status ...
 *   # TYPE rdmactl_check_status gauge
 *   rdmactl_check_status{check="mtu",status="warn"} 1
 *   rdmactl_port_active_mtu_bytes{device="rxe0",port="1"} 1024
 *   rdmactl_memlock_soft_limit_bytes{scope="login"} +Inf
 */
#ifndef RDMACTL_METRICS_H
#define RDMACTL_METRICS_H

#include <stdio.h>

struct node_facts;
struct table;

/*
 * Write the metrics of the run whose results doctor_run() put in @t
 * (columns status, id) to @f: the checks, then what the node model of @d
 * says of each port, the memlock limits and the port counters that tell
 * of loss.  0 or -errno (a write error of @f).
 */
int doctor_metrics(struct node_facts *d, const struct table *t, FILE *f);

#endif
