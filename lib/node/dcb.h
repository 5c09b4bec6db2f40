/* SPDX-License-Identifier: MIT */
/*
 * A netdev's side of lossless RoCE: what its DCB says (the kernel's dcbnl
 * over rtnetlink, RTM_GETDCB DCB_CMD_IEEE_GET, as iproute2's `dcb`
 * reads it): the priorities PFC is on for, the DSCP-to-priority entries
 * of its APP table and which selector it trusts; mlx5's ECN per priority
 * (sysfs); and a VLAN's egress map (/proc/net/vlan/IF).
 *
 * A copy has no netlink: `snapshot` records each netdev's answer in
 * <root>/run/rdmactl/dcb/IF (dcb_format()), and with --root it is read
 * from there (dcb_parse()).  The form, one fact a line, in `dcb`'s words:
 *   prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off
 *   dscp-prio 0:0 1:0 ... 26:3 ... 63:7
 *   apptrust dscp pcp            (only from a driver with a trust table)
 *   error EOPNOTSUPP             (instead of the above: dcbnl's answer)
 * A line it does not know is skipped; a missing prio-pfc line is a
 * driver without ieee_getpfc; no dscp-prio line, an empty DSCP table.
 */
#ifndef RDMACTL_DCB_H
#define RDMACTL_DCB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctx;

#define DCB_PRIOS 8
#define DCB_DSCPS 64

/* Where the recordings are, below the root: DCB_RECORDING_DIR/IF. */
#define DCB_RECORDING_DIR "/run/rdmactl/dcb"

struct dcb_state {
	bool pfc_read;			/* DCB_ATTR_IEEE_PFC answered */
	uint8_t pfc_en;			/* bit P: PFC on priority P */
	int8_t dscp_prio[DCB_DSCPS];	/* the APP table's DSCP entries; -1: none */
	unsigned int n_dscp;		/* DSCP entries */
	bool trust_table;		/* DCB_ATTR_DCB_APP_TRUST_TABLE answered */
	uint8_t trust[8];		/* its selectors, first trusted first */
	unsigned int n_trust;
};

/*
 * @ifname's DCB: 0; -EOPNOTSUPP when the netdev has no DCB (no dcbnl
 * operations: virtio_net, a veth, rxe's netdev); -ENODEV; -ENODATA with
 * --root when the tree holds no recording of it; -EINVAL for a recording
 * that is not in the form above; -errno.
 */
int dcb_read(const struct ctx *ctx, const char *ifname, struct dcb_state *out);

/* Whether DSCP decides the priority of IP packets: trusted before PCP. */
bool dcb_trusts_dscp(const struct dcb_state *s);

/*
 * The recording of dcb_read()'s answer @ret and @s into @buf (NUL-
 * terminated); its length.  dcb_parse() reads it back as the same answer.
 */
size_t dcb_format(int ret, const struct dcb_state *s, char *buf, size_t len);
int dcb_parse(const char *text, struct dcb_state *out);

/*
 * mlx5's ECN on priority @prio of @ifname, from sysfs
 * (/sys/class/net/IF/ecn/roce_rp/enable/P, the sender reacting to
 * congestion notifications, and roce_np/enable/P, the receiver sending
 * them): 1 when both are on, 0 when either is off, -ENOENT when the
 * driver has no such files (upstream mlx5, other drivers), -errno.
 */
int dcb_ecn(const struct ctx *ctx, const char *ifname, unsigned int prio);
/* The priority and DSCP mlx5 sends its CNPs with (roce_np/cnp_802p_prio, cnp_dscp); -1 unknown. */
void dcb_cnp(const struct ctx *ctx, const char *ifname, int *prio, int *dscp);

/*
 * The PCP the VLAN @ifname puts on a packet of skb priority @skprio: its
 * egress map (/proc/net/vlan/IF: "EGRESS priority mappings: 0:3 ..."),
 * 0 for a priority it does not map, -errno when it cannot be read.
 */
int dcb_vlan_pcp(const struct ctx *ctx, const char *ifname, unsigned int skprio);

/* The skb priority the kernel gives IP TOS @tos (rt_tos2priority(), net/ipv4/route.c). */
unsigned int dcb_tos_prio(unsigned int tos);

#endif
