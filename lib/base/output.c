// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "base/text.h"

/* The longest cell text shown; a longer value is cut in its middle. */
#define CELL_MAX 4096
/* A COL_FILL column keeps at least this much of its text, whatever the width. */
#define FILL_MIN 20
/* A wrapped cell or line has at least this much room, whatever the width. */
#define WRAP_MIN 12

struct table {
	const struct column *cols;
	size_t ncols;
	struct json_object *rows;	/* json array */
	size_t fit;			/* text line width, 0: none */
	bool fit_set;			/* by table_fit(); else output_width() */
};

static const char *const ansi[] = {
	[COLOR_NONE] = "",
	[COLOR_RED] = "\033[31m",
	[COLOR_GREEN] = "\033[32m",
	[COLOR_YELLOW] = "\033[33m",
	[COLOR_BOLD] = "\033[1m",
	[COLOR_DIM] = "\033[2m",
	/* 256-colour approximations of viridis; white text on the dark half. */
	[COLOR_HEAT0 + 0] = "\033[48;5;53;97m", [COLOR_HEAT0 + 1] = "\033[48;5;54;97m",
	[COLOR_HEAT0 + 2] = "\033[48;5;61;97m", [COLOR_HEAT0 + 3] = "\033[48;5;24;97m",
	[COLOR_HEAT0 + 4] = "\033[48;5;30;97m", [COLOR_HEAT0 + 5] = "\033[48;5;36;30m",
	[COLOR_HEAT0 + 6] = "\033[48;5;71;30m", [COLOR_HEAT0 + 7] = "\033[48;5;113;30m",
	[COLOR_HEAT0 + 8] = "\033[48;5;148;30m", [COLOR_HEAT0 + 9] = "\033[48;5;220;30m",
};

enum color color_heat(double frac)
{
	long q = lround(frac * 9);

	return COLOR_HEAT0 + (q < 0 ? 0 : q > 9 ? 9 : (int)q);
}

const char *color_on(const struct ctx *ctx, enum color c)
{
	return ctx->color ? ansi[c] : "";
}

const char *color_off(const struct ctx *ctx)
{
	return ctx->color ? "\033[0m" : "";
}

struct table *table_new(const struct column *cols)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cols = cols;
	while (cols[t->ncols].key)
		t->ncols++;
	t->rows = json_object_new_array();
	if (!t->rows) {
		free(t);
		return NULL;
	}
	return t;
}

void table_free(struct table *t)
{
	if (!t)
		return;
	json_object_put(t->rows);
	free(t);
}

struct json_object *table_row(struct table *t)
{
	struct json_object *row = json_object_new_object();

	if (row)
		json_object_array_add(t->rows, row);
	return row;
}

size_t table_rows(const struct table *t)
{
	return json_object_array_length(t->rows);
}

struct json_object *table_get_row(const struct table *t, size_t i)
{
	return json_object_array_get_idx(t->rows, i);
}

void table_fit(struct table *t, size_t width)
{
	t->fit = width;
	t->fit_set = true;
}

/* $COLUMNS as a width; 0 when it is unset or not a number from 1 on (no sign). */
static size_t columns_env(void)
{
	const char *env = getenv("COLUMNS");
	long n;

	if (!env || !isdigit((unsigned char)env[0]) || parse_long(env, 1, 100000, &n))
		return 0;
	return (size_t)n;
}

size_t output_width(void)
{
	struct winsize ws;
	size_t n = columns_env();

	if (n)
		return n;
	if (!isatty(STDOUT_FILENO))
		return 0;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return OUTPUT_WIDTH_DEFAULT;
}

static void row_set(struct json_object *row, const char *key, struct json_object *val)
{
	if (row)
		json_object_object_add(row, key, val);
	else
		json_object_put(val);
}

void row_str(struct json_object *row, const char *key, const char *val)
{
	row_set(row, key, val ? json_object_new_string(val) : NULL);
}

void row_nulls(struct json_object *row, ...)
{
	const char *key;
	va_list ap;

	va_start(ap, row);
	while ((key = va_arg(ap, const char *)))
		row_set(row, key, NULL);
	va_end(ap);
}

void row_int(struct json_object *row, const char *key, int64_t val)
{
	row_set(row, key, json_object_new_int64(val));
}

void row_bool(struct json_object *row, const char *key, bool val)
{
	row_set(row, key, json_object_new_boolean(val));
}

void row_double(struct json_object *row, const char *key, double val, int decimals)
{
	char buf[64];

	/* Keep the text and the JSON the same number: format once, parse back. */
	snprintf(buf, sizeof(buf), "%.*f", decimals, val);
	row_set(row, key, json_object_new_double_s(strtod(buf, NULL), buf));
}

