// SPDX-License-Identifier: MIT
/*
 * Paths below a root (base/root.h), through openat2 and through the walk
 * by hand alike: an absolute link leads inside the root, ".." stops at
 * it, relative links into sys/devices work, a loop is ELOOP; what a
 * snapshot's manifest lists as unreadable reads as that error, the entry
 * and what is below a directory it lists.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/root.h"
#include "base/sysfs.h"
#include "test.h"

static char dir[] = "/tmp/rdmactl-root-XXXXXX";
static struct ctx ctx;

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void at(const char *rel, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, rel);
}

static void make_tree(void)
{
	char a[512], b[512];
	const char *dirs[] = { "opt", "opt/site", "etc", "etc/limits.d", "sys", "sys/devices",
			       "sys/devices/pci0", "sys/devices/pci0/mlx5_0", "sys/class",
			       "sys/class/infiniband", "sys/devices/pci0/mlx5_0/hidden", NULL };
	size_t i;

	if (!mkdtemp(dir))
		return;
	for (i = 0; dirs[i]; i++) {
		at(dirs[i], a, sizeof(a));
		mkdir(a, 0755);
	}
	put("opt/site/memlock.conf", "inside\n");
	put("sys/devices/pci0/mlx5_0/node_guid", "guid\n");
	put("sys/devices/pci0/mlx5_0/hidden/x", "secret\n");
	at("etc/limits.d/abs.conf", a, sizeof(a));
	CHECK(!symlink("/opt/site/memlock.conf", a));
	at("etc/limits.d/up.conf", a, sizeof(a));
	CHECK(!symlink("../../../../../opt/site/memlock.conf", a));
	at("sys/class/infiniband/mlx5_0", a, sizeof(a));
	CHECK(!symlink("../../devices/pci0/mlx5_0", a));
	at("etc/loop1", a, sizeof(a));
	at("etc/loop2", b, sizeof(b));
	CHECK(!symlink("loop2", a) && !symlink("/etc/loop1", b));
	put(SNAPSHOT_MANIFEST, "{\"rdmactl\": \"0.1.0\", \"warnings\": ["
	    "{\"path\": \"/sys/devices/pci0/mlx5_0/fw_ver\", \"errno\": \"EACCES\"},"
	    "{\"path\": \"/sys/devices/pci0/mlx5_0/hidden\", \"errno\": \"EIO\"}]}\n");
	ctx.root = dir;
}

/* The checks, once through openat2 and once by hand. */
static void reads(void)
{
	char buf[256], *text = NULL;
	struct stat st;

	CHECK_INT(read_line(&ctx, "/etc/limits.d/abs.conf", buf, sizeof(buf)), 6);
	CHECK_STR(buf, "inside");
	CHECK_INT(read_line(&ctx, "/etc/limits.d/up.conf", buf, sizeof(buf)), 6);
	CHECK_INT(read_line(&ctx, "/sys/class/infiniband/mlx5_0/node_guid", buf, sizeof(buf)), 4);
	CHECK_INT(read_file(&ctx, "/etc/limits.d/abs.conf", 100, &text, NULL), 0);
	CHECK_STR(text, "inside\n");
	free(text);
	CHECK(root_exists(&ctx, "/etc/limits.d/abs.conf"));
	CHECK_INT(root_stat(&ctx, "/etc/limits.d/abs.conf", true, &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_INT(root_readlink(&ctx, "/etc/limits.d/abs.conf", buf, sizeof(buf)), 22);
	CHECK_STR(buf, "/opt/site/memlock.conf");
	CHECK_INT(root_resolve(&ctx, "/sys/class/infiniband/mlx5_0/node_guid", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "/sys/devices/pci0/mlx5_0/node_guid");
	CHECK_INT(root_open(&ctx, "/etc/loop1", O_RDONLY), -ELOOP);
	CHECK_INT(root_open(&ctx, "/etc/none", O_RDONLY), -ENOENT);
	/* The snapshot's misses: the entry, by any name; what is below a directory. */
	CHECK_INT(read_line(&ctx, "/sys/class/infiniband/mlx5_0/fw_ver", buf, sizeof(buf)), -EACCES);
	CHECK_INT(root_missed(&ctx, "/sys/class/infiniband/mlx5_0/fw_ver"), -EACCES);
	CHECK_INT(read_line(&ctx, "/sys/devices/pci0/mlx5_0/hidden/x", buf, sizeof(buf)), -EIO);
	CHECK_INT(root_missed(&ctx, "/sys/devices/pci0/mlx5_0/node_guid"), 0);
}

static void through_openat2(void)
{
	root_walk_by_hand(false);
	reads();
}

static void walked_by_hand(void)
{
	root_walk_by_hand(true);
	reads();
	root_walk_by_hand(false);
}

int main(void)
{
	char cmd[600];

	make_tree();
	RUN("root", through_openat2);
	RUN("root", walked_by_hand);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	TEST_EXIT();
}
