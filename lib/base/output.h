/* SPDX-License-Identifier: MIT */
/*
 * One printer for people and programs.  A command fills rows (json-c
 * objects) once; table_emit() renders them as an aligned text table whose
 * headers name the JSON keys, or attaches them to the JSON document.
 */
#ifndef RDMACTL_OUTPUT_H
#define RDMACTL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <json-c/json.h>

struct ctx;

enum color {
	COLOR_NONE,
	COLOR_RED,
	COLOR_GREEN,
	COLOR_YELLOW,
	COLOR_BOLD,
	COLOR_DIM,
	/*
	 * A heatmap's ten steps (viridis, as backgrounds: dark far under the
	 * median, yellow at it), readable with any colour vision; color_heat().
	 */
	COLOR_HEAT0,
	COLOR_HEAT9 = COLOR_HEAT0 + 9,
};

/* The step of @frac (a fraction of the median: 0 .. 1 and above) on the heatmap scale. */
enum color color_heat(double frac);

/* ANSI sequence for @c, or "" when colour is off. */
const char *color_on(const struct ctx *ctx, enum color c);
const char *color_off(const struct ctx *ctx);

enum column_flags {
	COL_RIGHT = 1 << 0,	/* right-align (numbers) */
	COL_NOTEXT = 1 << 1,	/* JSON only */
	COL_WIDE = 1 << 2,	/* text only with -v */
	COL_BELOW = 1 << 3,	/* text: on its own line under the row ("fix: ..."), when set */
	COL_FILL = 1 << 4,	/* text: cut, ending "...", to what table_fit() leaves it */
	COL_WRAP = 1 << 5,	/* text, last column: wrapped at blanks to table_fit()'s width */
};

struct column {
	const char *key;	/* JSON key of the cell */
	const char *header;	/* text header; NULL: the key upper-cased */
	unsigned int flags;
	/* Text colour of a cell, chosen from its value; may be NULL. */
	enum color (*color)(const char *text);
	/*
	 * Text of the cell for people when the JSON value is not it as it is
	 * (a long hostlist cut short, a list of objects); may be NULL.  The
	 * result is escaped like any cell; NULL leaves a COL_BELOW line out
	 * and shows "-" elsewhere.
	 */
	const char *(*text)(struct json_object *row, char *buf, size_t len);
	/* Colour of a cell chosen from its whole row (a heatmap's cell); may be NULL. */
	enum color (*row_color)(struct json_object *row, const char *key);
};

struct table;

struct table *table_new(const struct column *cols);
void table_free(struct table *t);
/* Append a row; the row belongs to the table. */
struct json_object *table_row(struct table *t);
size_t table_rows(const struct table *t);
/* Row @i, to read back what was filled; NULL past the end. */
struct json_object *table_get_row(const struct table *t, size_t i);
/*
 * Text lines of at most @width columns (0: no limit; without a call,
 * output_width()): the COL_FILL column is cut to what the others leave, a
 * column that would end past the width starts a line of its own under the
 * second column (its header too), a cell still too wide and COL_BELOW lines
 * are folded at blanks (print_folded()), and COL_BELOW lines start under
 * the second column.
 */
void table_fit(struct table *t, size_t width);
/* The width of a terminal that does not say its own. */
#define OUTPUT_WIDTH_DEFAULT 80
/*
 * The width text on stdout keeps to: $COLUMNS when it is a number (as the
 * shell sets it, and for a script that asks; any other value is ignored),
 * else the terminal's when stdout is one (OUTPUT_WIDTH_DEFAULT when it does
 * not say), else 0: a pipe or a file, no limit, a line per row for grep
 * and scripts.  Every table and print_text() keep to it.
 */
size_t output_width(void);
/*
 * @text on stdout folded to output_width(): at its own newlines and at the
 * last blank that fits, each line after the first indented by @hang (a
 * word longer than the line is cut), each piece in @color.  The one
 * folding of rdmactl's text; tables fold their cells with it too.
 */
void print_folded(const struct ctx *ctx, enum color color, size_t hang, const char *text);
/*
 * Print the table: as text on stdout (nothing when it has no rows), or as
 * the array @key of the JSON document.  Frees @t.
 */
int table_emit(struct ctx *ctx, struct table *t, const char *key);

/* Row cells.  A NULL string stores JSON null, shown as "-". */
void row_str(struct json_object *row, const char *key, const char *val);
void row_int(struct json_object *row, const char *key, int64_t val);
void row_bool(struct json_object *row, const char *key, bool val);
void row_double(struct json_object *row, const char *key, double val, int decimals);
/* JSON null in each KEY..., a list ended by NULL: columns that do not apply. */
void row_nulls(struct json_object *row, ...) __attribute__((sentinel));
/*
 * A list cell: a JSON array, joined with "," in text ("-" when empty).
 * row_list() makes the (empty) list; row_list_add() appends, NULL as null.
 */
void row_list(struct json_object *row, const char *key);
void row_list_add(struct json_object *row, const char *key, const char *val);
void row_fmt(struct json_object *row, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * @when as an ISO 8601 UTC time ("2026-03-01T14:05:09Z"), the form the
 * documents rdmactl saves date their runs in; 0 stores null (not known).
 */
void row_time(struct json_object *row, const char *key, time_t when);

/*
 * A scalar of the document's root: in text mode @fmt is printed with the
 * value (iproute2's print_uint(PRINT_ANY, ...)); in JSON mode it becomes
 * the key @key.
 */
void print_int(struct ctx *ctx, const char *key, const char *fmt, int64_t val);
void print_str(struct ctx *ctx, const char *key, const char *fmt, const char *val);
/*
 * Text-only lines (headings, hints); dropped in JSON mode.  Each whole line
 * longer than output_width() is folded at blanks, its later lines indented
 * two past its own indent; a piece without its newline is printed as it is.
 */
void print_text(struct ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * As print_text(), never folded: lines a shell or a program reads whole
 * (env's "export NAME=VALUE", the health mode's scontrol command).
 */
void print_verbatim(struct ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Attach an object built by the caller under @key of the JSON root. */
void json_attach(struct ctx *ctx, const char *key, struct json_object *obj);

/* Text of a cell as the table shows it ("-" for null or absent). */
const char *cell_text(struct json_object *row, const char *key, char *buf, size_t len);

/*
 * -j: the document's "error" object when @rc is not RC_OK, from the last
 * error line (log_last_error()): {"code": @rc, "message": the line without
 * "rdmactl CMD: ", "errno": "EFBIG" when one was given}, so that a program
 * that reads only stdout still learns why.  Nothing when no line was logged.
 */
void attach_error(struct ctx *ctx, int rc);

/* Print the JSON document (if any) and check stdout; 0 or -errno. */
int output_finish(struct ctx *ctx);

#endif
