/* SPDX-License-Identifier: MIT */
/* What every resolved RLIMIT_MEMLOCK must satisfy, whatever files it came from. */
#ifndef RDMACTL_FUZZ_LIMITS_CHECK_H
#define RDMACTL_FUZZ_LIMITS_CHECK_H

#include <string.h>

#include "fuzz.h"
#include "node/limits.h"

static inline void memlock_sane(struct memlock *m, const char *scope)
{
	char buf[32], note[LIMIT_SRC_LEN + 256];

	if (!memchr(m->soft_src, 0, sizeof(m->soft_src)) ||
	    !memchr(m->hard_src, 0, sizeof(m->hard_src)) || !memchr(m->user, 0, sizeof(m->user)) ||
	    !memchr(m->not_for_root, 0, sizeof(m->not_for_root)))
		fuzz_fail("%s: a source or user is not terminated", scope);
	limits_judge(m);
	if (m->verdict > VERDICT_FAIL || !memchr(m->reason, 0, sizeof(m->reason)) ||
	    !memchr(m->fix, 0, sizeof(m->fix)))
		fuzz_fail("%s: verdict %d, or reason/fix not terminated", scope, m->verdict);
	if (m->verdict != VERDICT_OK && !m->fix[0])
		fuzz_fail("%s: verdict %s without a fix", scope, limit_verdict_str(m->verdict));
	limits_root_note(m, note, sizeof(note));
	memlock_str(m->soft, buf, sizeof(buf));
	memlock_str(m->hard, buf, 4);
	limit_scope_str(m->scope);
}

#endif
