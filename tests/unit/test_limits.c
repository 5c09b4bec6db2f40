// SPDX-License-Identifier: MIT
/*
 * lib/limits: the value parsers of /proc/PID/limits, limits.conf and
 * system.conf, and the precedence rules over the recorded trees in
 * tests/fixtures/limits-*.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ctx.h"
#include "node/limits.h"
#include "test.h"

#define INF MEMLOCK_INFINITY
#define KiB(n) ((uint64_t)(n) << 10)
#define MiB(n) ((uint64_t)(n) << 20)
#define GiB(n) ((uint64_t)(n) << 30)

static char root[4096];

/* A context reading the fixture @name. */
static struct ctx fixture(const char *name)
{
	const char *dir = getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures";
	struct ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	snprintf(root, sizeof(root), "%s/%s", dir, name);
	ctx.root = root;
	ctx.cmd = "test";
	return ctx;
}

static void proc_limits_line(void)
{
	const char *text =
		"Limit                     Soft Limit           Hard Limit           Units     \n"
		"Max open files            1024                 524288               files     \n"
		"Max locked memory         65536                8388608              bytes     \n";
	uint64_t soft = 0, hard = 0;

	CHECK_INT(limits_parse_proc(text, &soft, &hard), 0);
	CHECK_INT(soft, 65536);
	CHECK_INT(hard, 8388608);
	CHECK_INT(limits_parse_proc("Max locked memory  unlimited unlimited bytes\n", &soft, &hard), 0);
	CHECK(soft == INF && hard == INF);
	CHECK_INT(limits_parse_proc("Max locked memory  1024 unlimited bytes", &soft, &hard), 0);
	CHECK(soft == 1024 && hard == INF);
}

static void proc_limits_rejects_junk(void)
{
	uint64_t soft, hard;

	CHECK_INT(limits_parse_proc("", &soft, &hard), -EINVAL);
	CHECK_INT(limits_parse_proc("Max open files 1 1 files\n", &soft, &hard), -EINVAL);
	CHECK_INT(limits_parse_proc("Max locked memory\n", &soft, &hard), -EINVAL);
	CHECK_INT(limits_parse_proc("Max locked memory 12 \n", &soft, &hard), -EINVAL);
	CHECK_INT(limits_parse_proc("Max locked memory lots 12 bytes\n", &soft, &hard), -EINVAL);
	CHECK_INT(limits_parse_proc("Max locked memory -1 12 bytes\n", &soft, &hard), -EINVAL);
	CHECK_INT(limits_parse_proc("Max locked memory 99999999999999999999999 1 bytes\n",
				    &soft, &hard), -EINVAL);
}

