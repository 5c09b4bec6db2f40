// SPDX-License-Identifier: MIT
/* Whole files under a cap (file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"

int file_read_into(int fd, char *buf, size_t cap, size_t *len)
{
	ssize_t n;

	/* One byte more than the cap tells a file over it. */
	for (*len = 0; *len <= cap; *len += (size_t)n) {
		n = read(fd, buf + *len, cap + 1 - *len);
		if (n < 0 && errno == EINTR)
			n = 0;
		else if (n < 0)
			return -errno;
		else if (n == 0)
			break;
	}
	if (*len > cap)
		return -EFBIG;
	buf[*len] = '\0';	/* for the callers that parse it */
	return 0;
}

/* @buf grown to hold @want bytes, at most @limit; 0 or -ENOMEM. */
static int grow(char **buf, size_t *size, size_t want, size_t limit)
{
	size_t n = *size ? *size : 4096;
	char *nb;

	while (n < want)
		n *= 2;
	if (n > limit)
		n = limit;
	nb = realloc(*buf, n);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*size = n;
	return 0;
}

/*
 * file_read_fd() with a first buffer for @hint bytes: a regular file's
 * size, so that a 400 MB saved run takes one allocation of its size, not
 * a doubling to 512 MB and the copies on the way.
 */
static int read_fd(int fd, size_t cap, size_t hint, char **out, size_t *len)
{
	size_t size = 0, got = 0;
	char *buf = NULL;
	ssize_t n;
	int ret = 0;

	/* Its size, a byte to find the end in, and the NUL: exactly. */
	if (hint) {
		size = (hint < cap ? hint : cap) + 2;
		if (!(buf = malloc(size)))
			return -ENOMEM;
	}
	for (;;) {
		/* Room for one byte past the cap, and for the NUL. */
		if (got + 1 >= size && (ret = grow(&buf, &size, got + 2, cap + 2)))
			break;
		n = read(fd, buf + got, size - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ret = -errno;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got > cap) {
			ret = -EFBIG;
			break;
		}
	}
	if (ret) {
		free(buf);
		return ret;
	}
	buf[got] = '\0';
	*out = buf;
	if (len)
		*len = got;
	return 0;
}

int file_read_fd(int fd, size_t cap, char **out, size_t *len)
{
	return read_fd(fd, cap, 0, out, len);
}

int file_read_all(const char *path, size_t cap, unsigned int flags, char **out, size_t *len,
		  mode_t *mode)
{
	int oflags = O_RDONLY | O_CLOEXEC | O_NOCTTY, fd, ret;

	if (flags & FILE_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	/* Opening a FIFO waits for a writer: not for a file that should be regular. */
	if (!(flags & FILE_ANY_KIND))
		oflags |= O_NONBLOCK;
	fd = open(path, oflags);
	if (fd < 0)
		return -errno;
	ret = file_read_opened(fd, cap, flags, out, len, mode);
	close(fd);
	return ret;
}

int file_read_opened(int fd, size_t cap, unsigned int flags, char **out, size_t *len,
		     mode_t *mode)
{
	struct stat st;

	st.st_mode = 0;
	if ((fstat(fd, &st) || !S_ISREG(st.st_mode)) && !(flags & FILE_ANY_KIND)) {
		if (mode)
			*mode = st.st_mode ? st.st_mode : S_IFMT;
		return -EINVAL;
	}
	/*
	 * A regular file larger than the cap is refused by its size, unread:
	 * reading a 3 GiB file up to a 2 GiB cap took seconds and 2 GiB of
	 * memory to say the same.  (sysfs says 4096 of every attribute and
	 * procfs 0: neither is over a cap, which is 64 KiB at least.)
	 */
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > cap)
		return -EFBIG;
	/* sysfs's 4096: a hint, never a limit. */
	return read_fd(fd, cap, S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size : 0,
		       out, len);
}
