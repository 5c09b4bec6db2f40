// SPDX-License-Identifier: MIT
/*
 * The cluster probe's schedule (lib/mesh/schedule*.c) and link map
 * (lib/mesh/linkmap*.c): every pair once each way, each node once a
 * step per role, odd N with a bye; the agents' string and --pairs files,
 * good and bad; and the outlier rules, one case each, with the report in
 * text and JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/output.h"
#include "mesh/linkmap.h"
#include "test.h"

static char *names[] = { "n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9" };

/* ---- the schedule ---- */

/* Each node at most once a client and once a server in every step; pairs counted in @seen. */
static void check_steps(const struct schedule *s, uint32_t nodes, unsigned char *seen)
{
	unsigned char *role = calloc(nodes, 1);
	size_t i, j;

	for (i = 0; i < s->n; i++) {
		memset(role, 0, nodes);
		for (j = 0; j < s->steps[i].n; j++) {
			const struct sched_pair *p = &s->steps[i].pairs[j];

			CHECK(p->client < nodes && p->server < nodes && p->client != p->server);
			if (p->client >= nodes || p->server >= nodes)
				continue;
			CHECK(!(role[p->client] & 1));
			CHECK(!(role[p->server] & 2));
			role[p->client] |= 1;
			role[p->server] |= 2;
			if (seen)
				seen[(size_t)p->client * nodes + p->server]++;
		}
	}
	free(role);
}

static void pairs_for(uint32_t nodes)
{
	unsigned char *seen = calloc((size_t)nodes * nodes, 1);
	struct schedule s;
	size_t i, bad = 0;

	CHECK_INT(schedule_make(PATTERN_PAIRS, nodes, &s), 0);
	CHECK_INT(s.rounds, nodes % 2 ? nodes : nodes - 1);
	CHECK_INT(s.n, 2 * (size_t)s.rounds);
	check_steps(&s, nodes, seen);
	for (i = 0; i < (size_t)nodes * nodes; i++)
		bad += seen[i] != (i / nodes != i % nodes);
	CHECK_INT(bad, 0);
	/* A round: A->B then B->A of the same N/2 pairs, so each node meets one partner. */
	for (i = 0; i < s.n; i += 2) {
		CHECK_INT(s.steps[i].n, nodes / 2);
		CHECK_INT(s.steps[i].round, s.steps[i + 1].round);
		CHECK_INT(s.steps[i].round, i / 2 + 1);
	}
	schedule_free(&s);
	free(seen);
}

static void pairs_every_pair_once(void)
{
	uint32_t n;

	for (n = 2; n <= 17; n++)
		pairs_for(n);
	pairs_for(1000);
}

/* N odd: every node sits out exactly one round (it meets the phantom). */
static void pairs_odd_bye(void)
{
	struct schedule s;
	unsigned int out[7] = { 0 };
	size_t i, j;

	CHECK_INT(schedule_make(PATTERN_PAIRS, 7, &s), 0);
	for (i = 0; i < s.n; i += 2) {
		unsigned char in[7] = { 0 };

		for (j = 0; j < s.steps[i].n; j++)
			in[s.steps[i].pairs[j].client] = in[s.steps[i].pairs[j].server] = 1;
		for (j = 0; j < 7; j++)
			out[j] += !in[j];
	}
	for (j = 0; j < 7; j++)
		CHECK_INT(out[j], 1);
	schedule_free(&s);
	CHECK_INT(schedule_make(PATTERN_PAIRS, 1, &s), -EINVAL);
	CHECK_INT(schedule_make(PATTERN_PAIRS, 0, &s), -EINVAL);
}

static void ring_and_quick(void)
{
	struct schedule s;
	uint32_t n;
	size_t i;

	for (n = 2; n <= 17; n++) {
		CHECK_INT(schedule_make(PATTERN_RING, n, &s), 0);
		CHECK_INT(s.n, 1);
		CHECK_INT(s.steps[0].n, n);
		for (i = 0; i < n; i++) {
			CHECK_INT(s.steps[0].pairs[i].client, i);
			CHECK_INT(s.steps[0].pairs[i].server, (i + 1) % n);
		}
		check_steps(&s, n, NULL);
		schedule_free(&s);

		CHECK_INT(schedule_make(PATTERN_QUICK, n, &s), 0);
		CHECK_INT(s.n, 2);
		CHECK_INT(s.rounds, 1);
		CHECK_INT(s.steps[0].n, n / 2);
		for (i = 0; i < n / 2; i++) {
			CHECK_INT(s.steps[0].pairs[i].client, i);
			CHECK_INT(s.steps[0].pairs[i].server, i + (n + 1) / 2);
			CHECK_INT(s.steps[1].pairs[i].client, i + (n + 1) / 2);
			CHECK_INT(s.steps[1].pairs[i].server, i);
		}
		check_steps(&s, n, NULL);
		schedule_free(&s);
	}
}

static void pattern_names(void)
{
	enum pattern p;

	CHECK_INT(pattern_parse("ring", &p), 0);
	CHECK_INT(p, PATTERN_RING);
	CHECK_STR(pattern_name(PATTERN_QUICK), "quick");
	CHECK_INT(pattern_parse("Ring", &p), -EINVAL);
	CHECK_INT(pattern_parse("", &p), -EINVAL);
}

