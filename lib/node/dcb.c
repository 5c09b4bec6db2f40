// SPDX-License-Identifier: MIT
/*
 * DCB through the kernel's dcbnl (rtnetlink RTM_GETDCB, DCB_CMD_IEEE_GET,
 * as iproute2's dcb/dcb.c asks it), or its recording with --root; mlx5's
 * ECN in sysfs; a VLAN's egress map in /proc.  dcb.h says the forms.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include "base/ctx.h"
#include "base/sysfs.h"
#include "node/dcb.h"

/*
 * The trust table arrived in Linux 6.1's uapi (after Debian 12's headers
 * were cut for some builds): its numbers, fixed by the ABI.
 */
#define QOS_ATTR_APP_TRUST_TABLE 11	/* DCB_ATTR_DCB_APP_TRUST_TABLE in enum ieee_attrs */
#define QOS_ATTR_DCB_APP 2		/* DCB_ATTR_DCB_APP in enum ieee_attrs_app */
#define QOS_SEL_PCP 255			/* DCB_APP_SEL_PCP: iproute2's pcp-prio */

static const struct {
	unsigned int sel;
	const char *word;	/* dcb apptrust's word */
} trust_words[] = {
	{ IEEE_8021QAZ_APP_SEL_ETHERTYPE, "ethtype" }, { IEEE_8021QAZ_APP_SEL_STREAM, "stream-port" },
	{ IEEE_8021QAZ_APP_SEL_DGRAM, "dgram-port" }, { IEEE_8021QAZ_APP_SEL_ANY, "port" },
	{ IEEE_8021QAZ_APP_SEL_DSCP, "dscp" }, { QOS_SEL_PCP, "pcp" },
};

static void state_init(struct dcb_state *s)
{
	memset(s, 0, sizeof(*s));
	memset(s->dscp_prio, -1, sizeof(s->dscp_prio));
}

bool dcb_trusts_dscp(const struct dcb_state *s)
{
	unsigned int i;

	/*
	 * mlx5 has no trust table: adding its first DSCP entry switches the
	 * port to trust DSCP and deleting the last back to PCP
	 * (mlx5e_dcbnl_ieee_setapp/delapp), so the table says the mode.
	 */
	if (!s->trust_table)
		return s->n_dscp > 0;
	for (i = 0; i < s->n_trust; i++) {
		if (s->trust[i] == IEEE_8021QAZ_APP_SEL_DSCP)
			return true;
		if (s->trust[i] == QOS_SEL_PCP)
			return false;
	}
	return false;
}

/* ---- the netlink reply ---- */

/* DCB_ATTR_IEEE_APP (struct dcb_app) entries of the APP table: the DSCP ones. */
static int on_app(const struct nlattr *a, void *data)
{
	struct dcb_state *s = data;
	const struct dcb_app *app;

	if (mnl_attr_get_type(a) != DCB_ATTR_IEEE_APP ||
	    mnl_attr_get_payload_len(a) < sizeof(struct dcb_app))
		return MNL_CB_OK;
	app = mnl_attr_get_payload(a);
	if (app->selector == IEEE_8021QAZ_APP_SEL_DSCP && app->protocol < DCB_DSCPS &&
	    app->priority < DCB_PRIOS) {
		if (s->dscp_prio[app->protocol] < 0)
			s->n_dscp++;
		s->dscp_prio[app->protocol] = (int8_t)app->priority;
	}
	return MNL_CB_OK;
}

/* The trust table: u8 selectors, each as DCB_ATTR_IEEE_APP or DCB_ATTR_DCB_APP, in order. */
static int on_trust(const struct nlattr *a, void *data)
{
	struct dcb_state *s = data;
	uint16_t t = mnl_attr_get_type(a);

	if ((t == DCB_ATTR_IEEE_APP || t == QOS_ATTR_DCB_APP) &&
	    !mnl_attr_validate(a, MNL_TYPE_U8) && s->n_trust < sizeof(s->trust))
		s->trust[s->n_trust++] = mnl_attr_get_u8(a);
	return MNL_CB_OK;
}

static int on_ieee(const struct nlattr *a, void *data)
{
	struct dcb_state *s = data;
	const struct ieee_pfc *pfc;

	switch (mnl_attr_get_type(a)) {
	case DCB_ATTR_IEEE_PFC:
		if (mnl_attr_get_payload_len(a) < sizeof(*pfc))
			break;
		pfc = mnl_attr_get_payload(a);
		s->pfc_read = true;
		s->pfc_en = pfc->pfc_en;
		break;
	case DCB_ATTR_IEEE_APP_TABLE:
		mnl_attr_parse_nested(a, on_app, s);
		break;
	case QOS_ATTR_APP_TRUST_TABLE:
		s->trust_table = true;
		mnl_attr_parse_nested(a, on_trust, s);
		break;
	}
	return MNL_CB_OK;
}

