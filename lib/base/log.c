// SPDX-License-Identifier: MIT
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/text.h"

/*
 * The whole line in one write: stderr is unbuffered, and a probe server's
 * session child logs while its parent does, so pieces would interleave.
 * Messages carry values from outside (names, a peer's words): escaped, and
 * cut in the middle past LOG_MAX, so that the reason at the end survives a
 * long value.
 */
#define LOG_MAX 4096

/*
 * The last error line, without its "rdmactl CMD: " prefix, and the errno
 * behind it: main() puts them in -j's "error" object, so that a program
 * reads the reason a person reads on stderr.  The last, not the first:
 * when main() picks the exit code, the last error is the one that ended
 * the run (a server's earlier lines are about other clients).  Errors are
 * told apart from log_info()'s lines by their tag's address.
 */
static const char err_tag[] = "";
static struct {
	pthread_mutex_t lock;
	char text[LOG_MAX];
	int err;
	bool set;
} last_err = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void keep_error(const char *text)
{
	pthread_mutex_lock(&last_err.lock);
	snprintf(last_err.text, sizeof(last_err.text), "%s", text);
	last_err.err = 0;
	last_err.set = true;
	pthread_mutex_unlock(&last_err.lock);
}

static void vlog(const struct ctx *ctx, const char *tag, const char *fmt, va_list ap)
{
	char line[LOG_MAX], *msg = NULL;
	int n;

	n = snprintf(line, sizeof(line), "rdmactl%s%s: %s", ctx && ctx->cmd ? " " : "",
		     ctx && ctx->cmd ? ctx->cmd : "", tag);
	if (n < 0 || (size_t)n >= sizeof(line) / 2)
		n = 0;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	text_safe(msg ? msg : fmt, line + n, sizeof(line) - 1 - (size_t)n, TEXT_KEEP_NL);
	free(msg);
	if (tag == err_tag)
		keep_error(line + n);
	n = (int)strlen(line);
	line[n++] = '\n';
	fwrite(line, 1, (size_t)n, stderr);
}

void log_err(const struct ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(ctx, err_tag, fmt, ap);
	va_end(ap);
}

void log_err_errno(const struct ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(ctx, err_tag, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&last_err.lock);
	last_err.err = err < 0 ? -err : err;
	pthread_mutex_unlock(&last_err.lock);
}

bool log_last_error(char *text, size_t len, int *err)
{
	bool set;

	pthread_mutex_lock(&last_err.lock);
	set = last_err.set;
	if (set && text && len)
		snprintf(text, len, "%s", last_err.text);
	if (err)
		*err = set ? last_err.err : 0;
	pthread_mutex_unlock(&last_err.lock);
	return set;
}

void log_last_error_clear(void)
{
	pthread_mutex_lock(&last_err.lock);
	last_err.set = false;
	last_err.err = 0;
	pthread_mutex_unlock(&last_err.lock);
}

void log_warn(const struct ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(ctx, "warning: ", fmt, ap);
	va_end(ap);
}

void log_note(const struct ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(ctx, "", fmt, ap);
	va_end(ap);
}

void log_info(const struct ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (!ctx || ctx->verbose < 1)
		return;
	va_start(ap, fmt);
	vlog(ctx, "", fmt, ap);
	va_end(ap);
}
