// SPDX-License-Identifier: MIT
/*
 * Hostlists: expansion, errors, @FILE, exclusion and folding.
 *
 * With arguments it is the driver of tests/cli/hostlist-ref.sh, which puts
 * the same inputs through Slurm's scontrol and ClusterShell's nodeset:
 *   test_hostlist expand HOSTLIST   one name a line; exit 2 and the message
 *   test_hostlist fold              names on stdin, one a line: the hostlist
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch/hostlist.h"
#include "test.h"

static char err[1024];

/* The names of @s joined by spaces, or "error N: MESSAGE". */
static const char *expand(const char *s)
{
	static char out[1 << 16];
	struct hostlist hl;
	size_t i, off = 0;
	int ret;

	hostlist_init(&hl);
	err[0] = '\0';
	ret = hostlist_parse(&hl, s, err, sizeof(err));
	if (ret)
		snprintf(out, sizeof(out), "error %d: %s", ret, err);
	else
		out[0] = '\0';
	for (i = 0; i < hl.n && off < sizeof(out); i++)
		off += (size_t)snprintf(out + off, sizeof(out) - off, "%s%s", i ? " " : "", hl.names[i]);
	hostlist_free(&hl);
	return out;
}

/* The fold of the names in @spaced (separated by spaces), or "error N". */
static const char *fold(const char *spaced)
{
	static char out[4096];
	const char *names[256];
	char copy[4096], *save, *tok, *s;
	size_t n = 0;
	int ret;

	snprintf(copy, sizeof(copy), "%s", spaced);
	for (tok = strtok_r(copy, " ", &save); tok && n < 256; tok = strtok_r(NULL, " ", &save))
		names[n++] = tok;
	ret = hostlist_fold(names, n, &s);
	if (ret) {
		snprintf(out, sizeof(out), "error %d", ret);
		return out;
	}
	snprintf(out, sizeof(out), "%s", s);
	free(s);
	return out;
}

static void expands_slurm_syntax(void)
{
	struct hostlist hl;

	hostlist_init(&hl);
	CHECK_INT(hostlist_parse(&hl, "node[01-64]", err, sizeof(err)), 0);
	CHECK_INT(hl.n, 64);
	CHECK_STR(hl.names[0], "node01");
	CHECK_STR(hl.names[63], "node64");
	hostlist_free(&hl);
	CHECK_STR(expand("node[1-3,7],gpu[001-004]"),
		  "node1 node2 node3 node7 gpu001 gpu002 gpu003 gpu004");
	CHECK_STR(expand("10.99.0.[1-4]"), "10.99.0.1 10.99.0.2 10.99.0.3 10.99.0.4");
	CHECK_STR(expand("lab-a"), "lab-a");
	CHECK_STR(expand("[1-2]"), "1 2");
	CHECK_STR(expand("node01[1-2]"), "node011 node012");
	/* Blanks separate items too, as in a file or "$(cat hosts)". */
	CHECK_STR(expand(" a b,\tc\n d, e "), "a b c d e");
}

static void keeps_zero_padding(void)
{
	CHECK_STR(expand("node[08-10]"), "node08 node09 node10");
	CHECK_STR(expand("node[9-10]"), "node9 node10");
	CHECK_STR(expand("node[00-02]"), "node00 node01 node02");
	CHECK_STR(expand("node[0-1]"), "node0 node1");
	CHECK_STR(expand("n[098-101]"), "n098 n099 n100 n101");
	/* The low end sets the width, as Slurm writes node01..node100. */
	CHECK_STR(expand("node[98-100]"), "node98 node99 node100");
	CHECK_STR(expand("node[099-100]"), "node099 node100");
	CHECK_STR(expand("node[01-3]"), "node01 node02 node03");
	CHECK_STR(expand("node[1,01,001]"), "node1 node01 node001");
}

