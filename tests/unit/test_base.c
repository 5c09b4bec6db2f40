// SPDX-License-Identifier: MIT
/* The base layer: option helpers and the printer. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/opt.h"
#include "base/text.h"
#include "base/output.h"
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

/* @t printed as text into a string (stdout redirected to a file meanwhile). */
static char *table_text(struct table *t)
{
	struct ctx ctx = { .root = "" };
	struct capture cap;

	capture_begin(&cap);
	table_emit(&ctx, t, "rows");
	return capture_end(&cap);
}

static const char *shout(struct json_object *row, char *buf, size_t len)
{
	struct json_object *v;

	if (!json_object_object_get_ex(row, "name", &v))
		return NULL;
	snprintf(buf, len, "<%s>\x1b", json_object_get_string(v));
	return buf;
}

/* table_fit(): the fill column cut, the last one and the below-lines wrapped, hooks escaped. */
static void tables_fit_a_width(void)
{
	static const struct column cols[] = {
		{ "name", NULL, 0, NULL, shout },
		{ "found", NULL, COL_FILL, NULL },
		{ "more", NULL, COL_WRAP, NULL },
		{ "fix", NULL, COL_BELOW, NULL },
		{ 0 }
	};
	struct table *t = table_new(cols);
	struct json_object *row = table_row(t);
	char *text;

	table_fit(t, 50);
	row_str(row, "name", "a");
	row_str(row, "found", "a finding far too long for the width it has");
	row_str(row, "more", "wraps at blanks over lines");
	row_str(row, "fix", "one two three four five six seven eight nine ten");
	text = table_text(t);
	/* FOUND gets 50 - 7 - 12 (MORE yields down to 12) - 4; MORE wraps in 12. */
	CHECK_STR(text, "NAME     FOUND                        MORE\n"
			"<a>\\x1b  a finding far too long f...  wraps at\n"
			"                                      blanks over\n"
			"                                      lines\n"
			"         fix: one two three four five six seven\n"
			"              eight nine ten\n");
	free(text);
}

/*
 * A row wider than the width goes on under the second column, its header
 * folded the same (each value under its name); a cell wider than its line
 * folds at blanks under itself.
 */
static void tables_fold_rows_at_a_width(void)
{
	static const struct column cols[] = {
		{ "dev", NULL, 0, NULL },
		{ "port", NULL, COL_RIGHT, NULL },
		{ "state", NULL, 0, NULL },
		{ "netdev", NULL, 0, NULL },
		{ "verdict", NULL, 0, NULL },
		{ 0 }
	};
	static const struct column wide[] = {
		{ "name", NULL, 0, NULL },
		{ "text", NULL, 0, NULL },
		{ 0 }
	};
	struct table *t = table_new(cols);
	struct json_object *row;
	char *text;

	table_fit(t, 24);
	row = table_row(t);
	row_str(row, "dev", "mlx5_0");
	row_int(row, "port", 1);
	row_str(row, "state", "ACTIVE");
	row_str(row, "netdev", "ens19f0np0");
	row_str(row, "verdict", "ok");
	row = table_row(t);
	row_str(row, "dev", "mlx5_1");
	row_int(row, "port", 1);
	row_str(row, "state", "DOWN");
	row_str(row, "netdev", "eth1");
	row_str(row, "verdict", "low");
	text = table_text(t);
	CHECK_STR(text, "DEV     PORT  STATE\n"
			"        NETDEV\n"
			"        VERDICT\n"
			"mlx5_0     1  ACTIVE\n"
			"        ens19f0np0\n"
			"        ok\n"
			"mlx5_1     1  DOWN\n"
			"        eth1\n"
			"        low\n");
	free(text);

	t = table_new(wide);
	table_fit(t, 20);
	row = table_row(t);
	row_str(row, "name", "a");
	row_str(row, "text", "one two three four five six");
	text = table_text(t);
	/* TEXT would start a line of its own where it starts already: it stays, folding. */
	CHECK_STR(text, "NAME  TEXT\n"
			"a     one two three\n"
			"      four five six\n");
	free(text);

	/* No width (a pipe): a row is a line. */
	t = table_new(wide);
	table_fit(t, 0);
	row = table_row(t);
	row_str(row, "name", "a");
	row_str(row, "text", "one two three four five six");
	text = table_text(t);
	CHECK_STR(text, "NAME  TEXT\n"
			"a     one two three four five six\n");
	free(text);
}

/* A command of three modes, as probe and doctor are, for opt_mode_check(). */
enum { M_A = 1u << 0, M_B = 1u << 1, M_C = 1u << 2 };