static void encode_round_trip(void)
{
	struct schedule s, d;
	char *text, *again;
	uint32_t n;

	for (n = 2; n <= 17; n++) {
		CHECK_INT(schedule_make(PATTERN_PAIRS, n, &s), 0);
		text = schedule_encode(&s);
		CHECK_INT(schedule_decode(text, n, &d), 0);
		again = schedule_encode(&d);
		CHECK_STR(again, text);
		CHECK_INT(d.rounds, s.rounds);
		free(text);
		free(again);
		schedule_free(&s);
		schedule_free(&d);
	}
	CHECK_INT(schedule_make(PATTERN_QUICK, 4, &s), 0);
	text = schedule_encode(&s);
	CHECK_STR(text, "1:0>2,1>3;1:2>0,3>1");
	free(text);
	schedule_free(&s);
}

static void decode_rejects(void)
{
	static const char *const bad[] = {
		"", ";", "1:", "1:0>1;", "0:0>1", "1:0>0", "1:0>4", "1:0>1,0>2", "1:0>1,2>1",
		"1:0>1;;2:1>0", "x:0>1", "1:0-1", "1:0>1 ", " 1:0>1", "1:+0>1", "1:-1>0",
		"4294967296:0>1", "1:0>1,", "1:0>1:2", "1:99999999999>1", "01:0>1", "1:00>1",
	};
	struct schedule s;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = schedule_decode(bad[i], 4, &s);

		if (ret != -EINVAL)
			fprintf(stderr, "  '%s' gave %d\n", bad[i], ret);
		CHECK_INT(ret, -EINVAL);
	}
	CHECK_INT(schedule_decode("1:0>1", 1, &s), -EINVAL);
	CHECK_INT(schedule_decode("7:0>1,1>0;3:2>3", 4, &s), 0);
	CHECK_INT(s.rounds, 7);
	CHECK_INT(s.steps[1].round, 3);
	schedule_free(&s);
}

static void parse_good(void)
{
	struct schedule s;
	char err[256];

	CHECK_INT(schedule_parse("# round a b\n\n2 n2 n3\r\n1 n0 n1   # first\n1\tn2 n3\n2 n0 n1\n",
				 "p.txt", names, 4, &s, err, sizeof(err)),
		  0);
	CHECK_INT(s.rounds, 2);
	CHECK_INT(s.n, 4);
	CHECK_INT(s.steps[0].round, 1);
	CHECK_INT(s.steps[0].n, 2);
	CHECK_INT(s.steps[0].pairs[0].client, 0);
	CHECK_INT(s.steps[0].pairs[0].server, 1);
	CHECK_INT(s.steps[1].pairs[0].client, 1);
	CHECK_INT(s.steps[2].round, 2);
	CHECK_INT(s.steps[2].pairs[0].client, 2);
	check_steps(&s, 4, NULL);
	schedule_free(&s);
}

