// SPDX-License-Identifier: MIT
/*
 * The job kinds' table (doctor/job_kind.c): each name read back to its
 * kind, each command's set in the table's order, the reason env gives for
 * perftest, and the words the option parser is handed.
 */
#include <errno.h>
#include <string.h>

#include "doctor/job_kind.h"
#include "test.h"

static void parse_and_name(void)
{
	enum job_kind k = JOB_ANY;
	int i;

	for (i = JOB_ANY + 1; i < JOB_KINDS; i++) {
		CHECK_INT(job_kind_parse(job_kind_name((enum job_kind)i), JOB_IN_DOCTOR, &k), 0);
		CHECK_INT(k, i);
		CHECK(job_kind_meaning((enum job_kind)i)[0] != '\0');
	}
	CHECK_INT(job_kind_parse("nccl", JOB_IN_ENV, &k), 0);
	CHECK_INT(k, JOB_NCCL);
	CHECK_INT(job_kind_parse("mpi", JOB_IN_ENV, &k), 0);
	CHECK_STR(job_kind_name(k), "mpi");
	CHECK_INT(job_kind_parse("NCCL", JOB_IN_DOCTOR, &k), -EINVAL);
	CHECK_INT(job_kind_parse("", JOB_IN_DOCTOR, &k), -EINVAL);
	CHECK_INT(job_kind_parse("tcp", JOB_IN_ENV, &k), -EINVAL);
	CHECK_INT(k, JOB_MPI);	/* untouched by a refusal */
	CHECK_STR(job_kind_name(JOB_ANY), "");
	CHECK_STR(job_kind_name(JOB_KINDS), "");
	CHECK_STR(job_kind_name(JOB_PERFTEST), "perftest");
}

static void each_command_its_set(void)
{
	char buf[64];
	enum job_kind k;

	CHECK_STR(job_kind_words(JOB_IN_DOCTOR, buf, sizeof(buf)), "nccl ucx mpi perftest");
	CHECK_STR(job_kinds_doctor.words(), "nccl ucx mpi perftest");
	CHECK_STR(job_kind_words(JOB_IN_ENV, buf, sizeof(buf)), "nccl ucx mpi");
	CHECK_STR(job_kinds_env.words(), "nccl ucx mpi");
	/* env refuses perftest, and says why; nobody says why for a word of no row. */
	CHECK_INT(job_kind_parse("perftest", JOB_IN_ENV, &k), -EPERM);
	CHECK(job_kinds_env.why_not("perftest") && strstr(job_kinds_env.why_not("perftest"),
							   "gids --recommend"));
	CHECK(job_kinds_doctor.why_not("perftest") == NULL);
	CHECK(job_kinds_env.why_not("tcp") == NULL);
	CHECK(job_kinds_env.why_not("nccl") == NULL);
}

static void over_ucx(void)
{
	CHECK(job_kind_ucx(JOB_UCX));
	CHECK(job_kind_ucx(JOB_MPI));
	CHECK(!job_kind_ucx(JOB_NCCL));
	CHECK(!job_kind_ucx(JOB_PERFTEST));
	CHECK(!job_kind_ucx(JOB_ANY));
}

int main(void)
{
	RUN("test_job_kind", parse_and_name);
	RUN("test_job_kind", each_command_its_set);
	RUN("test_job_kind", over_ucx);
	TEST_EXIT();
}
