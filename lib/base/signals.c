// SPDX-License-Identifier: MIT
/* The stop signals' one handler and its hooks (signals.h). */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/signals.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

/*
 * The hooks, read by the handler: a slot's function is set before its
 * sequence number makes it live, and the number cleared before the
 * function, with the stop signals blocked.  The newest hook in charge is
 * the one with the highest number.
 */
static void (*volatile hook_fn[SIGNALS_HOOKS_MAX])(int);
static volatile sig_atomic_t hook_seq[SIGNALS_HOOKS_MAX];	/* 0: free */
static volatile sig_atomic_t hook_charge[SIGNALS_HOOKS_MAX];
static unsigned int hook_xfsz[SIGNALS_HOOKS_MAX];
static sig_atomic_t next_seq = 1;
static unsigned int hooks, xfsz_hooks;

/* Each stop signal's action before we took it; caught[] the ones we took. */
static struct sigaction saved[ARRAY_SIZE(stop_signals)], saved_xfsz;
static volatile sig_atomic_t caught[ARRAY_SIZE(stop_signals)];

static int stop_index(int sig)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		if (stop_signals[i] == sig)
			return (int)i;
	return -1;
}

static void on_stop_signal(int sig)
{
	int i, charge = -1, k = stop_index(sig);

	for (i = 0; i < SIGNALS_HOOKS_MAX; i++)
		if (hook_seq[i] && hook_charge[i] && (charge < 0 || hook_seq[i] > hook_seq[charge]))
			charge = i;
	if (charge >= 0) {
		hook_fn[charge](sig);
		return;
	}
	for (i = 0; i < SIGNALS_HOOKS_MAX; i++)
		if (hook_seq[i])
			hook_fn[i](sig);
	/* Die of @sig as we would have: its old action, delivered when this handler returns. */
	if (k >= 0)
		sigaction(sig, &saved[k], NULL);
	raise(sig);
}

void signals_block(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaddset(&set, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

void signals_unblock(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/*
 * Our handler on each stop signal a new hook may take (SA_RESTART left
 * out: a wait returns EINTR).  Never one ignored (nohup's SIGHUP stays
 * so); a handler set by someone else (a test's, a library's) only for a
 * hook in charge, as a launcher ends whatever the run started.
 */
static void take(unsigned int flags)
{
	struct sigaction sa = { .sa_handler = on_stop_signal }, now;
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++) {
		if (sigaction(stop_signals[i], NULL, &now) || now.sa_handler == on_stop_signal ||
		    now.sa_handler == SIG_IGN)
			continue;
		if (now.sa_handler != SIG_DFL && !(flags & SIGNALS_IN_CHARGE))
			continue;
		saved[i] = now;
		caught[i] = 1;
		sigaction(stop_signals[i], &sa, NULL);
	}
}

/* Each action given back, unless someone set another since (kept, then). */
static void release_all(void)
{
	struct sigaction now;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stop_signals); i++) {
		if (caught[i] && !sigaction(stop_signals[i], NULL, &now) &&
		    now.sa_handler == on_stop_signal)
			sigaction(stop_signals[i], &saved[i], NULL);
		caught[i] = 0;
	}
}

static void xfsz_hold(bool on)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };

	if (on && !xfsz_hooks++) {
		sigemptyset(&ign.sa_mask);
		sigaction(SIGXFSZ, &ign, &saved_xfsz);
	} else if (!on && xfsz_hooks && !--xfsz_hooks) {
		sigaction(SIGXFSZ, &saved_xfsz, NULL);
	}
}

int signals_hook(void (*fn)(int sig), unsigned int flags)
{
	sigset_t old;
	int i;

	signals_block(&old);
	for (i = 0; i < SIGNALS_HOOKS_MAX && hook_seq[i]; i++)
		;
	if (i == SIGNALS_HOOKS_MAX) {
		signals_unblock(&old);
		return -EBUSY;
	}
	hooks++;
	take(flags);
	hook_fn[i] = fn;
	hook_charge[i] = !!(flags & SIGNALS_IN_CHARGE);
	hook_xfsz[i] = !!(flags & SIGNALS_NO_XFSZ);
	hook_seq[i] = next_seq++;
	if (hook_xfsz[i])
		xfsz_hold(true);
	signals_unblock(&old);
	return i;
}

void signals_unhook(int handle)
{
	sigset_t old;

	if (handle < 0 || handle >= SIGNALS_HOOKS_MAX || !hook_seq[handle])
		return;
	signals_block(&old);
	hook_seq[handle] = 0;
	hook_fn[handle] = NULL;
	if (hook_xfsz[handle])
		xfsz_hold(false);
	hook_xfsz[handle] = 0;
	if (!--hooks)
		release_all();
	signals_unblock(&old);
}

void signals_ignore_pipe(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };

	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, NULL);
}