static void parse_bad_one(const char *text, const char *want)
{
	struct schedule s;
	char err[256] = "";

	CHECK_INT(schedule_parse(text, "p.txt", names, 4, &s, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, want);
	CHECK_INT(s.n, 0);
}

static void parse_bad(void)
{
	parse_bad_one("1 n0 n1\n1 n0 nine\n", "p.txt:2: unknown node 'nine'");
	parse_bad_one("1 n0 n1\n\n1 n1 n2\n", "p.txt:3: node twice in one round: 'n1'");
	parse_bad_one("3 n2 n2\n", "p.txt:1: a node paired with itself: 'n2'");
	parse_bad_one("1 n0 n1\n0 n2 n3\n", "p.txt:2: bad round (a positive integer) '0'");
	parse_bad_one("x n0 n1\n", "p.txt:1: bad round (a positive integer) 'x'");
	parse_bad_one("-1 n0 n1\n", "p.txt:1: bad round (a positive integer) '-1'");
	parse_bad_one("99999999999 n0 n1\n", "p.txt:1: bad round (a positive integer) '99999999999'");
	parse_bad_one("1 n0\n", "p.txt:1: expected 'ROUND NODE_A NODE_B'");
	parse_bad_one("1 n0 n1 n2\n", "p.txt:1: unexpected text after the pair 'n2'");
	parse_bad_one("1 n0 \x1b]0;x\a\n", "p.txt:1: unknown node '\\x1b]0;x\\x07'");
	parse_bad_one("", "p.txt: no pair (lines of ROUND NODE_A NODE_B)");
	parse_bad_one("# nothing\n\n", "p.txt: no pair (lines of ROUND NODE_A NODE_B)");
}

/* ---- the link map ---- */

static void add(struct linkmap *m, uint32_t c, uint32_t s, uint32_t rail, double gbps)
{
	struct link_result r = { .client = c, .server = s, .rail = rail, .round = 1, .ok = true,
				 .gbps = gbps, .lat_us = -1 };

	CHECK_INT(linkmap_add(m, &r), 0);
}

static void add_failed(struct linkmap *m, uint32_t c, uint32_t s, enum link_cause cause)
{
	struct link_result r = { .client = c, .server = s, .round = 1, .cause = cause, .lat_us = -1 };

	snprintf(r.why, sizeof(r.why), "RDMA write to %s lost, TCP fine", names[s]);
	CHECK_INT(linkmap_add(m, &r), 0);
}

/* Every ordered pair of @nodes on every rail at 100 Gb/s, but what @rate says. */
static void full(struct linkmap *m, uint32_t nodes, uint32_t rails,
		 double (*rate)(uint32_t c, uint32_t s, uint32_t rail))
{
	uint32_t c, s, r;

	for (c = 0; c < nodes; c++)
		for (s = 0; s < nodes; s++)
			for (r = 0; c != s && r < rails; r++)
				add(m, c, s, r, rate ? rate(c, s, r) : 100);
}

static int print_ctx(const struct linkmap *m, struct ctx ctx, char **out)
{
	struct capture cap;
	char *text;
	int rc;

	capture_begin(&cap);
	rc = linkmap_print(&ctx, m);
	CHECK_INT(output_finish(&ctx), 0);
	text = capture_end(&cap);
	if (out)
		*out = text;
	else
		free(text);
	return rc;
}

static int print_rc(const struct linkmap *m, bool json, char **out)
{
	return print_ctx(m, (struct ctx){ .root = "", .json = json }, out);
}

static void one_finding(const struct linkmap *m, enum finding_kind k, uint32_t node, uint32_t peer)
{
	CHECK_INT(m->nfind, 1);
	if (!m->nfind)
		return;
	CHECK_INT(m->find[0].kind, k);
	CHECK_INT(m->find[0].node, node);
	CHECK_INT(m->find[0].peer, peer);
	if (m->nfind != 1 || m->find[0].kind != k)
		fprintf(stderr, "  first finding: %s\n", m->find[0].text);
}

static void all_equal(void)
{
	struct linkmap m;
	char *text;

	linkmap_init(&m, names, 4, 1, 0.8);
	full(&m, 4, 1, NULL);
	CHECK_INT(linkmap_analyse(&m), 0);
	CHECK_INT(m.nfind, 0);
	CHECK(m.median_gbps == 100);
	CHECK(m.median_lat_us < 0);
	CHECK_INT(print_rc(&m, false, &text), 0);
	CHECK_STR(text, "Gb/s, row writes to column (average over rails):\n"
			"       n0     n1     n2     n3\n"
			"n0      -  100.0  100.0  100.0\n"
			"n1  100.0      -  100.0  100.0\n"
			"n2  100.0  100.0      -  100.0\n"
			"n3  100.0  100.0  100.0      -\n"
			"\n"
			"no finding: every link within 20% of the median 100.0 Gb/s\n"
			"\n"
			"12 links measured, 0 failed, median 100.0 Gb/s\n");
	free(text);
	linkmap_free(&m);
}

static double node2_slow(uint32_t c, uint32_t s, uint32_t rail)
{
	(void)rail;
	return c == 2 || s == 2 ? 10 : 100;
}

static void slow_node(void)
{
	struct linkmap m;

	linkmap_init(&m, names, 4, 1, 0.8);
	full(&m, 4, 1, node2_slow);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_SLOW_NODE, 2, UINT32_MAX);
	CHECK(m.find[0].failure);
	CHECK(m.find[0].gbps == 10);
	CHECK_STR(m.find[0].text, "n2 is slow: its 6 links to 3 partners average 10.0 Gb/s, 10% of the median 100.0 Gb/s");
	CHECK_INT(print_rc(&m, false, NULL), 1);
	linkmap_free(&m);
}

/* A shaper on n2's egress: its writes slow, what it receives at full rate. */
static double node2_sends_slow(uint32_t c, uint32_t s, uint32_t rail)
{
	(void)rail;
	(void)s;
	return c == 2 ? 0.005 : 0.05;
}

static double node1_receives_slow(uint32_t c, uint32_t s, uint32_t rail)
{
	(void)rail;
	(void)c;
	return s == 1 ? 10 : 100;
}

static void slow_one_way_node(void)
{
	struct linkmap m;

	linkmap_init(&m, names, 4, 1, 0.5);
	full(&m, 4, 1, node2_sends_slow);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_SLOW_NODE, 2, UINT32_MAX);
	CHECK_STR(m.find[0].text, "n2 is slow writing: its 3 writes to 3 partners average 0.005 Gb/s, "
			"10% of the median 0.05 Gb/s");
	linkmap_free(&m);
	linkmap_init(&m, names, 4, 1, 0.8);
	full(&m, 4, 1, node1_receives_slow);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_SLOW_NODE, 1, UINT32_MAX);
	CHECK_STR(m.find[0].text, "n1 is slow receiving: its 3 writes from 3 partners average 10.0 Gb/s, "
			"10% of the median 100.0 Gb/s");
	linkmap_free(&m);
}

static double link01_slow(uint32_t c, uint32_t s, uint32_t rail)
{
	(void)rail;
	return (c == 0 && s == 1) || (c == 1 && s == 0) ? 30 : 100;
}

static void slow_link(void)
{
	struct linkmap m;
	struct schedule s;

	linkmap_init(&m, names, 4, 1, 0.8);
	full(&m, 4, 1, link01_slow);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_SLOW_LINK, 0, 1);
	CHECK_STR(m.find[0].text, "n0 <-> n1 is slow both ways: 30.0 and 30.0 Gb/s, 30% of the median 100.0 Gb/s");
	/*
	 * Both ends met good nodes: no end to retest, the link is to blame if
	 * a second look says so: both ways measured again, in one step.
	 */
	CHECK_INT(linkmap_retests(&m, &s), 0);
	CHECK_INT(s.n, 1);
	CHECK_INT(s.rounds, 1);
	check_steps(&s, 4, NULL);
	if (s.n == 1 && s.steps[0].n == 2) {
		CHECK_INT(s.steps[0].pairs[0].client, 0);
		CHECK_INT(s.steps[0].pairs[0].server, 1);
		CHECK_INT(s.steps[0].pairs[1].client, 1);
		CHECK_INT(s.steps[0].pairs[1].server, 0);
	} else {
		CHECK(!"one step of two pairs");
	}
	schedule_free(&s);
	/* Slow again: still the link's finding, and nothing more to measure. */
	add(&m, 0, 1, 0, 31);
	add(&m, 1, 0, 0, 29);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_SLOW_LINK, 0, 1);
	linkmap_free(&m);
}