void row_time(struct json_object *row, const char *key, time_t when)
{
	char buf[32];
	struct tm tm;

	if (!when || !gmtime_r(&when, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm)) {
		row_str(row, key, NULL);
		return;
	}
	row_str(row, key, buf);
}

void row_list(struct json_object *row, const char *key)
{
	struct json_object *arr;

	if (row && !json_object_object_get_ex(row, key, &arr))
		row_set(row, key, json_object_new_array());
}

void row_list_add(struct json_object *row, const char *key, const char *val)
{
	struct json_object *arr;

	if (!row)
		return;
	row_list(row, key);
	json_object_object_get_ex(row, key, &arr);
	json_object_array_add(arr, val ? json_object_new_string(val) : NULL);
}

/* "a,b": the non-null strings of a list cell. */
static const char *list_text(struct json_object *arr, char *buf, size_t len)
{
	size_t i, off = 0, n = json_object_array_length(arr);

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);

		char item[512];

		if (v)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "",
						text_safe(json_object_get_string(v), item,
							  sizeof(item), 0));
	}
	return off ? buf : "-";
}

void row_fmt(struct json_object *row, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	row_str(row, key, buf);
}

/* Decimal text of @v, without snprintf: tables format thousands of numbers. */
static const char *int_text(int64_t v, char *buf, size_t len)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10));
	if (v < 0)
		*--p = '-';
	if ((size_t)(tmp + sizeof(tmp) - p) > len)
		return "-";
	memcpy(buf, p, (size_t)(tmp + sizeof(tmp) - p));
	return buf;
}

/*
 * Strings in cells come from outside as often as not (device names,
 * firmware, a peer's words): shown through text_safe(), which keeps
 * newlines only in @flags' TEXT_KEEP_NL (a fix written below its row).
 */
static const char *cell_text_flags(struct json_object *row, const char *key, char *buf,
				   size_t len, unsigned int flags)
{
	struct json_object *v;

	if (!json_object_object_get_ex(row, key, &v) || !v)
		return "-";
	switch (json_object_get_type(v)) {
	case json_type_string:
		return text_safe(json_object_get_string(v), buf, len, flags);
	case json_type_boolean:
		return json_object_get_boolean(v) ? "yes" : "no";
	case json_type_int:
		return int_text(json_object_get_int64(v), buf, len);
	case json_type_array:
		return list_text(v, buf, len);
	default:
		/* doubles keep the text they were made from */
		snprintf(buf, len, "%s", json_object_to_json_string(v));
		return buf;
	}
}

const char *cell_text(struct json_object *row, const char *key, char *buf, size_t len)
{
	return cell_text_flags(row, key, buf, len, 0);
}

/* The text of @col's cell in @row: its own text hook's, or the value's; NULL: none. */
static const char *col_text(const struct column *col, struct json_object *row, char *buf,
			    size_t len, unsigned int flags)
{
	char raw[CELL_MAX];
	const char *s;

	if (!col->text) {
		struct json_object *v;

		if ((col->flags & COL_BELOW) &&
		    (!json_object_object_get_ex(row, col->key, &v) || !v))
			return NULL;
		return cell_text_flags(row, col->key, buf, len, flags);
	}
	s = col->text(row, raw, sizeof(raw));
	return s ? text_safe(s, buf, len, flags) : NULL;
}

/* @text cut to @width bytes, ending "...", at a character's start. */
static const char *cut_text(const char *text, size_t width, char *buf, size_t len)
{
	size_t n;

	if (strlen(text) <= width || width < 4 || width >= len)
		return text;
	n = width - 3;
	while (n && ((unsigned char)text[n] & 0xc0) == 0x80)
		n--;
	snprintf(buf, len, "%.*s...", (int)n, text);
	return buf;
}

static bool col_shown(const struct ctx *ctx, const struct column *c)
{
	if (c->flags & (COL_NOTEXT | COL_BELOW))
		return false;
	return !(c->flags & COL_WIDE) || ctx->verbose;
}

static void header_text(const struct column *c, char *buf, size_t len)
{
	size_t i;

	if (c->header) {
		snprintf(buf, len, "%s", c->header);
		return;
	}
	for (i = 0; c->key[i] && i + 1 < len; i++)
		buf[i] = (char)toupper((unsigned char)c->key[i]);
	buf[i] = '\0';
}

