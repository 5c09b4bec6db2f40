// SPDX-License-Identifier: MIT
/*
 * The job kinds, one row each: the name --for takes, what it means, the
 * commands that take it, and why one that does not refuses it.  Every
 * list of them (the option parsers, the usage, the completion, doctor -w's
 * command line) is read from here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "doctor/job_kind.h"

struct job_kind_row {
	const char *name;	/* as --for takes it */
	const char *meaning;
	unsigned int cmds;	/* enum job_cmd: the commands that take it */
	const char *why_not;	/* why a command outside @cmds refuses it */
};

static const struct job_kind_row rows[JOB_KINDS] = {
	[JOB_NCCL] = { "nccl", "an NCCL job: NCCL's variables and GID rule",
		       JOB_IN_DOCTOR | JOB_IN_ENV, NULL },
	[JOB_UCX] = { "ucx", "a UCX job: UCX's variables, its known bugs and GID rule",
		      JOB_IN_DOCTOR | JOB_IN_ENV, NULL },
	[JOB_MPI] = { "mpi", "Open MPI over UCX: checked as ucx; env adds Open MPI's variables",
		      JOB_IN_DOCTOR | JOB_IN_ENV, NULL },
	/* ib_write_bw and its kin read no variable: -d, -i and -x are their arguments. */
	[JOB_PERFTEST] = { "perftest", "perftest (ib_write_bw ...): the -d -i -x arguments",
			   JOB_IN_DOCTOR,
			   "perftest reads no variable (its -d, -i and -x: rdmactl gids --recommend)" },
};

/* The row named @s; NULL for none (JOB_ANY has no name). */
static const struct job_kind_row *row_named(const char *s)
{
	size_t k;

	for (k = JOB_ANY + 1; k < JOB_KINDS; k++)
		if (!strcmp(rows[k].name, s))
			return &rows[k];
	return NULL;
}

int job_kind_parse(const char *s, unsigned int cmd, enum job_kind *out)
{
	const struct job_kind_row *r = row_named(s);

	if (!r)
		return -EINVAL;
	if (!(r->cmds & cmd))
		return -EPERM;
	*out = (enum job_kind)(r - rows);
	return 0;
}

const char *job_kind_name(enum job_kind k)
{
	return k > JOB_ANY && k < JOB_KINDS ? rows[k].name : "";
}

const char *job_kind_meaning(enum job_kind k)
{
	return k > JOB_ANY && k < JOB_KINDS ? rows[k].meaning : "";
}

const char *job_kind_words(unsigned int cmd, char *buf, size_t len)
{
	size_t k, off = 0;

	buf[0] = '\0';
	for (k = JOB_ANY + 1; k < JOB_KINDS && off < len; k++)
		if (rows[k].cmds & cmd)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? " " : "",
						rows[k].name);
	return buf;
}

const char *job_kind_why_not(const char *s, unsigned int cmd)
{
	const struct job_kind_row *r = row_named(s);

	return r && !(r->cmds & cmd) ? r->why_not : NULL;
}

bool job_kind_ucx(enum job_kind k)
{
	return k == JOB_UCX || k == JOB_MPI;
}

/* Each command's words, made once: the parser asks for them at every value. */
static const char *doctor_words(void)
{
	static char buf[64];

	return buf[0] ? buf : job_kind_words(JOB_IN_DOCTOR, buf, sizeof(buf));
}

static const char *doctor_why_not(const char *s)
{
	return job_kind_why_not(s, JOB_IN_DOCTOR);
}

static const char *env_words(void)
{
	static char buf[64];

	return buf[0] ? buf : job_kind_words(JOB_IN_ENV, buf, sizeof(buf));
}

static const char *env_why_not(const char *s)
{
	return job_kind_why_not(s, JOB_IN_ENV);
}

const struct opt_choices job_kinds_doctor = { doctor_words, doctor_why_not };
const struct opt_choices job_kinds_env = { env_words, env_why_not };
