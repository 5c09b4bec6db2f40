// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/root.h"
#include "base/sysfs.h"
#include "node/hwcnt.h"

/*
 * The counters that grow only when something went wrong on the path.
 * rxe's names come from rdma_rxe (rxe_hw_counters.c), mlx5's from its
 * driver's documentation of hw_counters; a name another driver shares
 * means the same there.
 */
static const struct {
	const char *name, *meaning;
} trouble[] = {
	/* the sender timed out waiting for ACKs and sent again */
	{ "completer_retry_err", "ACK timeouts: writes were sent again (packets lost on the way)" },
	{ "local_ack_timeout_err", "ACK timeouts: writes were sent again (packets lost on the way)" },
	{ "retry_exceeded_err", "a QP gave up after all its retries (transport retry counter exceeded)" },
	{ "retry_rnr_exceeded_err", "a QP gave up after all its RNR retries" },
	/* the receiver saw a gap in the packet sequence */
	{ "rcvd_seq_err", "the peer NAKed a sequence gap: packets were lost" },
	{ "packet_seq_err", "the peer NAKed a sequence gap: packets were lost" },
	{ "implied_nak_seq_err", "a read or atomic response implied lost packets" },
	{ "out_of_seq_request", "requests arrived out of sequence: earlier ones were lost" },
	{ "out_of_sequence", "packets arrived out of sequence: earlier ones were lost" },
	{ "duplicate_request", "retransmitted requests arrived twice" },
	/* receive-not-ready */
	{ "rcvd_rnr_err", "RNR NAKs received: the peer had no receive buffer posted" },
	{ "send_rnr_err", "RNR NAKs sent: no receive buffer was posted here" },
	{ "rnr_nak_retry_err", "RNR NAKs: a receiver had no buffer posted" },
	{ "out_of_buffer", "the receive queue ran out of buffers" },
	/* congestion */
	{ "np_ecn_marked_roce_packets", "ECN-marked RoCE packets arrived: the fabric is congested" },
	{ "np_cnp_sent", "CNPs sent: the fabric marked packets for congestion" },
	{ "rp_cnp_handled", "CNPs received: this end was told to slow down (congestion)" },
	/* the link itself */
	{ "link_downed", "the link went down" },
	{ "send_err", "packets could not be sent" },
};

const char *hwcnt_meaning(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(trouble) / sizeof(trouble[0]); i++)
		if (!strcmp(trouble[i].name, name))
			return trouble[i].meaning;
	return NULL;
}

int64_t hwcnt_ack_timeouts_only(const struct hwcnt *grew)
{
	int64_t n = 0;
	unsigned int i;

	for (i = 0; i < grew->n; i++) {
		if (strcmp(grew->c[i].name, "completer_retry_err") &&
		    strcmp(grew->c[i].name, "local_ack_timeout_err"))
			return -1;
		n += (int64_t)grew->c[i].value;
	}
	return n;
}

static int read_one(int dfd, const char *name, uint64_t *out)
{
	char buf[32], *end;
	int ret = read_line_at(dfd, name, buf, sizeof(buf));

	if (ret < 0)
		return ret;
	errno = 0;
	*out = strtoull(buf, &end, 10);
	return (errno || end == buf || *end) ? -EINVAL : 0;
}

int hwcnt_read(const struct ctx *ctx, const char *dev, unsigned int port, struct hwcnt *out)
{
	char path[512];
	struct dirent *de;
	DIR *d;
	int ret = snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/hw_counters", dev,
			   port);

	out->n = 0;
	if (ret < 0 || (size_t)ret >= sizeof(path))
		return -ENAMETOOLONG;
	d = root_opendir(ctx, path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && out->n < HWCNT_MAX) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(out->c[0].name))
			continue;
		/* Unreadable or not a number: not a counter. */
		if (read_one(dirfd(d), de->d_name, &out->c[out->n].value))
			continue;
		snprintf(out->c[out->n].name, sizeof(out->c[0].name), "%s", de->d_name);
		out->n++;
	}
	closedir(d);
	return 0;
}

static int find(const struct hwcnt *h, const char *name)
{
	unsigned int i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->c[i].name, name))
			return (int)i;
	return -1;
}

void hwcnt_trouble(const struct hwcnt *before, const struct hwcnt *after, struct hwcnt *out)
{
	unsigned int i;

	out->n = 0;
	for (i = 0; i < after->n; i++) {
		int b = find(before, after->c[i].name);

		/* A counter that went backwards was reset: its growth is unknown. */
		if (b < 0 || after->c[i].value <= before->c[b].value || !hwcnt_meaning(after->c[i].name))
			continue;
		out->c[out->n] = after->c[i];
		out->c[out->n].value -= before->c[b].value;
		out->n++;
	}
}
