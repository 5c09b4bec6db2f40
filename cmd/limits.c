// SPDX-License-Identifier: MIT
/*
 * rdmactl limits [--pid PID] [--user NAME]: the locked-memory limit RDMA
 * registration runs into, for this process (or PID), a PAM login and a
 * systemd service, each with where it comes from and how to fix it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "base/text.h"
#include "cmds.h"
#include "node/limits.h"

enum {
	OPT_PID = OPT_LONG_BASE,
	OPT_USER,
};

const struct opt limits_opts[] = {
	{ "pid", OPT_PID, ARG_INT, "PID", "a running process instead of this one" },
	{ "user", OPT_USER, ARG_STR, "NAME", "the user a PAM login is for (default: you)" },
	{ 0 }
};

static enum color verdict_color(const char *text)
{
	if (!strcmp(text, "ok"))
		return COLOR_GREEN;
	if (!strcmp(text, "warn"))
		return COLOR_YELLOW;
	return strcmp(text, "fail") ? COLOR_NONE : COLOR_RED;
}

static const struct column limits_cols[] = {
	{ "scope", NULL, 0, NULL },
	{ "who", NULL, 0, NULL },
	{ "soft", NULL, COL_RIGHT, NULL },
	{ "hard", NULL, COL_RIGHT, NULL },
	{ "verdict", NULL, 0, verdict_color },
	/* last, the long one: on a narrow terminal the row goes on under the second column */
	{ "source", NULL, 0, NULL },
	{ "pid", NULL, COL_NOTEXT, NULL },
	{ "user", NULL, COL_NOTEXT, NULL },
	{ "soft_bytes", NULL, COL_NOTEXT, NULL },
	{ "hard_bytes", NULL, COL_NOTEXT, NULL },
	{ "soft_source", NULL, COL_NOTEXT, NULL },
	{ "hard_source", NULL, COL_NOTEXT, NULL },
	{ "reason", NULL, COL_NOTEXT, NULL },
	{ "not_for_root", NULL, COL_NOTEXT, NULL },
	{ "fix", NULL, COL_NOTEXT, NULL },
	{ 0 }
};

static void who_str(const struct memlock *m, char *buf, size_t len)
{
	if (m->scope == LIMIT_PROCESS && m->pid)
		snprintf(buf, len, "pid %d", (int)m->pid);
	else if (m->scope == LIMIT_PROCESS)
		snprintf(buf, len, "self");
	else if (m->scope == LIMIT_PAM)
		snprintf(buf, len, "user %s", m->user);
	else
		snprintf(buf, len, "services");
}

/* Bytes as a JSON number; null for unlimited. */
static void row_bytes(struct json_object *row, const char *key, uint64_t v)
{
	if (v == MEMLOCK_INFINITY || v > INT64_MAX)
		row_str(row, key, NULL);
	else
		row_int(row, key, (int64_t)v);
}

static void limit_row(struct table *t, const struct memlock *m)
{
	struct json_object *row = table_row(t);
	char buf[96];

	row_str(row, "scope", limit_scope_str(m->scope));
	who_str(m, buf, sizeof(buf));
	row_str(row, "who", buf);
	row_str(row, "soft", memlock_str(m->soft, buf, sizeof(buf)));
	row_str(row, "hard", memlock_str(m->hard, buf, sizeof(buf)));
	if (!strcmp(m->soft_src, m->hard_src))
		row_str(row, "source", m->soft_src);
	else
		row_fmt(row, "source", "soft %s, hard %s", m->soft_src, m->hard_src);
	row_str(row, "verdict", limit_verdict_str(m->verdict));
	if (m->scope == LIMIT_PROCESS && m->pid)
		row_int(row, "pid", m->pid);
	else
		row_str(row, "pid", NULL);
	row_str(row, "user", m->scope == LIMIT_PAM ? m->user : NULL);
	row_bytes(row, "soft_bytes", m->soft);
	row_bytes(row, "hard_bytes", m->hard);
	row_str(row, "soft_source", m->soft_src);
	row_str(row, "hard_source", m->hard_src);
	row_str(row, "reason", m->reason);
	row_str(row, "not_for_root", m->not_for_root[0] ? m->not_for_root : NULL);
	row_str(row, "fix", m->fix[0] ? m->fix : NULL);
}

