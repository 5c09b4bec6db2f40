// SPDX-License-Identifier: MIT
/* A peer's facts for `rdmactl doctor --peer`, asked of its probe server (see doctor_peer.h). */
#include <errno.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "doctor/doctor_peer.h"
#include "probe/probe_ctl.h"

int doctor_peer_read_info(struct probe_ctl *c, struct json_object **out)
{
	struct probe_frame *f = malloc(sizeof(*f));
	int ret;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	ret = ctl_expect(c, PROBE_MSG_NODE_INFO, f);
#ifdef PROBE_NODE_INFO_MAX
	/* probe_proto.h carries NODE_INFO as one string: this node's JSON. */
	if (!ret) {
		*out = node_info_parse(f->u.node_info.text);
		ret = *out ? 0 : -EBADMSG;
	}
#else
	if (!ret)
		ret = -EOPNOTSUPP;
#endif
	free(f);
	return ret;
}
