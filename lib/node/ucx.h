/* SPDX-License-Identifier: MIT */
/*
 * UCX as a job on this node would run it: its release (read without
 * running it), the GID it takes on a RoCE port, and the known bug
 * that makes its UD transport drop every packet on some RoCE devices.
 */
#ifndef RDMACTL_UCX_H
#define RDMACTL_UCX_H

#include <stdbool.h>
#include <stddef.h>

#include "node/rdma.h"

struct ctx;

/* UCX 1.19.0: UD tells a RoCE v2 packet's address family from its GRH (openucx/ucx PR 10209). */
#define UCX_DGID_FIXED 11900

/* dpkg's record of the installed packages, libucx0 among them. */
#define DPKG_STATUS "/var/lib/dpkg/status"

struct ucx_install {
	int version;		/* 11301 for 1.13.1; 0 found, release unknown; -1 none */
	char lib[320];		/* the libucp.so.0 a job would load; "" when only dpkg knows it */
	char from[352];		/* where the release was read: the library, its ucx.pc, dpkg */
};

/*
 * Find UCX below the root: libucp.so.0 in LD_LIBRARY_PATH (live only),
 * the system library directories and HPC-X's, and its release from, in
 * turn, the library itself (ucp_get_version_string()'s "1.13.1"), the
 * ucx.pc beside it, and dpkg's status of libucx0.  Returns out->version.
 */
int ucx_find(const struct ctx *ctx, struct ucx_install *out);

/* Where HPC-X and hand builds put UCX, searched after lib_dirs (versions.h); NULL-terminated. */
extern const char *const ucx_extra_dirs[];

/* The release the library @path (below the root) names itself (ucx_version_in_image()); 0 when none. */
int ucx_lib_version(const struct ctx *ctx, const char *path);
/*
 * A stand-in for a libucp image that names release @version (11301) the
 * way the library does, for a snapshot that does not copy the library:
 * its length in @buf (the NUL after the release included), 0 when it
 * does not fit.
 */
size_t ucx_standin(int version, char *buf, size_t len);

/* "1.13.1" in a pkg-config or dpkg version ("1.13.1-1"): 11301; 0 when not one. */
int ucx_version_parse(const char *s);
/* The release a libucp image names: its first NUL-terminated "1.N.M" (not after a digit or dot); 0 when none. */
int ucx_version_in_image(const char *buf, size_t len);
/* The Version: of package @pkg in a dpkg status text, when installed; 0 when not. */
int dpkg_version(const char *status, const char *pkg, char *ver, size_t len);
/* Where the stanza of installed package @pkg is in a dpkg status text; false when none. */
bool dpkg_stanza(const char *status, const char *pkg, const char **start, size_t *len);

/* A UCX boolean as UCX reads it: y, yes, 1 / n, no, 0, in any case. 1, 0, or -EINVAL. */
int ucx_parse_bool(const char *s);

/*
 * The GID UCX uses on RoCE port @p: entry @gid_index (UCX_IB_GID_INDEX;
 * NULL or "auto": UCX's own choice, the first RoCE v2 IPv4 entry, then
 * RoCE v2 IPv6, then RoCE v1).  NULL when there is none.
 */
const struct rdma_gid *ucx_port_gid(const struct rdma_port *p, const char *gid_index);

/*
 * Whether UCX needs UCX_UD_VERBS_ETH_DGID_CHECK=n on port @p of @dev:
 * UCX before 1.19 (@ucx_version; 0, unknown, counts as before) takes a
 * received RoCE v2 packet's address family from the completion's sl,
 * which only mlx5 fills; on any other RoCE device with an IPv4 GID in use
 * it reads the IPv4 header as an IPv6 GID, finds no match and drops the
 * packet, every one: UD, and RC whose connection setup goes over UD, time
 * out.  @gid_index is UCX_IB_GID_INDEX (NULL when unset).  The reason, or
 * why not, goes to @why.
 */
bool ucx_needs_dgid_check_off(const struct rdma_dev *dev, const struct rdma_port *p,
			      int ucx_version, const char *gid_index, char *why, size_t len);

#endif