/*
 * Links 0<->1 and 2->3 slow in their steps, fine the second time: no
 * finding.  Then 0->2, 0->3 and 0->4 slow: one step holds one of them
 * (0 writes once a step), the others keep their one look.
 */
static void slow_once(void)
{
	struct linkmap m;
	struct schedule s;
	size_t j;

	linkmap_init(&m, names, 6, 1, 0.5);
	full(&m, 6, 1, link01_slow);
	add(&m, 2, 3, 0, 20);
	CHECK_INT(linkmap_analyse(&m), 0);
	CHECK_INT(m.nfind, 2);
	CHECK_INT(linkmap_retests(&m, &s), 0);
	CHECK_INT(s.n, 1);
	check_steps(&s, 6, NULL);
	CHECK_INT(s.n ? s.steps[0].n : 0, 3);
	for (j = 0; s.n && j < s.steps[0].n; j++)
		add(&m, s.steps[0].pairs[j].client, s.steps[0].pairs[j].server, 0, 100);
	schedule_free(&s);
	CHECK_INT(linkmap_analyse(&m), 0);
	CHECK_INT(m.nfind, 0);
	add(&m, 0, 2, 0, 20);
	add(&m, 0, 3, 0, 20);
	add(&m, 0, 4, 0, 20);
	CHECK_INT(linkmap_analyse(&m), 0);
	CHECK_INT(linkmap_retests(&m, &s), 0);
	CHECK_INT(s.n, 1);
	check_steps(&s, 6, NULL);
	CHECK_INT(s.n ? s.steps[0].n : 0, 1);
	schedule_free(&s);
	linkmap_free(&m);
}

static double one_way_slow(uint32_t c, uint32_t s, uint32_t rail)
{
	(void)rail;
	return c == 1 && s == 0 ? 20 : 100;
}

static void asymmetric(void)
{
	struct linkmap m;
	struct schedule s;

	linkmap_init(&m, names, 4, 1, 0.8);
	full(&m, 4, 1, one_way_slow);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_ASYMMETRIC, 1, 0);
	CHECK(m.find[0].failure);
	CHECK_STR(m.find[0].text, "n1 -> n0 20.0 Gb/s but n0 -> n1 100.0 Gb/s: 20% of the other direction");
	/* Its slow way measured again, alone; the fast way stands. */
	CHECK_INT(linkmap_retests(&m, &s), 0);
	CHECK_INT(s.n, 1);
	if (s.n == 1) {
		CHECK_INT(s.steps[0].n, 1);
		CHECK_INT(s.steps[0].pairs[0].client, 1);
		CHECK_INT(s.steps[0].pairs[0].server, 0);
	}
	schedule_free(&s);
	linkmap_free(&m);
}

/* Every link of @bad fails with @cause, the others run at 100. */
static void with_bad_node(struct linkmap *m, uint32_t nodes, uint32_t bad, enum link_cause cause)
{
	uint32_t c, s;

	for (c = 0; c < nodes; c++)
		for (s = 0; s < nodes; s++) {
			if (c == s)
				continue;
			if (c == bad || s == bad)
				add_failed(m, c, s, cause);
			else
				add(m, c, s, 0, 100);
		}
}

static void blocked_node(void)
{
	struct linkmap m;

	linkmap_init(&m, names, 4, 1, 0.8);
	with_bad_node(&m, 4, 3, CAUSE_ROCE_BLOCKED);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_BLOCKED_NODE, 3, UINT32_MAX);
	CHECK_INT(m.find[0].cause, CAUSE_ROCE_BLOCKED);
	CHECK_STR(m.find[0].text, "n3: every link to or from it failed (3 partners), RoCE blocked (TCP passes, "
				  "RDMA traffic lost: UDP 4791 filtered?): RDMA write to n3 lost, TCP fine");
	linkmap_free(&m);
}

/* Every link of four nodes at 100 Gb/s but @r's, which failed; one finding. */
static void one_failed_link(struct linkmap *m, const struct link_result *r)
{
	uint32_t c, s;

	linkmap_init(m, names, 4, 1, 0.8);
	for (c = 0; c < 4; c++)
		for (s = 0; s < 4; s++)
			if (c != s && (c != r->client || s != r->server))
				add(m, c, s, 0, 100);
	CHECK_INT(linkmap_add(m, r), 0);
	CHECK_INT(linkmap_analyse(m), 0);
	one_finding(m, FIND_FAILED_LINK, r->client, r->server);
}

/*
 * A failure the probe gave no cause of its own is told by its line alone:
 * "failed: Failed to RDMA WRITE ...", not "failed: failed: Failed ...".
 */
/*
 * A failure's cause from the probe's own lines (probe_rdma.c): an invalid
 * request's hint and a QP that could not be connected both say "MTU",
 * which is a mismatch only when the ends' MTUs differ.
 */
