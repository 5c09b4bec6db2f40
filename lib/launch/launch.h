/* SPDX-License-Identifier: MIT */
/*
 * Running one command on many nodes through the launchers clusters already
 * have: Slurm's srun, pdsh, ClusterShell's clush, or plain ssh (rdmactl
 * fans out itself).  No daemon of rdmactl's runs on the nodes.
 *
 * Every line a node prints on stdout reaches the sink with the node's name;
 * a node that could not run the command (down, name unknown, ssh refused,
 * the command missing, no answer in time) reaches it once as a failure with
 * the cause, so no node is ever silently missing.
 */
#ifndef RDMACTL_LAUNCH_H
#define RDMACTL_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

struct ctx;

enum launcher {
	LAUNCHER_SRUN,
	LAUNCHER_PDSH,
	LAUNCHER_CLUSH,
	LAUNCHER_SSH,
	/*
	 * Every node a process on this machine, started by pdsh's exec
	 * module: an operator's first try on one machine, and a fleet of
	 * a thousand without a thousand hosts.  The process knows its node
	 * by RDMACTL_NODE, and reads the --root of this rdmactl.
	 */
	LAUNCHER_LOCAL,
	LAUNCHER_COUNT,
};

/* The variable holding the node's name under the local launcher. */
#define LAUNCH_NODE_ENV "RDMACTL_NODE"

/* "srun", "pdsh", "clush", "ssh", "local". */
const char *launcher_name(enum launcher l);
/* The launcher named @s; -EINVAL for another word. */
int launcher_parse(const char *s, enum launcher *out);
/*
 * The launcher to use when none is named: srun inside a Slurm allocation
 * (SLURM_JOB_ID set) when srun is installed, else the first of pdsh,
 * clush and ssh found on PATH; -ENOENT when there is none.
 */
int launcher_default(enum launcher *out);

/*
 * The rdmactl each node runs: @given (--rdmactl) when set; under the local
 * launcher, whose nodes are processes of this machine, this very program
 * (/proc/self/exe), so that a build tree's rdmactl runs itself and not
 * whichever rdmactl PATH finds; else "rdmactl", from the node's PATH.
 */
const char *launch_rdmactl(enum launcher l, const char *given);

/* True when @l's program (local: pdsh) is on PATH. */
bool launcher_installed(enum launcher l);

struct launch_sink {
	/* One line of @node's standard output, without its newline. */
	void (*line)(void *arg, const char *node, const char *line);
	/* @node did not run the command to its end: why, one line. */
	void (*fail)(void *arg, const char *node, const char *why);
	void *arg;
};

struct launch {
	enum launcher launcher;
	unsigned int fanout;		/* nodes at once (pdsh -f, clush -f, ssh) */
	unsigned int node_timeout;	/* seconds one node may take */
	char *const *argv;		/* the command each node runs; argv[0] its path there */
	/*
	 * One line every node's command reads on its standard input, or NULL
	 * (stdin is then /dev/null).  The way to hand a node a secret: never
	 * on a command line, where `ps` shows it.  srun and clush copy their
	 * stdin to every node; ssh gets it per node; pdsh does not forward
	 * stdin, so it runs ssh through its exec module with the line piped in
	 * from the environment of the local shell it starts.
	 */
	const char *input;
	/*
	 * On SIGINT, SIGTERM or SIGHUP, return once the launchers have ended
	 * instead of ending rdmactl: the caller saves what it must and raises
	 * launch_stopped() itself (probe -w --save).
	 */
	bool keep_signal;
};

/*
 * Run @l->argv on the @n nodes @nodes (distinct names) and report to
 * @sink; returns when every node has answered, failed or timed out.  0, or
 * -errno when the launcher itself could not be started (then every node
 * is also reported failed).  SIGINT, SIGTERM or SIGHUP meanwhile ends the
 * launchers and all they started, then rdmactl, of that signal: it does
 * not return (unless @l->keep_signal).
 */
int launch_run(const struct ctx *ctx, const struct launch *l, char *const *nodes, size_t n,
	       const struct launch_sink *sink);

/*
 * Room for @at_once nodes running at once, each also holding @extra open
 * files of the caller's (probe -w: its agent's connection): the soft limit
 * of open files raised toward the hard one as far as they need (a login's
 * soft limit is often 1024).  How many nodes fit, at most @at_once; the
 * limit now in *@allowed (0 unknown).
 */
size_t launch_room(const struct launch *l, size_t at_once, unsigned int extra,
		   unsigned long *allowed);

/*
 * End every launcher launch_run() has running now (SIGTERM to their process
 * groups; srun passes it on to its tasks): for a caller that decides, in
 * another thread, that the run is over.
 */
void launch_abort(void);

/* The signal that stopped the last launch_run(), 0 when none did; safe from any thread. */
int launch_stopped(void);

/*
 * In charge of SIGINT, SIGTERM and SIGHUP from now to
 * launch_release_signals(), before, during and after launch_run(): a
 * signal at any moment meanwhile ends the launchers then running (a
 * launch_run() after it starts none) and is kept for launch_stopped().
 * For a caller with @keep_signal that must finish its files whenever the
 * signal comes (probe -w --save: the save marked stopped, its lock
 * removed), then raise launch_stopped() itself.  0, or -EBUSY.
 */
int launch_hold_signals(void);
/* Give the stop signals back (their actions as before the hold). */
void launch_release_signals(void);

/*
 * The launcher @name (--launcher), else RDMACTL_LAUNCHER, else the
 * default (launcher_default()); 0, or -EINVAL / -ENOENT explained on stderr.
 */
int launch_pick(const struct ctx *ctx, const char *name, enum launcher *out);

/*
 * @argv as one command line for a remote shell (ssh, pdsh and clush join
 * their arguments into one): each word single-quoted where it needs it.
 * malloc'd; NULL when out of memory.
 */
char *launch_shell_join(char *const *argv);

#endif
