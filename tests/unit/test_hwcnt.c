// SPDX-License-Identifier: MIT
/* Port hardware counters: reading a hw_counters directory and judging growth. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ctx.h"
#include "node/hwcnt.h"
#include "test.h"

static char root[256];
static struct ctx ctx;

static void put(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/class/infiniband/mlx5_0/ports/1/hw_counters/%s", root, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void make_tree(void)
{
	char cmd[600];

	snprintf(root, sizeof(root), "/tmp/rdmactl-hwcnt.XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/class/infiniband/mlx5_0/ports/1/hw_counters", root);
	CHECK(system(cmd) == 0);
	memset(&ctx, 0, sizeof(ctx));
	ctx.root = root;
}

static void remove_tree(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

static uint64_t value(const struct hwcnt *h, const char *name, int *found)
{
	unsigned int i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->c[i].name, name)) {
			*found = 1;
			return h->c[i].value;
		}
	*found = 0;
	return 0;
}

static void reads_numbers_only(void)
{
	struct hwcnt h;
	int found;

	make_tree();
	put("out_of_sequence", "12\n");
	put("rx_write_requests", "18446744073709551615\n");	/* UINT64_MAX still reads */
	put("junk", "twelve\n");
	put("empty", "");
	CHECK_INT(hwcnt_read(&ctx, "mlx5_0", 1, &h), 0);
	CHECK_INT(h.n, 2);
	CHECK(value(&h, "out_of_sequence", &found) == 12 && found);
	CHECK(value(&h, "rx_write_requests", &found) == UINT64_MAX && found);
	value(&h, "junk", &found);
	CHECK(!found);
	CHECK_INT(hwcnt_read(&ctx, "mlx5_0", 2, &h), -ENOENT);
	CHECK_INT(h.n, 0);
	CHECK_INT(hwcnt_read(&ctx, "nosuch", 1, &h), -ENOENT);
	remove_tree();
}

static void trouble_is_growth_of_known_counters(void)
{
	struct hwcnt *h = calloc(3, sizeof(*h));
	int found;

	make_tree();
	put("local_ack_timeout_err", "5");
	put("out_of_sequence", "100");
	put("packet_seq_err", "7");
	put("rx_write_requests", "1000");
	put("np_cnp_sent", "0");
	CHECK_INT(hwcnt_read(&ctx, "mlx5_0", 1, &h[0]), 0);
	put("local_ack_timeout_err", "8");	/* +3: reported */
	put("out_of_sequence", "40");		/* went back (reset): not judged */
	put("packet_seq_err", "7");		/* unchanged */
	put("rx_write_requests", "5000");	/* traffic, not trouble */
	put("np_cnp_sent", "2");		/* +2: congestion */
	put("duplicate_request", "9");		/* new since: no base, not judged */
	CHECK_INT(hwcnt_read(&ctx, "mlx5_0", 1, &h[1]), 0);
	hwcnt_trouble(&h[0], &h[1], &h[2]);
	CHECK_INT(h[2].n, 2);
	CHECK_INT(value(&h[2], "local_ack_timeout_err", &found), 3);
	CHECK(found);
	CHECK_INT(value(&h[2], "np_cnp_sent", &found), 2);
	CHECK(found);
	value(&h[2], "rx_write_requests", &found);
	CHECK(!found);
	value(&h[2], "out_of_sequence", &found);
	CHECK(!found);
	/* Nothing grew: nothing reported. */
	hwcnt_trouble(&h[1], &h[1], &h[2]);
	CHECK_INT(h[2].n, 0);
	remove_tree();
	free(h);
}

static void meanings(void)
{
	CHECK(hwcnt_meaning("completer_retry_err") != NULL);	/* rxe */
	CHECK(hwcnt_meaning("local_ack_timeout_err") != NULL);	/* mlx5 */
	CHECK(strstr(hwcnt_meaning("rp_cnp_handled"), "congestion") != NULL);
	CHECK(hwcnt_meaning("sent_pkts") == NULL);
	CHECK(hwcnt_meaning("") == NULL);
}

/* Late ACKs are told from loss by what else grew beside the timeouts. */
static void ack_timeouts_only(void)
{
	struct hwcnt g = { .n = 0 };

	CHECK_INT(hwcnt_ack_timeouts_only(&g), 0);
	g.n = 2;
	snprintf(g.c[0].name, sizeof(g.c[0].name), "completer_retry_err");	/* rxe */
	g.c[0].value = 3;
	snprintf(g.c[1].name, sizeof(g.c[1].name), "local_ack_timeout_err");	/* mlx5 */
	g.c[1].value = 2;
	CHECK_INT(hwcnt_ack_timeouts_only(&g), 5);
	snprintf(g.c[1].name, sizeof(g.c[1].name), "rcvd_seq_err");		/* a gap NAKed: loss */
	CHECK_INT(hwcnt_ack_timeouts_only(&g), -1);
	snprintf(g.c[1].name, sizeof(g.c[1].name), "np_cnp_sent");
	CHECK_INT(hwcnt_ack_timeouts_only(&g), -1);
}

int main(void)
{
	RUN("hwcnt", reads_numbers_only);
	RUN("hwcnt", trouble_is_growth_of_known_counters);
	RUN("hwcnt", meanings);
	RUN("hwcnt", ack_timeouts_only);
	TEST_EXIT();
}
