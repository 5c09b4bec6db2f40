// SPDX-License-Identifier: MIT
/*
 * The doctor's check table and its runner.  The checks are check_*.c's
 * (checks.h) and what they write with is check.c's: the table names the
 * checks, and nothing here is called back by them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/opt.h"
#include "base/output.h"
#include "base/sysfs.h"
#include "doctor/checks.h"
#include "doctor/doctor.h"

/* Stable IDs: scripts select them with --only/--skip. Keep them once shipped. */
const struct check doctor_checks[] = {
	{ .id = "devices", .fn = check_devices, .node = true,
	  .desc = "RDMA devices present; if none, why (driver, Soft-RoCE link, provider library, container)",
	  .reads = "/sys/class/infiniband, /sys/module (ib_core, rdma_rxe), the RDMA netns mode (rdma system), /dev/infiniband, libibverbs' providers",
	  .fails = "fail: no RDMA device, or one libibverbs cannot open (no provider library, a container without /dev/infiniband); in exclusive netns mode, a namespace holding none",
	  .fix = "modprobe the driver (mlx5_ib; rdma_rxe and rdma link add rxe0 type rxe netdev IF), apt-get install ibverbs-providers, start the container with --device=/dev/infiniband" },
	{ .id = "ports", .fn = check_ports, .node = true,
	  .desc = "every port ACTIVE and LinkUp; a down port named with its netdev's state; a bond its traffic leaves by said",
	  .reads = "each port's state and phys_state in sysfs, its netdev's operstate, that of a VLAN or bond stacked on it (lower_* links), a bond's bonding/ and its slaves' bonding_slave/mii_status",
	  .fails = "fail: a port not ACTIVE or not LinkUp, or whose stacked netdev is down; warn: a bond with a slave down, or hashing without UDP ports (layer2, layer2+3)",
	  .fix = "ip link set IF up when the netdev is down; else the cable, the switch port, or the VF's PF; ip link set BOND type bond xmit_hash_policy layer3+4" },
	{ .id = "roce.ipv4", .fn = check_roce_ipv4, .node = true,
	  .desc = "each RoCE port's netdev has an IPv4 address (else only link-local GIDs)",
	  .reads = "the IPv4 addresses of each RoCE port's netdev (rtnetlink), its GID table",
	  .fails = "fail: a RoCE port whose netdev has no IPv4 address (only link-local GIDs: IPv4 peers are unreachable)",
	  .fix = "ip addr add ADDRESS/PREFIX dev IF" },
	{ .id = "roce.gid", .fn = check_roce_gid, .node = true,
	  .desc = "a routable RoCE v2 GID exists; its index, and whether NCCL would find it alone",
	  .reads = "each RoCE port's GID table (gids, gid_attrs/types, gid_attrs/ndevs), the NCCL release installed (libnccl.so.X.Y.Z)",
	  .fails = "fail: no routable RoCE v2 GID, or ports needing different indexes under a library that cannot find each (NCCL < 2.21, UCX < 1.7); warn: NCCL < 2.21 would take index 0",
	  .fix = "export NCCL_IB_GID_INDEX=N (and UCX_IB_GID_INDEX=N), or rdmactl env for each node's values" },
	{ .id = "roce.route", .fn = check_roce_route, .node = true,
	  .desc = "where rails share a subnet, each port's traffic leaves and is answered by that port",
	  .reads = "the IPv4 rules and routes of every table (rtnetlink), net.ipv4.conf's rp_filter, arp_ignore and arp_announce",
	  .fails = "fail: rails in one subnet where traffic from a port's address leaves by another port (no rule from ADDR), strict rp_filter then drops its replies, or arp_ignore or arp_announce is 0; warn: an address no route of its netdev covers",
	  .fix = "ip rule add from ADDR table N; ip route add SUBNET dev IF src ADDR table N; sysctl -w net.ipv4.conf.IF.rp_filter=2, arp_ignore=1, arp_announce=2 (lasting: /etc/sysctl.d, the netdev's configuration)" },
	{ .id = "mtu", .fn = check_mtu, .node = true,
	  .desc = "the netdev MTU lets RoCE use a 4096-byte RDMA MTU; with --peer, both ends agree",
	  .reads = "each port's active and largest RDMA MTU, its netdev's MTU; with --peer, the peer's",
	  .fails = "warn: an active RDMA MTU below 4096 and below the port's largest (netdev MTU under 4192, 4176 on rxe); fail: both ends of --peer differ",
	  .fix = "ip link set IF mtu 9000 on every node and switch port (lasting: nmcli con mod IF 802-3-ethernet.mtu 9000)" },
	{ .id = "roce.qos", .fn = check_roce_qos, .node = true,
	  .desc = "the job's RoCE traffic class lands on a lossless priority (PFC or ECN on it)",
	  .reads = "NCCL_IB_TC, NCCL_IB_FIFO_TC, NCCL_IB_SL, UCX_IB_TRAFFIC_CLASS, UCX_IB_SL (environment and files), rdma_cm's default_roce_tos (configfs); each port netdev's DCB through dcbnl (PFC, DSCP map, trust), mlx5's ecn/ in sysfs, a VLAN's egress map (/proc/net/vlan)",
	  .fails = "fail: the job's DSCP lands on a priority with neither PFC nor ECN (lossy), a traffic class outside 0-255; warn: no PFC and ECN unreadable, a port whose DCB cannot be read beside one that can; skip: no DCB (virtio, rxe's netdev)",
	  .fix = "export NCCL_IB_TC or UCX_IB_TRAFFIC_CLASS with a class whose DSCP the NIC maps to its lossless priority (106: DSCP 26), or dcb app replace dev IF dscp-prio D:P, dcb pfc set dev IF prio-pfc P:on" },
	{ .id = "memlock.shell", .fn = check_memlock_shell,
	  .desc = "locked-memory limit of this shell (ulimit -l)",
	  .reads = "/proc/self/limits (RLIMIT_MEMLOCK), the process's CAP_IPC_LOCK",
	  .fails = "fail: under 1 GiB; warn: finite, 1 GiB or more; ok: unlimited, or not enforced (CAP_IPC_LOCK)",
	  .fix = "prlimit --pid $$ --memlock=unlimited, and the login limit below" },
	{ .id = "memlock.login", .fn = check_memlock_login,
	  .desc = "locked-memory limit of PAM logins (limits.conf, limits.d)",
	  .reads = "/etc/security/limits.conf and limits.d/*.conf as pam_limits applies them, for the user (--user)",
	  .fails = "fail: under 1 GiB; warn: finite, 1 GiB or more",
	  .fix = "a limits.d line: * soft memlock unlimited and * hard memlock unlimited (root named itself on Debian)" },
	{ .id = "memlock.systemd", .fn = check_memlock_systemd,
	  .desc = "locked-memory limit of systemd services (DefaultLimitMEMLOCK)",
	  .reads = "DefaultLimitMEMLOCK= in /etc/systemd/system.conf and its drop-ins",
	  .fails = "fail: under 1 GiB (systemd's default is 8 MiB); warn: finite, 1 GiB or more",
	  .fix = "a system.conf.d drop-in with DefaultLimitMEMLOCK=infinity, then systemctl daemon-reexec" },
	{ .id = "firewall", .fn = check_firewall,
	  .desc = "firewalld, nftables and iptables rules against RoCE v2 (UDP 4791) and the TCP ports",
	  .reads = "firewalld's process and unit, nft -j list ruleset, iptables-save (filter), ip_local_port_range",
	  .fails = "fail: a rule that drops or rejects UDP 4791 (RoCE v2), the probe's TCP port or the ephemeral ports; warn: firewalld running or enabled, a rule with other conditions",
	  .fix = "nft delete rule FAMILY TABLE CHAIN handle N, or an accept rule before it; firewall-cmd --add-port" },
	{ .id = "env.nccl", .fn = check_env_nccl, .node = true,
	  .desc = "NCCL_* variables name devices, interfaces and GIDs that exist",
	  .reads = "NCCL_* in the environment, $NCCL_CONF_FILE or ~/.nccl.conf, /etc/nccl.conf; the devices, interfaces and GID tables",
	  .fails = "fail: a value naming no device, interface or usable GID, or NCCL_IB_GID_INDEX=-1 on NCCL < 2.21; warn: NCCL_IB_DISABLE=1, a prefix that selects more devices",
	  .fix = "export the corrected value the check prints, or delete the line in the file it names" },
	{ .id = "env.ucx", .fn = check_env_ucx, .node = true,
	  .desc = "UCX_NET_DEVICES and UCX_IB_GID_INDEX name devices and GIDs that exist",
	  .reads = "UCX_NET_DEVICES and UCX_IB_GID_INDEX in the environment and UCX's ucx.conf files; the devices and GID tables",
	  .fails = "fail: a device or port that does not exist or is down, a GID index that is not RoCE v2, routable and IPv4 where IPv4 exists, a representor",
	  .fix = "export the corrected value the check prints (rdmactl env prints this node's)" },
	{ .id = "ucx.ud_dgid", .fn = check_ucx_ud_dgid, .node = true,
	  .desc = "UCX before 1.19 on a RoCE device other than mlx5 with an IPv4 GID drops every UD packet unless UCX_UD_VERBS_ETH_DGID_CHECK=n",
	  .reads = "the libucp.so.0 a job loads and its release (the library, ucx.pc, dpkg), the RoCE ports' providers and GIDs, UCX_UD_VERBS_ETH_DGID_CHECK",
	  .fails = "fail with --for ucx, warn otherwise: UCX before 1.19 on a RoCE device other than mlx5 using an IPv4 GID",
	  .fix = "export UCX_UD_VERBS_ETH_DGID_CHECK=n, or UCX 1.19 or later" },
	{ .id = "functions", .fn = check_functions, .node = true,
	  .desc = "SR-IOV VFs and SFs have their driver bound and SFs are active; no VF sits on a PF that is down",
	  .reads = "SR-IOV VFs (sriov_numvfs, virtfn*), SFs (the auxiliary bus, devlink), their drivers and PFs",
	  .fails = "fail: a VF whose PF is down; warn: a VF or SF without a driver, an SF never activated",
	  .fix = "bind the driver (echo ADDR > /sys/bus/pci/drivers/DRIVER/bind), devlink port function set PORT state active, bring up the PF" },
	{ .id = "gpudirect", .fn = check_gpudirect,
	  .desc = "with an NVIDIA driver, nvidia-peermem loaded or DMA-BUF usable",
	  .reads = "/sys/module/nvidia, nvidia_peermem, /sys/kernel/mm/memory_peers, /proc/driver/nvidia/version, the kernel release",
	  .fails = "fail: an NVIDIA driver without nvidia-peermem and without DMA-BUF (the open kernel module on Linux 5.12 or later)",
	  .fix = "modprobe nvidia-peermem, kept with a modules-load.d file" },
	{ .id = "versions", .fn = check_versions,
	  .desc = "kernel, rdma-core and OFED versions; with --peer, the same on both ends",
	  .reads = "the kernel release, libibverbs.so.1's name (rdma-core), ofed_info -s, libnccl.so; with --peer, the peer's",
	  .fails = "warn: with --peer, a different kernel or rdma-core on the other end",
	  .fix = "the same kernel and rdma-core on every node" },
	{ .id = "peer", .fn = check_peer,
	  .desc = "with --peer: control connection, route, subnet, MTUs, then a short RDMA probe",
	  .reads = "with --peer: the route and subnets, the peer's probe server (NODE_INFO), a one-second RDMA WRITE probe, the port counters",
	  .fails = "fail: no route through an RDMA netdev, no probe server, different GID families, a failed probe; warn: under half the port's rate, lost packets during the probe",
	  .fix = "rdmactl probe --server (and the same RDMACTL_TOKEN) on the peer; the route, MTU and firewall the other checks name" },
	{ 0 }
};

