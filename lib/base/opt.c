// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/opt.h"
#include "base/text.h"

enum {
	OPT_COLOR = OPT_LONG_BASE + 0x80,
	OPT_ROOT,
};

const struct opt global_opts[] = {
	{ "json", 'j', ARG_NONE, NULL, "print one JSON document on stdout" },
	{ "pretty", 'p', ARG_NONE, NULL, "indent the JSON" },
	{ "color", OPT_COLOR, ARG_CHOICE, "WHEN", "when to colour the output", "auto always never" },
	{ "verbose", 'v', ARG_NONE, NULL, "more detail (repeat for more)" },
	{ "root", OPT_ROOT, ARG_FILE, "DIR", "read /sys, /proc and /etc below DIR" },
	{ "help", 'h', ARG_NONE, NULL, "show this help" },
	{ 0 }
};

/* Only before the command name. */
static const struct opt top_opts[] = {
	{ "version", 'V', ARG_NONE, NULL, "print the version" },
	{ 0 }
};

static bool is_short(int val)
{
	return val > 0 && val < 0x80 && isalnum(val);
}

static int add_opts(struct optparser *p, const struct opt *opts, size_t *nl, size_t *ns)
{
	const struct opt *o;

	for (o = opts; o && o->name; o++) {
		if (*nl + 2 >= sizeof(p->longopts) / sizeof(p->longopts[0]) ||
		    *ns + 4 >= sizeof(p->shortopts))
			return -E2BIG;
		p->longopts[(*nl)++] = (struct option){
			o->name, o->arg == ARG_NONE ? no_argument : required_argument, NULL, o->val
		};
		if (is_short(o->val)) {
			p->shortopts[(*ns)++] = (char)o->val;
			if (o->arg != ARG_NONE)
				p->shortopts[(*ns)++] = ':';
		}
	}
	return 0;
}

int opt_init(struct optparser *p, struct ctx *ctx, const struct command *cmd,
	     int argc, char **argv)
{
	size_t nl = 0, ns = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	p->ctx = ctx;
	p->cmd = cmd;
	p->argc = argc;
	p->argv = argv;
	/* ':' first: report a missing argument as ':' rather than '?'. */
	p->shortopts[ns++] = ':';
	ret = add_opts(p, cmd ? cmd->opts : NULL, &nl, &ns);
	if (!ret)
		ret = add_opts(p, global_opts, &nl, &ns);
	if (cmd == NULL && !ret)
		ret = add_opts(p, top_opts, &nl, &ns);
	/* The top level stops at the command name ('+'). */
	if (cmd == NULL) {
		memmove(p->shortopts + 1, p->shortopts, ns);
		p->shortopts[0] = '+';
	}
	optind = 0;
	return ret;
}

static const struct opt *find_opt(const struct command *cmd, int val)
{
	const struct opt *lists[] = { cmd ? cmd->opts : NULL, global_opts };
	const struct opt *o;
	size_t i;

	for (i = 0; i < 2; i++)
		for (o = lists[i]; o && o->name; o++)
			if (o->val == val)
				return o;
	return NULL;
}

/* @val among the command's own options: those win over a global one of the same letter. */
static bool own_opt(const struct command *cmd, int val)
{
	const struct opt *o;

	for (o = cmd ? cmd->opts : NULL; o && o->name; o++)
		if (o->val == val)
			return true;
	return false;
}

unsigned int opt_scan(const struct command *cmd, int argc, char **argv, int *next)
{
	struct optparser p;
	unsigned int found = 0;
	char **copy;
	int c;

	if (next)
		*next = argc;
	/* getopt_long permutes argv: scan a copy, so the real parse sees it as given. */
	copy = malloc(((size_t)argc + 1) * sizeof(*copy));
	if (!copy)
		return 0;
	memcpy(copy, argv, ((size_t)argc + 1) * sizeof(*copy));
	if (opt_init(&p, NULL, cmd, argc, copy)) {
		free(copy);
		return 0;
	}
	/* The optstring starts with ':': getopt prints nothing, the real parse will. */
	while ((c = getopt_long(argc, copy, p.shortopts, p.longopts, NULL)) != -1) {
		if (c == '?' || c == ':' || own_opt(cmd, c))
			continue;
		if (c == 'h')
			found |= OPT_SCAN_HELP;
		else if (c == 'j')
			found |= OPT_SCAN_JSON;
		else if (c == 'p')
			found |= OPT_SCAN_PRETTY;
	}
	if (next)
		*next = optind;
	free(copy);
	optind = 0;
	return found;
}

