// SPDX-License-Identifier: MIT
/*
 * Doctor checks of the locked-memory limit, one per scope a job can start
 * from: this shell, a PAM login (ssh, mpirun's remote ranks), a systemd
 * service (Jupyter, Slurm daemons).  lib/limits.c resolves and judges them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "doctor/doctor.h"
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

static void report(struct check_result *r, struct memlock *m)
{
	char soft[32], hard[32];

	limits_judge(m);
	memlock_str(m->soft, soft, sizeof(soft));
	memlock_str(m->hard, hard, sizeof(hard));
	if (!strcmp(m->soft_src, m->hard_src))
		check_note(r, verdict_status(m->verdict), "soft %s, hard %s (%s): %s", soft, hard,
			   m->soft_src, m->reason);
	else
		check_note(r, verdict_status(m->verdict), "soft %s (%s), hard %s (%s): %s", soft,
			   m->soft_src, hard, m->hard_src, m->reason);
	if (m->verdict != VERDICT_OK)
		add_fix(r, m->fix);
}

void check_memlock_shell(struct doctor *d, struct check_result *r)
{
	struct memlock m;
	int ret = limits_process(d->ctx, 0, &m);

	if (ret) {
		check_note(r, CHECK_FAIL, "could not read this shell's limit: %s", strerror(-ret));
		check_fix(r, "ulimit -l (and see /proc/self/limits)");
		return;
	}
	report(r, &m);
}

void check_memlock_login(struct doctor *d, struct check_result *r)
{
	struct memlock m;
	int ret = limits_pam(d->ctx, NULL, &m);

	if (ret) {
		check_note(r, CHECK_FAIL, "could not resolve the PAM login limit: %s", strerror(-ret));
		check_fix(r, "read /etc/security/limits.conf and /etc/security/limits.d/ by hand");
		return;
	}
	report(r, &m);
}

void check_memlock_systemd(struct doctor *d, struct check_result *r)
{
	struct memlock m;
	int ret = limits_systemd(d->ctx, &m);

	if (ret) {
		check_note(r, CHECK_FAIL, "could not resolve systemd's DefaultLimitMEMLOCK: %s",
			   strerror(-ret));
		check_fix(r, "systemctl show --property DefaultLimitMEMLOCK");
		return;
	}
	report(r, &m);
}
