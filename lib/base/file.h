/* SPDX-License-Identifier: MIT */
/*
 * Reading a whole file under a cap: the one reader of sysfs.h's
 * read_file(), snapshot's archive, hostlist files, gathered documents
 * and rdmactl report's saved runs.  Whatever a file holds, the reader
 * never takes more than the cap plus one byte (how it tells a file over
 * the cap), never hangs on a FIFO where a file belongs, and returns 0 or
 * -errno: -EFBIG over the cap, -EINVAL (with the file's type) for what is
 * not a regular file.
 */
#ifndef RDMACTL_FILE_H
#define RDMACTL_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* file_read_all()'s @flags. */
enum file_flags {
	/* A symbolic link is not followed (-ELOOP): one swapped in after a check must not lead elsewhere. */
	FILE_NOFOLLOW = 1 << 0,
	/*
	 * Any kind of file, read to its end: a pipe or a FIFO a caller means
	 * (rdmactl report - ), opened as it is, waiting for a writer.
	 */
	FILE_ANY_KIND = 1 << 1,
};

/*
 * All of @fd from where it is, into *@out (malloc'd, NUL-terminated, free()
 * it) and *@len (may be NULL).  0, -EFBIG when it holds more than @cap
 * bytes, -ENOMEM, or read()'s -errno; *@out is untouched on error.
 */
int file_read_fd(int fd, size_t cap, char **out, size_t *len);

/*
 * All of @fd into @buf, which has room for @cap + 1 bytes (NUL-terminated):
 * for a caller reading many files through one buffer.  0, -EFBIG (more
 * than @cap bytes; *@len is then @cap + 1), or read()'s -errno.
 */
int file_read_into(int fd, char *buf, size_t cap, size_t *len);

/*
 * All of the file @path, as file_read_fd().  Unless FILE_ANY_KIND, it is
 * opened without blocking and must be a regular file: -EINVAL otherwise,
 * with *@mode (may be NULL) its type (S_IFMT when not known), for the
 * caller's message ("a FIFO, not a regular file").  open()'s -errno.
 */
int file_read_all(const char *path, size_t cap, unsigned int flags, char **out, size_t *len,
		  mode_t *mode);

/*
 * file_read_all() of @fd, which the caller opened (O_NONBLOCK unless
 * FILE_ANY_KIND) and closes: for a file opened below a root (root.h).
 */
int file_read_opened(int fd, size_t cap, unsigned int flags, char **out, size_t *len,
		     mode_t *mode);

#endif
