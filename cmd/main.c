// SPDX-License-Identifier: MIT
/*
 * rdmactl: check RDMA nodes before collectives run on them.
 * The command table and the dispatcher; each command lives in cmd/<name>.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "base/sysfs.h"
#include "cmds.h"

#ifndef RDMACTL_VERSION
#define RDMACTL_VERSION "unknown"
#endif

static const struct command commands[] = {
	{ .name = "devices", .fn = cmd_devices, .opts = devices_opts,
	  .pos = ARG_DEV, .max_args = 1, .args = "[DEV]",
	  .summary = "list RDMA devices" },
	{ .name = "ports", .fn = cmd_ports, .opts = ports_opts,
	  .pos = ARG_DEVPORT, .max_args = 1, .args = "[DEV[/PORT]]",
	  .summary = "show ports, their netdevs and the MTU verdict" },
	{ .name = "gids", .fn = cmd_gids, .opts = gids_opts,
	  .pos = ARG_DEVPORT, .max_args = 1, .args = "[DEV[/PORT]]",
	  .summary = "show GID tables, or the GID index a job should use" },
	{ .name = "limits", .fn = cmd_limits, .opts = limits_opts,
	  .pos = ARG_NONE, .args = "",
	  .summary = "show the locked-memory limits RDMA registration runs into" },
	{ .name = "snapshot", .fn = cmd_snapshot, .opts = snapshot_opts,
	  .pos = ARG_NONE, .args = "",
	  .summary = "capture what --root reads into a .tar.gz" },
	{ .name = "doctor", .fn = cmd_doctor, .opts = doctor_opts, .modes = &doctor_modes,
	  .pos = ARG_NONE, .args = "",
	  .summary = "check this node (and a peer) before a job, with the fix for each problem" },
	{ .name = "env", .fn = cmd_env, .opts = env_opts,
	  .pos = ARG_NONE, .args = "",
	  .summary = "print this node's NCCL, UCX or Open MPI variables for a job (Slurm TaskProlog)" },
	{ .name = "probe", .fn = cmd_probe, .opts = probe_opts, .modes = &probe_modes,
	  .pos = ARG_HOST, .max_args = 1, .args = "[PEER]",
	  .summary = "measure RDMA write bandwidth and latency to a peer" },
	{ .name = "report", .fn = cmd_report, .opts = report_opts,
	  .pos = ARG_FILE, .min_args = 1, .max_args = -1, .args = "RUN.json...",
	  .summary = "one HTML page of saved doctor -w and probe -w runs" },
	{ .name = "completion", .fn = cmd_completion,
	  .pos = ARG_CHOICE, .pos_choices = "bash zsh fish", .min_args = 1, .max_args = 1,
	  .args = "bash|zsh|fish", .summary = "print a shell completion script" },
	{ .name = "help", .fn = cmd_help,
	  .pos = ARG_COMMAND, .max_args = 1, .args = "[COMMAND]",
	  .summary = "show help for rdmactl or a command" },
	{ .name = "version", .fn = cmd_version,
	  .pos = ARG_NONE, .args = "",
	  .summary = "print the version" },
	{ .name = "__complete", .fn = cmd_complete,
	  .pos = ARG_STR, .min_args = 1, .max_args = -1, .flags = CMD_HIDDEN | CMD_WORDS,
	  .args = "CWORD WORDS...", .summary = "completion candidates for the shell scripts" },
	{ 0 }
};

static void unknown_command(const struct ctx *ctx, const char *name)
{
	const char *names[64];
	const struct command *c;
	const char *near;
	char list[512];
	size_t n = 0;

	for (c = commands; c->name && n < 64; c++)
		if (!(c->flags & CMD_HIDDEN))
			names[n++] = c->name;
	near = closest_word(name, names, n);
	if (near) {
		log_err(ctx, "Unknown command '%s'. Did you mean '%s'?", name, near);
		return;
	}
	/* Nothing close: name them all, it is a short list. */
	list[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", names[i]);
	log_err(ctx, "Unknown command '%s'. Commands: %s.", name, list);
}

/*
 * The options of a command without its own (help, version): the global
 * ones, and the count of positionals, so that "version foo" or "help
 * devices --bogus" is not ignored.  The first positional's index, or -rc.
 */
static int parse_plain(struct ctx *ctx, const char *name, int argc, char **argv)
{
	struct optparser p;
	int c;

	if (opt_init(&p, ctx, command_find(name), argc, argv))
		return -RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END)
		return c == OPT_HELP ? -RC_OK : -RC_USAGE;
	if (opt_check_args(&p))
		return -RC_USAGE;
	return p.optind;
}

