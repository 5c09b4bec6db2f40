// SPDX-License-Identifier: MIT
/*
 * A command's output, captured with a time and size limit; with --root,
 * the recording `snapshot` made of it instead.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/run.h"
#include "base/sysfs.h"
#include "base/text.h"

/*
 * nft -j list ruleset prints about 360 bytes a rule: 10 000 rules made
 * 3.6 MB, which 4 MiB held with little to spare.
 */
#define CMD_MAX_OUT (16u << 20)
#define CMD_TIMEOUT_MS 10000

static int read_child(int fd, pid_t pid, char **out)
{
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap), *nb;
	struct timespec start, now;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = CMD_TIMEOUT_MS - ((now.tv_sec - start.tv_sec) * 1000 +
					 (now.tv_nsec - start.tv_nsec) / 1000000);
		if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
			kill(pid, SIGKILL);
			ret = -ETIMEDOUT;
			break;
		}
		if (len + 4097 > cap) {
			if (cap >= CMD_MAX_OUT) {
				kill(pid, SIGKILL);
				ret = -EFBIG;
				break;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, 4096);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (ret)
		free(buf);
	else
		*out = buf;
	return ret;
}

/*
 * execvp(), then the sbin directories: the tools of these facts (nft,
 * iptables-save, ofed_info) live there, and a PATH without them is common:
 * an ordinary user's, or none at all where Slurm runs its HealthCheckProgram.
 */
static void exec_sbin(char *const argv[])
{
	static const char *const dirs[] = { "/usr/local/sbin", "/usr/sbin", "/sbin" };
	char path[4096];
	size_t i;

	execvp(argv[0], argv);
	if (errno != ENOENT || strchr(argv[0], '/'))
		return;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], argv[0]);
		execv(path, argv);
	}
	errno = ENOENT;
}

/* @argv's stdout in *@out, and its stderr too when @with_err. */
static int run_capture(char *const argv[], char **out, bool with_err)
{
	int fds[2], status, ret;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(fds[1], STDOUT_FILENO);
		if (with_err)
			dup2(fds[1], STDERR_FILENO);
		if (null >= 0) {
			if (!with_err)
				dup2(null, STDERR_FILENO);
			dup2(null, STDIN_FILENO);
		}
		exec_sbin(argv);
		_exit(127);
	}
	close(fds[1]);
	ret = read_child(fds[0], pid, out);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status)))
		ret = WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -ENOENT : -EIO;
	return ret;
}

/* The last line of @text that is not blank, cut at its end, in @msg. */
static void last_line(char *text, char *msg, size_t len)
{
	char *end = text + strlen(text), *start;

	while (end > text && isspace((unsigned char)end[-1]))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	text_safe_n(start, (size_t)(end - start), msg, len, 0);
}

const struct node_cmd_def node_cmds[NODE_CMD_N] = {
	[NODE_CMD_NFT] = { "nft-list-ruleset.json", { "nft", "-j", "list", "ruleset", NULL } },
	[NODE_CMD_IPTABLES] = { "iptables-save", { "iptables-save", NULL } },
	[NODE_CMD_OFED] = { "ofed_info-s", { "ofed_info", "-s", NULL } },
};

/* The errors a command run can give, by their symbols in a recording's .error file. */
static const struct {
	const char *name;
	int err;
} recorded_errors[] = {
	{ "ENOENT", ENOENT }, { "EIO", EIO }, { "ETIMEDOUT", ETIMEDOUT }, { "EFBIG", EFBIG },
	{ "EACCES", EACCES }, { "EPERM", EPERM }, { "ENOMEM", ENOMEM },
};

const char *recorded_errno_name(int err)
{
	size_t i;

	for (i = 0; i < sizeof(recorded_errors) / sizeof(recorded_errors[0]); i++)
		if (recorded_errors[i].err == -err)
			return recorded_errors[i].name;
	return "EIO";
}

/*
 * The recorded failure of @name: its .error file's first word ("ENOENT"),
 * as -errno (-EIO for a word not known here), or -ENODATA when nothing
 * was recorded of @name.
 */
static int recorded_error(const struct ctx *ctx, const char *name)
{
	char path[256], word[64];
	size_t i;

	snprintf(path, sizeof(path), RECORDED_CMD_DIR "/%s.error", name);
	if (read_line(ctx, path, word, sizeof(word)) < 0)
		return -ENODATA;
	word[strcspn(word, " \t:")] = '\0';
	for (i = 0; i < sizeof(recorded_errors) / sizeof(recorded_errors[0]); i++)
		if (!strcmp(word, recorded_errors[i].name))
			return -recorded_errors[i].err;
	return -EIO;
}

int run_output(const struct ctx *ctx, const char *name, char *const argv[], char **out)
{
	char path[256];
	int ret;

	*out = NULL;
	if (ctx->root[0]) {
		snprintf(path, sizeof(path), RECORDED_CMD_DIR "/%s", name);
		ret = read_file(ctx, path, CMD_MAX_OUT, out, NULL);
		return ret == -ENOENT ? recorded_error(ctx, name) : ret;
	}
	ret = run_capture(argv, out, false);
	if (ret && *out) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

int run_node_cmd(const struct ctx *ctx, enum node_cmd cmd, char **out)
{
	return run_output(ctx, node_cmds[cmd].name, node_cmds[cmd].argv, out);
}

int run_query(char *const argv[], char **out, char *msg, size_t len)
{
	int ret;

	*out = NULL;
	ret = run_capture(argv, out, true);
	msg[0] = '\0';
	if (ret == -EIO && *out)
		last_line(*out, msg, len);
	if (ret) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

int run_action(char *const argv[], char *msg, size_t len)
{
	char *out;
	int ret = run_query(argv, &out, msg, len);

	free(out);
	return ret;
}
