// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"

/*
 * The whole line in one write: stderr is unbuffered, and a probe server's
 * session child logs while its parent does, so pieces would interleave.
 */
static void vlog(const struct ctx *ctx, const char *tag, const char *fmt, va_list ap)
{
	char line[1024];
	int n;

	n = snprintf(line, sizeof(line), "rdmactl%s%s: %s", ctx && ctx->cmd ? " " : "",
		     ctx && ctx->cmd ? ctx->cmd : "", tag);
	if (n < 0 || (size_t)n >= sizeof(line) - 1)
		n = 0;
	vsnprintf(line + n, sizeof(line) - 1 - (size_t)n, fmt, ap);
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
