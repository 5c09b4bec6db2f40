// SPDX-License-Identifier: MIT
/* A large JSON document, one value at a time (see jstream.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "base/jstream.h"

int jstream_bad(struct jstream *js, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(js->err, js->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void skip_ws(struct jstream *js)
{
	while (js->pos < js->len && isspace((unsigned char)js->s[js->pos]))
		js->pos++;
}

/* @c next (after blanks), taken. */
static bool take(struct jstream *js, char c)
{
	skip_ws(js);
	if (js->pos < js->len && js->s[js->pos] == c) {
		js->pos++;
		return true;
	}
	return false;
}

/*
 * The JSON value at the position, parsed alone by json-c (it stops where
 * the value ends), in @out (NULL for null).  0 or -EINVAL.
 */
static int value(struct jstream *js, struct json_object **out, const char *what)
{
	json_tokener *tok = js->tok;
	enum json_tokener_error e;

	skip_ws(js);
	json_tokener_reset(tok);
	*out = json_tokener_parse_ex(tok, js->s + js->pos, (int)(js->len - js->pos));
	e = json_tokener_get_error(tok);
	if (e != json_tokener_success) {
		json_object_put(*out);
		*out = NULL;
		return jstream_bad(js, "%s at byte %zu: %s", what, js->pos,
				   e == json_tokener_continue ? "the document ends early"
							      : json_tokener_error_desc(e));
	}
	js->pos += json_tokener_get_parse_end(tok);
	return 0;
}

/* "KEY": [ {...}, ... ], each element handed over and dropped before the next. */
static int array_read(struct jstream *js, const char *key, jstream_each each, void *arg)
{
	struct json_object *o;
	size_t i = 0;
	int ret = 0;

	if (!take(js, '['))
		return jstream_bad(js, "%s: not an array", key);
	if (take(js, ']'))
		return 0;
	do {
		ret = value(js, &o, key);
		if (!ret)
			ret = each(arg, o, i++);
		json_object_put(o);
	} while (!ret && take(js, ','));
	if (!ret && !take(js, ']'))
		ret = jstream_bad(js, "%s: expected ',' or ']' at byte %zu", key, js->pos);
	return ret;
}

/* The top-level object: every key but @key kept whole in @doc. */
static int doc_read(struct jstream *js, struct json_object *doc, const char *key,
		    jstream_each each, void *arg)
{
	struct json_object *k, *v;
	int ret = 0;

	if (!take(js, '{'))
		return jstream_bad(js, "not a JSON object");
	if (take(js, '}'))
		return 0;
	do {
		ret = value(js, &k, "a key");
		if (!ret && !json_object_is_type(k, json_type_string))
			ret = jstream_bad(js, "a key at byte %zu is not a string", js->pos);
		if (!ret && !take(js, ':'))
			ret = jstream_bad(js, "expected ':' at byte %zu", js->pos);
		if (!ret && !strcmp(json_object_get_string(k), key) && !js->seen) {
			js->seen = true;
			ret = array_read(js, key, each, arg);
		} else if (!ret && !(ret = value(js, &v, json_object_get_string(k)))) {
			json_object_object_add(doc, json_object_get_string(k), v);
		}
		json_object_put(k);
	} while (!ret && take(js, ','));
	if (!ret && !take(js, '}'))
		ret = jstream_bad(js, "expected ',' or '}' at byte %zu", js->pos);
	skip_ws(js);
	if (!ret && js->pos < js->len)
		ret = jstream_bad(js, "text after the document at byte %zu", js->pos);
	return ret;
}

int jstream_read(struct jstream *js, const char *text, size_t len, char *err, size_t errlen,
		 struct json_object *doc, const char *key, jstream_each each, void *arg,
		 bool *seen)
{
	int ret;

	*js = (struct jstream){ .s = text, .len = len, .err = err, .errlen = errlen };
	err[0] = '\0';
	*seen = false;
	if (len > INT_MAX)
		return jstream_bad(js, "larger than 2 GiB");
	js->tok = json_tokener_new();
	if (!js->tok)
		return -ENOMEM;
	ret = doc_read(js, doc, key, each, arg);
	json_tokener_free(js->tok);
	js->tok = NULL;
	*seen = js->seen;
	return ret;
}
