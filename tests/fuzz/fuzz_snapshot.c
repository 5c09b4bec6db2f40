// SPDX-License-Identifier: MIT
/*
 * `rdmactl snapshot` over a recorded tree: the walk of /sys/class/infiniband
 * and /sys/class/net that resolves symlinks as the kernel would (loops,
 * links to links, dangling links), the limit and account files, and the
 * tar.gz writer with long names, the list of files left out.  Input: a
 * tree (fuzz.h).  The archive goes next to the root, never into it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/outfile.h"
#include "base/text.h"
#include "fuzz.h"
#include "node/snapshot.h"

static const char *const prefixes[] = { "sys/", "proc/", "etc/", "run/", "usr/", NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snapshot_stats st;
	struct outfile of;
	char out[300];
	struct ctx ctx;
	int ret;

	if (size > 65536)
		return 0;
	fuzz_root_init();
	fuzz_tree_write(data, size, prefixes);
	snprintf(out, sizeof(out), "%s.tar.gz", fuzz_root);
	ctx = fuzz_ctx("snapshot");
	memset(&st, 0, sizeof(st));
	unlink(out);
	if (outfile_open(&ctx, &of, out, "snapshot", 0))
		fuzz_fail("outfile_open of a new '%s' failed", out);
	ret = snapshot_write(&ctx, &of, &st);
	if (ret > 0)
		fuzz_fail("snapshot_write gave %d", ret);
	if (ret)
		outfile_fail(&ctx, &of, ret);
	else
		ret = outfile_commit(&ctx, &of);
	if (!ret && access(out, F_OK))
		fuzz_fail("snapshot_write succeeded without an archive");
	if (ret && !access(out, F_OK))
		fuzz_fail("snapshot_write failed (%d) and left an archive", ret);
	/* Names of left-out files are bytes from the tree; the list is JSON. */
	if (st.warnings && json_make_utf8(st.warnings))
		fuzz_fail("snapshot_write listed a left-out file in invalid UTF-8");
	json_object_put(st.warnings);
	unlink(out);
	return 0;
}
