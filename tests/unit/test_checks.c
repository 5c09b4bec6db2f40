// SPDX-License-Identifier: MIT
/*
 * Every doctor check (lib/doctor/check_*.c) judged on node facts built
 * here, one table row a case: the ports and GIDs (struct rdma_node), the
 * job kind, the variables the job's library will read, the NCCL and UCX
 * releases installed, and the few files below a scratch --root the check
 * reads (a netdev's MTU, /proc/self/limits, a recorded iptables-save).
 * Each row names the status it expects and words that must be in what the
 * check found or in its fix.  Nothing of this machine is read: every
 * variable a check asks for is given (unset unless the row sets it), NCCL
 * and UCX are as the row says, and the root holds only the row's files.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/ctx.h"
#include "doctor/check.h"
#include "doctor/checks.h"
#include "doctor/doctor.h"
#include "test.h"

/*
 * One GID entry: its index, RoCE type and address ("10.0.0.1" is
 * IPv4-mapped); its netdev the port's, or one stacked on it when named.
 */
struct gid_spec {
	unsigned int idx;
	enum gid_type type;
	const char *addr;
	const char *stacked;	/* "ens1.100": a VLAN on the port's netdev */
};

/* One port; consecutive ports of the same device name make one device. */
struct port_spec {
	const char *dev, *driver;
	unsigned int num;
	int state;		/* 4 ACTIVE, 1 DOWN */
	enum link_layer ll;
	int active, max;	/* RDMA MTUs */
	const char *netdev;
	struct gid_spec gids[6];	/* up to the first without an address */
};

#define ETH LINK_LAYER_ETHERNET
#define IB LINK_LAYER_INFINIBAND
#define V1 GID_TYPE_ROCE_V1
#define V2 GID_TYPE_ROCE_V2
/* The table the kernel makes for one RoCE netdev with an IPv4 address: v2 IPv4 at 3. */
#define GIDS_V4(a) { { 0, V1, "fe80::1" }, { 1, V2, "fe80::1" }, { 2, V1, a }, { 3, V2, a } }

/* An mlx5 RoCE port with 10.0.0.1: what a job wants. */
static const struct port_spec roce[] = {
	{ "mlx5_0", "mlx5", 1, 4, ETH, 4096, 4096, "ens1", GIDS_V4("10.0.0.1") },
	{ NULL },
};
/* The same port down. */
static const struct port_spec roce_down[] = {
	{ "mlx5_0", "mlx5", 1, 1, ETH, 4096, 4096, "ens1", GIDS_V4("10.0.0.1") },
	{ NULL },
};
/* A RoCE port whose netdev has no IPv4 address: link-local GIDs only. */
static const struct port_spec roce_nov4[] = {
	{ "mlx5_0", "mlx5", 1, 4, ETH, 4096, 4096, "ens1",
	  { { 0, V1, "fe80::1" }, { 1, V2, "fe80::1" } } },
	{ NULL },
};
/* A RoCE port at RDMA MTU 1024 (a netdev at 1500). */
static const struct port_spec roce_1500[] = {
	{ "mlx5_0", "mlx5", 1, 4, ETH, 1024, 4096, "ens1", GIDS_V4("10.0.0.1") },
	{ NULL },
};
/* Two RoCE ports whose IPv4 v2 entries sit at different indexes (3 and 5). */
static const struct port_spec roce_spread[] = {
	{ "mlx5_0", "mlx5", 1, 4, ETH, 4096, 4096, "ens1", GIDS_V4("10.0.0.1") },
	{ "mlx5_1", "mlx5", 1, 4, ETH, 4096, 4096, "ens2",
	  { { 0, V1, "fe80::2" }, { 1, V2, "fe80::2" }, { 2, V1, "2001:db8::2" },
	    { 3, V2, "2001:db8::2" }, { 4, V1, "10.0.1.1" }, { 5, V2, "10.0.1.1" } } },
	{ NULL },
};
/* Two rails sharing 10.0.0.0/24: ens1 10.0.0.1, ens2 10.0.0.2. */
static const struct port_spec roce_shared[] = {
	{ "mlx5_0", "mlx5", 1, 4, ETH, 4096, 4096, "ens1", GIDS_V4("10.0.0.1") },
	{ "mlx5_1", "mlx5", 1, 4, ETH, 4096, 4096, "ens2", GIDS_V4("10.0.0.2") },
	{ NULL },
};
/* mlx5_0 whose address is on the VLAN ens1.100 on its netdev. */
static const struct port_spec roce_vlan[] = {
	{ "mlx5_0", "mlx5", 1, 4, ETH, 4096, 4096, "ens1",
	  { { 0, V1, "fe80::1" }, { 1, V2, "fe80::1" }, { 2, V1, "10.0.0.1", "ens1.100" },
	    { 3, V2, "10.0.0.1", "ens1.100" } } },
	{ NULL },
};
/* Soft-RoCE on eth0 with 10.0.0.1. */
static const struct port_spec rxe[] = {
	{ "rxe0", "rxe", 1, 4, ETH, 1024, 4096, "eth0", GIDS_V4("10.0.0.1") },
	{ NULL },
};
/* An InfiniBand port. */
static const struct port_spec ib[] = {
	{ "mlx5_0", "mlx5", 1, 4, IB, 4096, 4096, "", { { 0, GID_TYPE_IB, "fe80::1" } } },
	{ NULL },
};

typedef void check_fn(struct node_facts *d, struct check_result *r);

struct check_case {
	const char *name;
	check_fn *fn;
	enum job_kind target;
	const struct port_spec *ports;	/* NULL: no RDMA device */
	const char *env[6];		/* "NAME=VALUE" the job's environment sets */
	const char *files[12];		/* "PATH=CONTENT" below the root */
	int nccl;			/* NCCL release (22103); 0: none installed */
	int ucx;			/* UCX release (11301); 0: none, UCX_UNKNOWN: release unknown */
	enum check_status want;
	const char *words[4];		/* each in what was found or in the fix */
	/* Given by name where a row needs them: */
	int node_err;			/* rdma_node_load()'s error */
	struct fn *fns;			/* the PCI functions (node/fn.h), by address */
	size_t n_fns;
	bool exclusive;			/* the RDMA netns mode exclusive, not shared */
};

#define UCX_UNKNOWN 1	/* installed, release unknown (ucx_install.version 0) */

/* Every variable a check reads: all given, so the test's own environment counts for none. */
static const char *const job_vars[] = {
	"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_IB_GID_INDEX", "NCCL_IB_DISABLE",
	"NCCL_IB_ROCE_VERSION_NUM", "NCCL_IB_ADDR_FAMILY", "NCCL_IB_ADDR_RANGE",
	"UCX_NET_DEVICES", "UCX_IB_GID_INDEX", "UCX_TLS", "UCX_UD_VERBS_ETH_DGID_CHECK",
	"UCX_UD_ETH_DGID_CHECK", "NCCL_IB_TC", "NCCL_IB_FIFO_TC", "NCCL_IB_SL", "UCX_IB_SL",
	"UCX_IB_TRAFFIC_CLASS", NULL
};