size_t doctor_count(void)
{
	size_t n = 0;

	while (doctor_checks[n].id)
		n++;
	return n;
}

/* ---- --only / --skip ---- */

/* "memlock" names memlock.shell and the other memlock.* checks. */
static bool id_covers(const char *word, size_t len, const char *id)
{
	return !strncmp(id, word, len) && (id[len] == '\0' || id[len] == '.');
}

size_t doctor_ids(const char **ids, size_t max)
{
	static const char *const groups[] = { "roce", "memlock", "env", "ucx" };
	size_t i, n = 0;

	/* Group names are IDs too ("memlock" for memlock.*): first. */
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]) && n < max; i++)
		ids[n++] = groups[i];
	for (i = 0; doctor_checks[i].id && n < max; i++)
		ids[n++] = doctor_checks[i].id;
	return n;
}

static int select_word(const struct ctx *ctx, const char *word, size_t len, const char *opt,
		       bool *sel)
{
	const char *ids[64];
	char w[64];
	size_t i, n = doctor_ids(ids, 64);
	bool hit = false;

	for (i = 0; doctor_checks[i].id; i++) {
		if (id_covers(word, len, doctor_checks[i].id)) {
			sel[i] = true;
			hit = true;
		}
	}
	if (hit)
		return 0;
	snprintf(w, sizeof(w), "%.*s", (int)(len < 63 ? len : 63), word);
	if (closest_word(w, ids, n))
		log_err(ctx, "Unknown check '%s' in --%s. Did you mean '%s'? ('rdmactl doctor --list' lists them)",
			w, opt, closest_word(w, ids, n));
	else
		log_err(ctx, "Unknown check '%s' in --%s. 'rdmactl doctor --list' lists the checks.",
			w, opt);
	return -EINVAL;
}

