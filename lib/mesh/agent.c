// SPDX-License-Identifier: MIT
/*
 * The cluster probe's agent (agent.h).  One poll loop over the
 * coordinator's connection and the pipes of the tests it started; each
 * test is a child process running the two-node probe's client or
 * --once server, whose one-line JSON result the loop passes on.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <json-c/json.h>
#include <netdb.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/signals.h"
#include "base/text.h"
#include "launch/launch.h"
#include "mesh/agent.h"
#include "mesh/linkmap.h"
#include "mesh/rdv.h"
#include "node/hwcnt.h"
#include "node/rdma.h"
#include "node/rdma_load.h"
#include "probe/probe.h"
#include "probe/probe_auth.h"
#include "probe/probe_ctl.h"

#define AGENT_JOBS	32	/* rails (at most 16) x both roles */

struct job {
	pid_t pid;
	unsigned int step, rail;
	bool server;
	int out;		/* result (client) or ready byte (server) */
};

struct agent {
	struct ctx *ctx;
	const struct probe_cfg *cfg;
	char token[PROBE_TOKEN_MAX + 1];
	struct rdv_conn c;
	struct job jobs[AGENT_JOBS];
	long heard_ms;		/* last line from the coordinator */
};

/* ---- before the rendezvous ---- */

/* The run's token: the first line of stdin, within --timeout. */
static int read_token(struct agent *a)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	ssize_t n;
	size_t len = 0;

	if (isatty(STDIN_FILENO)) {
		log_err(a->ctx, "Failed to start the agent: it reads the run's token on stdin; "
			"`rdmactl probe -w HOSTLIST` starts it on every node");
		return -EINVAL;
	}
	while (len < sizeof(a->token) - 1 && !memchr(a->token, '\n', len)) {
		if (poll(&p, 1, a->cfg->timeout_ms) <= 0)
			break;
		n = read(STDIN_FILENO, a->token + len, sizeof(a->token) - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	a->token[len] = '\0';
	a->token[strcspn(a->token, "\n")] = '\0';
	if (!probe_token_ok(a->token)) {
		log_err(a->ctx, "Failed to start the agent: no token on stdin (the first line)");
		return -EINVAL;
	}
	return 0;
}

/* The IPv4 address of @netdev into @ip; 0 or -ENOENT. */
static int netdev_ip4(const struct ifaddrs *ifs, const char *netdev, char *ip, size_t len)
{
	const struct ifaddrs *i;

	for (i = ifs; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !strcmp(i->ifa_name, netdev)) {
			inet_ntop(AF_INET, &((const struct sockaddr_in *)i->ifa_addr)->sin_addr, ip,
				  (socklen_t)len);
			return 0;
		}
	return -ENOENT;
}

/* "rxe0/1=10.99.0.1,rxe1/1=10.99.1.1": active ports with an IPv4 address, "-" for none. */
static void ports_word(struct agent *a, char *out, size_t len)
{
	struct rdma_node node = { 0 };
	struct ifaddrs *ifs = NULL;
	size_t d, off = 0;
	unsigned int p;
	char ip[64];

	snprintf(out, len, "-");
	if (rdma_node_load(a->ctx, &node, RDMA_LOAD_PORTS) || getifaddrs(&ifs)) {
		rdma_node_free(&node);
		return;
	}
	for (d = 0; d < node.n; d++)
		for (p = 0; node.devs[d].ports && p < node.devs[d].nports; p++) {
			const struct rdma_port *pt = &node.devs[d].ports[p];

			if (pt->state != 4 || !pt->netdev[0] || netdev_ip4(ifs, pt->netdev, ip, sizeof(ip)))
				continue;
			off += (size_t)snprintf(out + off, off < len ? len - off : 0, "%s%s/%u=%s",
						off ? "," : "", node.devs[d].name, pt->num, ip);
		}
	freeifaddrs(ifs);
	rdma_node_free(&node);
}

/*
 * The name the coordinator knows this node by: the local launcher's,
 * else Slurm's, else the host name.
 */
static void node_name(char *name, size_t len)
{
	const char *given = getenv(LAUNCH_NODE_ENV);

	if (!given || !*given)
		given = getenv("SLURMD_NODENAME");
	if (given && *given && !strpbrk(given, " \t\n"))
		snprintf(name, len, "%s", given);
	else if (gethostname(name, len))
		snprintf(name, len, "unknown");
	name[strcspn(name, " \t\n")] = '\0';
}

/* "HOST:PORT" into @host and @port; 0 or -EINVAL (said). */
static int split_addr(const struct ctx *ctx, const char *rdv, char *host, size_t len,
		      uint16_t *port)
{
	const char *colon = strrchr(rdv, ':');
	long p;

	if (!colon || colon == rdv || (size_t)(colon - rdv) >= len ||
	    parse_long(colon + 1, 1, 65535, &p)) {
		log_err(ctx, "Failed to parse --agent '%s': expected HOST:PORT", rdv);
		return -EINVAL;
	}
	snprintf(host, len, "%.*s", (int)(colon - rdv), rdv);
	*port = (uint16_t)p;
	return 0;
}

int agent_check(const struct ctx *ctx, const char *rdv)
{
	struct addrinfo *res;
	char host[256];
	uint16_t port;
	int gai, err;

	if (split_addr(ctx, rdv, host, sizeof(host), &port))
		return -EINVAL;
	gai = ctl_resolve(host, port, false, &res);
	if (!gai) {
		freeaddrinfo(res);
		return 0;
	}
	err = gai == EAI_SYSTEM ? errno : 0;
	log_err(ctx, "Failed to reach the coordinator at --agent '%s': cannot resolve '%s': %s", rdv,
		host, err ? strerror(err) : gai_strerror(gai));
	/* A resolver that could not answer is worth a retry; a name that is not is bad input. */
	if (gai == EAI_AGAIN || gai == EAI_MEMORY || gai == EAI_SYSTEM)
		return err ? -err : -EAGAIN;
	return -EINVAL;
}

/* "HOST:PORT" -> connected; 0 or -errno (said). */
static int rdv_connect(struct agent *a, const char *rdv)
{
	char host[256];
	struct probe_ctl ctl;
	uint16_t port;
	int ret;

	if (split_addr(a->ctx, rdv, host, sizeof(host), &port))
		return -EINVAL;
	ret = ctl_connect(host, port, a->cfg->timeout_ms, &ctl);
	if (ret) {
		log_err(a->ctx, "Failed to reach the coordinator at %s: %s", rdv, strerror(-ret));
		return ret;
	}
	rdv_init(&a->c, ctl.fd);
	return 0;
}

/* The coordinator's answer in the handshake: 0, or -ETIMEDOUT after --timeout, -ECONNRESET... */
static int wait_answer(struct agent *a, char *line)
{
	int ret = rdv_wait_line(&a->c, line, a->cfg->timeout_ms);

	return ret == 1 ? 0 : ret;
}

/* HELLO, CHALLENGE, AUTH, WELCOME; 0 or -errno (said). */
static int handshake(struct agent *a)
{
	uint8_t an[PROBE_NONCE_LEN], cn[PROBE_NONCE_LEN];
	char name[256], ports[2048], hex[RDV_HEX_LEN + 1], line[RDV_LINE_MAX + 1];
	char cnh[RDV_HEX_LEN + 1], mac[RDV_HEX_LEN + 1];
	int ret;

	node_name(name, sizeof(name));
	ports_word(a, ports, sizeof(ports));
	if (probe_auth_nonce(an))
		return -EIO;
	rdv_hex(an, sizeof(an), hex);
	ret = rdv_send(&a->c, "HELLO %d %s %s %s", RDV_PROTO, name, hex, ports);
	if (!ret)
		ret = wait_answer(a, line);
	if (!ret && (sscanf(line, "CHALLENGE %64s %64s", cnh, mac) != 2 ||
		     rdv_unhex(cnh, cn, sizeof(cn)) || !rdv_mac_ok(a->token, an, cn, mac)))
		ret = -EACCES;
	if (!ret)
		ret = rdv_mac_hex(a->token, cn, an, mac) ?: rdv_send(&a->c, "AUTH %s", mac);
	if (!ret)
		ret = wait_answer(a, line) ?: strncmp(line, "WELCOME ", 8) ? -EACCES : 0;
	if (ret == -ETIMEDOUT)
		log_err(a->ctx, "Failed to join the cluster probe as %s: the coordinator did not answer "
			"within %g s (--timeout)", name, a->cfg->timeout_ms / 1000.0);
	else if (ret)
		log_err(a->ctx, "Failed to join the cluster probe as %s: %s", name,
			ret == -EACCES ? "the coordinator refused us or did not prove the token" :
			ret == -ECONNRESET ? "the coordinator closed the connection" : strerror(-ret));
	a->heard_ms = rdv_ms();
	return ret;
}

/* ---- one test, in a child ---- */

struct capture {
	double gbps, lat_us;
	char dev[80];
	unsigned int mtu, peer_mtu;	/* the ends' active MTUs; 0 before they were told */
	uint64_t retrans, seq_err, cnp;
};

static void cap_setup(struct probe_report *r, const struct probe_summary *s)
{
	struct capture *c = r->arg;

	if (s->local.dev[0])
		snprintf(c->dev, sizeof(c->dev), "%s/%u", s->local.dev, s->local.port_num);
	c->mtu = s->local.mtu;
	c->peer_mtu = s->remote.mtu;
}

static void cap_row(struct probe_report *r, const struct probe_row *row)
{
	struct capture *c = r->arg;

	if (row->avg_gbps > c->gbps)
		c->gbps = row->avg_gbps;
	if (c->lat_us < 0 && row->lat_med_us >= 0)
		c->lat_us = row->lat_med_us;
}

/* Counters that point at loss, by their names' families (hwcnt.h). */
static void cap_counters(struct probe_report *r, const char *dev, unsigned int port,
			 const struct hwcnt *grew)
{
	struct capture *c = r->arg;
	unsigned int i;

	(void)dev;
	(void)port;
	for (i = 0; i < grew->n; i++) {
		const char *n = grew->c[i].name;

		if (strstr(n, "cnp"))
			c->cnp += grew->c[i].value;
		else if (strstr(n, "seq"))
			c->seq_err += grew->c[i].value;
		else if (strstr(n, "retr") || strstr(n, "timeout"))
			c->retrans += grew->c[i].value;
	}
}

static void cap_end(struct probe_report *r, const char *peer, int err)
{
	(void)r;
	(void)peer;
	(void)err;
}

static void result_line(int fd, const struct capture *c, int err)
{
	struct json_object *o = json_object_new_object();
	char why[256] = "";
	enum link_cause cause;
	int e = 0;
	const char *s;

	json_object_object_add(o, "ok", json_object_new_boolean(!err));
	if (err) {
		if (!log_last_error(why, sizeof(why), &e))
			snprintf(why, sizeof(why), "%s", strerror(-err));
		cause = link_cause_of(err, why, c->mtu, c->peer_mtu);
		json_object_object_add(o, "cause", json_object_new_string(link_cause_name(cause)));
		json_object_object_add(o, "why", json_object_new_string(why));
	} else {
		json_object_object_add(o, "gbps", json_object_new_double(c->gbps));
		json_object_object_add(o, "lat_us", json_object_new_double(c->lat_us));
	}
	json_object_object_add(o, "dev", json_object_new_string(c->dev));
	json_object_object_add(o, "retrans", json_object_new_int64((int64_t)c->retrans));
	json_object_object_add(o, "seq_err", json_object_new_int64((int64_t)c->seq_err));
	json_object_object_add(o, "cnp", json_object_new_int64((int64_t)c->cnp));
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	/* One write, under PIPE_BUF: the agent reads the line whole. */
	if (dprintf(fd, "%.4000s\n", s) < 0)
		_exit(1);
	json_object_put(o);
}

static void quiet_stderr(void)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (null >= 0) {
		dup2(null, STDERR_FILENO);
		close(null);
	}
}

