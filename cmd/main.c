// SPDX-License-Identifier: MIT
/*
 * rdmactl: check RDMA nodes before collectives run on them.
 * The command table and the dispatcher; each command lives in cmd/<name>.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "base/sysfs.h"
#include "cmds.h"

#ifndef RDMACTL_VERSION
#define RDMACTL_VERSION "unknown"
#endif

const struct command commands[] = {
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
	{ .name = "doctor", .fn = cmd_doctor, .opts = doctor_opts,
	  .pos = ARG_NONE, .args = "",
	  .summary = "check this node (and a peer) before a job, with the fix for each problem" },
	{ .name = "probe", .fn = cmd_probe, .opts = probe_opts,
	  .pos = ARG_HOST, .max_args = 1, .args = "[PEER]",
	  .summary = "measure RDMA write bandwidth and latency to a peer" },
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
	  .pos = ARG_STR, .min_args = 1, .max_args = -1, .flags = CMD_HIDDEN,
	  .args = "CWORD WORDS...", .summary = "completion candidates for the shell scripts" },
	{ 0 }
};

const struct command *command_find(const char *name)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

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

int cmd_help(struct ctx *ctx, int argc, char **argv)
{
	const struct command *cmd = NULL;

	(void)ctx;
	if (argc > 1) {
		cmd = command_find(argv[1]);
		if (!cmd) {
			unknown_command(ctx, argv[1]);
			return RC_USAGE;
		}
	}
	usage_print(stdout, cmd);
	return RC_OK;
}

int cmd_version(struct ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
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
			printf("rdmactl %s\n", RDMACTL_VERSION);
			return -RC_OK;
		case OPT_HELP:
			return -RC_OK;
		default:
			return -RC_USAGE;
		}
	}
	if (p.optind >= argc) {
		usage_print(stderr, NULL);
		return -RC_USAGE;
	}
	return p.optind;
}

static int ctx_init(struct ctx *ctx)
{
	const char *root = getenv("RDMACTL_ROOT");

	memset(ctx, 0, sizeof(*ctx));
	ctx->color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	ctx->root = "";
	ctx->warnings = json_object_new_array();
	return root ? set_root(ctx, root) : 0;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	struct ctx ctx;
	int idx, rc;

	if (ctx_init(&ctx)) {
		rc = RC_USAGE;
		goto out;
	}
	idx = parse_top(&ctx, argc, argv);
	if (idx <= 0) {
		rc = -idx;
		goto out;
	}
	cmd = command_find(argv[idx]);
	if (!cmd) {
		unknown_command(&ctx, argv[idx]);
		rc = RC_USAGE;
		goto out;
	}
	ctx.cmd = cmd->name;
	rc = cmd->fn(&ctx, argc - idx, argv + idx);
	/* An answer built on files that could not be read is not a clean one. */
	if (rc == RC_OK && read_warnings(&ctx))
		rc = RC_PROBLEM;
	if (output_finish(&ctx)) {
		log_err(&ctx, "Failed to write output: %s", strerror(errno));
		rc = RC_PROBLEM;
	}
out:
	json_object_put(ctx.warnings);
	return rc;
}
