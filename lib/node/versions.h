/* SPDX-License-Identifier: MIT */
/* Installed software versions: rdma-core, MLNX_OFED, NCCL (below the root). */
#ifndef RDMACTL_VERSIONS_H
#define RDMACTL_VERSIONS_H

#include <stdbool.h>
#include <stddef.h>

struct ctx;

/* Where libraries are looked for (below the root), NULL-terminated. */
extern const char *const lib_dirs[];

/* rdma-core's release ("44.0") and the library it was read from; false when absent. */
bool rdma_core_version(const struct ctx *ctx, char *ver, size_t len, char *file, size_t flen);
/*
 * `ofed_info -s` without its trailing colon: 1; 0 without MLNX_OFED;
 * -ENODATA when --root's tree did not record it (run.h).
 */
int ofed_version(const struct ctx *ctx, char *buf, size_t len);
/*
 * The NCCL a job would load (LD_LIBRARY_PATH first, live only, then
 * lib_dirs): its version code (22103 for 2.21.3) with its path in @where,
 * or -1 when none is installed.
 */
int nccl_find(const struct ctx *ctx, char *where, size_t len);

#endif
