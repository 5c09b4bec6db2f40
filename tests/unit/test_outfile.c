// SPDX-License-Identifier: MIT
/*
 * base/outfile: only regular files are written, nothing is replaced by
 * surprise, and no temporary file is left behind, including when the
 * target appears between the checks and the rename; two at once, and the
 * signals caught only where nobody else handles them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/outfile.h"
#include "test.h"

static char dir[] = "/tmp/test_outfile.XXXXXX";

/* @dir/@name into a static buffer. */
static const char *in_dir(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static int entries(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(in_dir(name), "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The whole of a small file, or "" when it cannot be read. */
static const char *contents(const char *name)
{
	static char buf[256];
	FILE *f = fopen(in_dir(name), "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static void clean(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			unlink(in_dir(de->d_name));
	if (d)
		closedir(d);
}

static void new_file_is_written(void)
{
	struct outfile of;
	struct stat st;

	clean();
	umask(022);
	CHECK_INT(outfile_open(NULL, &of, in_dir("new"), "test", 0), 0);
	/* Until complete it is private, and not at its name. */
	CHECK(!fstat(of.fd, &st) && (st.st_mode & 0777) == 0600);
	CHECK(access(in_dir("new"), F_OK) && errno == ENOENT);
	CHECK_INT(outfile_write(&of, "hello", 5), 0);
	CHECK_INT(outfile_commit(NULL, &of), 0);
	CHECK_STR(contents("new"), "hello");
	CHECK(!stat(in_dir("new"), &st) && (st.st_mode & 0777) == 0644);
	CHECK_INT(entries(), 1);
}

static void existing_file_is_kept(void)
{
	struct outfile of;

	clean();
	put("old", "keep");
	CHECK_INT(outfile_open(NULL, &of, in_dir("old"), "test", 0), -EEXIST);
	CHECK(of.refused);
	CHECK_STR(contents("old"), "keep");
	CHECK_INT(entries(), 1);
	CHECK_INT(outfile_open(NULL, &of, in_dir("old"), "test", OUTFILE_FORCE), 0);
	CHECK_INT(outfile_write(&of, "new", 3), 0);
	CHECK_INT(outfile_commit(NULL, &of), 0);
	CHECK_STR(contents("old"), "new");
	CHECK_INT(entries(), 1);
}

/* A file made after the check is not replaced: RENAME_NOREPLACE. */
static void file_made_meanwhile_is_kept(void)
{
	struct outfile of;

	clean();
	CHECK_INT(outfile_open(NULL, &of, in_dir("race"), "test", 0), 0);
	CHECK_INT(outfile_write(&of, "ours", 4), 0);
	put("race", "theirs");
	CHECK_INT(outfile_commit(NULL, &of), -EEXIST);
	CHECK(of.refused);
	CHECK_STR(contents("race"), "theirs");
	CHECK_INT(entries(), 1);
}

/* With --force, a link put in its place meanwhile is not replaced either. */
static void link_made_meanwhile_is_kept(void)
{
	struct outfile of;
	char target[64] = "";

	clean();
	CHECK_INT(outfile_open(NULL, &of, in_dir("forced"), "test", OUTFILE_FORCE), 0);
	CHECK(!symlink("/etc/passwd", in_dir("forced")));
	CHECK(outfile_commit(NULL, &of) < 0);
	CHECK(of.refused);
	CHECK(readlink(in_dir("forced"), target, sizeof(target) - 1) > 0);
	CHECK_STR(target, "/etc/passwd");
	CHECK_INT(entries(), 1);
}

static void special_files_are_refused(void)
{
	static const char *const names[] = { "link", "dangling", "fifo", "dir" };
	struct outfile of;
	struct stat st;
	size_t i;

	clean();
	rmdir(in_dir("dir"));
	put("target", "keep");
	CHECK(!symlink("target", in_dir("link")));
	CHECK(!symlink("missing", in_dir("dangling")));
	CHECK(!mkfifo(in_dir("fifo"), 0600));
	CHECK(!mkdir(in_dir("dir"), 0700));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		CHECK(outfile_open(NULL, &of, in_dir(names[i]), "test", OUTFILE_FORCE) < 0);
		CHECK(of.refused);
	}
	CHECK_STR(contents("target"), "keep");
	CHECK(lstat(in_dir("missing"), &st) && errno == ENOENT);
	CHECK(!lstat(in_dir("fifo"), &st) && S_ISFIFO(st.st_mode));
	CHECK_INT(entries(), 5);
	rmdir(in_dir("dir"));
}

static void failure_leaves_nothing(void)
{
	struct outfile of;

	clean();
	CHECK_INT(outfile_open(NULL, &of, in_dir("gone"), "test", 0), 0);
	CHECK_INT(outfile_write(&of, "part", 4), 0);
	CHECK_INT(entries(), 1);	/* the temporary file */
	outfile_fail(NULL, &of, -ENOMEM);
	CHECK_INT(entries(), 0);
	/* A missing directory: a failed write, not a refusal. */
	CHECK_INT(outfile_open(NULL, &of, in_dir("no/such"), "test", 0), -ENOENT);
	CHECK(!of.refused);
}

static void their_handler(int sig)
{
	(void)sig;
}

static void (*handler_now(int sig))(int)
{
	struct sigaction sa;

	sigaction(sig, NULL, &sa);
	return sa.sa_handler;
}

/*
 * Two files at once (probe -w's --save beside its --html), a third
 * refused; SIGINT caught while one is open and put back after the last;
 * a handler of the caller's (a launcher's) left in charge.
 */
static void two_at_once(void)
{
	struct outfile a, b, c;
	struct sigaction sa = { .sa_handler = their_handler }, old;
	char pa[512], pb[512];

	clean();
	snprintf(pa, sizeof(pa), "%s", in_dir("a"));
	snprintf(pb, sizeof(pb), "%s", in_dir("b"));
	/* A shell's background job starts with SIGINT ignored: start from the default. */
	signal(SIGINT, SIG_DFL);
	CHECK(handler_now(SIGINT) == SIG_DFL);
	CHECK_INT(outfile_open(NULL, &a, pa, "test", 0), 0);
	CHECK(handler_now(SIGINT) != SIG_DFL);
	CHECK_INT(outfile_open(NULL, &b, pb, "test", 0), 0);
	CHECK_INT(outfile_open(NULL, &c, in_dir("c"), "test", 0), -EBUSY);
	CHECK_INT(outfile_write(&a, "A", 1), 0);
	CHECK_INT(outfile_write(&b, "B", 1), 0);
	CHECK_INT(outfile_commit(NULL, &a), 0);
	CHECK(handler_now(SIGINT) != SIG_DFL);
	CHECK_INT(outfile_commit(NULL, &b), 0);
	CHECK(handler_now(SIGINT) == SIG_DFL);
	CHECK_STR(contents("a"), "A");
	CHECK_STR(contents("b"), "B");
	CHECK_INT(entries(), 2);
	/* Set by someone else: neither replaced nor put back. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	CHECK_INT(outfile_open(NULL, &a, in_dir("d"), "test", 0), 0);
	CHECK(handler_now(SIGINT) == their_handler);
	outfile_discard(&a);
	CHECK(handler_now(SIGINT) == their_handler);
	/* Set while the file is open (a launcher's thread starting): kept after it. */
	sigaction(SIGINT, &old, NULL);
	CHECK_INT(outfile_open(NULL, &a, in_dir("e"), "test", 0), 0);
	sigaction(SIGINT, &sa, NULL);
	outfile_discard(&a);
	CHECK(handler_now(SIGINT) == their_handler);
	sigaction(SIGINT, &old, NULL);
	CHECK_INT(entries(), 2);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN("outfile", new_file_is_written);
	RUN("outfile", existing_file_is_kept);
	RUN("outfile", file_made_meanwhile_is_kept);
	RUN("outfile", link_made_meanwhile_is_kept);
	RUN("outfile", special_files_are_refused);
	RUN("outfile", failure_leaves_nothing);
	RUN("outfile", two_at_once);
	clean();
	rmdir(dir);
	TEST_EXIT();
}
