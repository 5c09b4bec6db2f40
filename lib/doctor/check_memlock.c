// SPDX-License-Identifier: MIT
/*
 * Doctor checks of the locked-memory limit, one per scope a job can start
 * from: this shell, a PAM login (ssh, mpirun's remote ranks), a systemd
 * service (Jupyter, Slurm daemons).  node/limits.c resolves and judges them.
 *
 * A process with CAP_IPC_LOCK pins past its limit: ib_umem_get() counts
 * the pages against RLIMIT_MEMLOCK only "if (... && !capable(CAP_IPC_LOCK))"
 * (drivers/infiniband/core/umem.c).  Root's shell and root's logins have
 * it, so a low limit there stops no registration (seen in the lab: MPI over
 * UCX ran with 64 KiB for root's ssh logins), while a user's job, or a
 * container's root without the capability, fails at that limit.  Those
 * two scopes say so instead of failing; --user checks a job user's login.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "doctor/check.h"
#include "doctor/checks.h"
#include "node/limits.h"

static enum check_status verdict_status(enum limit_verdict v)
{
	switch (v) {
	case VERDICT_OK:
		return CHECK_OK;
	case VERDICT_WARN:
		return CHECK_WARN;
	default:
		return CHECK_FAIL;
	}
}

/*
 * The fix is one line per step ("write FILE:", then the lines to write);
 * the doctor shows it on one line: "write FILE: line1; line2; then ...".
 */
static void add_fix(struct check_result *r, const char *fix)
{
	char buf[sizeof(((struct memlock *)0)->fix)], out[sizeof(buf) * 2] = "";
	char *save = NULL, *line;
	size_t off = 0;

	snprintf(buf, sizeof(buf), "%s", fix);
	for (line = strtok_r(buf, "\n", &save); line && off < sizeof(out);
	     line = strtok_r(NULL, "\n", &save)) {
		const char *sep = !off ? "" : out[off - 1] == ':' ? " " : "; ";

		off += (size_t)snprintf(out + off, sizeof(out) - off, "%s%s", sep, line);
	}
	check_fix(r, "%s", out);
}

/* @who pins past @m's limit: the limit is told, as not what stops a registration. */
static void report_exempt(struct check_result *r, const struct memlock *m, const char *who)
{
	char soft[32], hard[32], note[LIMIT_SRC_LEN + 256];

	memlock_str(m->soft, soft, sizeof(soft));
	memlock_str(m->hard, hard, sizeof(hard));
	check_note(r, CHECK_OK, "soft %s, hard %s (%s), not enforced: %s has CAP_IPC_LOCK, which "
		   "pins past RLIMIT_MEMLOCK", soft, hard, m->soft_src, who);
	/* Other users' logins get the "*" and @group lines root's does not: not root's limit. */
	if (limits_root_note(m, note, sizeof(note))[0])
		check_note(r, CHECK_OK, "%s", note);
	else
		check_note(r, CHECK_OK, "a job of a user without it gets %s", soft);
}

/* @m judged as `rdmactl limits` judges it (limits_judge_node()), told as a check. */
static void report(struct node_facts *d, struct check_result *r, struct memlock *m)
{
	char soft[32], hard[32], note[LIMIT_SRC_LEN + 256];

	limits_judge_node(d->ctx, m);
	if (m->exempt[0]) {
		report_exempt(r, m, m->exempt);
		return;
	}
	memlock_str(m->soft, soft, sizeof(soft));
	memlock_str(m->hard, hard, sizeof(hard));
	if (!strcmp(m->soft_src, m->hard_src))
		check_note(r, verdict_status(m->verdict), "soft %s, hard %s (%s): %s", soft, hard,
			   m->soft_src, m->reason);
	else
		check_note(r, verdict_status(m->verdict), "soft %s (%s), hard %s (%s): %s", soft,
			   m->soft_src, hard, m->hard_src, m->reason);
	/* Why the file the operator wrote does not work: root does not get its lines. */
	if (m->verdict != VERDICT_OK && limits_root_note(m, note, sizeof(note))[0])
		check_note(r, CHECK_OK, "%s", note);
	if (m->verdict != VERDICT_OK)
		add_fix(r, m->fix);
}

void check_memlock_shell(struct node_facts *d, struct check_result *r)
{
	struct memlock m;
	int ret = limits_process(d->ctx, 0, &m);

	if (ret) {
		check_note(r, CHECK_FAIL, "could not read this shell's limit: %s", strerror(-ret));
		check_fix(r, "ulimit -l (and see /proc/self/limits)");
		return;
	}
	report(d, r, &m);
}

void check_memlock_login(struct node_facts *d, struct check_result *r)
{
	struct memlock m;
	/* A --user the node lacks never gets here: doctor refuses it first (exit 2). */
	int ret = limits_pam(d->ctx, d->user, &m);

	if (ret) {
		check_note(r, CHECK_FAIL, "could not resolve the PAM login limit: %s", strerror(-ret));
		check_fix(r, "read /etc/security/limits.conf and /etc/security/limits.d/ by hand");
		return;
	}
	/* A login of root gets every capability this node grants (its bounding set). */
	report(d, r, &m);
}

void check_memlock_systemd(struct node_facts *d, struct check_result *r)
{
	struct memlock m;
	int ret = limits_systemd(d->ctx, &m);

	if (ret) {
		check_note(r, CHECK_FAIL, "could not resolve systemd's DefaultLimitMEMLOCK: %s",
			   strerror(-ret));
		check_fix(r, "systemctl show --property DefaultLimitMEMLOCK");
		return;
	}
	/* Services run jobs as their users (Slurm's tasks, Jupyter's kernels): no exemption. */
	report(d, r, &m);
}
