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

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "cmds.h"

#ifndef RDMACTL_VERSION
#define RDMACTL_VERSION "unknown"
#endif

const struct command commands[] = {
	{ "devices", cmd_devices, devices_opts, ARG_DEV, NULL, 0, 1, 0, "[DEV]",
	  "list RDMA devices" },
	{ "ports", cmd_ports, ports_opts, ARG_DEVPORT, NULL, 0, 1, 0, "[DEV[/PORT]]",
	  "show ports, their netdevs and the MTU verdict" },
	{ "gids", cmd_gids, gids_opts, ARG_DEVPORT, NULL, 0, 1, 0, "[DEV[/PORT]]",
	  "show GID tables, or the GID index a job should use" },
	{ "limits", cmd_limits, limits_opts, ARG_NONE, NULL, 0, 0, 0, "",
	  "show the locked-memory limits RDMA registration runs into" },
	{ "snapshot", cmd_snapshot, snapshot_opts, ARG_NONE, NULL, 0, 0, 0, "",
	  "capture what --root reads into a .tar.gz" },
	{ "doctor", cmd_doctor, doctor_opts, ARG_NONE, NULL, 0, 0, 0, "",
	  "check this node (and a peer) before a job, with the fix for each problem" },
	{ "probe", cmd_probe, probe_opts, ARG_HOST, NULL, 0, 1, 0, "[PEER]",
	  "measure RDMA write bandwidth and latency to a peer" },
	{ "completion", cmd_completion, NULL, ARG_CHOICE, "bash zsh fish", 1, 1, 0, "bash|zsh|fish",
	  "print a shell completion script" },
	{ "help", cmd_help, NULL, ARG_COMMAND, NULL, 0, 1, 0, "[COMMAND]",
	  "show help for rdmactl or a command" },
	{ "version", cmd_version, NULL, ARG_NONE, NULL, 0, 0, 0, "",
	  "print the version" },
	{ "__complete", cmd_complete, NULL, ARG_STR, NULL, 1, -1, CMD_HIDDEN, "CWORD WORDS...",
	  "completion candidates for the shell scripts" },
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
	return root ? set_root(ctx, root) : 0;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	struct ctx ctx;
	int idx, rc;

	if (ctx_init(&ctx))
		return RC_USAGE;
	idx = parse_top(&ctx, argc, argv);
	if (idx <= 0)
		return -idx;
	cmd = command_find(argv[idx]);
	if (!cmd) {
		unknown_command(&ctx, argv[idx]);
		return RC_USAGE;
	}
	ctx.cmd = cmd->name;
	rc = cmd->fn(&ctx, argc - idx, argv + idx);
	if (output_finish(&ctx)) {
		log_err(&ctx, "Failed to write output: %s", strerror(errno));
		return RC_PROBLEM;
	}
	return rc;
}