int doctor_select(const struct ctx *ctx, const char *list, const char *opt, bool *sel)
{
	const char *p = list;

	if (!*list) {
		log_err(ctx, "Failed to read --%s: the list of check IDs is empty", opt);
		return -EINVAL;
	}
	while (*p) {
		size_t len = strcspn(p, ",");

		if (!len || select_word(ctx, p, len, opt, sel)) {
			if (!len)
				log_err(ctx, "Failed to read --%s '%s': empty check ID", opt, list);
			return -EINVAL;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* ---- running ---- */

static void add_problem(char *buf, size_t len, const char *id)
{
	size_t off = strlen(buf);

	snprintf(buf + off, len - off, "%s%s", off ? ", " : "", id);
}

/*
 * Files the check's verdict would rest on could not be read (warnings
 * @from..@to of ctx->warnings): it fails with what could not be read,
 * instead of a verdict built on missing data ("check the cable" for a
 * port state nobody could read).
 */
static void unread(const struct node_facts *d, struct check_result *r, size_t from, size_t to)
{
	struct json_object *w = json_object_array_get_idx(d->ctx->warnings, from), *p, *e;

	if (!w || !json_object_object_get_ex(w, "path", &p) ||
	    !json_object_object_get_ex(w, "error", &e))
		return;
	memset(r, 0, sizeof(*r));
	check_note(r, CHECK_FAIL, "cannot read %s: %s%s", json_object_get_string(p),
		  json_object_get_string(e), to - from > 1 ? " (and more: see the warnings)" : "");
	check_fix(r, "%s", strstr(json_object_get_string(e), "run as root")
			       ? "run rdmactl doctor as root"
			       : "make the file readable, or record the node again (rdmactl snapshot)");
}

void doctor_run(struct node_facts *d, const bool *sel, struct table *t, struct doctor_counts *c)
{
	struct check_result *r;
	size_t i, before;

	memset(c, 0, sizeof(*c));
	r = malloc(sizeof(*r));
	if (!r)
		return;
	for (i = 0; doctor_checks[i].id; i++) {
		struct json_object *row;

		if (!sel[i])
			continue;
		memset(r, 0, sizeof(*r));
		before = read_warnings(d->ctx);
		doctor_checks[i].fn(d, r);
		if (doctor_checks[i].node && d->node_warnings)
			unread(d, r, 0, d->node_warnings);
		if (read_warnings(d->ctx) > before)
			unread(d, r, before, read_warnings(d->ctx));
		if (r->status == CHECK_OK && !r->found[0])
			snprintf(r->found, sizeof(r->found), "nothing to check");
		row = table_row(t);
		row_str(row, DOC_STATUS, check_status_str(r->status));
		row_str(row, DOC_ID, doctor_checks[i].id);
		row_str(row, DOC_FOUND, r->found);
		row_str(row, DOC_FIX, r->status == CHECK_OK || r->status == CHECK_SKIP || !r->fix[0]
					    ? NULL : r->fix);
		c->n[r->status]++;
		if (r->status == CHECK_FAIL || r->status == CHECK_WARN)
			add_problem(c->problems, sizeof(c->problems), doctor_checks[i].id);
	}
	free(r);
}
