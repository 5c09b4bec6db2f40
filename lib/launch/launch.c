// SPDX-License-Identifier: MIT
/*
 * Running a command on many nodes through srun, pdsh, clush or ssh (see
 * launch.h).  Each launcher is a child process (ssh: one per node, at most
 * --fanout at once) whose stdout and stderr are read line by line in one
 * poll loop; the lines are attributed to nodes by the launcher's own
 * prefixes:
 *
 *   pdsh, clush   "lab-c: {...}"                  (stdout and stderr)
 *                 "pdsh@lab-a: lab-c: ssh exited with exit code 255"
 *                 "clush: lab-c: exited with exit code 127"
 *   srun -l       "2: {...}"                      (task 2; its first line,
 *                 "2: rdmactl-node: lab-c", names its node)
 *
 * Children run in process groups of their own, so that a timeout or an
 * interrupted rdmactl ends a launcher with everything it started.  Not
 * all of it: pdsh starts each ssh in a session of its own, which no
 * signal to its group reaches, and they outlive a killed pdsh.  So
 * rdmactl is its launchers' subreaper while they run: what a launcher
 * leaves when it is ended becomes rdmactl's child, and is ended and
 * reaped before rdmactl goes on, or dies of the signal that ended it.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/run.h"
#include "base/signals.h"
#include "launch/launch.h"

#define LINE_MAX_BYTES (8u << 20)	/* one node document on one line, and then some */
#define NODE_MARK "rdmactl-node: "	/* srun: the first line of each task */
#define LAUNCHER_GRACE_S 30		/* a whole-cluster launcher's own start and end */
#define STOP_GRACE_MS 2000		/* a signalled launcher's time to end its nodes */
/*
 * Open files a node running holds: its ssh's stdout and stderr pipes in
 * rdmactl, or in pdsh or clush (about 2 a node, measured), which get
 * rdmactl's limit; one spare.  pdsh's exec module (--launcher local)
 * holds more: 264 nodes at once fit under 1024, 176 under 600.  And
 * rdmactl's own: stdio, its logs, the probe's listener and its agents'
 * handshakes (64).
 */
#define FDS_PER_NODE 3
#define FDS_PER_LOCAL_NODE 4
#define FDS_SPARE 96

static const char *const names[LAUNCHER_COUNT] = { "srun", "pdsh", "clush", "ssh", "local" };
/* The program each runs: the local launcher is pdsh's exec module. */
static const char *const programs[LAUNCHER_COUNT] = { "srun", "pdsh", "clush", "ssh", "pdsh" };

const char *launcher_name(enum launcher l)
{
	return l < LAUNCHER_COUNT ? names[l] : "unknown";
}

int launcher_parse(const char *s, enum launcher *out)
{
	int i;

	for (i = 0; i < LAUNCHER_COUNT; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum launcher)i;
			return 0;
		}
	return -EINVAL;
}