/* A memlock line of /proc/self/limits, as the kernel writes it. */
#define LIMITS(soft, hard) "proc/self/limits=Limit                     Soft Limit           " \
	"Hard Limit           Units     \nMax locked memory         " soft "  " hard "  bytes     \n"
#define NO_CAPS "proc/self/status=Name:\trdmactl\nUid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000000000\n"
#define IPC_LOCK "proc/self/status=Name:\trdmactl\nUid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\n"
#define PASSWD "etc/passwd=root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n"
#define GIB "1073741824"
#define IPT(rule) "run/rdmactl/cmd/iptables-save=*filter\n:INPUT ACCEPT [0:0]\n" rule "COMMIT\n"
/* dcbnl's answer for ens1 as the snapshot records it (lib/node/dcb.h): PFC on @pfc, DSCP d on d/8. */
#define DCB_DSCP(pfc) "run/rdmactl/dcb/ens1=prio-pfc " pfc "\ndscp-prio 0:0 8:1 16:2 24:3 26:3 " \
	"32:4 40:5 48:6 56:7\n"
#define PFC_ON_3 "0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off"
#define PFC_NONE "0:off 1:off 2:off 3:off 4:off 5:off 6:off 7:off"
#define ECN(p, v) "sys/class/net/ens1/ecn/roce_rp/enable/" p "=" v "\n", \
	"sys/class/net/ens1/ecn/roce_np/enable/" p "=" v "\n"
/* The routing the snapshot records (node/route.h), as `ip -4 rule|route show` print it. */
#define RULES(extra) "run/rdmactl/net/ipv4-rules=0:\tfrom all lookup local\n" extra \
	"32766:\tfrom all lookup main\n32767:\tfrom all lookup default\n"
#define ROUTES(extra) "run/rdmactl/net/ipv4-routes=10.0.0.0/24 dev ens1 proto kernel scope link " \
	"src 10.0.0.1\n10.0.0.0/24 dev ens2 proto kernel scope link src 10.0.0.2\n" extra
#define PER_RAIL_RULES "32764:\tfrom 10.0.0.2 lookup 103\n32765:\tfrom 10.0.0.1 lookup 102\n"
#define PER_RAIL_ROUTES "10.0.0.0/24 dev ens1 table 102 scope link src 10.0.0.1\n" \
	"10.0.0.0/24 dev ens2 table 103 scope link src 10.0.0.2\n"
#define CONF_ALL "proc/sys/net/ipv4/conf/all/rp_filter=0\n", \
	"proc/sys/net/ipv4/conf/all/arp_ignore=0\n", "proc/sys/net/ipv4/conf/all/arp_announce=0\n"
#define CONF(dev, rp, ign, ann) "proc/sys/net/ipv4/conf/" dev "/rp_filter=" rp "\n", \
	"proc/sys/net/ipv4/conf/" dev "/arp_ignore=" ign "\n", \
	"proc/sys/net/ipv4/conf/" dev "/arp_announce=" ann "\n"
#define NFT_NONE "run/rdmactl/cmd/nft-list-ruleset.json={\"nftables\": []}\n"

/* A PF (mlx5_0 on ens1) and its VF 0, bound and with its device. */
static struct fn pf_vf[] = {
	{ .kind = FN_PF, .addr = "0000:3b:00.0", .num = -1, .driver = "mlx5_core", .rdma = "mlx5_0",
	  .netdev = "ens1", .vfs = 1, .vfs_total = 8, .sf_state = -1, .path = "x" },
	{ .kind = FN_VF, .addr = "0000:3b:00.2", .parent = "0000:3b:00.0", .num = 0,
	  .driver = "mlx5_core", .rdma = "mlx5_2", .netdev = "ens1v0", .vfs = -1, .vfs_total = -1,
	  .sf_state = -1, .path = "x" },
};
/* The same VF with no driver bound. */
static struct fn pf_vf_unbound[] = {
	{ .kind = FN_PF, .addr = "0000:3b:00.0", .num = -1, .driver = "mlx5_core", .rdma = "mlx5_0",
	  .netdev = "ens1", .vfs = 1, .vfs_total = 8, .sf_state = -1, .path = "x" },
	{ .kind = FN_VF, .addr = "0000:3b:00.2", .parent = "0000:3b:00.0", .num = 0, .vfs = -1,
	  .vfs_total = -1, .sf_state = -1, .path = "x" },
};
/* The VF given to a VM (vfio-pci). */
static struct fn pf_vf_vfio[] = {
	{ .kind = FN_PF, .addr = "0000:3b:00.0", .num = -1, .driver = "mlx5_core", .rdma = "mlx5_0",
	  .netdev = "ens1", .vfs = 1, .vfs_total = 8, .sf_state = -1, .path = "x" },
	{ .kind = FN_VF, .addr = "0000:3b:00.2", .parent = "0000:3b:00.0", .num = 0,
	  .driver = "vfio-pci", .vfs = -1, .vfs_total = -1, .sf_state = -1, .path = "x" },
};
/* An SF added with devlink and never activated. */
static struct fn sf_inactive[] = {
	{ .kind = FN_PF, .addr = "0000:3b:00.0", .num = -1, .driver = "mlx5_core", .rdma = "mlx5_0",
	  .netdev = "ens1", .vfs = 0, .vfs_total = 8, .sf_state = -1, .path = "x" },
	{ .kind = FN_SF, .addr = "pci/0000:3b:00.0/32769", .parent = "0000:3b:00.0", .num = 4,
	  .vfs = -1, .vfs_total = -1, .sf_state = 0 },
};