static int on_top(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == DCB_ATTR_IEEE)
		mnl_attr_parse_nested(a, on_ieee, data);
	return MNL_CB_OK;
}

static int on_reply(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type != RTM_GETDCB || mnl_nlmsg_get_payload_len(nlh) < sizeof(struct dcbmsg))
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(struct dcbmsg), on_top, data);
	return MNL_CB_OK;
}

/*
 * One RTM_GETDCB DCB_CMD_IEEE_GET for @ifname, its reply parsed into @s.
 * A netdev without dcbnl operations gets the ack -EOPNOTSUPP (dcb_doit()).
 */
static int dcb_live(const char *ifname, struct dcb_state *s)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct dcbmsg *dcb;
	unsigned int seq = (unsigned int)time(NULL), portid;
	ssize_t n;
	int ret;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETDCB;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	dcb = mnl_nlmsg_put_extra_header(nlh, sizeof(*dcb));
	dcb->dcb_family = AF_UNSPEC;
	dcb->cmd = DCB_CMD_IEEE_GET;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname);
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto err_socket;
	}
	portid = mnl_socket_get_portid(nl);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto err_socket;
	}
	/* The reply is one message (no NLM_F_DUMP); an error comes as the ack. */
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	ret = n < 0 ? -errno : mnl_cb_run(buf, (size_t)n, seq, portid, on_reply, s) < 0 ? -errno : 0;
err_socket:
	mnl_socket_close(nl);
	return ret;
}

/* ---- the recording ---- */

static const char *trust_word(unsigned int sel)
{
	size_t i;

	for (i = 0; i < sizeof(trust_words) / sizeof(trust_words[0]); i++)
		if (trust_words[i].sel == sel)
			return trust_words[i].word;
	return "unknown";
}

static int trust_sel(const char *word)
{
	size_t i;

	for (i = 0; i < sizeof(trust_words) / sizeof(trust_words[0]); i++)
		if (!strcmp(trust_words[i].word, word))
			return (int)trust_words[i].sel;
	return -EINVAL;
}

size_t dcb_format(int ret, const struct dcb_state *s, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

#define PUT(...) (off += (size_t)snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__))
	if (ret) {
		PUT("error %s\n", strerrorname_np(-ret) ? strerrorname_np(-ret) : "EIO");
		return off < len ? off : len - 1;
	}
	if (s->pfc_read) {
		PUT("prio-pfc");
		for (i = 0; i < DCB_PRIOS; i++)
			PUT(" %u:%s", i, s->pfc_en & (1u << i) ? "on" : "off");
		PUT("\n");
	}
	if (s->n_dscp) {
		PUT("dscp-prio");
		for (i = 0; i < DCB_DSCPS; i++)
			if (s->dscp_prio[i] >= 0)
				PUT(" %u:%d", i, s->dscp_prio[i]);
		PUT("\n");
	}
	if (s->trust_table) {
		PUT("apptrust");
		for (i = 0; i < s->n_trust; i++)
			PUT(" %s", trust_word(s->trust[i]));
		PUT("\n");
	}
#undef PUT
	return off < len ? off : len - 1;
}

/* The errno named by @word ("EOPNOTSUPP"), as -errno; -EIO for another. */
static int error_named(const char *word)
{
	static const int errs[] = { EOPNOTSUPP, ENODEV, EPERM, EACCES, EINVAL, ENOMEM, EIO };
	size_t i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (strerrorname_np(errs[i]) && !strcmp(word, strerrorname_np(errs[i])))
			return -errs[i];
	return -EIO;
}

