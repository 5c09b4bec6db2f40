/* SPDX-License-Identifier: MIT */
/* Running a command for its output (node facts such as `ofed_info -s`). */
#ifndef RDMACTL_RUN_H
#define RDMACTL_RUN_H

#include <signal.h>
#include <stddef.h>

struct ctx;

/*
 * Catch each of @sigs with @sa, saving what it was in @old[i], but leave
 * one ignored when rdmactl started ignored: nohup's SIGHUP, a background
 * job's SIGINT stay so, as a program is expected to keep them.
 */
void catch_unless_ignored(const int *sigs, size_t n, const struct sigaction *sa,
			  struct sigaction *old);

/*
 * The output of a command, for facts only a tool gives (nft, iptables-save,
 * ofed_info), NUL-terminated in *@out to free.  With --root it is read from
 * <root>/run/rdmactl/cmd/@name, a recorded copy; live it is @argv's stdout
 * (at most 4 MiB, 10 s).  0, -ENOENT (the tool or the recording is absent),
 * -EIO (it failed), -ETIMEDOUT, -EFBIG or -errno.
 */
int run_output(const struct ctx *ctx, const char *name, char *const argv[], char **out);

/*
 * Run @argv for what it does (scontrol update), live even with --root:
 * 0; -ENOENT when it is not installed; -EIO when it failed, with the last
 * line it printed (its stdout and stderr together: scontrol's "Unable to
 * contact slurm controller (connect failure)"), made safe to show, in
 * @msg (empty when it printed nothing); -ETIMEDOUT or -errno.
 */
int run_action(char *const argv[], char *msg, size_t len);

#endif
