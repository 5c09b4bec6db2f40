// SPDX-License-Identifier: MIT
/*
 * RLIMIT_MEMLOCK of a process, of a PAM login and of a systemd service.
 * The PAM and systemd parsers follow what pam_limits (Linux-PAM 1.5) and
 * systemd's conf-parser really do, including what they silently accept.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/root.h"
#include "base/sysfs.h"
#include "node/limits.h"

#define CONF_MAX (1u << 20)	/* config files larger than 1 MiB are not config */

#define PAM_CONF "/etc/security/limits.conf"
#define PAM_DIR "/etc/security/limits.d"
#define PAM_FIX_FILE "/etc/security/limits.d/99-rdma.conf"
#define SD_FIX_FILE "/etc/systemd/system.conf.d/90-memlock.conf"

const char *limit_scope_str(enum limit_scope s)
{
	switch (s) {
	case LIMIT_PROCESS:
		return "process";
	case LIMIT_PAM:
		return "pam";
	case LIMIT_SYSTEMD:
		return "systemd";
	}
	return "unknown";
}

const char *limit_verdict_str(enum limit_verdict v)
{
	switch (v) {
	case VERDICT_OK:
		return "ok";
	case VERDICT_WARN:
		return "warn";
	case VERDICT_FAIL:
		return "fail";
	}
	return "unknown";
}

const char *memlock_str(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned int u = 0;
	uint64_t v = bytes;

	if (bytes == MEMLOCK_INFINITY) {
		snprintf(buf, len, "unlimited");
		return buf;
	}
	/* Whole units only when exact: "64 KiB", "1.5 GiB" is shown as "1536 MiB". */
	while (u < 6 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 " %s", v, units[u]);
	return buf;
}

/* ---- the process scope: /proc/PID/limits ---- */

