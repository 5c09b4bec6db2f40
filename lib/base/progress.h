/* SPDX-License-Identifier: MIT */
/*
 * A progress line for a person at a terminal, on stderr and only when
 * stderr is a terminal, redrawn in place:
 *
 *   probe step 3 of 40 (round 2), about 74 s left
 *   doctor: 1200 of 5000 nodes done, about 95 s left
 *
 * The time left is the pace so far times what is left.
 */
#ifndef RDMACTL_PROGRESS_H
#define RDMACTL_PROGRESS_H

#include <stdbool.h>

struct progress {
	bool tty;		/* stderr is a terminal: else nothing is drawn */
	unsigned long total;	/* may grow (the probe's retests) */
	long t0, shown;		/* ms on the monotonic clock: start, last drawn */
};

/* Start at 0 of @total, now. */
void progress_init(struct progress *p, unsigned long total);

/*
 * @done of @p->total done: the line @fmt says, and the time left once
 * something is done.  Drawn at most ten times a second, and always when
 * all is done.
 */
void progress_show(struct progress *p, unsigned long done, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Clear the line, so that what follows starts at the left. */
void progress_end(const struct progress *p);

#endif