static const struct opt mode_opts[] = {
	{ "alpha", 'a', ARG_NONE, NULL, "A's", NULL, M_A },
	{ "beta", OPT_LONG_BASE, ARG_STR, "X", "B's", NULL, M_B },
	{ "both", 'o', ARG_NONE, NULL, "A's and B's", NULL, M_A | M_B },
	{ "bc", 'c', ARG_NONE, NULL, "B's and C's", NULL, M_B | M_C },
	{ "any", 'y', ARG_NONE, NULL, "every mode's" },
	{ "secret", OPT_LONG_BASE + 1, ARG_STR, "S", "C's, internal", NULL, M_C, OPT_HIDDEN },
	{ 0 }
};
static const char *const mode_names[] = { "cmd A", "cmd --b", "cmd --c" };

static const char *mode_name(unsigned int mode)
{
	return mode < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[mode] : NULL;
}

static const struct opt_refusal mode_refusals[] = {
	{ M_B, M_A, "Failed to use {opt} here: {opt} is --b's" },
	{ 0 }
};
static const struct opt_modes test_modes = { mode_name, mode_refusals };
static const struct command mode_cmd = { .name = "cmd", .opts = mode_opts, .modes = &test_modes,
					  .max_args = -1 };

/* "cmd ARGS..." parsed, then checked for @mode: its result, the line in @msg ("" when none). */
static int mode_check(unsigned int mode, char *msg, size_t len, char **argv)
{
	struct ctx ctx = { .root = "" };
	struct optparser p;
	int argc = 0, c, ret;

	while (argv[argc])
		argc++;
	msg[0] = '\0';
	if (opt_init(&p, &ctx, &mode_cmd, argc, argv))
		return -E2BIG;
	while ((c = opt_next(&p)) != OPT_END)
		if (c < 0)
			return -EBADMSG;
	log_last_error_clear();
	ret = opt_mode_check(&p, mode);
	log_last_error(msg, len, NULL);
	return ret;
}

static void modes_refuse_by_name(void)
{
	char msg[256];

	CHECK_INT(mode_check(0, msg, sizeof(msg), (char *[]){ "cmd", "-y", "-o", "-a", NULL }), 0);
	CHECK_STR(msg, "");
	CHECK_INT(mode_check(1, msg, sizeof(msg), (char *[]){ "cmd", "-yo", "--beta=x", "-c", NULL }), 0);
	/* A refusal of the table: every {opt} is the option as typed. */
	CHECK_INT(mode_check(0, msg, sizeof(msg), (char *[]){ "cmd", "--beta=x", "-a", NULL }), -EINVAL);
	CHECK_STR(msg, "Failed to use --beta here: --beta is --b's");
	/* None fits: the line names the mode chosen and those that take it. */
	CHECK_INT(mode_check(1, msg, sizeof(msg), (char *[]){ "cmd", "-a", "--beta", "x", NULL }), -EINVAL);
	CHECK_STR(msg, "Failed to use -a with cmd --b: it is an option of cmd A");
	CHECK_INT(mode_check(2, msg, sizeof(msg), (char *[]){ "cmd", "--both", NULL }), -EINVAL);
	CHECK_STR(msg, "Failed to use --both with cmd --c: it is an option of cmd A or cmd --b");
	/* A row fits only an option of no mode outside its own: -c is also C's. */
	CHECK_INT(mode_check(0, msg, sizeof(msg), (char *[]){ "cmd", "-c", NULL }), -EINVAL);
	CHECK_STR(msg, "Failed to use -c with cmd A: it is an option of cmd --b or cmd --c");
	/* The first given is named, as typed, a letter of a bundle too. */
	CHECK_INT(mode_check(2, msg, sizeof(msg), (char *[]){ "cmd", "-yac", "--both", NULL }), -EINVAL);
	CHECK_STR(msg, "Failed to use -a with cmd --c: it is an option of cmd A");
	CHECK_INT(mode_check(0, msg, sizeof(msg), (char *[]){ "cmd", "--secret", "s", NULL }), -EINVAL);
	CHECK_STR(msg, "Failed to use --secret with cmd A: it is an option of cmd --c");
}

/* An internal option is parsed, never shown. */
static void hidden_options_not_shown(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		CHECK(f != NULL);
		return;
	}
	usage_print(f, &mode_cmd);
	fclose(f);
	CHECK(strstr(text, "--bc") != NULL);
	CHECK(strstr(text, "--secret") == NULL);
	free(text);
}

int main(void)
{
	RUN("base", closest_suggests_near_words);
	RUN("base", parse_long_rejects_junk);
	RUN("base", cells_render_as_text);
	RUN("base", list_cells_join_in_text);
	RUN("base", tables_fit_a_width);
	RUN("base", tables_fold_rows_at_a_width);
	RUN("base", modes_refuse_by_name);
	RUN("base", hidden_options_not_shown);
	TEST_EXIT();
}
