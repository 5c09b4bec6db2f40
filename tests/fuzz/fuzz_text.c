// SPDX-License-Identifier: MIT
/*
 * base/text: whatever bytes come from outside, what text_safe() gives is
 * clean (no control byte, valid UTF-8), fits its buffer, and keeps the
 * input's start; json_make_utf8() leaves only valid UTF-8.  Input: one
 * byte for the buffer size, then the text.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/text.h"
#include "fuzz.h"

static void safe(const char *s, size_t len, unsigned int flags)
{
	char *buf = malloc(len);

	if (!buf)
		return;
	text_safe(s, buf, len, flags);
	if (strlen(buf) >= len)
		fuzz_fail("text_safe wrote %zu bytes into %zu", strlen(buf), len);
	if (!text_is_clean(buf, flags))
		fuzz_fail("text_safe left a control byte or bad UTF-8 in '%s'", buf);
	if (text_is_clean(s, flags) && strlen(s) < len && strcmp(s, buf))
		fuzz_fail("clean '%s' changed to '%s'", s, buf);
	free(buf);
}

/* The whole document, keys and values, is valid UTF-8 once made so. */
static void json(const char *s)
{
	struct json_object *o = json_object_new_object();
	const char *text;
	char *u;

	if (!o)
		return;
	json_object_object_add(o, s, json_object_new_string(s));
	json_make_utf8(o);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	u = text_utf8(text);
	if (u && strcmp(u, text))
		fuzz_fail("JSON '%s' is still not UTF-8", text);
	free(u);
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1 || size > 8192)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	safe(s, 16 + data[0] % 64, 0);
	safe(s, 16 + data[0] % 64, TEXT_KEEP_NL);
	safe(s, 4096, 0);
	json(s);
	free(s);
	return 0;
}
