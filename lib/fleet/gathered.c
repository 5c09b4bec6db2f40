// SPDX-License-Identifier: MIT
/*
 * Output gathered before: `rdmactl doctor --gathered FILE|-|DIR` (see
 * gathered.h).  The lines of pdsh, clush and srun -l, one prefix each:
 *
 *   lab-a: {"checks":[...                         pdsh, clush: the host
 *   lab-a:   "status": "ok",                      (a pretty document too)
 *    2: {"checks":[...                            srun -l: task 2
 *   pdsh@login: lab-e: ssh exited with exit code 255   with 2>&1: the
 *   clush: node[5-6] (2): exited with exit code 127     launchers' own
 *   srun: error: lab-e: task 3: Exited with exit code 127   words on a node
 *
 * or a directory of HOST.json files, one document each.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/file.h"
#include "base/text.h"
#include "fleet/fleet.h"
#include "fleet/gathered.h"
#include "launch/hostlist.h"

#define QUOTE_MAX 64		/* a bad value quoted in a message */
#define TASK_DIGITS 9		/* srun task numbers */
#define READ_CHUNK 65536

static const char how[] = "give pdsh or clush output with its 'HOST: ' prefixes (not pdsh -N, "
			  "not clush -b), srun -l output, or a directory of HOST.json files";

/* @s (@len bytes) quoted for a message, escaped and cut. */
static const char *quote(const char *s, size_t len, char *buf, size_t buflen)
{
	char raw[QUOTE_MAX * 2 + 1];

	snprintf(raw, sizeof(raw), "%.*s", (int)(len < QUOTE_MAX * 2 ? len : QUOTE_MAX * 2), s);
	return text_safe(raw, buf, buflen < QUOTE_MAX ? buflen : QUOTE_MAX, 0);
}

/* ---- the launchers' own lines ---- */

/* A launcher's word on one node: its exit code, or the cause of its failure. */
static int note_node(struct fleet *fleet, const char *node, const char *who, const char *msg)
{
	const char *code = strstr(msg, "exit code ");
	char *end;
	long rc;

	if (code && (rc = strtol(code + 10, &end, 10)) >= 0 && rc <= 255 && end > code + 10) {
		if (fleet_node_rc(fleet, node, (int)rc))
			return -ENOMEM;
		/* 1 is rdmactl's own "a check failed": its document says more. */
		if (rc == 0 || rc == 1)
			return 0;
	}
	return fleet_node_fail(fleet, node, "%s: %s", who, msg);
}

/* A line of a launcher that names no node: kept for the report to show. */
static int note(struct fleet *fleet, const char *line)
{
	return fleet_note(fleet, "line %lu: %.200s", fleet->lineno, line);
}

/* "node[5-6] (2): MSG" (clush): each node of the list gets MSG. */
static int clush_note(struct fleet *fleet, const char *line, const char *rest)
{
	const char *colon = strstr(rest, ": ");
	char list[1024], err[256];
	struct hostlist hl;
	size_t i, n;
	int ret = 0;

	n = colon ? strcspn(rest, " :") : 0;
	if (!n || n >= sizeof(list))
		return note(fleet, line);
	snprintf(list, sizeof(list), "%.*s", (int)n, rest);
	hostlist_init(&hl);
	if (hostlist_parse(&hl, list, err, sizeof(err))) {
		hostlist_free(&hl);
		return note(fleet, line);
	}
	for (i = 0; i < hl.n && !ret; i++)
		ret = note_node(fleet, hl.names[i], "clush", colon + 2);
	hostlist_free(&hl);
	return ret;
}