/* Closest long option name to the unknown "--word". */
static const char *closest_opt(const struct optparser *p, const char *arg)
{
	const char *names[64];
	size_t n = 0;
	char word[64];
	const struct option *lo;

	if (strncmp(arg, "--", 2))
		return NULL;
	snprintf(word, sizeof(word), "%s", arg + 2);
	word[strcspn(word, "=")] = '\0';
	for (lo = p->longopts; lo->name && n < 64; lo++) {
		const struct opt *o = find_opt(p->cmd, lo->val);

		/* An internal option is never suggested, as it is never shown. */
		if (!o || !(o->flags & OPT_HIDDEN))
			names[n++] = lo->name;
	}
	return closest_word(word, names, n);
}

static int bad_option(struct optparser *p, int c)
{
	const char *arg = p->argv[optind - 1];
	const struct opt *o;
	const char *near;
	char shown[64];

	if (c == ':') {
		o = find_opt(p->cmd, optopt);
		log_err(p->ctx, "option '%s' needs an argument%s%s%s", arg,
			o && o->metavar ? " (" : "", o && o->metavar ? o->metavar : "",
			o && o->metavar ? ")" : "");
		return OPT_ERR;
	}
	if (optopt && is_short(optopt)) {
		snprintf(shown, sizeof(shown), "-%c", optopt);
		arg = shown;
	}
	near = closest_opt(p, arg);
	if (near)
		log_err(p->ctx, "unknown option '%s'. Did you mean '--%s'?", arg, near);
	else
		log_err(p->ctx, "unknown option '%s'. See 'rdmactl %s%s--help'.", arg,
			p->cmd ? p->cmd->name : "", p->cmd ? " " : "");
	return OPT_ERR;
}

bool color_auto(void)
{
	const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");

	/* no-color.org: set and not empty turns it off; an empty NO_COLOR does not. */
	if (no_color && *no_color)
		return false;
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(STDOUT_FILENO);
}

static int set_color(struct optparser *p, const char *when)
{
	if (!strcmp(when, "always"))
		p->ctx->color = true;
	else if (!strcmp(when, "never"))
		p->ctx->color = false;
	else	/* "auto": bad_choice() has let only the three words through */
		p->ctx->color = color_auto();
	return 0;
}

const char *opt_choice_words(const struct opt *o)
{
	if (o->choices_of)
		return o->choices_of->words();
	return o->choices ? o->choices : "";
}

