// SPDX-License-Identifier: MIT
/*
 * The value parsers of lib/node/limits.c: a /proc/PID/limits text, a
 * limits.conf memlock value and a systemd DefaultLimitMEMLOCK= value.
 * Input: one selector byte, then the text.
 */
#include <errno.h>
#include <stdlib.h>

#include "fuzz.h"
#include "node/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t soft, hard, v;
	char buf[32], *s;
	int ret;

	if (size < 1 || size > 16384)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	switch (data[0] % 3) {
	case 0:
		ret = limits_parse_proc(s, &soft, &hard);
		if (ret && ret != -EINVAL)
			fuzz_fail("limits_parse_proc gave %d", ret);
		break;
	case 1:
		/* 1: a value pam_limits takes with junk after it (pam_line warns). */
		ret = pam_parse_memlock(s, &v);
		if (ret && ret != -EINVAL && ret != 1)
			fuzz_fail("pam_parse_memlock gave %d", ret);
		if (ret >= 0)
			memlock_str(v, buf, sizeof(buf));
		break;
	case 2:
		ret = systemd_parse_limit(s, &soft, &hard);
		if (ret && ret != -EINVAL && ret != -ERANGE)
			fuzz_fail("systemd_parse_limit gave %d", ret);
		if (!ret && soft > hard)
			fuzz_fail("systemd limit soft %llu above hard %llu",
				  (unsigned long long)soft, (unsigned long long)hard);
		break;
	}
	free(s);
	return 0;
}
