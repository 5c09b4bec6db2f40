/* SPDX-License-Identifier: MIT */
/*
 * RLIMIT_MEMLOCK as RDMA sees it.  RDMA pins every registered buffer
 * (ibv_reg_mr), and the pages count against the locked-memory limit; a
 * limit too low makes NCCL and UCX fail with "ibv_reg_mr ... Cannot
 * allocate memory".  Three scopes decide what a job gets:
 *
 *   process  this process (/proc/self/limits) or a running one (--pid);
 *   pam      a PAM login (ssh, su, login): pam_limits reading
 *            /etc/security/limits.conf, then each limits.d/NAME.conf;
 *   systemd  a service started by systemd: DefaultLimitMEMLOCK= in
 *            system.conf and its system.conf.d drop-ins.
 *
 * Each is resolved into a struct memlock: the soft and hard values, where
 * each came from (file:line), a verdict and the text of the fix.  Every
 * read goes through base/sysfs.h, so --root reads a captured tree.  Config
 * lines the real parsers would reject are reported with log_warn() as
 * "FILE:LINE: ..." and skipped, never fatal.
 *
 * Verdict (limits_judge): unlimited is ok; a finite soft limit of at least
 * MEMLOCK_MIN_OK (1 GiB) is a warning (NCCL and UCX register buffers of
 * hundreds of MiB per process, and a finite limit can still be hit);
 * anything below is a failure.  The field notes' failing node had 64 MiB.
 */
#ifndef RDMACTL_LIMITS_H
#define RDMACTL_LIMITS_H

#include <stdint.h>
#include <sys/types.h>

struct ctx;

/* A value of "unlimited" / "infinity" / RLIM_INFINITY. */
#define MEMLOCK_INFINITY UINT64_MAX
/* Below this finite soft limit the verdict is a failure. */
#define MEMLOCK_MIN_OK (1ULL << 30)

/* systemd's built-in DefaultLimitMEMLOCK= when no file sets it (8M). */
#define SYSTEMD_DEFAULT_MEMLOCK (8ULL << 20)

enum limit_scope {
	LIMIT_PROCESS,		/* this process, or --pid */
	LIMIT_PAM,		/* what a PAM login gets */
	LIMIT_SYSTEMD,		/* what a systemd service gets */
};

enum limit_verdict {
	VERDICT_OK,
	VERDICT_WARN,
	VERDICT_FAIL,
};

/* Where a value came from: "/etc/security/limits.conf:12", "/proc/123/limits", "default". */
#define LIMIT_SRC_LEN 320

struct memlock {
	enum limit_scope scope;
	pid_t pid;			/* LIMIT_PROCESS: 0 for this process */
	char user[64];			/* LIMIT_PAM: the user resolved */
	uint64_t soft, hard;		/* bytes, or MEMLOCK_INFINITY */
	char soft_src[LIMIT_SRC_LEN];
	char hard_src[LIMIT_SRC_LEN];
	enum limit_verdict verdict;	/* set by limits_judge() */
	/*
	 * Set by limits_judge_node(): who holds CAP_IPC_LOCK and so pins past
	 * a limit that is not ok ("this process", "root"); "" when none does.
	 * The verdict is then ok.
	 */
	char exempt[16];
	char reason[256];		/* why the verdict, one sentence */
	char fix[512];			/* what to do, lines separated by '\n'; "" when ok */
	/*
	 * LIMIT_PAM for root on Debian or Ubuntu: the memlock lines other
	 * users get but root does not ("*", @group), as "FILE:1,2, FILE2:5".
	 */
	char not_for_root[LIMIT_SRC_LEN];
};

/*
 * The process scope.  @pid 0 reads /proc/self/limits (getrlimit() when
 * /proc is not mounted); else /proc/PID/limits.  0, -ESRCH (no such
 * process), -EACCES, -EINVAL (no "Max locked memory" line) or -errno.
 */
int limits_process(const struct ctx *ctx, pid_t pid, struct memlock *out);