/* "lab-e: task 3: MSG" or "lab-e: tasks 2-3: MSG" (srun): those tasks ran there. */
static int srun_note(struct fleet *fleet, const char *line, const char *rest)
{
	const char *t = strstr(rest, ": task"), *msg;
	char tasks[128], key[32], err[256];
	struct hostlist hl;
	size_t i, n = t ? (size_t)(t - rest) : 0;
	int ret = 0;

	if (!n || !fleet_host_ok(rest, n) || !(msg = strstr(t + 2, ": ")))
		return note(fleet, line);
	t += 7 + (t[6] == 's');		/* past ": task " or ": tasks " */
	if (t >= msg)
		return note(fleet, line);
	snprintf(tasks, sizeof(tasks), "[%.*s]", (int)(msg - t > 100 ? 100 : msg - t), t);
	hostlist_init(&hl);
	if (hostlist_parse(&hl, tasks, err, sizeof(err))) {
		hostlist_free(&hl);
		return note(fleet, line);
	}
	for (i = 0; i < hl.n && !ret; i++) {
		struct fleet_node *nd;

		snprintf(key, sizeof(key), "task %lu", strtoul(hl.names[i], NULL, 10));
		if (!(ret = fleet_add(fleet, key, &nd))) {
			nd->task = (long)strtoul(hl.names[i], NULL, 10);
			if (!nd->line)
				nd->line = fleet->lineno;	/* where the task is named, for messages */
			free(nd->hint);
			nd->hint = strndup(rest, n);
			ret = nd->hint ? note_node(fleet, key, "srun", msg + 2) : -ENOMEM;
		}
	}
	hostlist_free(&hl);
	return ret;
}

/* "lab-e: MSG" after "pdsh@LOCAL: ". */
static int pdsh_note(struct fleet *fleet, const char *line, const char *rest)
{
	const char *colon = strstr(rest, ": ");
	char host[HOSTLIST_NAME_MAX + 1];

	if (!colon || !fleet_host_ok(rest, (size_t)(colon - rest)))
		return note(fleet, line);
	snprintf(host, sizeof(host), "%.*s", (int)(colon - rest), rest);
	return note_node(fleet, host, "pdsh", colon + 2);
}

/* 1 when @line is a launcher's own (handled), 0 when not, -errno. */
static int launcher_line(struct fleet *fleet, const char *line)
{
	const char *rest;
	int ret;

	if (!strncmp(line, "pdsh@", 5) && (rest = strstr(line, ": ")))
		ret = pdsh_note(fleet, line, rest + 2);
	else if (!strncmp(line, "clush: ", 7))
		ret = clush_note(fleet, line, line + 7);
	else if (!strncmp(line, "srun: error: ", 13))
		ret = srun_note(fleet, line, line + 13);
	else if (!strncmp(line, "srun: ", 6))
		ret = note(fleet, line);
	else
		return 0;
	return ret ? ret : 1;
}

/* ---- one line ---- */

/* Why @line has no usable prefix, in @err. */
static int bad_prefix(const char *line, size_t name_len, char *err, size_t errlen)
{
	char q[QUOTE_MAX];
	size_t i;

	for (i = 0; i < name_len; i++)
		if (strchr(" \t\"{},", line[i]))
			break;
	if (!name_len || i < name_len || name_len > HOSTLIST_NAME_MAX) {
		snprintf(err, errlen, "no 'HOST: ' prefix on '%s': %s",
			 quote(line, strlen(line), q, sizeof(q)), how);
		return -EINVAL;
	}
	snprintf(err, errlen, "'%s' is not a host name (letters, digits, '.', '_', '-'): %s",
		 quote(line, name_len, q, sizeof(q)), how);
	return -EINVAL;
}

/* "  3" and "003": srun -l's task number (blanks and zeros pad it); -1 when not. */
static long task_number(const char *s, size_t len)
{
	size_t i = strspn(s, " ");

	if (i == len || len - i > TASK_DIGITS || strspn(s + i, "0123456789") != len - i)
		return -1;
	return strtol(s + i, NULL, 10);
}

/* A feeding error as the reader's message. */
static int fed(const struct fleet *fleet, int ret, const char *host, char *err, size_t errlen)
{
	const struct fleet_node *nd = fleet_find(fleet, host);

	if (ret == -EEXIST)
		snprintf(err, errlen, "a second document for '%s' (its first began on line %lu): "
			 "give each node's output once", host, nd ? nd->line : 0);
	else if (ret == -EFBIG)
		snprintf(err, errlen, "the output of '%s' passes %u MiB: no doctor document is that long",
			 host, FLEET_DOC_MAX >> 20);
	else if (ret == -ENOSPC)
		snprintf(err, errlen, "over %u MiB of node output in all", FLEET_TOTAL_MAX >> 20);
	else if (ret == -E2BIG)
		snprintf(err, errlen, "more than %u nodes", FLEET_NODES_MAX);
	else if (ret)
		snprintf(err, errlen, "%s", strerror(-ret));
	return ret == -EEXIST || ret == -EFBIG ? -EINVAL : ret;
}

