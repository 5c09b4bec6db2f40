/* SPDX-License-Identifier: MIT */
/*
 * The kind of job a node is checked or set up for (--for): its one type
 * and one table (job_kind.c), from which every command that takes --for
 * makes its parser, its usage line and its completion (through
 * struct opt_choices), doctor -w its nodes' command line, and against
 * which tests/cli/job-kind.sh holds the man pages' lists.
 */
#ifndef RDMACTL_JOB_KIND_H
#define RDMACTL_JOB_KIND_H

#include <stdbool.h>
#include <stddef.h>

#include "base/opt.h"

enum job_kind {
	JOB_ANY,	/* no --for: the checks of every kind of job */
	JOB_NCCL,
	JOB_UCX,
	JOB_MPI,	/* Open MPI over UCX: UCX's checks and values, and its own */
	JOB_PERFTEST,
	JOB_KINDS	/* how many, JOB_ANY included */
};

/* The commands that take --for, as bits of the table's "taken by" column. */
enum job_cmd {
	JOB_IN_DOCTOR = 1 << 0,
	JOB_IN_ENV = 1 << 1,
};

/*
 * The kind named @s, if the command @cmd (one enum job_cmd bit) takes it,
 * in *@out: 0; -EINVAL when no kind has that name, -EPERM when @cmd does
 * not take it (job_kind_why_not() says why).
 */
int job_kind_parse(const char *s, unsigned int cmd, enum job_kind *out);
/* "nccl", "ucx", "mpi", "perftest"; "" for JOB_ANY and out of range. */
const char *job_kind_name(enum job_kind k);
/* What the kind means, in one line; "" for JOB_ANY and out of range. */
const char *job_kind_meaning(enum job_kind k);
/* The names @cmd takes, in the table's order, space-separated, in @buf. */
const char *job_kind_words(unsigned int cmd, char *buf, size_t len);
/* Why @cmd does not take the kind named @s; NULL when it does or no kind is named so. */
const char *job_kind_why_not(const char *s, unsigned int cmd);
/* Whether the job runs over UCX (ucx, mpi): UCX's checks judge it. */
bool job_kind_ucx(enum job_kind k);

/* --for's values for struct opt, one set a command. */
extern const struct opt_choices job_kinds_doctor;
extern const struct opt_choices job_kinds_env;

#endif