static void causes(void)
{
	const char *inv = "Failed to RDMA WRITE (size 65536, QP 0): work completion error 'remote invalid "
			  "request error' (9): the peer rejected a packet as invalid: a path MTU larger than "
			  "the peer's, or packets lost on the way (the port counters tell)";
	const char *rtr = "Failed to move QP 0 to RTR: Invalid argument. This end: GID index 3 (RoCE v2), "
			  "MTU 1024; peer: GID index 1 (RoCE v2), MTU 1024. Check both use a RoCE v2 GID of "
			  "the same subnet (-x) and the port is ACTIVE";
	const char *blocked = "Failed to RDMA WRITE (size 65536, QP 0): work completion error 'transport "
			      "retry counter exceeded' (12): packets are not arriving: UDP port 4791 blocked "
			      "by a firewall, a wrong GID index (-x) or the peer on another subnet";

	CHECK_INT(link_cause_of(-EIO, inv, 1024, 1024), CAUSE_OTHER);
	CHECK_INT(link_cause_of(-EIO, inv, 4096, 1024), CAUSE_MTU);
	CHECK_INT(link_cause_of(-EINVAL, rtr, 0, 0), CAUSE_OTHER);
	CHECK_INT(link_cause_of(-EIO, blocked, 1024, 1024), CAUSE_ROCE_BLOCKED);
	CHECK_INT(link_cause_of(-ETIMEDOUT, "Failed to read from the peer: timed out", 1024, 1024),
		  CAUSE_TIMEOUT);
	CHECK_INT(link_cause_of(-ECONNREFUSED, "Failed to connect to n1 port 18515: Connection refused. "
				"Is `rdmactl probe --server` running on n1? Is TCP port 18515 open?", 0, 0),
		  CAUSE_UNREACHABLE);
	CHECK_STR(link_cause_name(link_cause_of(-EIO, inv, 1024, 1024)), "other");
}

static void uncaused_failures(void)
{
	struct linkmap m;
	struct link_result r = { .client = 0, .server = 1, .round = 1, .cause = CAUSE_OTHER, .lat_us = -1 };

	snprintf(r.why, sizeof(r.why), "Failed to RDMA WRITE (size 65536, QP 0): work completion error "
		 "'remote invalid request error' (9)");
	one_failed_link(&m, &r);
	CHECK_STR(m.find[0].text, "n0 -> n1 failed: Failed to RDMA WRITE (size 65536, QP 0): work completion "
				  "error 'remote invalid request error' (9)");
	linkmap_free(&m);
	/* With no line, nothing after "failed". */
	r.why[0] = 0;
	one_failed_link(&m, &r);
	CHECK_STR(m.find[0].text, "n0 -> n1 failed");
	linkmap_free(&m);
	/* Nor a node all of whose links failed so. */
	linkmap_init(&m, names, 4, 1, 0.8);
	with_bad_node(&m, 4, 2, CAUSE_OTHER);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_BLOCKED_NODE, 2, UINT32_MAX);
	CHECK_STR(m.find[0].text, "n2: every link to or from it failed (3 partners), RDMA write to n2 lost, TCP fine");
	linkmap_free(&m);
}

static void down_node(void)
{
	struct linkmap m;
	char *text;

	linkmap_init(&m, names, 4, 1, 0.8);
	with_bad_node(&m, 4, 1, CAUSE_NODE_DOWN);
	CHECK_INT(linkmap_node_down(&m, 1, "srun: error: n1: Communication connection failure"), 0);
	CHECK_INT(linkmap_node_down(&m, 9, "x"), -EINVAL);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_DOWN_NODE, 1, UINT32_MAX);
	CHECK_STR(m.find[0].text, "n1 did not take part: srun: error: n1: Communication connection failure");
	CHECK_INT(print_rc(&m, false, &text), 1);
	CHECK(strstr(text, "  FAIL  n1 did not take part: srun: error"));
	CHECK(strstr(text, "\n6 links measured, 0 failed, median 100.0 Gb/s; 1 node down\n"));
	free(text);
	linkmap_free(&m);
}

static double rail1_of_3_slow(uint32_t c, uint32_t s, uint32_t rail)
{
	return rail == 1 && (c == 3 || s == 3) ? 10 : 100;
}

static void slow_rail(void)
{
	struct linkmap m;
	struct link_result r = { .client = 0, .server = 1, .rail = 2, .ok = true, .gbps = 1 };

	linkmap_init(&m, names, 4, 2, 0.8);
	full(&m, 4, 2, rail1_of_3_slow);
	CHECK_INT(linkmap_add(&m, &r), -EINVAL);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_SLOW_RAIL, 3, UINT32_MAX);
	CHECK_INT(m.find[0].rail, 1);
	CHECK_STR(m.find[0].text, "n3 rail 1 is slow: its 6 links to 3 partners average 10.0 Gb/s, 10% of the median 100.0 Gb/s");
	linkmap_free(&m);
}

/* The retests pair @end, both ways, with a node other than @a and @b. */
static bool retested(const struct schedule *s, uint32_t end, uint32_t a, uint32_t b, uint32_t *good)
{
	bool to = false, from = false;
	size_t i, j;

	for (i = 0; i < s->n; i++)
		for (j = 0; j < s->steps[i].n; j++) {
			const struct sched_pair *p = &s->steps[i].pairs[j];

			if (p->client == end && p->server != a && p->server != b) {
				to = true;
				*good = p->server;
			}
			from |= p->server == end && p->client != a && p->client != b;
		}
	return to && from;
}

/*
 * With four partners or more a node is named when three of its links in
 * four are slow: one pair lifted by noise does not clear it (node 0 and
 * node 3 are fast both ways here).  With three partners every link must
 * still be slow.
 */
