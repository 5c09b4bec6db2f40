// SPDX-License-Identifier: MIT
/* The doctor's pieces that need no command: check selection, the node facts a peer is sent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/opt.h"
#include "doctor/doctor.h"
#include "doctor/doctor_peer.h"
#include "node/nodeinfo.h"
#include "test.h"

static struct ctx ctx;

static void root(const char *name)
{
	memset(&ctx, 0, sizeof(ctx));
	ctx.cmd = "doctor";
	ctx.root = fixture_path(name);
}

static size_t index_of(const char *id)
{
	size_t i;

	for (i = 0; doctor_checks[i].id; i++)
		if (!strcmp(doctor_checks[i].id, id))
			return i;
	return (size_t)-1;
}

static void ids_are_unique_and_described(void)
{
	size_t i, j, n = doctor_count();

	CHECK_INT(n, 18);
	for (i = 0; i < n; i++) {
		CHECK(strlen(doctor_checks[i].desc) > 10);
		/* doc/checks.md's columns: what it reads, what fails it, the fix. */
		CHECK(doctor_checks[i].reads && strlen(doctor_checks[i].reads) > 10);
		CHECK(doctor_checks[i].fails && strlen(doctor_checks[i].fails) > 10);
		CHECK(doctor_checks[i].fix && strlen(doctor_checks[i].fix) > 10);
		CHECK(doctor_checks[i].fn != NULL);
		for (j = i + 1; j < n; j++)
			CHECK(strcmp(doctor_checks[i].id, doctor_checks[j].id) != 0);
	}
}

static void select_by_id_and_group(void)
{
	bool sel[32] = { 0 };

	root("doctor-healthy");
	CHECK_INT(doctor_select(&ctx, "mtu,memlock", "only", sel), 0);
	CHECK(sel[index_of("mtu")]);
	CHECK(sel[index_of("memlock.shell")] && sel[index_of("memlock.login")] &&
	      sel[index_of("memlock.systemd")]);
	CHECK(!sel[index_of("devices")]);
	/* "mem" is not a group: IDs match whole dot-separated parts. */
	CHECK(doctor_select(&ctx, "mem", "only", sel) < 0);
	CHECK(doctor_select(&ctx, "", "only", sel) < 0);
	CHECK(doctor_select(&ctx, "mtu,", "only", sel) == 0);
	CHECK(doctor_select(&ctx, ",mtu", "only", sel) < 0);
}

static void node_info_of_a_recorded_node(void)
{
	struct json_object *o, *ports, *p0, *v;
	char buf[NODE_INFO_MAX + 1];

	root("doctor-healthy");
	CHECK_INT(node_info(&ctx, buf, sizeof(buf)), 0);
	o = node_info_parse(buf);
	CHECK(o != NULL);
	if (!o)
		return;
	CHECK(json_object_object_get_ex(o, "kernel", &v) && !strcmp(json_object_get_string(v), "6.1.0-18-amd64"));
	CHECK(json_object_object_get_ex(o, "rdma_core", &v) && !strcmp(json_object_get_string(v), "44.0"));
	CHECK(json_object_object_get_ex(o, "ofed", &v) &&
	      !strcmp(json_object_get_string(v), "MLNX_OFED_LINUX-5.8-1.0.1.1"));
	CHECK(json_object_object_get_ex(o, "memlock_shell", &v) && !strcmp(json_object_get_string(v), "unlimited"));
	CHECK(json_object_object_get_ex(o, "ports", &ports) && json_object_array_length(ports) == 3);
	p0 = json_object_array_get_idx(ports, 0);
	CHECK(json_object_object_get_ex(p0, "dev", &v) && !strcmp(json_object_get_string(v), "mlx5_0"));
	CHECK(json_object_object_get_ex(p0, "gid_index", &v) && json_object_get_int(v) == 5);
	CHECK(json_object_object_get_ex(p0, "ipv4", &v) && !strcmp(json_object_get_string(v), "192.168.88.1"));
	CHECK(json_object_object_get_ex(p0, "netdev_mtu", &v) && json_object_get_int(v) == 9000);
	CHECK(json_object_object_get_ex(p0, "active_mtu", &v) && json_object_get_int(v) == 4096);
	json_object_put(o);
}

static void node_info_fits_its_buffer(void)
{
	struct json_object *o, *ports;
	char small[700];

	root("doctor-healthy");
	/* Too small for three ports: the last ones are left out, the rest stays valid. */
	CHECK_INT(node_info(&ctx, small, sizeof(small)), 0);
	CHECK(strlen(small) < sizeof(small));
	o = node_info_parse(small);
	CHECK(o && json_object_object_get_ex(o, "ports", &ports) && json_object_array_length(ports) < 3);
	json_object_put(o);
	CHECK(node_info(&ctx, small, 40) < 0);
	CHECK(node_info_parse("[1]") == NULL);
	CHECK(node_info_parse("{\"kernel\":") == NULL);
	CHECK(node_info_parse("") == NULL);
}

/* JSON writes one spelling, people read FAIL, and readers take any case. */
static void status_words(void)
{
	struct json_object *row = json_object_new_object();
	char buf[16];

	CHECK_STR(check_status_str(CHECK_OK), "ok");
	CHECK_STR(check_status_str(CHECK_WARN), "warn");
	CHECK_STR(check_status_str(CHECK_FAIL), "fail");
	CHECK_STR(check_status_str(CHECK_SKIP), "skip");
	CHECK_STR(check_status_text(CHECK_FAIL), "FAIL");
	CHECK_STR(check_status_text(CHECK_WARN), "warn");
	CHECK_INT(check_status_parse("fail"), CHECK_FAIL);
	CHECK_INT(check_status_parse("FAIL"), CHECK_FAIL);
	CHECK_INT(check_status_parse("Fail"), CHECK_FAIL);
	CHECK_INT(check_status_parse("WARN"), CHECK_WARN);
	CHECK_INT(check_status_parse("skip"), CHECK_SKIP);
	CHECK(check_status_parse("ok ") < 0);
	CHECK(check_status_parse("failed") < 0);
	CHECK(check_status_parse("") < 0);
	CHECK(check_status_parse(NULL) < 0);
	CHECK_INT(check_status_color("FAIL"), COLOR_RED);
	CHECK_INT(check_status_color("fail"), COLOR_RED);
	CHECK_INT(check_status_color("nonsense"), COLOR_DIM);
	json_object_object_add(row, "status", json_object_new_string("fail"));
	CHECK_STR(check_status_cell(row, buf, sizeof(buf)), "FAIL");
	json_object_object_add(row, "status", json_object_new_string("ok"));
	CHECK_STR(check_status_cell(row, buf, sizeof(buf)), "ok");
	json_object_object_add(row, "status", json_object_new_string("odd"));
	CHECK_STR(check_status_cell(row, buf, sizeof(buf)), "odd");
	json_object_put(row);
}

int main(void)
{
	RUN("test_doctor", status_words);
	RUN("test_doctor", ids_are_unique_and_described);
	RUN("test_doctor", select_by_id_and_group);
	RUN("test_doctor", node_info_of_a_recorded_node);
	RUN("test_doctor", node_info_fits_its_buffer);
	TEST_EXIT();
}
