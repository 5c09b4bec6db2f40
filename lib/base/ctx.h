/* SPDX-License-Identifier: MIT */
/*
 * The state every command shares: output mode, colour, the root the
 * node's files are read from, and the JSON document being built.
 */
#ifndef RDMACTL_CTX_H
#define RDMACTL_CTX_H

#include <stdbool.h>

struct json_object;

/* Exit codes, documented in rdmactl(8).  Only main() turns them into exit(). */
enum rc {
	RC_OK = 0,	/* success */
	RC_PROBLEM = 1,	/* the command ran and found a problem, or a measurement failed */
	RC_USAGE = 2,	/* usage error or bad input */
};

struct ctx {
	bool json;
	bool pretty;
	bool color;
	int verbose;
	/* Prefix for /sys, /proc and /etc; "" for the live system (--root). */
	const char *root;
	/* Root object of the one JSON document printed at exit (with --json). */
	struct json_object *jroot;
	/* The command being run, for messages ("rdmactl gids: ..."). */
	const char *cmd;
	/*
	 * Reads that failed or gave nothing usable (sysfs.h, read_warning()):
	 * [{"path", "error", "errno"}], the document's "warnings" key; NULL
	 * when not collected.
	 */
	struct json_object *warnings;
	/*
	 * The command judged for itself what the failed reads mean for its
	 * answer (rdmactl env: only the files a value depends on count), so
	 * that they do not turn its exit 0 into 1.
	 */
	bool warnings_judged;
};

#endif
