/* SPDX-License-Identifier: MIT */
/* Messages for the user: always on stderr, so stdout stays one document. */
#ifndef RDMACTL_LOG_H
#define RDMACTL_LOG_H

#include <stdarg.h>

struct ctx;

/* "rdmactl[ CMD]: <message>" on stderr. */
void log_err(const struct ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Same, prefixed "warning: ". */
void log_warn(const struct ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Only with -v. */
void log_info(const struct ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
