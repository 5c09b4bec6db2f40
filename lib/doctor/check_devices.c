// SPDX-License-Identifier: MIT
/*
 * The devices check: the node's RDMA devices and, when there are none,
 * which layer is missing (driver, Soft-RoCE link, provider library,
 * /dev/infiniband, another network namespace).  rdmactl env refuses a
 * node without devices in these words, so it sits below both.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/root.h"
#include "base/sysfs.h"
#include "doctor/check.h"
#include "doctor/checks.h"
#include "node/netdev.h"
#include "node/rdma_load.h"

/* Copy @src into @dst, cut to fit. */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool path_exists(const struct node_facts *d, const char *path)
{
	DIR *dir;

	dir = root_opendir(d->ctx, path);
	if (!dir)
		return false;
	closedir(dir);
	return true;
}

/* First entry of @dir (below the root) that is not "." , ".." or @except. */
static bool first_entry(const struct node_facts *d, const char *dir, const char *except,
			char *buf, size_t len)
{
	struct dirent *de;
	bool found = false;
	DIR *dd;

	dd = root_opendir(d->ctx, dir);
	if (!dd)
		return false;
	while (!found && (de = readdir(dd)))
		if (de->d_name[0] != '.' && (!except || strcmp(de->d_name, except))) {
			copy_str(buf, len, de->d_name);
			found = true;
		}
	closedir(dd);
	return found;
}

/* An up netdev to offer in "rdma link add ... netdev IF". */
static void guess_netdev(const struct node_facts *d, char *buf, size_t len)
{
	char state[16];
	struct dirent *de;
	DIR *dd;

	snprintf(buf, len, "IF");
	dd = root_opendir(d->ctx, "/sys/class/net");
	if (!dd)
		return;
	while ((de = readdir(dd))) {
		if (!strcmp(de->d_name, "lo") || strlen(de->d_name) >= 16 ||
		    !netdev_class_entry(d->ctx, de->d_name))
			continue;
		if (!netdev_sysfs_state(d->ctx, de->d_name, state, sizeof(state)) && !strcmp(state, "up")) {
			snprintf(buf, len, "%s", de->d_name);
			break;
		}
	}
	closedir(dd);
}

/* Devices the kernel has but libibverbs did not open: provider or /dev missing. */
static void devices_unopened(struct node_facts *d, struct check_result *r, const char *kdev)
{
	char path[256], driver[64] = "", node[64];

	if (!first_entry(d, "/dev/infiniband", NULL, node, sizeof(node))) {
		check_note(r, CHECK_FAIL, "the kernel has %s but /dev/infiniband is missing or empty "
			   "(a container started without it)", kdev);
		check_fix(r, "start the container with --device=/dev/infiniband "
			  "(docker/podman) or mount /dev/infiniband into it");
		return;
	}
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/driver", kdev);
	if (read_link_base(d->ctx, path, driver, sizeof(driver)))
		driver[0] = '\0';
	check_note(r, CHECK_FAIL, "the kernel has %s%s%s%s but libibverbs could not open it: its "
		   "provider library is missing (libibverbs warns \"couldn't load driver\")", kdev,
		   driver[0] ? " (driver " : "", driver, driver[0] ? ")" : "");
	check_fix(r, "apt-get install ibverbs-providers (dnf install libibverbs), then "
		  "check with: ibv_devices");
}

/* No device in /sys/class/infiniband at all: which layer is missing. */
static void devices_none(struct node_facts *d, struct check_result *r)
{
	char ifname[32];

	guess_netdev(d, ifname, sizeof(ifname));
	if (!path_exists(d, "/sys/module/ib_core")) {
		check_note(r, CHECK_FAIL, "no RDMA device: no kernel RDMA driver is loaded (no ib_core)");
		check_fix(r, "modprobe mlx5_ib (NVIDIA/Mellanox NICs), or for Soft-RoCE: "
			  "modprobe rdma_rxe && rdma link add rxe0 type rxe netdev %s", ifname);
	} else if (path_exists(d, "/sys/module/rdma_rxe")) {
		check_note(r, CHECK_FAIL, "no RDMA device: rdma_rxe is loaded but no Soft-RoCE link exists");
		check_fix(r, "rdma link add rxe0 type rxe netdev %s", ifname);
	} else {
		check_note(r, CHECK_FAIL, "no RDMA device: ib_core is loaded but no NIC driver "
			   "registered a device");
		check_fix(r, "modprobe mlx5_ib (or your NIC's RDMA driver; see lspci and dmesg), "
			  "or for Soft-RoCE: modprobe rdma_rxe && rdma link add rxe0 type rxe netdev %s",
			  ifname);
	}
}

/*
 * Whether libibverbs lists @name: RDMA netlink names every device the
 * kernel has, verbs only those whose provider library loaded and whose
 * /dev/infiniband node exists.  True when it cannot be known (a --root
 * tree that did not record it).
 */
static bool verbs_has(const struct node_facts *d, const char *name)
{
	char *names = NULL;
	bool found;
	int ret = verbs_devices(d->ctx, &names);

	found = ret == -ENODATA || (!ret && verbs_devices_has(names, name));
	free(names);
	return found;
}

/* The netns mode, and the devices other namespaces hold (exclusive mode). */
static void devices_netns(struct node_facts *d, struct check_result *r)
{
	const struct rdma_netns *ns = doctor_netns(d);
	char list[512];

	if (ns->mode == NETNS_UNKNOWN)
		return;
	check_note(r, CHECK_OK, "RDMA netns mode %s%s%s", rdma_netns_mode_str(ns->mode),
		   ns->n_hidden ? ", other namespaces hold " : "",
		   rdma_netns_hidden_list(ns, list, sizeof(list)));
}

/* None here, because exclusive mode gave them to other namespaces; true when so. */
static bool devices_elsewhere(struct node_facts *d, struct check_result *r)
{
	char why[512], fix[256];

	if (!rdma_netns_explain(doctor_netns(d), why, sizeof(why), fix, sizeof(fix)))
		return false;
	check_note(r, CHECK_FAIL, "no RDMA device in this network namespace: %s", why);
	check_fix(r, "%s", fix);
	return true;
}

void check_devices(struct node_facts *d, struct check_result *r)
{
	char kdev[64];
	size_t i;

	if (d->node_err) {
		check_note(r, CHECK_FAIL, "could not read the RDMA devices: %s", strerror(-d->node_err));
		check_fix(r, "run again with -v to see why");
		return;
	}
	if (!d->node.n) {
		if (devices_elsewhere(d, r))
			return;
		if (first_entry(d, "/sys/class/infiniband", NULL, kdev, sizeof(kdev)))
			devices_unopened(d, r, kdev);
		else
			devices_none(d, r);
		return;
	}
	for (i = 0; i < d->node.n; i++) {
		const struct rdma_dev *dev = &d->node.devs[i];

		if (!verbs_has(d, dev->name)) {
			devices_unopened(d, r, dev->name);
			continue;
		}
		check_note(r, CHECK_OK, "%s (%s%s%u port%s)", dev->name, dev->driver,
			   dev->driver[0] ? ", " : "", dev->nports, dev->nports == 1 ? "" : "s");
	}
	devices_netns(d, r);
}
