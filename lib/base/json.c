// SPDX-License-Identifier: MIT
/* Values out of a json-c object by key (json.h). */
#include <json-c/json.h>

#include "base/json.h"

struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

const char *jstr(struct json_object *o, const char *key)
{
	return jstr_or(o, key, NULL);
}

const char *jstr_or(struct json_object *o, const char *key, const char *dflt)
{
	struct json_object *v = jget(o, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : dflt;
}

const char *jtext(struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key);

	return v ? json_object_get_string(v) : NULL;
}

double jnum(struct json_object *o, const char *key, double dflt)
{
	struct json_object *v = jget(o, key);

	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return dflt;
	return json_object_get_double(v);
}

int64_t jint(struct json_object *o, const char *key, int64_t dflt)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return dflt;
	return json_object_get_int64(v);
}

size_t jlen(struct json_object *arr)
{
	return json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
}