static const struct check_case cases[] = {
	/* ---- devices ---- */
	{ "devices-present", check_devices, JOB_ANY, roce, {}, {}, 0, 0, CHECK_OK,
	  { "mlx5_0 (mlx5, 1 port)" } },
	{ "devices-read-error", check_devices, JOB_ANY, NULL, {}, {}, 0, 0, CHECK_FAIL,
	  { "could not read the RDMA devices: Permission denied" }, .node_err = -EACCES },
	{ "devices-no-ib_core", check_devices, JOB_ANY, NULL, {},
	  { "sys/class/net/eth0/operstate=up\n" }, 0, 0, CHECK_FAIL,
	  { "no kernel RDMA driver is loaded (no ib_core)", "rdma link add rxe0 type rxe netdev eth0" } },
	{ "devices-rxe-without-link", check_devices, JOB_ANY, NULL, {},
	  { "sys/module/ib_core/refcnt=1\n", "sys/module/rdma_rxe/refcnt=0\n",
	    "sys/class/net/eth0/operstate=up\n" }, 0, 0, CHECK_FAIL,
	  { "rdma_rxe is loaded but no Soft-RoCE link exists", "rdma link add rxe0 type rxe netdev eth0" } },
	{ "devices-no-nic-driver", check_devices, JOB_ANY, NULL, {},
	  { "sys/module/ib_core/refcnt=1\n" }, 0, 0, CHECK_FAIL,
	  { "ib_core is loaded but no NIC driver registered a device", "modprobe mlx5_ib" } },
	{ "devices-container-without-dev", check_devices, JOB_ANY, NULL, {},
	  { "sys/class/infiniband/mlx5_0/node_type=1: CA\n" }, 0, 0, CHECK_FAIL,
	  { "the kernel has mlx5_0 but /dev/infiniband is missing", "--device=/dev/infiniband" } },
	{ "devices-exclusive-netns", check_devices, JOB_ANY, NULL, {},
	  { "sys/module/ib_core/refcnt=1\n" }, 0, 0, CHECK_FAIL,
	  { "the RDMA netns mode is exclusive", "rdma system set netns shared" }, .exclusive = true },
	{ "devices-no-provider", check_devices, JOB_ANY, NULL, {},
	  { "sys/class/infiniband/mlx5_0/node_type=1: CA\n", "dev/infiniband/uverbs0=" }, 0, 0,
	  CHECK_FAIL, { "libibverbs could not open it", "apt-get install ibverbs-providers" } },

	/* ---- functions ---- */
	{ "functions-none", check_functions, JOB_ANY, roce, {}, {}, 0, 0, CHECK_SKIP,
	  { "no SR-IOV VF or scalable function" } },
	{ "functions-vf-bound", check_functions, JOB_ANY, roce, {},
	  { "sys/class/net/ens1/operstate=up\n" }, 0, 0, CHECK_OK, { "(0000:3b:00.2): mlx5_2 (ens1v0)" },
	  .fns = pf_vf, .n_fns = 2 },
	{ "functions-vf-pf-down", check_functions, JOB_ANY, roce, {},
	  { "sys/class/net/ens1/operstate=down\n" }, 0, 0, CHECK_FAIL,
	  { "its PF's netdev ens1 is down", "ip link set ens1 up" }, .fns = pf_vf, .n_fns = 2 },
	{ "functions-vf-unbound", check_functions, JOB_ANY, roce, {}, {}, 0, 0, CHECK_WARN,
	  { "has no driver bound", "echo 0000:3b:00.2 > /sys/bus/pci/drivers/mlx5_core/bind" },
	  .fns = pf_vf_unbound, .n_fns = 2 },
	{ "functions-vf-vfio", check_functions, JOB_ANY, roce, {}, {}, 0, 0, CHECK_OK,
	  { "is bound to vfio-pci (a VM's)" }, .fns = pf_vf_vfio, .n_fns = 2 },
	{ "functions-sf-inactive", check_functions, JOB_ANY, roce, {}, {}, 0, 0, CHECK_WARN,
	  { "is inactive (devlink port pci/0000:3b:00.0/32769)",
	    "devlink port function set pci/0000:3b:00.0/32769 state active" },
	  .fns = sf_inactive, .n_fns = 2 },

	/* ---- ports ---- */
	{ "ports-active", check_ports, JOB_ANY, roce, {}, {}, 0, 0, CHECK_OK,
	  { "mlx5_0/1 ACTIVE LinkUp (ens1)" } },
	{ "ports-down-netdev-down", check_ports, JOB_ANY, roce_down, {},
	  { "sys/class/net/ens1/operstate=down\n" }, 0, 0, CHECK_FAIL,
	  { "mlx5_0/1 is DOWN", "its netdev ens1 is down", "ip link set ens1 up" } },
	{ "ports-down-netdev-up", check_ports, JOB_ANY, roce_down, {},
	  { "sys/class/net/ens1/operstate=up\n" }, 0, 0, CHECK_FAIL,
	  { "ens1 is up", "check the cable and the switch port of ens1" } },
	{ "ports-no-devices", check_ports, JOB_ANY, NULL, {}, {}, 0, 0, CHECK_SKIP,
	  { "no RDMA devices" } },

	/* ---- roce.ipv4 ---- */
	{ "roce.ipv4-has", check_roce_ipv4, JOB_ANY, roce, {}, {}, 0, 0, CHECK_OK,
	  { "mlx5_0/1 ens1 has 10.0.0.1" } },
	{ "roce.ipv4-none", check_roce_ipv4, JOB_ANY, roce_nov4, {}, {}, 0, 0, CHECK_FAIL,
	  { "ens1 has no IPv4 address", "ip addr add ADDRESS/PREFIX dev ens1" } },
	{ "roce.ipv4-infiniband", check_roce_ipv4, JOB_ANY, ib, {}, {}, 0, 0, CHECK_SKIP,
	  { "no RoCE port" } },

	/* ---- roce.gid ---- */
	{ "roce.gid-nccl-finds-it", check_roce_gid, JOB_ANY, roce, {}, {}, 22103, 0, CHECK_OK,
	  { "use GID index 3 (RoCE v2, 10.0.0.1)", "NCCL 2.21.3", "finds it itself" } },
	{ "roce.gid-old-nccl", check_roce_gid, JOB_ANY, roce, {}, {}, 21805, 0, CHECK_WARN,
	  { "NCCL 2.18.5", "older than 2.21", "export NCCL_IB_GID_INDEX=3" } },
	{ "roce.gid-nccl-unknown-for-nccl", check_roce_gid, JOB_NCCL, roce, {}, {}, 0, 0, CHECK_WARN,
	  { "no libnccl found", "export NCCL_IB_GID_INDEX=3" } },
	{ "roce.gid-nccl-unknown-any", check_roce_gid, JOB_ANY, roce, {}, {}, 0, 0, CHECK_OK,
	  { "NCCL before 2.21 needs NCCL_IB_GID_INDEX=3" } },
	{ "roce.gid-index-set", check_roce_gid, JOB_ANY, roce, { "NCCL_IB_GID_INDEX=3" }, {},
	  21805, 0, CHECK_OK, { "NCCL_IB_GID_INDEX is set (see env.nccl)" } },
	{ "roce.gid-perftest", check_roce_gid, JOB_PERFTEST, roce, {}, {}, 0, 0, CHECK_OK,
	  { "perftest: -d mlx5_0 -i 1 -x 3" } },
	{ "roce.gid-no-routable", check_roce_gid, JOB_ANY, roce_nov4, {}, {}, 22103, 0, CHECK_FAIL,
	  { "mlx5_0/1: only link-local GIDs", "ip addr add ADDR/PREFIX dev ens1" } },
	{ "roce.gid-spread-old-nccl", check_roce_gid, JOB_NCCL, roce_spread, {}, {}, 21805, 0,
	  CHECK_FAIL, { "need GID indexes 3 and 5", "older than 2.21", "install NCCL 2.21 or later" } },
	{ "roce.gid-spread-new-nccl", check_roce_gid, JOB_NCCL, roce_spread, {}, {}, 22103, 0,
	  CHECK_OK, { "mlx5_1/1: use GID index 5", "NCCL 2.21.3 finds each port's entry itself" } },
	{ "roce.gid-infiniband", check_roce_gid, JOB_ANY, ib, {}, {}, 0, 0, CHECK_SKIP,
	  { "InfiniBand uses the port GID" } },

	/* ---- mtu ---- */
	{ "mtu-9000", check_mtu, JOB_ANY, roce, {}, { "sys/class/net/ens1/mtu=9000\n" }, 0, 0,
	  CHECK_OK, { "mlx5_0/1 active MTU 4096 (max 4096), ens1 MTU 9000" } },
	{ "mtu-1500", check_mtu, JOB_ANY, roce_1500, {}, { "sys/class/net/ens1/mtu=1500\n" }, 0, 0,
	  CHECK_WARN, { "ens1 MTU 1500 limits the RDMA MTU to 1024", "ip link set ens1 mtu 9000" } },
	{ "mtu-rxe-4176-too-low", check_mtu, JOB_ANY, rxe, {}, { "sys/class/net/eth0/mtu=4150\n" },
	  0, 0, CHECK_WARN, { "eth0 MTU 4150 limits the RDMA MTU to 1024", "at least 4176" } },
	{ "mtu-no-netdev", check_mtu, JOB_ANY, roce, {}, {}, 0, 0, CHECK_WARN,
	  { "its netdev ens1 does not exist" } },
	{ "mtu-infiniband", check_mtu, JOB_ANY, ib, {}, {}, 0, 0, CHECK_SKIP,
	  { "subnet manager" } },

	/* ---- memlock.shell ---- */
	{ "memlock.shell-unlimited", check_memlock_shell, JOB_ANY, NULL, {},
	  { LIMITS("unlimited           ", "unlimited           "), NO_CAPS, PASSWD }, 0, 0, CHECK_OK,
	  { "soft unlimited, hard unlimited" } },
	{ "memlock.shell-64k", check_memlock_shell, JOB_ANY, NULL, {},
	  { LIMITS("65536               ", "65536               "), NO_CAPS, PASSWD }, 0, 0,
	  CHECK_FAIL, { "soft 64 KiB", "below 1 GiB" } },
	{ "memlock.shell-2g", check_memlock_shell, JOB_ANY, NULL, {},
	  { LIMITS("2147483648          ", "2147483648          "), NO_CAPS, PASSWD }, 0, 0,
	  CHECK_WARN, { "soft 2 GiB", "finite" } },
	{ "memlock.shell-1g-is-enough", check_memlock_shell, JOB_ANY, NULL, {},
	  { LIMITS(GIB "          ", GIB "          "), NO_CAPS, PASSWD }, 0, 0, CHECK_WARN,
	  { "soft 1 GiB" } },
	{ "memlock.shell-ipc-lock", check_memlock_shell, JOB_ANY, NULL, {},
	  { LIMITS("65536               ", "65536               "), IPC_LOCK, PASSWD }, 0, 0,
	  CHECK_OK, { "not enforced", "CAP_IPC_LOCK" } },

	/* ---- memlock.login ---- */
	{ "memlock.login-none-set", check_memlock_login, JOB_ANY, NULL, {},
	  { LIMITS("unlimited           ", "unlimited           "), NO_CAPS, PASSWD,
	    "etc/security/limits.conf=# nothing\n" }, 0, 0, CHECK_FAIL,
	  { "soft 8 MiB", "below 1 GiB", "* soft memlock unlimited" } },
	{ "memlock.login-unlimited", check_memlock_login, JOB_ANY, NULL, {},
	  { LIMITS("unlimited           ", "unlimited           "), NO_CAPS, PASSWD,
	    "etc/security/limits.conf=* soft memlock unlimited\n* hard memlock unlimited\n" }, 0, 0,
	  CHECK_OK, { "soft unlimited (/etc/security/limits.conf:1)", "hard unlimited" } },
	{ "memlock.login-64", check_memlock_login, JOB_ANY, NULL, {},
	  { LIMITS("unlimited           ", "unlimited           "), NO_CAPS, PASSWD,
	    "etc/security/limits.conf=* - memlock 64\n" }, 0, 0, CHECK_FAIL,
	  { "soft 64 KiB", "limits.conf:1" } },

	/* ---- memlock.systemd ---- */
	{ "memlock.systemd-default", check_memlock_systemd, JOB_ANY, NULL, {},
	  { "etc/systemd/system.conf=[Manager]\n" }, 0, 0, CHECK_FAIL,
	  { "soft 8 MiB, hard 8 MiB (default)", "DefaultLimitMEMLOCK=infinity" } },
	{ "memlock.systemd-infinity", check_memlock_systemd, JOB_ANY, NULL, {},
	  { "etc/systemd/system.conf=[Manager]\nDefaultLimitMEMLOCK=infinity\n" }, 0, 0, CHECK_OK,
	  { "unlimited" } },
	{ "memlock.systemd-dropin-wins", check_memlock_systemd, JOB_ANY, NULL, {},
	  { "etc/systemd/system.conf=[Manager]\nDefaultLimitMEMLOCK=infinity\n",
	    "etc/systemd/system.conf.d/50-x.conf=[Manager]\nDefaultLimitMEMLOCK=64M\n" }, 0, 0,
	  CHECK_FAIL, { "64 MiB", "50-x.conf" } },

	/* ---- firewall ---- */
	{ "firewall-open", check_firewall, JOB_ANY, roce, {}, { IPT(""), NFT_NONE }, 0, 0, CHECK_OK,
	  { "no rule blocks UDP 4791" } },
	{ "firewall-drop-roce", check_firewall, JOB_ANY, roce, {},
	  { IPT("-A INPUT -p udp -m udp --dport 4791 -j DROP\n"), NFT_NONE }, 0, 0, CHECK_FAIL,
	  { "blocks udp 4791", "iptables -I INPUT -p udp --dport 4791 -j ACCEPT" } },
	{ "firewall-other-interface", check_firewall, JOB_ANY, roce, {},
	  { IPT("-A INPUT -i wlan0 -p udp -m udp --dport 4791 -j DROP\n"), NFT_NONE }, 0, 0,
	  CHECK_WARN, { "may block udp 4791", "on that interface only" } },
	{ "firewall-roce-interface", check_firewall, JOB_ANY, roce, {},
	  { IPT("-A INPUT -i ens1 -p udp -m udp --dport 4791 -j DROP\n"), NFT_NONE }, 0, 0,
	  CHECK_FAIL, { "arriving on a RoCE netdev" } },
	/* A VLAN (or macvlan) on a port's netdev carries that port's RoCE. */
	{ "firewall-roce-vlan-interface", check_firewall, JOB_ANY, roce_vlan, {},
	  { IPT("-A INPUT -i ens1.100 -p udp -m udp --dport 4791 -j DROP\n"), NFT_NONE }, 0, 0,
	  CHECK_FAIL, { "blocks udp 4791", "arriving on a RoCE netdev" } },
	{ "firewall-ephemeral-nccl", check_firewall, JOB_NCCL, roce, {},
	  { IPT("-A INPUT -p tcp -m tcp --dport 32768:60999 -j REJECT\n"), NFT_NONE }, 0, 0,
	  CHECK_FAIL, { "NCCL bootstrap", "iptables -I INPUT -p tcp --dport 32768:60999 -j ACCEPT" } },
	{ "firewall-ephemeral-ucx", check_firewall, JOB_UCX, roce, {},
	  { IPT("-A INPUT -p tcp -m tcp --dport 32768:60999 -j REJECT\n"), NFT_NONE }, 0, 0,
	  CHECK_WARN, { "blocks tcp 32768", "PMIx" } },
	{ "firewall-port-range", check_firewall, JOB_NCCL, roce, {},
	  { IPT("-A INPUT -p tcp -m tcp --dport 40000:50000 -j DROP\n"), NFT_NONE,
	    "proc/sys/net/ipv4/ip_local_port_range=40000\t50000\n" }, 0, 0, CHECK_FAIL,
	  { "ephemeral range 40000-50000" } },
	{ "firewall-unrecorded", check_firewall, JOB_ANY, roce, {}, {}, 0, 0, CHECK_SKIP,
	  { "not recorded in this snapshot" } },

	/* ---- env.nccl ---- */
	{ "env.nccl-none-any", check_env_nccl, JOB_ANY, roce, {}, {}, 0, 0, CHECK_SKIP,
	  { "no NCCL_* variable set" } },
	{ "env.nccl-none-nccl", check_env_nccl, JOB_NCCL, roce, {}, {}, 0, 0, CHECK_OK,
	  { "NCCL chooses itself" } },
	{ "env.nccl-for-ucx", check_env_nccl, JOB_UCX, roce, { "NCCL_IB_HCA=mlx5_9" }, {}, 0, 0,
	  CHECK_SKIP, { "--for ucx" } },
	{ "env.nccl-hca-good", check_env_nccl, JOB_ANY, roce, { "NCCL_IB_HCA=mlx5_0" }, {}, 0, 0,
	  CHECK_OK, { "NCCL_IB_HCA='mlx5_0' selects mlx5_0" } },
	{ "env.nccl-hca-typo", check_env_nccl, JOB_ANY, roce, { "NCCL_IB_HCA=mlx5_1" }, {}, 0, 0,
	  CHECK_FAIL, { "'mlx5_1' names no device (did you mean 'mlx5_0'?)", "export NCCL_IB_HCA=mlx5_0" } },
	{ "env.nccl-gid-right", check_env_nccl, JOB_ANY, roce, { "NCCL_IB_GID_INDEX=3" }, {}, 0, 0,
	  CHECK_OK, { "NCCL_IB_GID_INDEX=3: mlx5_0/1 GID 3 is RoCE v2" } },
	{ "env.nccl-gid-v1", check_env_nccl, JOB_ANY, roce, { "NCCL_IB_GID_INDEX=2" }, {}, 0, 0,
	  CHECK_FAIL, { "GID 2 is RoCE v1, not v2 (use 3)", "export NCCL_IB_GID_INDEX=3" } },
	{ "env.nccl-gid-link-local", check_env_nccl, JOB_ANY, roce, { "NCCL_IB_GID_INDEX=1" }, {},
	  0, 0, CHECK_FAIL, { "link-local", "export NCCL_IB_GID_INDEX=3" } },
	{ "env.nccl-gid-missing", check_env_nccl, JOB_ANY, roce, { "NCCL_IB_GID_INDEX=9" }, {}, 0, 0,
	  CHECK_FAIL, { "has no GID 9 (use 3)" } },
	{ "env.nccl-gid-not-a-number", check_env_nccl, JOB_ANY, roce, { "NCCL_IB_GID_INDEX=three" },
	  {}, 0, 0, CHECK_FAIL, { "is not a GID index", "unset NCCL_IB_GID_INDEX" } },
	{ "env.nccl-gid-hex", check_env_nccl, JOB_ANY, roce, { "NCCL_IB_GID_INDEX=0x3" }, {}, 0, 0,
	  CHECK_OK, { "is 3 to NCCL (strtoll, base 0)" } },
	{ "env.nccl-gid-auto-old", check_env_nccl, JOB_ANY, roce, { "NCCL_IB_GID_INDEX=-1" }, {},
	  21805, 0, CHECK_FAIL, { "older than 2.21", "export NCCL_IB_GID_INDEX=3" } },
	{ "env.nccl-gid-auto-new", check_env_nccl, JOB_ANY, roce, { "NCCL_IB_GID_INDEX=-1" }, {},
	  22103, 0, CHECK_OK, { "NCCL 2.21 and later find each port's entry" } },
	{ "env.nccl-gid-spread", check_env_nccl, JOB_ANY, roce_spread, { "NCCL_IB_GID_INDEX=3" }, {},
	  22103, 0, CHECK_FAIL, { "mlx5_1/1 GID 3 is IPv6", "need different GID indexes" } },
	{ "env.nccl-ib-disable", check_env_nccl, JOB_ANY, roce, { "NCCL_IB_DISABLE=1" }, {}, 0, 0,
	  CHECK_WARN, { "NCCL uses TCP sockets", "unset NCCL_IB_DISABLE" } },
	{ "env.nccl-ib-disable-bad", check_env_nccl, JOB_ANY, roce, { "NCCL_IB_DISABLE=yes" }, {},
	  0, 0, CHECK_FAIL, { "neither 0 nor 1" } },
	{ "env.nccl-ifname-typo", check_env_nccl, JOB_ANY, roce, { "NCCL_SOCKET_IFNAME=ens2" },
	  { "sys/class/net/ens1/operstate=up\n" }, 0, 0, CHECK_FAIL,
	  { "no interface 'ens2'", "export NCCL_SOCKET_IFNAME=ens1" } },
	{ "env.nccl-ifname-good", check_env_nccl, JOB_ANY, roce, { "NCCL_SOCKET_IFNAME=ens1" },
	  { "sys/class/net/ens1/operstate=up\n" }, 0, 0, CHECK_OK,
	  { "NCCL_SOCKET_IFNAME='ens1' selects ens1" } },
	{ "env.nccl-ifname-down", check_env_nccl, JOB_ANY, roce, { "NCCL_SOCKET_IFNAME=ens1" },
	  { "sys/class/net/ens1/operstate=down\n" }, 0, 0, CHECK_FAIL,
	  { "selects no usable interface", "ens1 is down" } },

	/* ---- env.ucx ---- */
	{ "env.ucx-none-any", check_env_ucx, JOB_ANY, roce, {}, {}, 0, 0, CHECK_SKIP,
	  { "no UCX_NET_DEVICES" } },
	{ "env.ucx-none-ucx", check_env_ucx, JOB_UCX, roce, {}, {}, 0, 0, CHECK_OK,
	  { "UCX uses every device" } },
	{ "env.ucx-for-nccl", check_env_ucx, JOB_NCCL, roce, { "UCX_NET_DEVICES=x" }, {}, 0, 0,
	  CHECK_SKIP, { "--for nccl" } },
	{ "env.ucx-devices-good", check_env_ucx, JOB_ANY, roce, { "UCX_NET_DEVICES=mlx5_0:1" }, {},
	  0, 0, CHECK_OK, { "mlx5_0:1 is ACTIVE" } },
	{ "env.ucx-devices-typo", check_env_ucx, JOB_ANY, roce, { "UCX_NET_DEVICES=mlx5_1:1" }, {},
	  0, 0, CHECK_FAIL, { "no RDMA device 'mlx5_1'", "export UCX_NET_DEVICES=mlx5_0:1" } },
	{ "env.ucx-devices-no-port", check_env_ucx, JOB_ANY, roce, { "UCX_NET_DEVICES=mlx5_0:2" },
	  {}, 0, 0, CHECK_FAIL, { "mlx5_0 has no port 2", "export UCX_NET_DEVICES=mlx5_0:1" } },
	{ "env.ucx-devices-port-down", check_env_ucx, JOB_ANY, roce_down,
	  { "UCX_NET_DEVICES=mlx5_0:1" }, {}, 0, 0, CHECK_FAIL, { "mlx5_0:1 is DOWN" } },
	{ "env.ucx-devices-dev-without-port", check_env_ucx, JOB_ANY, roce,
	  { "UCX_NET_DEVICES=mlx5_0" }, {}, 0, 0, CHECK_FAIL,
	  { "UCX names RDMA devices with their port", "export UCX_NET_DEVICES=mlx5_0:1" } },
	{ "env.ucx-devices-tcp-alone", check_env_ucx, JOB_ANY, roce, { "UCX_NET_DEVICES=ens1" },
	  { "sys/class/net/ens1/operstate=up\n" }, 0, 0, CHECK_WARN,
	  { "TCP transport alone", "add mlx5_0:1 to UCX_NET_DEVICES" } },
	{ "env.ucx-devices-all", check_env_ucx, JOB_ANY, roce, { "UCX_NET_DEVICES=all" }, {}, 0, 0,
	  CHECK_OK, { "UCX_NET_DEVICES=all" } },
	{ "env.ucx-tls-no-rdma", check_env_ucx, JOB_ANY, roce, { "UCX_TLS=tcp,self" }, {}, 0, 0,
	  CHECK_WARN, { "enables no RDMA transport", "TCP sockets" } },
	{ "env.ucx-tls-rc", check_env_ucx, JOB_ANY, roce, { "UCX_TLS=rc,self" }, {}, 0, 0,
	  CHECK_OK, { "UCX_TLS='rc,self' enables RDMA" } },
	{ "env.ucx-gid-right", check_env_ucx, JOB_ANY, roce, { "UCX_IB_GID_INDEX=3" }, {}, 0, 0,
	  CHECK_OK, { "UCX_IB_GID_INDEX=3: mlx5_0/1 GID 3 is RoCE v2" } },
	{ "env.ucx-gid-v1", check_env_ucx, JOB_ANY, roce, { "UCX_IB_GID_INDEX=0" }, {}, 0, 0,
	  CHECK_FAIL, { "GID 0 is link-local", "export UCX_IB_GID_INDEX=3" } },
	{ "env.ucx-gid-bad", check_env_ucx, JOB_ANY, roce, { "UCX_IB_GID_INDEX=300" }, {}, 0, 0,
	  CHECK_FAIL, { "is not a GID index (0-255 or auto)", "export UCX_IB_GID_INDEX=auto" } },
	{ "env.ucx-gid-auto", check_env_ucx, JOB_ANY, roce, { "UCX_IB_GID_INDEX=auto" }, {}, 0, 0,
	  CHECK_OK, {} },	/* "auto" is UCX's own choice: nothing to say */

	/* ---- ucx.ud_dgid ---- */
	{ "ucx.ud_dgid-no-ucx", check_ucx_ud_dgid, JOB_ANY, rxe, {}, {}, 0, 0, CHECK_SKIP,
	  { "UCX is not installed" } },
	{ "ucx.ud_dgid-for-nccl", check_ucx_ud_dgid, JOB_NCCL, rxe, {}, {}, 0, 11301, CHECK_SKIP,
	  { "--for nccl" } },
	{ "ucx.ud_dgid-rxe-old-ucx", check_ucx_ud_dgid, JOB_UCX, rxe, {}, {}, 0, 11301, CHECK_FAIL,
	  { "UCX 1.13.1", "export UCX_UD_VERBS_ETH_DGID_CHECK=n" } },
	{ "ucx.ud_dgid-rxe-old-ucx-any", check_ucx_ud_dgid, JOB_ANY, rxe, {}, {}, 0, 11301,
	  CHECK_WARN, { "before 1.19" } },
	{ "ucx.ud_dgid-rxe-unknown-release", check_ucx_ud_dgid, JOB_UCX, rxe, {}, {}, 0,
	  UCX_UNKNOWN, CHECK_WARN, { "of unknown release" } },
	{ "ucx.ud_dgid-rxe-check-off", check_ucx_ud_dgid, JOB_UCX, rxe,
	  { "UCX_UD_VERBS_ETH_DGID_CHECK=n" }, {}, 0, 11301, CHECK_OK,
	  { "set by UCX_UD_VERBS_ETH_DGID_CHECK=n" } },
	{ "ucx.ud_dgid-rxe-check-bad", check_ucx_ud_dgid, JOB_UCX, rxe,
	  { "UCX_UD_ETH_DGID_CHECK=maybe" }, {}, 0, 11301, CHECK_FAIL, { "not a UCX boolean" } },
	{ "ucx.ud_dgid-rxe-fixed-ucx", check_ucx_ud_dgid, JOB_UCX, rxe, {}, {}, 0, 11900, CHECK_OK,
	  { "UCX 1.19.0", "reads a packet's address family from the GRH" } },
	{ "ucx.ud_dgid-mlx5", check_ucx_ud_dgid, JOB_UCX, roce, {}, {}, 0, 11301, CHECK_OK,
	  { "mlx5_0/1 is mlx5, whose completions carry the packet type" } },
	{ "ucx.ud_dgid-tls-tcp", check_ucx_ud_dgid, JOB_UCX, rxe, { "UCX_TLS=tcp" }, {}, 0, 11301,
	  CHECK_OK, { "runs no RDMA transport" } },

	/* ---- gpudirect ---- */
	{ "gpudirect-no-driver", check_gpudirect, JOB_ANY, roce, {}, {}, 0, 0, CHECK_SKIP,
	  { "no NVIDIA driver loaded" } },
	{ "gpudirect-peermem", check_gpudirect, JOB_ANY, roce, {},
	  { "sys/module/nvidia/version=550.54.14\n",
	    "sys/kernel/mm/memory_peers/nvidia-peermem/version=1.3\n" }, 0, 0, CHECK_OK,
	  { "NVIDIA driver 550.54.14 with nvidia-peermem 1.3 loaded" } },
	{ "gpudirect-dmabuf", check_gpudirect, JOB_ANY, roce, {},
	  { "sys/module/nvidia/version=550.54.14\n",
	    "proc/driver/nvidia/version=NVRM version: NVIDIA UNIX Open Kernel Module 550.54.14\n",
	    "proc/sys/kernel/osrelease=6.1.0-18-amd64\n" }, 0, 0, CHECK_OK, { "DMA-BUF usable" } },
	{ "gpudirect-dmabuf-old-kernel", check_gpudirect, JOB_ANY, roce, {},
	  { "sys/module/nvidia/version=550.54.14\n",
	    "proc/driver/nvidia/version=NVRM version: NVIDIA UNIX Open Kernel Module 550.54.14\n",
	    "proc/sys/kernel/osrelease=5.11.0\n" }, 0, 0, CHECK_FAIL,
	  { "neither nvidia-peermem nor DMA-BUF", "modprobe nvidia-peermem" } },
	{ "gpudirect-proprietary", check_gpudirect, JOB_ANY, roce, {},
	  { "sys/module/nvidia/version=550.54.14\n",
	    "proc/driver/nvidia/version=NVRM version: NVIDIA UNIX x86_64 Kernel Module 550.54.14\n",
	    "proc/sys/kernel/osrelease=6.1.0-18-amd64\n" }, 0, 0, CHECK_FAIL,
	  { "proprietary kernel module" } },

	/* ---- versions ---- */
	{ "versions-kernel-and-nccl", check_versions, JOB_ANY, roce, {},
	  { "proc/sys/kernel/osrelease=6.1.0-18-amd64\n",
	    "usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0=\n" }, 22103, 0, CHECK_OK,
	  { "kernel 6.1.0-18-amd64", "rdma-core 44.0", "NCCL 2.21.3" } },
	{ "versions-no-libibverbs", check_versions, JOB_ANY, roce, {},
	  { "proc/sys/kernel/osrelease=6.1.0-18-amd64\n" }, 0, 0, CHECK_WARN,
	  { "libibverbs not found", "apt-get install libibverbs1" } },

	/* ---- roce.route ---- */
	{ "roce.route-one-rail", check_roce_route, JOB_ANY, roce, {},
	  { "run/rdmactl/net/ipv4-rules=0:\tfrom all lookup local\n32766:\tfrom all lookup main\n",
	    "run/rdmactl/net/ipv4-routes=10.0.0.0/24 dev ens1 proto kernel scope link src 10.0.0.1\n" },
	  0, 0, CHECK_OK, { "ens1" } },
	{ "roce.route-shared-defaults", check_roce_route, JOB_ANY, roce_shared, {},
	  { RULES(""), ROUTES(""), CONF("ens1", "1", "0", "0"), CONF("ens2", "1", "0", "0"),
	  CONF_ALL },
	  0, 0, CHECK_FAIL, { "leaves by ens1", "ip rule add from 10.0.0.1 table 100;",
	    "ip rule add from 10.0.0.2 table 101;", "arp_ignore=1" } },
	{ "roce.route-shared-per-rail", check_roce_route, JOB_ANY, roce_shared, {},
	  { RULES(PER_RAIL_RULES), ROUTES(PER_RAIL_ROUTES), CONF("ens1", "2", "1", "2"),
	    CONF("ens2", "2", "1", "2"), CONF_ALL },
	  0, 0, CHECK_OK, { "10.0.0.2 on ens2 shares 10.0.0.0/24 with ens1, and its traffic leaves and is answered by it" } },
	{ "roce.route-infiniband", check_roce_route, JOB_ANY, ib, {}, {}, 0, 0, CHECK_SKIP, {} },

	/* ---- roce.qos ---- */
	{ "roce.qos-nccl-tc-on-pfc", check_roce_qos, JOB_NCCL, roce, { "NCCL_IB_TC=106" },
	  { DCB_DSCP(PFC_ON_3) }, 22703, 0, CHECK_OK, { "DSCP 26 on priority 3", "lossless by PFC" } },
	{ "roce.qos-nccl-default-lossy", check_roce_qos, JOB_NCCL, roce, {},
	  { DCB_DSCP(PFC_ON_3), ECN("0", "0") }, 22703, 0, CHECK_FAIL,
	  { "DSCP 0 on priority 0", "lossy", "NCCL_IB_TC=106" } },
	{ "roce.qos-ucx-default-on-pfc", check_roce_qos, JOB_UCX, roce, {},
	  { DCB_DSCP(PFC_ON_3) }, 0, 11601, CHECK_OK, { "DSCP 26 on priority 3", "lossless by PFC" } },
	{ "roce.qos-nccl-lossless-by-ecn", check_roce_qos, JOB_NCCL, roce, { "NCCL_IB_TC=106" },
	  { DCB_DSCP(PFC_NONE), ECN("3", "1") }, 22703, 0, CHECK_OK, { "lossless by ECN" } },
	{ "roce.qos-no-dcb", check_roce_qos, JOB_NCCL, roce, { "NCCL_IB_TC=106" },
	  { "run/rdmactl/dcb/ens1=error EOPNOTSUPP\n" }, 22703, 0, CHECK_SKIP, { "DSCP 26" } },

	/* ---- peer ---- */
	{ "peer-none", check_peer, JOB_ANY, roce, {}, {}, 0, 0, CHECK_SKIP, { "no --peer HOST" } },
};