/* "P:on" pairs of prio-pfc, "D:P" pairs of dscp-prio. */
static int parse_pairs(struct dcb_state *s, bool pfc, char *rest)
{
	char *tok, *save = NULL, word[8];
	unsigned int a, b;

	for (tok = strtok_r(rest, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (pfc && sscanf(tok, "%u:%7s", &a, word) == 2 && a < DCB_PRIOS &&
		    (!strcmp(word, "on") || !strcmp(word, "off"))) {
			s->pfc_en |= (uint8_t)(!strcmp(word, "on") << a);
		} else if (!pfc && sscanf(tok, "%u:%u", &a, &b) == 2 && a < DCB_DSCPS && b < DCB_PRIOS) {
			s->n_dscp += s->dscp_prio[a] < 0;
			s->dscp_prio[a] = (int8_t)b;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

static int parse_trust(struct dcb_state *s, char *rest)
{
	char *tok, *save = NULL;
	int sel;

	s->trust_table = true;
	for (tok = strtok_r(rest, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if ((sel = trust_sel(tok)) < 0 || s->n_trust >= sizeof(s->trust))
			return -EINVAL;
		s->trust[s->n_trust++] = (uint8_t)sel;
	}
	return 0;
}

int dcb_parse(const char *text, struct dcb_state *out)
{
	char *copy = strdup(text), *line, *save = NULL, *rest;
	int ret = 0;

	state_init(out);
	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		rest = line + strcspn(line, " \t");
		if (*rest)
			*rest++ = '\0';
		if (!strcmp(line, "error"))
			ret = error_named(rest + strspn(rest, " \t"));
		else if (!strcmp(line, "prio-pfc") && !(ret = parse_pairs(out, true, rest)))
			out->pfc_read = true;
		else if (!strcmp(line, "dscp-prio"))
			ret = parse_pairs(out, false, rest);
		else if (!strcmp(line, "apptrust"))
			ret = parse_trust(out, rest);
	}
	free(copy);
	return ret;
}

int dcb_read(const struct ctx *ctx, const char *ifname, struct dcb_state *out)
{
	char path[128], *text = NULL;
	int ret;

	state_init(out);
	if (!ifname[0] || strlen(ifname) >= IF_NAMESIZE || strchr(ifname, '/'))
		return -ENODEV;
	if (!ctx->root[0])
		return dcb_live(ifname, out);
	snprintf(path, sizeof(path), DCB_RECORDING_DIR "/%s", ifname);
	ret = read_file(ctx, path, 1 << 16, &text, NULL);
	if (ret)
		return ret == -ENOENT ? -ENODATA : ret;
	ret = dcb_parse(text, out);
	free(text);
	return ret;
}

/* ---- sysfs and /proc ---- */

/* "1" or "0" in a sysfs file: the value, or -errno. */
static int read_flag(const struct ctx *ctx, const char *path)
{
	char buf[16];
	int ret = read_line(ctx, path, buf, sizeof(buf));

	if (ret < 0)
		return ret;
	return atoi(buf) ? 1 : 0;
}

int dcb_ecn(const struct ctx *ctx, const char *ifname, unsigned int prio)
{
	char path[256];
	int rp, np;

	snprintf(path, sizeof(path), "/sys/class/net/%s/ecn/roce_rp/enable/%u", ifname, prio);
	rp = read_flag(ctx, path);
	snprintf(path, sizeof(path), "/sys/class/net/%s/ecn/roce_np/enable/%u", ifname, prio);
	np = read_flag(ctx, path);
	if (rp < 0 || np < 0)
		return rp < 0 ? rp : np;
	return rp && np;
}

static int read_num(const struct ctx *ctx, const char *path)
{
	char buf[16];

	return read_line(ctx, path, buf, sizeof(buf)) > 0 ? atoi(buf) : -1;
}

void dcb_cnp(const struct ctx *ctx, const char *ifname, int *prio, int *dscp)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/net/%s/ecn/roce_np/cnp_802p_prio", ifname);
	*prio = read_num(ctx, path);
	snprintf(path, sizeof(path), "/sys/class/net/%s/ecn/roce_np/cnp_dscp", ifname);
	*dscp = read_num(ctx, path);
}

int dcb_vlan_pcp(const struct ctx *ctx, const char *ifname, unsigned int skprio)
{
	char path[128], *text = NULL, *map, *tok, *save = NULL;
	unsigned int from, pcp;
	int ret, found = 0;

	snprintf(path, sizeof(path), "/proc/net/vlan/%s", ifname);
	ret = read_file(ctx, path, 1 << 16, &text, NULL);
	if (ret)
		return ret;
	/* net/8021q/vlanproc.c: " EGRESS priority mappings: 0:3 5:5 " (skb priority:PCP). */
	map = strstr(text, "EGRESS priority mappings:");
	if (map) {
		map += strlen("EGRESS priority mappings:");
		map[strcspn(map, "\n")] = '\0';
		for (tok = strtok_r(map, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			if (sscanf(tok, "%u:%u", &from, &pcp) == 2 && from == skprio)
				found = (int)(pcp & 7);
	}
	free(text);
	return map ? found : -EINVAL;
}

unsigned int dcb_tos_prio(unsigned int tos)
{
	/* ip_tos2prio[] of net/ipv4/route.c: best effort, bulk, interactive, interactive bulk. */
	static const unsigned char tos2prio[16] = { 0, 0, 0, 0, 2, 2, 2, 2, 6, 6, 6, 6, 4, 4, 4, 4 };

	return tos2prio[(tos & 0x1e) >> 1];
}
