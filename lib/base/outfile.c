// SPDX-License-Identifier: MIT
/* Output files: regular files only, never replaced by surprise (see outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/signals.h"
#include "base/text.h"

/*
 * The temporary files being written, for the signal handler, which may
 * only look at static storage.  Two at a time at most: probe -w writes its
 * --save document while its --html page is open.
 */
#define SLOTS 2
static char pending[SLOTS][4096];
static volatile sig_atomic_t armed[SLOTS];

/* The hook that removes them on a stop signal, while any file is open (signals.h). */
static unsigned int open_files;
static int hook = -1;

/* A stop signal: no temporary file left behind (the signal then ends rdmactl). */
static void unlink_armed(int sig)
{
	size_t i;

	(void)sig;
	for (i = 0; i < SLOTS; i++) {
		if (armed[i])
			unlink(pending[i]);
		armed[i] = 0;
	}
}

/*
 * A cleanup, not in charge: where a launcher's hook is in charge (it ends
 * its run, then the program), the file is finished or dropped by the code
 * that wrote it.
 */
static void catch_signals(void)
{
	if (!open_files++)
		hook = signals_hook(unlink_armed, SIGNALS_NO_XFSZ);
}

static void restore_signals(void)
{
	if (!open_files || --open_files)
		return;
	signals_unhook(hook);
	hook = -1;
}

/* Remove the temporary file, if any, so that no signal can see it half gone. */
static void drop_tmp(struct outfile *of)
{
	sigset_t old;

	if (of->fd >= 0 && !outfile_is_stdout(of))
		close(of->fd);
	of->fd = -1;
	signals_block(&old);
	if (of->slot >= 0 && armed[of->slot])
		unlink(pending[of->slot]);
	if (of->slot >= 0)
		armed[of->slot] = 0;
	of->slot = -1;
	signals_unblock(&old);
}

bool outfile_is_stdout(const struct outfile *of)
{
	return !strcmp(of->path, "-");
}

const char *file_kind(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return S_ISREG(mode) ? "a regular file" : "an unknown kind of file";
}

/*
 * "Failed to write WHAT 'PATH': REASON", the path shown safely; @err (0
 * when none) is the errno -j's error object names.
 */
static void say_err(const struct ctx *ctx, const struct outfile *of, int err, const char *reason)
{
	char name[512];

	if (outfile_is_stdout(of))
		log_err_errno(ctx, err, "Failed to write %s to stdout: %s", of->what, reason);
	else
		log_err_errno(ctx, err, "Failed to write %s '%s': %s", of->what,
			      text_safe(of->path, name, sizeof(name), 0), reason);
}

static void say(const struct ctx *ctx, const struct outfile *of, const char *reason)
{
	say_err(ctx, of, 0, reason);
}

/* The same with strerror(@err) as the reason (either sign). */
static void say_errno(const struct ctx *ctx, const struct outfile *of, int err)
{
	say_err(ctx, of, err, strerror(err < 0 ? -err : err));
}