static char scratch[64];	/* the root of the case being run */
static struct ctx ctx;

/* Write "PATH=CONTENT" below the scratch root, making the directories. */
static int put_file(const char *spec)
{
	const char *eq = strchr(spec, '=');
	char path[512];
	size_t i;
	FILE *f;

	if (!eq)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%.*s", scratch, (int)(eq - spec), spec);
	for (i = strlen(scratch) + 1; path[i]; i++)
		if (path[i] == '/') {
			path[i] = '\0';
			mkdir(path, 0755);
			path[i] = '/';
		}
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(eq + 1, f);
	return fclose(f) ? -errno : 0;
}

/* The GID bytes of "10.0.0.1" (::ffff:10.0.0.1) or of an IPv6 address. */
static void gid_raw(const char *addr, uint8_t raw[16])
{
	struct in_addr v4;

	memset(raw, 0, 16);
	if (inet_pton(AF_INET, addr, &v4) == 1) {
		raw[10] = raw[11] = 0xff;
		memcpy(raw + 12, &v4, 4);
	} else {
		inet_pton(AF_INET6, addr, raw);
	}
}

static void port_fill(struct rdma_port *p, const struct port_spec *s)
{
	size_t k;

	p->num = s->num;
	p->state = s->state;
	p->phys_state = s->state == 4 ? 5 : 3;	/* LinkUp, or Disabled */
	p->link_layer = s->ll;
	p->active_mtu = s->active;
	p->max_mtu = s->max;
	snprintf(p->netdev, sizeof(p->netdev), "%s", s->netdev);
	p->gid_tbl_len = 16;
	for (k = 0; k < 6 && s->gids[k].addr; k++)
		;
	p->gids = calloc(k ? k : 1, sizeof(*p->gids));
	p->n_gids = k;
	for (k = 0; k < p->n_gids; k++) {
		p->gids[k].index = s->gids[k].idx;
		p->gids[k].type = s->gids[k].type;
		gid_raw(s->gids[k].addr, p->gids[k].raw);
		snprintf(p->gids[k].netdev, sizeof(p->gids[k].netdev), "%s",
			 s->gids[k].stacked ? s->gids[k].stacked : s->netdev);
		p->gids[k].stacked = s->gids[k].stacked != NULL;
	}
}

