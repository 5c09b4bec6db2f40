// SPDX-License-Identifier: MIT
/*
 * Small parsers of user input and sysfs words: "DEV[/PORT]" arguments,
 * GIDs as sysfs writes them, gid_attrs/types words, whole numbers of
 * options, and the "did you mean" distance.  Input: one selector byte,
 * then the text.
 */
#include <stdlib.h>
#include <string.h>

#include "base/opt.h"
#include "base/text.h"
#include "fuzz.h"
#include "node/gids.h"
#include "node/rdma.h"

static void devport(const char *s)
{
	char dev[64];
	unsigned int port = 12345;

	if (!rdma_parse_devport(s, dev, sizeof(dev), &port) &&
	    (!memchr(dev, 0, sizeof(dev)) || !dev[0]))
		fuzz_fail("'%s' parsed to an empty or unterminated device", s);
	rdma_parse_devport(s, dev, 4, &port);
}

static void gid(const char *s)
{
	uint8_t raw[16], again[16];
	char buf[64];

	if (gid_parse(s, raw))
		return;
	/* A parsed GID prints, and what it prints parses to the same bytes. */
	gid_str(raw, buf, sizeof(buf));
	if (gid_parse(buf, again) || memcmp(raw, again, 16))
		fuzz_fail("GID '%s' prints as '%s', which does not parse back", s, buf);
	gid_unset(raw);
	gid_is_link_local(raw);
	gid_ipv4(raw, buf, 4);
}

static void words(const char *s)
{
	static const char *const cmds[] = { "devices", "ports", "gids", "limits", "doctor",
					    "probe", "snapshot", "completion" };
	long v;

	gid_type_parse(s, LINK_LAYER_ETHERNET);
	gid_type_parse(s, LINK_LAYER_INFINIBAND);
	closest_word(s, cmds, sizeof(cmds) / sizeof(cmds[0]));
	if (!parse_long(s, -3, 4096, &v) && (v < -3 || v > 4096))
		fuzz_fail("parse_long gave %ld outside [-3, 4096]", v);
	provider_from_driver(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1 || size > 1024)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	switch (data[0] % 3) {
	case 0:
		devport(s);
		break;
	case 1:
		gid(s);
		break;
	case 2:
		words(s);
		break;
	}
	free(s);
	return 0;
}
