/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the libFuzzer targets of tests/fuzz/.
 *
 * Readers of /sys, /proc and /etc are fuzzed through the same --root seam
 * the CLI tests use: the input describes a small file tree, written below a
 * private temporary root before each run.  The tree format is text, so seeds
 * are readable and the fuzzer's byte mutations stay meaningful:
 *
 *   == sys/class/infiniband/rxe0/ports/1/state
 *   4: ACTIVE
 *   == sys/class/infiniband/rxe0/device -> ../../../devices/virtual/x
 *   == sys/class/infiniband/rxe0/ports/1/gid_attrs/
 *
 * A "== PATH" line starts a file whose contents are the lines up to the
 * next "== " line; "PATH -> TARGET" is a symlink, "PATH/" a directory.
 * Paths are relative to the root and must begin with one of the target's
 * allowed prefixes.  Nothing can be created outside the root: components
 * are plain names, parents are never symlinks, and a link target is some
 * "../" then plain names, never climbing above the root.
 */
#ifndef RDMACTL_FUZZ_H
#define RDMACTL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"

/* The temporary root of this process ("" until fuzz_root_init). */
extern char fuzz_root[];

/* Create the root (once; removed at exit). */
void fuzz_root_init(void);
/* Empty the root (keeps the directory). */
void fuzz_root_clear(void);
/*
 * Write the tree described by @data below the (cleared) root; records whose
 * path does not start with one of @prefixes (NULL-terminated) are skipped.
 * Returns the number of records written.
 */
int fuzz_tree_write(const uint8_t *data, size_t size, const char *const *prefixes);
/* Write one file below the root (parents created); 0 or -errno. */
int fuzz_write(const char *path, const void *data, size_t len);

/* A context reading the root, for commands named @cmd. */
struct ctx fuzz_ctx(const char *cmd);

/* @data as a malloc'd NUL-terminated string (cut at the first NUL). */
char *fuzz_cstr(const uint8_t *data, size_t size);

/* Abort with a message: a property the code under test must keep failed. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