/* The node of @specs: devices in their order, each with its consecutive ports. */
static void node_fill(struct rdma_node *node, const struct port_spec *specs)
{
	size_t n = 0, i;

	memset(node, 0, sizeof(*node));
	for (i = 0; specs && specs[i].dev; i++)
		n++;
	node->devs = calloc(n ? n : 1, sizeof(*node->devs));
	for (i = 0; specs && specs[i].dev; i++) {
		struct rdma_dev *dev = rdma_dev_find(node, specs[i].dev);

		if (!dev) {
			dev = &node->devs[node->n++];
			snprintf(dev->name, sizeof(dev->name), "%s", specs[i].dev);
			snprintf(dev->driver, sizeof(dev->driver), "%s", specs[i].driver);
			snprintf(dev->protocol, sizeof(dev->protocol), "%s",
				 specs[i].ll == IB ? "ib" : "roce");
			dev->numa_node = -1;
			dev->node_type = 1;	/* IBV_NODE_CA: RoCE and InfiniBand, not iWARP */
			dev->ports = calloc(4, sizeof(*dev->ports));
		}
		port_fill(&dev->ports[dev->nports++], &specs[i]);
	}
}

/* The facts of case @c: its node, job, variables and installed libraries; the root made. */
static void facts_fill(struct node_facts *d, const struct check_case *c)
{
	size_t i, k;

	memset(d, 0, sizeof(*d));
	memset(&ctx, 0, sizeof(ctx));
	ctx.cmd = "doctor";
	ctx.root = scratch;
	d->ctx = &ctx;
	d->target = c->target;
	d->peer_port = 18515;
	node_fill(&d->node, c->ports);
	d->node_err = c->node_err;
	d->fns.fns = c->fns;
	d->fns.n = c->n_fns;
	d->ns.mode = c->exclusive ? NETNS_EXCLUSIVE : NETNS_SHARED;
	d->nccl_version = c->nccl ? c->nccl : -1;
	snprintf(d->nccl_lib, sizeof(d->nccl_lib), "/usr/lib/x86_64-linux-gnu/libnccl.so.2");
	d->fns_loaded = d->ns_loaded = d->ucx_loaded = true;
	d->ucx.version = c->ucx == UCX_UNKNOWN ? 0 : c->ucx ? c->ucx : -1;
	if (c->ucx)
		snprintf(d->ucx.lib, sizeof(d->ucx.lib), "/usr/lib/x86_64-linux-gnu/libucp.so.0");
	for (i = 0; job_vars[i]; i++) {
		struct doctor_setting *s = &d->settings[d->n_settings++];

		snprintf(s->s.name, sizeof(s->s.name), "%s", job_vars[i]);
		for (k = 0; k < 6 && c->env[k]; k++)
			if (!strncmp(c->env[k], job_vars[i], strlen(job_vars[i])) &&
			    c->env[k][strlen(job_vars[i])] == '=')
				s->env = c->env[k] + strlen(job_vars[i]) + 1;
	}
}

