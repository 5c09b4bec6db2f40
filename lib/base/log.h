/* SPDX-License-Identifier: MIT */
/* Messages for the user: always on stderr, so stdout stays one document. */
#ifndef RDMACTL_LOG_H
#define RDMACTL_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct ctx;

/* "rdmactl[ CMD]: <message>" on stderr. */
void log_err(const struct ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same, with the errno behind it (either sign) for -j's "error" object. */
void log_err_errno(const struct ctx *ctx, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The last log_err() line of this process, without "rdmactl CMD: ", as
 * printed (escaped, long values cut in the middle), in @text; its errno
 * (positive, 0 when none was given) in *@err.  False when none was logged
 * since the start or log_last_error_clear().
 */
bool log_last_error(char *text, size_t len, int *err);
void log_last_error_clear(void);
/* "rdmactl[ CMD]: warning: <message>". */
void log_warn(const struct ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "rdmactl[ CMD]: <message>", always: what the tool chose for the user, not an error. */
void log_note(const struct ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Only with -v. */
void log_info(const struct ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
