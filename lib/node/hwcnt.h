/* SPDX-License-Identifier: MIT */
/*
 * A port's hardware counters (/sys/class/infiniband/DEV/ports/N/hw_counters,
 * what `rdma statistic show link` prints), and the ones among them that
 * tell of trouble on the path: lost packets, retransmissions, RNR NAKs,
 * congestion marks.  Names differ by driver (rxe, mlx5); unknown names are
 * read but never judged.  The counters are port-wide: any traffic on the
 * port counts, not only ours.
 */
#ifndef RDMACTL_HWCNT_H
#define RDMACTL_HWCNT_H

#include <stdint.h>

struct ctx;

#define HWCNT_MAX 128

struct hwcnt {
	unsigned int n;
	struct {
		char name[48];
		uint64_t value;
	} c[HWCNT_MAX];
};

/* Every counter of @dev/@port; 0 or -errno (-ENOENT: the driver has none). */
int hwcnt_read(const struct ctx *ctx, const char *dev, unsigned int port, struct hwcnt *out);

/*
 * Into @out, the counters that signal trouble and grew from @before to
 * @after, each with its growth as value; @out->n may be 0.
 */
void hwcnt_trouble(const struct hwcnt *before, const struct hwcnt *after, struct hwcnt *out);

/* What a growing @name means, or NULL when it is not a trouble counter. */
const char *hwcnt_meaning(const char *name);

/*
 * The ACK timeouts in @grew (hwcnt_trouble()'s output), or -1 when some
 * other trouble grew too (a sequence error NAKed, RNR, congestion, ...).
 */
int64_t hwcnt_ack_timeouts_only(const struct hwcnt *grew);

#endif