/* In the child: the test of one job; never returns. */
static void job_child(struct agent *a, struct probe_cfg *cfg, const char *host, int fd)
{
	struct capture cap = { .lat_us = -1 };
	struct probe_report rep = { .setup = cap_setup, .row = cap_row, .counters = cap_counters,
				    .end = cap_end, .arg = &cap };
	int ret;

	signals_ignore_pipe();
	/*
	 * The test's lines on stderr (the server's "listening on") would be
	 * taken by the launcher for the node's last word; its failure goes
	 * into the result instead (log_last_error()).
	 */
	quiet_stderr();
	log_last_error_clear();
	cfg->token = a->token;
	if (!host) {
		cfg->once = true;
		cfg->ready_fd = fd;
		_exit(probe_server(a->ctx, cfg, &rep) ? 1 : 0);
	}
	ret = probe_client(a->ctx, host, cfg, &rep);
	result_line(fd, &cap, ret);
	_exit(0);
}

static struct job *job_slot(struct agent *a)
{
	size_t i;

	for (i = 0; i < AGENT_JOBS; i++)
		if (!a->jobs[i].pid)
			return &a->jobs[i];
	return NULL;
}

/* Start a server (@host NULL) or a client job; its failure is reported as the job's. */
static int job_start(struct agent *a, unsigned int step, unsigned int rail, unsigned int port,
		     const char *dev, const char *bind, const char *host)
{
	struct probe_cfg cfg = *a->cfg;
	struct job *j = job_slot(a);
	int fds[2];

	if (!j || pipe2(fds, O_CLOEXEC))
		return -ENOMEM;
	cfg.port = (uint16_t)port;
	cfg.bind = strcmp(bind, "-") ? bind : NULL;
	if (strcmp(dev, "-") && rdma_parse_devport(dev, cfg.dev, sizeof(cfg.dev), &cfg.ib_port))
		cfg.dev[0] = '\0';
	fflush(NULL);
	j->pid = fork();
	if (j->pid == 0) {
		close(fds[0]);
		job_child(a, &cfg, host, fds[1]);
	}
	close(fds[1]);
	if (j->pid < 0) {
		j->pid = 0;
		close(fds[0]);
		return -errno;
	}
	*j = (struct job){ .pid = j->pid, .step = step, .rail = rail, .server = !host, .out = fds[0] };
	return 0;
}