void opt_choice_list(const struct opt *o, char *list, size_t len)
{
	char buf[256], *save = NULL, *w, *next;
	size_t off = 0;

	list[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", opt_choice_words(o));
	for (w = strtok_r(buf, " ", &save); w && off < len; w = next) {
		next = strtok_r(NULL, " ", &save);
		off += (size_t)snprintf(list + off, len - off, "%s%s",
					off ? (next ? ", " : " or ") : "", w);
	}
}

/*
 * A value outside an ARG_CHOICE list: "invalid --color value 'x': use
 * auto, always or never", and why, where the table says why this command
 * does not take a value another does.
 */
static bool bad_choice(struct optparser *p, const struct opt *o, const char *val)
{
	char list[256], buf[256], *save = NULL, *w;
	const char *why = o->choices_of && o->choices_of->why_not ? o->choices_of->why_not(val) : NULL;

	snprintf(buf, sizeof(buf), "%s", opt_choice_words(o));
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (!strcmp(w, val))
			return false;
	opt_choice_list(o, list, sizeof(list));
	log_err(p->ctx, "invalid --%s value '%s': %s%suse %s", o->name, val, why ? why : "",
		why ? "; " : "", list);
	return true;
}

int set_root(struct ctx *ctx, const char *from, const char *dir)
{
	struct stat st;
	int err = 0;

	/*
	 * A root that is not a directory would read as "no devices": say so,
	 * with stat's reason (a symlink loop is ELOOP, not "not a directory").
	 */
	if (dir[0] && stat(dir, &st))
		err = errno;
	else if (dir[0] && !S_ISDIR(st.st_mode))
		err = ENOTDIR;
	if (err) {
		log_err_errno(ctx, err, "Failed to use %s '%s': %s; give the directory a snapshot "
			      "was unpacked into", from, dir, strerror(err));
		return -err;
	}
	ctx->root = dir;
	return 0;
}

/* Handle a global option; returns 0 when consumed, else a result for the caller. */
static int global_opt(struct optparser *p, int c)
{
	switch (c) {
	case 'j':
		p->ctx->json = true;
		return 0;
	case 'p':
		p->ctx->pretty = true;
		return 0;
	case 'v':
		p->ctx->verbose++;
		return 0;
	case OPT_COLOR:
		return set_color(p, optarg);
	case OPT_ROOT:
		return set_root(p->ctx, "--root", optarg) ? OPT_ERR : 0;
	case 'h':
		usage_print(stdout, p->cmd);
		return OPT_HELP;
	default:
		return 1;
	}
}

/* @o as the user wrote it: "--device" (or an abbreviation of it, or "--device=") or "-d". */
static const char *typed_name(const struct optparser *p, const struct opt *o, char *buf, size_t len)
{
	/* The value is argv[optind - 1] itself, or the end of it ("--device=", "-dVALUE"). */
	int at = optarg == p->argv[optind - 1] ? optind - 2 : optind - 1;

	if (at > 0 && !strncmp(p->argv[at], "--", 2))
		snprintf(buf, len, "--%s", o->name);
	else if (is_short(o->val))
		snprintf(buf, len, "-%c", o->val);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

const char *opt_typed(const struct optparser *p, int val, char *buf, size_t len)
{
	const struct opt *o = find_opt(p->cmd, val);

	if (!o) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (o->arg != ARG_NONE)
		return typed_name(p, o, buf, len);
	/* A flag is argv[optind - 1] itself, or a letter of a bundle ("-vs"). */
	if (!strncmp(p->argv[optind - 1], "--", 2) || !is_short(o->val))
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", o->val);
	return buf;
}

/*
 * An empty value is never what was meant: "probe -d ''" or "--root ''"
 * from an unset shell variable would otherwise read as "not given" (the
 * default device, the live system).  Choices have their own message.
 */
static bool empty_value(const struct optparser *p, const struct opt *o)
{
	char name[80];

	if (!o || o->arg == ARG_NONE || o->arg == ARG_CHOICE || !optarg || *optarg)
		return false;
	log_err(p->ctx, "Failed to parse %s '': empty value; give %s", typed_name(p, o, name, sizeof(name)),
		o->metavar ? o->metavar : "a value");
	return true;
}

/* Keep the first of each option given, as typed, for opt_mode_check(). */
static void note_given(struct optparser *p, int c)
{
	size_t i;

	for (i = 0; i < p->ngiven; i++)
		if (p->given[i].val == c)
			return;
	/* Never full: a command has fewer options than the parser's longopts. */
	if (p->ngiven >= sizeof(p->given) / sizeof(p->given[0]))
		return;
	p->given[p->ngiven].val = c;
	opt_typed(p, c, p->given[p->ngiven].typed, sizeof(p->given[0].typed));
	p->ngiven++;
}

int opt_next(struct optparser *p)
{
	const struct opt *o;
	int c, ret;

	for (;;) {
		c = getopt_long(p->argc, p->argv, p->shortopts, p->longopts, NULL);
		p->optarg = optarg;
		p->optind = optind;
		if (c == -1)
			return OPT_END;
		if (c == '?' || c == ':')
			return bad_option(p, c);
		o = find_opt(p->cmd, c);
		if (empty_value(p, o))
			return OPT_ERR;
		if (o && o->arg == ARG_CHOICE && bad_choice(p, o, optarg))
			return OPT_ERR;
		/* A command's own option of the same letter wins over a global one. */
		if (own_opt(p->cmd, c)) {
			note_given(p, c);
			return c;
		}
		ret = global_opt(p, c);
		if (ret != 0)
			return ret > 0 ? c : ret;
	}
}

/* ---- modes ---- */

const char *opt_mode_name(const struct command *cmd, unsigned int mode)
{
	const char *name = cmd->modes ? cmd->modes->name(mode) : NULL;

	return name ? name : cmd->name;
}

/* @line with every "{opt}" replaced by @typed, into @buf. */
static void refusal_expand(const char *line, const char *typed, char *buf, size_t len)
{
	const char *at;
	size_t off = 0;

	buf[0] = '\0';
	while ((at = strstr(line, "{opt}")) && off < len) {
		off += (size_t)snprintf(buf + off, len - off, "%.*s%s", (int)(at - line), line, typed);
		line = at + 5;
	}
	if (off < len)
		snprintf(buf + off, len - off, "%s", line);
}

/* "probe PEER, probe -w or probe --agent": the modes of @modes, in words. */
static void mode_list(const struct command *cmd, unsigned int modes, char *buf, size_t len)
{
	unsigned int i, left = modes;
	size_t off = 0;

	buf[0] = '\0';
	for (i = 0; left && i < 32 && off < len; i++) {
		if (!(left & (1u << i)))
			continue;
		left &= ~(1u << i);
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? (left ? ", " : " or ") : "",
					opt_mode_name(cmd, i));
	}
}

/* The line that refuses option @o, typed @typed, in mode @mode. */
static void refuse(const struct optparser *p, const struct opt *o, const char *typed,
		   unsigned int mode)
{
	const struct command *cmd = p->cmd;
	const struct opt_refusal *r;
	char line[512], owners[256];

	for (r = cmd->modes->refusals; r && r->line; r++) {
		if ((o->modes & ~r->of) || !(r->in & (1u << mode)))
			continue;
		refusal_expand(r->line, typed, line, sizeof(line));
		log_err(p->ctx, "%s", line);
		return;
	}
	mode_list(cmd, o->modes, owners, sizeof(owners));
	log_err(p->ctx, "Failed to use %s with %s: it is an option of %s", typed,
		opt_mode_name(cmd, mode), owners);
}

bool opt_given(const struct optparser *p, int val)
{
	size_t i;

	for (i = 0; i < p->ngiven; i++)
		if (p->given[i].val == val)
			return true;
	return false;
}

int opt_mode_check(const struct optparser *p, unsigned int mode)
{
	const struct opt *o;
	size_t i;

	if (!p->cmd || !p->cmd->modes)
		return 0;
	/* In the order given: the first one is named, as the user wrote it. */
	for (i = 0; i < p->ngiven; i++) {
		o = find_opt(p->cmd, p->given[i].val);
		if (!o || !o->modes || (o->modes & (1u << mode)))
			continue;
		refuse(p, o, p->given[i].typed, mode);
		return -EINVAL;
	}
	return 0;
}

/* "PEER" of "[PEER]", "DEV[/PORT]" of "[DEV[/PORT]]": the name of a positional. */
static const char *pos_name(const struct command *cmd, char *buf, size_t len)
{
	const char *a = cmd->args ? cmd->args : "ARG";
	size_t n = strlen(a);

	if (n >= 2 && a[0] == '[' && a[n - 1] == ']')
		snprintf(buf, len, "%.*s", (int)(n - 2), a + 1);
	else
		snprintf(buf, len, "%s", a);
	return buf;
}

int opt_check_args(struct optparser *p)
{
	int n = p->argc - p->optind;
	const struct command *cmd = p->cmd;
	char name[64];

	if (n < cmd->min_args) {
		log_err(p->ctx, "missing argument %s. Usage: rdmactl %s %s", cmd->args ? cmd->args : "",
			cmd->name, cmd->args ? cmd->args : "");
		return -EINVAL;
	}
	if (cmd->max_args >= 0 && n > cmd->max_args) {
		log_err(p->ctx, "unexpected argument '%s'. Usage: rdmactl %s %s",
			p->argv[p->optind + cmd->max_args], cmd->name, cmd->args ? cmd->args : "");
		return -EINVAL;
	}
	/*
	 * "probe ''" connected to localhost: an empty word is a mistake, not
	 * "none".  A choice ("completion ''") says its choices itself.
	 */
	for (int i = p->optind; i < p->argc && cmd->pos != ARG_CHOICE; i++) {
		if (p->argv[i][0])
			continue;
		log_err(p->ctx, "Failed to parse %s '': empty value. Usage: rdmactl %s %s",
			pos_name(cmd, name, sizeof(name)), cmd->name, cmd->args ? cmd->args : "");
		return -EINVAL;
	}
	return 0;
}

int opt_long(const struct ctx *ctx, const char *name, const char *val, long min, long max,
	     long *out)
{
	if (!parse_long(val, min, max, out))
		return 0;
	log_err(ctx, "Failed to parse %s '%s': expected a whole number from %ld to %ld", name, val, min,
		max);
	return -EINVAL;
}

int env_long(const struct ctx *ctx, const char *name, long min, long max, const char *what,
	     long *out)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return 0;
	if (!parse_long(v, min, max, out))
		return 0;
	log_err(ctx, "Failed to use %s '%s': expected %s, a whole number from %ld to %ld", name, v, what,
		min, max);
	return -EINVAL;
}

