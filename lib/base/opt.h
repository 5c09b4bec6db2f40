/* SPDX-License-Identifier: MIT */
/*
 * Command and option tables.  Each command describes its options once;
 * the same description drives getopt_long, the usage text and shell
 * completion (through "rdmactl __complete").
 */
#ifndef RDMACTL_OPT_H
#define RDMACTL_OPT_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdbool.h>

struct ctx;

/* What an argument is, so completion can offer live values. */
enum arg_kind {
	ARG_NONE,	/* a flag */
	ARG_STR,	/* free text */
	ARG_INT,
	ARG_DEV,	/* RDMA device: mlx5_0 */
	ARG_DEVPORT,	/* DEV or DEV/PORT */
	ARG_NETDEV,	/* network interface */
	ARG_GID,	/* GID index */
	ARG_FILE,
	ARG_HOST,
	ARG_HOSTLIST,	/* node[01-64], as Slurm and pdsh take it */
	ARG_CHOICE,	/* one of opt.choices */
	ARG_COMMAND,	/* an rdmactl command name */
	ARG_CHECKS,	/* doctor check IDs, comma-separated: memlock,mtu */
};

/*
 * ARG_CHOICE's values when a table above this layer holds them (the job
 * kinds of doctor/job_kind.h): the parser, the usage and the completion
 * read them from here, so that they are written once.
 */
struct opt_choices {
	const char *(*words)(void);		/* the values taken, space-separated */
	const char *(*why_not)(const char *val);	/* a value refused: why, or NULL */
};

/* Long-only options use values from here up, as an enum per command. */
#define OPT_LONG_BASE 0x100

struct opt {
	const char *name;	/* long name, without "--" */
	int val;		/* short letter, or OPT_LONG_BASE + n */
	enum arg_kind arg;
	const char *metavar;	/* "DEV[/PORT]" in usage */
	const char *help;
	const char *choices;	/* space-separated, for ARG_CHOICE */
	unsigned int modes;	/* bit i: the command's mode i takes it; 0: every mode */
	unsigned int flags;	/* enum opt_flags */
	const struct opt_choices *choices_of;	/* takes the place of @choices; may be NULL */
};

/* The ARG_CHOICE values of @o, space-separated ("" for none). */
const char *opt_choice_words(const struct opt *o);
/* The same for a message, in @list: "auto, always or never". */
void opt_choice_list(const struct opt *o, char *list, size_t len);

enum opt_flags {
	OPT_HIDDEN = 1 << 0,	/* internal: parsed, never shown in the usage nor completed */
};

/*
 * How an option is refused in a mode that does not take it: @line (after
 * "rdmactl CMD: ", every "{opt}" the option as typed) when no mode but
 * those of @of takes the option and the mode chosen is one of @in.
 */
struct opt_refusal {
	unsigned int of, in;	/* bit i: mode i */
	const char *line;
};

/*
 * A command with several modes, each a program of its own behind a flag
 * ("probe --server", "doctor --gathered"): the parser takes the options of
 * them all, and once the command has chosen its mode, opt_mode_check()
 * refuses an option of another.
 */
struct opt_modes {
	/* Mode @mode as the user knows it ("probe -w"); NULL past the last: the command's mode table. */
	const char *(*name)(unsigned int mode);
	const struct opt_refusal *refusals;	/* first that fits; NULL-line terminated */
};

enum cmd_flags {
	CMD_HIDDEN = 1 << 0,	/* not listed, not completed */
	CMD_WORDS = 1 << 1,	/* its arguments are words, never options (__complete's) */
};

struct command {
	const char *name;
	int (*fn)(struct ctx *ctx, int argc, char **argv);
	const struct opt *opts;	/* NULL-name terminated; may be NULL */
	enum arg_kind pos;	/* kind of the positional arguments */
	const char *pos_choices;/* for pos == ARG_CHOICE */
	int min_args, max_args;	/* positional count; max -1: unlimited */
	unsigned int flags;
	const char *args;	/* usage of the positionals: "[DEV[/PORT]]" */
	const char *summary;
	const struct opt_modes *modes;	/* NULL: one mode, every option */
};

/* The global options, accepted before and after the command name. */
extern const struct opt global_opts[];

/*
 * The program's command table, handed over once before anything is
 * parsed (the table lives with the commands, above this layer): the
 * top-level usage lists it.  Until then that list is empty.
 */