static void facts_free(struct node_facts *d)
{
	size_t i, j;

	for (i = 0; i < d->node.n; i++) {
		for (j = 0; j < d->node.devs[i].nports; j++)
			free(d->node.devs[i].ports[j].gids);
		free(d->node.devs[i].ports);
	}
	free(d->node.devs);
	doctor_peer_free(d);
}

static bool said(const struct check_result *r, const char *word)
{
	return strstr(r->found, word) || strstr(r->fix, word);
}

/* One row: its facts made, its check run, its status and words asserted. */
static int run_case(const struct check_case *c)
{
	struct check_result r = { 0 };
	struct node_facts d;
	char cmd[128];
	int bad = 0;
	size_t k;

	snprintf(scratch, sizeof(scratch), "%s/rdmactl-checks.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(scratch)) {
		printf("FAIL %sunit/test_checks/%s: no scratch directory\n",
		       getenv("TEST_PREFIX") ? getenv("TEST_PREFIX") : "", c->name);
		return 1;
	}
	for (k = 0; k < 12 && c->files[k]; k++)
		if (put_file(c->files[k]))
			bad++;
	facts_fill(&d, c);
	c->fn(&d, &r);
	if (r.status != c->want) {
		fprintf(stderr, "  %s: status %s, expected %s\n", c->name,
			check_status_str(r.status), check_status_str(c->want));
		bad++;
	}
	for (k = 0; k < 4 && c->words[k]; k++)
		if (!said(&r, c->words[k])) {
			fprintf(stderr, "  %s: '%s' not said\n", c->name, c->words[k]);
			bad++;
		}
	if (bad || getenv("CHECKS_SAY"))
		fprintf(stderr, "    %s found: %s\n    fix: %s\n", c->name, r.found, r.fix);
	facts_free(&d);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd))
		bad++;
	fflush(stderr);
	printf("%s %sunit/test_checks/%s\n", bad ? "FAIL" : "PASS",
	       getenv("TEST_PREFIX") ? getenv("TEST_PREFIX") : "", c->name);
	fflush(stdout);
	return !!bad;
}

