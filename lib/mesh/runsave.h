/* SPDX-License-Identifier: MIT */
/*
 * probe -w --save FILE: the run's -j document written to FILE while the
 * run goes, so that a run cut short (Ctrl-C, a lost ssh session, a killed
 * coordinator) leaves a valid document of the steps done, which
 * `probe -w --from FILE` resumes.  Each write is whole: a temporary file
 * beside FILE renamed over it (outfile.h).  Writes are spaced: at least
 * SAVE_EVERY_S apart and ten times as long as the last one took, so that
 * a 1 000-node run's hundreds of MB cost at most a tenth of its time.
 */
#ifndef RDMACTL_RUNSAVE_H
#define RDMACTL_RUNSAVE_H

#include <stdbool.h>

#include "mesh/linkmap.h"

struct ctx;
struct json_object;

struct runsave {
	const struct ctx *ctx;
	const char *path;
	long last_ms, cost_ms;	/* when the last write ended, and how long it took */
	int err;		/* the last write's */
};

/* A write now would keep to the spacing (the first is always due). */
bool runsave_due(const struct runsave *rs);

/*
 * The document of @m, analysed now (linkmap_analyse()), with @run as its
 * "run", whole into the file.  0 or -errno (said); the run goes on.
 */
int runsave_write(struct runsave *rs, struct linkmap *m, struct json_object *run);

/*
 * One run at a time saves to @path: "@path.lock" beside it, created if
 * need be, flock()ed and given this process's id, for the whole run (the
 * document itself is replaced at every write, so it cannot hold a lock).
 * 0 with *@fd set; -EBUSY when another run holds it (said, with its
 * process id), -errno when the lock cannot be made (said).
 */
int runsave_lock(const struct ctx *ctx, const char *path, int *fd);

/* The lock of runsave_lock() released and its file removed; @fd < 0: nothing. */
void runsave_unlock(const char *path, int fd);

#endif
