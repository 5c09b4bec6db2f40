// SPDX-License-Identifier: MIT
/* The shared pieces: option helpers, model formatting, the printer. */
#include <stdint.h>
#include <stdlib.h>

#include "base/ctx.h"
#include "base/opt.h"
#include "base/output.h"
#include "node/rdma.h"
#include "test.h"

static void closest_suggests_near_words(void)
{
	const char *words[] = { "devices", "ports", "gids", "limits", "doctor", "probe" };

	CHECK_STR(closest_word("gid", words, 6), "gids");
	CHECK_STR(closest_word("prob", words, 6), "probe");
	CHECK_STR(closest_word("doctr", words, 6), "doctor");
	CHECK_STR(closest_word("devcies", words, 6), "devices");
	CHECK(closest_word("nosuch", words, 6) == NULL);
	CHECK(closest_word("x", words, 6) == NULL);
}

static void parse_long_rejects_junk(void)
{
	long v = -1;

	CHECK_INT(parse_long("42", 0, 100, &v), 0);
	CHECK_INT(v, 42);
	CHECK(parse_long("", 0, 100, &v) < 0);
	CHECK(parse_long("4x", 0, 100, &v) < 0);
	CHECK(parse_long(" 4", 0, 100, &v) < 0);
	CHECK(parse_long("101", 0, 100, &v) < 0);
	CHECK(parse_long("-1", 0, 100, &v) < 0);
	CHECK(parse_long("99999999999999999999999", 0, 100, &v) < 0);
}

static void devport_parses_both_separators(void)
{
	char dev[16];
	unsigned int port = 9;

	CHECK_INT(rdma_parse_devport("mlx5_0", dev, sizeof(dev), &port), 0);
	CHECK_STR(dev, "mlx5_0");
	CHECK_INT(port, 0);
	CHECK_INT(rdma_parse_devport("mlx5_0/2", dev, sizeof(dev), &port), 0);
	CHECK_INT(port, 2);
	CHECK_INT(rdma_parse_devport("mlx5_2:1", dev, sizeof(dev), &port), 0);
	CHECK_STR(dev, "mlx5_2");
	CHECK_INT(port, 1);
	CHECK(rdma_parse_devport("/1", dev, sizeof(dev), &port) < 0);
	CHECK(rdma_parse_devport("mlx5_0/", dev, sizeof(dev), &port) < 0);
	CHECK(rdma_parse_devport("mlx5_0/0", dev, sizeof(dev), &port) < 0);
	CHECK(rdma_parse_devport("a_very_long_device_name", dev, sizeof(dev), &port) < 0);
}

static void gid_formatting_matches_show_gids(void)
{
	/* The field notes' index 5: ::ffff:192.168.88.1 */
	const uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xc0, 0xa8, 0x58, 0x01 };
	/* Its first group is 0000 but it is no IPv4 mapping: show_gids would decode it anyway. */
	const uint8_t notv4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xc0, 0xa8, 0x58, 0x01 };
	const uint8_t ll[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x5a, 0xa2, 0xe1, 0xff, 0xfe, 0xb0, 0x37, 0x72 };
	char buf[64];

	CHECK_STR(gid_str(v4, buf, sizeof(buf)), "0000:0000:0000:0000:0000:ffff:c0a8:5801");
	CHECK(gid_ipv4(v4, buf, sizeof(buf)));
	CHECK_STR(buf, "192.168.88.1");
	CHECK(!gid_ipv4(notv4, buf, sizeof(buf)));
	CHECK(gid_is_link_local(ll));
	CHECK(!gid_is_link_local(v4));
	CHECK_STR(guid_str(0x5aa2e1fffeb03772ULL, buf, sizeof(buf)), "5aa2:e1ff:feb0:3772");
}

static void enum_strings_fall_back(void)
{
	CHECK_STR(port_state_str(4), "ACTIVE");
	CHECK_STR(port_state_str(99), "unknown");
	CHECK_STR(phys_state_str(5), "LinkUp");
	CHECK_STR(phys_state_str(-1), "unknown");
	CHECK_STR(gid_type_str(GID_TYPE_ROCE_V2), "v2");
	CHECK_STR(node_type_str(1), "CA");
}

static void cells_render_as_text(void)
{
	struct json_object *row = json_object_new_object();
	char buf[32];

	row_str(row, "s", "abc");
	row_int(row, "i", -7);
	row_bool(row, "b", true);
	row_str(row, "n", NULL);
	row_double(row, "d", 12.3456, 2);
	CHECK_STR(cell_text(row, "s", buf, sizeof(buf)), "abc");
	CHECK_STR(cell_text(row, "i", buf, sizeof(buf)), "-7");
	CHECK_STR(cell_text(row, "b", buf, sizeof(buf)), "yes");
	CHECK_STR(cell_text(row, "n", buf, sizeof(buf)), "-");
	CHECK_STR(cell_text(row, "absent", buf, sizeof(buf)), "-");
	CHECK_STR(cell_text(row, "d", buf, sizeof(buf)), "12.35");
	json_object_put(row);
}

static void list_cells_join_in_text(void)
{
	struct json_object *row = json_object_new_object();
	char buf[64];

	row_list(row, "empty");
	row_list_add(row, "ips", "10.0.0.1/24");
	row_list_add(row, "ips", NULL);
	row_list_add(row, "ips", "10.0.0.2/24");
	CHECK_STR(cell_text(row, "empty", buf, sizeof(buf)), "-");
	CHECK_STR(cell_text(row, "ips", buf, sizeof(buf)), "10.0.0.1/24,10.0.0.2/24");
	/* JSON keeps every entry, the null included. */
	CHECK_STR(json_object_to_json_string_ext(row, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
		  "{\"empty\":[],\"ips\":[\"10.0.0.1/24\",null,\"10.0.0.2/24\"]}");
	json_object_put(row);
}

int main(void)
{
	RUN("core", closest_suggests_near_words);
	RUN("core", parse_long_rejects_junk);
	RUN("core", devport_parses_both_separators);
	RUN("core", gid_formatting_matches_show_gids);
	RUN("core", enum_strings_fall_back);
	RUN("core", cells_render_as_text);
	RUN("core", list_cells_join_in_text);
	TEST_EXIT();
}
