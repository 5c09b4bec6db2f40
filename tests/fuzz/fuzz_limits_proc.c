// SPDX-License-Identifier: MIT
/*
 * /proc/PID/limits through the reader: the input is the whole file, read
 * as <root>/proc/4242/limits (--pid 4242) and <root>/proc/self/limits.
 */
#include <errno.h>

#include "fuzz.h"
#include "limits_check.h"
#include "node/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx ctx;
	struct memlock m;
	int ret;

	fuzz_root_init();
	fuzz_root_clear();
	if (fuzz_write("proc/4242/limits", data, size) ||
	    fuzz_write("proc/self/limits", data, size))
		fuzz_fail("cannot write below %s", fuzz_root);
	ctx = fuzz_ctx("limits");
	memset(&m, 0xa5, sizeof(m));
	ret = limits_process(&ctx, 4242, &m);
	if (!ret)
		memlock_sane(&m, "process");
	else if (ret != -EINVAL && ret != -EFBIG)
		fuzz_fail("limits_process gave %d on a readable file", ret);
	memset(&m, 0xa5, sizeof(m));
	if (!limits_process(&ctx, 0, &m))
		memlock_sane(&m, "process self");
	return 0;
}
