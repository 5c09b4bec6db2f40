// SPDX-License-Identifier: MIT
/*
 * The cluster probe's coordinator (coord.h).  The launcher runs in a
 * thread of its own (launch_run() blocks until every node's agent has
 * ended); the coordinator's loop polls the rendezvous socket, the agents'
 * connections and a pipe by which the launcher's thread says that a node
 * failed to start.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/json.h"
#include "base/log.h"
#include "base/output.h"
#include "base/progress.h"
#include "base/text.h"
#include "mesh/agent.h"
#include "mesh/coord.h"
#include "mesh/rdv.h"
#include "mesh/resume.h"
#include "mesh/runsave.h"
#include "mesh/stepper.h"
#include "mesh/topology.h"
#include "probe/probe_auth.h"

#define RAILS_MAX	16
#define PENDING_MAX	64	/* agents' handshakes in flight */

struct cnode {
	const char *name;
	struct rdv_conn c;		/* fd -1 until it joins, and once it is gone */
	bool joined, down;
	long heard_ms;
	char why[512];			/* why it is down */
	char launch_why[512];		/* what the launcher said (its thread writes it) */
	unsigned int nports;
	char dev[RAILS_MAX][64], ip[RAILS_MAX][64];
	char local_ip[INET_ADDRSTRLEN];	/* --launcher local: its loopback address */
};

/* An agent's connection in its handshake (fd -1: a free slot). */
struct pending {
	struct rdv_conn c;
	char from[INET_ADDRSTRLEN];
	long deadline;			/* for its next message */
	int node;			/* the node its HELLO named */
	uint8_t an[PROBE_NONCE_LEN], cn[PROBE_NONCE_LEN];
	char *ports;			/* from its HELLO; set: waiting for AUTH */
};

struct cjob {
	bool ready, done;
	struct link_result res;
};

struct coord {
	struct ctx *ctx;
	struct coord_cfg *cfg;
	struct cnode *nodes;
	uint32_t n;
	char *const *names;
	int lfd, wake[2];
	char addr[INET_ADDRSTRLEN + 8];	/* what the agents connect to: "IP:PORT" */
	char token[RDV_HEX_LEN + 1];
	struct launch launch;		/* the agents' launcher run */
	pthread_t thread;
	pthread_mutex_t mu;
	struct json_object *run;	/* the run's facts (run_info), for cfg->done */
	bool launched, launch_done;
	long ping_ms;
	unsigned int rails, step;	/* step: the one running, numbered for the agents */
	struct cjob *jobs;
	size_t njobs;
	struct pending *pend;		/* [PENDING_MAX] */
	/* pump()'s poll set, made once: [nodes + PENDING_MAX + 2] */
	struct pollfd *pfd;
	uint32_t *who;			/* < nodes: a node; else nodes + a pending slot */
	struct linkmap map;
	struct progress steps;		/* on a terminal: the step, the time left */
	unsigned int steps_done, steps_total;
	/* The run so far, for its facts (run_json()) whenever they are saved. */
	const struct schedule *sched;
	unsigned int main_done;		/* the schedule's steps done */
	size_t retest_steps;
	double join_s;
	long probe_t0;			/* when the first step started */
	time_t started;			/* wall clock, for the document (run.started) */
	struct runsave save;		/* --save */
};

/* Joined, not gone, and not yet told goodbye (its connection then closed). */
static bool alive(const struct coord *co, uint32_t i)
{
	return co->nodes[i].joined && !co->nodes[i].down && co->nodes[i].c.fd >= 0;
}

/* ---- the launcher's thread ---- */

/* What the launcher said of @node (its thread), unless @keep and it said something already. */
static void launch_note(struct coord *co, const char *node, bool keep, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void launch_note(struct coord *co, const char *node, bool keep, const char *fmt, ...)
{
	va_list ap;
	uint32_t i;

	pthread_mutex_lock(&co->mu);
	for (i = 0; i < co->n; i++)
		if (!strcmp(co->nodes[i].name, node) && !(keep && co->nodes[i].launch_why[0])) {
			va_start(ap, fmt);
			vsnprintf(co->nodes[i].launch_why, sizeof(co->nodes[i].launch_why), fmt, ap);
			va_end(ap);
		}
	pthread_mutex_unlock(&co->mu);
	if (write(co->wake[1], "f", 1) < 0) {
		/* the loop also wakes every 200 ms */
	}
}

/*
 * The agents report over the rendezvous; on stdout each says only how it
 * ended.  One that gave up before it joined (it allows the coordinator
 * --timeout to answer) is not waited for until --node-timeout.
 */
static void sink_line(void *arg, const char *node, const char *line)
{
	size_t len = strlen(AGENT_ENDED_EARLY);

	if (!strncmp(line, AGENT_ENDED_EARLY, len))
		launch_note(arg, node, true, "its agent ended early: %s", line + len);
}

static void sink_fail(void *arg, const char *node, const char *why)
{
	launch_note(arg, node, false, "%s", why);
}

static void *launch_thread(void *arg)
{
	struct coord *co = arg;
	struct launch_sink sink = { .line = sink_line, .fail = sink_fail, .arg = co };
	int ret = launch_run(co->ctx, &co->launch, co->names, co->n, &sink);

	if (ret)
		log_err(co->ctx, "Failed to run %s: %s", launcher_name(co->launch.launcher),
			strerror(-ret));
	pthread_mutex_lock(&co->mu);
	co->launch_done = true;
	pthread_mutex_unlock(&co->mu);
	if (write(co->wake[1], "d", 1) < 0) {
		/* as above */
	}
	return NULL;
}

/* ---- the rendezvous socket ---- */

/* The address of this host that routes to the first node that resolves. */
static int route_addr(struct coord *co, char *ip)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM }, *res;
	struct sockaddr_in me;
	socklen_t len = sizeof(me);
	uint32_t i;
	int fd, ret;

	for (i = 0; i < co->n; i++) {
		if (getaddrinfo(co->names[i], "9", &hints, &res))
			continue;
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		ret = fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) ||
		      getsockname(fd, (struct sockaddr *)&me, &len);
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		if (!ret) {
			inet_ntop(AF_INET, &me.sin_addr, ip, INET_ADDRSTRLEN);
			return 0;
		}
	}
	return -EHOSTUNREACH;
}

