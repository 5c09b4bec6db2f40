// SPDX-License-Identifier: MIT
/*
 * The JSON getters (base/json.h): what each gives for a string, a number,
 * null, a wrong type and an absent key, the differences its callers rely on.
 */
#include <json-c/json.h>

#include "base/json.h"
#include "test.h"

static const char doc[] = "{\"s\":\"text\",\"n\":9000,\"d\":2.5,\"z\":null,\"b\":true,"
			  "\"a\":[1,2,3],\"digits\":\"12\"}";

static void strings_only_as_strings(void)
{
	struct json_object *o = json_tokener_parse(doc);

	CHECK_STR(jstr(o, "s"), "text");
	CHECK(jstr(o, "n") == NULL);
	CHECK(jstr(o, "z") == NULL);
	CHECK(jstr(o, "none") == NULL);
	CHECK(jstr(NULL, "s") == NULL);
	CHECK_STR(jstr_or(o, "n", ""), "");
	CHECK_STR(jstr_or(o, "none", "dflt"), "dflt");
	CHECK_STR(jstr_or(o, "s", ""), "text");
	json_object_put(o);
}

static void any_value_as_text(void)
{
	struct json_object *o = json_tokener_parse(doc);

	CHECK_STR(jtext(o, "s"), "text");
	CHECK_STR(jtext(o, "n"), "9000");
	CHECK_STR(jtext(o, "b"), "true");
	CHECK(jtext(o, "z") == NULL);
	CHECK(jtext(o, "none") == NULL);
	json_object_put(o);
}

static void numbers_and_arrays(void)
{
	struct json_object *o = json_tokener_parse(doc);

	CHECK(jnum(o, "d", -1) == 2.5);
	CHECK(jnum(o, "n", -1) == 9000);
	CHECK(jnum(o, "s", -1) == -1);
	CHECK(jnum(o, "z", -1) == -1);
	CHECK_INT(jint(o, "n", -1), 9000);
	CHECK_INT(jint(o, "digits", -1), 12);	/* as json-c reads it */
	CHECK_INT(jint(o, "z", -1), 0);
	CHECK_INT(jint(o, "none", -1), -1);
	CHECK_INT(jlen(jget(o, "a")), 3);
	CHECK_INT(jlen(jget(o, "s")), 0);
	CHECK_INT(jlen(NULL), 0);
	CHECK(jget(o, "z") == NULL);
	CHECK(jget(o, "a") != NULL);
	json_object_put(o);
}

int main(void)
{
	RUN("json", strings_only_as_strings);
	RUN("json", any_value_as_text);
	RUN("json", numbers_and_arrays);
	TEST_EXIT();
}
