/* SPDX-License-Identifier: MIT */
/*
 * A peer's facts for `rdmactl doctor --peer`: asked of its probe server with
 * NODE_INFO_REQ; the answer is node/nodeinfo.h's JSON object.
 */
#ifndef RDMACTL_DOCTOR_PEER_H
#define RDMACTL_DOCTOR_PEER_H

#include "node/nodeinfo.h"

struct json_object;
struct probe_ctl;

/*
 * Read the peer's NODE_INFO after NODE_INFO_REQ was sent on @c; the parsed
 * object in *@out.  0, -EREMOTEIO (the peer sent ERROR: c->last_error),
 * -EOPNOTSUPP (this build's protocol has no NODE_INFO text), -EBADMSG or
 * a ctl_* error.
 */
int doctor_peer_read_info(struct probe_ctl *c, struct json_object **out);

#endif