int cmd_help(struct ctx *ctx, int argc, char **argv)
{
	const struct command *cmd = NULL;
	int idx = parse_plain(ctx, "help", argc, argv);

	if (idx <= 0)
		return -idx;
	if (idx < argc) {
		cmd = command_find(argv[idx]);
		if (!cmd) {
			unknown_command(ctx, argv[idx]);
			return RC_USAGE;
		}
	}
	usage_print(stdout, cmd);
	return RC_OK;
}

/* Also -V, with no arguments to parse. */
int cmd_version(struct ctx *ctx, int argc, char **argv)
{
	int idx = argc ? parse_plain(ctx, "version", argc, argv) : 1;

	if (idx <= 0)
		return -idx;
	print_str(ctx, "version", "rdmactl %s\n", RDMACTL_VERSION);
	return RC_OK;
}

/* Global options before the command; returns the command's index in argv, or -rc. */
static int parse_top(struct ctx *ctx, int argc, char **argv)
{
	struct optparser p;
	int c;

	if (opt_init(&p, ctx, NULL, argc, argv))
		return -RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case 'V':
			return -cmd_version(ctx, 0, NULL);
		case OPT_HELP:
			return -RC_OK;
		default:
			return -RC_USAGE;
		}
	}
	if (p.optind >= argc) {
		log_err(ctx, "missing command. See 'rdmactl --help'.");
		usage_print(stderr, NULL);
		return -RC_USAGE;
	}
	return p.optind;
}

static void ctx_init(struct ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->color = color_auto();
	ctx->root = "";
	ctx->warnings = json_object_new_array();
}

/*
 * Before anything runs: -j and -p anywhere, so that even a usage error is
 * a JSON document, and --help anywhere, which wins over everything else
 * (like git's and systemd's tools: nothing runs, a bad option beside it is
 * not reported).  Returns the command the help is for, or NULL.
 */
static bool scan_early(struct ctx *ctx, int argc, char **argv, const struct command **help_cmd)
{
	static const struct command no_command = { .name = "" };
	const struct command *cmd = NULL;
	unsigned int found;
	int idx;

	found = opt_scan(NULL, argc, argv, &idx);
	if (idx < argc) {
		cmd = command_find(argv[idx]);
		if (!cmd || !(cmd->flags & CMD_WORDS))
			found |= opt_scan(cmd ? cmd : &no_command, argc - idx, argv + idx, NULL);
	}
	ctx->json = found & OPT_SCAN_JSON;
	ctx->pretty = found & OPT_SCAN_PRETTY;
	*help_cmd = cmd;
	/* An unknown command is reported even with --help: there is no usage to show. */
	return (found & OPT_SCAN_HELP) && (idx >= argc || cmd);
}

/* Everything but the JSON document; the exit code. */
static int run(struct ctx *ctx, int argc, char **argv)
{
	const char *root = getenv("RDMACTL_ROOT");
	const struct command *cmd;
	int idx, rc;

	if (root && set_root(ctx, "RDMACTL_ROOT", root))
		return RC_USAGE;
	idx = parse_top(ctx, argc, argv);
	if (idx <= 0)
		return -idx;
	cmd = command_find(argv[idx]);
	if (!cmd) {
		unknown_command(ctx, argv[idx]);
		return RC_USAGE;
	}
	ctx->cmd = cmd->name;
	rc = cmd->fn(ctx, argc - idx, argv + idx);
	/* An answer built on files that could not be read is not a clean one. */
	if (rc == RC_OK && read_warnings(ctx) && !ctx->warnings_judged)
		rc = RC_PROBLEM;
	return rc;
}

int main(int argc, char **argv)
{
	const struct command *help_cmd;
	struct ctx ctx;
	int rc;

	opt_commands(commands);
	ctx_init(&ctx);
	if (scan_early(&ctx, argc, argv, &help_cmd)) {
		usage_print(stdout, help_cmd);
		json_object_put(ctx.warnings);
		return fflush(stdout) ? RC_PROBLEM : RC_OK;
	}
	rc = run(&ctx, argc, argv);
	attach_error(&ctx, rc);
	if (output_finish(&ctx)) {
		log_err_errno(&ctx, errno, "Failed to write output: %s", strerror(errno));
		rc = RC_PROBLEM;
	}
	json_object_put(ctx.warnings);
	return rc;
}
