// SPDX-License-Identifier: MIT
/*
 * The cluster report (lib/fleet/summary.c, drift.c): drift with a
 * majority, with ties and with variables set on some nodes only; checks
 * grouped by fix; the outcome of each node; and a 1 000-node cluster with
 * two odd nodes, whose text report is checked whole.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/output.h"
#include "fleet/drift.h"
#include "fleet/fleet.h"
#include "fleet/summary.h"
#include "test.h"

/* What makes one node's document differ from a healthy one's. */
struct spec {
	const char *kernel, *fw, *model, *env;
	int mtu;		/* netdev MTU: below 4200, the mtu check warns */
	const char *fix;	/* the mtu check's fix, when it warns */
	const char *found;	/* the mtu check's finding, when not the usual */
};

static char *make_doc(const struct spec *s)
{
	int mtu = s->mtu ? s->mtu : 9000, active = mtu < 4200 ? 1024 : 4096;
	char found[256];
	char *doc;

	snprintf(found, sizeof(found), "%s", s->found ? s->found : "");
	if (!s->found)
		snprintf(found, sizeof(found), "mlx5_0/1: eth0 MTU %d, active MTU %d", mtu, active);
	if (asprintf(&doc,
		     "{\"checks\":[{\"status\":\"ok\",\"id\":\"devices\",\"found\":\"mlx5_0 (1 port)\",\"fix\":null},"
		     "{\"status\":\"%s\",\"id\":\"mtu\",\"found\":\"%s\",\"fix\":%s%s%s},"
		     "{\"status\":\"skip\",\"id\":\"peer\",\"found\":\"no --peer HOST given\",\"fix\":null}],"
		     "\"node\":{\"kernel\":\"%s\",\"rdma_core\":\"44.0\",\"ofed\":null,"
		     "\"memlock\":{\"shell\":\"unlimited\",\"pam\":\"unlimited\",\"systemd\":\"unlimited\"},"
		     "\"env\":{%s},\"devices\":[{\"dev\":\"mlx5_0\",\"provider\":\"mlx5\",\"model\":\"%s\","
		     "\"fw_ver\":\"%s\"}],\"active_ports\":1,\"ports\":[{\"dev\":\"mlx5_0\",\"port\":1,"
		     "\"state\":\"ACTIVE\",\"link_layer\":\"Ethernet\",\"netdev\":\"eth0\",\"netdev_mtu\":%d,"
		     "\"active_mtu\":%d,\"max_mtu\":4096,\"gid_index\":3}]}}",
		     mtu < 4200 ? "warn" : "ok", found, mtu < 4200 ? "\"" : "",
		     mtu < 4200 ? (s->fix ? s->fix : "ip link set eth0 mtu 9000") : "null",
		     mtu < 4200 ? "\"" : "", s->kernel ? s->kernel : "6.1.0-18-amd64",
		     s->env ? s->env : "", s->model ? s->model : "MT4127", s->fw ? s->fw : "26.36.1010",
		     mtu, active) < 0)
		abort();
	return doc;
}

/* A cluster of @n nodes named @fmt % i (1-based), node i made from @specs[i - 1]. */
static void build(struct fleet *fleet, size_t n, const char *fmt, const struct spec *specs)
{
	char name[64], err[256];
	size_t i;

	fleet_init(fleet);
	for (i = 1; i <= n; i++) {
		char *doc = make_doc(&specs[i - 1]);

		snprintf(name, sizeof(name), fmt, (int)i);
		CHECK_INT(fleet_feed_line(fleet, name, doc), 0);
		free(doc);
	}
	CHECK_INT(fleet_finish(fleet, err, sizeof(err)), 0);
}

static const char *json(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* The drift row of @fact in @rows, as JSON text, or "none". */
static const char *row_of(struct json_object *rows, const char *fact)
{
	struct json_object *f;
	size_t i;

	for (i = 0; i < json_object_array_length(rows); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(rows, i), "fact", &f) &&
		    !strcmp(json_object_get_string(f), fact))
			return json(json_object_array_get_idx(rows, i));
	return "none";
}

