/* SPDX-License-Identifier: MIT */
/*
 * The one way rdmactl writes a file (snapshot -o, and every command that
 * writes one later).  As root a careless "-o /dev/full" or "-o /dev/sda"
 * must not replace a device node, and a planted symlink must not make us
 * write somewhere else, so:
 *
 *   - the output is a regular file, or standard output for "-";
 *   - an existing regular file is kept unless OUTFILE_FORCE (as gzip -f);
 *   - a symlink, directory, device node, FIFO or socket is refused, even
 *     with OUTFILE_FORCE: "rdmactl x -o - > /dev/thing" says it on purpose;
 *   - the data goes to a temporary file beside the target, created with
 *     O_EXCL and mode 0600, fsync'd, given the mode the umask gives a new
 *     file and renamed into place (without replacing anything unless
 *     OUTFILE_FORCE), so the target is whole or untouched;
 *   - the temporary file is removed on every error and on SIGINT, SIGTERM
 *     and SIGHUP, a cleanup hook of signals.h (unless a hook in charge, a
 *     launcher's, takes them: it then ends the program its own way, after
 *     the file is finished or discarded); SIGXFSZ is ignored meanwhile, so
 *     "ulimit -f" gives EFBIG;
 *   - two files may be open at once (probe -w's --save and --html).
 *
 * Each function prints its own message ("Failed to write snapshot 'X':
 * No space left on device"), so every command says the same thing.
 */
#ifndef RDMACTL_OUTFILE_H
#define RDMACTL_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ctx;

enum outfile_flags {
	OUTFILE_FORCE = 1 << 0,	/* replace an existing regular file */
};

struct outfile {
	const char *path;	/* as given; "-" is standard output */
	const char *what;	/* for messages: "snapshot" */
	unsigned int flags;
	int fd;			/* the temporary file, or 1; -1 when closed */
	int err;		/* first write error, -errno */
	int slot;		/* the signal handler's slot of its temporary file, -1 none */
	/*
	 * The target was refused for what it is (it exists, a link, a
	 * directory, a device...): a usage error, not a failed write.
	 */
	bool refused;
};

/*
 * Check @path and open its temporary file (or standard output).  0, or
 * -errno with the message printed; nothing is left behind on failure.
 */
int outfile_open(const struct ctx *ctx, struct outfile *of, const char *path,
		 const char *what, unsigned int flags);

/* True when the output is standard output ("-o -"). */
bool outfile_is_stdout(const struct outfile *of);

/* Write all of @buf; 0 or -errno (kept, and reported by outfile_commit()). */
int outfile_write(struct outfile *of, const void *buf, size_t len);

/*
 * Finish: fsync, set the mode, rename into place.  0, or -errno with the
 * message printed and the temporary file removed.
 */
int outfile_commit(const struct ctx *ctx, struct outfile *of);

/*
 * Give up (after an error of the caller's own): print "Failed to write
 * WHAT 'PATH': <strerror(-err)>" and remove the temporary file.
 */
void outfile_fail(const struct ctx *ctx, struct outfile *of, int err);

/*
 * Give up without a word (the caller said why, e.g. its input was bad):
 * the temporary file is removed, the target untouched.
 */
void outfile_discard(struct outfile *of);

/* What a file of type @mode is, for messages: "a FIFO", "a character device". */
const char *file_kind(mode_t mode);

#endif