/* Why a target of kind @mode is refused, and what to do instead. */
static void say_refused(const struct ctx *ctx, const struct outfile *of, mode_t mode)
{
	char reason[1024], target[4096], safe[512];
	ssize_t n;

	if (S_ISREG(mode)) {
		say_err(ctx, of, EEXIST, "File exists. Use --force to replace it");
		return;
	}
	if (S_ISLNK(mode)) {
		n = readlink(of->path, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		snprintf(reason, sizeof(reason), "it is a symbolic link (to '%s'), which rdmactl "
			 "neither follows nor replaces. Name a regular file",
			 text_safe(target, safe, sizeof(safe), 0));
	} else if (S_ISDIR(mode)) {
		snprintf(reason, sizeof(reason), "Is a directory. Name a file in it");
	} else {
		snprintf(reason, sizeof(reason), "it is %s, not a regular file, and is never "
			 "replaced, even with --force (-o - writes to stdout)", file_kind(mode));
	}
	say(ctx, of, reason);
}

/*
 * What @of->path is now: 0 when it may be written (absent, or a regular
 * file with OUTFILE_FORCE), else -errno, with the message printed.
 */
static int check_target(const struct ctx *ctx, struct outfile *of)
{
	struct stat st;
	int err;

	if (lstat(of->path, &st)) {
		err = errno;
		if (err == ENOENT)
			return 0;	/* a new file; a missing directory shows when we create it */
		say_errno(ctx, of, err);
		return -err;
	}
	if (S_ISREG(st.st_mode) && (of->flags & OUTFILE_FORCE))
		return 0;
	of->refused = true;
	say_refused(ctx, of, st.st_mode);
	if (S_ISREG(st.st_mode))
		return -EEXIST;
	return S_ISDIR(st.st_mode) ? -EISDIR : S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
}

/* "PATH.XXXXXX" beside the target: O_EXCL, mode 0600 until it is complete. */
static int create_tmp(const struct ctx *ctx, struct outfile *of)
{
	sigset_t old;
	int ret = 0, k;

	/* The signal handler knows of SLOTS files at once. */
	for (k = 0; k < SLOTS && armed[k]; k++)
		;
	if (k == SLOTS) {
		say_errno(ctx, of, EBUSY);
		return -EBUSY;
	}
	if ((size_t)snprintf(pending[k], sizeof(pending[k]), "%s.XXXXXX", of->path) >= sizeof(pending[k])) {
		say_errno(ctx, of, ENAMETOOLONG);
		return -ENAMETOOLONG;
	}
	/* Blocked, so that a signal sees either no file or its whole name. */
	signals_block(&old);
	of->fd = mkostemp(pending[k], O_CLOEXEC);
	if (of->fd < 0) {
		ret = -errno;
	} else {
		armed[k] = 1;
		of->slot = k;
	}
	signals_unblock(&old);
	if (ret)
		say_errno(ctx, of, -ret);
	return ret;
}

static int open_stdout(const struct ctx *ctx, struct outfile *of)
{
	/* Binary data on a terminal is never what was meant (gzip refuses too). */
	if (isatty(STDOUT_FILENO) && !(of->flags & OUTFILE_FORCE)) {
		of->refused = true;
		say(ctx, of, "it is a terminal. Redirect it to a file or a pipe, or use --force");
		return -ENOTTY;
	}
	of->fd = STDOUT_FILENO;
	return 0;
}

int outfile_open(const struct ctx *ctx, struct outfile *of, const char *path,
		 const char *what, unsigned int flags)
{
	int ret;

	*of = (struct outfile){ .path = path, .what = what, .flags = flags, .fd = -1, .slot = -1 };
	ret = outfile_is_stdout(of) ? 0 : check_target(ctx, of);
	if (ret)
		return ret;
	catch_signals();
	ret = outfile_is_stdout(of) ? open_stdout(ctx, of) : create_tmp(ctx, of);
	if (ret)
		restore_signals();
	return ret;
}

int outfile_write(struct outfile *of, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len && !of->err) {
		n = write(of->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			of->err = n < 0 ? -errno : -EIO;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	return of->err;
}

/* Make the complete file durable, then readable by whom a new file would be. */
static int finish_tmp(struct outfile *of)
{
	mode_t mask = umask(0);
	int ret = 0;

	umask(mask);
	if (fsync(of->fd))
		ret = -errno;
	else if (fchmod(of->fd, 0666 & ~mask))
		ret = -errno;
	/* NFS reports some write errors only at close. */
	if (close(of->fd) && !ret)
		ret = -errno;
	of->fd = -1;
	return ret;
}

/* rename() that replaces nothing: RENAME_NOREPLACE, or link() where the filesystem lacks it (NFS). */
static int rename_noreplace(const char *from, const char *to)
{
	if (!renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (link(from, to))
		return -errno;
	unlink(from);
	return 0;
}

/*
 * Rename the temporary file to the target.  Without OUTFILE_FORCE nothing
 * is replaced, not even a file made since outfile_open(): EEXIST then.
 */
static int put_in_place(const struct ctx *ctx, struct outfile *of)
{
	bool force = of->flags & OUTFILE_FORCE;
	sigset_t old;
	int ret;

	/* With --force, look again: it may have become a link or a device meanwhile. */
	if (force && (ret = check_target(ctx, of)))
		return ret;
	signals_block(&old);
	if (force)
		ret = rename(pending[of->slot], of->path) ? -errno : 0;
	else
		ret = rename_noreplace(pending[of->slot], of->path);
	if (!ret) {
		armed[of->slot] = 0;
		of->slot = -1;
	}
	signals_unblock(&old);
	if (ret == -EEXIST && !force) {
		of->refused = true;
		say_err(ctx, of, EEXIST, "File exists. Use --force to replace it");
	} else if (ret) {
		say_errno(ctx, of, -ret);
	}
	return ret;
}

int outfile_commit(const struct ctx *ctx, struct outfile *of)
{
	int ret = of->err;

	if (ret)
		say_errno(ctx, of, -ret);
	else if (!outfile_is_stdout(of) && (ret = finish_tmp(of)))
		say_errno(ctx, of, -ret);
	else if (!outfile_is_stdout(of))
		ret = put_in_place(ctx, of);
	drop_tmp(of);
	restore_signals();
	return ret;
}

void outfile_discard(struct outfile *of)
{
	drop_tmp(of);
	restore_signals();
}

void outfile_fail(const struct ctx *ctx, struct outfile *of, int err)
{
	say_errno(ctx, of, -err);
	drop_tmp(of);
	restore_signals();
}
