// SPDX-License-Identifier: MIT
/*
 * Gathered doctor output (lib/fleet/gathered.c, fleet.c) and the report
 * made of it (report.c, drift.c).  Input: a file of pdsh, clush or srun -l
 * output, read as `rdmactl doctor --gathered FILE` reads it; or, when it
 * starts with "== ", a tree (fuzz.h) whose records under g/ are a
 * directory of HOST.json files.
 *
 * Besides not crashing: an error is one printable line; once finished,
 * every node has a document or a printable one-line reason, never both,
 * and names are distinct; the report's counts add up and its -j document
 * is valid JSON; its text lines fit the report's width.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/ctx.h"
#include "base/output.h"
#include "base/text.h"
#include "fleet/fleet.h"
#include "fleet/gathered.h"
#include "fleet/summary.h"
#include "fuzz.h"

static const char *const prefixes[] = { "g/", NULL };

static void check_line(const char *s, const char *what)
{
	if (!s[0])
		fuzz_fail("%s is empty", what);
	if (!text_is_clean(s, 0))
		fuzz_fail("%s is not one printable line: '%.200s'", what, s);
}

static void check_err(int ret, const char *err)
{
	if (ret != -EINVAL && ret != -E2BIG && ret != -ENOSPC && ret != -ENOMEM && ret != -EEXIST &&
	    ret != -ENOENT &&
	    ret != -EISDIR && ret != -EACCES)
		fuzz_fail("reading gave %d (%s)", ret, err);
	check_line(err, "the error");
}

static void check_nodes(const struct fleet *cl)
{
	size_t i;

	for (i = 0; i < cl->n; i++) {
		const struct fleet_node *nd = cl->nodes[i];

		if (!nd->doc == !nd->error)
			fuzz_fail("node '%s': a document and a reason, or neither", nd->name);
		if (nd->error)
			check_line(nd->error, "a node's reason");
		if (i && !strcmp(cl->nodes[i - 1]->name, nd->name))
			fuzz_fail("node '%s' twice", nd->name);
		if (fleet_find(cl, nd->name) != nd)
			fuzz_fail("node '%s' not found by name", nd->name);
	}
}

/* The text report, into a file: each line within the width. */
static void check_text(const struct fleet *cl)
{
	struct fleet_counts c;
	struct ctx ctx = { .root = "" };
	char path[300], line[8192];
	int fd, saved;
	FILE *f;

	snprintf(path, sizeof(path), "%s/report.txt", fuzz_root);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	saved = dup(1);
	fflush(stdout);
	dup2(fd, 1);
	if (fleet_summary(&ctx, cl, &c) || output_finish(&ctx))
		fuzz_fail("the text report failed");
	dup2(saved, 1);
	close(saved);
	close(fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strlen(line) > FLEET_WIDTH + 1)
			fuzz_fail("a line of %zu columns: '%.120s'", strlen(line) - 1, line);
	if (f)
		fclose(f);
}

static void check_report(const struct fleet *cl)
{
	struct fleet_counts c;
	struct ctx ctx = { .json = true, .root = "" };
	const char *text;
	struct json_object *back;

	if (fleet_summary(&ctx, cl, &c))
		fuzz_fail("the report failed");
	if (c.nodes != cl->n || c.failed + c.warned + c.unreachable > c.nodes ||
	    c.unreachable != cl->n - fleet_reached(cl))
		fuzz_fail("counts: %zu nodes, %zu failed, %zu warned, %zu unreachable", c.nodes,
			  c.failed, c.warned, c.unreachable);
	json_make_utf8(ctx.jroot);
	text = json_object_to_json_string_ext(ctx.jroot, JSON_C_TO_STRING_PLAIN);
	back = json_tokener_parse(text);
	if (!back)
		fuzz_fail("the -j document does not parse back");
	json_object_put(back);
	json_object_put(ctx.jroot);
	check_text(cl);
}

/* The path to read: the tree's directory g/, or the input as one file. */
static const char *input_path(const uint8_t *data, size_t size)
{
	static char path[300];

	fuzz_root_clear();
	if (size >= 3 && !memcmp(data, "== ", 3)) {
		fuzz_tree_write(data, size, prefixes);
		snprintf(path, sizeof(path), "%s/g", fuzz_root);
		return path;
	}
	if (fuzz_write("out", data, size))
		fuzz_fail("cannot write the input");
	snprintf(path, sizeof(path), "%s/out", fuzz_root);
	return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fleet cl;
	char err[1024];
	int ret;

	if (size > 1 << 20)
		return 0;
	fuzz_root_init();
	fleet_init(&cl);
	err[0] = '\0';
	ret = fleet_read_gathered(&cl, input_path(data, size), err, sizeof(err));
	if (!ret)
		ret = fleet_finish(&cl, err, sizeof(err));
	if (ret) {
		check_err(ret, err);
	} else {
		check_nodes(&cl);
		check_report(&cl);
	}
	fleet_free(&cl);
	return 0;
}
