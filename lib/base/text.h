/* SPDX-License-Identifier: MIT */
/*
 * Text from outside the program (sysfs and procfs files, --root trees,
 * snapshots, environment variables, peers, gathered node documents) made
 * safe to show, and the whole numbers read out of it.  A firmware string or a peer's message may carry terminal
 * escapes ("\e]0;title\a", "\e[2J") or bytes that are not UTF-8; on a
 * terminal they are shown escaped, in JSON they become valid UTF-8.
 *
 * The printer (output.c) and the log (log.c) pass everything they print
 * through these, so a command need not remember to.
 */
#ifndef RDMACTL_TEXT_H
#define RDMACTL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

enum text_flags {
	TEXT_KEEP_NL = 1 << 0,	/* keep '\n' and '\t' (multi-line messages of our own) */
};

/*
 * @src for a terminal, in @dst (@len bytes, at least 16): C0 controls,
 * DEL, C1 controls (U+0080..U+009F), format and separator characters
 * (bidi overrides such as U+202E, zero-width ones such as U+200B, U+2028)
 * and bytes that are not UTF-8 become "\xHH", a byte at a time; the rest
 * of valid UTF-8 is kept.  When the result does not fit, its middle
 * is cut and marked "...", so that both the start and the end (where a
 * message's reason usually is) survive.  Returns @dst.
 */
char *text_safe(const char *src, char *dst, size_t len, unsigned int flags);

/*
 * The same for the @srclen bytes at @src, which may hold a NUL (shown as
 * "\x00") and need not end with one: a line read from a file, a part of
 * an argument.
 */
char *text_safe_n(const char *src, size_t srclen, char *dst, size_t len, unsigned int flags);

/* True when @s needs nothing of text_safe() (no control byte, valid UTF-8). */
bool text_is_clean(const char *s, unsigned int flags);

/*
 * @s as valid UTF-8 (each invalid byte replaced by U+FFFD), in a new
 * string to free; NULL when out of memory.
 */
char *text_utf8(const char *s);

/*
 * Make every string (value and key) of @obj, recursively, valid UTF-8:
 * json-c writes whatever bytes it was given.  Returns how many strings it
 * changed.
 */
size_t json_make_utf8(struct json_object *obj);

/*
 * A whole decimal number in [min, max] from text of any source (an
 * option, a file, a peer's "HOST:PORT"): a sign if any ('+' or '-', as
 * strtol takes them), no leading space, nothing after it.  0 or -EINVAL;
 * nothing said (opt_long() says it for an option).
 */
int parse_long(const char *s, long min, long max, long *out);

#endif