static void drift_majority_singles_out(void)
{
	struct spec s[4] = { { 0 }, { 0 }, { .mtu = 1500 }, { 0 } };
	struct fleet fleet;
	struct json_object *rows;
	bool odd[4] = { 0 };

	build(&fleet, 4, "lab%d", s);
	rows = drift_rows(&fleet, odd);
	CHECK_INT(json_object_array_length(rows), 2);
	CHECK_STR(row_of(rows, "netdev_mtu"),
		  "{\"fact\":\"netdev_mtu\",\"majority\":\"9000\",\"majority_count\":3,"
		  "\"majority_nodes\":\"lab[1-2,4]\",\"differs\":[{\"value\":\"1500\",\"count\":1,"
		  "\"nodes\":\"lab3\"}],\"fix\":\"ip link set eth0 mtu 9000, as on the others "
		  "(lasting: nmcli con mod eth0 802-3-ethernet.mtu 9000)\",\"not_read\":null}");
	CHECK_STR(row_of(rows, "active_mtu"),
		  "{\"fact\":\"active_mtu\",\"majority\":\"4096\",\"majority_count\":3,"
		  "\"majority_nodes\":\"lab[1-2,4]\",\"differs\":[{\"value\":\"1024\",\"count\":1,"
		  "\"nodes\":\"lab3\"}],\"fix\":null,\"not_read\":null}");
	CHECK(!odd[0] && !odd[1] && odd[2] && !odd[3]);
	json_object_put(rows);
	fleet_free(&fleet);
}

/* No strict majority: every value with its nodes, nobody singled out, no fix. */
static void drift_ties_single_out_none(void)
{
	struct spec s[4] = { { .kernel = "6.1" }, { .kernel = "6.2" }, { .kernel = "6.1" },
			     { .kernel = "6.2" } };
	struct spec t[4] = { { .fw = "1" }, { .fw = "2" }, { .fw = "1" }, { .fw = "3" } };
	struct fleet fleet;
	struct json_object *rows;
	bool odd[4] = { 0 };

	build(&fleet, 4, "n%d", s);
	rows = drift_rows(&fleet, odd);
	CHECK_STR(json(rows), "[{\"fact\":\"kernel\",\"majority\":null,\"majority_count\":0,"
		  "\"majority_nodes\":null,\"differs\":[{\"value\":\"6.1\",\"count\":2,\"nodes\":\"n[1,3]\"},"
		  "{\"value\":\"6.2\",\"count\":2,\"nodes\":\"n[2,4]\"}],\"fix\":null,\"not_read\":null}]");
	CHECK(!odd[0] && !odd[1] && !odd[2] && !odd[3]);
	json_object_put(rows);
	fleet_free(&fleet);
	/* 2 of 4 is the largest group, but no majority either. */
	build(&fleet, 4, "n%d", t);
	rows = drift_rows(&fleet, odd);
	CHECK_STR(json(rows), "[{\"fact\":\"fw_ver MT4127\",\"majority\":null,\"majority_count\":0,"
		  "\"majority_nodes\":null,\"differs\":[{\"value\":\"1\",\"count\":2,\"nodes\":\"n[1,3]\"},"
		  "{\"value\":\"2\",\"count\":1,\"nodes\":\"n2\"},{\"value\":\"3\",\"count\":1,\"nodes\":\"n4\"}],"
		  "\"fix\":null,\"not_read\":null}]");
	CHECK(!odd[0] && !odd[1] && !odd[2] && !odd[3]);
	json_object_put(rows);
	fleet_free(&fleet);
}