/* Optimal string alignment distance: a swap of two letters counts as one edit. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t d[65][65];

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const char *closest_word(const char *word, const char *const *words, size_t n)
{
	const char *best = NULL;
	size_t i, d, best_d = SIZE_MAX, len = strlen(word);

	for (i = 0; i < n; i++) {
		/* A prefix of a longer word ("gid" for "gids") counts as close. */
		if (len >= 2 && !strncmp(words[i], word, len))
			d = 1;
		else
			d = edit_distance(word, words[i]);
		if (d < best_d) {
			best_d = d;
			best = words[i];
		}
	}
	/* Allow one edit in short words, two in longer ones. */
	return best && best_d <= (len > 4 ? 2u : 1u) ? best : NULL;
}

static void opt_usage(FILE *f, const struct opt *o)
{
	char left[64];

	if (is_short(o->val))
		snprintf(left, sizeof(left), "-%c, --%s%s%s", o->val, o->name,
			 o->metavar ? " " : "", o->metavar ? o->metavar : "");
	else
		snprintf(left, sizeof(left), "    --%s%s%s", o->name,
			 o->metavar ? " " : "", o->metavar ? o->metavar : "");
	if (o->arg == ARG_CHOICE) {
		char list[256];

		opt_choice_list(o, list, sizeof(list));
		fprintf(f, "  %-26s %s: %s\n", left, o->help, list);
		return;
	}
	fprintf(f, "  %-26s %s\n", left, o->help);
}