int fleet_feed_output(struct fleet *fleet, const char *line, unsigned long lineno, char *err,
			size_t errlen)
{
	const char *text;
	char host[32 + HOSTLIST_NAME_MAX];
	size_t n;
	long task;
	int ret;

	fleet->lineno = lineno;
	if (!line[strspn(line, " \t\r")])
		return 0;
	if ((ret = launcher_line(fleet, line)))
		return ret < 0 ? fed(fleet, ret, "", err, errlen) : 0;
	n = strcspn(line, ":");
	text = line + n;
	if (!*text || (text[1] && text[1] != ' '))
		return bad_prefix(line, 0, err, errlen);
	text += text[1] ? 2 : 1;
	task = task_number(line, n);
	if (task >= 0) {
		snprintf(host, sizeof(host), "task %ld", task);
		return fed(fleet, fleet_feed_task(fleet, (unsigned long)task, text), host, err, errlen);
	}
	if (!fleet_host_ok(line, n))
		return bad_prefix(line, n, err, errlen);
	snprintf(host, sizeof(host), "%.*s", (int)n, line);
	return fed(fleet, fleet_feed_line(fleet, host, text), host, err, errlen);
}

/* ---- a file or stdin ---- */

struct reader {
	struct fleet *fleet;
	char *line;		/* the line being assembled */
	size_t len, cap;
	unsigned long lineno;
	size_t bytes;		/* read so far */
	char *err;
	size_t errlen;
};

static int line_add(struct reader *r, const char *s, size_t n)
{
	char *line;
	size_t cap;

	if (r->len + n >= FLEET_DOC_MAX) {
		snprintf(r->err, r->errlen, "line %lu is longer than %u MiB: no doctor output has "
			 "such lines", r->lineno, FLEET_DOC_MAX >> 20);
		return -EINVAL;
	}
	if (r->len + n + 1 > r->cap) {
		for (cap = r->cap ? r->cap : 4096; cap < r->len + n + 1; cap *= 2)
			;
		line = realloc(r->line, cap);
		if (!line)
			return -ENOMEM;
		r->line = line;
		r->cap = cap;
	}
	memcpy(r->line + r->len, s, n);
	r->len += n;
	r->line[r->len] = '\0';
	return 0;
}

/* The assembled line, its '\r' dropped, to the fleet; messages get "line N: ". */
static int line_end(struct reader *r)
{
	char msg[512];
	int ret;

	if (r->len && r->line[r->len - 1] == '\r')
		r->line[--r->len] = '\0';
	ret = fleet_feed_output(r->fleet, r->len ? r->line : "", r->lineno, msg, sizeof(msg));
	if (ret)
		snprintf(r->err, r->errlen, "line %lu: %s", r->lineno, msg);
	r->len = 0;
	r->lineno++;
	return ret;
}

static int chunk(struct reader *r, const char *buf, size_t n)
{
	const char *nul = memchr(buf, '\0', n), *nl;
	int ret;

	if (nul) {
		for (nl = buf; (nl = memchr(nl, '\n', (size_t)(nul - nl))); nl++)
			r->lineno++;
		snprintf(r->err, r->errlen, "line %lu: a NUL byte: binary data, not the text "
			 "output of pdsh, clush or srun", r->lineno);
		return -EINVAL;
	}
	while (n) {
		nl = memchr(buf, '\n', n);
		if ((ret = line_add(r, buf, nl ? (size_t)(nl - buf) : n)))
			return ret;
		if (!nl)
			break;
		if ((ret = line_end(r)))
			return ret;
		n -= (size_t)(nl + 1 - buf);
		buf = nl + 1;
	}
	return 0;
}

static int read_stream(struct reader *r, int fd)
{
	char *buf = malloc(READ_CHUNK);
	ssize_t n;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	while (!ret && (n = read(fd, buf, READ_CHUNK)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			snprintf(r->err, r->errlen, "cannot read it: %s", strerror(errno));
			break;
		}
		r->bytes += (size_t)n;
		if (r->bytes > FLEET_TOTAL_MAX) {
			snprintf(r->err, r->errlen, "over %u MiB of input", FLEET_TOTAL_MAX >> 20);
			ret = -ENOSPC;
			break;
		}
		ret = chunk(r, buf, (size_t)n);
	}
	if (!ret && r->len)
		ret = line_end(r);
	free(buf);
	return ret;
}

