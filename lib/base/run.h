/* SPDX-License-Identifier: MIT */
/* Running a command for its output (node facts such as `ofed_info -s`). */
#ifndef RDMACTL_RUN_H
#define RDMACTL_RUN_H

#include <stddef.h>

struct ctx;

/*
 * The commands whose output is a fact of the node: `snapshot` records
 * each, and with --root each is read from its recording.  Their names are
 * the recordings' names below <root>/run/rdmactl/cmd/.
 */
enum node_cmd {
	NODE_CMD_NFT,		/* nft -j list ruleset */
	NODE_CMD_IPTABLES,	/* iptables-save */
	NODE_CMD_OFED,		/* ofed_info -s */
	NODE_CMD_N,
};

struct node_cmd_def {
	const char *name;	/* "nft-list-ruleset.json" */
	char *const argv[5];
};

extern const struct node_cmd_def node_cmds[NODE_CMD_N];

/* Where the recordings are, below the root. */
#define RECORDED_CMD_DIR "/run/rdmactl/cmd"

/*
 * The output of a command, for facts only a tool gives (nft, iptables-save,
 * ofed_info), NUL-terminated in *@out to free.  Live it is @argv's stdout
 * (at most 16 MiB, 10 s): 0, -ENOENT (the tool is not installed), -EIO (it
 * failed), -ETIMEDOUT, -EFBIG or -errno.  With --root it is the recording
 * <root>/run/rdmactl/cmd/@name, or, when the command failed on the node,
 * the error recorded in @name.error ("ENOENT", the symbol of the errno it
 * gave live): the same codes; and -ENODATA when neither exists, the
 * command's output was not recorded (its checks say so, never ok).
 */
int run_output(const struct ctx *ctx, const char *name, char *const argv[], char **out);
/* run_output() of one of node_cmds[]. */
int run_node_cmd(const struct ctx *ctx, enum node_cmd cmd, char **out);

/* The symbol of @err (-errno) as a recording's .error file holds it ("EIO"). */
const char *recorded_errno_name(int err);

/*
 * Run @argv for what it does (scontrol update), live even with --root:
 * 0; -ENOENT when it is not installed; -EIO when it failed, with the last
 * line it printed (its stdout and stderr together: scontrol's "Unable to
 * contact slurm controller (connect failure)"), made safe to show, in
 * @msg (empty when it printed nothing); -ETIMEDOUT or -errno.
 */
int run_action(char *const argv[], char *msg, size_t len);

/*
 * Run @argv for what it says of something outside this node (sinfo on
 * the node's Slurm state), live even with --root: run_action()'s codes
 * and @msg, and on success its output (stdout and stderr together: such
 * tools print nothing on stderr when they succeed) in *@out to free.
 */
int run_query(char *const argv[], char **out, char *msg, size_t len);

#endif