static void job_end(struct job *j)
{
	if (!j->pid)
		return;
	kill(j->pid, SIGKILL);
	while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(j->out);
	j->pid = 0;
}

/* ---- the loop ---- */

static int on_serve(struct agent *a, const char *line)
{
	unsigned int step, rail, port;
	char dev[128], bind[128];

	if (sscanf(line, "SERVE %u %u %u %127s %127s", &step, &rail, &port, dev, bind) != 5)
		return -EPROTO;
	if (job_start(a, step, rail, port, dev, bind, NULL))
		return rdv_send(&a->c, "RESULT %u %u {\"ok\":false,\"cause\":\"other\",\"why\":"
			       "\"the agent could not start a server\"}", step, rail);
	return 0;
}

static int on_client(struct agent *a, const char *line)
{
	unsigned int step, rail, port;
	char dev[128], host[256];

	if (sscanf(line, "CLIENT %u %u %u %127s %255s", &step, &rail, &port, dev, host) != 5)
		return -EPROTO;
	if (job_start(a, step, rail, port, dev, "-", host))
		return rdv_send(&a->c, "RESULT %u %u {\"ok\":false,\"cause\":\"other\",\"why\":"
			       "\"the agent could not start a client\"}", step, rail);
	return 0;
}

/* One line from the coordinator: 0, 1 for BYE, or -errno. */
static int on_line(struct agent *a, const char *line)
{
	size_t i;
	unsigned int step;

	a->heard_ms = rdv_ms();
	if (!strncmp(line, "SERVE ", 6))
		return on_serve(a, line);
	if (!strncmp(line, "CLIENT ", 7))
		return on_client(a, line);
	if (sscanf(line, "END %u", &step) == 1) {
		for (i = 0; i < AGENT_JOBS; i++)
			if (a->jobs[i].pid && a->jobs[i].step == step)
				job_end(&a->jobs[i]);
		return 0;
	}
	if (!strcmp(line, "PING"))
		return rdv_send(&a->c, "PONG");
	if (!strcmp(line, "BYE"))
		return 1;
	return -EPROTO;
}

