// SPDX-License-Identifier: MIT
/*
 * devlink through generic netlink with libmnl.  The family's id comes from
 * the generic netlink controller (CTRL_CMD_GETFAMILY "devlink"); then one
 * dump of the instances, one of the ports, and one eswitch query per PCI
 * instance.  One helper prepares, sends and receives every request; every
 * reply goes through one dispatcher whose attributes are parsed against a
 * policy table that skips what it does not know.
 *
 * A port as the kernel sends it (DEVLINK_CMD_PORT_NEW), for a DPU's host VF:
 *   BUS_NAME "pci"  DEV_NAME "0000:03:00.0"  PORT_INDEX 2
 *   PORT_FLAVOUR 4 (pcivf)  PORT_NETDEV_NAME "pf0vf0"
 *   PORT_CONTROLLER_NUMBER 1  PORT_EXTERNAL 1  PORT_PCI_PF_NUMBER 0
 *   PORT_PCI_VF_NUMBER 0  PORT_FUNCTION { HW_ADDR, STATE, OPSTATE }
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "base/ctx.h"
#include "base/log.h"
#include "node/devlink.h"

/* The attributes read here; anything else is skipped. */
static const enum mnl_attr_data_type policy[DEVLINK_ATTR_MAX + 1] = {
	[DEVLINK_ATTR_BUS_NAME] = MNL_TYPE_NUL_STRING,
	[DEVLINK_ATTR_DEV_NAME] = MNL_TYPE_NUL_STRING,
	[DEVLINK_ATTR_PORT_INDEX] = MNL_TYPE_U32,
	[DEVLINK_ATTR_PORT_FLAVOUR] = MNL_TYPE_U16,
	[DEVLINK_ATTR_PORT_NETDEV_NAME] = MNL_TYPE_NUL_STRING,
	[DEVLINK_ATTR_PORT_NUMBER] = MNL_TYPE_U32,
	[DEVLINK_ATTR_PORT_PCI_PF_NUMBER] = MNL_TYPE_U16,
	[DEVLINK_ATTR_PORT_PCI_VF_NUMBER] = MNL_TYPE_U16,
	[DEVLINK_ATTR_PORT_PCI_SF_NUMBER] = MNL_TYPE_U32,
	[DEVLINK_ATTR_PORT_CONTROLLER_NUMBER] = MNL_TYPE_U32,
	[DEVLINK_ATTR_PORT_EXTERNAL] = MNL_TYPE_U8,
	[DEVLINK_ATTR_PORT_FUNCTION] = MNL_TYPE_NESTED,
	[DEVLINK_ATTR_ESWITCH_MODE] = MNL_TYPE_U16,
};

/* Inside DEVLINK_ATTR_PORT_FUNCTION. */
static const enum mnl_attr_data_type fn_policy[DEVLINK_PORT_FUNCTION_ATTR_MAX + 1] = {
	[DEVLINK_PORT_FN_ATTR_STATE] = MNL_TYPE_U8,
	[DEVLINK_PORT_FN_ATTR_OPSTATE] = MNL_TYPE_U8,
};

struct attrs {
	const struct nlattr *tb[DEVLINK_ATTR_MAX + 1];
	const struct nlattr *fn[DEVLINK_PORT_FUNCTION_ATTR_MAX + 1];
};

static int parse_one(const struct nlattr *attr, const enum mnl_attr_data_type *pol,
		     unsigned int max, const struct nlattr **tb)
{
	uint16_t type = mnl_attr_get_type(attr);

	if (type > max || !pol[type] || mnl_attr_validate(attr, pol[type]) < 0)
		return MNL_CB_OK;	/* unknown or malformed: as if absent */
	tb[type] = attr;
	return MNL_CB_OK;
}

static int parse_attr(const struct nlattr *attr, void *data)
{
	return parse_one(attr, policy, DEVLINK_ATTR_MAX, data);
}

static int parse_fn_attr(const struct nlattr *attr, void *data)
{
	return parse_one(attr, fn_policy, DEVLINK_PORT_FUNCTION_ATTR_MAX, data);
}

/* The generic netlink command of @nlh, or -1 when it has no genl header. */
static int parse_msg(const struct nlmsghdr *nlh, struct attrs *a)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);

	memset(a, 0, sizeof(*a));
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl))
		return -1;
	mnl_attr_parse(nlh, sizeof(*genl), parse_attr, a->tb);
	if (a->tb[DEVLINK_ATTR_PORT_FUNCTION])
		mnl_attr_parse_nested(a->tb[DEVLINK_ATTR_PORT_FUNCTION], parse_fn_attr, a->fn);
	return genl->cmd;
}