static void measure(const struct ctx *ctx, const struct table *t, size_t *width)
{
	char buf[CELL_MAX];
	size_t r, c, n = table_rows(t);

	for (c = 0; c < t->ncols; c++) {
		header_text(&t->cols[c], buf, sizeof(buf));
		width[c] = strlen(buf);
	}
	for (r = 0; r < n; r++) {
		struct json_object *row = json_object_array_get_idx(t->rows, r);

		for (c = 0; c < t->ncols; c++) {
			size_t w;

			const char *s;

			if (!col_shown(ctx, &t->cols[c]))
				continue;
			s = col_text(&t->cols[c], row, buf, sizeof(buf), 0);
			w = strlen(s ? s : "-");
			if (w > width[c])
				width[c] = w;
		}
	}
}

/* With table_fit(): the COL_FILL column gets what the others leave of the line. */
static void fit(const struct ctx *ctx, const struct table *t, size_t *width)
{
	size_t c, used = 0, shown = 0, fill = t->ncols;

	if (!t->fit)
		return;
	for (c = 0; c < t->ncols; c++) {
		if (!col_shown(ctx, &t->cols[c]))
			continue;
		shown++;
		if (t->cols[c].flags & COL_FILL)
			fill = c;
		else if (t->cols[c].flags & COL_WRAP)	/* it yields, down to WRAP_MIN */
			used += width[c] < WRAP_MIN ? width[c] : WRAP_MIN;
		else
			used += width[c];
	}
	if (fill == t->ncols)
		return;
	used += 2 * (shown - 1);
	if (width[fill] > FILL_MIN && used + width[fill] > t->fit)
		width[fill] = t->fit > used + FILL_MIN ? t->fit - used : FILL_MIN;
}

/* @n blanks; fwrite rather than printf("%*s"): big tables print many cells. */
static void pad(int n)
{
	static const char blanks[] = "                                ";

	while (n > 0) {
		int k = n < (int)sizeof(blanks) - 1 ? n : (int)sizeof(blanks) - 1;

		fwrite(blanks, 1, (size_t)k, stdout);
		n -= k;
	}
}

static void print_cell(const struct ctx *ctx, const struct column *col, const char *text,
		       size_t width, bool last, enum color color)
{
	/* Pad outside the colour codes so they don't count as width. */
	int pad_n = (int)width - (int)strlen(text);

	if (col->flags & COL_RIGHT)
		pad(pad_n);
	if (color != COLOR_NONE)
		fputs(color_on(ctx, color), stdout);
	fputs(text, stdout);
	if (color != COLOR_NONE)
		fputs(color_off(ctx), stdout);
	if (!(col->flags & COL_RIGHT) && !last)
		pad(pad_n);
	if (!last)
		fputs("  ", stdout);
}

/*
 * @text from column @hang on, in lines ending before column @width, each
 * piece between @on and @off (colour codes, or ""): cut at its own
 * newlines and at the last blank that fits (anywhere, when a word is
 * longer than the line).  The one folding of rdmactl's text.
 */
static void fold_out(const char *text, size_t hang, size_t width, const char *on, const char *off)
{
	size_t avail = width > hang + WRAP_MIN ? width - hang : WRAP_MIN;

	if (!*text)
		putchar('\n');
	while (*text) {
		size_t n = strcspn(text, "\n");

		if (width && n > avail) {
			n = avail;
			while (n && text[n] != ' ')
				n--;
			if (!n)
				for (n = avail; ((unsigned char)text[n] & 0xc0) == 0x80; n--)
					;
		}
		fputs(on, stdout);
		fwrite(text, 1, n, stdout);
		fputs(off, stdout);
		putchar('\n');
		text += n;
		text += strspn(text, text[0] == '\n' ? "\n" : " ");
		if (*text)
			pad((int)hang);
	}
}

void print_folded(const struct ctx *ctx, enum color color, size_t hang, const char *text)
{
	fold_out(text, hang, output_width(), color == COLOR_NONE ? "" : color_on(ctx, color),
		 color == COLOR_NONE ? "" : color_off(ctx));
}

/*
 * Where each shown column goes on the lines of a row.  Without a width a
 * row is one line.  With one, a column that would end past it starts a
 * line of its own under the second column (the header folds the same, so
 * every column stays under its name), and a cell wider than what its
 * line leaves (a long FOUND, a file list) is folded at blanks under
 * itself, ending its line.
 */
struct layout {
	size_t *width;	/* text width of each column */
	size_t *start;	/* where it starts on its line */
	size_t *line;	/* which line of the row it is on, 0 first */
	size_t lines;	/* lines a row takes */
	size_t hang;	/* where the second column starts: later lines and below-lines */
};

/* True when @c is the last shown column of its line. */
static bool ends_line(const struct ctx *ctx, const struct table *t, const struct layout *L,
		      size_t c)
{
	size_t d;

	for (d = c + 1; d < t->ncols; d++)
		if (col_shown(ctx, &t->cols[d]))
			return L->line[d] != L->line[c];
	return true;
}

