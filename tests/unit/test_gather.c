// SPDX-License-Identifier: MIT
/*
 * Gathering a fleet (lib/fleet/fleet.c, gathered.c): each form of
 * gathered output with exact results, junk, bad input, duplicates, and
 * 10 000 nodes by name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fleet/fleet.h"
#include "fleet/gathered.h"
#include "test.h"

static char err[1024];

#define DOC(host) "{\"checks\":[{\"status\":\"ok\",\"id\":\"devices\",\"found\":\"mlx5_0\",\"fix\":null}]," \
		  "\"node\":{\"hostname\":" host "}}"

/* Feed @lines (NULL-terminated) as lines 1, 2, ... of gathered output; the first error. */
static int feed(struct fleet *fleet, const char *const *lines)
{
	unsigned long i;
	int ret;

	err[0] = '\0';
	for (i = 0; lines[i]; i++)
		if ((ret = fleet_feed_output(fleet, lines[i], i + 1, err, sizeof(err))))
			return ret;
	return fleet_finish(fleet, err, sizeof(err));
}

static const char *json(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* "name:doc|name:error" for each node, in order. */
static const char *outcome(const struct fleet *fleet)
{
	static char out[4096];
	size_t i, off = 0;

	out[0] = '\0';
	for (i = 0; i < fleet->n && off < sizeof(out); i++) {
		const struct fleet_node *nd = fleet->nodes[i];

		off += (size_t)snprintf(out + off, sizeof(out) - off, "%s%s:%s", i ? "|" : "", nd->name,
					nd->doc ? "doc" : nd->error);
	}
	return out;
}

static void pdsh_lines_one_document_each(void)
{
	const char *lines[] = { "lab-a: " DOC("null"), "lab-b: " DOC("null"), "", NULL };
	struct fleet fleet;

	fleet_init(&fleet);
	CHECK_INT(feed(&fleet, lines), 0);
	CHECK_STR(outcome(&fleet), "lab-a:doc|lab-b:doc");
	CHECK_INT(fleet.nodes[0]->rc, -1);
	CHECK_INT(fleet_reached(&fleet), 2);
	fleet_free(&fleet);
}

static void pretty_documents_over_many_lines(void)
{
	const char *lines[] = {
		"lab-b: {", "lab-a: {",
		"lab-b:   \"checks\": [", "lab-a:   \"checks\": [],",
		"lab-b:     { \"status\": \"warn\", \"id\": \"mtu\", \"found\": \"eth0 MTU 1500\", \"fix\": \"x\" }",
		"lab-a:   \"node\": { \"kernel\": \"6.1\" }",
		"lab-b:   ]", "lab-a: }", "lab-b: }", NULL
	};
	struct fleet fleet;

	fleet_init(&fleet);
	CHECK_INT(feed(&fleet, lines), 0);
	CHECK_STR(outcome(&fleet), "lab-a:doc|lab-b:doc");
	CHECK_STR(fleet.nodes[1]->doc,
		  "{\"checks\":[{\"status\":\"warn\",\"id\":\"mtu\",\"found\":\"eth0 MTU 1500\",\"fix\":\"x\"}]}");
	fleet_free(&fleet);
}

/* srun -l: tasks take their documents' hostnames, or srun's word, or stay "task N". */
static void srun_tasks_named_by_their_documents(void)
{
	const char *lines[] = {
		"0: " DOC("\"gpu07\""), " 1: " DOC("null"), "02: bash: rdmactl: command not found",
		"3: " DOC("\"bad name\""),
		"srun: error: gpu09: task 2: Exited with exit code 127",
		"srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", NULL
	};
	struct fleet fleet;

	fleet_init(&fleet);
	CHECK_INT(feed(&fleet, lines), 0);
	CHECK_STR(outcome(&fleet), "gpu07:doc|gpu09:srun: Exited with exit code 127; output is not a "
		  "doctor document (line 3): 'bash: rdmactl: command not found'|task 1:doc|task 3:doc");
	CHECK(fleet_find(&fleet, "gpu09") && fleet_find(&fleet, "gpu09")->rc == 127);
	CHECK_INT(json_object_array_length(fleet.notes), 1);
	CHECK_STR(json_object_get_string(json_object_array_get_idx(fleet.notes, 0)),
		  "line 6: srun: Job step aborted: Waiting up to 32 seconds for job step to finish.");
	fleet_free(&fleet);
}

/* With 2>&1, pdsh's and clush's own lines give exit codes and causes. */
static void launcher_lines_name_causes(void)
{
	const char *lines[] = {
		"node1: " DOC("null"),
		"pdsh@login: node1: ssh exited with exit code 1",
		"pdsh@login: node2: connect: Connection refused",
		"node3: ssh: connect to host node3 port 22: No route to host",
		"clush: node[3-4] (2): exited with exit code 255",
		"clush: node5: command timeout", "node5: {\"checks\": [", NULL
	};
	struct fleet fleet;

	fleet_init(&fleet);
	CHECK_INT(feed(&fleet, lines), 0);
	CHECK_STR(outcome(&fleet),
		  "node1:doc|node2:pdsh: connect: Connection refused|"
		  "node3:clush: exited with exit code 255; output is not a doctor document (line 4): "
		  "'ssh: connect to host node3 port 22: No route to host'|"
		  "node4:clush: exited with exit code 255|"
		  "node5:clush: command timeout; output is not a doctor document (line 7): "
		  "the document is cut short after 13 bytes: '{\"checks\": ['");
	CHECK(fleet_find(&fleet, "node1") && fleet_find(&fleet, "node1")->rc == 1);
	CHECK(fleet_find(&fleet, "node4") && fleet_find(&fleet, "node4")->rc == 255);
	fleet_free(&fleet);
}

/* Text that is not a doctor document fails its node, escaped; the rest stand. */
static void junk_fails_its_node(void)
{
	const char *lines[] = {
		"n1: [1, 2]", "n2: {\"checks\": 3}", "n3: \x1b]0;pwned\x07 \xff",
		"n4: {\"checks\": [{\"status\": \"bad\", \"id\": \"x\"}]}", "n5: " DOC("null") " trailing",
		"n6: null", "n7: {\"checks\": [], \"node\": []}", "n8:", NULL
	};
	struct fleet fleet;

	fleet_init(&fleet);
	CHECK_INT(feed(&fleet, lines), 0);
	CHECK_STR(outcome(&fleet),
		  "n1:output is not a doctor document (line 1): a JSON array|"
		  "n2:output is not a doctor document (line 2): a JSON object without a \"checks\" array|"
		  "n3:output is not a doctor document (line 3): '\\x1b]0;pwned\\x07 \\xff'|"
		  "n4:output is not a doctor document (line 4): 'bad' in checks[0] is no status (ok, warn, fail, skip)|"
		  "n5:output is not a doctor document (line 5): text after the document: 'trailing'|"
		  "n6:output is not a doctor document (line 6): JSON null|"
		  "n7:output is not a doctor document (line 7): its \"node\" is not an object|"
		  "n8:no output");
	fleet_free(&fleet);
}

/* With 2>&1 a node's stderr joins its document: the document is taken, the rest noted. */
static void document_beside_stderr_lines(void)
{
	const char *lines[] = {
		"lab-a: Warning: Permanently added 'lab-a' (ED25519) to the list of known hosts.",
		"lab-a: {", "lab-a:   \"checks\": []", "lab-a: }",
		"lab-b: " DOC("null"),
		"lab-b: rdmactl doctor: warning: cannot read /sys/class/net/eth0/mtu: Permission denied",
		"lab-c: {\"checks\": []} and more", NULL
	};
	struct fleet fleet;

	fleet_init(&fleet);
	CHECK_INT(feed(&fleet, lines), 0);
	CHECK_STR(outcome(&fleet), "lab-a:doc|lab-b:doc|lab-c:output is not a doctor document (line 7): "
		  "text after the document: 'and more'");
	CHECK_STR(json(fleet.notes),
		  "[\"lab-a (line 1): lines beside its document: 'Warning: Permanently added 'lab-a' "
		  "(ED25519) to the list of known hosts.'\",\"lab-b (line 5): lines beside its document: "
		  "'rdmactl doctor: warning: cannot read /sys/class/net/eth0/mtu: Permission denied'\"]");
	fleet_free(&fleet);
}

static int feed_one(const char *line)
{
	struct fleet fleet;
	int ret;

	fleet_init(&fleet);
	err[0] = '\0';
	ret = fleet_feed_output(&fleet, line, 7, err, sizeof(err));
	fleet_free(&fleet);
	return ret;
}

static void bad_lines_are_named(void)
{
	CHECK_INT(feed_one("{\"checks\": []}"), -EINVAL);
	CHECK_STR(err, "no 'HOST: ' prefix on '{\"checks\": []}': give pdsh or clush output with its "
		  "'HOST: ' prefixes (not pdsh -N, not clush -b), srun -l output, or a directory of "
		  "HOST.json files");
	CHECK_INT(feed_one("no\x1b[2Jde: {}"), -EINVAL);
	CHECK(!strncmp(err, "'no\\x1b[2Jde' is not a host name (letters, digits, '.', '_', '-'): ", 65));
	CHECK_INT(feed_one("-x: {}"), -EINVAL);
	CHECK(!strncmp(err, "'-x' is not a host name", 23));
	CHECK_INT(feed_one("12:30:01 kernel: eth0 up"), -EINVAL);
	CHECK(!strncmp(err, "no 'HOST: ' prefix on '12:30:01 kernel: eth0 up'", 48));
	CHECK_INT(feed_one("   "), 0);
}

static void second_document_is_refused(void)
{
	const char *lines[] = { "lab-a: {\"checks\": []}", "lab-b: {\"checks\": []}",
				"lab-a: {\"checks\": []}", NULL };
	struct fleet fleet;

	fleet_init(&fleet);
	CHECK_INT(feed(&fleet, lines), -EINVAL);
	CHECK_STR(err, "a second document for 'lab-a' (its first began on line 1): give each node's "
		  "output once");
	fleet_free(&fleet);
	/* Through the launcher's API the node fails instead. */
	fleet_init(&fleet);
	CHECK_INT(fleet_feed_line(&fleet, "n", "{\"checks\": []}"), 0);
	CHECK_INT(fleet_feed_line(&fleet, "n", "{\"checks\": []}"), -EEXIST);
	CHECK_INT(fleet_feed_line(&fleet, "n", "more"), 0);
	CHECK_INT(fleet_finish(&fleet, err, sizeof(err)), 0);
	CHECK_STR(outcome(&fleet), "n:a second document began after the first ended");
	fleet_free(&fleet);
}

static void two_tasks_on_one_host(void)
{
	const char *lines[] = { "0: " DOC("\"gpu01\""), "1: " DOC("\"gpu01\""), NULL };
	struct fleet fleet;

	fleet_init(&fleet);
	CHECK_INT(feed(&fleet, lines), -EEXIST);
	CHECK_STR(err, "srun tasks 0 and 1 both ran on host 'gpu01' (lines 1 and 2): run one srun "
		  "task per node (srun --ntasks-per-node=1)");
	fleet_free(&fleet);
}

/* The launcher's API: nodes added first, lines, failures and exit codes. */
static void launcher_api(void)
{
	struct fleet fleet;
	struct fleet_node *nd;

	fleet_init(&fleet);
	CHECK_INT(fleet_add(&fleet, "node10", &nd), 0);
	CHECK_INT(fleet_add(&fleet, "node9", NULL), 0);
	CHECK_INT(fleet_add(&fleet, "node2", NULL), 0);
	CHECK_INT(fleet_feed_line(&fleet, "node10", "{\"checks\":"), 0);
	CHECK_INT(fleet_feed_line(&fleet, "node10", "[]}"), 0);
	CHECK_INT(fleet_node_fail(&fleet, "node9", "timed out after %d s", 60), 0);
	CHECK_INT(fleet_node_fail(&fleet, "node9", "killed"), 0);
	CHECK_INT(fleet_node_rc(&fleet, "node2", 2), 0);
	CHECK_INT(fleet_finish(&fleet, err, sizeof(err)), 0);
	CHECK_STR(outcome(&fleet), "node2:no output (exit code 2)|node9:timed out after 60 s; killed|node10:doc");
	CHECK(fleet_find(&fleet, "node10") == nd);
	fleet_free(&fleet);
}

static const char *tmpdir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/rdmactl-gather.XXXXXX");
	return mkdtemp(dir);
}

