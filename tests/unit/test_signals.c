// SPDX-License-Identifier: MIT
/*
 * The stop signals' one owner (base/signals.h), each case in a child of
 * its own: cleanups run and the signal still ends the process; a hook in
 * charge alone runs and the process goes on; an ignored signal and a
 * handler of someone else's are left as they were; every action is given
 * back after the last hook.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/signals.h"
#include "test.h"

static int marks[2];	/* a pipe: each hook that ran writes its letter */

static void hook_a(int sig)
{
	(void)sig;
	if (write(marks[1], "a", 1) < 0)
		_exit(3);
}

static void hook_b(int sig)
{
	(void)sig;
	if (write(marks[1], "b", 1) < 0)
		_exit(3);
}

static void hook_c(int sig)
{
	(void)sig;
	if (write(marks[1], "c", 1) < 0)
		_exit(3);
}

static void theirs(int sig)
{
	(void)sig;
}

static sighandler_t handler_now(int sig)
{
	struct sigaction sa;

	sigaction(sig, NULL, &sa);
	return sa.sa_handler;
}

/* Run @body in a child; its wait status, and the hooks that ran in @ran. */
static int in_child(void (*body)(void), char *ran, size_t len)
{
	int status = -1;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(marks))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(marks[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		body();
		_exit(0);
	}
	close(marks[1]);
	/* To the end: the child's last write closes it. */
	while (got < len - 1 && (n = read(marks[0], ran + got, len - 1 - got)) > 0)
		got += (size_t)n;
	ran[got] = '\0';
	close(marks[0]);
	waitpid(pid, &status, 0);
	return status;
}

static void two_cleanups_then_term(void)
{
	signals_hook(hook_a, 0);
	signals_hook(hook_b, SIGNALS_NO_XFSZ);
	raise(SIGTERM);
	_exit(9);	/* not reached: the signal ends the process */
}

static void in_charge_over_a_cleanup(void)
{
	int a = signals_hook(hook_a, 0), c;

	signals_hook(hook_b, SIGNALS_IN_CHARGE);
	c = signals_hook(hook_c, SIGNALS_IN_CHARGE);
	raise(SIGINT);		/* the newest in charge: c alone */
	signals_unhook(c);
	raise(SIGINT);		/* then b */
	signals_unhook(a);
}

static void cleanups_end_in_the_signal(void)
{
	char ran[16];
	int st = in_child(two_cleanups_then_term, ran, sizeof(ran));

	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	CHECK_STR(ran, "ab");
	st = in_child(in_charge_over_a_cleanup, ran, sizeof(ran));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_STR(ran, "cb");
}

static void actions_kept_and_given_back(void)
{
	struct sigaction sa = { .sa_handler = theirs };
	int h;

	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGXFSZ, SIG_DFL);
	h = signals_hook(hook_a, SIGNALS_NO_XFSZ);
	CHECK(h >= 0);
	CHECK(handler_now(SIGINT) != SIG_DFL);
	CHECK(handler_now(SIGHUP) == SIG_IGN);
	CHECK(handler_now(SIGXFSZ) == SIG_IGN);
	signals_unhook(h);
	CHECK(handler_now(SIGINT) == SIG_DFL);
	CHECK(handler_now(SIGHUP) == SIG_IGN);
	CHECK(handler_now(SIGXFSZ) == SIG_DFL);
	/* Someone else's handler: a cleanup leaves it, a hook in charge takes it and gives it back. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	h = signals_hook(hook_a, 0);
	CHECK(handler_now(SIGINT) == theirs);
	signals_unhook(h);
	h = signals_hook(hook_a, SIGNALS_IN_CHARGE);
	CHECK(handler_now(SIGINT) != theirs);
	signals_unhook(h);
	CHECK(handler_now(SIGINT) == theirs);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

static void hooks_are_bounded(void)
{
	int h[SIGNALS_HOOKS_MAX], i;

	for (i = 0; i < SIGNALS_HOOKS_MAX; i++)
		CHECK((h[i] = signals_hook(hook_a, 0)) >= 0);
	CHECK(signals_hook(hook_a, 0) < 0);
	for (i = 0; i < SIGNALS_HOOKS_MAX; i++)
		signals_unhook(h[i]);
	signals_unhook(-1);
	CHECK(handler_now(SIGTERM) == SIG_DFL);
}

int main(void)
{
	RUN("signals", cleanups_end_in_the_signal);
	RUN("signals", actions_kept_and_given_back);
	RUN("signals", hooks_are_bounded);
	TEST_EXIT();
}