void opt_commands(const struct command *table);
/*
 * The command of that table named exactly @name; NULL for none (or before
 * opt_commands()).  Here, not beside the table, so that a command finds
 * its own entry without reaching up into main.c, which names them all.
 */
const struct command *command_find(const char *name);
/* That table whole, NULL-name terminated (empty before opt_commands()): completion lists it. */
const struct command *opt_command_list(void);

/* Results of opt_next() besides an option's val. */
enum {
	OPT_END = -1,	/* positionals start at parser->optind */
	OPT_ERR = -2,	/* bad option; message printed */
	OPT_HELP = -3,	/* usage printed */
};

struct optparser {
	struct ctx *ctx;
	const struct command *cmd;
	int argc;
	char **argv;
	char shortopts[128];
	struct option longopts[64];
	const char *optarg;
	int optind;
	/* The command's options given, each once, as typed: for opt_mode_check(). */
	struct { int val; char typed[32]; } given[64];
	size_t ngiven;
};

int opt_init(struct optparser *p, struct ctx *ctx, const struct command *cmd,
	     int argc, char **argv);
/* Next option of the command; global ones are handled here. */
int opt_next(struct optparser *p);
/* What opt_scan() finds. */
enum {
	OPT_SCAN_HELP = 1 << 0,		/* -h, --help */
	OPT_SCAN_JSON = 1 << 1,		/* -j, --json */
	OPT_SCAN_PRETTY = 1 << 2,	/* -p, --pretty */
};
/*
 * The options that shape everything else, found before anything is parsed
 * for real: --help anywhere wins over the rest (nothing runs, even after a
 * bad option), and -j anywhere makes even a usage error a JSON document.
 * Found as getopt finds them: not as another option's value, not after
 * "--", abbreviations too.  Prints nothing.  @cmd NULL scans the global
 * options before the command name and puts the name's index in *@next.
 */
unsigned int opt_scan(const struct command *cmd, int argc, char **argv, int *next);

/*
 * The option opt_next() just returned, as the user wrote it: "-s" or
 * "--size" (also for "--si" or "--size=4K"), for messages that name it.
 */
const char *opt_typed(const struct optparser *p, int val, char *buf, size_t len);
/*
 * Once the command chose its mode (@mode, an index into cmd->modes): the
 * first option given that the mode does not take is refused, in one line
 * naming it and the mode it belongs to.  0, or -EINVAL (said).  Always 0
 * for a command without modes.
 */
int opt_mode_check(const struct optparser *p, unsigned int mode);
/* The name of @cmd's mode @mode ("probe -w"), or the command's name. */
const char *opt_mode_name(const struct command *cmd, unsigned int mode);
/*
 * Check the positional count once options are done; prints the error.
 * Returns 0 or -EINVAL.
 */
int opt_check_args(struct optparser *p);
/* True when option @val (a short letter or OPT_LONG_BASE + n) is on the line opt_next() read. */
bool opt_given(const struct optparser *p, int val);

/*
 * --root and RDMACTL_ROOT (@from, for the message): check @dir is a
 * directory; 0 or -errno (-ENOTDIR, -ENOENT, -ELOOP...), message printed.
 */
int set_root(struct ctx *ctx, const char *from, const char *dir);

/*
 * --color=auto: on for a terminal, unless NO_COLOR is set to something
 * (no-color.org) or TERM is "dumb".
 */
bool color_auto(void);

/* Usage of @cmd (or of rdmactl when NULL) on @f. */
void usage_print(FILE *f, const struct command *cmd);

/*
 * Option @name's value @val, a whole number in [min, max] (parse_long()),
 * or the line that says what it should be: "Failed to parse --fanout '0':
 * expected a whole number from 1 to 4096".  0 or -EINVAL.
 */
int opt_long(const struct ctx *ctx, const char *name, const char *val, long min, long max,
	     long *out);

/*
 * The variable @name from the environment into *out: a whole number from
 * @min to @max, @what it counts named in the one line that refuses
 * another value ("Failed to use RDMACTL_PROBE_ACK_TIMEOUT '40': expected
 * an ACK timeout exponent, a whole number from 1 to 31").  Unset or
 * empty: 0, *out left as it was.  0 or -EINVAL.
 */
int env_long(const struct ctx *ctx, const char *name, long min, long max, const char *what,
	     long *out);

/* "Did you mean": the closest of @n @words to @word, or NULL if none is close. */
const char *closest_word(const char *word, const char *const *words, size_t n);

#endif
