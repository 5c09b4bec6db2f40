// SPDX-License-Identifier: MIT
/* A progress line on a terminal (see progress.h). */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "base/progress.h"

#define PROGRESS_EVERY_MS 100

static long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

void progress_init(struct progress *p, unsigned long total)
{
	p->tty = isatty(STDERR_FILENO);
	p->total = total;
	p->t0 = mono_ms();
	p->shown = p->t0 - PROGRESS_EVERY_MS;
}

void progress_show(struct progress *p, unsigned long done, const char *fmt, ...)
{
	long now = mono_ms();
	va_list ap;

	if (!p->tty || (done < p->total && now - p->shown < PROGRESS_EVERY_MS))
		return;
	p->shown = now;
	fputs("\r\033[K  ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (done && done < p->total)
		fprintf(stderr, ", about %.0f s left",
			(double)(now - p->t0) / 1000 / done * (p->total - done));
	fflush(stderr);
}

void progress_end(const struct progress *p)
{
	if (p->tty)
		fputs("\r\033[K", stderr);
}