static int parse_rlim_word(const char *w, uint64_t *out)
{
	char *end;

	if (!strcmp(w, "unlimited")) {
		*out = MEMLOCK_INFINITY;
		return 0;
	}
	if (!isdigit((unsigned char)*w))
		return -EINVAL;
	errno = 0;
	*out = strtoull(w, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* "Max locked memory         65536                65536                bytes" */
int limits_parse_proc(const char *text, uint64_t *soft, uint64_t *hard)
{
	static const char key[] = "Max locked memory";
	const char *line = text;
	char s[32], h[32];

	while (line && *line) {
		if (!strncmp(line, key, sizeof(key) - 1)) {
			if (sscanf(line + sizeof(key) - 1, "%31s %31s", s, h) != 2)
				return -EINVAL;
			if (parse_rlim_word(s, soft) || parse_rlim_word(h, hard))
				return -EINVAL;
			return 0;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return -EINVAL;
}

static void set_src(char *dst, const char *fmt, const char *a, unsigned int line)
{
	if (line)
		snprintf(dst, LIMIT_SRC_LEN, "%s:%u", a, line);
	else
		snprintf(dst, LIMIT_SRC_LEN, fmt, a);
}

static int process_from_getrlimit(struct memlock *out)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return -errno;
	out->soft = rl.rlim_cur == RLIM_INFINITY ? MEMLOCK_INFINITY : rl.rlim_cur;
	out->hard = rl.rlim_max == RLIM_INFINITY ? MEMLOCK_INFINITY : rl.rlim_max;
	snprintf(out->soft_src, LIMIT_SRC_LEN, "getrlimit");
	snprintf(out->hard_src, LIMIT_SRC_LEN, "getrlimit");
	return 0;
}

int limits_process(const struct ctx *ctx, pid_t pid, struct memlock *out)
{
	char path[64], *text;
	int ret;

	memset(out, 0, sizeof(*out));
	out->scope = LIMIT_PROCESS;
	out->pid = pid;
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/limits");
	ret = read_file(ctx, path, 64 * 1024, &text, NULL);
	/* No /proc on the live system: ask the kernel directly. */
	if (ret == -ENOENT && !pid && !(ctx && ctx->root && ctx->root[0]))
		return process_from_getrlimit(out);
	if (ret)
		return ret == -ENOENT ? -ESRCH : ret;
	ret = limits_parse_proc(text, &out->soft, &out->hard);
	free(text);
	if (ret)
		return ret;
	set_src(out->soft_src, "%s", path, 0);
	set_src(out->hard_src, "%s", path, 0);
	return 0;
}

/* ---- whole config files, split into numbered lines ---- */

struct conf_file {
	char *text;		/* the file, '\n' turned into '\0' as lines are taken */
	char *next;
	size_t left;
	unsigned int lineno;
};

static int conf_open(const struct ctx *ctx, const char *path, struct conf_file *f)
{
	size_t len;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = read_file(ctx, path, CONF_MAX, &f->text, &len);
	if (ret)
		return ret;
	f->next = f->text;
	f->left = len;
	return 0;
}

/* The next line as a C string (a NUL byte in it ends it early, as in C readers). */
static char *conf_line(struct conf_file *f)
{
	char *line = f->next, *nl;

	if (!f->left)
		return NULL;
	nl = memchr(line, '\n', f->left);
	if (nl) {
		*nl = '\0';
		f->left -= (size_t)(nl - line) + 1;
		f->next = nl + 1;
	} else {
		f->next = line + f->left;
		f->left = 0;
	}
	f->lineno++;
	return line;
}

static void conf_close(struct conf_file *f)
{
	free(f->text);
	f->text = NULL;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, int n)
{
	while (n > 0)
		free(names[--n]);
	free(names);
}

/* Names NAME.conf in @dir (below the root), sorted as glob() sorts them; count or -errno. */
static int list_conf_dir(const struct ctx *ctx, const char *dir, char ***out)
{
	char **names = NULL, **nn;
	struct dirent *de;
	size_t n = 0, len;
	DIR *d;

	*out = NULL;
	d = root_opendir(ctx, dir);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		/* glob("*.conf") skips dot files. */
		if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".conf"))
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	*out = names;
	return (int)n;
}

/* What lstat() says of @path below the root: 'f' file, 'd' dir, 'n' link to /dev/null, 0 other. */
static char conf_kind(const struct ctx *ctx, const char *path)
{
	char target[64];
	struct stat st;

	if (root_stat(ctx, path, true, &st))
		return 0;
	if (S_ISLNK(st.st_mode)) {
		if (root_readlink(ctx, path, target, sizeof(target)) > 0 && !strcmp(target, "/dev/null"))
			return 'n';
		/* Followed inside the root, as on the node. */
		if (root_stat(ctx, path, false, &st))
			return 0;
	}
	return S_ISDIR(st.st_mode) ? 'd' : S_ISREG(st.st_mode) ? 'f' : 0;
}

static int systemd_resolve(const struct ctx *ctx, bool quiet, struct memlock *out);

/* ---- the user a PAM login is for ---- */

struct pam_user {
	char name[64];
	char home[256];		/* its home directory; "" when /etc/passwd gives none */
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int ngroups;
};

static bool live(const struct ctx *ctx)
{
	return !ctx || !ctx->root || !ctx->root[0];
}

/* Split "a:b:c" in place into at most @max fields; the count. */
static int split_colon(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, ':');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

static int parse_id(const char *s, unsigned int *out)
{
	long v;

	if (!*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, NULL, 10);
	if (errno || v < 0 || v > (long)UINT_MAX - 1)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

/* The user of @name (or of @uid when @name is NULL) in <root>/etc/passwd. */
static int root_passwd(const struct ctx *ctx, const char *name, uid_t uid, struct pam_user *u)
{
	struct conf_file f;
	char *line, *fld[7];
	unsigned int id, gid;
	int ret = -ENOENT, n;

	if (conf_open(ctx, "/etc/passwd", &f))
		return -ENOENT;
	while ((line = conf_line(&f))) {
		n = split_colon(line, fld, 7);
		if (n < 4 || parse_id(fld[2], &id) || parse_id(fld[3], &gid))
			continue;
		if (name ? strcmp(fld[0], name) != 0 : id != uid)
			continue;
		if (strlen(fld[0]) >= sizeof(u->name))
			continue;
		snprintf(u->name, sizeof(u->name), "%s", fld[0]);
		snprintf(u->home, sizeof(u->home), "%s", n >= 6 ? fld[5] : "");
		u->uid = id;
		u->gid = gid;
		ret = 0;
		break;
	}
	conf_close(&f);
	return ret;
}

static int add_gid(struct pam_user *u, gid_t gid)
{
	gid_t *ng = realloc(u->groups, ((size_t)u->ngroups + 1) * sizeof(*ng));

	if (!ng)
		return -ENOMEM;
	u->groups = ng;
	u->groups[u->ngroups++] = gid;
	return 0;
}

static bool in_members(char *members, const char *name)
{
	char *save = NULL, *m;

	for (m = strtok_r(members, ",", &save); m; m = strtok_r(NULL, ",", &save))
		if (!strcmp(strtrim(m), name))
			return true;
	return false;
}

/* The user's groups from <root>/etc/group: the primary one and those listing the user. */
static int root_groups(const struct ctx *ctx, struct pam_user *u)
{
	struct conf_file f;
	char *line, *fld[4];
	unsigned int gid;
	int ret = add_gid(u, u->gid);

	if (ret || conf_open(ctx, "/etc/group", &f))
		return ret;
	while (!ret && (line = conf_line(&f))) {
		if (split_colon(line, fld, 4) < 4 || parse_id(fld[2], &gid))
			continue;
		if (gid != u->gid && in_members(fld[3], u->name))
			ret = add_gid(u, gid);
	}
	conf_close(&f);
	return ret;
}

/* "Uid:	1000	1000	1000	1000" of the recorded process, else our own uid. */
static uid_t recorded_uid(const struct ctx *ctx)
{
	struct conf_file f;
	unsigned int uid = (unsigned int)getuid();
	char *line;

	if (conf_open(ctx, "/proc/self/status", &f))
		return getuid();
	while ((line = conf_line(&f)))
		if (!strncmp(line, "Uid:", 4) && !parse_id(strtrim(line + 4), &uid))
			break;
	conf_close(&f);
	return uid;
}

bool limits_has_ipc_lock(const struct ctx *ctx, const char *set)
{
	struct conf_file f;
	unsigned long long caps;
	size_t n = strlen(set);
	bool yes = false;
	char *line;

	if (conf_open(ctx, "/proc/self/status", &f))
		return false;
	while ((line = conf_line(&f)))
		if (!strncmp(line, set, n) && line[n] == ':' && sscanf(line + n + 1, "%llx", &caps) == 1) {
			yes = caps >> LIMITS_CAP_IPC_LOCK & 1;
			break;
		}
	conf_close(&f);
	return yes;
}

static int live_user(const char *name, struct pam_user *u)
{
	struct passwd *pw;
	int n = 32;

	errno = 0;
	pw = name ? getpwnam(name) : getpwuid(getuid());
	if (!pw || strlen(pw->pw_name) >= sizeof(u->name))
		return -ENOENT;
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	snprintf(u->home, sizeof(u->home), "%s", pw->pw_dir ? pw->pw_dir : "");
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	for (;;) {
		gid_t *g = realloc(u->groups, (size_t)n * sizeof(*g));

		if (!g)
			return -ENOMEM;
		u->groups = g;
		u->ngroups = n;
		if (getgrouplist(u->name, u->gid, u->groups, &u->ngroups) >= 0)
			return 0;
		if (u->ngroups <= n || u->ngroups > 65536)
			return -EIO;
		n = u->ngroups;
	}
}

static int user_lookup(const struct ctx *ctx, const char *name, struct pam_user *u)
{
	int ret;

	memset(u, 0, sizeof(*u));
	if (live(ctx))
		return live_user(name, u);
	ret = root_passwd(ctx, name, name ? 0 : recorded_uid(ctx), u);
	return ret ? ret : root_groups(ctx, u);
}

int limits_user_home(const struct ctx *ctx, char *home, size_t len)
{
	struct pam_user u;
	int ret = user_lookup(ctx, NULL, &u);

	free(u.groups);
	snprintf(home, len, "%s", ret ? "" : u.home);
	return ret;
}

int limits_user_known(const struct ctx *ctx, const char *name)
{
	struct pam_user u;
	int ret = user_lookup(ctx, name, &u);

	free(u.groups);
	if (ret == -ENOENT)
		log_err(ctx, "Failed to find user '%s' in /etc/passwd. Give an existing user "
			"with --user NAME.", name);
	else if (ret)
		log_err_errno(ctx, ret, "Failed to look up user '%s': %s", name, strerror(-ret));
	return ret;
}

static bool user_has_gid(const struct pam_user *u, gid_t gid)
{
	int i;

	for (i = 0; i < u->ngroups; i++)
		if (u->groups[i] == gid)
			return true;
	return false;
}

/* The gid of group @name; 0 or -ENOENT. */
static int group_gid(const struct ctx *ctx, const char *name, gid_t *gid)
{
	struct conf_file f;
	char *line, *fld[4];
	unsigned int id;
	struct group *gr;
	int ret = -ENOENT;

	if (live(ctx)) {
		gr = getgrnam(name);
		if (!gr)
			return -ENOENT;
		*gid = gr->gr_gid;
		return 0;
	}
	if (conf_open(ctx, "/etc/group", &f))
		return -ENOENT;
	while ((line = conf_line(&f))) {
		if (split_colon(line, fld, 4) >= 3 && !strcmp(fld[0], name) && !parse_id(fld[2], &id)) {
			*gid = id;
			ret = 0;
			break;
		}
	}
	conf_close(&f);
	return ret;
}

/* ---- pam_limits: limits.conf, then limits.d/NAME.conf ---- */

/* pam_limits' precedence: a lower source beats a higher one, equal ones: the later line. */
enum pam_src {
	SRC_USER = 0,		/* the user's name or a uid range */
	SRC_GROUP = 1,		/* @group or a gid range */
	SRC_DEFAULT = 4,	/* "*" */
	SRC_NONE = 6,		/* not set by any line */
};

enum { PAM_SOFT = 1, PAM_HARD = 2 };

struct pam_val {
	uint64_t v;
	int src;
	char where[LIMIT_SRC_LEN];	/* FILE:LINE */
	char domain[64];
	char type[8];
};

struct pam_state {
	const struct ctx *ctx;
	const struct pam_user *user;
	const char *file;
	unsigned int lineno;
	struct pam_val soft, hard;
	char off_at[LIMIT_SRC_LEN];	/* a "DOMAIN -" line turned pam_limits off */
	bool root_rule;			/* Debian's pam_limits and uid 0: see root_domain_source() */
	char not_for_root[LIMIT_SRC_LEN];	/* "FILE:1,2" of the lines that rule skipped */
	const char *not_for_root_file;	/* the file named last in it */
};

#define pam_warn(st, fmt, ...) \
	log_warn((st)->ctx, "%s:%u: " fmt, (st)->file, (st)->lineno, __VA_ARGS__)

int pam_parse_memlock(const char *value, uint64_t *bytes)
{
	unsigned long long v;
	char *end;

	if (!strcmp(value, "-1") || !strcmp(value, "-") || !strcmp(value, "unlimited") ||
	    !strcmp(value, "infinity")) {
		*bytes = MEMLOCK_INFINITY;
		return 0;
	}
	/* strtoull as pam_limits calls it: junk after the number is ignored, "-5" wraps. */
	errno = 0;
	v = strtoull(value, &end, 10);
	if (end == value)
		return -EINVAL;
	*bytes = v >= UINT64_MAX / 1024 ? MEMLOCK_INFINITY : (uint64_t)v * 1024;
	return *end || errno || value[strspn(value, " \t")] == '-' ? 1 : 0;
}

static void pam_set(struct pam_state *st, struct pam_val *pv, int src, uint64_t v,
		    const char *domain, const char *type)
{
	pv->v = v;
	pv->src = src;
	snprintf(pv->where, sizeof(pv->where), "%s:%u", st->file, st->lineno);
	snprintf(pv->domain, sizeof(pv->domain), "%s", domain);
	snprintf(pv->type, sizeof(pv->type), "%s", type);
}

/* process_limit() of pam_limits, for the memlock item only. */
static void pam_apply(struct pam_state *st, int src, const char *domain, const char *type,
		      const char *value)
{
	uint64_t v;
	int kind, ret;

	if (!strcmp(type, "soft"))
		kind = PAM_SOFT;
	else if (!strcmp(type, "hard"))
		kind = PAM_HARD;
	else if (!strcmp(type, "-"))
		kind = PAM_SOFT | PAM_HARD;
	else {
		pam_warn(st, "unknown limit type '%s'; pam_limits skips the line", type);
		return;
	}
	ret = pam_parse_memlock(value, &v);
	if (ret < 0) {
		pam_warn(st, "wrong memlock value '%s'%s; pam_limits skips the line", value,
			 strchr(value, '\r') ? " (DOS line ending)" : "");
		return;
	}
	if (ret > 0)
		pam_warn(st, "memlock value '%s' read as %s by pam_limits", value,
			 v == MEMLOCK_INFINITY ? "unlimited" : "its leading number");
	/* A stronger source already set it: the rest of the line is not applied either. */
	if (kind & PAM_SOFT) {
		if (st->soft.src < src)
			return;
		pam_set(st, &st->soft, src, v, domain, type);
	}
	if (kind & PAM_HARD) {
		if (st->hard.src < src)
			return;
		pam_set(st, &st->hard, src, v, domain, type);
	}
}

enum range { RANGE_ERR = -1, RANGE_NONE, RANGE_ONE, RANGE_MIN, RANGE_MM };

/* "1000:", ":1000", "1000:2000", "@100:200"; pam_limits' parse_uid_range(). */
static enum range parse_range(const char *domain, unsigned long *min, unsigned long *max)
{
	const char *r = domain, *pmax = strchr(domain, ':');
	enum range rv = RANGE_MM;
	char *end;

	if (!pmax)
		return RANGE_NONE;
	pmax++;
	if (*r == '@' || *r == '%')
		r++;
	if (*r == ':') {
		rv = RANGE_ONE;
	} else {
		errno = 0;
		*min = strtoul(r, &end, 10);
		if (errno || end == r || *end != ':')
			return RANGE_ERR;
	}
	if (!*pmax)
		return rv == RANGE_ONE ? RANGE_ERR : RANGE_MIN;
	errno = 0;
	*max = strtoul(pmax, &end, 10);
	if (errno || end == pmax || *end)
		return RANGE_ERR;
	if (rv == RANGE_ONE)
		*min = *max;
	return rv;
}

static bool in_range(unsigned long id, enum range rng, unsigned long min, unsigned long max)
{
	switch (rng) {
	case RANGE_ONE:
		return id == max;
	case RANGE_MM:
		return id >= min && id <= max;
	case RANGE_MIN:
		return id >= min;
	default:
		return false;
	}
}

/* @group: by name, by exact gid (any of the user's groups), or a range of the primary gid. */
static bool group_matches(struct pam_state *st, const char *domain, enum range rng,
			  unsigned long min, unsigned long max)
{
	gid_t gid;

	if (rng == RANGE_NONE)
		return !group_gid(st->ctx, domain + 1, &gid) && user_has_gid(st->user, gid);
	if (rng == RANGE_ONE)
		return user_has_gid(st->user, (gid_t)max);
	return in_range(st->user->gid, rng, min, max);
}

/* The source a domain gives for this user, or -1 when it does not apply. */
static int domain_source(struct pam_state *st, const char *domain, enum range rng,
			 unsigned long min, unsigned long max)
{
	if (!strcmp(domain, st->user->name))
		return SRC_USER;
	if (domain[0] == '@')
		return group_matches(st, domain, rng, min, max) ? SRC_GROUP : -1;
	if (domain[0] == '%')
		return -1;	/* maxlogins only */
	if (rng == RANGE_NONE)
		return strcmp(domain, "*") ? -1 : SRC_DEFAULT;
	return in_range(st->user->uid, rng, min, max) ? SRC_USER : -1;
}

/* Add FILE:LINE to st->not_for_root, "FILE:1,2, OTHER:3"; " ..." once it is full. */
static void note_not_for_root(struct pam_state *st)
{
	char *buf = st->not_for_root;
	size_t n = strlen(buf), len = sizeof(st->not_for_root);
	int w;

	if (n >= 4 && !strcmp(buf + n - 4, " ..."))
		return;
	if (st->not_for_root_file == st->file)
		w = snprintf(buf + n, len - n, ",%u", st->lineno);
	else
		w = snprintf(buf + n, len - n, "%s%s:%u", n ? ", " : "", st->file, st->lineno);
	if (w < 0 || (size_t)w >= len - n) {
		/* Cut back to the last whole entry and say there is more. */
		buf[n] = '\0';
		if (n + 4 < len)
			memcpy(buf + n, " ...", 5);
		return;
	}
	st->not_for_root_file = st->file;
}

/*
 * A DOMAIN TYPE ITEM VALUE line for uid 0 as Debian's pam_limits reads it
 * (its patch 027, also in Ubuntu; limits.conf(5): "group and wildcard
 * limits are not applied to the root user"): the literal user name
 * applies, and so does any uid range, even one written with a leading '@'
 * or '%', which is dropped ("@0:" is the uid range "0:"), both as a user
 * line; "*", "@group" and "%group" never do.  Checked against
 * libpam-modules 1.5.2-6+deb12u1.  A line the other users' rules would
 * have applied is remembered, so the fix can say why the file does not work.
 */
static int root_domain_source(struct pam_state *st, const char *domain, enum range rng,
			      unsigned long min, unsigned long max)
{
	if (!strcmp(domain, st->user->name))
		return SRC_USER;
	if (rng != RANGE_NONE && in_range(st->user->uid, rng, min, max))
		return SRC_USER;
	if (domain_source(st, domain, rng, min, max) >= 0)
		note_not_for_root(st);
	return -1;
}

static void lower(char *s)
{
	for (; s && *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* pam_limits' split(): three words, then the rest of the line trimmed of blanks. */
static int pam_split(char *line, char **f)
{
	char *save = NULL, *v;
	int n = 0;

	f[0] = strtok_r(line, " \t", &save);
	f[1] = f[0] ? strtok_r(NULL, " \t", &save) : NULL;
	f[2] = f[1] ? strtok_r(NULL, " \t", &save) : NULL;
	v = f[2] ? strtok_r(NULL, "", &save) : NULL;
	if (v) {
		v += strspn(v, " \t");
		while (*v && (v[strlen(v) - 1] == ' ' || v[strlen(v) - 1] == '\t'))
			v[strlen(v) - 1] = '\0';
	}
	f[3] = v && *v ? v : NULL;
	while (n < 4 && f[n])
		n++;
	return n;
}

/* One line; returns 1 when a "DOMAIN -" line for this user ends the parsing. */
static int pam_line(struct pam_state *st, char *line)
{
	unsigned long min = 0, max = 0;
	enum range rng;
	char *f[4];
	int n, src;

	line += strspn(line, " \t\r\f\v");
	line[strcspn(line, "#")] = '\0';
	if (!*line)
		return 0;
	n = pam_split(line, f);
	if (n >= 2)
		lower(f[1]);
	rng = parse_range(f[0], &min, &max);
	if (rng == RANGE_ERR) {
		pam_warn(st, "invalid uid range '%s'; pam_limits skips the line", f[0]);
		return 0;
	}
	if (n == 4) {
		lower(f[2]);
		lower(f[3]);
		if (strcmp(f[2], "memlock"))
			return 0;
		src = st->root_rule ? root_domain_source(st, f[0], rng, min, max)
				    : domain_source(st, f[0], rng, min, max);
		if (src >= 0)
			pam_apply(st, src, f[0], f[1], f[3]);
		return 0;
	}
	if (n == 2 && f[1][0] == '-') {
		/* "DOMAIN -": no limits at all for this user ("*" never matches here). */
		if (domain_source(st, f[0], rng, min, max) < 0 || !strcmp(f[0], "*"))
			return 0;
		snprintf(st->off_at, sizeof(st->off_at), "%s:%u", st->file, st->lineno);
		return 1;
	}
	pam_warn(st, "invalid line (%d fields, expected 4: DOMAIN TYPE ITEM VALUE); pam_limits skips it", n);
	return 0;
}

/* 0, 1 when parsing stops here, or -errno of reading the file. */
static int pam_file(struct pam_state *st, const char *path)
{
	struct conf_file f;
	char *line;
	int ret;

	ret = conf_open(st->ctx, path, &f);
	if (ret == -ENOENT || ret == -EISDIR)
		return 0;
	if (ret) {
		log_warn(st->ctx, "Failed to read %s: %s (pam_limits then refuses the login)", path,
			 strerror(-ret));
		return 0;
	}
	st->file = path;
	while (!ret && (line = conf_line(&f))) {
		st->lineno = f.lineno;
		ret = pam_line(st, line);
	}
	conf_close(&f);
	return ret;
}

static void pam_parse_all(struct pam_state *st)
{
	char path[512], **names;
	int i, n;

	if (pam_file(st, PAM_CONF) > 0)
		return;
	n = list_conf_dir(st->ctx, PAM_DIR, &names);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", PAM_DIR, names[i]);
		if (conf_kind(st->ctx, path) == 'd')
			continue;
		if (pam_file(st, path) > 0)
			break;
	}
	free_names(names, n);
}

/* The domain a new line must name: "*", but "root" where Debian's rule ignores "*". */
static const char *fix_domain(const struct pam_state *st)
{
	return st->root_rule ? st->user->name : "*";
}

static void pam_fix_line(char *fix, size_t len, const struct pam_val *pv, const char *kind,
			 const char *domain)
{
	size_t n = strlen(fix);

	if (pv->src == SRC_NONE)
		snprintf(fix + n, len - n, "%sadd to " PAM_FIX_FILE ": %s %s memlock unlimited",
			 n ? "\n" : "", domain, kind);
	else
		snprintf(fix + n, len - n, "%schange %s to: %s %s memlock unlimited", n ? "\n" : "",
			 pv->where, pv->domain, pv->type);
}

static void pam_fix(const struct pam_state *st, const struct memlock *sd, struct memlock *out)
{
	size_t n;

	if (st->off_at[0]) {
		n = (size_t)snprintf(out->fix, sizeof(out->fix),
				     "%s turns pam_limits off for %s; the login keeps the service "
				     "manager's limit:\n", st->off_at, out->user);
		snprintf(out->fix + n, sizeof(out->fix) - n, "%s", sd->fix);
		return;
	}
	if (st->soft.src == SRC_NONE && st->hard.src == SRC_NONE) {
		/* The "*" lines for everyone else, the user's own for root. */
		n = (size_t)snprintf(out->fix, sizeof(out->fix), "write " PAM_FIX_FILE ":\n"
				     "* soft memlock unlimited\n* hard memlock unlimited\n");
		if (st->root_rule)
			n += (size_t)snprintf(out->fix + n, sizeof(out->fix) - n,
					      "%s soft memlock unlimited\n%s hard memlock unlimited\n",
					      st->user->name, st->user->name);
		snprintf(out->fix + n, sizeof(out->fix) - n, "then log in again");
		return;
	}
	out->fix[0] = '\0';
	if (st->soft.src == st->hard.src && !strcmp(st->soft.where, st->hard.where)) {
		pam_fix_line(out->fix, sizeof(out->fix), &st->soft, st->soft.type, fix_domain(st));
	} else {
		pam_fix_line(out->fix, sizeof(out->fix), &st->soft, "soft", fix_domain(st));
		pam_fix_line(out->fix, sizeof(out->fix), &st->hard, "hard", fix_domain(st));
	}
	n = strlen(out->fix);
	snprintf(out->fix + n, sizeof(out->fix) - n, "\nthen log in again");
}

/*
 * Debian and Ubuntu patch pam_limits to skip group and wildcard lines for
 * root (root_domain_source()); upstream Linux-PAM (Fedora, RHEL, SUSE)
 * does not.  /etc/debian_version marks both.
 */
static bool debian_pam(const struct ctx *ctx)
{
	return conf_kind(ctx, "/etc/debian_version") == 'f';
}

static void pam_inherit(char *src, const char *from)
{
	char tmp[LIMIT_SRC_LEN];

	snprintf(tmp, sizeof(tmp), "%s", from);
	snprintf(src, LIMIT_SRC_LEN, "inherited (systemd: %.280s)", tmp);
}

int limits_pam(const struct ctx *ctx, const char *user, struct memlock *out)
{
	struct pam_state st = { .ctx = ctx };
	struct pam_user u;
	struct memlock sd;
	int ret;

	memset(out, 0, sizeof(*out));
	out->scope = LIMIT_PAM;
	ret = user_lookup(ctx, user, &u);
	if (ret) {
		free(u.groups);
		return ret;
	}
	snprintf(out->user, sizeof(out->user), "%s", u.name);
	st.user = &u;
	st.soft.src = st.hard.src = SRC_NONE;
	st.root_rule = u.uid == 0 && debian_pam(ctx);
	pam_parse_all(&st);
	snprintf(out->not_for_root, sizeof(out->not_for_root), "%s", st.not_for_root);

	/* What pam_limits leaves alone stays what sshd (a systemd service) had. */
	ret = systemd_resolve(ctx, true, &sd);
	if (ret) {
		free(u.groups);
		return ret;
	}
	if (st.off_at[0])
		st.soft.src = st.hard.src = SRC_NONE;
	out->soft = st.soft.src == SRC_NONE ? sd.soft : st.soft.v;
	out->hard = st.hard.src == SRC_NONE ? sd.hard : st.hard.v;
	if (st.soft.src == SRC_NONE)
		pam_inherit(out->soft_src, sd.soft_src);
	else
		snprintf(out->soft_src, LIMIT_SRC_LEN, "%s", st.soft.where);
	if (st.hard.src == SRC_NONE)
		pam_inherit(out->hard_src, sd.hard_src);
	else
		snprintf(out->hard_src, LIMIT_SRC_LEN, "%s", st.hard.where);
	/* setup_limits(): a soft limit above the hard one is lowered to it. */
	if (out->soft > out->hard)
		out->soft = out->hard;
	pam_fix(&st, &sd, out);
	free(u.groups);
	return 0;
}

/* ---- systemd: DefaultLimitMEMLOCK= ---- */

static const char *const sd_dirs[] = {
	"/etc/systemd", "/run/systemd", "/usr/local/lib/systemd", "/usr/lib/systemd",
};
#define N_SD_DIRS (sizeof(sd_dirs) / sizeof(sd_dirs[0]))

/* parse_size(s, 1024): "8M", "1.5G", "1G 512M", "4096"; 0, -EINVAL or -ERANGE. */
static int parse_size_1024(const char *s, uint64_t *out)
{
	static const struct { const char *sfx; uint64_t f; } tab[] = {
		{ "E", 1ULL << 60 }, { "P", 1ULL << 50 }, { "T", 1ULL << 40 }, { "G", 1ULL << 30 },
		{ "M", 1ULL << 20 }, { "K", 1ULL << 10 }, { "B", 1 }, { "", 1 },
	};
	uint64_t r = 0;
	const char *p = s;

	do {
		unsigned long long l, frac = 0, scale = 1;
		uint64_t add;
		char *e;
		size_t i;

		p += strspn(p, " \t");
		if (*p == '-')
			return -ERANGE;
		errno = 0;
		l = strtoull(p, &e, 10);
		if (errno)
			return -errno;
		if (e == p)
			return -EINVAL;
		if (*e == '.') {
			for (e++; isdigit((unsigned char)*e); e++) {
				if (scale < 1000000000000000ULL) {
					frac = frac * 10 + (unsigned long long)(*e - '0');
					scale *= 10;
				}
			}
		}
		e += strspn(e, " \t");
		for (i = 0; strncmp(e, tab[i].sfx, strlen(tab[i].sfx)); i++)
			;
		if (l + !!frac > UINT64_MAX / tab[i].f)
			return -ERANGE;
		add = l * tab[i].f + (uint64_t)((long double)frac * tab[i].f / scale);
		if (add > UINT64_MAX - r)
			return -ERANGE;
		r += add;
		p = e + strlen(tab[i].sfx);
	} while (*p);
	*out = r;
	return 0;
}

static int sd_one(const char *s, uint64_t *out)
{
	if (!strcmp(s, "infinity")) {
		*out = MEMLOCK_INFINITY;
		return 0;
	}
	return parse_size_1024(s, out) || *out == MEMLOCK_INFINITY ? -EINVAL : 0;
}

int systemd_parse_limit(const char *value, uint64_t *soft, uint64_t *hard)
{
	char buf[128], *colon;

	if (strlen(value) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", value);
	colon = strchr(buf, ':');
	if (!colon) {
		if (sd_one(buf, soft))
			return -EINVAL;
		*hard = *soft;
		return 0;
	}
	*colon = '\0';
	if (sd_one(buf, soft) || sd_one(colon + 1, hard))
		return -EINVAL;
	return *soft > *hard ? -ERANGE : 0;
}

struct sd_state {
	const struct ctx *ctx;
	bool quiet;		/* warnings already given by the caller's own pass */
	const char *file;
	unsigned int lineno;
	bool set;
	uint64_t soft, hard;
	char where[LIMIT_SRC_LEN];
	bool has_def;
	uint64_t def_soft, def_hard;
};

#define sd_warn(st, fmt, ...) do { \
	if (!(st)->quiet) \
		log_warn((st)->ctx, "%s:%u: " fmt, (st)->file, (st)->lineno, __VA_ARGS__); \
} while (0)

static void sd_assign(struct sd_state *st, const char *section, const char *value)
{
	uint64_t soft, hard;
	int ret;

	if (strcmp(section, "Manager")) {
		sd_warn(st, "DefaultLimitMEMLOCK= in section '[%s]' is ignored; it belongs in [Manager]",
			section);
		return;
	}
	ret = systemd_parse_limit(value, &soft, &hard);
	if (ret == -ERANGE) {
		sd_warn(st, "soft limit above the hard one in 'DefaultLimitMEMLOCK=%s'; systemd ignores it",
			value);
		return;
	}
	if (ret) {
		sd_warn(st, "Failed to parse 'DefaultLimitMEMLOCK=%s'; systemd ignores it", value);
		return;
	}
	st->set = true;
	st->soft = soft;
	st->hard = hard;
	snprintf(st->where, sizeof(st->where), "%s:%u", st->file, st->lineno);
}

/* "#DefaultLimitMEMLOCK=8M" in the packaged system.conf: the compiled-in default. */
static void sd_default_hint(struct sd_state *st, const char *line)
{
	static const char key[] = "#DefaultLimitMEMLOCK=";

	if (!strncmp(line, key, sizeof(key) - 1) &&
	    !systemd_parse_limit(line + sizeof(key) - 1, &st->def_soft, &st->def_hard))
		st->has_def = true;
}

static void sd_line(struct sd_state *st, char *line, char *section, size_t seclen, bool main)
{
	char *eq, *key, *val;
	size_t n;

	line = strtrim(line);
	if (!*line || *line == '#' || *line == ';') {
		if (main)
			sd_default_hint(st, line);
		return;
	}
	if (*line == '[') {
		n = strlen(line);
		if (n < 3 || line[n - 1] != ']') {
			sd_warn(st, "invalid section header '%s'", line);
			return;
		}
		snprintf(section, seclen, "%.*s", (int)(n - 2), line + 1);
		return;
	}
	eq = strchr(line, '=');
	if (!eq) {
		sd_warn(st, "missing '=' in '%s'; systemd ignores the line", line);
		return;
	}
	*eq = '\0';
	key = strtrim(line);
	val = strtrim(eq + 1);
	if (strcmp(key, "DefaultLimitMEMLOCK"))
		return;
	if (!section[0]) {
		sd_warn(st, "DefaultLimitMEMLOCK=%s outside any section is ignored", val);
		return;
	}
	sd_assign(st, section, val);
}

static void sd_file(struct sd_state *st, const char *path, bool main)
{
	struct conf_file f;
	char section[64] = "", *line, *cont = NULL;
	int ret;

	ret = conf_open(st->ctx, path, &f);
	if (ret) {
		if (ret != -ENOENT && !st->quiet)
			log_warn(st->ctx, "Failed to read %s: %s", path, strerror(-ret));
		return;
	}
	st->file = path;
	while ((line = conf_line(&f))) {
		size_t n = strlen(line);

		st->lineno = f.lineno;
		/* A trailing backslash continues the line (kept as a blank). */
		if (n && line[n - 1] == '\\' && f.left) {
			line[n - 1] = ' ';
			line[n] = ' ';	/* the '\0' that was the '\n' */
			if (!cont)
				cont = line;
			continue;
		}
		sd_line(st, cont ? cont : line, section, sizeof(section), main);
		cont = NULL;
	}
	conf_close(&f);
}

struct dropin {
	char *name;
	const char *dir;
};

static int cmp_dropin(const void *a, const void *b)
{
	return strcmp(((const struct dropin *)a)->name, ((const struct dropin *)b)->name);
}

static bool dropin_known(const struct dropin *d, size_t n, const char *name)
{
	while (n--)
		if (!strcmp(d[n].name, name))
			return true;
	return false;
}

/*
 * system.conf.d/NAME.conf of every directory; a name in an earlier one
 * (/etc before /run before /usr/local/lib before /usr/lib) hides the others.
 */
static size_t sd_dropins(const struct ctx *ctx, struct dropin **out)
{
	struct dropin *d = NULL, *nd;
	size_t n = 0, i;
	char dir[256], **names;
	int k, m;

	for (i = 0; i < N_SD_DIRS; i++) {
		snprintf(dir, sizeof(dir), "%s/system.conf.d", sd_dirs[i]);
		m = list_conf_dir(ctx, dir, &names);
		for (k = 0; k < m; k++) {
			if (dropin_known(d, n, names[k]) || !(nd = realloc(d, (n + 1) * sizeof(*d)))) {
				free(names[k]);
				continue;
			}
			d = nd;
			d[n].name = names[k];
			d[n++].dir = sd_dirs[i];
		}
		free(names);
	}
	if (n)
		qsort(d, n, sizeof(*d), cmp_dropin);
	*out = d;
	return n;
}

static void sd_parse_all(struct sd_state *st, char *last_dropin, size_t len)
{
	char path[512];
	struct dropin *d;
	size_t i, n;

	for (i = 0; i < N_SD_DIRS; i++) {
		snprintf(path, sizeof(path), "%s/system.conf", sd_dirs[i]);
		if (conf_kind(st->ctx, path) == 'f') {
			sd_file(st, path, true);
			break;
		}
	}
	n = sd_dropins(st->ctx, &d);
	for (i = 0; i < n; i++) {
		char where[LIMIT_SRC_LEN];

		snprintf(path, sizeof(path), "%s/system.conf.d/%s", d[i].dir, d[i].name);
		/* A link to /dev/null masks the name; directories are not read. */
		if (conf_kind(st->ctx, path) == 'f') {
			snprintf(where, sizeof(where), "%s", st->where);
			sd_file(st, path, false);
			if (strcmp(where, st->where))
				snprintf(last_dropin, len, "%s", d[i].name);
		}
		free(d[i].name);
	}
	free(d);
}

static int systemd_resolve(const struct ctx *ctx, bool quiet, struct memlock *out)
{
	struct sd_state st = { .ctx = ctx, .quiet = quiet };
	char dropin[256] = "";

	memset(out, 0, sizeof(*out));
	out->scope = LIMIT_SYSTEMD;
	sd_parse_all(&st, dropin, sizeof(dropin));
	if (st.set) {
		out->soft = st.soft;
		out->hard = st.hard;
		snprintf(out->soft_src, LIMIT_SRC_LEN, "%s", st.where);
	} else {
		out->soft = st.has_def ? st.def_soft : SYSTEMD_DEFAULT_MEMLOCK;
		out->hard = st.has_def ? st.def_hard : SYSTEMD_DEFAULT_MEMLOCK;
		snprintf(out->soft_src, LIMIT_SRC_LEN, "default");
	}
	snprintf(out->hard_src, LIMIT_SRC_LEN, "%s", out->soft_src);
	/* A drop-in sorting after ours would still win: change that one instead. */
	if (dropin[0] && strcmp(dropin, "90-memlock.conf") > 0)
		snprintf(out->fix, sizeof(out->fix),
			 "change %s to: DefaultLimitMEMLOCK=infinity\n"
			 "then systemctl daemon-reload and restart the services", st.where);
	else
		snprintf(out->fix, sizeof(out->fix),
			 "write " SD_FIX_FILE ":\n[Manager]\nDefaultLimitMEMLOCK=infinity\n"
			 "then systemctl daemon-reload and restart the services");
	return 0;
}

int limits_systemd(const struct ctx *ctx, struct memlock *out)
{
	return systemd_resolve(ctx, false, out);
}

/* ---- verdicts ---- */

const char *limits_root_note(const struct memlock *m, char *buf, size_t len)
{
	buf[0] = '\0';
	if (m->scope == LIMIT_PAM && m->not_for_root[0])
		snprintf(buf, len, "%s not applied to %s: limits.conf(5): \"group and wildcard "
			 "limits are not applied to the root user\"; only lines naming %s or a uid "
			 "range are", m->not_for_root, m->user, m->user);
	return buf;
}

static void process_fix(struct memlock *m)
{
	if (m->pid)
		snprintf(m->fix, sizeof(m->fix),
			 "as root: prlimit --pid %d --memlock=unlimited:unlimited\n"
			 "(memory registered after that can exceed the old limit)", (int)m->pid);
	else if (m->hard == MEMLOCK_INFINITY)
		snprintf(m->fix, sizeof(m->fix),
			 "ulimit -l unlimited (in the shell that starts the job)");
	else
		snprintf(m->fix, sizeof(m->fix),
			 "as root: prlimit --pid $$ --memlock=unlimited:unlimited (for this shell), "
			 "or fix the pam and systemd limits and log in again");
}

void limits_judge(struct memlock *m)
{
	char v[32], min[32];

	memlock_str(m->soft, v, sizeof(v));
	memlock_str(MEMLOCK_MIN_OK, min, sizeof(min));
	if (m->scope == LIMIT_PROCESS)
		process_fix(m);
	if (m->soft == MEMLOCK_INFINITY) {
		m->verdict = VERDICT_OK;
		snprintf(m->reason, sizeof(m->reason), "unlimited");
		m->fix[0] = '\0';
	} else if (m->soft >= MEMLOCK_MIN_OK) {
		m->verdict = VERDICT_WARN;
		snprintf(m->reason, sizeof(m->reason),
			 "finite limit of %s: large registrations can still fail", v);
	} else {
		m->verdict = VERDICT_FAIL;
		snprintf(m->reason, sizeof(m->reason),
			 "%s is below %s: ibv_reg_mr fails with 'Cannot allocate memory' "
			 "once that much is pinned", v, min);
	}
}

void limits_judge_node(const struct ctx *ctx, struct memlock *m)
{
	const char *who = NULL;
	char v[32];

	limits_judge(m);
	m->exempt[0] = '\0';
	if (m->verdict == VERDICT_OK)
		return;
	if (m->scope == LIMIT_PROCESS && !m->pid && limits_has_ipc_lock(ctx, "CapEff"))
		who = "this process";
	else if (m->scope == LIMIT_PAM && !strcmp(m->user, "root") &&
		 limits_has_ipc_lock(ctx, "CapBnd"))
		who = "root";
	if (!who)
		return;
	snprintf(m->exempt, sizeof(m->exempt), "%s", who);
	m->verdict = VERDICT_OK;
	snprintf(m->reason, sizeof(m->reason),
		 "not enforced: %s has CAP_IPC_LOCK, which pins past RLIMIT_MEMLOCK; a job of a "
		 "user without it gets %s", who, memlock_str(m->soft, v, sizeof(v)));
	m->fix[0] = '\0';
}