/* Copy a string attribute; false when absent or too long for @len. */
static bool get_str(const struct nlattr *attr, char *dst, size_t len)
{
	const char *s;

	if (!attr)
		return false;
	s = mnl_attr_get_str(attr);
	if (strlen(s) >= len)
		return false;
	memcpy(dst, s, strlen(s) + 1);
	return true;
}

static long get_num(const struct nlattr *attr)
{
	if (!attr)
		return -1;
	switch (mnl_attr_get_payload_len(attr)) {
	case 1:
		return mnl_attr_get_u8(attr);
	case 2:
		return mnl_attr_get_u16(attr);
	default:
		return (long)mnl_attr_get_u32(attr);
	}
}

/* ---- the model ---- */

/* Room for one more entry after @n: the capacity is 4, then doubles at each power of two. */
static void *grow(void *arr, size_t n, size_t size)
{
	if (n && (n < 4 || (n & (n - 1))))
		return arr;
	return realloc(arr, (n ? n * 2 : 4) * size);
}

static struct dl_dev *dev_add(struct dl_node *dl, const char *bus, const char *name)
{
	struct dl_dev *devs = grow(dl->devs, dl->ndevs, sizeof(*devs)), *d;

	if (!devs)
		return NULL;
	dl->devs = devs;
	d = &devs[dl->ndevs++];
	memset(d, 0, sizeof(*d));
	snprintf(d->bus, sizeof(d->bus), "%s", bus);
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->eswitch = DL_ESWITCH_UNKNOWN;
	return d;
}

const struct dl_dev *devlink_dev_find(const struct dl_node *dl, const char *bus, const char *name)
{
	size_t i;

	for (i = 0; dl && i < dl->ndevs; i++)
		if (!strcmp(dl->devs[i].bus, bus) && !strcmp(dl->devs[i].name, name))
			return &dl->devs[i];
	return NULL;
}

const struct dl_port *devlink_port_by_netdev(const struct dl_node *dl, const char *netdev)
{
	size_t i;

	for (i = 0; dl && netdev && *netdev && i < dl->nports; i++)
		if (!strcmp(dl->ports[i].netdev, netdev))
			return &dl->ports[i];
	return NULL;
}

