/* SPDX-License-Identifier: MIT */
/*
 * Reading a large JSON document a value at a time: its top-level keys
 * kept whole (they are small), but one key's array, the big one, handed
 * to a callback element by element and dropped before the next.  The
 * `links` of a 1 000-node `rdmactl -j probe -w` run are a million
 * objects, ~200 MB of text: gigabytes as one json-c tree.  json-c's
 * tokener parses each value alone; this only walks between them.
 */
#ifndef RDMACTL_JSTREAM_H
#define RDMACTL_JSTREAM_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

struct jstream {
	const char *s;
	size_t len, pos;
	char *err;		/* one line on -EINVAL: what is wrong, and where */
	size_t errlen;
	/* private */
	void *tok;
	bool seen;		/* the array key was met */
};

/* Each element of the array: 0, or -errno (-EINVAL with @js->err set by jstream_bad()). */
typedef int (*jstream_each)(void *arg, struct json_object *o, size_t i);

/*
 * Read the object in @text (@len bytes, at most 2 GiB): every top-level
 * key into @doc but @key, whose value (an array) goes to @each element by
 * element; *@seen: @key was there.  Text after the object is an error.
 * 0, -EINVAL (@err says what, with the byte), -ENOMEM, or @each's error.
 */
int jstream_read(struct jstream *js, const char *text, size_t len, char *err, size_t errlen,
		 struct json_object *doc, const char *key, jstream_each each, void *arg,
		 bool *seen);

/* Say what is wrong in @js->err: -EINVAL. */
int jstream_bad(struct jstream *js, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
