// SPDX-License-Identifier: MIT
/* Text from outside made safe for a terminal and for JSON (see text.h). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/text.h"

/* @avail for a string that ends with a NUL: the NUL fails as a continuation byte. */
#define NUL_ENDED SIZE_MAX

/*
 * Length of the valid UTF-8 sequence at @p (1 to 4), or 0 when it is not
 * one: overlong forms, surrogates, code points past U+10FFFF and sequences
 * longer than the @avail bytes left are not.
 */
static size_t utf8_seq(const unsigned char *p, size_t avail)
{
	unsigned int cp;
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (n > avail)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* The code point of the valid @seq-byte (2 to 4) UTF-8 sequence at @p. */
static unsigned int code_point(const unsigned char *p, size_t seq)
{
	unsigned int cp = p[0] & (0x7f >> seq);
	size_t i;

	for (i = 1; i < seq; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

/*
 * Unicode's format characters (category Cf: bidi overrides and isolates,
 * zero-width ones, the BOM, tags) and the line and paragraph separators:
 * drawn, they reorder or hide the text around them ("5.77" shown as
 * "77.5"), or break a line a reader takes for one.  Shown escaped, as
 * controls are.
 */
static bool invisible(unsigned int cp)
{
	static const unsigned int ranges[][2] = {
		{ 0x00ad, 0x00ad }, { 0x0600, 0x0605 }, { 0x061c, 0x061c }, { 0x06dd, 0x06dd },
		{ 0x070f, 0x070f }, { 0x180e, 0x180e }, { 0x200b, 0x200f }, { 0x2028, 0x202e },
		{ 0x2060, 0x2064 }, { 0x2066, 0x206f }, { 0xfeff, 0xfeff }, { 0xfff9, 0xfffb },
		{ 0x110bd, 0x110bd }, { 0x1d173, 0x1d17a }, { 0xe0001, 0xe0001 }, { 0xe0020, 0xe007f },
	};
	size_t i;

	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (cp >= ranges[i][0] && cp <= ranges[i][1])
			return true;
	return false;
}

/*
 * A byte or sequence to show escaped: controls (C0, DEL, C1), format and
 * separator characters (invisible()) and non-UTF-8.
 */
static bool needs_escape(const unsigned char *p, size_t seq, unsigned int flags)
{
	if (!seq)
		return true;
	if (seq == 1)
		return (p[0] < 0x20 || p[0] == 0x7f) &&
		       !((flags & TEXT_KEEP_NL) && (p[0] == '\n' || p[0] == '\t'));
	/* U+0080..U+009F: C1 controls, which some terminals obey (CSI is U+009B). */
	return (seq == 2 && p[0] == 0xc2 && p[1] < 0xa0) || invisible(code_point(p, seq));
}

/* The @n bytes at @s need nothing escaped (a NUL among them does). */
static bool clean_n(const char *s, size_t n, unsigned int flags)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end) {
		size_t seq = utf8_seq(p, (size_t)(end - p));

		if (needs_escape(p, seq, flags))
			return false;
		p += seq;
	}
	return true;
}

bool text_is_clean(const char *s, unsigned int flags)
{
	return clean_n(s, strlen(s), flags);
}

/* The @n bytes at @src escaped, in a new string (4 bytes at most per byte). */
static char *escape_all(const char *src, size_t n, unsigned int flags)
{
	const unsigned char *p = (const unsigned char *)src, *end = p + n;
	char *out = malloc(n * 4 + 1), *o = out;

	if (!out)
		return NULL;
	while (p < end) {
		size_t seq = utf8_seq(p, (size_t)(end - p)), i;

		if (needs_escape(p, seq, flags)) {
			/* A bad sequence is escaped one byte at a time. */
			for (i = 0; i < (seq ? seq : 1); i++)
				o += sprintf(o, "\\x%02x", p[i]);
			p += seq ? seq : 1;
			continue;
		}
		memcpy(o, p, seq);
		o += seq;
		p += seq;
	}
	*o = '\0';
	return out;
}

/* Step back (or forward) to the start of a UTF-8 character. */
static size_t char_start(const char *s, size_t i, bool forward)
{
	while (i && ((unsigned char)s[i] & 0xc0) == 0x80)
		i += forward ? 1 : (size_t)-1;
	return i;
}

char *text_safe(const char *src, char *dst, size_t len, unsigned int flags)
{
	return text_safe_n(src, src ? strlen(src) : 0, dst, len, flags);
}

char *text_safe_n(const char *src, size_t srclen, char *dst, size_t len, unsigned int flags)
{
	char *all;
	size_t n, head, tail;

	if (!len)
		return dst;
	if (!src)
		src = "", srclen = 0;
	if (srclen < len && clean_n(src, srclen, flags)) {
		memcpy(dst, src, srclen);
		dst[srclen] = '\0';
		return dst;
	}
	all = escape_all(src, srclen, flags);
	if (!all) {
		snprintf(dst, len, "?");
		return dst;
	}
	n = strlen(all);
	if (n < len) {
		memcpy(dst, all, n + 1);
	} else {
		/* Keep the start and the end: "...": 3 bytes, and the NUL. */
		head = char_start(all, (len - 4) / 2, false);
		tail = char_start(all, n - (len - 4 - head), true);
		memcpy(dst, all, head);
		memcpy(dst + head, "...", 3);
		memcpy(dst + head + 3, all + tail, n - tail + 1);
	}
	free(all);
	return dst;
}

char *text_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(strlen(s) * 3 + 1), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		size_t seq = utf8_seq(p, NUL_ENDED);

		if (!seq) {
			memcpy(o, "\xef\xbf\xbd", 3);	/* U+FFFD */
			o += 3;
			p++;
			continue;
		}
		memcpy(o, p, seq);
		o += seq;
		p += seq;
	}
	*o = '\0';
	return out;
}