/* DEVLINK_CMD_NEW: an instance. */
static int on_dev(struct dl_node *dl, const struct attrs *a)
{
	char bus[16], name[64];

	if (!get_str(a->tb[DEVLINK_ATTR_BUS_NAME], bus, sizeof(bus)) ||
	    !get_str(a->tb[DEVLINK_ATTR_DEV_NAME], name, sizeof(name)))
		return MNL_CB_OK;
	if (!devlink_dev_find(dl, bus, name) && !dev_add(dl, bus, name))
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

/* DEVLINK_CMD_ESWITCH_GET: the eswitch mode of one instance. */
static int on_eswitch(struct dl_node *dl, const struct attrs *a)
{
	char bus[16], name[64];
	struct dl_dev *d;
	long mode = get_num(a->tb[DEVLINK_ATTR_ESWITCH_MODE]);

	if (!get_str(a->tb[DEVLINK_ATTR_BUS_NAME], bus, sizeof(bus)) ||
	    !get_str(a->tb[DEVLINK_ATTR_DEV_NAME], name, sizeof(name)))
		return MNL_CB_OK;
	d = (struct dl_dev *)devlink_dev_find(dl, bus, name);
	if (!d && !(d = dev_add(dl, bus, name)))
		return MNL_CB_ERROR;
	if (mode == DEVLINK_ESWITCH_MODE_LEGACY || mode == DEVLINK_ESWITCH_MODE_SWITCHDEV)
		d->eswitch = mode == DEVLINK_ESWITCH_MODE_SWITCHDEV ? DL_ESWITCH_SWITCHDEV
								    : DL_ESWITCH_LEGACY;
	return MNL_CB_OK;
}

static void port_fill(struct dl_port *p, const struct attrs *a)
{
	p->index = (uint32_t)get_num(a->tb[DEVLINK_ATTR_PORT_INDEX]);
	p->flavour = (int)get_num(a->tb[DEVLINK_ATTR_PORT_FLAVOUR]);
	if (!get_str(a->tb[DEVLINK_ATTR_PORT_NETDEV_NAME], p->netdev, sizeof(p->netdev)))
		p->netdev[0] = '\0';
	p->number = (int)get_num(a->tb[DEVLINK_ATTR_PORT_NUMBER]);
	p->pf = (int)get_num(a->tb[DEVLINK_ATTR_PORT_PCI_PF_NUMBER]);
	p->vf = (int)get_num(a->tb[DEVLINK_ATTR_PORT_PCI_VF_NUMBER]);
	p->sf = get_num(a->tb[DEVLINK_ATTR_PORT_PCI_SF_NUMBER]);
	p->controller = get_num(a->tb[DEVLINK_ATTR_PORT_CONTROLLER_NUMBER]);
	p->external = get_num(a->tb[DEVLINK_ATTR_PORT_EXTERNAL]) > 0;
	p->fn_state = (int)get_num(a->fn[DEVLINK_PORT_FN_ATTR_STATE]);
	p->fn_opstate = (int)get_num(a->fn[DEVLINK_PORT_FN_ATTR_OPSTATE]);
}

/* DEVLINK_CMD_PORT_NEW: a port of an instance. */
static int on_port(struct dl_node *dl, const struct attrs *a)
{
	struct dl_port *ports, *p;

	if (!a->tb[DEVLINK_ATTR_PORT_INDEX])
		return MNL_CB_OK;
	ports = grow(dl->ports, dl->nports, sizeof(*ports));
	if (!ports)
		return MNL_CB_ERROR;
	dl->ports = ports;
	p = &ports[dl->nports];
	memset(p, 0, sizeof(*p));
	if (!get_str(a->tb[DEVLINK_ATTR_BUS_NAME], p->bus, sizeof(p->bus)) ||
	    !get_str(a->tb[DEVLINK_ATTR_DEV_NAME], p->dev, sizeof(p->dev)))
		return MNL_CB_OK;
	port_fill(p, a);
	dl->nports++;
	return MNL_CB_OK;
}

static int dispatch(const struct nlmsghdr *nlh, void *data)
{
	struct attrs *a = malloc(sizeof(*a));
	int ret = MNL_CB_OK;

	if (!a) {
		errno = ENOMEM;
		return MNL_CB_ERROR;
	}
	switch (parse_msg(nlh, a)) {
	case DEVLINK_CMD_NEW:
		ret = on_dev(data, a);
		break;
	case DEVLINK_CMD_PORT_NEW:
		ret = on_port(data, a);
		break;
	case DEVLINK_CMD_ESWITCH_GET:
		ret = on_eswitch(data, a);
		break;
	}
	free(a);
	if (ret == MNL_CB_ERROR)
		errno = ENOMEM;
	return ret;
}

/* CTRL_CMD_NEWFAMILY: the id the kernel gave the devlink family. */
static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *attr;

	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return MNL_CB_OK;
	mnl_attr_for_each(attr, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
		    !mnl_attr_validate(attr, MNL_TYPE_U16))
			*(int *)data = mnl_attr_get_u16(attr);
	return MNL_CB_OK;
}

/* mnl_cb_run's answer as 0 or -errno. */
static int cb_result(int ret)
{
	if (ret >= 0)
		return 0;
	return errno ? -errno : -EPROTO;
}

int devlink_parse_family(const void *buf, size_t len)
{
	int id = -ENOENT, ret;

	errno = 0;
	ret = cb_result(mnl_cb_run(buf, len, 0, 0, family_cb, &id));
	return ret ? ret : id;
}

int devlink_parse(const void *buf, size_t len, struct dl_node *dl)
{
	errno = 0;
	return cb_result(mnl_cb_run(buf, len, 0, 0, dispatch, dl));
}

/* ---- talking to the kernel ---- */

struct genl {
	struct mnl_socket *sock;
	unsigned int portid, seq;
	char buf[32768];	/* dumps come in messages of up to 32 KiB */
};

struct req {
	uint16_t type;		/* the family: GENL_ID_CTRL or devlink's id */
	uint8_t cmd;
	uint16_t flags;		/* NLM_F_DUMP or 0 */
	const char *family;	/* CTRL_ATTR_FAMILY_NAME, or NULL */
	const struct dl_dev *dev;	/* the instance's handle, or NULL */
};

/*
 * Send @req and feed every reply to @cb until the kernel's ACK or DONE;
 * replies of another sequence number or sender are refused by mnl_cb_run().
 */
