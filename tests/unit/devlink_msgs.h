/* SPDX-License-Identifier: MIT */
/*
 * Generic-netlink replies as the kernel's devlink sends them, built with
 * libmnl: the unit tests parse them (tests/unit/test_devlink.c) and the
 * fuzz seeds are written from them (tests/fuzz/devlink_seeds.c).  The
 * values are a BlueField-2's Arm side in switchdev mode, as devlink-port
 * and the mlx5 documentation show its ports: the uplink p0, the host's PF
 * (controller 1, external) and VF 0, and an SF of the Arm side's own PF.
 */
#ifndef RDMACTL_DEVLINK_MSGS_H
#define RDMACTL_DEVLINK_MSGS_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

/* The id a kernel might give the family; any number above GENL_ID_CTRL. */
#define MSG_DEVLINK_ID 0x15

struct msgs {
	char buf[32768] __attribute__((aligned(8)));
	size_t len;
};

static inline struct nlmsghdr *msg_start(struct msgs *m, uint16_t type, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(m->buf + m->len);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_MULTI;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = DEVLINK_GENL_VERSION;
	return nlh;
}

static inline void msg_end(struct msgs *m, struct nlmsghdr *nlh)
{
	m->len += MNL_ALIGN(nlh->nlmsg_len);
}

/* CTRL_CMD_NEWFAMILY: "devlink" has id @id. */
static inline void msg_family(struct msgs *m, uint16_t id)
{
	struct nlmsghdr *nlh = msg_start(m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "devlink");
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, id);
	msg_end(m, nlh);
}

static inline void msg_handle(struct nlmsghdr *nlh, const char *bus, const char *dev)
{
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, bus);
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, dev);
}

/* DEVLINK_CMD_NEW: one instance of `devlink dev show`. */
static inline void msg_dev(struct msgs *m, const char *bus, const char *dev)
{
	struct nlmsghdr *nlh = msg_start(m, MSG_DEVLINK_ID, DEVLINK_CMD_NEW);

	msg_handle(nlh, bus, dev);
	msg_end(m, nlh);
}

/* DEVLINK_CMD_ESWITCH_GET's reply. */
static inline void msg_eswitch(struct msgs *m, const char *dev, uint16_t mode)
{
	struct nlmsghdr *nlh = msg_start(m, MSG_DEVLINK_ID, DEVLINK_CMD_ESWITCH_GET);

	msg_handle(nlh, "pci", dev);
	mnl_attr_put_u16(nlh, DEVLINK_ATTR_ESWITCH_MODE, mode);
	mnl_attr_put_u8(nlh, DEVLINK_ATTR_ESWITCH_INLINE_MODE, DEVLINK_ESWITCH_INLINE_MODE_NONE);
	msg_end(m, nlh);
}

struct msg_port {
	const char *bus, *dev;
	uint32_t index;
	uint16_t flavour;
	const char *netdev;	/* NULL: none */
	int number, pf, vf;	/* -1: left out */
	long sf, controller;	/* -1: left out */
	int external;		/* -1: left out */
	int state, opstate;	/* port function; -1: left out */
};