/* A variable set on some nodes only is drift; so is one value on one node. */
static void drift_of_variables(void)
{
	struct spec s[3] = { { .env = "\"NCCL_IB_HCA\":\"mlx5_0\"" }, { 0 }, { 0 } };
	struct spec t[4] = { { .env = "\"NCCL_IB_GID_INDEX\":\"3\"" }, { .env = "\"NCCL_IB_GID_INDEX\":\"3\"" },
			     { .env = "\"NCCL_IB_GID_INDEX\":\"5\"" }, { .env = "\"NCCL_IB_GID_INDEX\":\"3\"" } };
	struct fleet fleet;
	struct json_object *rows;
	bool odd[4] = { 0 };

	build(&fleet, 3, "gpu%02d", s);
	rows = drift_rows(&fleet, odd);
	CHECK_STR(json(rows), "[{\"fact\":\"env.NCCL_IB_HCA\",\"majority\":null,\"majority_count\":2,"
		  "\"majority_nodes\":\"gpu[02-03]\",\"differs\":[{\"value\":\"mlx5_0\",\"count\":1,"
		  "\"nodes\":\"gpu01\"}],\"fix\":\"unset NCCL_IB_HCA, as on the others\",\"not_read\":null}]");
	CHECK(odd[0] && !odd[1] && !odd[2]);
	json_object_put(rows);
	fleet_free(&fleet);
	memset(odd, 0, sizeof(odd));
	build(&fleet, 4, "lab-%d", t);
	rows = drift_rows(&fleet, odd);
	CHECK_STR(row_of(rows, "env.NCCL_IB_GID_INDEX"),
		  "{\"fact\":\"env.NCCL_IB_GID_INDEX\",\"majority\":\"3\",\"majority_count\":3,"
		  "\"majority_nodes\":\"lab-[1-2,4]\",\"differs\":[{\"value\":\"5\",\"count\":1,"
		  "\"nodes\":\"lab-3\"}],\"fix\":\"set NCCL_IB_GID_INDEX=3, as on lab-[1-2,4]\",\"not_read\":null}");
	CHECK(!odd[0] && !odd[1] && odd[2] && !odd[3]);
	json_object_put(rows);
	fleet_free(&fleet);
}

/* Firmware is compared per HCA model: two models are no drift by themselves. */
static void drift_firmware_per_model(void)
{
	struct spec s[5] = { { .model = "MT4127" }, { .model = "MT4127" }, { .model = "MT4129", .fw = "28.39.1002" },
			     { .model = "MT4127", .fw = "26.35.1012" }, { .model = "MT4129", .fw = "28.39.1002" } };
	struct fleet fleet;
	struct json_object *rows;
	bool odd[5] = { 0 };

	build(&fleet, 5, "n%d", s);
	rows = drift_rows(&fleet, odd);
	CHECK_STR(json(rows), "[{\"fact\":\"fw_ver MT4127\",\"majority\":\"26.36.1010\",\"majority_count\":2,"
		  "\"majority_nodes\":\"n[1-2]\",\"differs\":[{\"value\":\"26.35.1012\",\"count\":1,"
		  "\"nodes\":\"n4\"}],\"fix\":\"update the firmware of their MT4127 HCAs to 26.36.1010, as "
		  "on the others\",\"not_read\":null}]");
	CHECK(!odd[0] && !odd[1] && !odd[2] && odd[3] && !odd[4]);
	json_object_put(rows);
	fleet_free(&fleet);
}

static void no_drift_when_alike(void)
{
	struct spec s[3] = { { 0 }, { 0 }, { 0 } };
	struct fleet fleet;
	struct json_object *rows;
	bool odd[3] = { 0 };

	build(&fleet, 3, "n%d", s);
	rows = drift_rows(&fleet, odd);
	CHECK_STR(json(rows), "[]");
	json_object_put(rows);
	fleet_free(&fleet);
}

/* Run the report under -j; the document's key @key as text. */
static const char *report_key(const struct fleet *fleet, const char *key, struct fleet_counts *c)
{
	static char out[8192];
	struct ctx ctx = { .json = true, .root = "" };
	struct json_object *v = NULL;

	CHECK_INT(fleet_summary(&ctx, fleet, c), 0);
	json_object_object_get_ex(ctx.jroot, key, &v);
	snprintf(out, sizeof(out), "%s", json(v));
	json_object_put(ctx.jroot);
	return out;
}