/*
 * The agents connect to --rendezvous, and only an address of this host
 * reaches the coordinator's socket: one it cannot bind (EADDRNOTAVAIL) is
 * refused before any agent starts, not waited on for --node-timeout.  An
 * address a NAT gateway forwards here is not one either: give this host's
 * own, as the nodes reach it.  0 or -EINVAL (said).
 */
static int own_addr(struct coord *co, const char *arg, const struct in_addr *a)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = *a };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return 0;	/* the listening socket says it */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) && errno == EADDRNOTAVAIL)
		ret = -EINVAL;
	close(fd);
	if (ret)
		log_err(co->ctx, "Failed to use --rendezvous '%s': it is no address of this host's "
			"interfaces, so no agent could reach this run (the agents connect to it); give "
			"this host's own address as the nodes reach it (ip -4 addr)", arg);
	return ret;
}

/* --rendezvous ADDR[:PORT] into @ip and @port; 0 or -EINVAL (said). */
static int rdv_arg(struct coord *co, char *ip, long *port)
{
	const char *s = co->cfg->rendezvous, *colon = strrchr(s, ':');
	struct in_addr a;
	char host[INET_ADDRSTRLEN];

	*port = 0;
	if (colon && parse_long(colon + 1, 1, 65535, port))
		colon = NULL, *port = -1;
	snprintf(host, sizeof(host), "%.*s", (int)(colon ? colon - s : (long)strlen(s)), s);
	if (*port < 0 || inet_pton(AF_INET, host, &a) != 1) {
		log_err(co->ctx, "Failed to parse --rendezvous '%s': expected an IPv4 address of this "
			"host, with :PORT if a firewall leaves only that port open", s);
		return -EINVAL;
	}
	snprintf(ip, INET_ADDRSTRLEN, "%s", host);
	return own_addr(co, s, &a);
}

/* The agents are processes of this machine (--launcher local). */
static bool local(const struct coord *co)
{
	return co->cfg->launch.launcher == LAUNCHER_LOCAL;
}