/* A cell of @c folds under itself: it ends past the width. */
static bool folds(const struct table *t, const struct layout *L, size_t c)
{
	return t->fit && L->start[c] + L->width[c] > t->fit;
}

static void lay_out(const struct ctx *ctx, const struct table *t, struct layout *L)
{
	size_t c, x = 0, shown = 0;

	L->lines = 1;
	L->hang = 0;
	for (c = 0; c < t->ncols; c++) {
		/* a COL_WRAP column stays on its line while WRAP_MIN of it fits */
		size_t need = L->width[c];

		if (!col_shown(ctx, &t->cols[c]))
			continue;
		if ((t->cols[c].flags & COL_WRAP) && need > WRAP_MIN)
			need = WRAP_MIN;
		if (shown++ && t->fit && x + need > t->fit && x > L->hang) {
			L->lines++;
			x = L->hang;
		}
		L->start[c] = x;
		L->line[c] = L->lines - 1;
		if (shown == 1)
			L->hang = L->width[c] + 2;
		x += L->width[c] + 2;
	}
}

/*
 * COL_BELOW cells of @row, each on a line of its own indented to the last
 * shown column (under the second when the table keeps to a width): long
 * fixes stay readable instead of widening the table.
 */
static void print_below(const struct ctx *ctx, const struct table *t, struct json_object *row,
			const struct layout *L)
{
	size_t c, indent = 0;
	char buf[CELL_MAX], head[64];
	const char *text;

	if (t->fit)
		indent = L->hang;
	else
		for (c = 0; c < t->ncols; c++)
			if (col_shown(ctx, &t->cols[c]))
				indent = L->start[c];
	for (c = 0; c < t->ncols; c++) {
		if (!(t->cols[c].flags & COL_BELOW) ||
		    !(text = col_text(&t->cols[c], row, buf, sizeof(buf), TEXT_KEEP_NL)))
			continue;
		header_text(&t->cols[c], head, sizeof(head));
		for (size_t i = 0; head[i]; i++)
			head[i] = (char)tolower((unsigned char)head[i]);
		printf("%*s%s%s:%s ", (int)indent, "", color_on(ctx, COLOR_DIM), head,
		       color_off(ctx));
		fold_out(text, indent + strlen(head) + 2, t->fit, "", "");
	}
}

/* One cell of @row (the header when NULL) at its place; true when it ended the line. */
static bool print_col(const struct ctx *ctx, const struct table *t, const struct layout *L,
		      struct json_object *row, size_t c)
{
	const struct column *col = &t->cols[c];
	char buf[CELL_MAX], cut[CELL_MAX];
	/* the line ends after it: its last column, or a cell folding under itself */
	bool end = ends_line(ctx, t, L, c) || folds(t, L, c);
	enum color color = COLOR_BOLD;
	const char *text;

	if (!row) {
		header_text(col, buf, sizeof(buf));
		text = buf;
	} else {
		text = col_text(col, row, buf, sizeof(buf), 0);
		if (!text)
			text = "-";
		if (col->flags & COL_FILL)
			text = cut_text(text, L->width[c], cut, sizeof(cut));
		if (folds(t, L, c) && strlen(text) > t->fit - L->start[c]) {
			fold_out(text, L->start[c], t->fit, "", "");
			return true;
		}
		color = col->color ? col->color(text) : COLOR_NONE;
		if (col->row_color)
			color = col->row_color(row, col->key);
	}
	print_cell(ctx, col, text, L->width[c], end, color);
	if (end)
		putchar('\n');
	return end;
}

static void print_line(const struct ctx *ctx, const struct table *t, struct json_object *row,
		       const struct layout *L)
{
	size_t c;
	bool at_start = true;

	for (c = 0; c < t->ncols; c++) {
		if (!col_shown(ctx, &t->cols[c]))
			continue;
		if (at_start)
			pad((int)L->start[c]);
		at_start = print_col(ctx, t, L, row, c);
	}
	if (!at_start)
		putchar('\n');
	if (row)
		print_below(ctx, t, row, L);
}

static int print_table(const struct ctx *ctx, struct table *t)
{
	size_t r, n = table_rows(t);
	struct layout L;

	L.width = calloc(t->ncols, sizeof(*L.width));
	L.start = calloc(t->ncols, sizeof(*L.start));
	L.line = calloc(t->ncols, sizeof(*L.line));
	if (!L.width || !L.start || !L.line) {
		free(L.width);
		free(L.start);
		free(L.line);
		return -ENOMEM;
	}
	measure(ctx, t, L.width);
	fit(ctx, t, L.width);
	lay_out(ctx, t, &L);
	print_line(ctx, t, NULL, &L);
	for (r = 0; r < n; r++)
		print_line(ctx, t, json_object_array_get_idx(t->rows, r), &L);
	free(L.width);
	free(L.start);
	free(L.line);
	return 0;
}

