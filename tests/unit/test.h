/* SPDX-License-Identifier: MIT */
/*
 * A minimal unit-test harness: each test prints one line, "PASS unit/FILE/NAME"
 * or "FAIL unit/FILE/NAME: what failed", which tests/run-all counts.
 */
#ifndef RDMACTL_TEST_H
#define RDMACTL_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int test_failed;		/* failures in the current test */
static int tests_failed;	/* tests failed in this file */

#define CHECK(cond)                                                                       \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
			test_failed++;                                                    \
		}                                                                         \
	} while (0)

#define CHECK_STR(a, b)                                                                   \
	do {                                                                              \
		const char *a_ = (a), *b_ = (b);                                          \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                       \
			fprintf(stderr, "  %s:%d: '%s' != '%s'\n", __FILE__, __LINE__,    \
				a_ ? a_ : "(null)", b_ ? b_ : "(null)");                 \
			test_failed++;                                                    \
		}                                                                         \
	} while (0)

#define CHECK_INT(a, b)                                                                   \
	do {                                                                              \
		long long a_ = (long long)(a), b_ = (long long)(b);                       \
		if (a_ != b_) {                                                           \
			fprintf(stderr, "  %s:%d: %s == %lld, expected %lld\n", __FILE__, \
				__LINE__, #a, a_, b_);                                    \
			test_failed++;                                                    \
		}                                                                         \
	} while (0)

#define RUN(suite, fn)                                                                    \
	do {                                                                              \
		test_failed = 0;                                                          \
		fn();                                                                     \
		fflush(stderr);                                                           \
		printf("%s %sunit/%s/%s\n", test_failed ? "FAIL" : "PASS",               \
		       getenv("TEST_PREFIX") ? getenv("TEST_PREFIX") : "", suite, #fn);  \
		fflush(stdout);                                                           \
		tests_failed += !!test_failed;                                            \
	} while (0)

#define TEST_EXIT() return tests_failed ? 1 : 0

/* The recorded tree @name under $FIXTURES (tests/fixtures by default), in a static buffer. */
static inline const char *fixture_path(const char *name)
{
	static char path[4096];
	const char *dir = getenv("FIXTURES");

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/fixtures", name);
	return path;
}

/*
 * Standard output into a file from capture_begin() to capture_end(), which
 * returns what was written, NUL-terminated (1 MiB at most; free it): for
 * the printers that write to stdout.
 */
struct capture {
	char path[32];
	int fd, saved;
};

static inline void capture_begin(struct capture *c)
{
	strcpy(c->path, "/tmp/rdmactl-out.XXXXXX");
	fflush(stdout);
	c->fd = mkstemp(c->path);
	c->saved = dup(1);
	dup2(c->fd, 1);
}

static inline char *capture_end(struct capture *c)
{
	char *text = malloc(1 << 20);
	ssize_t n;

	fflush(stdout);
	dup2(c->saved, 1);
	close(c->saved);
	n = text ? pread(c->fd, text, (1 << 20) - 1, 0) : -1;
	if (text)
		text[n > 0 ? n : 0] = '\0';
	close(c->fd);
	unlink(c->path);
	return text;
}

#endif
