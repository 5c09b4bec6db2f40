// SPDX-License-Identifier: MIT
#include <stdio.h>

#include "ctx.h"
#include "log.h"

static void vlog(const struct ctx *ctx, const char *tag, const char *fmt, va_list ap)
{
	fputs("rdmactl", stderr);
	if (ctx && ctx->cmd)
		fprintf(stderr, " %s", ctx->cmd);
	fprintf(stderr, ": %s", tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