/* Failing and warning nodes grouped by fix; a group whose findings differ says so. */
static void checks_grouped_by_fix(void)
{
	struct spec s[4] = { { .mtu = 1500, .fix = "ip link set eth0 mtu 9000" },
			     { .mtu = 1500, .fix = "ip link set ens1 mtu 9000" },
			     { .mtu = 2000, .fix = "ip link set eth0 mtu 9000" }, { 0 } };
	struct fleet_counts c;
	struct fleet fleet;
	const char *checks;

	build(&fleet, 4, "lab%d", s);
	checks = report_key(&fleet, "checks", &c);
	CHECK(strstr(checks, "{\"status\":\"warn\",\"id\":\"mtu\",\"nodes\":\"lab[1,3]\",\"count\":2,"
			     "\"found\":\"mlx5_0/1: eth0 MTU 1500, active MTU 1024\",\"found_on\":\"lab1\","
			     "\"found_varies\":true,\"fix\":\"ip link set eth0 mtu 9000\"},"
			     "{\"status\":\"warn\",\"id\":\"mtu\",\"nodes\":\"lab2\",\"count\":1,"
			     "\"found\":\"mlx5_0/1: eth0 MTU 1500, active MTU 1024\",\"found_on\":\"lab2\","
			     "\"found_varies\":false,\"fix\":\"ip link set ens1 mtu 9000\"},"
			     "{\"status\":\"ok\",\"id\":\"mtu\",\"nodes\":\"lab4\",\"count\":1,"
			     "\"found\":\"mlx5_0/1: eth0 MTU 9000, active MTU 4096\",\"found_on\":\"lab4\","
			     "\"found_varies\":false,\"fix\":null}") != NULL);
	CHECK(strstr(checks, "{\"status\":\"skip\",\"id\":\"peer\",\"nodes\":\"lab[1-4]\",\"count\":4,") != NULL);
	CHECK_INT(c.nodes, 4);
	/* lab4 passes, but its active MTU (4096) is not the majority's (1024): a warning too. */
	CHECK_INT(c.warned, 4);
	CHECK_INT(c.failed, 0);
	CHECK_INT(fleet_rc(&c), RC_OK);
	fleet_free(&fleet);
}

/* Failed beats warned; drift warns a node whose own checks pass; no document: unreachable. */
static void outcome_of_each_node(void)
{
	struct spec s[4] = { { 0 }, { .kernel = "5.15" }, { 0 }, { 0 } };
	struct fleet_counts c;
	struct fleet fleet;
	char err[256];

	fleet_init(&fleet);
	for (int i = 0; i < 4; i++) {
		char *doc = make_doc(&s[i]), name[8];

		snprintf(name, sizeof(name), "n%d", i + 1);
		CHECK_INT(fleet_feed_line(&fleet, name, doc), 0);
		free(doc);
	}
	CHECK_INT(fleet_feed_line(&fleet, "n5", "{\"checks\":[{\"status\":\"FAIL\",\"id\":\"x\",\"found\":\"y\",\"fix\":null}]}"), 0);
	CHECK_INT(fleet_node_fail(&fleet, "n6", "ssh: connect to host n6 port 22: Connection refused"), 0);
	CHECK_INT(fleet_finish(&fleet, err, sizeof(err)), 0);
	CHECK_STR(report_key(&fleet, "summary", &c),
		  "{\"nodes\":6,\"failed\":1,\"warned\":1,\"unreachable\":1,\"failed_nodes\":\"n5\","
		  "\"warned_nodes\":\"n2\",\"unreachable_nodes\":\"n6\"}");
	CHECK_STR(report_key(&fleet, "unreachable", &c),
		  "[{\"node\":\"n6\",\"error\":\"ssh: connect to host n6 port 22: Connection refused\",\"rc\":null}]");
	CHECK_INT(fleet_rc(&c), RC_PROBLEM);
	fleet_free(&fleet);
}

/* Run the text report of @fleet with stdout in a file; its text. */
static char *report_text(const struct fleet *fleet, struct fleet_counts *c)
{
	struct ctx ctx = { .root = "" };
	struct capture cap;

	capture_begin(&cap);
	CHECK_INT(fleet_summary(&ctx, fleet, c), 0);
	CHECK_INT(output_finish(&ctx), 0);
	return capture_end(&cap);
}

static const char thousand_text[] =
	"STATUS  CHECK    NODES                      FOUND\n"
	"ok      devices  node[0001-1000]            mlx5_0 (1 port)\n"
	"warn    mtu      node0017                   mlx5_0/1: eth0 MTU 1500, active MTU 1024\n"
	"        fix: ip link set eth0 mtu 9000\n"
	"ok      mtu      node[0001-0016,0018-1000]  mlx5_0/1: eth0 MTU 9000, active MTU 4096\n"
	"skip    peer     node[0001-1000]            no --peer HOST given\n"
	"\n"
	"FACT                   MAJORITY  MAJORITY_NODES             DIFFERS\n"
	"active_mtu             4096      node[0001-0016,0018-1000]  1024 on node0017\n"
	"netdev_mtu             9000      node[0001-0016,0018-1000]  1500 on node0017\n"
	"                       fix: ip link set eth0 mtu 9000, as on the others (lasting: nmcli con mod eth0\n"
	"                            802-3-ethernet.mtu 9000)\n"
	"env.NCCL_IB_GID_INDEX  (unset)   node[0001-0511,0513-1000]  5 on node0512\n"
	"                       fix: unset NCCL_IB_GID_INDEX, as on the others\n"
	"\n"
	"1000 nodes: 0 failed, 2 warned, 0 unreachable\n"
	"  warned: node[0017,0512]\n";