/* True when @prog is an executable file in a directory of PATH. */
static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char dir[4096], file[4352];
	size_t n;

	while (path && *path) {
		n = strcspn(path, ":");
		snprintf(dir, sizeof(dir), "%.*s", (int)(n < sizeof(dir) ? n : sizeof(dir) - 1), path);
		snprintf(file, sizeof(file), "%s/%s", n ? dir : ".", prog);
		if (!access(file, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

bool launcher_installed(enum launcher l)
{
	return l < LAUNCHER_COUNT && on_path(programs[l]);
}

const char *launch_rdmactl(enum launcher l, const char *given)
{
	static char self[4096];
	ssize_t n;

	if (given)
		return given;
	if (l != LAUNCHER_LOCAL)
		return "rdmactl";
	if (!self[0]) {
		/* Read once: a run starts one command on every node. */
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[n > 0 ? n : 0] = '\0';
	}
	return self[0] ? self : "rdmactl";
}

int launcher_default(enum launcher *out)
{
	static const enum launcher order[] = { LAUNCHER_PDSH, LAUNCHER_CLUSH, LAUNCHER_SSH };
	size_t i;

	if (getenv("SLURM_JOB_ID") && on_path("srun")) {
		*out = LAUNCHER_SRUN;
		return 0;
	}
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (on_path(names[order[i]])) {
			*out = order[i];
			return 0;
		}
	return -ENOENT;
}

int launch_pick(const struct ctx *ctx, const char *name, enum launcher *out)
{
	static const char *const pkg[] = { "slurm-client", "pdsh", "clustershell", "openssh-client",
					   "pdsh" };
	const char *from = name ? "--launcher" : "RDMACTL_LAUNCHER";

	if (!name && (name = getenv("RDMACTL_LAUNCHER")) && !*name)
		name = NULL;
	if (!name) {
		if (!launcher_default(out))
			return 0;
		log_err(ctx, "Failed to find a launcher: none of srun (in an allocation), pdsh, clush "
			"or ssh is installed; install pdsh, clustershell or openssh-client");
		return -ENOENT;
	}
	if (launcher_parse(name, out)) {
		log_err(ctx, "Failed to use %s '%s': not a launcher; use srun, pdsh, clush, ssh or "
			"local", from, name);
		return -EINVAL;
	}
	if (launcher_installed(*out))
		return 0;
	log_err(ctx, "Failed to use %s '%s': %s is not on PATH (Debian package %s)", from, name,
		programs[*out], pkg[*out]);
	return -ENOENT;
}

/* ---- quoting ---- */

static bool shell_safe(const char *w)
{
	return *w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789_-./=:,+@%") == strlen(w);
}

char *launch_shell_join(char *const *argv)
{
	size_t i, len = 1;
	char *out, *o;

	for (i = 0; argv[i]; i++)
		len += strlen(argv[i]) * 4 + 3;
	out = o = malloc(len);
	if (!out)
		return NULL;
	for (i = 0; argv[i]; i++) {
		const char *c;

		if (i)
			*o++ = ' ';
		if (shell_safe(argv[i])) {
			o = stpcpy(o, argv[i]);
			continue;
		}
		/* 'it'\''s': a single quote closes, is escaped, and reopens. */
		*o++ = '\'';
		for (c = argv[i]; *c; c++)
			o = *c == '\'' ? stpcpy(o, "'\\''") : (*o = *c, o + 1);
		*o++ = '\'';
	}
	*o = '\0';
	return out;
}

/* ---- one run ---- */

struct node_state {
	const char *name;
	bool output, reported, timed_out;
	int rc;			/* exit code the launcher reported; -1 unknown */
	char err[256];		/* the node's last line on stderr */
};

struct stream {
	int fd;
	char *buf;
	size_t len, cap;
};

struct proc {
	pid_t pid;
	struct stream out, err;
	struct node_state *node;	/* ssh: its node; NULL: the launcher of all */
	long deadline;			/* ms on the monotonic clock */
	int status;
	bool exited, killed;
};

struct run {
	const struct ctx *ctx;
	const struct launch *l;
	const struct launch_sink *sink;
	struct node_state *nodes;
	struct node_state **sorted;	/* by name, for the launchers' prefixes */
	size_t n;
	char *cmd;			/* the command line for ssh, pdsh and clush */
	size_t next;			/* ssh: the next node to start */
	struct node_state **tasks;	/* srun: task -> node */
	size_t ntasks;
	char err[256];			/* the launcher's own last error line */
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static int cmp_node(const void *a, const void *b)
{
	return strcmp((*(struct node_state *const *)a)->name, (*(struct node_state *const *)b)->name);
}

static struct node_state *node_find(const struct run *r, const char *name)
{
	struct node_state key = { .name = name }, *k = &key, **hit;

	hit = bsearch(&k, r->sorted, r->n, sizeof(*r->sorted), cmp_node);
	return hit ? *hit : NULL;
}

static void node_fail(struct run *r, struct node_state *ns, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void node_fail(struct run *r, struct node_state *ns, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	if (ns->reported)
		return;
	ns->reported = true;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	r->sink->fail(r->sink->arg, ns->name, why);
}

static void attribute(struct run *r, struct node_state *ns);

/* ---- children ---- */

/* The process groups of running children, for a signal that ends rdmactl. */
static volatile pid_t live_groups[4096];	/* --fanout is at most 4096 */
/* The signal that ends rdmactl once its launchers have ended; 0: none came. */
static volatile sig_atomic_t stop_sig;
/* A launcher was ended before its time: what it started may be left running. */
static volatile sig_atomic_t cut_short;

static void group_track(pid_t pid, bool on)
{
	size_t i;

	for (i = 0; i < sizeof(live_groups) / sizeof(live_groups[0]); i++)
		if (on ? !live_groups[i] : live_groups[i] == pid) {
			live_groups[i] = on ? pid : 0;
			return;
		}
}

int launch_stopped(void)
{
	return stop_sig;
}

void launch_abort(void)
{
	size_t i;

	cut_short = 1;
	for (i = 0; i < sizeof(live_groups) / sizeof(live_groups[0]); i++)
		if (live_groups[i] > 0)
			kill(-live_groups[i], SIGTERM);
}

/*
 * SIGTERM to the launchers now; the run then waits for them (SIGKILL
 * after STOP_GRACE_MS), ends what they left, and raises @sig again.
 */
static void on_signal(int sig)
{
	stop_sig = sig;
	launch_abort();
}

/* launch_hold_signals()'s hook, -1 when none holds them. */
static int held = -1;

int launch_hold_signals(void)
{
	int hook;

	cut_short = stop_sig = 0;
	hook = signals_hook(on_signal, SIGNALS_IN_CHARGE);
	if (hook < 0)
		return hook;
	held = hook;
	return 0;
}

void launch_release_signals(void)
{
	signals_unhook(held);
	held = -1;
}

#define INPUT_ENV "RDMACTL_LAUNCH_INPUT"	/* pdsh: the line, for the local shell */

static void child_exec(char *const argv[], const int out[2], const int err[2], int in,
		       const char *input)
{
	int null = in >= 0 ? in : open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (input)
		setenv(INPUT_ENV, input, 1);
	else
		unsetenv(INPUT_ENV);
	dup2(out[1], STDOUT_FILENO);
	dup2(err[1], STDERR_FILENO);
	execvp(argv[0], argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/*
 * A pipe holding @input and its newline, for a child's stdin: the line is
 * written before the child starts (it fits the pipe's buffer) and the
 * write end closed, so the command reads it and then end of file.  -1
 * with errno set on failure.
 */
static int input_pipe(const char *input)
{
	size_t len = strlen(input);
	int fds[2];

	if (len >= 4096) {
		errno = E2BIG;
		return -1;
	}
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	if (write(fds[1], input, len) != (ssize_t)len || write(fds[1], "\n", 1) != 1) {
		close(fds[0]);
		close(fds[1]);
		errno = EIO;
		return -1;
	}
	close(fds[1]);
	return fds[0];
}

static int proc_start(struct proc *p, char *const argv[], long deadline, const char *input,
		      bool pipe_input)
{
	int out[2], err[2], in = -1;

	if (pipe_input && input && (in = input_pipe(input)) < 0)
		return -errno;
	if (pipe2(out, O_CLOEXEC)) {
		if (in >= 0)
			close(in);
		return -errno;
	}
	if (pipe2(err, O_CLOEXEC)) {
		close(out[0]);
		close(out[1]);
		if (in >= 0)
			close(in);
		return -errno;
	}
	p->pid = fork();
	if (p->pid == 0)
		child_exec(argv, out, err, in, input);
	close(out[1]);
	close(err[1]);
	if (in >= 0)
		close(in);
	if (p->pid < 0) {
		close(out[0]);
		close(err[0]);
		return -errno;
	}
	setpgid(p->pid, p->pid);	/* also here: no race with a kill before exec */
	group_track(p->pid, true);
	p->out.fd = out[0];
	p->err.fd = err[0];
	p->deadline = deadline;
	return 0;
}

static void proc_kill(struct proc *p)
{
	if (p->pid > 0 && !p->exited) {
		kill(-p->pid, SIGKILL);
		p->killed = true;
		cut_short = 1;
	}
}

static void proc_reap(struct proc *p)
{
	while (!p->exited && waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR)
		;
	p->exited = true;
	group_track(p->pid, false);
}

static void stream_close(struct stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
}

/* ---- lines ---- */

typedef void (*line_fn)(struct run *r, struct proc *p, bool is_err, char *line);

static void save_err(char *dst, size_t len, const char *line)
{
	if (*line)
		snprintf(dst, len, "%s", line);
}

/* ssh: the process is the node's. */
static void ssh_line(struct run *r, struct proc *p, bool is_err, char *line)
{
	if (is_err) {
		save_err(p->node->err, sizeof(p->node->err), line);
		return;
	}
	p->node->output = true;
	r->sink->line(r->sink->arg, p->node->name, line);
}

/* "lab-c: text" -> lab-c, "text"; NULL when the prefix is no node of the run. */
static struct node_state *prefixed(const struct run *r, char *line, char **text)
{
	char *colon = strstr(line, ": ");
	struct node_state *ns;

	if (!colon)
		return NULL;
	*colon = '\0';
	ns = node_find(r, line);
	*colon = ':';
	if (ns)
		*text = colon + 2;
	return ns;
}

/* "pdsh@lab-a: lab-c: ssh exited with exit code 255", "clush: lab-c: command timeout". */
static bool launcher_note(struct run *r, char *line)
{
	struct node_state *ns;
	char *rest, *msg;

	if (!strncmp(line, "pdsh@", 5) && (rest = strstr(line, ": ")))
		rest += 2;
	else if (!strncmp(line, "clush: ", 7))
		rest = line + 7;
	else
		return false;
	ns = prefixed(r, rest, &msg);
	if (!ns && (msg = strstr(rest, " failed for host ")) && (ns = node_find(r, msg + 17))) {
		/*
		 * "pdsh@a: exec cmd sh failed for host n0998", after the cause
		 * on a line of its own ("pdsh@a: pipecmd: socketpair: Too many
		 * open files"): that node's, with the cause.
		 */
		const char *cause = r->err;

		if (!strncmp(cause, "pdsh@", 5) && strstr(cause, ": "))
			cause = strstr(cause, ": ") + 2;
		snprintf(ns->err, sizeof(ns->err), "%.*s failed%s%.200s", (int)(msg - rest), rest,
			 *cause ? ": " : "", cause);
		return true;
	}
	if (!ns) {
		save_err(r->err, sizeof(r->err), line);
		return true;
	}
	if (strstr(msg, "exit code ")) {
		ns->rc = atoi(strstr(msg, "exit code ") + 10);
		/* Said now, not when the launcher ends: a caller may be waiting for this node. */
		attribute(r, ns);
	} else if (strstr(msg, "timeout") || strstr(msg, "timed out")) {
		ns->timed_out = true;
	} else {
		save_err(ns->err, sizeof(ns->err), msg);
	}
	return true;
}

static void pdsh_line(struct run *r, struct proc *p, bool is_err, char *line)
{
	struct node_state *ns;
	char *text;

	(void)p;
	if (is_err && launcher_note(r, line))
		return;
	ns = prefixed(r, line, &text);
	if (!ns) {
		if (is_err)
			save_err(r->err, sizeof(r->err), line);
		return;
	}
	if (is_err) {
		save_err(ns->err, sizeof(ns->err), text);
		return;
	}
	ns->output = true;
	r->sink->line(r->sink->arg, ns->name, text);
}

/* srun -l: "N: text"; a task's first line names its node. */
static struct node_state **srun_task(struct run *r, char *line, char **text)
{
	char *end;
	unsigned long t = strtoul(line, &end, 10);

	if (end == line || strncmp(end, ": ", 2) || t >= r->ntasks)
		return NULL;
	*text = end + 2;
	return &r->tasks[t];
}

/* "srun: error: lab-c: task 2: Exited with exit code 127": that node's. */
static bool srun_note(struct run *r, char *line)
{
	struct node_state *ns;
	char *msg;

	if (strncmp(line, "srun: error: ", 13) || !(ns = prefixed(r, line + 13, &msg)))
		return false;
	if (strstr(msg, "exit code ")) {
		ns->rc = atoi(strstr(msg, "exit code ") + 10);
		attribute(r, ns);
	} else {
		save_err(ns->err, sizeof(ns->err), msg);
	}
	return true;
}

static void srun_line(struct run *r, struct proc *p, bool is_err, char *line)
{
	struct node_state **task;
	char *text;

	(void)p;
	task = srun_task(r, line, &text);
	if (!task) {
		if (is_err && !srun_note(r, line))
			save_err(r->err, sizeof(r->err), line);
		return;
	}
	if (!is_err && !*task && !strncmp(text, NODE_MARK, strlen(NODE_MARK))) {
		*task = node_find(r, text + strlen(NODE_MARK));
		return;
	}
	if (!*task)
		return;
	if (is_err) {
		save_err((*task)->err, sizeof((*task)->err), text);
		return;
	}
	(*task)->output = true;
	r->sink->line(r->sink->arg, (*task)->name, text);
}

/* Read what @s has; hand each complete line to @fn.  0, or 1 at EOF. */
static int stream_read(struct run *r, struct proc *p, struct stream *s, bool is_err, line_fn fn)
{
	char *nl, *nb;
	ssize_t got;

	if (s->cap - s->len < 4096) {
		size_t cap = s->cap ? s->cap * 2 : 65536;

		if (cap > LINE_MAX_BYTES + 65536 || !(nb = realloc(s->buf, cap))) {
			/* An endless line: give up on this stream, keep the node's rest. */
			s->len = 0;
			return 1;
		}
		s->buf = nb;
		s->cap = cap;
	}
	got = read(s->fd, s->buf + s->len, s->cap - s->len - 1);
	if (got < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : 1;
	if (got == 0 && s->len) {
		s->buf[s->len] = '\0';
		fn(r, p, is_err, s->buf);
		s->len = 0;
	}
	if (got == 0)
		return 1;
	s->len += (size_t)got;
	s->buf[s->len] = '\0';
	while ((nl = memchr(s->buf, '\n', s->len))) {
		*nl = '\0';
		if (nl > s->buf && nl[-1] == '\r')	/* ssh ends its own messages with CRLF */
			nl[-1] = '\0';
		fn(r, p, is_err, s->buf);
		s->len -= (size_t)(nl + 1 - s->buf);
		memmove(s->buf, nl + 1, s->len);
	}
	return 0;
}

/* ---- the poll loop ---- */

typedef void (*done_fn)(struct run *r, struct proc *p);

static size_t pollfds(struct proc *slots, size_t n, struct pollfd *pfd, long *wait)
{
	size_t i, k = 0;
	long now = now_ms();

	*wait = 1000;
	for (i = 0; i < n; i++) {
		if (slots[i].pid <= 0 || slots[i].exited)
			continue;
		if (slots[i].deadline - now < *wait)
			*wait = slots[i].deadline - now > 0 ? slots[i].deadline - now : 0;
		if (slots[i].out.fd >= 0)
			pfd[k++] = (struct pollfd){ .fd = slots[i].out.fd, .events = POLLIN };
		if (slots[i].err.fd >= 0)
			pfd[k++] = (struct pollfd){ .fd = slots[i].err.fd, .events = POLLIN };
	}
	return k;
}

/*
 * A signal came and @p has ended: what it left holds its pipes (pdsh's
 * ssh), and nothing more it says is wanted.  True when so.
 */
static bool ended_on_signal(struct proc *p)
{
	if (!stop_sig || p->exited || waitpid(p->pid, &p->status, WNOHANG) != p->pid)
		return false;
	p->exited = true;
	group_track(p->pid, false);
	stream_close(&p->out);
	stream_close(&p->err);
	return true;
}

/* Read what is ready, end what is over its time, reap what has ended. */
static void slot_step(struct run *r, struct proc *p, line_fn fn, done_fn done)
{
	struct pollfd one[2] = { { .fd = p->out.fd, .events = POLLIN },
				 { .fd = p->err.fd, .events = POLLIN } };

	if (ended_on_signal(p)) {
		done(r, p);
		p->pid = 0;
		return;
	}
	if (poll(one, 2, 0) > 0) {
		if (p->out.fd >= 0 && one[0].revents && stream_read(r, p, &p->out, false, fn))
			stream_close(&p->out);
		if (p->err.fd >= 0 && one[1].revents && stream_read(r, p, &p->err, true, fn))
			stream_close(&p->err);
	}
	if (now_ms() >= p->deadline) {
		if (p->killed) {
			/* Killed, yet a descendant outside its group holds the pipes. */
			stream_close(&p->out);
			stream_close(&p->err);
		} else {
			proc_kill(p);
			p->deadline = now_ms() + 2000;
		}
	}
	if (p->out.fd < 0 && p->err.fd < 0) {
		proc_reap(p);
		done(r, p);
		p->pid = 0;
	}
}

/*
 * A signal came: each launcher has STOP_GRACE_MS left to end, then
 * SIGKILL.  SIGTERM again on the way: one started as the signal came
 * was not yet among the groups the handler signalled.
 */
static void hasten(struct proc *slots, size_t n)
{
	long end = now_ms() + STOP_GRACE_MS;
	size_t i;

	for (i = 0; i < n; i++)
		if (slots[i].pid > 0 && !slots[i].killed && slots[i].deadline > end) {
			slots[i].deadline = end;
			kill(-slots[i].pid, SIGTERM);
		}
}

/*
 * Serve the processes of @slots until none runs; @start fills a free slot
 * with the next process (ssh's fan-out), false when there is none left.
 */
static void serve(struct run *r, struct proc *slots, size_t n, line_fn fn, done_fn done,
		  bool (*start)(struct run *r, struct proc *p))
{
	struct pollfd *pfd = calloc(n * 2, sizeof(*pfd));
	bool more = start != NULL, busy;
	size_t i;
	long wait;

	do {
		busy = false;
		if (stop_sig)
			more = false, hasten(slots, n);
		for (i = 0; i < n; i++) {
			if (slots[i].pid <= 0 && more)
				more = start(r, &slots[i]);
			busy |= slots[i].pid > 0;
		}
		if (!busy)
			break;
		if (pfd && pollfds(slots, n, pfd, &wait))
			poll(pfd, pollfds(slots, n, pfd, &wait), (int)wait);
		else
			poll(NULL, 0, 50);
		for (i = 0; i < n; i++)
			if (slots[i].pid > 0)
				slot_step(r, &slots[i], fn, done);
	} while (busy || more);
	free(pfd);
}

/* ---- launchers ---- */

static bool ssh_start(struct run *r, struct proc *p)
{
	char conn[64];
	char *argv[] = { "ssh", "-T", "-o", "BatchMode=yes", "-o", conn, NULL, r->cmd, NULL };
	struct node_state *ns;
	int ret;

	if (r->next >= r->n)
		return false;
	ns = &r->nodes[r->next++];
	snprintf(conn, sizeof(conn), "ConnectTimeout=%u",
		 r->l->node_timeout < 30 ? r->l->node_timeout : 30);
	argv[6] = (char *)ns->name;
	memset(p, 0, sizeof(*p));
	p->node = ns;
	ret = proc_start(p, argv, now_ms() + r->l->node_timeout * 1000L, r->l->input, true);
	if (ret) {
		p->pid = 0;
		node_fail(r, ns, "cannot run ssh: %s", strerror(-ret));
	}
	return r->next < r->n;
}

static void ssh_done(struct run *r, struct proc *p)
{
	if (p->killed)
		p->node->timed_out = true;
	else if (WIFEXITED(p->status))
		p->node->rc = WEXITSTATUS(p->status);
	stream_close(&p->out);
	stream_close(&p->err);
	attribute(r, p->node);
}

static void whole_done(struct run *r, struct proc *p)
{
	size_t i;

	for (i = 0; p->killed && i < r->n; i++)
		if (!r->nodes[i].output && r->nodes[i].rc < 0)
			r->nodes[i].timed_out = true;
	if (!p->killed && WIFEXITED(p->status) && WEXITSTATUS(p->status) && !r->err[0])
		snprintf(r->err, sizeof(r->err), "%s exited with code %d", launcher_name(r->l->launcher),
			 WEXITSTATUS(p->status));
	stream_close(&p->out);
	stream_close(&p->err);
}

/* "a,b,c": the names of @r's nodes for -w; NULL when out of memory. */
static char *node_list(const struct run *r)
{
	size_t i, len = 1;
	char *s, *o;

	for (i = 0; i < r->n; i++)
		len += strlen(r->nodes[i].name) + 1;
	s = o = malloc(len);
	for (i = 0; s && i < r->n; i++)
		o += sprintf(o, "%s%s", i ? "," : "", r->nodes[i].name);
	if (s)
		*o = '\0';
	return s;
}

/* The whole run is one launcher process: its time covers the fan-out's waves. */
static long whole_deadline(const struct run *r)
{
	size_t waves = r->l->launcher == LAUNCHER_SRUN || !r->l->fanout ? 1
		       : (r->n + r->l->fanout - 1) / r->l->fanout;

	return now_ms() + ((long)waves * r->l->node_timeout + LAUNCHER_GRACE_S) * 1000L;
}

static int run_whole(struct run *r, char **argv, line_fn fn)
{
	struct proc p = { 0 };
	/* pdsh does not forward its stdin: the line goes by the environment. */
	int ret = proc_start(&p, argv, whole_deadline(r), r->l->input,
			     r->l->launcher != LAUNCHER_PDSH && r->l->launcher != LAUNCHER_LOCAL);

	if (ret) {
		snprintf(r->err, sizeof(r->err), "cannot run %s: %s", argv[0], strerror(-ret));
		return ret;
	}
	serve(r, &p, 1, fn, whole_done, NULL);
	return 0;
}

/*
 * pdsh with a line for stdin: its exec module runs this local shell per
 * node (%h is the node), which pipes the line from its environment into
 * ssh, as pdsh's ssh module would run ssh.
 */
#define PDSH_INPUT_SH "printf '%%s\\n' \"$" INPUT_ENV "\" | exec ssh -T -o BatchMode=yes %h \"$1\""

static int run_pdsh_clush(struct run *r)
{
	char fan[16], tmo[16], *list = node_list(r);
	char *pdsh[] = { "pdsh", "-R", "ssh", "-f", fan, "-u", tmo, "-w", list, r->cmd, NULL };
	char *pdsh_in[] = { "pdsh", "-R", "exec", "-f", fan, "-u", tmo, "-w", list, "sh", "-c",
			    PDSH_INPUT_SH, "sh", r->cmd, NULL };
	char *clush[] = { "clush", "-f", fan, "-u", tmo, "-o", "-oBatchMode=yes", "-w", list,
			  r->cmd, NULL };
	int ret;

	if (!list)
		return -ENOMEM;
	snprintf(fan, sizeof(fan), "%u", r->l->fanout);
	snprintf(tmo, sizeof(tmo), "%u", r->l->node_timeout);
	ret = run_whole(r, r->l->launcher != LAUNCHER_PDSH ? clush : r->l->input ? pdsh_in : pdsh,
			pdsh_line);
	free(list);
	return ret;
}

/*
 * The local launcher: pdsh's exec module runs this shell once per node on
 * this machine, %h its node's name, which it exports for the command; the
 * line for stdin is taken out of the environment the command inherits.
 */
#define LOCAL_SH "export " LAUNCH_NODE_ENV "=\"$1\"; shift; "
#define LOCAL_INPUT_SH LOCAL_SH "l=$" INPUT_ENV "; unset " INPUT_ENV "; " \
	"printf '%%s\\n' \"$l\" | exec \"$@\""

/* @w with every '%' doubled: pdsh's exec module reads %h, %u and %n in every word. */
static char *pdsh_escape(const char *w)
{
	size_t n = strlen(w) + 1;
	const char *c;
	char *out, *o;

	for (c = w; *c; c++)
		n += *c == '%';
	out = o = malloc(n);
	for (c = w; out && *c; c++) {
		*o++ = *c;
		if (*c == '%')
			*o++ = '%';
	}
	if (out)
		*o = '\0';
	return out;
}

/*
 * pdsh -R exec -f N -u S -w LIST sh -c SCRIPT sh %h COMMAND...: the
 * command's words kept apart (no remote shell joins them), with the
 * --root of this rdmactl first when it has one (the nodes are this
 * machine, and read what it reads).
 */
static int run_local(struct run *r)
{
	const char *root = r->ctx->root && *r->ctx->root ? r->ctx->root : NULL;
	char fan[16], tmo[16], *list = node_list(r), **argv;
	size_t argc = 0, k = 0, i, first = 0;
	int ret = -ENOMEM;

	while (r->l->argv[argc])
		argc++;
	argv = calloc(argc + 20, sizeof(*argv));
	if (!list || !argv)
		goto out;
	snprintf(fan, sizeof(fan), "%u", r->l->fanout);
	snprintf(tmo, sizeof(tmo), "%u", r->l->node_timeout);
	{
		char *head[] = { "pdsh", "-R", "exec", "-f", fan, "-u", tmo, "-w", list, "sh", "-c",
				 r->l->input ? LOCAL_INPUT_SH : LOCAL_SH "exec \"$@\"", "sh", "%h" };

		for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
			argv[k++] = head[i];
	}
	first = k;
	for (i = 0; i < argc; i++) {
		if (!(argv[k++] = pdsh_escape(r->l->argv[i])))
			goto out;
		if (!i && root && (!(argv[k++] = strdup("--root")) || !(argv[k++] = pdsh_escape(root))))
			goto out;
	}
	ret = run_whole(r, argv, pdsh_line);
out:
	for (i = first; argv && i < k; i++)
		free(argv[i]);
	free(argv);
	free(list);
	return ret;
}

/*
 * Slurm first says which nodes it can run on: a name it does not know,
 * or a node down, drained or not responding ("idle*"), fails at once with
 * Slurm's word for it, and srun runs on the rest.
 */
static void slurm_states(struct run *r)
{
	char *list = node_list(r), *out = NULL, *line, *save = NULL;
	char *argv[] = { "sinfo", "-h", "-N", "-o", "%N %t", "-n", list, NULL };
	size_t i;

	if (!list || run_output(r->ctx, "sinfo", argv, &out)) {
		free(list);
		return;		/* srun will say what is wrong */
	}
	for (i = 0; i < r->n; i++)
		r->nodes[i].rc = -2;	/* not seen by sinfo yet */
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[256], state[64];
		struct node_state *ns;

		if (sscanf(line, "%255s %63s", name, state) != 2 || !(ns = node_find(r, name)))
			continue;
		ns->rc = -1;
		if (strchr(state, '*') || !strncmp(state, "down", 4) || !strncmp(state, "drain", 5) ||
		    !strncmp(state, "fail", 4))
			node_fail(r, ns, "Slurm says it is %s (sinfo)", state);
	}
	for (i = 0; i < r->n; i++)
		if (r->nodes[i].rc == -2) {
			r->nodes[i].rc = -1;
			node_fail(r, &r->nodes[i], "not a node of this Slurm cluster (sinfo does not know it)");
		}
	free(out);
	free(list);
}

static int run_srun(struct run *r)
{
	char nn[24], *list, **argv;
	size_t i, k = 0, argc = 0, m = 0;
	int ret;

	slurm_states(r);
	for (i = 0; i < r->n; i++)
		m += !r->nodes[i].reported;
	if (!m)
		return 0;
	while (r->l->argv[argc])
		argc++;
	argv = calloc(argc + 16, sizeof(*argv));
	list = calloc(1, 1);
	r->tasks = calloc(m, sizeof(*r->tasks));
	r->ntasks = m;
	for (i = 0; list && i < r->n; i++) {
		char *nl;

		if (r->nodes[i].reported)
			continue;
		nl = realloc(list, strlen(list) + strlen(r->nodes[i].name) + 2);
		if (!nl)
			break;
		list = nl;
		sprintf(list + strlen(list), "%s%s", *list ? "," : "", r->nodes[i].name);
	}
	if (!argv || !list || !r->tasks) {
		free(argv);
		free(list);
		return -ENOMEM;
	}
	snprintf(nn, sizeof(nn), "%zu", m);
	{
		/* Each task names its node first: srun -l labels lines by task only. */
		char *head[] = { "srun", "-N", nn, "-n", nn, "--ntasks-per-node=1", "-l", "-w", list,
				 "sh", "-c", "echo \"" NODE_MARK "$SLURMD_NODENAME\"; exec \"$@\"",
				 "rdmactl-node" };

		for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
			argv[k++] = head[i];
	}
	for (i = 0; i < argc; i++)
		argv[k++] = r->l->argv[i];
	ret = run_whole(r, argv, srun_line);
	free(argv);
	free(list);
	return ret;
}

/* ---- the run's end: every node answered, or its failure said ---- */

static void attribute(struct run *r, struct node_state *ns)
{
	const char *err = ns->err[0] ? ns->err : r->err;

	if (ns->timed_out)
		node_fail(r, ns, "no answer within %u s (--node-timeout)", r->l->node_timeout);
	else if (ns->rc == 127)
		node_fail(r, ns, "rdmactl is not installed there, or not at '%s' (exit 127%s%s)",
			  r->l->argv[0], err[0] ? ": " : "", err);
	else if (ns->rc == 255 && r->l->launcher != LAUNCHER_SRUN && r->l->launcher != LAUNCHER_LOCAL)
		node_fail(r, ns, "ssh failed: %s", err[0] ? err : "exit 255");
	else if (!ns->output)
		node_fail(r, ns, "%s", err[0] ? err : "no output, and the launcher said nothing");
	else if (ns->rc > 1)
		node_fail(r, ns, "rdmactl exited %d%s%s", ns->rc, ns->err[0] ? ": " : "", ns->err);
}

static int run_nodes(struct run *r)
{
	struct proc *slots;
	size_t n;

	r->cmd = launch_shell_join(r->l->argv);
	if (!r->cmd)
		return -ENOMEM;
	switch (r->l->launcher) {
	case LAUNCHER_SSH:
		n = r->l->fanout && r->l->fanout < r->n ? r->l->fanout : r->n;
		slots = calloc(n, sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		serve(r, slots, n, ssh_line, ssh_done, ssh_start);
		free(slots);
		return 0;
	case LAUNCHER_PDSH:
	case LAUNCHER_CLUSH:
		return run_pdsh_clush(r);
	case LAUNCHER_SRUN:
		return run_srun(r);
	case LAUNCHER_LOCAL:
		return run_local(r);
	default:
		return -EINVAL;
	}
}

/* ---- what a launcher leaves behind ---- */

/* The parent of process @pid, from /proc/PID/stat ("PID (comm) S PPID ..."); -1 unknown. */
static pid_t parent_of(const char *pid)
{
	char path[300], buf[512], *close_paren;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%.255s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	/* The command name may hold blanks and parentheses: the last ')' ends it. */
	close_paren = strrchr(buf, ')');
	return close_paren ? (pid_t)strtol(close_paren + 4, NULL, 10) : -1;
}

/*
 * rdmactl's children now: while launchers run it starts no other child
 * (sinfo's run has ended), so these are what ended launchers left and
 * rdmactl, their subreaper, adopted.  At most @max in @out; their number.
 */
static size_t adopted(pid_t *out, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid();
	size_t n = 0;

	while (d && n < max && (e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]) && parent_of(e->d_name) == self)
			out[n++] = (pid_t)strtol(e->d_name, NULL, 10);
	if (d)
		closedir(d);
	return n;
}

/* SIGTERM to @n processes and their groups, SIGKILL to those alive after a second; all reaped. */
static void end_adopted(const pid_t *pids, size_t n)
{
	size_t i, left = n;
	bool *gone = calloc(n, sizeof(*gone));
	int tries;

	for (i = 0; i < n; i++) {
		kill(-pids[i], SIGTERM);	/* pdsh's ssh leads a session, and its group */
		kill(pids[i], SIGTERM);
	}
	for (tries = 0; left && tries < 50; tries++) {
		for (i = 0; i < n; i++)
			if (gone && !gone[i] && waitpid(pids[i], NULL, WNOHANG) != 0)
				gone[i] = true, left--;
		if (left)
			poll(NULL, 0, 20);
	}
	for (i = 0; i < n; i++) {
		if (gone && gone[i])
			continue;
		kill(-pids[i], SIGKILL);
		kill(pids[i], SIGKILL);
		while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(gone);
}

/*
 * Until none is left: an ended ssh's own children (a ProxyCommand) are
 * adopted in their turn.
 */
static void reap_adopted(void)
{
	pid_t pids[1024];
	size_t n;
	int rounds;

	for (rounds = 0; rounds < 16 && (n = adopted(pids, 1024)); rounds++)
		end_adopted(pids, n);
}

/*
 * The open files a node running needs under the one limit: rdmactl's
 * @extra and, with ssh, its pipes; pdsh's and clush's pipes are theirs,
 * under the same limit in a process of their own.
 */
static unsigned int fds_per_node(enum launcher l, unsigned int extra)
{
	unsigned int theirs = l == LAUNCHER_LOCAL ? FDS_PER_LOCAL_NODE : FDS_PER_NODE;

	if (l == LAUNCHER_SRUN)
		return extra;
	if (l == LAUNCHER_SSH)
		return extra + FDS_PER_NODE;
	return extra > theirs ? extra : theirs;
}

size_t launch_room(const struct launch *l, size_t at_once, unsigned int extra,
		   unsigned long *allowed)
{
	unsigned int per = fds_per_node(l->launcher, extra);
	rlim_t want = FDS_SPARE + (rlim_t)at_once * per;
	struct rlimit rl;

	*allowed = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return at_once;
	/*
	 * As far as needed, not to the hard limit: the launchers inherit it,
	 * and some close every descriptor number below it before exec.
	 */
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	*allowed = (unsigned long)rl.rlim_cur;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want || !per)
		return at_once;
	return rl.rlim_cur > FDS_SPARE + per ? (size_t)((rl.rlim_cur - FDS_SPARE) / per) : 1;
}

int launch_run(const struct ctx *ctx, const struct launch *l, char *const *nodes, size_t n,
	       const struct launch_sink *sink)
{
	struct run r = { .ctx = ctx, .l = l, .sink = sink, .n = n };
	int ret = -ENOMEM, reaper = 0, hook;
	size_t i;

	r.nodes = calloc(n ? n : 1, sizeof(*r.nodes));
	r.sorted = calloc(n ? n : 1, sizeof(*r.sorted));
	if (r.nodes && r.sorted) {
		for (i = 0; i < n; i++) {
			r.nodes[i] = (struct node_state){ .name = nodes[i], .rc = -1 };
			r.sorted[i] = &r.nodes[i];
		}
		qsort(r.sorted, n, sizeof(*r.sorted), cmp_node);
		prctl(PR_GET_CHILD_SUBREAPER, &reaper);
		prctl(PR_SET_CHILD_SUBREAPER, 1);
		/*
		 * In charge of SIGINT, SIGTERM and SIGHUP while the launchers run
		 * (signals.h), or from before them when the caller holds them: a
		 * signal that came already starts none.
		 */
		cut_short = held >= 0 && stop_sig;
		if (held < 0)
			stop_sig = 0;
		hook = held < 0 ? signals_hook(on_signal, SIGNALS_IN_CHARGE) : -1;
		ret = run_nodes(&r);
		if (cut_short)
			reap_adopted();
		prctl(PR_SET_CHILD_SUBREAPER, reaper);
		signals_unhook(hook);
		/* The report of a run cut short is no report: end as the signal says. */
		if (stop_sig && !l->keep_signal)
			raise(stop_sig);
		if (ret && !r.err[0])
			snprintf(r.err, sizeof(r.err), "%s: %s", launcher_name(l->launcher), strerror(-ret));
		for (i = 0; i < n; i++)
			attribute(&r, &r.nodes[i]);
	}
	free(r.cmd);
	free(r.tasks);
	free(r.sorted);
	free(r.nodes);
	return ret;
}