/* What opt_commands() was given: NULL-name terminated. */
static const struct command *command_table;

void opt_commands(const struct command *table)
{
	command_table = table;
}

const struct command *opt_command_list(void)
{
	static const struct command none[] = { { 0 } };

	return command_table ?: none;
}

const struct command *command_find(const char *name)
{
	const struct command *c;

	for (c = opt_command_list(); c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void usage_print(FILE *f, const struct command *cmd)
{
	const struct command *c;
	const struct opt *o;

	if (cmd) {
		fprintf(f, "Usage: rdmactl %s [OPTIONS] %s\n\n%s\n", cmd->name,
			cmd->args ? cmd->args : "", cmd->summary);
		if (cmd->opts && cmd->opts->name) {
			fputs("\nOptions:\n", f);
			for (o = cmd->opts; o->name; o++)
				if (!(o->flags & OPT_HIDDEN))
					opt_usage(f, o);
		}
		fprintf(f, "\nGlobal options (see 'rdmactl --help') are accepted too.\n"
			   "See rdmactl-%s(8) for details.\n", cmd->name);
		return;
	}
	fputs("Usage: rdmactl [OPTIONS] COMMAND [ARGS]\n\n"
	      "Check RDMA nodes before NCCL, UCX or MPI jobs run on them.\n\nCommands:\n", f);
	for (c = opt_command_list(); c->name; c++)
		if (!(c->flags & CMD_HIDDEN))
			fprintf(f, "  %-12s %s\n", c->name, c->summary);
	fputs("\nOptions:\n", f);
	for (o = global_opts; o->name; o++)
		opt_usage(f, o);
	fputs("  -V, --version              print the version\n\n"
	      "Exit status: 0 success, 1 a problem was found or a measurement failed,\n"
	      "2 usage error or bad input.  'rdmactl help COMMAND' shows a command's options.\n", f);
}
