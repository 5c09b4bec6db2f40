// SPDX-License-Identifier: MIT
/*
 * The RDMA netlink replies lib/node/rdma_nl.c parses: device dumps, port dumps
 * and the uverbs chardev answer.  Its callbacks are static, so this target
 * compiles lib/node/rdma_nl.c into itself (its one exported function renamed)
 * and runs them over a fuzzed buffer of netlink messages with libmnl's
 * mnl_cb_run(), as nl_request() does with the kernel's replies.
 *
 * Input: the message stream (struct nlmsghdr, struct nlattr, ...), run
 * through the device callback; then, for each device found, through the
 * chardev and port callbacks as load_dev_details() does; and through the
 * system callback of `rdma system show` (the netns mode).
 */
#define rdma_nl_load fuzz_rdma_nl_load_unused
#define rdma_nl_netns_mode fuzz_rdma_nl_netns_mode_unused
#include "../../lib/node/rdma_nl.c"
#undef rdma_nl_load
#undef rdma_nl_netns_mode

#include "fuzz.h"

/* The kernel numbers ports with a u8 in practice; the copy is only kept within reason. */
#define PORTS_MAX 1024

/*
 * The messages of @buf as the kernel frames them: each nlmsg_len at least a
 * header and within the buffer.  libmnl relies on that (mnl_nlmsg_ok()
 * casts nlmsg_len to int, so a length of 2^31 or more passes and walks off
 * the buffer); rdmactl only runs it on replies from the kernel's netlink
 * socket, so the stream is cut at the first message the kernel would never
 * send, and everything inside the messages stays fuzzed.
 */
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

static void run(const uint8_t *buf, size_t len, mnl_cb_t cb, void *arg)
{
	static uint8_t copy[32768] __attribute__((aligned(8)));

	/* nl_request() hands libmnl the buffer recv() filled: aligned, at most 32 KiB. */
	memcpy(copy, buf, len);
	mnl_cb_run(copy, kernel_framed(copy, len), 0, 0, cb, arg);
}

static void dev_sane(const struct rdma_dev *d)
{
	if (!memchr(d->name, 0, sizeof(d->name)) || !memchr(d->fw_ver, 0, sizeof(d->fw_ver)) ||
	    !memchr(d->protocol, 0, sizeof(d->protocol)) || !memchr(d->driver, 0, sizeof(d->driver)))
		fuzz_fail("device strings not terminated");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rdma_node node = { 0 };
	size_t i;
	unsigned int j;
	int mode = -1;

	if (size > 32768)
		return 0;
	run(data, size, sys_cb, &mode);
	if (mode < -1 || mode > 1)
		fuzz_fail("netns mode %d is neither shared nor exclusive", mode);
	run(data, size, dev_cb, &node);
	for (i = 0; i < node.n; i++) {
		struct rdma_dev *d = &node.devs[i];

		run(data, size, chardev_cb, d);
		dev_sane(d);
		if (d->nports > PORTS_MAX || rdma_dev_alloc_ports(d, d->nports))
			continue;
		run(data, size, port_cb, d);
		for (j = 0; j < d->nports; j++)
			if (!memchr(d->ports[j].netdev, 0, sizeof(d->ports[j].netdev)))
				fuzz_fail("port netdev not terminated");
	}
	rdma_node_free(&node);
	return 0;
}