/* Below the table: why each row is not ok and what to write, line by line. */
static void print_fixes(struct ctx *ctx, const struct memlock *m, size_t n)
{
	char who[96], *line, *save = NULL, fix[sizeof(m->fix)], note[LIMIT_SRC_LEN + 256];
	size_t i;

	for (i = 0; i < n; i++) {
		/* An exempt row is ok, but its limit is not what a user's job gets: say why. */
		if (m[i].verdict == VERDICT_OK && !m[i].exempt[0])
			continue;
		who_str(&m[i], who, sizeof(who));
		print_text(ctx, "\n%s (%s): %s.\n", limit_scope_str(m[i].scope), who, m[i].reason);
		if (limits_root_note(&m[i], note, sizeof(note))[0])
			print_text(ctx, "%s.\n", note);
		snprintf(fix, sizeof(fix), "%s", m[i].fix);
		for (line = strtok_r(fix, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			print_text(ctx, "    %s\n", line);
	}
}

static int parse_pid(struct ctx *ctx, const char *arg, pid_t *pid)
{
	long v;

	if (parse_long(arg, 1, INT_MAX, &v)) {
		log_err(ctx, "Failed to read limits of process '%s': not a process ID "
			"(a number from 1 up)", arg);
		return -EINVAL;
	}
	*pid = (pid_t)v;
	return 0;
}

/* The process row; 1 when it is left out (a captured tree without /proc/self). */
static int load_process(struct ctx *ctx, pid_t pid, struct memlock *m)
{
	int ret = limits_process(ctx, pid, m);

	if (ret == -ESRCH && !pid) {
		log_warn(ctx, "no proc/self/limits below '%s': the process row is left out",
			 ctx->root);
		return 1;
	}
	if (ret == -ESRCH && pid)
		log_err(ctx, "Failed to read limits of process '%d': no such process", (int)pid);
	else if (ret == -EINVAL && pid)
		log_err(ctx, "Failed to read /proc/%d/limits: it has no 'Max locked memory' line",
			(int)pid);
	else if (ret == -EINVAL)
		log_err(ctx, "Failed to read /proc/self/limits: it has no 'Max locked memory' line");
	else if (ret && pid)
		log_err_errno(ctx, ret, "Failed to read /proc/%d/limits: %s", (int)pid, strerror(-ret));
	else if (ret)
		log_err_errno(ctx, ret, "Failed to read /proc/self/limits: %s", strerror(-ret));
	return ret;
}

/*
 * The PAM row; 1 when it is left out (the current user is not in
 * /etc/passwd).  A --user is known to exist: limits_user_known().
 */
static int load_pam(struct ctx *ctx, const char *user, struct memlock *m)
{
	int ret = limits_pam(ctx, user, m);

	if (ret == -ENOENT && !user) {
		log_warn(ctx, "this user is not in /etc/passwd: the PAM login limit is left out "
			 "(try --user NAME)");
		return 1;
	}
	if (ret)
		log_err_errno(ctx, ret, "Failed to read the PAM limits: %s", strerror(-ret));
	return ret;
}

int cmd_limits(struct ctx *ctx, int argc, char **argv)
{
	const char *user = NULL;
	struct memlock m[3];
	struct optparser p;
	struct table *t;
	pid_t pid = 0;
	size_t n = 0, i;
	int c, ret, rc = RC_OK;

	if (opt_init(&p, ctx, command_find("limits"), argc, argv))
		return RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END) {
		if (c == OPT_PID && !parse_pid(ctx, p.optarg, &pid))
			continue;
		if (c == OPT_USER) {
			user = p.optarg;
			continue;
		}
		return c == OPT_HELP ? RC_OK : RC_USAGE;
	}
	if (opt_check_args(&p))
		return RC_USAGE;

	if (user && (ret = limits_user_known(ctx, user)))
		return ret == -ENOENT ? RC_USAGE : RC_PROBLEM;
	ret = load_process(ctx, pid, &m[n]);
	if (ret < 0)
		return ret == -ESRCH ? RC_USAGE : RC_PROBLEM;
	n += !ret;
	ret = load_pam(ctx, user, &m[n]);
	if (ret < 0)
		return ret == -ENOENT ? RC_USAGE : RC_PROBLEM;
	n += !ret;
	if (limits_systemd(ctx, &m[n]) == 0)
		n++;

	t = table_new(limits_cols);
	if (!t)
		return RC_PROBLEM;
	for (i = 0; i < n; i++) {
		limits_judge_node(ctx, &m[i]);
		limit_row(t, &m[i]);
		if (m[i].verdict == VERDICT_FAIL)
			rc = RC_PROBLEM;
	}
	table_emit(ctx, t, "limits");
	print_fixes(ctx, m, n);
	return rc;
}
