// SPDX-License-Identifier: MIT
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
	n = (int)strlen(line);
	line[n++] = '\n';
	fwrite(line, 1, (size_t)n, stderr);
}

void log_err(const struct ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(ctx, "", fmt, ap);
	va_end(ap);
}

void log_warn(const struct ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(ctx, "warning: ", fmt, ap);
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
