/* SPDX-License-Identifier: MIT */
/*
 * The replay driver of make check's fuzz-regress: in place of libFuzzer,
 * it gives every input of the directories named on its command line to
 * the target's LLVMFuzzerTestOneInput once, each in a buffer of exactly
 * its size (so ASan sees a read past its end).  Linked with the
 * sanitized build's own objects (fuzz.mk, fuzz-replay), the replay needs
 * neither clang nor a second sanitized build of lib/: make check built
 * lib/ twice under ASan for it, 43 CPU seconds of its budget.
 *
 * It reads libFuzzer's command line as tests/fuzz/run gives it: "-NAME=VALUE"
 * flags (only -timeout=SECONDS means something here; the others are
 * libFuzzer's and ignored) and directories.  It says what libFuzzer's
 * -runs=0 says for run's verdict: "stat::number_of_executed_units: N" at
 * the end; "fuzz: timeout after N s on FILE" (exit 70) for an input that
 * runs too long; and, after a sanitizer's report, as it ends the
 * process, "fuzz: crash on FILE".  A leak is LeakSanitizer's report at exit.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sanitizer/common_interface_defs.h>

#include "base/file.h"

/* The largest input read (the corpora's are a few KiB; -max_len of make fuzz: 64 KiB). */
#define MAX_INPUT_LEN (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* The input being run, for the crash and timeout lines. */
static char current[PATH_MAX];
static unsigned timeout_s = 10;

static void say_crash(void)
{
	fprintf(stderr, "fuzz: crash on %s\n", current);
}

static void on_alarm(int sig)
{
	char msg[PATH_MAX + 64];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg), "fuzz: timeout after %u s on %s\n", timeout_s, current);
	if (n > 0)
		(void)!write(STDERR_FILENO, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
	_exit(70);
}

/*
 * exact_copy: @path's bytes (file_read_all(), regular files only) in a
 * malloc'd buffer of exactly their size (*len), not file_read_all()'s
 * NUL-terminated one, a byte longer: a read one past the input is ASan's
 * to see.  NULL for what is not a regular file; any other error ends the
 * run with a line naming the file.
 */
static uint8_t *exact_copy(const char *path, size_t *len)
{
	uint8_t *buf;
	char *s;
	int err;

	err = file_read_all(path, MAX_INPUT_LEN, 0, &s, len, NULL);
	if (err == -EINVAL)
		return NULL;
	if (err) {
		fprintf(stderr, "fuzz: cannot read %s: %s\n", path, strerror(-err));
		exit(2);
	}
	/* One byte at least: malloc(0) may give NULL. */
	buf = malloc(*len ? *len : 1);
	if (!buf)
		abort();
	memcpy(buf, s, *len);
	free(s);
	return buf;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* run_dir: every regular file of @dir, in name order; how many were run. */
static unsigned long run_dir(const char *dir)
{
	struct dirent **ents;
	unsigned long runs = 0;
	size_t len;
	uint8_t *buf;
	int i, n;

	n = scandir(dir, &ents, not_hidden, by_name);
	if (n < 0) {
		fprintf(stderr, "fuzz: cannot list %s: %s\n", dir, strerror(errno));
		exit(2);
	}
	for (i = 0; i < n; i++) {
		snprintf(current, sizeof(current), "%s/%s", dir, ents[i]->d_name);
		free(ents[i]);
		buf = exact_copy(current, &len);
		if (!buf)
			continue;
		alarm(timeout_s);
		LLVMFuzzerTestOneInput(buf, len);
		alarm(0);
		free(buf);
		runs++;
	}
	free(ents);
	return runs;
}

int main(int argc, char **argv)
{
	unsigned long runs = 0;
	int i;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	__sanitizer_set_death_callback(say_crash);
	signal(SIGALRM, on_alarm);
	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "-timeout=", 9) == 0)
			timeout_s = (unsigned)strtoul(argv[i] + 9, NULL, 10);
		else if (argv[i][0] != '-')
			runs += run_dir(argv[i]);
	}
	printf("stat::number_of_executed_units: %lu\n", runs);
	return 0;
}