/* Every pair of @n nodes both ways: node 0's links slow but to and from node 3. */
static void node0_slow_but_to_3(struct linkmap *m, uint32_t n)
{
	uint32_t a, b;

	linkmap_init(m, names, n, 1, 0.8);
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++)
			if (a != b)
				add(m, a, b, 0, (a == 0 || b == 0) && a + b != 3 ? 40 : 97);
	CHECK_INT(linkmap_analyse(m), 0);
}

static void slow_node_mostly(void)
{
	struct linkmap m;
	size_t i;

	node0_slow_but_to_3(&m, 8);
	one_finding(&m, FIND_SLOW_NODE, 0, UINT32_MAX);
	linkmap_free(&m);
	node0_slow_but_to_3(&m, 4);
	CHECK(m.nfind >= 1);
	for (i = 0; i < m.nfind; i++)
		CHECK(m.find[i].kind != FIND_SLOW_NODE);
	linkmap_free(&m);
}

/* A pattern that measures a sample says how many links it left untested. */
static void untested_counted(void)
{
	struct linkmap m;
	struct schedule s;
	char *text;
	size_t i, j;

	linkmap_init(&m, names, 10, 1, 0.8);
	CHECK_INT(schedule_make(PATTERN_TRIAGE, 10, &s), 0);
	for (i = 0; i < s.n; i++)
		for (j = 0; j < s.steps[i].n; j++)
			add(&m, s.steps[i].pairs[j].client, s.steps[i].pairs[j].server, 0, 97);
	schedule_free(&s);
	CHECK_INT(linkmap_analyse(&m), 0);
	/* 10 nodes, 8 steps: 80 of the 90 directed links. */
	CHECK_INT(print_rc(&m, false, &text), 0);
	CHECK(strstr(text, "\n80 links measured, 0 failed, median 97.0 Gb/s; 10 links untested "
			   "(--pattern pairs measures every one)\n") != NULL);
	free(text);
	CHECK_INT(print_rc(&m, true, &text), 0);
	CHECK(strstr(text, "\"untested\":10") != NULL);
	free(text);
	linkmap_free(&m);
}

static void quick_retest(void)
{
	struct linkmap m;
	struct schedule q, s;
	uint32_t g0 = 0, g4 = 0;
	size_t i, j;

	linkmap_init(&m, names, 8, 1, 0.8);
	CHECK_INT(schedule_make(PATTERN_QUICK, 8, &q), 0);
	/* Node 0 is slow; its one partner, 4, cannot be told apart from it yet. */
	for (i = 0; i < q.n; i++)
		for (j = 0; j < q.steps[i].n; j++)
			add(&m, q.steps[i].pairs[j].client, q.steps[i].pairs[j].server, 0,
			    q.steps[i].pairs[j].client == 0 || q.steps[i].pairs[j].server == 0 ? 10 : 100);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_SLOW_LINK, 0, 4);
	CHECK_INT(linkmap_retests(&m, &s), 0);
	CHECK(retested(&s, 0, 0, 4, &g0));
	CHECK(retested(&s, 4, 0, 4, &g4));
	check_steps(&s, 8, NULL);
	CHECK_INT(s.n, 2);
	for (i = 0; i < s.n; i++)
		for (j = 0; j < s.steps[i].n; j++) {
			const struct sched_pair *p = &s.steps[i].pairs[j];
			struct link_result r = { .client = p->client, .server = p->server, .ok = true,
						 .gbps = p->client == 0 || p->server == 0 ? 9 : 98, .lat_us = -1 };

			CHECK_INT(linkmap_add(&m, &r), 0);
		}
	schedule_free(&s);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_SLOW_NODE, 0, UINT32_MAX);
	CHECK_INT(linkmap_retests(&m, &s), 0);
	CHECK_INT(s.n, 0);
	schedule_free(&s);
	schedule_free(&q);
	linkmap_free(&m);
}

/*
 * Two nodes, their link slow one way: no node is known good, so no end
 * can be retested; the slow way is measured again all the same.
 */
static void slow_again_without_good(void)
{
	struct linkmap m;
	struct schedule s;

	linkmap_init(&m, names, 2, 1, 0.8);
	add(&m, 0, 1, 0, 100);
	add(&m, 1, 0, 0, 20);
	CHECK_INT(linkmap_analyse(&m), 0);
	CHECK_INT(m.nfind, 1);
	CHECK_INT(linkmap_retests(&m, &s), 0);
	CHECK_INT(s.n, 1);
	if (s.n == 1 && s.steps[0].n == 1) {
		CHECK_INT(s.steps[0].pairs[0].client, 1);
		CHECK_INT(s.steps[0].pairs[0].server, 0);
	} else {
		CHECK(!"one step of one pair");
	}
	schedule_free(&s);
	linkmap_free(&m);
}

static double node1_slow(uint32_t c, uint32_t s, uint32_t rail)
{
	(void)rail;
	return c == 1 || s == 1 ? 10 : 100;
}

/*
 * Rates of a shaped lab link (megabits) in -j: three significant digits,
 * as the text has them, not 0.00 and 0.01 (what --from read back).
 */