static void pam_values(void)
{
	uint64_t v = 0;

	CHECK_INT(pam_parse_memlock("unlimited", &v), 0);
	CHECK(v == INF);
	v = 0;
	CHECK_INT(pam_parse_memlock("infinity", &v), 0);
	CHECK(v == INF);
	v = 0;
	CHECK_INT(pam_parse_memlock("-1", &v), 0);
	CHECK(v == INF);
	v = 0;
	CHECK_INT(pam_parse_memlock("-", &v), 0);
	CHECK(v == INF);
	/* KiB, as limits.conf(5) says. */
	CHECK_INT(pam_parse_memlock("64", &v), 0);
	CHECK_INT(v, KiB(64));
	CHECK_INT(pam_parse_memlock("0", &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(pam_parse_memlock("65536", &v), 0);
	CHECK_INT(v, MiB(64));
}

static void pam_values_as_pam_limits_reads_them(void)
{
	uint64_t v = 0;

	/* strtoull: trailing text is ignored (reported with 1). */
	CHECK_INT(pam_parse_memlock("64k", &v), 1);
	CHECK_INT(v, KiB(64));
	/* Too large for bytes: pam_limits makes it unlimited. */
	CHECK_INT(pam_parse_memlock("99999999999999999999999", &v), 1);
	CHECK(v == INF);
	CHECK_INT(pam_parse_memlock("18014398509481984", &v), 0);
	CHECK(v == INF);
	/* A negative number wraps around to unlimited. */
	CHECK_INT(pam_parse_memlock("-5", &v), 1);
	CHECK(v == INF);
	CHECK_INT(pam_parse_memlock("lots", &v), -EINVAL);
	CHECK_INT(pam_parse_memlock("", &v), -EINVAL);
	/* Upper case is lowered by the line parser, not here. */
	CHECK_INT(pam_parse_memlock("Unlimited", &v), -EINVAL);
}

static void systemd_values(void)
{
	uint64_t s = 0, h = 0;

	CHECK_INT(systemd_parse_limit("infinity", &s, &h), 0);
	CHECK(s == INF && h == INF);
	CHECK_INT(systemd_parse_limit("8M", &s, &h), 0);
	CHECK(s == MiB(8) && h == MiB(8));
	CHECK_INT(systemd_parse_limit("8388608", &s, &h), 0);
	CHECK(s == MiB(8) && h == MiB(8));
	CHECK_INT(systemd_parse_limit("64K:1G", &s, &h), 0);
	CHECK(s == KiB(64) && h == GiB(1));
	CHECK_INT(systemd_parse_limit("1G:infinity", &s, &h), 0);
	CHECK(s == GiB(1) && h == INF);
	CHECK_INT(systemd_parse_limit("1.5G", &s, &h), 0);
	CHECK_INT(s, MiB(1536));
	CHECK_INT(systemd_parse_limit("1G 512M", &s, &h), 0);
	CHECK_INT(s, MiB(1536));
	CHECK_INT(systemd_parse_limit("512B", &s, &h), 0);
	CHECK_INT(s, 512);
	CHECK_INT(systemd_parse_limit("0", &s, &h), 0);
	CHECK_INT(s, 0);
}

static void systemd_values_rejected(void)
{
	uint64_t s, h;

	CHECK_INT(systemd_parse_limit("10M:5M", &s, &h), -ERANGE);
	CHECK_INT(systemd_parse_limit("infinity:8M", &s, &h), -ERANGE);
	CHECK_INT(systemd_parse_limit("", &s, &h), -EINVAL);
	CHECK_INT(systemd_parse_limit("lots", &s, &h), -EINVAL);
	CHECK_INT(systemd_parse_limit("-1", &s, &h), -EINVAL);
	CHECK_INT(systemd_parse_limit("8X", &s, &h), -EINVAL);
	CHECK_INT(systemd_parse_limit("8M:", &s, &h), -EINVAL);
	CHECK_INT(systemd_parse_limit("unlimited", &s, &h), -EINVAL);
	CHECK_INT(systemd_parse_limit("16E", &s, &h), -EINVAL);
	CHECK_INT(systemd_parse_limit("99999999999999999999999", &s, &h), -EINVAL);
	CHECK_INT(systemd_parse_limit("18446744073709551615", &s, &h), -EINVAL);
}

static void sizes_print_exactly(void)
{
	char buf[32];

	CHECK_STR(memlock_str(INF, buf, sizeof(buf)), "unlimited");
	CHECK_STR(memlock_str(KiB(64), buf, sizeof(buf)), "64 KiB");
	CHECK_STR(memlock_str(MiB(8), buf, sizeof(buf)), "8 MiB");
	CHECK_STR(memlock_str(MiB(1536), buf, sizeof(buf)), "1536 MiB");
	CHECK_STR(memlock_str(1000, buf, sizeof(buf)), "1000 B");
	CHECK_STR(memlock_str(0, buf, sizeof(buf)), "0 B");
}

static void verdict_thresholds(void)
{
	struct memlock m;

	memset(&m, 0, sizeof(m));
	m.scope = LIMIT_SYSTEMD;
	m.soft = m.hard = INF;
	snprintf(m.fix, sizeof(m.fix), "x");
	limits_judge(&m);
	CHECK_INT(m.verdict, VERDICT_OK);
	CHECK_STR(m.fix, "");
	m.soft = m.hard = MEMLOCK_MIN_OK;
	limits_judge(&m);
	CHECK_INT(m.verdict, VERDICT_WARN);
	m.soft = MEMLOCK_MIN_OK - 1;
	limits_judge(&m);
	CHECK_INT(m.verdict, VERDICT_FAIL);
	CHECK(strstr(m.reason, "Cannot allocate memory") != NULL);
	/* The process scope: ulimit works when the hard limit allows it, prlimit otherwise. */
	m.scope = LIMIT_PROCESS;
	m.soft = MiB(64);
	m.hard = INF;
	limits_judge(&m);
	CHECK(strstr(m.fix, "ulimit -l unlimited") != NULL);
	m.hard = MiB(64);
	limits_judge(&m);
	CHECK(strstr(m.fix, "prlimit --pid $$ --memlock=unlimited:unlimited") != NULL);
	m.pid = 4242;
	limits_judge(&m);
	CHECK(strstr(m.fix, "prlimit --pid 4242 --memlock=unlimited:unlimited") != NULL);
}

static void pam_precedence_group_over_default(void)
{
	struct ctx ctx = fixture("limits-pam");
	struct memlock m;

	/* alice is in @rdma: its soft 2 GiB and hard unlimited beat "*" lines anywhere. */
	CHECK_INT(limits_pam(&ctx, "alice", &m), 0);
	CHECK_STR(m.user, "alice");
	CHECK_INT(m.soft, GiB(2));
	CHECK(m.hard == INF);
	CHECK_STR(m.soft_src, "/etc/security/limits.conf:4");
	CHECK_STR(m.hard_src, "/etc/security/limits.d/10-group.conf:1");
	limits_judge(&m);
	CHECK_INT(m.verdict, VERDICT_WARN);
	CHECK(strstr(m.fix, "change /etc/security/limits.conf:4 to: @rdma soft memlock unlimited"));
}

static void pam_later_default_wins_and_soft_is_capped(void)
{
	struct ctx ctx = fixture("limits-pam");
	struct memlock m;

	/* bob: "* - 64" then limits.d "* soft unlimited": soft wins later, hard stays 64 KiB. */
	CHECK_INT(limits_pam(&ctx, "bob", &m), 0);
	CHECK_INT(m.soft, KiB(64));	/* capped to the hard limit, as setup_limits() does */
	CHECK_INT(m.hard, KiB(64));
	CHECK_STR(m.soft_src, "/etc/security/limits.d/20-star.conf:1");
	CHECK_STR(m.hard_src, "/etc/security/limits.conf:3");
	limits_judge(&m);
	CHECK_INT(m.verdict, VERDICT_FAIL);
}

static void pam_user_lines(void)
{
	struct ctx ctx = fixture("limits-pam");
	struct memlock m;

	/* carol: a later user line (limits.d) beats the earlier one and her group's. */
	CHECK_INT(limits_pam(&ctx, "carol", &m), 0);
	CHECK(m.soft == INF && m.hard == INF);
	CHECK_STR(m.soft_src, "/etc/security/limits.d/30-carol.conf:1");
	/* eve: out-of-range hard is unlimited, "64k" is read as 64 KiB. */
	CHECK_INT(limits_pam(&ctx, "eve", &m), 0);
	CHECK_INT(m.soft, KiB(64));
	CHECK(m.hard == INF);
	CHECK_STR(m.hard_src, "/etc/security/limits.conf:11");
	/* frank: "@:3000" matches his primary gid exactly. */
	CHECK_INT(limits_pam(&ctx, "frank", &m), 0);
	CHECK(m.soft == INF);
	CHECK_STR(m.soft_src, "/etc/security/limits.d/30-carol.conf:2");
}

static void pam_off_line_inherits_service_limit(void)
{
	struct ctx ctx = fixture("limits-pam");
	struct memlock m;

	/* "dave -": pam_limits sets nothing; sshd's (systemd's) 64M stays. */
	CHECK_INT(limits_pam(&ctx, "dave", &m), 0);
	CHECK_INT(m.soft, MiB(64));
	CHECK_STR(m.soft_src, "inherited (systemd: /etc/systemd/system.conf.d/50-jupyter.conf:2)");
	limits_judge(&m);
	CHECK(strstr(m.fix, "05-dave.conf:2 turns pam_limits off") != NULL);
	CHECK(strstr(m.fix, "DefaultLimitMEMLOCK=infinity") != NULL);
}

static void pam_default_user_is_the_recorded_one(void)
{
	struct ctx ctx = fixture("limits-pam");
	struct memlock m;

	/* proc/self/status says uid 1000: alice. */
	CHECK_INT(limits_pam(&ctx, NULL, &m), 0);
	CHECK_STR(m.user, "alice");
	CHECK_INT(limits_pam(&ctx, "nosuchuser", &m), -ENOENT);
}

static void systemd_dropin_order(void)
{
	struct ctx ctx = fixture("limits-systemd");
	struct memlock m;

	/*
	 * system.conf 16M < 10-a infinity < 20-b (/run hides /usr/lib's 32M) 1G:infinity;
	 * 30-c (64M in /usr/lib) is masked by /etc's link to /dev/null.
	 */
	CHECK_INT(limits_systemd(&ctx, &m), 0);
	CHECK_INT(m.soft, GiB(1));
	CHECK(m.hard == INF);
	CHECK_STR(m.soft_src, "/run/systemd/system.conf.d/20-b.conf:2");
	limits_judge(&m);
	CHECK_INT(m.verdict, VERDICT_WARN);
}

static void systemd_64m_and_fix_file(void)
{
	struct ctx ctx = fixture("limits-pam");
	struct memlock m;

	CHECK_INT(limits_systemd(&ctx, &m), 0);
	CHECK_INT(m.soft, MiB(64));
	CHECK_STR(m.soft_src, "/etc/systemd/system.conf.d/50-jupyter.conf:2");
	limits_judge(&m);
	CHECK_INT(m.verdict, VERDICT_FAIL);
	CHECK(strstr(m.fix, "/etc/systemd/system.conf.d/90-memlock.conf") != NULL);
	/* A drop-in sorting after 90-memlock.conf would win: the fix names it instead. */
	ctx = fixture("limits-systemd-late");
	CHECK_INT(limits_systemd(&ctx, &m), 0);
	limits_judge(&m);
	CHECK(strstr(m.fix, "change /etc/systemd/system.conf.d/99-site.conf:2 to: "
			    "DefaultLimitMEMLOCK=infinity") != NULL);
}

static void missing_files_give_defaults(void)
{
	char tmpl[] = "/tmp/rdmactl-limits-XXXXXX";
	struct ctx ctx;
	struct memlock m;

	if (!mkdtemp(tmpl)) {
		CHECK(0);
		return;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.root = tmpl;
	CHECK_INT(limits_systemd(&ctx, &m), 0);
	CHECK_INT(m.soft, SYSTEMD_DEFAULT_MEMLOCK);
	CHECK_STR(m.soft_src, "default");
	CHECK_INT(limits_pam(&ctx, "root", &m), -ENOENT);
	CHECK_INT(limits_process(&ctx, 0, &m), -ESRCH);
	rmdir(tmpl);
}

static void process_from_recorded_proc(void)
{
	struct ctx ctx = fixture("limits-proc");
	struct memlock m;

	CHECK_INT(limits_process(&ctx, 4242, &m), 0);
	CHECK_INT(m.soft, MiB(1));
	CHECK_INT(m.hard, MiB(1));
	CHECK_STR(m.soft_src, "/proc/4242/limits");
	CHECK_INT(limits_process(&ctx, 0, &m), 0);
	CHECK(m.soft == INF);
	CHECK_INT(limits_process(&ctx, 4245, &m), -ESRCH);
	CHECK_INT(limits_process(&ctx, 4244, &m), -EINVAL);
}

static void pam_root_gets_no_star_lines_on_debian(void)
{
	struct ctx ctx = fixture("limits-root");
	struct memlock m;
	char note[512];

	/* uid 0 recorded; "*" lines skipped: sshd's (systemd's default) 8 MiB stays. */
	CHECK_INT(limits_pam(&ctx, NULL, &m), 0);
	CHECK_STR(m.user, "root");
	CHECK_INT(m.soft, MiB(8));
	CHECK_INT(m.hard, MiB(8));
	CHECK_STR(m.soft_src, "inherited (systemd: default)");
	CHECK_STR(m.not_for_root, "/etc/security/limits.d/90-rdma.conf:1,2");
	CHECK(strstr(limits_root_note(&m, note, sizeof(note)),
		     "not applied to root: limits.conf(5)") != NULL);
	limits_judge(&m);
	CHECK_INT(m.verdict, VERDICT_FAIL);
	CHECK(strstr(m.fix, "* hard memlock unlimited\nroot soft memlock unlimited\n"
			    "root hard memlock unlimited\n") != NULL);
	/* alice gets them. */
	CHECK_INT(limits_pam(&ctx, "alice", &m), 0);
	CHECK(m.soft == INF && m.hard == INF);
	CHECK_STR(m.not_for_root, "");
	CHECK_STR(limits_root_note(&m, note, sizeof(note)), "");
}

static void pam_root_rule_ranges_and_groups(void)
{
	struct ctx ctx = fixture("limits-root-rule");
	struct memlock m;

	/* @rdma, @:2000 and * skipped; "@0:" and "0:10" are uid ranges, user lines. */
	CHECK_INT(limits_pam(&ctx, "root", &m), 0);
	CHECK_INT(m.soft, GiB(2));	/* 4 GiB capped to the hard limit */
	CHECK_INT(m.hard, GiB(2));
	CHECK_STR(m.soft_src, "/etc/security/limits.conf:3");
	CHECK_STR(m.hard_src, "/etc/security/limits.conf:5");
	CHECK_STR(m.not_for_root, "/etc/security/limits.conf:1,2,4");
	/* alice: the usual precedence, @rdma's hard unlimited over "*". */
	CHECK_INT(limits_pam(&ctx, "alice", &m), 0);
	CHECK_INT(m.soft, GiB(4));
	CHECK(m.hard == INF);
	CHECK_STR(m.hard_src, "/etc/security/limits.conf:1");
}

int main(void)
{
	RUN("test_limits", proc_limits_line);
	RUN("test_limits", proc_limits_rejects_junk);
	RUN("test_limits", pam_values);
	RUN("test_limits", pam_values_as_pam_limits_reads_them);
	RUN("test_limits", systemd_values);
	RUN("test_limits", systemd_values_rejected);
	RUN("test_limits", sizes_print_exactly);
	RUN("test_limits", verdict_thresholds);
	RUN("test_limits", pam_precedence_group_over_default);
	RUN("test_limits", pam_later_default_wins_and_soft_is_capped);
	RUN("test_limits", pam_user_lines);
	RUN("test_limits", pam_off_line_inherits_service_limit);
	RUN("test_limits", pam_default_user_is_the_recorded_one);
	RUN("test_limits", pam_root_gets_no_star_lines_on_debian);
	RUN("test_limits", pam_root_rule_ranges_and_groups);
	RUN("test_limits", systemd_dropin_order);
	RUN("test_limits", systemd_64m_and_fix_file);
	RUN("test_limits", missing_files_give_defaults);
	RUN("test_limits", process_from_recorded_proc);
	TEST_EXIT();
}