static void expands_groups_last_fastest(void)
{
	CHECK_STR(expand("rack[1-2]-node[1-3]"),
		  "rack1-node1 rack1-node2 rack1-node3 rack2-node1 rack2-node2 rack2-node3");
	/* nodeset's order; Slurm gives a1b1c1 a1b1c2 a2b1c1 a2b1c2 a1b2c1 ... */
	CHECK_STR(expand("a[1-2]b[1-2]c[1-2]"), "a1b1c1 a1b1c2 a1b2c1 a1b2c2 a2b1c1 a2b1c2 a2b2c1 a2b2c2");
	CHECK_STR(expand("node[1-2][3-4]"), "node13 node14 node23 node24");
	CHECK_STR(expand("node[1-2]-ib"), "node1-ib node2-ib");
	CHECK_STR(expand("x[1-2]y[7]z"), "x1y7z x2y7z");
}

static void drops_duplicates_keeping_the_first(void)
{
	CHECK_STR(expand("b,a,b"), "b a");
	CHECK_STR(expand("node[1,1,2]"), "node1 node2");
	CHECK_STR(expand("n[3-4],n[1-5]"), "n3 n4 n1 n2 n5");
	/* Same number, another name. */
	CHECK_STR(expand("n1,n01"), "n1 n01");
}