static bool is_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t seq;

	for (; *p; p += seq)
		if (!(seq = utf8_seq(p, NUL_ENDED)))
			return false;
	return true;
}

/*
 * Keys cannot be renamed in place: the values of bad keys are moved under
 * their valid forms once the walk is over.
 */
static size_t fix_object(struct json_object *obj)
{
	struct json_object *moved = json_object_new_object(), *bad = json_object_new_array();
	size_t i, changed = 0;

	if (!moved || !bad)
		goto out;
	json_object_object_foreach(obj, key, val) {
		char *k;

		changed += json_make_utf8(val);
		if (is_utf8(key) || !(k = text_utf8(key)))
			continue;
		json_object_object_add(moved, k, json_object_get(val));
		json_object_array_add(bad, json_object_new_string(key));
		free(k);
		changed++;
	}
	for (i = 0; i < json_object_array_length(bad); i++)
		json_object_object_del(obj, json_object_get_string(json_object_array_get_idx(bad, i)));
	json_object_object_foreach(moved, k2, v2)
		json_object_object_add(obj, k2, json_object_get(v2));
out:
	json_object_put(moved);
	json_object_put(bad);
	return changed;
}

size_t json_make_utf8(struct json_object *obj)
{
	size_t i, n, changed = 0;

	switch (json_object_get_type(obj)) {
	case json_type_string: {
		const char *s = json_object_get_string(obj);
		char *fixed;

		if (is_utf8(s))
			return 0;
		fixed = text_utf8(s);
		if (fixed)
			json_object_set_string(obj, fixed);
		free(fixed);
		return 1;
	}
	case json_type_array:
		n = json_object_array_length(obj);
		for (i = 0; i < n; i++)
			changed += json_make_utf8(json_object_array_get_idx(obj, i));
		return changed;
	case json_type_object:
		return fix_object(obj);
	default:
		return 0;
	}
}

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}
