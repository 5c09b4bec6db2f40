// SPDX-License-Identifier: MIT
/*
 * What node/ucx.c reads of a node without running UCX: a library image
 * for its release string, dpkg's status for libucx0's Version:, UCX
 * booleans, and /etc/ucx/ucx.conf for ETH_DGID_CHECK (node/libconf.c).
 *
 * Input: one selector byte, then the bytes.  A release found must be a
 * 1.x code, a version copied out must be terminated, and a setting found
 * must name one of the two variables with a terminated value.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "fuzz.h"
#include "node/libconf.h"
#include "node/ucx.h"

static void version_sane(int v, const char *what)
{
	if (v && (v < 10000 || v > 19999))
		fuzz_fail("%s: release code %d", what, v);
}

static void conf(const uint8_t *data, size_t size)
{
	struct ctx ctx;
	struct lib_setting s;

	fuzz_root_init();
	fuzz_root_clear();
	if (fuzz_write(&UCX_CONF[1], data, size))	/* relative to the fuzz root */
		return;
	ctx = fuzz_ctx("fuzz");
	memset(&s, 0xa5, sizeof(s));
	if (!ucx_conf_setting(&ctx, NULL, "UCX_UD_VERBS_ETH_DGID_CHECK", &s))
		return;
	if (!memchr(s.value, 0, sizeof(s.value)) || !memchr(s.where, 0, sizeof(s.where)) ||
	    strcmp(s.name, "UCX_UD_VERBS_ETH_DGID_CHECK"))
		fuzz_fail("ucx.conf: setting '%.64s' not sane", s.name);
	ucx_parse_bool(s.value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, ver[64];
	int v;

	if (size < 1 || size > 65536)
		return 0;
	switch (data[0] % 4) {
	case 0:
		version_sane(ucx_version_in_image((const char *)data + 1, size - 1), "image");
		return 0;
	case 1:
		s = fuzz_cstr(data + 1, size - 1);
		memset(ver, 0xa5, sizeof(ver));
		v = dpkg_version(s, "libucx0", ver, sizeof(ver));
		version_sane(v, "dpkg");
		if (v && !memchr(ver, 0, sizeof(ver)))
			fuzz_fail("dpkg: version not terminated");
		free(s);
		return 0;
	case 2:
		s = fuzz_cstr(data + 1, size - 1);
		v = ucx_parse_bool(s);
		if (v != 0 && v != 1 && v != -EINVAL)
			fuzz_fail("bool '%.40s' gave %d", s, v);
		version_sane(ucx_version_parse(s), "parse");
		free(s);
		return 0;
	default:
		conf(data + 1, size - 1);
		return 0;
	}
}