static int genl_request(struct genl *g, const struct req *req, mnl_cb_t cb, void *data)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(g->buf);
	struct genlmsghdr *genl;
	unsigned int seq = ++g->seq;
	ssize_t n;
	int ret;

	nlh->nlmsg_type = req->type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | req->flags;
	nlh->nlmsg_seq = seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = req->cmd;
	genl->version = req->family ? 1 : DEVLINK_GENL_VERSION;
	if (req->family)
		mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, req->family);
	if (req->dev) {
		mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, req->dev->bus);
		mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, req->dev->name);
	}
	if (mnl_socket_sendto(g->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(g->sock, g->buf, sizeof(g->buf));
		if (n < 0)
			return -errno;
		errno = 0;
		ret = mnl_cb_run(g->buf, (size_t)n, seq, g->portid, cb, data);
	} while (ret > 0);
	return cb_result(ret);
}

static int genl_open(struct genl *g)
{
	g->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!g->sock)
		return -errno;
	if (mnl_socket_bind(g->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		int ret = -errno;

		mnl_socket_close(g->sock);
		return ret;
	}
	g->portid = mnl_socket_get_portid(g->sock);
	g->seq = 0;
	return 0;
}

/* The eswitch mode of every PCI instance; EOPNOTSUPP (no eswitch) and EPERM leave it unknown. */
static int load_eswitch(const struct ctx *ctx, struct genl *g, uint16_t family, struct dl_node *dl)
{
	size_t i, n = dl->ndevs;
	int ret;

	for (i = 0; i < n; i++) {
		struct req req = { family, DEVLINK_CMD_ESWITCH_GET, 0, NULL, &dl->devs[i] };

		if (strcmp(dl->devs[i].bus, "pci"))
			continue;
		ret = genl_request(g, &req, dispatch, dl);
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			log_info(ctx, "devlink gives no eswitch mode of pci/%s: %s", dl->devs[i].name,
				 strerror(-ret));
	}
	return 0;
}

static int load_all(const struct ctx *ctx, struct genl *g, struct dl_node *dl)
{
	struct req family = { GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0, "devlink", NULL };
	struct req devs = { 0, DEVLINK_CMD_GET, NLM_F_DUMP, NULL, NULL };
	struct req ports = { 0, DEVLINK_CMD_PORT_GET, NLM_F_DUMP, NULL, NULL };
	int id = -ENOENT, ret;

	/* A kernel without devlink answers ENOENT: no family of that name. */
	ret = genl_request(g, &family, family_cb, &id);
	if (ret)
		return ret == -ENOENT || ret == -EOPNOTSUPP ? -ENOENT : ret;
	if (id < 0)
		return -ENOENT;
	devs.type = ports.type = (uint16_t)id;
	ret = genl_request(g, &devs, dispatch, dl);
	if (!ret)
		ret = genl_request(g, &ports, dispatch, dl);
	if (!ret)
		ret = load_eswitch(ctx, g, (uint16_t)id, dl);
	return ret;
}

int devlink_load(const struct ctx *ctx, struct dl_node *out)
{
	struct genl *g;
	int ret;

	memset(out, 0, sizeof(*out));
	g = malloc(sizeof(*g));
	if (!g)
		return -ENOMEM;
	ret = genl_open(g);
	if (ret)
		goto err_free;
	ret = load_all(ctx, g, out);
	mnl_socket_close(g->sock);
err_free:
	free(g);
	if (ret)
		devlink_free(out);
	return ret;
}

void devlink_free(struct dl_node *dl)
{
	free(dl->devs);
	free(dl->ports);
	memset(dl, 0, sizeof(*dl));
}

const char *devlink_flavour_str(int flavour)
{
	static const char *const names[] = {
		[DEVLINK_PORT_FLAVOUR_PHYSICAL] = "physical",
		[DEVLINK_PORT_FLAVOUR_CPU] = "cpu",
		[DEVLINK_PORT_FLAVOUR_DSA] = "dsa",
		[DEVLINK_PORT_FLAVOUR_PCI_PF] = "pcipf",
		[DEVLINK_PORT_FLAVOUR_PCI_VF] = "pcivf",
		[DEVLINK_PORT_FLAVOUR_VIRTUAL] = "virtual",
		[DEVLINK_PORT_FLAVOUR_UNUSED] = "unused",
		[DEVLINK_PORT_FLAVOUR_PCI_SF] = "pcisf",
	};

	if (flavour < 0 || (size_t)flavour >= sizeof(names) / sizeof(names[0]) || !names[flavour])
		return "unknown";
	return names[flavour];
}

const char *devlink_eswitch_str(enum dl_eswitch mode)
{
	return mode == DL_ESWITCH_LEGACY ? "legacy" : mode == DL_ESWITCH_SWITCHDEV ? "switchdev" : NULL;
}