/*
 * The PAM scope for @user (NULL: the user running this process; with
 * --root, the uid recorded in <root>/proc/self/status).  Lines are applied
 * as pam_limits does; memlock items not set by any line are inherited
 * from the service the login runs under (sshd), that is the systemd
 * scope, and say so in their source.  For root on Debian and Ubuntu (whose
 * pam_limits is patched so), "*" and @group lines do not apply: only the
 * name root and uid ranges do (limits.conf(5)), and the fix writes root
 * lines.  0, -ENOENT (unknown user) or -errno.
 */
int limits_pam(const struct ctx *ctx, const char *user, struct memlock *out);
/*
 * A --user NAME, checked before anything is read for it: 0 when the node
 * (<root>/etc/passwd with --root) has the user, else -ENOENT or -errno
 * after one line on stderr that names it, the same for every command.
 */
int limits_user_known(const struct ctx *ctx, const char *name);

/*
 * The home directory /etc/passwd gives the user running this process
 * (with --root, the uid recorded in <root>/proc/self/status, looked up in
 * <root>/etc/passwd) into @home, "" when none: where NCCL looks for
 * ~/.nccl.conf (getpwuid(), not $HOME).  0, -ENOENT or -errno.
 */
int limits_user_home(const struct ctx *ctx, char *home, size_t len);

/* The systemd scope.  0 or -errno; files that do not exist are not errors. */
int limits_systemd(const struct ctx *ctx, struct memlock *out);

/*
 * For a PAM value with not_for_root lines: one sentence naming them and
 * limits.conf(5)'s rule, in @buf; else "".  Returns @buf.
 */
const char *limits_root_note(const struct memlock *m, char *buf, size_t len);

/*
 * Whether the capability set @set of /proc/self/status ("CapEff" this
 * process's, "CapBnd" the most a process started here gets; with --root,
 * the recorded one's) holds CAP_IPC_LOCK, which pins memory past
 * RLIMIT_MEMLOCK (ib_umem_get()).  False when unknown.
 */
#define LIMITS_CAP_IPC_LOCK 14	/* linux/capability.h */
bool limits_has_ipc_lock(const struct ctx *ctx, const char *set);

/* Set verdict, reason and fix of a resolved value. */
void limits_judge(struct memlock *m);

/*
 * The verdict on the node, the one `limits` and the doctor both give:
 * limits_judge(), then a limit that is not ok is not enforced where its
 * holder has CAP_IPC_LOCK (ib_umem_get() counts pages against
 * RLIMIT_MEMLOCK only without it): this process (CapEff), a login of
 * root (CapBnd: what a process started here gets).  Services run jobs as
 * their users: never exempt.  @m->exempt names who; the verdict is ok,
 * the reason says why and the fix is "".
 */
void limits_judge_node(const struct ctx *ctx, struct memlock *m);

const char *limit_scope_str(enum limit_scope s);
const char *limit_verdict_str(enum limit_verdict v);
/* "unlimited", "64 KiB", "8 MiB", "1.5 GiB", "12345 B". */
const char *memlock_str(uint64_t bytes, char *buf, size_t len);

/* Parsers, exposed for the unit tests. */

/*
 * The "Max locked memory" line of a /proc/PID/limits text:
 * "Max locked memory   8388608   8388608   bytes".  0 or -EINVAL.
 */
int limits_parse_proc(const char *text, uint64_t *soft, uint64_t *hard);
/*
 * A limits.conf memlock value as pam_limits reads it: KiB, or
 * "unlimited", "infinity", "-1", "-" for no limit.  0; 1 when pam_limits
 * accepts the value but not as written ("64k" read as 64, "-5"), worth a
 * warning; or -EINVAL.
 */
int pam_parse_memlock(const char *value, uint64_t *bytes);
/*
 * A DefaultLimitMEMLOCK= value as systemd reads it: "infinity", a size
 * with an optional base-1024 suffix (B K M G T P E), or "SOFT:HARD".
 * 0, -EINVAL or -ERANGE (soft above hard).
 */
int systemd_parse_limit(const char *value, uint64_t *soft, uint64_t *hard);

#endif