/* ---- a directory of HOST.json ---- */

static int json_file(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return de->d_name[0] != '.' && n > 5 && !strcmp(de->d_name + n - 5, ".json");
}

/* The document of @host from @fd (a file of the directory), or its failure. */
static int read_doc(struct fleet *fleet, int fd, const char *file, const char *host)
{
	struct stat st;
	char *text;
	size_t n;
	int ret;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return fleet_node_fail(fleet, host, "%s is not a regular file", file);
	if (st.st_size > FLEET_DOC_MAX)
		return fleet_node_fail(fleet, host, "%s is %lld bytes: over the %u MiB a document "
					 "may have", file, (long long)st.st_size, FLEET_DOC_MAX >> 20);
	ret = file_read_fd(fd, FLEET_DOC_MAX, &text, &n);
	if (ret == -ENOMEM)
		return ret;
	if (ret == -EFBIG)	/* grown since fstat() */
		return fleet_node_fail(fleet, host, "%s is over the %u MiB a document may have", file,
				       FLEET_DOC_MAX >> 20);
	if (ret)
		return fleet_node_fail(fleet, host, "cannot read %s: %s", file, strerror(-ret));
	if (memchr(text, '\0', n))
		ret = fleet_node_fail(fleet, host, "%s holds a NUL byte: binary, not a doctor "
					"document", file);
	else {
		ret = fleet_feed_line(fleet, host, text);
		ret = ret == -EFBIG || ret == -EEXIST ? 0 : ret;	/* the node's failure */
	}
	free(text);
	return ret;
}

static int dir_entry(struct fleet *fleet, int dfd, const char *file, char *err, size_t errlen)
{
	size_t n = strlen(file) - 5;
	char host[HOSTLIST_NAME_MAX + 1], q[QUOTE_MAX];
	int fd, ret;

	if (!fleet_host_ok(file, n)) {
		snprintf(err, errlen, "'%s' does not name a host (letters, digits, '.', '_', '-'): "
			 "name each file HOST.json", quote(file, strlen(file), q, sizeof(q)));
		return -EINVAL;
	}
	snprintf(host, sizeof(host), "%.*s", (int)n, file);
	fd = openat(dfd, file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		ret = fleet_node_fail(fleet, host, "cannot open %s: %s", file, strerror(errno));
	else
		ret = read_doc(fleet, fd, file, host);
	if (fd >= 0)
		close(fd);
	if (ret == -ENOSPC)
		snprintf(err, errlen, "over %u MiB of documents in all", FLEET_TOTAL_MAX >> 20);
	else if (ret == -E2BIG)
		snprintf(err, errlen, "more than %u files", FLEET_NODES_MAX);
	else if (ret)
		snprintf(err, errlen, "%s", strerror(-ret));
	return ret;
}

static int read_dir(struct fleet *fleet, const char *path, char *err, size_t errlen)
{
	struct dirent **list;
	int i, n, dfd, ret = 0;

	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	n = dfd < 0 ? -1 : scandirat(dfd, ".", &list, json_file, versionsort);
	if (n < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot read the directory: %s", strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return ret;
	}
	if (!n) {
		snprintf(err, errlen, "no HOST.json file in the directory: %s", how);
		ret = -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (!ret)
			ret = dir_entry(fleet, dfd, list[i]->d_name, err, errlen);
		free(list[i]);
	}
	free(list);
	close(dfd);
	return ret;
}

int fleet_read_gathered(struct fleet *fleet, const char *path, char *err, size_t errlen)
{
	struct reader r = { .fleet = fleet, .lineno = 1, .err = err, .errlen = errlen };
	struct stat st;
	int fd = 0, ret;

	err[0] = '\0';
	if (strcmp(path, "-") && !stat(path, &st) && S_ISDIR(st.st_mode))
		return read_dir(fleet, path, err, errlen);
	if (strcmp(path, "-") && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open it: %s", strerror(errno));
		return ret;
	}
	ret = read_stream(&r, fd);
	if (fd)
		close(fd);
	free(r.line);
	if (!ret && !fleet->n) {
		snprintf(err, errlen, "no node output in it: %s", how);
		ret = -EINVAL;
	}
	return ret;
}