static int rdv_listen(struct coord *co)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	char ip[INET_ADDRSTRLEN] = "127.0.0.1";
	long port = 0;
	int one = 1, ret = 0;

	if (co->cfg->rendezvous)
		ret = rdv_arg(co, ip, &port);
	else if (!local(co))
		ret = route_addr(co, ip);
	if (ret == -EHOSTUNREACH)
		log_err(co->ctx, "Failed to find this host's address toward the nodes: none of them "
			"resolves or routes; give --rendezvous ADDR");
	if (ret)
		return ret;
	sa.sin_port = htons((uint16_t)port);
	/* The local launcher's agents are this machine's: the port stays off the network. */
	if (local(co) && !co->cfg->rendezvous)
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	co->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (co->lfd < 0 || setsockopt(co->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(co->lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(co->lfd, 4096) ||
	    getsockname(co->lfd, (struct sockaddr *)&sa, &len)) {
		ret = -errno;
		log_err(co->ctx, "Failed to listen for the nodes' agents on port %ld: %s", port,
			strerror(-ret));
		return ret;
	}
	snprintf(co->addr, sizeof(co->addr), "%s:%u", ip, ntohs(sa.sin_port));
	return 0;
}

/* ---- agents joining ---- */

/* The node an agent names itself: the same name, or the same short name. */
static int node_match(const struct coord *co, const char *name)
{
	size_t a = strcspn(name, ".");
	uint32_t i;

	for (i = 0; i < co->n; i++)
		if (!strcmp(co->nodes[i].name, name))
			return (int)i;
	for (i = 0; i < co->n; i++)
		if (strcspn(co->nodes[i].name, ".") == a && !strncmp(co->nodes[i].name, name, a))
			return (int)i;
	return -1;
}

/* "rxe0/1=10.99.0.1,rxe1/1=10.99.1.1" into the node's rails. */
static void ports_parse(struct cnode *nd, char *ports)
{
	char *save = NULL, *tok;

	nd->nports = 0;
	for (tok = strtok_r(ports, ",", &save); tok && nd->nports < RAILS_MAX;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		struct in_addr a;

		if (!eq || eq == tok || (size_t)(eq - tok) >= sizeof(nd->dev[0]) ||
		    inet_pton(AF_INET, eq + 1, &a) != 1)
			continue;
		*eq = '\0';
		snprintf(nd->dev[nd->nports], sizeof(nd->dev[0]), "%s", tok);
		snprintf(nd->ip[nd->nports++], sizeof(nd->ip[0]), "%s", eq + 1);
	}
}

/*
 * An agent's handshake, read a line at a time in the coordinator's loop
 * like everything else: a connection that says nothing, or a byte a
 * second, holds up no other.  Each message has --timeout, as the agent
 * gives each answer: 3 s dropped live agents of a loaded host, each then
 * named down.  At most PENDING_MAX are in flight, the others wait to be
 * accepted.
 */
static void pend_drop(struct pending *p)
{
	rdv_close(&p->c);
	free(p->ports);
	p->ports = NULL;
}

/* HELLO 1 NAME AN PORTS: answer with CHALLENGE; 0, or -1 to drop it. */
static int pend_hello(struct coord *co, struct pending *p, const char *line)
{
	char name[256], anh[RDV_HEX_LEN + 1], mac[RDV_HEX_LEN + 1], cnh[RDV_HEX_LEN + 1];
	int proto, off = 0;

	if (sscanf(line, "HELLO %d %255s %64s %n", &proto, name, anh, &off) != 3 || !off ||
	    proto != RDV_PROTO || rdv_unhex(anh, p->an, sizeof(p->an)))
		return -1;
	p->node = node_match(co, name);
	if (p->node < 0 || co->nodes[p->node].joined) {
		log_warn(co->ctx, "an agent on %s calls itself '%s', %s; refused", p->from, name,
			 p->node < 0 ? "which is none of the nodes" : "which has joined already");
		return -1;
	}
	p->ports = strdup(line + off);
	if (!p->ports || probe_auth_nonce(p->cn) || rdv_mac_hex(co->token, p->an, p->cn, mac))
		return -1;
	rdv_hex(p->cn, sizeof(p->cn), cnh);
	p->deadline = rdv_ms() + co->cfg->probe.timeout_ms;
	return rdv_send(&p->c, "CHALLENGE %s %s", cnh, mac) ? -1 : 0;
}

/* AUTH MAC: the agent holds the token; it joins as its node. 0, or -1 to drop it. */
static int pend_auth(struct coord *co, struct pending *p, const char *line)
{
	struct cnode *nd = &co->nodes[p->node];
	char mac[RDV_HEX_LEN + 1];

	if (sscanf(line, "AUTH %64s", mac) != 1 || !rdv_mac_ok(co->token, p->cn, p->an, mac)) {
		log_warn(co->ctx, "an agent on %s as '%s' did not prove the run's token; refused",
			 p->from, nd->name);
		return -1;
	}
	if (nd->joined || rdv_send(&p->c, "WELCOME %d %u", p->node, co->n))
		return -1;
	ports_parse(nd, p->ports);
	nd->c = p->c;
	nd->joined = true;
	nd->heard_ms = rdv_ms();
	p->c.fd = -1;
	pend_drop(p);
	return 0;
}

static void pend_read(struct coord *co, struct pending *p)
{
	static char line[RDV_LINE_MAX + 1];
	int ret = rdv_fill(&p->c);

	while (p->c.fd >= 0 && rdv_line(&p->c, line))
		if ((p->ports ? pend_auth(co, p, line) : pend_hello(co, p, line)) < 0)
			pend_drop(p);
	if (ret && p->c.fd >= 0)
		pend_drop(p);
}

/* A free slot, or NULL. */
static struct pending *pend_slot(struct coord *co)
{
	size_t i;

	for (i = 0; i < PENDING_MAX; i++)
		if (co->pend[i].c.fd < 0)
			return &co->pend[i];
	return NULL;
}

/*
 * As many as there are free slots: the rest wait in the listen backlog
 * (4096) until one frees, at the latest when a handshake times out.
 * Dropping the oldest for room, as this did, dropped most of a thousand
 * agents that connected while the coordinator was busy for a second or
 * two: an agent, once connected, gives the coordinator --timeout to answer.
 */
static void accept_agents(struct coord *co)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	struct pending *p;
	int fd;

	while ((p = pend_slot(co)) &&
	       (fd = accept4(co->lfd, (struct sockaddr *)&sa, &len, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		rdv_init(&p->c, fd);
		inet_ntop(AF_INET, &sa.sin_addr, p->from, sizeof(p->from));
		p->node = -1;
		p->deadline = rdv_ms() + co->cfg->probe.timeout_ms;
		len = sizeof(sa);
	}
}

static void pend_expire(struct coord *co)
{
	long now = rdv_ms();
	size_t i;

	for (i = 0; i < PENDING_MAX; i++)
		if (co->pend[i].c.fd >= 0 && now >= co->pend[i].deadline) {
			log_info(co->ctx, "an agent's handshake from %s timed out", co->pend[i].from);
			pend_drop(&co->pend[i]);
		}
}

/* ---- the loop ---- */

static void job_fail(struct cjob *j, enum link_cause cause, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void job_fail(struct cjob *j, enum link_cause cause, const char *fmt, ...)
{
	va_list ap;

	if (j->done)
		return;
	j->done = true;
	j->res.ok = false;
	j->res.cause = cause;
	va_start(ap, fmt);
	vsnprintf(j->res.why, sizeof(j->res.why), fmt, ap);
	va_end(ap);
}

static void node_gone(struct coord *co, uint32_t i, const char *why)
{
	struct cnode *nd = &co->nodes[i];
	size_t k;

	/* Once a signal stops the run, its agents end: that makes no node down. */
	if (nd->down || launch_stopped())
		return;
	nd->down = true;
	snprintf(nd->why, sizeof(nd->why), "%s", why);
	rdv_close(&nd->c);
	for (k = 0; k < co->njobs; k++)
		if (co->jobs[k].res.client == i || co->jobs[k].res.server == i)
			job_fail(&co->jobs[k], CAUSE_NODE_DOWN, "%s went down: %s", nd->name, why);
}

static enum link_cause cause_parse(const char *s)
{
	int c;

	for (c = CAUSE_NONE; c <= CAUSE_OTHER; c++)
		if (!strcmp(link_cause_name((enum link_cause)c), s))
			return (enum link_cause)c;
	return CAUSE_OTHER;
}

/* An agent's RESULT into the job; a malformed one is the link's failure, said as such. */
static void result_parse(struct cjob *j, const char *node, const char *text)
{
	struct json_object *o = json_tokener_parse(text), *ok;
	struct link_result *r = &j->res;

	if (!o || !json_object_object_get_ex(o, "ok", &ok) || !json_object_is_type(ok, json_type_boolean)) {
		job_fail(j, CAUSE_OTHER, "%s sent a result that is not one: '%.80s'", node, text);
		json_object_put(o);
		return;
	}
	j->done = true;
	r->ok = json_object_get_boolean(ok);
	r->gbps = jnum(o, "gbps", 0);
	r->lat_us = jnum(o, "lat_us", -1);
	r->retrans = (uint64_t)jnum(o, "retrans", 0);
	r->seq_err = (uint64_t)jnum(o, "seq_err", 0);
	r->cnp = (uint64_t)jnum(o, "cnp", 0);
	snprintf(r->dev, sizeof(r->dev), "%s", jstr_or(o, "dev", ""));
	if (!r->ok) {
		r->cause = cause_parse(jstr_or(o, "cause", ""));
		snprintf(r->why, sizeof(r->why), "%s", jstr_or(o, "why", ""));
	}
	if (r->ok && !(r->gbps >= 0 && r->gbps < 1e5))
		job_fail(j, CAUSE_OTHER, "%s sent an impossible rate", node);
	json_object_put(o);
}

static struct cjob *job_find(struct coord *co, uint32_t node, unsigned int rail, bool server)
{
	size_t k;

	for (k = 0; k < co->njobs; k++)
		if ((server ? co->jobs[k].res.server : co->jobs[k].res.client) == node &&
		    co->jobs[k].res.rail == rail)
			return &co->jobs[k];
	return NULL;
}

/* One line of agent @i. */
static void on_line(struct coord *co, uint32_t i, char *line)
{
	unsigned int step, rail;
	struct cjob *j;
	int off = 0;

	co->nodes[i].heard_ms = rdv_ms();
	if (!strcmp(line, "PONG"))
		return;
	if (sscanf(line, "READY %u %u", &step, &rail) == 2) {
		if (step == co->step && (j = job_find(co, i, rail, true)))
			j->ready = true;
		return;
	}
	if (sscanf(line, "RESULT %u %u %n", &step, &rail, &off) == 2 && off && step == co->step) {
		if ((j = job_find(co, i, rail, false)) && !j->done)
			result_parse(j, co->nodes[i].name, line + off);
		else if ((j = job_find(co, i, rail, true)))
			job_fail(j, CAUSE_OTHER, "the server on %s did not start", co->nodes[i].name);
	}
}

static void read_agent(struct coord *co, uint32_t i)
{
	static char line[RDV_LINE_MAX + 1];
	int ret = rdv_fill(&co->nodes[i].c);

	while (co->nodes[i].c.fd >= 0 && rdv_line(&co->nodes[i].c, line))
		on_line(co, i, line);
	if (ret)
		node_gone(co, i, ret == -EMSGSIZE ? "its agent sent a line too long"
						  : "its agent's connection closed (the node or the agent died)");
}

/* Keep-alives out, and silent agents declared gone. */
static void keepalive(struct coord *co)
{
	long now = rdv_ms();
	char why[128];
	uint32_t i;

	for (i = 0; i < co->n; i++) {
		if (!alive(co, i))
			continue;
		if (now - co->nodes[i].heard_ms > RDV_SILENCE_S * 1000L) {
			snprintf(why, sizeof(why), "it stopped answering (nothing for %d s)", RDV_SILENCE_S);
			node_gone(co, i, why);
		} else if (now - co->ping_ms >= RDV_PING_S * 1000L && rdv_send(&co->nodes[i].c, "PING")) {
			node_gone(co, i, "its agent's connection broke");
		}
	}
	if (now - co->ping_ms >= RDV_PING_S * 1000L)
		co->ping_ms = now;
}

/* One round of poll: up to @ms, for everything that may say something. */
static void pump(struct coord *co, int ms, bool accepting)
{
	struct pollfd *p = co->pfd;
	uint32_t *who = co->who, i;
	size_t n = 0, k;
	char drain[64];

	p[n++] = (struct pollfd){ .fd = co->wake[0], .events = POLLIN };
	/* Stopped by a signal: nothing the agents say counts now; only wait, for the launcher. */
	if (launch_stopped()) {
		if (poll(p, 1, ms) > 0 && read(co->wake[0], drain, sizeof(drain)) < 0) {
			/* it only wakes us */
		}
		return;
	}
	/* No free slot: the listener waits (fd -1 is left out of poll). */
	if (accepting)
		p[n++] = (struct pollfd){ .fd = pend_slot(co) ? co->lfd : -1, .events = POLLIN };
	for (i = 0; accepting && i < PENDING_MAX; i++)
		if (co->pend[i].c.fd >= 0) {
			who[n] = co->n + i;
			p[n++] = (struct pollfd){ .fd = co->pend[i].c.fd, .events = POLLIN };
		}
	for (i = 0; i < co->n; i++)
		if (alive(co, i)) {
			who[n] = i;
			p[n++] = (struct pollfd){ .fd = co->nodes[i].c.fd, .events = POLLIN };
		}
	if (poll(p, n, ms) > 0) {
		if (p[0].revents && read(co->wake[0], drain, sizeof(drain)) < 0) {
			/* nothing to do: it only wakes us */
		}
		for (k = 1 + accepting; k < n; k++) {
			if (!p[k].revents)
				continue;
			if (who[k] >= co->n)
				pend_read(co, &co->pend[who[k] - co->n]);
			else if (alive(co, who[k]))
				read_agent(co, who[k]);
		}
	}
	if (accepting) {
		pend_expire(co);
		accept_agents(co);
	}
	keepalive(co);
}

/* ---- a step ---- */

static unsigned int rail_port(const struct coord *co, unsigned int rail)
{
	return co->cfg->probe.port + rail;
}

/*
 * Node @i's own address on this machine's loopback (127.0.0.0/8 is all
 * this host's): under the local launcher every node's server listens on
 * the same port, each on its own address, 127.1.0.1 for the first.
 */
static void local_addr(uint32_t i, char *ip)
{
	struct in_addr a = { .s_addr = htonl(0x7f010001u + i) };

	inet_ntop(AF_INET, &a, ip, INET_ADDRSTRLEN);
}

/* Where a job's server listens and its client connects, and their devices. */
static void job_path(const struct coord *co, const struct cjob *j, const char **sdev,
		     const char **sbind, const char **cdev, const char **host)
{
	const struct cnode *s = &co->nodes[j->res.server], *c = &co->nodes[j->res.client];
	const char *dev = co->cfg->probe.dev[0] ? co->cfg->probe.dev : "-";

	if (local(co)) {
		*sdev = *cdev = dev;
		*sbind = *host = s->local_ip;
		return;
	}
	if (co->rails == 1) {
		/* One rail: the pair's path is the one the server's name routes to, as two nodes probe. */
		*sdev = *cdev = dev;
		*sbind = "-";
		*host = s->name;
		return;
	}
	*sdev = s->dev[j->res.rail];
	*sbind = *host = s->ip[j->res.rail];
	*cdev = c->dev[j->res.rail];
}

static int jobs_make(struct coord *co, const struct sched_step *st, uint32_t round)
{
	size_t k, n = 0;
	unsigned int r;

	free(co->jobs);
	co->njobs = 0;
	co->jobs = calloc(st->n * co->rails + 1, sizeof(*co->jobs));
	if (!co->jobs)
		return -ENOMEM;
	for (k = 0; k < st->n; k++)
		for (r = 0; r < co->rails; r++) {
			struct link_result *res = &co->jobs[n].res;

			if (!alive(co, st->pairs[k].client) || !alive(co, st->pairs[k].server))
				continue;
			*res = (struct link_result){ .client = st->pairs[k].client, .lat_us = -1,
						     .server = st->pairs[k].server, .rail = r, .round = round };
			n++;
		}
	co->njobs = n;
	return 0;
}

/* Pump until every job has @ready (or is done), or @ms passed. */
static void wait_jobs(struct coord *co, long ms, bool ready)
{
	long end = rdv_ms() + ms;
	size_t k;

	for (;;) {
		for (k = 0; k < co->njobs; k++)
			if (!co->jobs[k].done && !(ready && co->jobs[k].ready))
				break;
		if (k == co->njobs || rdv_ms() >= end || launch_stopped())
			return;
		pump(co, 200, false);
	}
}

static void send_or_gone(struct coord *co, uint32_t i, int ret)
{
	if (ret)
		node_gone(co, i, "its agent's connection broke");
}

static void start_servers(struct coord *co)
{
	const char *sdev, *sbind, *cdev, *host;
	size_t k;

	for (k = 0; k < co->njobs; k++) {
		struct cjob *j = &co->jobs[k];

		if (j->done || !alive(co, j->res.server))
			continue;
		job_path(co, j, &sdev, &sbind, &cdev, &host);
		send_or_gone(co, j->res.server, rdv_send(&co->nodes[j->res.server].c, "SERVE %u %u %u %s %s",
							 co->step, j->res.rail, rail_port(co, j->res.rail),
							 sdev, sbind));
	}
	wait_jobs(co, co->cfg->probe.timeout_ms + 5000L, true);
}

static void start_clients(struct coord *co)
{
	const char *sdev, *sbind, *cdev, *host;
	size_t k;

	for (k = 0; k < co->njobs; k++) {
		struct cjob *j = &co->jobs[k];

		if (j->done)
			continue;
		if (!j->ready) {
			job_fail(j, CAUSE_OTHER, "the server on %s did not start within %d s",
				 co->nodes[j->res.server].name, co->cfg->probe.timeout_ms / 1000 + 5);
			continue;
		}
		job_path(co, j, &sdev, &sbind, &cdev, &host);
		send_or_gone(co, j->res.client, rdv_send(&co->nodes[j->res.client].c, "CLIENT %u %u %u %s %s",
							 co->step, j->res.rail, rail_port(co, j->res.rail),
							 cdev, host));
	}
}

/* How long a step's tests may take before their clients count as stuck. */
static long step_budget_ms(const struct coord *co)
{
	const struct coord_cfg *c = co->cfg;
	double s = c->timed ? 3 * c->test_s + 30 : 600;

	return (long)(s * 1000) + 2L * c->probe.timeout_ms;
}

static int run_step(struct coord *co, const struct sched_step *st, uint32_t round)
{
	size_t k;
	uint32_t i;
	int ret;

	co->step++;
	ret = jobs_make(co, st, round);
	if (ret)
		return ret;
	start_servers(co);
	if (!launch_stopped())
		start_clients(co);
	wait_jobs(co, step_budget_ms(co), false);
	/* A step cut short is not done: none of its results count, --from runs it again. */
	if (launch_stopped())
		return -EINTR;
	for (k = 0; k < co->njobs; k++)
		job_fail(&co->jobs[k], CAUSE_TIMEOUT, "no result within %ld s", step_budget_ms(co) / 1000);
	for (i = 0; i < co->n; i++)
		if (alive(co, i))
			send_or_gone(co, i, rdv_send(&co->nodes[i].c, "END %u", co->step));
	for (k = 0; k < co->njobs && !ret; k++)
		ret = linkmap_add(&co->map, &co->jobs[k].res);
	return ret;
}

/* On a terminal: the step, and the time left at the pace of the steps so far. */
static void progress(struct coord *co, uint32_t round, bool retest)
{
	co->steps.total = co->steps_total;
	progress_show(&co->steps, co->steps_done, "%s step %u of %u (round %u)",
		      retest ? "retest" : "probe", co->steps_done + 1, co->steps_total, round);
	co->steps_done++;
}

static void downs_to_map(struct coord *co);
static void checkpoint(struct coord *co, bool now);

/* The stepper's step (stepper.h): one step through the agents. */
static int agents_step(void *arg, const struct sched_step *st, uint32_t round)
{
	struct coord *co = arg;
	int ret;

	progress(co, st->round, !round);
	ret = run_step(co, st, round);
	/* A node gone explains its links: no retest of them. */
	downs_to_map(co);
	if (ret)
		return ret;
	if (round)
		co->main_done++;
	else
		co->retest_steps++;
	/* Saved now and then, and at once after the schedule's last step. */
	checkpoint(co, round && co->main_done == co->sched->n);
	return 0;
}

static void agents_more(void *arg, size_t n)
{
	struct coord *co = arg;

	progress_end(&co->steps);
	fprintf(stderr, "rdmactl probe: %zu more step(s): the ends of slow or failed links "
		"against a node known good\n", n);
	co->steps_total += (unsigned int)n;
}

/* ---- the run ---- */

static bool launch_over(struct coord *co)
{
	bool done;

	pthread_mutex_lock(&co->mu);
	done = co->launch_done;
	pthread_mutex_unlock(&co->mu);
	return done;
}

/* True when node @i can no longer join: the launcher said it failed, or is over. */
static bool lost(struct coord *co, uint32_t i)
{
	bool l;

	pthread_mutex_lock(&co->mu);
	l = co->nodes[i].launch_why[0] || co->launch_done;
	pthread_mutex_unlock(&co->mu);
	return l;
}

/* Every node's agent joins, fails to start, or runs out of --node-timeout. */
static void gather(struct coord *co)
{
	long end = rdv_ms() + co->cfg->launch.node_timeout * 1000L;
	uint32_t i, waiting;

	do {
		pump(co, 200, true);
		for (i = waiting = 0; i < co->n; i++)
			waiting += !co->nodes[i].joined && !lost(co, i);
	} while (waiting && rdv_ms() < end && !launch_stopped());
	for (i = 0; i < co->n && !launch_stopped(); i++)
		if (!co->nodes[i].joined && !co->nodes[i].down) {
			co->nodes[i].down = true;
			snprintf(co->nodes[i].why, sizeof(co->nodes[i].why),
				 "its agent did not reach this host at %s within %u s (--node-timeout; a "
				 "firewall? see --rendezvous)", co->addr, co->cfg->launch.node_timeout);
		}
}

/* Rails every node has (at most --rails); one when any node has no addressed port. */
static unsigned int rails_common(struct coord *co)
{
	unsigned int r = RAILS_MAX;
	uint32_t i;

	/* Local nodes share this machine's ports: one rail, each node its own address. */
	if (co->cfg->probe.dev[0] || local(co))
		return 1;
	for (i = 0; i < co->n; i++)
		if (alive(co, i) && co->nodes[i].nports < r)
			r = co->nodes[i].nports;
	if (co->cfg->rails && co->cfg->rails < r)
		r = co->cfg->rails;
	if (co->cfg->rails > r && r != RAILS_MAX)
		log_warn(co->ctx, "--rails %u: some node has only %u active RDMA port(s) with an IPv4 "
			 "address; probing %u", co->cfg->rails, r, r ? r : 1);
	return r && r != RAILS_MAX ? r : 1;
}

static int schedule_for(struct coord *co, struct schedule *s)
{
	char err[512], *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (!co->cfg->pairs_file && co->cfg->topo && co->cfg->pattern == PATTERN_TRIAGE)
		return triage_topo_make(co->n, co->cfg->topo, s);
	if (!co->cfg->pairs_file)
		return schedule_make(co->cfg->pattern, co->n, s);
	f = fopen(co->cfg->pairs_file, "re");
	if (!f || getdelim(&text, &len, '\0', f) < 0) {
		ret = -errno ? -errno : -EIO;
		log_err(co->ctx, "Failed to read --pairs '%s': %s", co->cfg->pairs_file,
			f ? "empty" : strerror(-ret));
		if (f)
			fclose(f);
		free(text);
		return -EINVAL;
	}
	fclose(f);
	ret = schedule_parse(text, co->cfg->pairs_file, co->names, co->n, s, err, sizeof(err));
	if (ret)
		log_err(co->ctx, "Failed to read --pairs: %s", err);
	free(text);
	return ret;
}

/* A run estimated longer than this is a mistake (a --pairs file of 400 000 rounds). */
#define RUN_MAX_S (24 * 3600)

/* About how long @s takes once the agents have joined, s. */
static double run_s(const struct coord *co, const struct schedule *s)
{
	return (double)s->n * (co->cfg->test_s + 1);
}

/* A schedule longer than RUN_MAX_S is refused before anything starts: -EINVAL (said). */
static int too_long(struct coord *co, const struct schedule *s)
{
	if (run_s(co, s) <= RUN_MAX_S)
		return 0;
	log_err(co->ctx, "Failed to run %s '%s': %u round(s), %zu step(s) of about %.1f s would take "
		"about %.0f hours, over the %d hours a run may take; split the schedule or shorten "
		"the tests (-D, -n, sizes)", co->cfg->pairs_file ? "--pairs" : "--pattern",
		co->cfg->pairs_file ? co->cfg->pairs_file : pattern_name(co->cfg->pattern),
		s->rounds, s->n, co->cfg->test_s + 1, run_s(co, s) / 3600, RUN_MAX_S / 3600);
	return -EINVAL;
}

/* Before starting: what will run, and about how long it takes. */
static void estimate(struct coord *co, const struct schedule *s)
{
	size_t k, tests = 0;

	for (k = 0; k < s->n; k++)
		tests += s->steps[k].n;
	fprintf(stderr, "rdmactl probe: %u nodes, %s: %u round(s), %zu step(s), %zu tests; about %.0f s "
		"(%zu steps of %.1f s) after the launcher has started the agents\n", co->n,
		co->cfg->pairs_file ? "pairs from --pairs" : pattern_name(co->cfg->pattern), s->rounds,
		s->n, tests, run_s(co, s), s->n, co->cfg->test_s + 1);
	if (co->cfg->from)
		fprintf(stderr, "rdmactl probe: resumed (--from): %zu link(s) of the saved run carried "
			"over, %zu of its links to test again, %u of its nodes in this run\n",
			co->cfg->from->ncarry, co->cfg->from->reopened, co->cfg->from->common);
}

static uint32_t joined(const struct coord *co)
{
	uint32_t i, n = 0;

	for (i = 0; i < co->n; i++)
		n += co->nodes[i].joined;
	return n;
}

static void say_bye(struct coord *co)
{
	long end;
	uint32_t i;

	for (i = 0; i < co->n; i++) {
		if (alive(co, i) && rdv_send(&co->nodes[i].c, "BYE"))
			node_gone(co, i, "its agent's connection broke");
		rdv_close(&co->nodes[i].c);
	}
	/*
	 * Every agent ends on BYE or on the closed connection; the launcher
	 * then returns.  Without one agent there is nothing to wait for.
	 */
	end = rdv_ms() + (joined(co) ? 15000 : 0);
	while (!launch_over(co) && rdv_ms() < end)
		pump(co, 200, false);
	if (!launch_over(co))
		launch_abort();
	pthread_join(co->thread, NULL);
	co->launched = false;
}

static void downs_to_map(struct coord *co)
{
	uint32_t i;

	for (i = 0; i < co->n; i++) {
		struct cnode *nd = &co->nodes[i];
		char why[1100];

		if (!nd->down)
			continue;
		if (nd->launch_why[0] && !nd->joined)
			snprintf(why, sizeof(why), "%s", nd->launch_why);
		else if (nd->launch_why[0])
			snprintf(why, sizeof(why), "%s; %s", nd->why, nd->launch_why);
		else
			snprintf(why, sizeof(why), "%s", nd->why);
		linkmap_node_down(&co->map, i, why);
	}
}

/* The agents' command: rdmactl probe --agent ADDR:PORT and the test's options. */
static char **agent_argv(struct coord *co)
{
	size_t n = 0, k = 0;
	char **argv;

	while (co->cfg->test_args && co->cfg->test_args[n])
		n++;
	argv = calloc(n + 5, sizeof(*argv));
	if (!argv)
		return NULL;
	argv[k++] = (char *)launch_rdmactl(co->cfg->launch.launcher, co->cfg->rdmactl);
	argv[k++] = "probe";
	argv[k++] = "--agent";
	argv[k++] = co->addr;
	memcpy(argv + k, co->cfg->test_args, n * sizeof(*argv));
	return argv;
}

static int start(struct coord *co, char **argv)
{
	int ret;

	co->launch = co->cfg->launch;
	co->launch.argv = argv;
	co->launch.input = co->token;
	/* Every agent runs for the whole run: all at once, and ended by the coordinator. */
	co->launch.fanout = co->n;
	co->launch.node_timeout = 86400;
	/* A signal ends the agents, then the run here: its steps done saved first. */
	co->launch.keep_signal = true;
	ret = pthread_create(&co->thread, NULL, launch_thread, co);
	if (ret)
		return -ret;
	co->launched = true;
	return 0;
}

static double since(long t0)
{
	return (double)(rdv_ms() - t0) / 1000;
}

/* "SIGINT" for SIGINT. */
static const char *sig_name(int sig, char *buf, size_t len)
{
	snprintf(buf, len, "SIG%s", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	return buf;
}

/* Tests of the schedule's steps not done yet (on every rail). */
static size_t tests_left(const struct coord *co)
{
	struct schedule rest = { .steps = co->sched->steps + co->main_done,
				 .n = co->sched->n - co->main_done };

	return schedule_tests(&rest, co->rails);
}

/*
 * The run's facts, as -j and --save have them.  @complete: the run ended
 * (its retests too); else @sig, the signal that stopped it (0: it was
 * still running when saved).
 */
static struct json_object *run_json(struct coord *co, bool complete, int sig)
{
	struct json_object *o = json_object_new_object(), *names = json_object_new_array();
	const struct schedule *s = co->sched;
	double probe_s = co->probe_t0 ? since(co->probe_t0) : 0;
	char signame[32];
	uint32_t i;

	row_str(o, "launcher", launcher_name(co->cfg->launch.launcher));
	row_str(o, "pattern", co->cfg->pairs_file ? "file" : pattern_name(co->cfg->pattern));
	/* --topology: the tree, which the report draws with the switch findings marked. */
	if (co->cfg->topo)
		json_object_object_add(o, "topology", topology_json(co->cfg->topo, co->names));
	row_int(o, "nodes", co->n);
	row_int(o, "joined", joined(co));
	/* The rails of the document's links: a saved run's too (map_start()). */
	row_int(o, "rails", co->map.rails > co->rails ? co->map.rails : co->rails);
	row_int(o, "rounds", s->rounds);
	row_int(o, "steps", (int64_t)s->n);
	row_int(o, "retest_steps", (int64_t)co->retest_steps);
	row_double(o, "start_s", co->join_s, 1);
	row_double(o, "probe_s", probe_s, 1);
	row_double(o, "round_s", s->rounds ? probe_s / s->rounds : 0, 1);
	row_str(o, "version", RDMACTL_VERSION);
	/* When: a report dates each run by these; ended is null while it goes. */
	row_time(o, "started", co->started);
	row_time(o, "ended", complete || sig ? time(NULL) : 0);
	/* Whether it ended, and what a later --from finds still open. */
	row_bool(o, "complete", complete);
	row_str(o, "stopped", sig ? sig_name(sig, signame, sizeof(signame)) : NULL);
	row_int(o, "steps_done", co->main_done);
	row_int(o, "tests_left", (int64_t)tests_left(co));
	row_int(o, "carried", co->cfg->from ? (int64_t)co->cfg->from->ncarry : 0);
	/* The nodes in the hostlist's order: a report draws its matrix in it. */
	for (i = 0; names && i < co->n; i++)
		json_object_array_add(names, json_object_new_string(co->names[i]));
	if (o && names)
		json_object_object_add(o, "names", names);
	else
		json_object_put(names);
	return o;
}

/*
 * The run ended, every step of its schedule run: a run no agent joined,
 * or one whose launcher failed before a step, did not (and a --from of
 * it runs them again).
 */
static bool finished(const struct coord *co)
{
	return co->main_done == co->sched->n;
}

/* The run's facts for -j, and the times of its rounds for text. */
static void run_info(struct coord *co)
{
	const struct schedule *s = co->sched;
	struct json_object *o = run_json(co, finished(co), 0);
	double probe_s = co->probe_t0 ? since(co->probe_t0) : 0;
	uint32_t n = joined(co);

	co->run = json_object_get(o);
	json_attach(co->ctx, "run", o);
	if (!n) {
		print_text(co->ctx, "0 of %u nodes joined in %.1f s through %s: no round ran\n", co->n,
			   co->join_s, launcher_name(co->cfg->launch.launcher));
		return;
	}
	print_text(co->ctx, "%u of %u nodes joined in %.1f s through %s; %u round(s) in %.1f s (%.1f s a "
		   "round), %zu retest step(s), %u rail(s)\n", n, co->n, co->join_s,
		   launcher_name(co->cfg->launch.launcher), s->rounds, probe_s,
		   s->rounds ? probe_s / s->rounds : 0, co->retest_steps, co->rails);
	if (co->cfg->from)
		print_text(co->ctx, "%zu link(s) carried over from the saved run (--from), measured "
			   "then; %zu of its links tested again\n", co->cfg->from->ncarry,
			   co->cfg->from->reopened);
}

/* --save: the run as it stands, now (@now) or when the spacing allows. */
static void checkpoint(struct coord *co, bool now)
{
	struct json_object *run;

	if (!co->cfg->save || (!now && !runsave_due(&co->save)))
		return;
	run = run_json(co, false, launch_stopped());
	if (run)
		runsave_write(&co->save, &co->map, run);
	json_object_put(run);
}

/* A signal stopped the run: what is kept, and how to go on. */
static void say_stopped(struct coord *co)
{
	char name[32];

	sig_name(launch_stopped(), name, sizeof(name));
	if (co->cfg->save && !co->save.err)
		fprintf(stderr, "rdmactl probe: stopped by %s after %u of %zu step(s); the steps done are "
			"in '%s': --from it runs the rest\n", name, co->main_done, co->sched->n,
			co->cfg->save);
	else
		fprintf(stderr, "rdmactl probe: stopped by %s after %u of %zu step(s)%s\n", name,
			co->main_done, co->sched->n, co->cfg->save ? "" : " (--save FILE keeps "
			"the steps done of a run cut short)");
}

/* Stopped by a signal: the steps done saved, marked so; -EINTR. */
static int stopped(struct coord *co)
{
	checkpoint(co, true);
	say_stopped(co);
	return -EINTR;
}

static int coord_init(struct coord *co, struct ctx *ctx, const struct hostlist *nodes,
		      struct coord_cfg *cfg)
{
	uint32_t i;

	*co = (struct coord){ .ctx = ctx, .cfg = cfg, .n = (uint32_t)nodes->n, .names = nodes->names,
			      .lfd = -1, .wake = { -1, -1 }, .started = time(NULL) };
	pthread_mutex_init(&co->mu, NULL);
	co->nodes = calloc(co->n, sizeof(*co->nodes));
	co->pend = calloc(PENDING_MAX, sizeof(*co->pend));
	for (i = 0; co->pend && i < PENDING_MAX; i++)
		co->pend[i].c.fd = -1;
	for (i = 0; co->nodes && i < co->n; i++)
		co->nodes[i].c.fd = -1;
	co->pfd = calloc(co->n + PENDING_MAX + 2, sizeof(*co->pfd));
	co->who = calloc(co->n + PENDING_MAX + 2, sizeof(*co->who));
	if (!co->nodes || !co->pend || !co->pfd || !co->who ||
	    pipe2(co->wake, O_CLOEXEC | O_NONBLOCK) || rdv_token(co->token))
		return -ENOMEM;
	for (i = 0; i < co->n; i++) {
		co->nodes[i].name = nodes->names[i];
		co->nodes[i].c.fd = -1;
		local_addr(i, co->nodes[i].local_ip);
	}
	return 0;
}

static void coord_free(struct coord *co)
{
	uint32_t i;

	for (i = 0; co->nodes && i < co->n; i++)
		rdv_close(&co->nodes[i].c);
	for (i = 0; co->pend && i < PENDING_MAX; i++)
		pend_drop(&co->pend[i]);
	free(co->pend);
	free(co->pfd);
	free(co->who);
	if (co->lfd >= 0)
		close(co->lfd);
	if (co->wake[0] >= 0)
		close(co->wake[0]), close(co->wake[1]);
	free(co->nodes);
	free(co->jobs);
	linkmap_free(&co->map);
	json_object_put(co->run);
	pthread_mutex_destroy(&co->mu);
	explicit_bzero(co->token, sizeof(co->token));
}

/* No round can run: said once, with the nodes; each one's cause is in the findings. */
static void none_joined(const struct coord *co)
{
	char *list = NULL;

	if (hostlist_fold((const char *const *)co->names, co->n, &list))
		list = NULL;
	log_err(co->ctx, "Failed to probe: no agent joined, of %s; no round ran (each node's cause "
		"is in the findings)", list ? list : "the nodes");
	free(list);
}

/* The map, with what a saved run carries over (--from). */
static int map_start(struct coord *co)
{
	struct resume *rs = co->cfg->from;

	/* The saved run's links on a rail this run lacks are kept all the same. */
	linkmap_init(&co->map, co->names, co->n, rs && rs->rails > co->rails ? rs->rails : co->rails,
		     co->cfg->slow);
	co->map.topo = co->cfg->topo;
	if (!rs)
		return 0;
	if (co->rails != rs->rails)
		log_warn(co->ctx, "the saved run (--from) probed %u rail(s), this one %u: the links it "
			 "carries over are not measured on the others", rs->rails, co->rails);
	return resume_carry(rs, &co->map);
}

/* Start the agents, run @s and the retests, end the agents; the link map filled. */
static int drive(struct coord *co, const struct schedule *s, char **argv)
{
	struct stepper sp = { .step = agents_step, .more = agents_more, .arg = co, .map = &co->map };
	long t0 = rdv_ms();
	size_t rsteps = 0;
	int ret = start(co, argv);

	if (ret) {
		log_err(co->ctx, "Failed to start the launcher: %s", strerror(-ret));
		return ret;
	}
	gather(co);
	co->join_s = since(t0);
	co->rails = rails_common(co);
	ret = map_start(co);
	co->steps_total = (unsigned int)s->n;
	progress_init(&co->steps, co->steps_total);
	co->probe_t0 = rdv_ms();
	downs_to_map(co);
	checkpoint(co, true);
	if (!ret && !launch_stopped() && joined(co))
		ret = stepper_run(&sp, s, co->cfg->retest, &rsteps);
	else if (!ret && !launch_stopped())
		none_joined(co);
	progress_end(&co->steps);
	say_bye(co);
	downs_to_map(co);
	if (launch_stopped())
		return stopped(co);
	if (!ret)
		run_info(co);
	return ret;
}

int coord_run(struct ctx *ctx, const struct hostlist *nodes, struct coord_cfg *cfg)
{
	struct schedule s = { 0 };
	struct coord co;
	char **argv = NULL;
	int ret;

	ret = coord_init(&co, ctx, nodes, cfg);
	if (ret)
		log_err(ctx, "Failed to start the cluster probe: %s", strerror(-ret));
	if (!ret)
		ret = schedule_for(&co, &s);
	/* Resumed: only what the saved run left open. */
	if (!ret && cfg->from)
		ret = resume_filter(cfg->from, &s);
	if (!ret)
		ret = too_long(&co, &s);
	if (!ret)
		ret = rdv_listen(&co);
	if (!ret && !(argv = agent_argv(&co)))
		ret = -ENOMEM;
	if (!ret) {
		estimate(&co, &s);
		co.sched = &s;
		co.save = (struct runsave){ .ctx = ctx, .path = cfg->save };
		ret = drive(&co, &s, argv);
	}
	if (!ret)
		ret = linkmap_analyse(&co.map);
	/* A signal after the last step, before the report: stopped all the same. */
	if (!ret && launch_stopped())
		ret = stopped(&co);
	if (!ret)
		ret = linkmap_print(ctx, &co.map);
	/* The complete document, as -j has it. */
	if (ret >= 0 && cfg->save && co.run && runsave_write(&co.save, &co.map, co.run))
		ret = -EIO;
	if (ret >= 0 && cfg->done) {
		int dret = cfg->done(cfg->done_arg, &co.map, co.run);

		ret = dret ? dret : ret;
	}
	if (co.launched)
		say_bye(&co);
	free(argv);
	schedule_free(&s);
	coord_free(&co);
	return ret;
}