/* DEVLINK_CMD_PORT_NEW: one port of `devlink port show`. */
static inline void msg_port(struct msgs *m, const struct msg_port *p)
{
	struct nlmsghdr *nlh = msg_start(m, MSG_DEVLINK_ID, DEVLINK_CMD_PORT_NEW);
	static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0x88, 0x88 };
	struct nlattr *fn;

	msg_handle(nlh, p->bus, p->dev);
	mnl_attr_put_u32(nlh, DEVLINK_ATTR_PORT_INDEX, p->index);
	mnl_attr_put_u16(nlh, DEVLINK_ATTR_PORT_TYPE, DEVLINK_PORT_TYPE_ETH);
	if (p->netdev) {
		mnl_attr_put_u32(nlh, DEVLINK_ATTR_PORT_NETDEV_IFINDEX, 7);
		mnl_attr_put_strz(nlh, DEVLINK_ATTR_PORT_NETDEV_NAME, p->netdev);
	}
	mnl_attr_put_u16(nlh, DEVLINK_ATTR_PORT_FLAVOUR, p->flavour);
	if (p->number >= 0)
		mnl_attr_put_u32(nlh, DEVLINK_ATTR_PORT_NUMBER, (uint32_t)p->number);
	if (p->controller >= 0)
		mnl_attr_put_u32(nlh, DEVLINK_ATTR_PORT_CONTROLLER_NUMBER, (uint32_t)p->controller);
	if (p->pf >= 0)
		mnl_attr_put_u16(nlh, DEVLINK_ATTR_PORT_PCI_PF_NUMBER, (uint16_t)p->pf);
	if (p->vf >= 0)
		mnl_attr_put_u16(nlh, DEVLINK_ATTR_PORT_PCI_VF_NUMBER, (uint16_t)p->vf);
	if (p->sf >= 0)
		mnl_attr_put_u32(nlh, DEVLINK_ATTR_PORT_PCI_SF_NUMBER, (uint32_t)p->sf);
	if (p->external >= 0)
		mnl_attr_put_u8(nlh, DEVLINK_ATTR_PORT_EXTERNAL, (uint8_t)p->external);
	mnl_attr_put_u8(nlh, DEVLINK_ATTR_PORT_SPLITTABLE, 0);
	if (p->state >= 0 || p->opstate >= 0) {
		fn = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PORT_FUNCTION);
		mnl_attr_put(nlh, DEVLINK_PORT_FUNCTION_ATTR_HW_ADDR, sizeof(mac), mac);
		if (p->state >= 0)
			mnl_attr_put_u8(nlh, DEVLINK_PORT_FN_ATTR_STATE, (uint8_t)p->state);
		if (p->opstate >= 0)
			mnl_attr_put_u8(nlh, DEVLINK_PORT_FN_ATTR_OPSTATE, (uint8_t)p->opstate);
		mnl_attr_nest_end(nlh, fn);
	}
	msg_end(m, nlh);
}

/* NLMSG_ERROR carrying -@err (0: the ACK). */
static inline void msg_error(struct msgs *m, int err)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(m->buf + m->len);
	struct nlmsgerr *e;

	nlh->nlmsg_type = NLMSG_ERROR;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = -err;
	msg_end(m, nlh);
}

static inline void msg_done(struct msgs *m)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(m->buf + m->len);

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	mnl_nlmsg_put_extra_header(nlh, sizeof(int));
	msg_end(m, nlh);
}

#define MSG_BF2_ECPF "0000:03:00.0"

/* `devlink dev show` on the Arm side: both ECPFs and the SF's own instance. */
static inline void msgs_bf2_devs(struct msgs *m)
{
	msg_dev(m, "pci", MSG_BF2_ECPF);
	msg_dev(m, "pci", "0000:03:00.1");
	msg_dev(m, "auxiliary", "mlx5_core.sf.4");
	msg_done(m);
}

/* `devlink port show` there: uplink, host PF, host VF 0, SF 4 and the SF's own port. */
static inline void msgs_bf2_ports(struct msgs *m)
{
	const struct msg_port ports[] = {
		{ "pci", MSG_BF2_ECPF, 65535, DEVLINK_PORT_FLAVOUR_PHYSICAL, "p0", 0, -1, -1, -1, -1, -1, -1, -1 },
		{ "pci", MSG_BF2_ECPF, 1, DEVLINK_PORT_FLAVOUR_PCI_PF, "pf0hpf", -1, 0, -1, -1, 1, 1,
		  DEVLINK_PORT_FN_STATE_ACTIVE, DEVLINK_PORT_FN_OPSTATE_ATTACHED },
		{ "pci", MSG_BF2_ECPF, 2, DEVLINK_PORT_FLAVOUR_PCI_VF, "pf0vf0", -1, 0, 0, -1, 1, 1,
		  DEVLINK_PORT_FN_STATE_ACTIVE, DEVLINK_PORT_FN_OPSTATE_ATTACHED },
		{ "pci", MSG_BF2_ECPF, 32768, DEVLINK_PORT_FLAVOUR_PCI_SF, "en3f0pf0sf4", -1, 0, -1, 4, 0, 0,
		  DEVLINK_PORT_FN_STATE_ACTIVE, DEVLINK_PORT_FN_OPSTATE_ATTACHED },
		{ "auxiliary", "mlx5_core.sf.4", 1, DEVLINK_PORT_FLAVOUR_VIRTUAL, "enp3s0f0s4", 0, -1, -1, -1, -1, -1, -1, -1 },
	};
	size_t i;

	for (i = 0; i < sizeof(ports) / sizeof(ports[0]); i++)
		msg_port(m, &ports[i]);
	msg_done(m);
}

#endif
