// SPDX-License-Identifier: MIT
/*
 * What a systemd service gets: DefaultLimitMEMLOCK= in system.conf of
 * /etc, /run, /usr/local/lib and /usr/lib, and their system.conf.d
 * drop-ins in systemd's order.  Input: a tree (fuzz.h) of those files.
 */
#include <errno.h>

#include "fuzz.h"
#include "limits_check.h"
#include "node/limits.h"

static const char *const prefixes[] = {
	"etc/systemd/", "run/systemd/", "usr/local/lib/systemd/", "usr/lib/systemd/", NULL
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx ctx;
	struct memlock m;
	int ret;

	if (size > 65536)
		return 0;
	fuzz_root_init();
	fuzz_tree_write(data, size, prefixes);
	ctx = fuzz_ctx("limits");
	memset(&m, 0xa5, sizeof(m));
	ret = limits_systemd(&ctx, &m);
	if (!ret)
		memlock_sane(&m, "systemd");
	else if (ret > 0)
		fuzz_fail("limits_systemd gave %d", ret);
	return 0;
}
