// SPDX-License-Identifier: MIT
/*
 * Slurm's switch tree (lib/mesh/topology.c): topology.conf and `scontrol
 * show topology`.  Input: one selector byte (odd: scontrol's output),
 * then the text.
 *
 * Besides not crashing: an error is one printable line naming the file;
 * a tree read has one root, every switch reaching it, and every node of
 * the run on a leaf.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mesh/topology.h"

#define NODES 6

static char *names[NODES] = { "n1", "n2", "n3", "gpu01", "gpu02", "a" };

static void check_tree(const struct topology *t)
{
	uint32_t i;

	if (t->root >= t->nsw || t->sw[t->root].parent != TOPO_NONE)
		fuzz_fail("root %u of %u switches", t->root, t->nsw);
	for (i = 0; i < t->nsw; i++)
		if (!topology_under(t, i, t->root))
			fuzz_fail("switch %u is not below the root", i);
	for (i = 0; i < NODES; i++)
		if (t->leaf[i] >= t->nsw || !t->sw[t->leaf[i]].leaf)
			fuzz_fail("node %u on no leaf", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct topology t;
	char err[512] = "", *s;
	size_t i;
	int ret;

	if (size < 1 || size > 16384)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	ret = topology_parse(s, "f", data[0] % 2, names, NODES, &t, err, sizeof(err));
	if (ret) {
		if (ret != -EINVAL || strncmp(err, "f:", 2))
			fuzz_fail("parse gave %d, '%s'", ret, err);
		for (i = 0; err[i]; i++)
			if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] == 0x7f)
				fuzz_fail("byte 0x%02x in the message", (unsigned char)err[i]);
	} else {
		check_tree(&t);
	}
	topology_free(&t);
	free(s);
	return 0;
}
