// SPDX-License-Identifier: MIT
/*
 * What a PAM login gets: /etc/security/limits.conf and limits.d/ as
 * pam_limits applies them, for users and groups of the recorded
 * /etc/passwd and /etc/group, over the systemd scope the login inherits.
 * Input: a tree (fuzz.h) of those files.
 */
#include <errno.h>

#include "fuzz.h"
#include "limits_check.h"
#include "node/limits.h"

static const char *const prefixes[] = {
	"etc/security/", "etc/passwd", "etc/group", "etc/debian_version", "proc/self/",
	"etc/systemd/", "run/systemd/", "usr/lib/systemd/", NULL
};

static void login(const struct ctx *ctx, const char *user)
{
	struct memlock m;
	int ret;

	memset(&m, 0xa5, sizeof(m));
	ret = limits_pam(ctx, user, &m);
	if (!ret)
		memlock_sane(&m, "pam");
	else if (ret > 0)
		fuzz_fail("limits_pam gave %d", ret);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx ctx;

	if (size > 65536)
		return 0;
	fuzz_root_init();
	fuzz_tree_write(data, size, prefixes);
	ctx = fuzz_ctx("limits");
	login(&ctx, NULL);
	login(&ctx, "alice");
	login(&ctx, "root");
	return 0;
}
