/* SPDX-License-Identifier: MIT */
/*
 * Doctor documents gathered before by any tool (pdsh, clush, srun -l, a
 * directory of HOST.json), read into a fleet (fleet.h): what
 * `rdmactl doctor --gathered FILE|-|DIR` reads.
 */
#ifndef RDMACTL_FLEET_GATHERED_H
#define RDMACTL_FLEET_GATHERED_H

#include <stddef.h>

#include "fleet/fleet.h"

/*
 * Read output gathered before into @fleet (then fleet_finish() it): @path
 * is a file, "-" for stdin, or a directory of HOST.json files (one
 * document each; other names are not read).  Each line of a file or
 * stream is one of
 *   HOST: TEXT       pdsh, clush (without -b), pdsh -S
 *   N: TEXT          srun -l: task N (leading blanks and zeros as srun pads)
 *   pdsh@LOCAL: HOST: MSG, clush: HOSTLIST: MSG,
 *   srun: error: HOST: task N: MSG
 *                    a launcher's word on a node (with 2>&1): its exit
 *                    code, or the cause of its failure
 * Blank lines are skipped.  0.  -EINVAL for input that is not such output
 * (no prefix, a name that is no host name, a NUL byte, a line longer than
 * FLEET_DOC_MAX, a second document for one node, a directory without a
 * HOST.json), -E2BIG past FLEET_NODES_MAX, -ENOSPC past
 * FLEET_TOTAL_MAX (the input too), -errno when @path cannot be
 * read, -ENOMEM; each with one line in @err naming the bad value and its
 * line number.
 */
int fleet_read_gathered(struct fleet *fleet, const char *path, char *err, size_t errlen);

/*
 * One line of such output (without its newline), as the reader takes it:
 * @lineno names it in messages.  Same results as fleet_read_gathered().
 */
int fleet_feed_output(struct fleet *fleet, const char *line, unsigned long lineno, char *err,
			size_t errlen);

#endif