/* Lines longer than @width in @text. */
static int too_wide(const char *text, size_t width)
{
	int n = 0;

	for (; *text; text += strcspn(text, "\n") + (text[strcspn(text, "\n")] != 0))
		n += strcspn(text, "\n") > width;
	return n;
}

/* 1 000 nodes, two of them odd: found, named, in 100 columns, fast. */
static void thousand_nodes_two_odd(void)
{
	struct spec *s = calloc(1000, sizeof(*s));
	struct fleet_counts c;
	struct fleet fleet;
	clock_t t0;
	char *text;

	s[16].mtu = 1500;					/* node0017 */
	s[511].env = "\"NCCL_IB_GID_INDEX\":\"5\"";		/* node0512 */
	build(&fleet, 1000, "node%04d", s);
	t0 = clock();
	text = report_text(&fleet, &c);
	CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
	CHECK_STR(text, thousand_text);
	CHECK_INT(too_wide(text, FLEET_WIDTH), 0);
	CHECK_INT(c.warned, 2);
	free(text);
	free(s);
	fleet_free(&fleet);
}

static const char cut_text[] =
	"STATUS  CHECK    NODES                           FOUND\n"
	"ok      devices  node[0001-1000]                 mlx5_0 (1 port)\n"
	"warn    mtu      node[0007,0014,... (142 nodes)  mlx5_0/1: eth0 MTU 1500, active MTU 1024\n"
	"        fix: ip link set eth0 mtu 9000\n"
	"ok      mtu      node[0001-0006,... (858 nodes)  mlx5_0/1: eth0 MTU 9000, active MTU 4096\n"
	"skip    peer     node[0001-1000]                 no --peer HOST given\n"
	"\n"
	"FACT        MAJORITY  MAJORITY_NODES                  DIFFERS\n"
	"active_mtu  4096      node[0001-0006,... (858 nodes)  1024 on node[0007,0014,... (142 nodes)\n"
	"netdev_mtu  9000      node[0001-0006,... (858 nodes)  1500 on node[0007,0014,... (142 nodes)\n"
	"            fix: ip link set eth0 mtu 9000, as on the others (lasting: nmcli con mod eth0\n"
	"                 802-3-ethernet.mtu 9000)\n"
	"\n"
	"1000 nodes: 0 failed, 142 warned, 0 unreachable\n"
	"  warned: node[0007,0014,0021,0028,0035,0042,0049,0056,0063,0070,0077,0084,0091,0098,... (142 nodes)\n";

/* Every 7th of 1 000 nodes odd: hostlists too long for a line are cut, counted. */
static void thousand_nodes_lists_cut(void)
{
	struct spec *s = calloc(1000, sizeof(*s));
	struct fleet_counts c;
	struct fleet fleet;
	char *text;
	size_t i;

	for (i = 6; i < 1000; i += 7)
		s[i].mtu = 1500;
	build(&fleet, 1000, "node%04d", s);
	text = report_text(&fleet, &c);
	CHECK_STR(text, cut_text);
	CHECK_INT(too_wide(text, FLEET_WIDTH), 0);
	CHECK_INT(c.warned, 142);
	free(text);
	free(s);
	fleet_free(&fleet);
}

int main(void)
{
	RUN("report", drift_majority_singles_out);
	RUN("report", drift_ties_single_out_none);
	RUN("report", drift_of_variables);
	RUN("report", drift_firmware_per_model);
	RUN("report", no_drift_when_alike);
	RUN("report", checks_grouped_by_fix);
	RUN("report", outcome_of_each_node);
	RUN("report", thousand_nodes_two_odd);
	RUN("report", thousand_nodes_lists_cut);
	TEST_EXIT();
}
