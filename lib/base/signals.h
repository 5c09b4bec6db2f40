/* SPDX-License-Identifier: MIT */
/*
 * The one owner of the signals that stop rdmactl (SIGINT, SIGTERM, SIGHUP)
 * and of SIGXFSZ and SIGPIPE: no other module calls sigaction() or
 * signal().  A module that must act when a stop signal comes registers a
 * hook for as long as it must, of one of two kinds:
 *
 *  - a cleanup (outfile.c: the temporary files removed): every cleanup
 *    registered runs, then rdmactl dies of the signal, as it would have;
 *  - a hook in charge (launch.c: the launchers' process groups ended):
 *    the newest such hook alone runs and the program goes on, to end its
 *    run its own way (the files it writes finished or dropped by the code
 *    that writes them).  Interrupted system calls then fail with EINTR.
 *
 * A hook runs in the signal handler: async-signal-safe calls only, on
 * static storage.  A signal ignored (nohup's SIGHUP, a background job's
 * SIGINT) stays ignored; a handler someone else set is left in charge but
 * by a hook in charge; and each signal is given back its action when the
 * last hook goes, unless another was set meanwhile.
 */
#ifndef RDMACTL_SIGNALS_H
#define RDMACTL_SIGNALS_H

#include <signal.h>

/* Hooks registered at once, at most (two output files and a launcher, so far). */
#define SIGNALS_HOOKS_MAX 8

enum signals_flags {
	SIGNALS_IN_CHARGE = 1 << 0,	/* the hook takes the signal; rdmactl goes on */
	SIGNALS_NO_XFSZ = 1 << 1,	/* SIGXFSZ ignored meanwhile: over "ulimit -f", write() says EFBIG */
};

/* Register @fn (flags of enum signals_flags); its handle (>= 0), or -EBUSY when full. */
int signals_hook(void (*fn)(int sig), unsigned int flags);
/* Unregister the hook @handle (any order; a negative one does nothing). */
void signals_unhook(int handle);

/* Block the stop signals, the old mask in @old: a hook then sees no half-made change. */
void signals_block(sigset_t *old);
/* Put back the mask signals_block() saved. */
void signals_unblock(const sigset_t *old);

/* SIGPIPE ignored for good: a peer gone is a write's EPIPE, said as such (servers, agents). */
void signals_ignore_pipe(void);

#endif
