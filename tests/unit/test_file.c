// SPDX-License-Identifier: MIT
/*
 * Whole files under a cap (base/file.h): the cap exactly, one byte over
 * it, a FIFO and a directory where a file belongs (never waited on), a
 * symbolic link refused when asked, a pipe read when asked for, a file
 * larger than the cap refused by its size, unread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "test.h"

static char dir[] = "/tmp/rdmactl-file-XXXXXX";

static const char *at(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void put(const char *name, size_t n)
{
	FILE *f = fopen(at(name), "w");
	size_t i;

	for (i = 0; f && i < n; i++)
		fputc('a' + (int)(i % 26), f);
	if (f)
		fclose(f);
}

static void cap_exactly_and_one_over(void)
{
	char *text = NULL, buf[101];
	size_t len = 0;
	mode_t mode = 0;
	int fd;

	put("cap", 100);
	CHECK_INT(file_read_all(at("cap"), 100, 0, &text, &len, &mode), 0);
	CHECK_INT(len, 100);
	CHECK(text && text[100] == '\0' && text[99] == 'v');
	free(text);
	text = NULL;
	CHECK_INT(file_read_all(at("cap"), 99, 0, &text, &len, &mode), -EFBIG);
	CHECK(text == NULL);
	/* Larger than a first buffer: grown as it is read. */
	put("big", 100000);
	CHECK_INT(file_read_all(at("big"), 100000, 0, &text, NULL, &mode), 0);
	CHECK(text && strlen(text) == 100000);
	free(text);
	put("empty", 0);
	CHECK_INT(file_read_all(at("empty"), 10, 0, &text, &len, &mode), 0);
	CHECK(text && !text[0] && len == 0);
	free(text);
	/* The caller's buffer. */
	fd = open(at("cap"), O_RDONLY);
	CHECK_INT(file_read_into(fd, buf, 100, &len), 0);
	CHECK_INT(len, 100);
	CHECK_INT(lseek(fd, 0, SEEK_SET), 0);
	CHECK_INT(file_read_into(fd, buf, 50, &len), -EFBIG);
	close(fd);
	CHECK_INT(file_read_all(at("none"), 10, 0, &text, &len, &mode), -ENOENT);
}

static void no_regular_file_no_wait(void)
{
	char *text = NULL;
	mode_t mode = 0;

	CHECK_INT(mkfifo(at("fifo"), 0600), 0);
	CHECK_INT(file_read_all(at("fifo"), 10, 0, &text, NULL, &mode), -EINVAL);
	CHECK(S_ISFIFO(mode));
	mode = 0;
	CHECK_INT(file_read_all(dir, 10, 0, &text, NULL, &mode), -EINVAL);
	CHECK(S_ISDIR(mode));
	CHECK(text == NULL);
}

static void links_refused_when_asked(void)
{
	char *text = NULL;
	mode_t mode = 0;

	put("target", 5);
	CHECK_INT(symlink("target", at("link")), 0);
	CHECK_INT(file_read_all(at("link"), 10, 0, &text, NULL, &mode), 0);
	free(text);
	text = NULL;
	CHECK_INT(file_read_all(at("link"), 10, FILE_NOFOLLOW, &text, NULL, &mode), -ELOOP);
	CHECK(text == NULL);
}

static void a_pipe_read_to_its_end(void)
{
	char *text = NULL;
	size_t len = 0;
	int p[2];

	CHECK_INT(pipe(p), 0);
	CHECK_INT(write(p[1], "hello", 5), 5);
	close(p[1]);
	CHECK_INT(file_read_fd(p[0], 10, &text, &len), 0);
	CHECK_STR(text, "hello");
	CHECK_INT(len, 5);
	free(text);
	close(p[0]);
	CHECK_INT(pipe(p), 0);
	CHECK_INT(write(p[1], "hello", 5), 5);
	close(p[1]);
	CHECK_INT(file_read_fd(p[0], 4, &text, &len), -EFBIG);
	close(p[0]);
}

static long maxrss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

/*
 * 1 GiB and a byte, sparse, under a 1 GiB cap: -EFBIG from its size.
 * Read up to the cap it took the cap in memory (and seconds) first: the
 * process's peak must not grow by anything near it.
 */
static void over_the_cap_unread(void)
{
	const size_t cap = 1ul << 30;
	char *text = NULL;
	long before;
	int fd = open(at("sparse"), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0 && ftruncate(fd, (off_t)cap + 1) == 0);
	if (fd >= 0)
		close(fd);
	before = maxrss_kb();
	CHECK_INT(file_read_all(at("sparse"), cap, 0, &text, NULL, NULL), -EFBIG);
	CHECK(text == NULL);
	CHECK(before > 0 && maxrss_kb() - before < 64 * 1024);
	unlink(at("sparse"));
}

int main(void)
{
	char cmd[300];
	int ret;

	if (!mkdtemp(dir))
		return 1;
	RUN("file", cap_exactly_and_one_over);
	RUN("file", no_regular_file_no_wait);
	RUN("file", links_refused_when_asked);
	RUN("file", a_pipe_read_to_its_end);
	RUN("file", over_the_cap_unread);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ret = system(cmd);
	(void)ret;
	TEST_EXIT();
}
