/* SPDX-License-Identifier: MIT */
/*
 * The configuration files NCCL and UCX fill their variables from, read
 * below the root as each library reads them: a variable the environment
 * leaves unset still has the value a site's /etc/nccl.conf or
 * /etc/ucx/ucx.conf gives it, and a job runs with that value.
 */
#ifndef RDMACTL_LIBCONF_H
#define RDMACTL_LIBCONF_H

#include <stdbool.h>
#include <stddef.h>

struct ctx;

/* NCCL's system-wide file (initEnv() in src/misc/param.cc). */
#define NCCL_CONF "/etc/nccl.conf"
/* The file UCX 1.12 and later read their settings from (its sysconfdir/ucx/ucx.conf). */
#define UCX_CONF "/etc/ucx/ucx.conf"

/* A library's setting and where it was found. */
struct lib_setting {
	char name[64];		/* "NCCL_IB_GID_INDEX" */
	char value[1024];	/* as the library reads it (NCCL keeps 1023 bytes) */
	char where[320];	/* "/etc/nccl.conf:3" */
};

/*
 * @name from NCCL's files, as NCCL 2.x reads them (initEnv() and
 * setEnvFile(), unchanged from 2.4 to 2.28): $NCCL_CONF_FILE when set
 * and not empty, else @home/.nccl.conf (@home: the running user's home
 * directory in /etc/passwd, not $HOME; NULL for none), then NCCL_CONF.
 * Each line goes through setenv(NAME, VALUE, 0), so the environment, an
 * earlier file and an earlier line win.  A line is "NAME=VALUE": the name
 * is everything before the first '=', blanks included, the value the rest
 * of the line; a line that starts with '#' or has no '=' is skipped.
 * True when a file sets it (@out filled).
 */
bool nccl_conf_setting(const struct ctx *ctx, const char *home, const char *name,
		       struct lib_setting *out);

/*
 * @name from UCX's files, as ucs_config_parse_config_files() reads them
 * (src/ucs/config/parser.c, read in UCX 1.19's source; earlier releases
 * read fewer of them, so a value judged here may be one the job's UCX
 * never reads, never the reverse), each overriding the one before: UCX_CONF,
 * @libdir/../etc/ucx/ucx.conf (@libdir: where libucp.so.0 is; NULL for
 * none), $HOME/ucx.conf and $UCX_CONFIG_DIR/ucx.conf; in a file the last
 * "NAME = VALUE" line wins (INI: blanks around both trimmed, whole lines
 * starting with '#' or ';' are comments, "[section]" lines start a
 * section).  Not read: the ucx.conf of the job's working directory, read
 * last, which is not known here; a section's CPU or product filter,
 * which this reads as matching.  True when a file sets it (@out filled).
 */
bool ucx_conf_setting(const struct ctx *ctx, const char *libdir, const char *name,
		      struct lib_setting *out);

#endif