/* A job's pipe is readable: the server's ready byte, or the client's result. */
static int on_job(struct agent *a, struct job *j)
{
	char buf[4096];
	ssize_t n = read(j->out, buf, sizeof(buf) - 1), more;

	/* The client writes its line and ends: read on to the newline or the end. */
	while (!j->server && n > 0 && !memchr(buf, '\n', (size_t)n) && (size_t)n < sizeof(buf) - 1 &&
	       (more = read(j->out, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
		n += more;

	if (j->server) {
		if (n == 1)
			return rdv_send(&a->c, "READY %u %u", j->step, j->rail);
		/* It ended without listening: the coordinator hears it as a missing READY. */
		job_end(j);
		return 0;
	}
	if (n <= 0 || !memchr(buf, '\n', (size_t)n)) {
		snprintf(buf, sizeof(buf), "{\"ok\":false,\"cause\":\"other\",\"why\":\"the test "
			 "process ended without a result\"}\n");
		n = (ssize_t)strlen(buf);
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	job_end(j);
	return rdv_send(&a->c, "RESULT %u %u %s", j->step, j->rail, buf);
}

static int poll_once(struct agent *a)
{
	struct pollfd p[AGENT_JOBS + 1];
	struct job *map[AGENT_JOBS + 1];
	char line[RDV_LINE_MAX + 1];
	size_t i, n = 1;
	int ret;

	p[0] = (struct pollfd){ .fd = a->c.fd, .events = POLLIN };
	for (i = 0; i < AGENT_JOBS; i++)
		if (a->jobs[i].pid && a->jobs[i].out >= 0) {
			p[n] = (struct pollfd){ .fd = a->jobs[i].out, .events = POLLIN };
			map[n++] = &a->jobs[i];
		}
	if (poll(p, n, 1000) < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 1; i < n; i++)
		if (p[i].revents && (ret = on_job(a, map[i])))
			return ret;
	if (p[0].revents && (ret = rdv_fill(&a->c)))
		return ret;
	while (rdv_line(&a->c, line))
		if ((ret = on_line(a, line)))
			return ret;
	if (a->c.eof)
		return -ECONNRESET;
	return rdv_ms() - a->heard_ms > RDV_SILENCE_S * 1000L ? -ETIMEDOUT : 0;
}

int agent_run(struct ctx *ctx, const char *rdv, const struct probe_cfg *cfg)
{
	struct agent a = { .ctx = ctx, .cfg = cfg, .c = { .fd = -1 } };
	char why[512];
	size_t i;
	int ret, said, err;

	signals_ignore_pipe();
	ret = read_token(&a);
	if (!ret)
		ret = rdv_connect(&a, rdv);
	if (!ret)
		ret = handshake(&a);
	said = ret;	/* failures to start are said where they happen */
	while (!ret)
		ret = poll_once(&a);
	for (i = 0; i < AGENT_JOBS; i++)
		job_end(&a.jobs[i]);
	rdv_close(&a.c);
	if (ret < 0 && !said && ret != -EINVAL)
		log_err(ctx, "The cluster probe ended early: %s",
			ret == -ETIMEDOUT ? "the coordinator went silent" :
			ret == -ECONNRESET ? "the coordinator closed the connection" : strerror(-ret));
	/* The launcher hears from every node that took part, and why it ended early. */
	if (ret == 1) {
		printf("rdmactl-agent: done\n");
		return 0;
	}
	if (!log_last_error(why, sizeof(why), &err))
		snprintf(why, sizeof(why), "%s", strerror(-ret));
	printf(AGENT_ENDED_EARLY "%s\n", why);
	return ret;
}