static void refuses_malformed_lists(void)
{
	static const struct {
		const char *in, *out;
	} bad[] = {
		{ "node[3-1]", "error -22: invalid hostlist 'node[3-1]': range 3-1 goes down" },
		{ "node[", "error -22: invalid hostlist 'node[': '[' is not closed" },
		{ "node[1-2", "error -22: invalid hostlist 'node[1-2': '[' is not closed" },
		{ "node[1-2,gpu3", "error -22: invalid hostlist 'node[1-2,gpu3': '[' is not closed" },
		{ "node]", "error -22: invalid hostlist 'node]': ']' without '['" },
		{ "node[1]]", "error -22: invalid hostlist 'node[1]]': ']' without '['" },
		{ "node[1[2]]", "error -22: invalid hostlist 'node[1[2]]': '[' inside brackets" },
		{ "node[a-b]", "error -22: invalid hostlist 'node[a-b]': 'a-b' is not a number or a range" },
		{ "node[1-]", "error -22: invalid hostlist 'node[1-]': '1-' is not a number or a range" },
		{ "node[1-2-3]", "error -22: invalid hostlist 'node[1-2-3]': '1-2-3' is not a number or a range" },
		{ "node[1-9/2]", "error -22: invalid hostlist 'node[1-9/2]': '1-9/2' is not a number or a range" },
		{ "node[1, 2]", "error -22: invalid hostlist 'node[1, 2]': ' 2' is not a number or a range" },
		{ "node[]", "error -22: invalid hostlist 'node[]': empty brackets '[]'" },
		{ "node[1,,2]", "error -22: invalid hostlist 'node[1,,2]': empty range in '[1,,2]'" },
		{ "node[1,]", "error -22: invalid hostlist 'node[1,]': empty range in '[1,]'" },
		{ "node[1-010]",
		  "error -22: invalid hostlist 'node[1-010]': range 1-010: the high end is padded to 3 digits, the low end has 1" },
		{ "n[1234567890123456789]",
		  "error -22: invalid hostlist 'n[1234567890123456789]': number '1234567890123456789' has more than 18 digits" },
		{ "a,,b", "error -22: invalid hostlist 'a,,b': empty item between two commas" },
		{ ",a", "error -22: invalid hostlist ',a': empty item at the start" },
		{ "a,", "error -22: invalid hostlist 'a,': empty item at the end" },
		{ "a, ,b", "error -22: invalid hostlist 'a, ,b': empty item between two commas" },
		{ "", "error -22: invalid hostlist '': names no host" },
		{ " \t", "error -22: invalid hostlist ' \\x09': names no host" },
		{ "no!de", "error -22: invalid hostlist 'no!de': '!' cannot be in a host name" },
		{ "lab-[b,d]", "error -22: invalid hostlist 'lab-[b,d]': 'b' is not a number or a range" },
		{ "@group", "error -22: invalid hostlist '@group': '@' cannot be in a host name" },
		{ "-oProxyCommand=x", "error -22: invalid hostlist '-oProxyCommand=x': '=' cannot be in a host name" },
		{ "-a[1-2]", "error -22: invalid hostlist '-a[1-2]': a host name cannot start with '-'" },
		{ "n[1-100000]", "error -7: invalid hostlist 'n[1-100000]': more than 65536 hosts" },
		{ "n[1-65537]", "error -7: invalid hostlist 'n[1-65537]': more than 65536 hosts" },
		{ "a[1-300]b[1-300]", "error -7: invalid hostlist 'a[1-300]b[1-300]': more than 65536 hosts" },
		{ "n[1-40000],m[1-40000]",
		  "error -7: invalid hostlist 'n[1-40000],m[1-40000]': more than 65536 hosts in all" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_STR(expand(bad[i].in), bad[i].out);
}

/* The cap is checked before expanding, so huge products fail at once. */
static void caps_hosts_before_expanding(void)
{
	struct hostlist hl;

	hostlist_init(&hl);
	CHECK_INT(hostlist_parse(&hl, "n[1-65536]", err, sizeof(err)), 0);
	CHECK_INT(hl.n, 65536);
	CHECK_STR(hl.names[65535], "n65536");
	CHECK_INT(hostlist_parse(&hl, "x", err, sizeof(err)), -E2BIG);
	CHECK_STR(err, "invalid hostlist 'x': more than 65536 hosts in all");
	hostlist_free(&hl);
	CHECK_STR(expand("a[0-999999999999999999]b[0-999999999999999999]c[0-999999999999999999]"),
		  "error -7: invalid hostlist 'a[0-999999999999999999]b[0-99999...99999999]c[0-999999999999999999]': "
		  "more than 65536 hosts");
	/* Duplicates count as written: the work is bounded by the cap. */
	CHECK(!strncmp(expand("n[1-40000],n[1-40000]"), "error -7:", 9));
}

static void names_stay_short(void)
{
	char name[300];

	memset(name, 'a', 255);
	name[255] = '\0';
	CHECK(!strncmp(expand(name), "aaa", 3));
	strcat(name, "[1-2]");
	CHECK(strstr(expand(name), "it makes host names longer than 255 characters") != NULL);
}

/* No byte from the input reaches the terminal raw; long input loses its middle. */
static void messages_escape_and_shorten(void)
{
	char in[400];

	CHECK_STR(expand("no\x1b]0;x\x07"),
		  "error -22: invalid hostlist 'no\\x1b]0;x\\x07': '\\x1b' cannot be in a host name");
	memset(in, 'a', 200);
	strcpy(in + 200, ",n[3-1]");
	CHECK_STR(expand(in), "error -22: invalid hostlist 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."
			      "aaaaaaaaaaaaaaaaaaaaaaaaa,n[3-1]': range 3-1 goes down");
}

static void errors_leave_the_list_as_it_was(void)
{
	struct hostlist hl;

	hostlist_init(&hl);
	CHECK_INT(hostlist_parse(&hl, "a,b", err, sizeof(err)), 0);
	CHECK_INT(hostlist_parse(&hl, "c,a,d[2-1]", err, sizeof(err)), -EINVAL);
	CHECK_INT(hl.n, 2);
	CHECK(!hostlist_has(&hl, "c"));
	CHECK(hostlist_has(&hl, "a"));
	CHECK_INT(hostlist_parse(&hl, "c", err, sizeof(err)), 0);
	CHECK_INT(hl.n, 3);
	CHECK_INT(hl.written, 3);
	hostlist_free(&hl);
}

static void excludes_names(void)
{
	struct hostlist hl, x;
	char *s;

	hostlist_init(&hl);
	hostlist_init(&x);
	CHECK_INT(hostlist_parse(&hl, "node[01-10]", err, sizeof(err)), 0);
	CHECK_INT(hostlist_parse(&x, "node[03-04],node07,node99,node3", err, sizeof(err)), 0);
	CHECK_INT(hostlist_exclude(&hl, &x), 0);
	CHECK_INT(hl.n, 7);
	CHECK(!hostlist_has(&hl, "node03"));
	CHECK(hostlist_has(&hl, "node05"));
	CHECK_INT(hostlist_str(&hl, &s), 0);
	CHECK_STR(s, "node[01-02,05-06,08-10]");
	free(s);
	/* Names added after an exclusion are found and not doubled. */
	CHECK_INT(hostlist_parse(&hl, "node03,node05", err, sizeof(err)), 0);
	CHECK_INT(hl.n, 8);
	CHECK_STR(hl.names[7], "node03");
	hostlist_free(&x);
	CHECK_INT(hostlist_exclude(&hl, &x), 0);
	CHECK_INT(hl.n, 8);
	hostlist_free(&hl);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void reads_files(void)
{
	char path[] = "/tmp/test_hostlist.XXXXXX", arg[64], want[128];
	struct hostlist hl;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	write_file(path, "# the lab\n\nlab-a\n  lab-[b]  # b is back\nnode[1-2],gpu1 gpu2\r\n\t\nlab-a\n");
	hostlist_init(&hl);
	snprintf(arg, sizeof(arg), "@%s", path);
	CHECK_INT(hostlist_parse_arg(&hl, arg, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:4: invalid hostlist 'lab-[b]': 'b' is not a number or a range", path);
	CHECK_STR(err, want);
	CHECK_INT(hl.n, 0);
	write_file(path, "# the lab\n\nlab-a\n  lab-b  # b is back\nnode[1-2],gpu1 gpu2\r\n\t\nlab-a");
	CHECK_INT(hostlist_parse_arg(&hl, arg, err, sizeof(err)), 0);
	CHECK_STR(expand("x"), "x");
	CHECK_INT(hl.n, 6);
	CHECK_STR(hl.names[1], "lab-b");
	CHECK_STR(hl.names[5], "gpu2");
	/* A NUL byte is a bad character, not the end of the line. */
	write_file(path, "a\n");
	fd = open(path, O_WRONLY | O_APPEND);
	CHECK(write(fd, "b\0c\n", 4) == 4);
	close(fd);
	CHECK_INT(hostlist_read_file(&hl, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:2: invalid hostlist 'b\\x00c': '\\x00' cannot be in a host name", path);
	CHECK_STR(err, want);
	CHECK_INT(hl.n, 6);
	unlink(path);
	CHECK_INT(hostlist_parse_arg(&hl, arg, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "Failed to read hostlist file '%s': No such file or directory", path);
	CHECK_STR(err, want);
	/* Not a regular file: refused unread (a FIFO nobody writes would block for ever). */
	CHECK_INT(hostlist_read_file(&hl, "/", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "Failed to read hostlist file '/': it is a directory, not a regular file");
	CHECK_INT(hostlist_read_file(&hl, "/dev/null", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "Failed to read hostlist file '/dev/null': it is a character device, not a regular file");
	/* Comments only: an empty list, refused as " " is. */
	write_file(path, "# none yet\n\n   # still none\n");
	CHECK_INT(hostlist_read_file(&hl, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "invalid hostlist file '%s': names no host", path);
	CHECK_STR(err, want);
	CHECK_INT(hl.n, 6);
	unlink(path);
	hostlist_free(&hl);
}

static void adds_single_names(void)
{
	struct hostlist hl;

	hostlist_init(&hl);
	CHECK_INT(hostlist_add(&hl, "lab-a", err, sizeof(err)), 0);
	CHECK_INT(hostlist_add(&hl, "lab-a", err, sizeof(err)), 0);
	CHECK_INT(hl.n, 1);
	CHECK_INT(hostlist_add(&hl, "lab[1-2]", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "invalid host name 'lab[1-2]'");
	CHECK_INT(hostlist_add(&hl, "", err, sizeof(err)), -EINVAL);
	CHECK_INT(hostlist_add(&hl, "a\x1b", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "invalid hostlist 'a\\x1b': '\\x1b' cannot be in a host name");
	CHECK_INT(hl.n, 1);
	hostlist_free(&hl);
}

static void folds_numbers_as_nodeset(void)
{
	CHECK_STR(fold("node01 node02 node03"), "node[01-03]");
	CHECK_STR(fold("node3 node1 node2 node2"), "node[1-3]");
	CHECK_STR(fold("n1 n3 n5 n6 n7"), "n[1,3,5-7]");
	CHECK_STR(fold("node5"), "node5");
	CHECK_STR(fold("x1 y1 x2"), "x[1-2],y1");
	CHECK_STR(fold("a a1 a2 b"), "a,a[1-2],b");
	CHECK_STR(fold("n-x n1"), "n1,n-x");
	CHECK_STR(fold("B1 a1 A2"), "A2,B1,a1");
	CHECK_STR(fold("10.99.0.1 10.99.0.2 10.99.0.3"), "10.99.0.[1-3]");
	CHECK_STR(fold(""), "");
	/* Text never folds; lab-[b,d] would read back as neither tool reads it. */
	CHECK_STR(fold("lab-d lab-b"), "lab-b,lab-d");
}

static void folds_padding_as_nodeset(void)
{
	CHECK_STR(fold("node9 node10"), "node[9-10]");
	CHECK_STR(fold("node09 node10"), "node[09-10]");
	CHECK_STR(fold("node1 node01"), "node[1,01]");
	CHECK_STR(fold("node01 node02 node3"), "node[3,01-02]");
	CHECK_STR(fold("n08 n9 n10"), "n[9,08,10]");
	CHECK_STR(fold("n9 n10 n010"), "n[9-10,010]");
	CHECK_STR(fold("n0 n00 n000"), "n[0,00,000]");
	CHECK_STR(fold("n0 n01"), "n[0,01]");
	CHECK_STR(fold("node001 node002 node010 node100 node1000"), "node[001-002,010,100,1000]");
	CHECK_STR(fold("n099 n100 n101"), "n[099-101]");
	CHECK_STR(fold("n98 n99 n100"), "n[98-100]");
	CHECK_STR(fold("n098 n99 n100"), "n[99,098,100]");
}

static void folds_every_number(void)
{
	CHECK_STR(fold("node1-eth0 node2-eth0"), "node[1-2]-eth0");
	CHECK_STR(fold("node1-eth0 node1-eth1 node2-eth0 node2-eth1"), "node[1-2]-eth[0-1]");
	CHECK_STR(fold("rack1-node1 rack1-node2 rack2-node1"), "rack1-node[1-2],rack2-node1");
	CHECK_STR(fold("a1b1c1 a1b1c2 a2b1c1 a2b1c2"), "a[1-2]b1c[1-2]");
	CHECK_STR(fold("a1b1 a1b2 a2b1 a2b2 a3b1"), "a[1-2]b[1-2],a3b1");
	CHECK_STR(fold("x1y x2y x3z"), "x[1-2]y,x3z");
	CHECK_STR(fold("x1y1 x2y2"), "x1y1,x2y2");
	/* A single b0 and a set b[0-2] that starts with it are not alike. */
	CHECK_STR(fold("a1b0c1 a3b0c1 a3b1c1 a3b2c1"), "a1b0c1,a3b[0-2]c1");
	/* Not a rectangle: nodeset gives a[1-2]b1,a2b2, the same names. */
	CHECK_STR(fold("a1b1 a2b1 a2b2"), "a1b1,a2b[1-2]");
	/* 19 digits are text, 18 a number. */
	CHECK_STR(fold("n1234567890123456789 n1234567890123456788"),
		  "n1234567890123456788,n1234567890123456789");
	CHECK_STR(fold("n123456789012345678 n123456789012345679"), "n[123456789012345678-123456789012345679]");
}

static void fold_refuses_what_would_not_read_back(void)
{
	CHECK_STR(fold("a,b"), "error -22");
	CHECK_STR(fold("a[1]"), "error -22");
	CHECK_STR(fold("-a"), "error -22");
	CHECK_STR(fold("a%s"), "error -22");
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Expanding a fold gives the same names (as a set: a fold sorts). */
static void round_trips(void)
{
	static const char *const lists[] = {
		"node[01-64]", "node[1-3,7],gpu[001-004]", "10.99.0.[1-4],10.99.1.[1-4]",
		"rack[1-4]-node[01-16]", "a[1-2]b[1-3]c[1-2],a3b1c1", "n[1,01,001,0001]",
		"n[8-12],n[008-012],m", "node[01-100]", "x[1-3]y[4-6]z,x4y4z", "lab-a,lab-b,lab-d",
		"a[1-2]b[1-2]c[1-3],a[1-4]b[0-2]c[1-2]",
	};
	struct hostlist a, b;
	size_t i, k;
	char *s;

	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		hostlist_init(&a);
		hostlist_init(&b);
		CHECK_INT(hostlist_parse(&a, lists[i], err, sizeof(err)), 0);
		CHECK_INT(hostlist_str(&a, &s), 0);
		CHECK_INT(hostlist_parse(&b, s, err, sizeof(err)), 0);
		CHECK_INT(b.n, a.n);
		qsort(a.names, a.n, sizeof(char *), name_cmp);
		qsort(b.names, b.n, sizeof(char *), name_cmp);
		for (k = 0; k < a.n && k < b.n; k++)
			CHECK_STR(b.names[k], a.names[k]);
		free(s);
		hostlist_free(&a);
		hostlist_free(&b);
	}
}

/* 100 000 names in a shuffled order fold in O(n log n); no timing is asserted. */
static void folds_100000_names(void)
{
	size_t n = 100000, i;
	char **names = calloc(n, sizeof(*names));
	unsigned int seed = 1;
	char *s = NULL;

	CHECK(names != NULL);
	if (!names)
		return;
	for (i = 0; i < n; i++)
		CHECK(asprintf(&names[i], "node%04zu-ib%zu", i / 100 + 1, i % 100) > 0);
	for (i = n - 1; i > 0; i--) {
		size_t j = (size_t)rand_r(&seed) % (i + 1);
		char *t = names[i];

		names[i] = names[j];
		names[j] = t;
	}
	CHECK_INT(hostlist_fold((const char *const *)names, n, &s), 0);
	CHECK_STR(s, "node[0001-1000]-ib[0-99]");
	free(s);
	for (i = 0; i < n; i++)
		snprintf(names[i], 12, "n%zu", (i * 7919) % n + 1);
	CHECK_INT(hostlist_fold((const char *const *)names, n, &s), 0);
	CHECK_STR(s, "n[1-100000]");
	free(s);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The driver: "expand HOSTLIST" or "fold" (names on stdin). */
static int driver(int argc, char **argv)
{
	struct hostlist hl;
	char *line = NULL, *s;
	size_t cap = 0, i;
	ssize_t len;
	int ret;

	hostlist_init(&hl);
	if (argc == 3 && !strcmp(argv[1], "expand")) {
		ret = hostlist_parse_arg(&hl, argv[2], err, sizeof(err));
		if (ret)
			fprintf(stderr, "%s\n", err);
		for (i = 0; !ret && i < hl.n; i++)
			printf("%s\n", hl.names[i]);
	} else if (argc == 2 && !strcmp(argv[1], "fold")) {
		ret = 0;
		while (!ret && (len = getline(&line, &cap, stdin)) > 0) {
			line[strcspn(line, "\n")] = '\0';
			ret = hostlist_add(&hl, line, err, sizeof(err));
		}
		if (ret || (ret = hostlist_str(&hl, &s)))
			fprintf(stderr, "%s\n", ret == -ENOMEM ? strerror(ENOMEM) : err);
		else
			printf("%s\n", s);
		if (!ret)
			free(s);
		free(line);
	} else {
		fprintf(stderr, "usage: %s [expand HOSTLIST | fold <NAMES]\n", argv[0]);
		ret = -EINVAL;
	}
	hostlist_free(&hl);
	return ret ? 2 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return driver(argc, argv);
	RUN("test_hostlist", expands_slurm_syntax);
	RUN("test_hostlist", keeps_zero_padding);
	RUN("test_hostlist", expands_groups_last_fastest);
	RUN("test_hostlist", drops_duplicates_keeping_the_first);
	RUN("test_hostlist", refuses_malformed_lists);
	RUN("test_hostlist", caps_hosts_before_expanding);
	RUN("test_hostlist", names_stay_short);
	RUN("test_hostlist", messages_escape_and_shorten);
	RUN("test_hostlist", errors_leave_the_list_as_it_was);
	RUN("test_hostlist", excludes_names);
	RUN("test_hostlist", reads_files);
	RUN("test_hostlist", adds_single_names);
	RUN("test_hostlist", folds_numbers_as_nodeset);
	RUN("test_hostlist", folds_padding_as_nodeset);
	RUN("test_hostlist", folds_every_number);
	RUN("test_hostlist", fold_refuses_what_would_not_read_back);
	RUN("test_hostlist", round_trips);
	RUN("test_hostlist", folds_100000_names);
	TEST_EXIT();
}