/*
 * Every check of the runner's table (doctor_checks[]) has rows here, two
 * at least (one good, one bad), and each row is named for its check: its
 * name starts with the check's ID.  The peer check's answers come from a
 * probe server: here only its skip without --peer (tests/cli/probe*.sh
 * and the lab hold the rest).
 */
static int every_check_has_rows(void)
{
	size_t i, j, n, bad = 0;

	for (i = 0; doctor_checks[i].id; i++) {
		size_t len = strlen(doctor_checks[i].id);

		for (j = 0, n = 0; j < sizeof(cases) / sizeof(cases[0]); j++) {
			if (cases[j].fn != doctor_checks[i].fn)
				continue;
			n++;
			if (strncmp(cases[j].name, doctor_checks[i].id, len) || cases[j].name[len] != '-') {
				fprintf(stderr, "  row %s runs check %s\n", cases[j].name, doctor_checks[i].id);
				bad++;
			}
		}
		if (n < (strcmp(doctor_checks[i].id, "peer") ? 2u : 1u)) {
			fprintf(stderr, "  check %s has %zu row%s\n", doctor_checks[i].id, n,
				n == 1 ? "" : "s");
			bad++;
		}
	}
	printf("%s %sunit/test_checks/every_check_has_rows\n", bad ? "FAIL" : "PASS",
	       getenv("TEST_PREFIX") ? getenv("TEST_PREFIX") : "");
	return !!bad;
}

int main(void)
{
	size_t i;

	/* One line per row, as RUN() prints one per test (test.h). */
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tests_failed += run_case(&cases[i]);
	tests_failed += every_check_has_rows();
	test_failed = 0;
	TEST_EXIT();
}
