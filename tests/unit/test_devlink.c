// SPDX-License-Identifier: MIT
/*
 * node/devlink: the generic-netlink replies of devlink, built with libmnl
 * as the kernel sends them (devlink_msgs.h), through the parser
 * devlink_load() runs them through.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "devlink_msgs.h"
#include "node/devlink.h"
#include "test.h"

static struct msgs m;

static void family_id_from_controller(void)
{
	memset(&m, 0, sizeof(m));
	msg_family(&m, MSG_DEVLINK_ID);
	CHECK_INT(devlink_parse_family(m.buf, m.len), MSG_DEVLINK_ID);
	/* A kernel without devlink: the controller answers ENOENT. */
	memset(&m, 0, sizeof(m));
	msg_error(&m, ENOENT);
	CHECK_INT(devlink_parse_family(m.buf, m.len), -ENOENT);
	/* An ACK and nothing else: no id either. */
	memset(&m, 0, sizeof(m));
	msg_error(&m, 0);
	CHECK_INT(devlink_parse_family(m.buf, m.len), -ENOENT);
}

static void instances_of_devlink_dev_show(void)
{
	struct dl_node dl = { 0 };

	memset(&m, 0, sizeof(m));
	msgs_bf2_devs(&m);
	CHECK_INT(devlink_parse(m.buf, m.len, &dl), 0);
	CHECK_INT(dl.ndevs, 3);
	CHECK(devlink_dev_find(&dl, "pci", "0000:03:00.1") != NULL);
	CHECK(devlink_dev_find(&dl, "auxiliary", "mlx5_core.sf.4") != NULL);
	CHECK(devlink_dev_find(&dl, "pci", "mlx5_core.sf.4") == NULL);
	if (dl.ndevs)
		CHECK_INT(dl.devs[0].eswitch, DL_ESWITCH_UNKNOWN);
	devlink_free(&dl);
}

static void ports_of_a_bluefield_arm_side(void)
{
	struct dl_node dl = { 0 };
	const struct dl_port *p;

	memset(&m, 0, sizeof(m));
	msgs_bf2_ports(&m);
	CHECK_INT(devlink_parse(m.buf, m.len, &dl), 0);
	CHECK_INT(dl.nports, 5);
	p = devlink_port_by_netdev(&dl, "p0");
	CHECK(p && p->flavour == DEVLINK_PORT_FLAVOUR_PHYSICAL && p->number == 0 && p->index == 65535);
	CHECK(p && p->pf == -1 && p->controller == -1 && !p->external && p->fn_state == -1);
	p = devlink_port_by_netdev(&dl, "pf0hpf");
	CHECK(p && p->flavour == DEVLINK_PORT_FLAVOUR_PCI_PF && p->pf == 0 && p->vf == -1);
	CHECK(p && p->controller == 1 && p->external);
	p = devlink_port_by_netdev(&dl, "pf0vf0");
	CHECK(p && p->flavour == DEVLINK_PORT_FLAVOUR_PCI_VF && p->pf == 0 && p->vf == 0 && p->external);
	p = devlink_port_by_netdev(&dl, "en3f0pf0sf4");
	CHECK(p && p->flavour == DEVLINK_PORT_FLAVOUR_PCI_SF && p->sf == 4 && p->controller == 0);
	CHECK(p && !p->external && p->fn_state == DEVLINK_PORT_FN_STATE_ACTIVE &&
	      p->fn_opstate == DEVLINK_PORT_FN_OPSTATE_ATTACHED);
	CHECK(p && !strcmp(p->bus, "pci") && !strcmp(p->dev, MSG_BF2_ECPF));
	p = devlink_port_by_netdev(&dl, "enp3s0f0s4");
	CHECK(p && p->flavour == DEVLINK_PORT_FLAVOUR_VIRTUAL && !strcmp(p->bus, "auxiliary"));
	CHECK(devlink_port_by_netdev(&dl, "pf0vf1") == NULL);
	CHECK(devlink_port_by_netdev(&dl, "") == NULL);
	devlink_free(&dl);
}

static void eswitch_mode_and_its_errors(void)
{
	struct dl_node dl = { 0 };

	memset(&m, 0, sizeof(m));
	msgs_bf2_devs(&m);
	CHECK_INT(devlink_parse(m.buf, m.len, &dl), 0);
	/* One request per instance, each answered by one message. */
	memset(&m, 0, sizeof(m));
	msg_eswitch(&m, MSG_BF2_ECPF, DEVLINK_ESWITCH_MODE_SWITCHDEV);
	CHECK_INT(devlink_parse(m.buf, m.len, &dl), 0);
	memset(&m, 0, sizeof(m));
	msg_eswitch(&m, "0000:03:00.1", DEVLINK_ESWITCH_MODE_LEGACY);
	CHECK_INT(devlink_parse(m.buf, m.len, &dl), 0);
	CHECK_INT(dl.ndevs, 3);
	CHECK_INT(devlink_dev_find(&dl, "pci", MSG_BF2_ECPF)->eswitch, DL_ESWITCH_SWITCHDEV);
	CHECK_INT(devlink_dev_find(&dl, "pci", "0000:03:00.1")->eswitch, DL_ESWITCH_LEGACY);
	/* A function without an eswitch (a VF, the host side of a DPU). */
	memset(&m, 0, sizeof(m));
	msg_error(&m, EOPNOTSUPP);
	CHECK_INT(devlink_parse(m.buf, m.len, &dl), -EOPNOTSUPP);
	CHECK_INT(dl.ndevs, 3);
	devlink_free(&dl);
	CHECK_STR(devlink_eswitch_str(DL_ESWITCH_SWITCHDEV), "switchdev");
	CHECK(devlink_eswitch_str(DL_ESWITCH_UNKNOWN) == NULL);
}

