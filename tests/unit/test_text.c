// SPDX-License-Identifier: MIT
/* base/text: text from outside made safe for a terminal and for JSON. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/text.h"
#include "test.h"

static void clean_text_is_kept(void)
{
	char buf[64];

	CHECK_STR(text_safe("mlx5_0 16.35.2000", buf, sizeof(buf), 0), "mlx5_0 16.35.2000");
	CHECK_STR(text_safe("Grüße, ÄÖÜ €", buf, sizeof(buf), 0), "Grüße, ÄÖÜ €");
	CHECK_STR(text_safe("", buf, sizeof(buf), 0), "");
	CHECK_STR(text_safe(NULL, buf, sizeof(buf), 0), "");
	CHECK(text_is_clean("plain", 0));
	CHECK(text_is_clean("a\nb", TEXT_KEEP_NL));
	CHECK(!text_is_clean("a\nb", 0));
}

static void terminal_escapes_are_shown(void)
{
	char buf[128];

	/* Set the window title, clear the screen, a fake "ok" line. */
	CHECK_STR(text_safe("\x1b]0;pwned\x07", buf, sizeof(buf), 0), "\\x1b]0;pwned\\x07");
	CHECK_STR(text_safe("fw\x1b[2J", buf, sizeof(buf), 0), "fw\\x1b[2J");
	CHECK_STR(text_safe("x\rok", buf, sizeof(buf), 0), "x\\x0dok");
	CHECK_STR(text_safe("a\nb\tc", buf, sizeof(buf), 0), "a\\x0ab\\x09c");
	CHECK_STR(text_safe("a\nb\tc", buf, sizeof(buf), TEXT_KEEP_NL), "a\nb\tc");
	CHECK_STR(text_safe("del\x7f", buf, sizeof(buf), 0), "del\\x7f");
	/* C1 CSI (U+009B) as UTF-8: some terminals obey it. */
	CHECK_STR(text_safe("\xc2\x9b" "2J", buf, sizeof(buf), 0), "\\xc2\\x9b2J");
	/*
	 * Format and separator characters: a right-to-left override (U+202E)
	 * shows "5.77" as "77.5", U+2028 breaks a line, U+200B and a tag
	 * (U+E0041) hide; a soft hyphen (U+00AD) is one too.  The characters
	 * around them, "é" (U+00E9) and "→" (U+2192), stay as they are.
	 */
	CHECK_STR(text_safe("5.77\xe2\x80\xae Gb/s", buf, sizeof(buf), 0), "5.77\\xe2\\x80\\xae Gb/s");
	CHECK_STR(text_safe("a\xe2\x80\xa8" "b\xe2\x80\x8b" "c", buf, sizeof(buf), 0),
		  "a\\xe2\\x80\\xa8b\\xe2\\x80\\x8bc");
	CHECK_STR(text_safe("x\xf3\xa0\x81\x81y\xc2\xad", buf, sizeof(buf), 0), "x\\xf3\\xa0\\x81\\x81y\\xc2\\xad");
	CHECK_STR(text_safe("caf\xc3\xa9 \xe2\x86\x92 n2", buf, sizeof(buf), 0), "caf\xc3\xa9 \xe2\x86\x92 n2");
	CHECK(!text_is_clean("n\xe2\x80\xaeode", 0));
}

static void invalid_utf8_is_escaped(void)
{
	char buf[128];

	CHECK_STR(text_safe("bad\xff\xfe", buf, sizeof(buf), 0), "bad\\xff\\xfe");
	/* Overlong '/', a lone continuation byte, a surrogate, a cut sequence. */
	CHECK_STR(text_safe("\xc0\xaf", buf, sizeof(buf), 0), "\\xc0\\xaf");
	CHECK_STR(text_safe("\x80x", buf, sizeof(buf), 0), "\\x80x");
	CHECK_STR(text_safe("\xed\xa0\x80", buf, sizeof(buf), 0), "\\xed\\xa0\\x80");
	CHECK_STR(text_safe("\xe2\x82", buf, sizeof(buf), 0), "\\xe2\\x82");
}

static void long_text_keeps_both_ends(void)
{
	char src[3000], buf[64];

	memset(src, 'a', sizeof(src) - 1);
	src[sizeof(src) - 1] = '\0';
	memcpy(src, "START", 5);
	memcpy(src + sizeof(src) - 1 - 6, "REASON", 6);
	text_safe(src, buf, sizeof(buf), 0);
	CHECK_INT(strlen(buf), sizeof(buf) - 1);
	CHECK(!strncmp(buf, "START", 5));
	CHECK(strstr(buf, "...") != NULL);
	CHECK_STR(buf + strlen(buf) - 6, "REASON");
	/* Multi-byte characters are never cut in half. */
	{
		char u[400] = "";

		for (int i = 0; i < 100; i++)
			strcat(u, "é");
		text_safe(u, buf, 20, 0);
		CHECK(text_is_clean(buf, 0));
	}
}

/* Counted text: a NUL is shown, and a character cut by the end is escaped. */
static void counted_text(void)
{
	char buf[64];

	CHECK_STR(text_safe_n("b\0c", 3, buf, sizeof(buf), 0), "b\\x00c");
	CHECK_STR(text_safe_n("abcdef", 3, buf, sizeof(buf), 0), "abc");
	CHECK_STR(text_safe_n("Grüße", 3, buf, sizeof(buf), 0), "Gr\\xc3");
	CHECK_STR(text_safe_n("Grüße", 4, buf, sizeof(buf), 0), "Grü");
	CHECK_STR(text_safe_n(NULL, 5, buf, sizeof(buf), 0), "");
	CHECK_STR(text_safe_n("x", 0, buf, sizeof(buf), 0), "");
}

static void json_becomes_utf8(void)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	const char *s;

	json_object_object_add(o, "fw", json_object_new_string("1.2\xff"));
	json_object_object_add(o, "ok", json_object_new_string("Grüße"));
	json_object_array_add(a, json_object_new_string("\xc3"));
	json_object_object_add(o, "list", a);
	json_object_object_add(o, "k\xfe", json_object_new_int(7));
	CHECK_INT(json_make_utf8(o), 3);
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	CHECK_STR(s, "{\"fw\":\"1.2\xef\xbf\xbd\",\"ok\":\"Grüße\",\"list\":[\"\xef\xbf\xbd\"],"
		     "\"k\xef\xbf\xbd\":7}");
	CHECK_INT(json_make_utf8(o), 0);
	json_object_put(o);
}

int main(void)
{
	RUN("text", clean_text_is_kept);
	RUN("text", terminal_escapes_are_shown);
	RUN("text", invalid_utf8_is_escaped);
	RUN("text", long_text_keeps_both_ends);
	RUN("text", counted_text);
	RUN("text", json_becomes_utf8);
	TEST_EXIT();
}