static void low_rates_json(void)
{
	struct linkmap m;
	char *json;
	uint32_t c, s;

	linkmap_init(&m, names, 3, 1, 0.5);
	for (c = 0; c < 3; c++)
		for (s = 0; s < 3; s++)
			if (c != s)
				add(&m, c, s, 0, c == 2 || s == 2 ? 0.00213 : 0.00622);
	CHECK_INT(linkmap_analyse(&m), 0);
	CHECK_INT(print_rc(&m, true, &json), 1);
	CHECK(strstr(json, "\"client\":\"n0\",\"server\":\"n1\",\"rail\":0,\"round\":1,\"ok\":true,"
			   "\"gbps\":0.00622,"));
	CHECK(strstr(json, "\"kind\":\"slow_node\",\"failure\":true,\"node\":\"n2\",\"peer\":null,"
			   "\"rail\":null,\"gbps\":0.00213,"));
	CHECK(strstr(json, "\"gbps\":[[null,0.00622,0.00213],"));
	CHECK(strstr(json, "\"median_gbps\":0.00622,"));
	free(json);
	linkmap_free(&m);
}

/* The lab's case: 4 nodes, one slow, one with RoCE blocked, the last link fine. */
static void slow_and_blocked(void)
{
	struct linkmap m;
	char *text, *json;
	uint32_t c, s;

	linkmap_init(&m, names, 4, 1, 0.8);
	for (c = 0; c < 4; c++)
		for (s = 0; s < 4; s++)
			if (c != s && (c == 3 || s == 3))
				add_failed(&m, c, s, CAUSE_ROCE_BLOCKED);
			else if (c != s)
				add(&m, c, s, 0, node1_slow(c, s, 0));
	CHECK_INT(linkmap_analyse(&m), 0);
	CHECK_INT(m.nfind, 2);
	CHECK_INT(m.find[0].kind, FIND_SLOW_NODE);
	CHECK_INT(m.find[0].node, 1);
	CHECK_INT(m.find[1].kind, FIND_BLOCKED_NODE);
	CHECK_INT(m.find[1].node, 3);
	CHECK_INT(print_rc(&m, false, &text), 1);
	CHECK(strstr(text, "\nn0      -  10.0  100.0  FAIL\nn1   10.0     -   10.0  FAIL\n"));
	CHECK(strstr(text, "Findings:\n  FAIL  n1 is slow: its 4 links to 2 partners average 10.0 Gb/s"));
	CHECK(strstr(text, "  FAIL  n3: every link to or from it failed (3 partners), RoCE blocked"));
	CHECK(strstr(text, "\n12 links measured, 6 failed, median 100.0 Gb/s\n"));
	CHECK_INT(print_rc(&m, true, &json), 1);
	CHECK(strstr(json, "\"findings\":[{\"kind\":\"slow_node\",\"failure\":true,\"node\":\"n1\",\"peer\":null,"
			   "\"rail\":null,\"gbps\":10.00,\"ratio\":0.100,\"cause\":null,\"text\":\"n1 is slow"));
	CHECK(strstr(json, "{\"kind\":\"blocked_node\",\"failure\":true,\"node\":\"n3\",\"peer\":null,"
			   "\"rail\":null,\"gbps\":null,\"ratio\":null,\"cause\":\"roce_blocked\""));
	CHECK(strstr(json, "\"matrix\":{\"names\":[\"n0\",\"n1\",\"n2\",\"n3\"],\"gbps\":[[null,10.00,100.00,null],"));
	CHECK(strstr(json, "{\"client\":\"n0\",\"server\":\"n3\",\"rail\":0,\"round\":1,\"ok\":false,\"gbps\":null,"
			   "\"lat_us\":null,\"cause\":\"roce_blocked\",\"why\":\"RDMA write to n3 lost, TCP fine\","
			   "\"counters\":{\"retrans\":0,\"seq_err\":0,\"cnp\":0},\"dev\":null}"));
	CHECK(strstr(json, "\"median_gbps\":100.00,\"median_lat_us\":null,\"slow\":0.80,"));
	CHECK(strstr(json, "\"summary\":{\"nodes\":4,\"links\":12,\"failed\":6,\"down\":0,\"untested\":0,\"findings\":2,\"failures\":2}"));
	free(text);
	free(json);
	linkmap_free(&m);
}

static void high_latency(void)
{
	struct linkmap m;
	char *text;
	size_t i;

	linkmap_init(&m, names, 4, 1, 0.8);
	full(&m, 4, 1, NULL);
	for (i = 0; i < m.n; i++)
		m.res[i].lat_us = m.res[i].client == 2 && m.res[i].server == 3 ? 9.5 : 3.0;
	m.res[5].retrans = 12;
	snprintf(m.res[5].dev, sizeof(m.res[5].dev), "rxe1/1");
	CHECK_INT(m.res[5].client, 1);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_HIGH_LATENCY, 2, 3);
	CHECK(!m.find[0].failure);
	CHECK_STR(m.find[0].text, "n2 -> n3 latency 9.5 us, 3.2 times the median 3.0 us");
	CHECK_INT(print_rc(&m, false, &text), 0);
	CHECK(strstr(text, "Latency, us (half round trip), row to column:\n"));
	CHECK(strstr(text, "n2  3.0  3.0    -  9.5\n"));
	CHECK(strstr(text, "  warn  n2 -> n3 latency"));
	free(text);
	linkmap_free(&m);
}

/* Counters that grew on a link go with its finding; names are escaped in text. */
static void counters_and_escapes(void)
{
	static char *odd[] = { "a", "b", "c", "\x1b[2Jevil" };
	struct linkmap m;
	char *text;
	size_t i;

	linkmap_init(&m, odd, 4, 1, 0.8);
	full(&m, 4, 1, link01_slow);
	for (i = 0; i < m.n; i++)
		if (m.res[i].client == 0 && m.res[i].server == 1) {
			m.res[i].retrans = 12;
			m.res[i].cnp = 1;
			snprintf(m.res[i].dev, sizeof(m.res[i].dev), "rxe0/1");
		}
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_SLOW_LINK, 0, 1);
	CHECK(strstr(m.find[0].text, " (rxe0/1 counted 12 retransmissions, 1 CNP)"));
	CHECK_INT(print_rc(&m, false, &text), 1);
	CHECK(!strchr(text, '\x1b'));
	CHECK(strstr(text, "\\x1b[2Jevil"));
	free(text);
	linkmap_free(&m);
}