/* Unknown attributes are skipped; malformed or oversized ones count as absent. */
static void odd_attributes_are_absent(void)
{
	struct dl_node dl = { 0 };
	struct nlmsghdr *nlh;

	memset(&m, 0, sizeof(m));
	nlh = msg_start(&m, MSG_DEVLINK_ID, DEVLINK_CMD_PORT_NEW);
	msg_handle(nlh, "pci", MSG_BF2_ECPF);
	mnl_attr_put_u32(nlh, DEVLINK_ATTR_PORT_INDEX, 3);
	mnl_attr_put_u8(nlh, DEVLINK_ATTR_PORT_FLAVOUR, DEVLINK_PORT_FLAVOUR_PCI_VF);	/* u16 expected */
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_PORT_NETDEV_NAME, "a-name-longer-than-ifnamsiz");
	mnl_attr_put_u32(nlh, 0x3fff, 42);	/* an attribute of a newer kernel */
	mnl_attr_put_u16(nlh, DEVLINK_ATTR_PORT_PCI_VF_NUMBER, 7);
	msg_end(&m, nlh);
	/* A port without its index, and a dump of an unknown command: ignored. */
	nlh = msg_start(&m, MSG_DEVLINK_ID, DEVLINK_CMD_PORT_NEW);
	msg_handle(nlh, "pci", MSG_BF2_ECPF);
	msg_end(&m, nlh);
	nlh = msg_start(&m, MSG_DEVLINK_ID, DEVLINK_CMD_SB_NEW);
	msg_handle(nlh, "pci", MSG_BF2_ECPF);
	msg_end(&m, nlh);
	msg_done(&m);
	CHECK_INT(devlink_parse(m.buf, m.len, &dl), 0);
	CHECK_INT(dl.nports, 1);
	CHECK_INT(dl.ndevs, 0);
	if (dl.nports) {
		CHECK_INT(dl.ports[0].flavour, -1);
		CHECK_STR(dl.ports[0].netdev, "");
		CHECK_INT(dl.ports[0].vf, 7);
		CHECK_STR(devlink_flavour_str(dl.ports[0].flavour), "unknown");
	}
	CHECK_STR(devlink_flavour_str(DEVLINK_PORT_FLAVOUR_PCI_SF), "pcisf");
	devlink_free(&dl);
}

/* Many ports: the arrays grow past their first sizes. */
static void many_ports(void)
{
	struct dl_node dl = { 0 };
	char name[16];
	int i;

	memset(&m, 0, sizeof(m));
	for (i = 0; i < 100; i++) {
		struct msg_port p = { "pci", MSG_BF2_ECPF, (uint32_t)i + 1, DEVLINK_PORT_FLAVOUR_PCI_VF,
				      name, -1, 0, i, -1, 1, 1, -1, -1 };

		snprintf(name, sizeof(name), "pf0vf%d", i);
		msg_port(&m, &p);
	}
	CHECK_INT(devlink_parse(m.buf, m.len, &dl), 0);
	CHECK_INT(dl.nports, 100);
	CHECK(devlink_port_by_netdev(&dl, "pf0vf99") && devlink_port_by_netdev(&dl, "pf0vf99")->vf == 99);
	devlink_free(&dl);
}

/*
 * The live path against this machine's kernel: the controller resolves the
 * family (or says there is none), dumps end with DONE, eswitch queries of
 * instances without an eswitch are errors kept to themselves.
 */
static void live_kernel_answers(void)
{
	struct ctx ctx = { .root = "" };
	struct dl_node dl;
	size_t i;
	int ret = devlink_load(&ctx, &dl);

	CHECK(ret == 0 || ret == -ENOENT || ret == -EPROTONOSUPPORT);
	for (i = 0; !ret && i < dl.nports; i++)
		CHECK(dl.ports[i].bus[0] && dl.ports[i].dev[0]);
	for (i = 0; !ret && i < dl.ndevs; i++)
		CHECK(dl.devs[i].bus[0] && dl.devs[i].name[0]);
	if (!ret)
		devlink_free(&dl);
}

int main(void)
{
	RUN("devlink", family_id_from_controller);
	RUN("devlink", instances_of_devlink_dev_show);
	RUN("devlink", ports_of_a_bluefield_arm_side);
	RUN("devlink", eswitch_mode_and_its_errors);
	RUN("devlink", odd_attributes_are_absent);
	RUN("devlink", many_ports);
	RUN("devlink", live_kernel_answers);
	TEST_EXIT();
}