int table_emit(struct ctx *ctx, struct table *t, const char *key)
{
	int ret = 0;

	if (ctx->json) {
		json_attach(ctx, key, json_object_get(t->rows));
		table_free(t);
		return 0;
	}
	if (!t->fit_set)
		t->fit = output_width();
	if (table_rows(t))
		ret = print_table(ctx, t);
	table_free(t);
	return ret;
}

void json_attach(struct ctx *ctx, const char *key, struct json_object *obj)
{
	if (!ctx->jroot)
		ctx->jroot = json_object_new_object();
	json_object_object_add(ctx->jroot, key, obj);
}

void print_int(struct ctx *ctx, const char *key, const char *fmt, int64_t val)
{
	if (ctx->json)
		json_attach(ctx, key, json_object_new_int64(val));
	else
		printf(fmt, val);
}

void print_str(struct ctx *ctx, const char *key, const char *fmt, const char *val)
{
	char buf[CELL_MAX];

	if (ctx->json)
		json_attach(ctx, key, val ? json_object_new_string(val) : NULL);
	else
		printf(fmt, val ? text_safe(val, buf, sizeof(buf), 0) : "-");
}

/* Each whole line of @text folded at @width, under its own indent and two more. */
static void fold_lines(const char *text, size_t width)
{
	while (*text) {
		size_t n = strcspn(text, "\n"), indent = strspn(text, " ");
		char *line;

		if (!width || n <= width || text[n] != '\n' || !(line = strndup(text, n))) {
			fwrite(text, 1, n + (text[n] == '\n'), stdout);
		} else {
			fwrite(line, 1, indent, stdout);
			fold_out(line + indent, indent + 2, width, "", "");
			free(line);
		}
		text += n + (text[n] == '\n');
	}
}

/* @fmt's text, escaped (its own newlines kept), folded to @width (0: not). */
static void print_vtext(const char *fmt, va_list ap, size_t width)
{
	char *text = NULL, *safe;
	int n = vasprintf(&text, fmt, ap);

	if (n < 0)
		return;
	/* Its values may come from outside: escaped, its own newlines kept. */
	safe = malloc((size_t)n * 4 + 16);
	if (safe)
		fold_lines(text_safe(text, safe, (size_t)n * 4 + 16, TEXT_KEEP_NL), width);
	else
		fputs("?", stdout);
	free(safe);
	free(text);
}

void print_text(struct ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (ctx->json)
		return;
	va_start(ap, fmt);
	print_vtext(fmt, ap, output_width());
	va_end(ap);
}

void print_verbatim(struct ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (ctx->json)
		return;
	va_start(ap, fmt);
	print_vtext(fmt, ap, 0);
	va_end(ap);
}

void attach_error(struct ctx *ctx, int rc)
{
	char text[4096];
	struct json_object *o;
	const char *name;
	int err;

	if (!ctx->json || rc == RC_OK || !log_last_error(text, sizeof(text), &err))
		return;
	o = json_object_new_object();
	json_object_object_add(o, "code", json_object_new_int(rc));
	json_object_object_add(o, "message", json_object_new_string(text));
	name = err ? strerrorname_np(err) : NULL;
	if (name)
		json_object_object_add(o, "errno", json_object_new_string(name));
	json_attach(ctx, "error", o);
}

int output_finish(struct ctx *ctx)
{
	if (ctx->json) {
		int flags = ctx->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
					: JSON_C_TO_STRING_PLAIN;

		if (!ctx->jroot)
			ctx->jroot = json_object_new_object();
		if (ctx->warnings && json_object_array_length(ctx->warnings))
			json_attach(ctx, "warnings", json_object_get(ctx->warnings));
		/* json-c writes the bytes it was given: JSON must be UTF-8. */
		json_make_utf8(ctx->jroot);
		puts(json_object_to_json_string_ext(ctx->jroot, flags | JSON_C_TO_STRING_NOSLASHESCAPE));
	}
	/* Without -j too: a command may attach what only -j prints. */
	json_object_put(ctx->jroot);
	ctx->jroot = NULL;
	json_object_put(ctx->warnings);
	ctx->warnings = NULL;
	if (fflush(stdout) || ferror(stdout))
		return -EIO;
	return 0;
}