static void write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
}

static void directory_of_host_files(void)
{
	const char *dir = tmpdir();
	char sub[512];
	struct fleet fleet;

	write_file(dir, "lab-b.json", DOC("null"), strlen(DOC("null")));
	write_file(dir, "lab-a.json", "{\n  \"checks\": []\n}\n", 19);
	write_file(dir, "lab-c.json", "oops", 4);
	write_file(dir, "lab-d.json", "{\"checks\":[]}\0x", 15);
	snprintf(sub, sizeof(sub), "%s/lab-e.json", dir);
	CHECK_INT(mkfifo(sub, 0600), 0);	/* opened without blocking, and refused */
	write_file(dir, "README", "not read", 8);
	write_file(dir, ".hidden.json", "not read", 8);
	fleet_init(&fleet);
	CHECK_INT(fleet_read_gathered(&fleet, dir, err, sizeof(err)), 0);
	CHECK_INT(fleet_finish(&fleet, err, sizeof(err)), 0);
	CHECK_STR(outcome(&fleet), "lab-a:doc|lab-b:doc|lab-c:output is not a doctor document: 'oops'|"
		  "lab-d:lab-d.json holds a NUL byte: binary, not a doctor document|"
		  "lab-e:lab-e.json is not a regular file");
	fleet_free(&fleet);
	/* A file that names no host: the input is refused. */
	write_file(dir, "bad\x1bname.json", "{}", 2);
	fleet_init(&fleet);
	CHECK_INT(fleet_read_gathered(&fleet, dir, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "'bad\\x1bname.json' does not name a host (letters, digits, '.', '_', '-'): "
		  "name each file HOST.json");
	fleet_free(&fleet);
	snprintf(sub, sizeof(sub), "%s/empty", dir);
	mkdir(sub, 0700);
	fleet_init(&fleet);
	CHECK_INT(fleet_read_gathered(&fleet, sub, err, sizeof(err)), -EINVAL);
	CHECK(!strncmp(err, "no HOST.json file in the directory: ", 36));
	fleet_free(&fleet);
	CHECK_INT(system("rm -rf /tmp/rdmactl-gather.*"), 0);
}

/* Binary data, a line longer than a document may be, a file that is not there. */
static void unreadable_input(void)
{
	const char *dir = tmpdir();
	char path[512];
	size_t big = FLEET_DOC_MAX + 10;
	char *line = malloc(big);
	struct fleet fleet;

	write_file(dir, "bin", "lab-a: {}\nlab-a: \x7f" "ELF\0\0", 23);
	snprintf(path, sizeof(path), "%s/bin", dir);
	fleet_init(&fleet);
	CHECK_INT(fleet_read_gathered(&fleet, path, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "line 2: a NUL byte: binary data, not the text output of pdsh, clush or srun");
	fleet_free(&fleet);
	if (line) {
		memset(line, 'x', big);
		memcpy(line, "lab-a: ", 7);
		write_file(dir, "long", line, big);
		snprintf(path, sizeof(path), "%s/long", dir);
		fleet_init(&fleet);
		CHECK_INT(fleet_read_gathered(&fleet, path, err, sizeof(err)), -EINVAL);
		CHECK_STR(err, "line 1 is longer than 4 MiB: no doctor output has such lines");
		fleet_free(&fleet);
		free(line);
	}
	snprintf(path, sizeof(path), "%s/none", dir);
	fleet_init(&fleet);
	CHECK_INT(fleet_read_gathered(&fleet, path, err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "cannot open it: No such file or directory");
	fleet_free(&fleet);
	write_file(dir, "blank", "\n\n", 2);
	snprintf(path, sizeof(path), "%s/blank", dir);
	fleet_init(&fleet);
	CHECK_INT(fleet_read_gathered(&fleet, path, err, sizeof(err)), -EINVAL);
	CHECK(!strncmp(err, "no node output in it: ", 22));
	fleet_free(&fleet);
	CHECK_INT(system("rm -rf /tmp/rdmactl-gather.*"), 0);
}

/* 10 000 nodes: added, found, sorted in well under a second. */
static void ten_thousand_nodes(void)
{
	struct fleet fleet;
	char name[32];
	clock_t t0 = clock();
	int i, found = 0;

	fleet_init(&fleet);
	for (i = 10000; i > 0; i--) {
		snprintf(name, sizeof(name), "node%05d", i);
		CHECK_INT(fleet_feed_line(&fleet, name, "{\"checks\": []}"), 0);
	}
	for (i = 1; i <= 10000; i++) {
		snprintf(name, sizeof(name), "node%05d", i);
		found += fleet_find(&fleet, name) != NULL;
	}
	CHECK_INT(found, 10000);
	CHECK_INT(fleet_finish(&fleet, err, sizeof(err)), 0);
	CHECK_STR(fleet.nodes[0]->name, "node00001");
	CHECK_STR(fleet.nodes[9999]->name, "node10000");
	CHECK_INT(fleet_reached(&fleet), 10000);
	CHECK(fleet_find(&fleet, "node05000") == fleet.nodes[4999]);
	CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
	fleet_free(&fleet);
}

int main(void)
{
	RUN("gather", pdsh_lines_one_document_each);
	RUN("gather", pretty_documents_over_many_lines);
	RUN("gather", srun_tasks_named_by_their_documents);
	RUN("gather", launcher_lines_name_causes);
	RUN("gather", junk_fails_its_node);
	RUN("gather", document_beside_stderr_lines);
	RUN("gather", bad_lines_are_named);
	RUN("gather", second_document_is_refused);
	RUN("gather", two_tasks_on_one_host);
	RUN("gather", launcher_api);
	RUN("gather", directory_of_host_files);
	RUN("gather", unreadable_input);
	RUN("gather", ten_thousand_nodes);
	TEST_EXIT();
}
