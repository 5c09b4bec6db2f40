/* SPDX-License-Identifier: MIT */
/*
 * The node's side of `rdmactl probe -w`: `rdmactl probe --agent HOST:PORT`,
 * started on every node by the launcher.  It reads the run's token from
 * its first line of stdin, meets the coordinator at HOST:PORT (rdv.h),
 * then serves or connects as each step says, in child processes (a node
 * can be a server and a client in one step, and on several rails), and
 * reports every test it ran.  It ends with BYE, when the coordinator's
 * connection closes, or when the coordinator is silent for RDV_SILENCE_S:
 * nothing of a run keeps running on a node after it.
 */
#ifndef RDMACTL_AGENT_H
#define RDMACTL_AGENT_H

struct ctx;
struct probe_cfg;

/*
 * The agent's last line on stdout, for the launcher: "rdmactl-agent:
 * done", or this and why (the coordinator stops waiting for a node whose
 * agent gave up before it joined).
 */
#define AGENT_ENDED_EARLY "rdmactl-agent: ended early: "

/*
 * Run the agent against the coordinator at @rdv ("HOST:PORT") with the
 * test @cfg (sizes, duration, transport...).  0 after BYE, -errno (said on
 * stderr) otherwise.
 */
int agent_run(struct ctx *ctx, const char *rdv, const struct probe_cfg *cfg);

/*
 * @rdv is HOST:PORT and HOST resolves: 0; -EINVAL for bad input (not
 * HOST:PORT, a name that does not resolve), -EAGAIN or -errno when the
 * resolver could not answer; each said with getaddrinfo's reason.
 */
int agent_check(const struct ctx *ctx, const char *rdv);

#endif