/* Two nodes cannot say which end is slow: the link is named. */
static void two_nodes(void)
{
	struct linkmap m;
	struct schedule s;

	linkmap_init(&m, names, 3, 1, 0.8);
	add(&m, 0, 1, 0, 100);
	add(&m, 1, 0, 0, 100);
	add(&m, 0, 2, 0, 10);
	add(&m, 2, 0, 0, 10);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_SLOW_LINK, 0, 2);
	/* Node 1 is good; 0 met it, 2 did not: only 2 is retested. */
	CHECK_INT(linkmap_retests(&m, &s), 0);
	CHECK_INT(s.n, 2);
	CHECK_INT(s.steps[0].n, 1);
	CHECK_INT(s.steps[0].pairs[0].client, 2);
	CHECK_INT(s.steps[0].pairs[0].server, 1);
	CHECK_INT(s.steps[1].pairs[0].client, 1);
	schedule_free(&s);
	linkmap_free(&m);
}

/* 1 000 nodes, pairs pattern, one slow: one finding, no matrix. */
static void thousand_nodes(void)
{
	static char *many[1000];
	static char buf[1000][8];
	struct linkmap m;
	struct schedule s;
	char *text;
	size_t i, j;

	for (i = 0; i < 1000; i++) {
		snprintf(buf[i], sizeof(buf[i]), "n%04zu", i);
		many[i] = buf[i];
	}
	linkmap_init(&m, many, 1000, 1, 0.8);
	CHECK_INT(schedule_make(PATTERN_PAIRS, 1000, &s), 0);
	for (i = 0; i < s.n; i++)
		for (j = 0; j < s.steps[i].n; j++)
			add(&m, s.steps[i].pairs[j].client, s.steps[i].pairs[j].server, 0,
			    s.steps[i].pairs[j].client == 17 || s.steps[i].pairs[j].server == 17 ? 40 : 95);
	schedule_free(&s);
	CHECK_INT(linkmap_analyse(&m), 0);
	one_finding(&m, FIND_SLOW_NODE, 17, UINT32_MAX);
	CHECK_INT(print_rc(&m, false, &text), 1);
	CHECK_STR(text, "\nFindings:\n"
			"  FAIL  n0017 is slow: its 1998 links to 999 partners average 40.0 Gb/s, 42% of the "
			"median 95.0 Gb/s\n"
			"\n999000 links measured, 0 failed, median 95.0 Gb/s\n");
	free(text);
	linkmap_free(&m);
}

/* On a colour terminal each cell is coloured by its fraction of the median; FAIL red. */
static void matrix_colours(void)
{
	struct linkmap m;
	char *text;

	linkmap_init(&m, names, 4, 1, 0.8);
	full(&m, 4, 1, node2_slow);
	add_failed(&m, 0, 1, CAUSE_ROCE_BLOCKED);
	CHECK_INT(linkmap_analyse(&m), 0);
	print_ctx(&m, (struct ctx){ .root = "", .color = true }, &text);
	/* n0 -> n1 failed, n0 -> n2 at a tenth of the median, n0 -> n3 at it. */
	CHECK(strstr(text, "n0      -   \033[31mFAIL\033[0m  \033[48;5;54;97m10.0\033[0m  "
			   "\033[48;5;220;30m100.0\033[0m\n"));
	CHECK(strstr(text, "colour: the cell's fraction of the median, 0 \033[48;5;53;97m  \033[0m"));
	free(text);
	print_ctx(&m, (struct ctx){ .root = "" }, &text);
	CHECK(!strchr(text, '\033'));
	free(text);
	linkmap_free(&m);
}

int main(void)
{
	RUN("linkmap", pairs_every_pair_once);
	RUN("linkmap", pairs_odd_bye);
	RUN("linkmap", ring_and_quick);
	RUN("linkmap", pattern_names);
	RUN("linkmap", encode_round_trip);
	RUN("linkmap", decode_rejects);
	RUN("linkmap", parse_good);
	RUN("linkmap", parse_bad);
	RUN("linkmap", all_equal);
	RUN("linkmap", slow_node);
	RUN("linkmap", slow_one_way_node);
	RUN("linkmap", slow_link);
	RUN("linkmap", slow_once);
	RUN("linkmap", asymmetric);
	RUN("linkmap", blocked_node);
	RUN("linkmap", causes);
	RUN("linkmap", uncaused_failures);
	RUN("linkmap", down_node);
	RUN("linkmap", slow_rail);
	RUN("linkmap", slow_node_mostly);
	RUN("linkmap", untested_counted);
	RUN("linkmap", quick_retest);
	RUN("linkmap", slow_again_without_good);
	RUN("linkmap", slow_and_blocked);
	RUN("linkmap", low_rates_json);
	RUN("linkmap", high_latency);
	RUN("linkmap", counters_and_escapes);
	RUN("linkmap", two_nodes);
	RUN("linkmap", thousand_nodes);
	RUN("linkmap", matrix_colours);
	TEST_EXIT();
}
