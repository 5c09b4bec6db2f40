// SPDX-License-Identifier: MIT
/*
 * The devlink replies lib/node/devlink.c parses: the generic netlink
 * controller's answer for the family, and dumps of instances, ports and
 * eswitch modes (devlink_parse() dispatches each message by its command,
 * as devlink_load() does with the kernel's replies).
 *
 * Input: the message stream (struct nlmsghdr, struct genlmsghdr, struct
 * nlattr, ...), cut at the first message the kernel would never frame
 * (see fuzz_rdma_nl.c: libmnl trusts nlmsg_len).  Seeds:
 * `make fuzz-devlink-seeds` writes them from tests/unit/devlink_msgs.h.
 */
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>

#include "fuzz.h"
#include "node/devlink.h"

static size_t kernel_framed(const uint8_t *buf, size_t len)
{
	size_t off = 0;
	uint32_t n;

	while (len - off >= sizeof(struct nlmsghdr)) {
		memcpy(&n, buf + off, sizeof(n));
		if (n < sizeof(struct nlmsghdr) || n > len - off)
			break;
		off += MNL_ALIGN(n) < len - off ? MNL_ALIGN(n) : len - off;
	}
	return off;
}

static void port_sane(const struct dl_port *p)
{
	if (!memchr(p->bus, 0, sizeof(p->bus)) || !memchr(p->dev, 0, sizeof(p->dev)) ||
	    !memchr(p->netdev, 0, sizeof(p->netdev)))
		fuzz_fail("port strings not terminated");
	if (p->netdev[0] && devlink_port_by_netdev(NULL, p->netdev))
		fuzz_fail("a lookup in no node found a port");
	devlink_flavour_str(p->flavour);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t copy[32768] __attribute__((aligned(8)));
	struct dl_node dl = { 0 };
	size_t i, len;

	if (size > sizeof(copy))
		return 0;
	/* devlink_load() hands libmnl the buffer recv() filled: aligned, at most 32 KiB. */
	memcpy(copy, data, size);
	len = kernel_framed(copy, size);
	devlink_parse_family(copy, len);
	devlink_parse(copy, len, &dl);
	for (i = 0; i < dl.ndevs; i++) {
		if (!memchr(dl.devs[i].bus, 0, sizeof(dl.devs[i].bus)) ||
		    !memchr(dl.devs[i].name, 0, sizeof(dl.devs[i].name)))
			fuzz_fail("instance strings not terminated");
		if (dl.devs[i].eswitch < DL_ESWITCH_UNKNOWN || dl.devs[i].eswitch > DL_ESWITCH_SWITCHDEV)
			fuzz_fail("eswitch mode %d out of range", dl.devs[i].eswitch);
	}
	for (i = 0; i < dl.nports; i++)
		port_sane(&dl.ports[i]);
	devlink_free(&dl);
	return 0;
}
