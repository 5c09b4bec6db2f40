// SPDX-License-Identifier: MIT
/*
 * `rdmactl probe --server`: accept clients, walk each one's handshake
 * (probe_greet() in probe.c) and start its session.
 *
 * Strangers reach this code before any token is checked, so nothing they
 * do may hold up anyone else.  One loop polls the listening socket and
 * every connection still in its handshake, and reads each one's frames as
 * they arrive (ctl_rx_recv()), never waiting on a single client.  Each
 * message of a handshake (HELLO, the token's proof, the request) must be
 * whole within SERVER_GREET_MS of the step's start (accept, or our
 * answer), however it dribbles its bytes; a slow but real client (under
 * valgrind, on an emulated CPU) has that for each message, a stranger
 * that says nothing is gone after it.  Time is judged after what arrived
 * was read: a server slow itself does not charge its delay to the
 * client.  At most `cap` connections are in their handshake, and a new
 * one beyond that drops the oldest stranger (conn_victim()).  A session
 * runs in a child process (one test at a time; NODE_INFO answers beside
 * it), so the loop goes on accepting while it runs; with --once the first
 * client whose handshake succeeds is served in this process, and junk
 * before it ends nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/signals.h"
#include "probe/probe.h"
#include "probe/probe_sess.h"

#define SERVER_GREET_MS		3000	/* for each step of the handshake (or the test aid's);
					   --timeout when shorter */
#define SERVER_PENDING_MAX	1024	/* connections in their handshake */
#define SERVER_FD_SPARE		64	/* fds beyond those, for the server's own use */
#define SERVER_INFO_CHILDREN	16	/* NODE_INFO answered at once in children */
#define SERVER_LOG_PER_SEC	20	/* lines about failed handshakes, of each enum log_kind */
#define SERVER_TICK_MS		100	/* reap children, retry accept after EMFILE */
#define SERVER_ACCEPT_BATCH	64	/* accepts per wake, so reads are not starved */

#define NS_PER_MS		1000000ull

/* A connection in its handshake. */
struct pending {
	struct probe_ctl ctl;
	struct ctl_rx rx;
	enum probe_greet st;
	uint64_t step_ns;		/* its step began: accepted, or our answer sent */
	uint8_t nonce[PROBE_NONCE_LEN];	/* ours, sent in our HELLO */
	struct probe_hello hello;	/* the client's */
};

struct server {
	struct ctx *ctx;
	const struct probe_cfg *cfg;
	struct probe_report *rep;
	int lfd;
	struct pending **p;		/* in their handshake, oldest first */
	size_t n, cap;
	struct pollfd *pfd;		/* the listener, then p[] */
	uint64_t greet_ns;
	pid_t session;			/* the test session's process; 0 none */
	unsigned int info;		/* NODE_INFO children running */
	uint64_t log_from_ns;		/* the second the log rate counts in */
	unsigned int logged[2];		/* lines in it, by enum log_kind */
	unsigned int hidden;		/* lines left out */
	uint64_t accept_at_ns;		/* out of fds: accept again from then */
	/* --once: the client to serve in this process. */
	struct probe_sess *here;
	struct probe_frame *here_req;
};

/*
 * Room for SERVER_PENDING_MAX connections: raise the soft limit of open
 * files toward the hard one (a login's soft limit is often 1024).  The
 * connections the server can hold in their handshake.
 */
static size_t server_fd_room(struct ctx *ctx)
{
	rlim_t want = SERVER_PENDING_MAX + SERVER_FD_SPARE;
	struct rlimit rl;
	size_t cap;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return SERVER_PENDING_MAX;
	if (rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur >= want)
		return SERVER_PENDING_MAX;
	cap = rl.rlim_cur > 2 * SERVER_FD_SPARE ? (size_t)(rl.rlim_cur - SERVER_FD_SPARE)
						 : (size_t)rl.rlim_cur / 2;
	if (!cap)
		cap = 1;
	log_warn(ctx, "only %llu open files are allowed (ulimit -Hn): the server holds at most %zu "
		 "connections in their handshake instead of %d; raise the hard limit (LimitNOFILE=) "
		 "for more", (unsigned long long)rl.rlim_cur, cap, SERVER_PENDING_MAX);
	return cap;
}

static int server_init(struct server *srv, struct ctx *ctx, const struct probe_cfg *cfg,
		       struct probe_report *rep)
{
	int greet_ms = cfg->greet_ms ? cfg->greet_ms : SERVER_GREET_MS;

	if (cfg->timeout_ms < greet_ms)
		greet_ms = cfg->timeout_ms;

	memset(srv, 0, sizeof(*srv));
	srv->ctx = ctx;
	srv->cfg = cfg;
	srv->rep = rep;
	srv->lfd = -1;
	srv->greet_ns = (uint64_t)greet_ms * NS_PER_MS;
	srv->cap = server_fd_room(ctx);
	srv->p = calloc(srv->cap, sizeof(*srv->p));
	srv->pfd = calloc(srv->cap + 1, sizeof(*srv->pfd));
	if (cfg->once) {
		srv->here = calloc(1, sizeof(*srv->here));
		srv->here_req = calloc(1, sizeof(*srv->here_req));
	}
	if (!srv->p || !srv->pfd || (cfg->once && (!srv->here || !srv->here_req)))
		return -ENOMEM;
	return 0;
}

/* ---- the log of failed handshakes: at most SERVER_LOG_PER_SEC lines a second ---- */

/*
 * A flood of junk connections must not become a flood of lines: past the
 * rate, failures are counted and one line says how many were left out.
 * Clients that said HELLO have a rate of their own, so that a flood of
 * silent connections cannot hide a wrong token or a refused request.
 */
enum log_kind {
	LOG_STRANGER,	/* before HELLO: silent, junk, the wrong protocol */
	LOG_PEER,	/* after it: the token, the request, busy */
};

static void log_tick(struct server *srv, uint64_t now)
{
	if (now - srv->log_from_ns < 1000 * NS_PER_MS)
		return;
	if (srv->hidden)
		log_err(srv->ctx, "... and %u more failed or dropped handshakes, not shown (at most %d "
			"such lines a second)", srv->hidden, SERVER_LOG_PER_SEC);
	srv->log_from_ns = now;
	srv->logged[LOG_STRANGER] = srv->logged[LOG_PEER] = 0;
	srv->hidden = 0;
}

static bool log_room(struct server *srv, enum log_kind kind)
{
	log_tick(srv, now_ns());
	return srv->logged[kind] < SERVER_LOG_PER_SEC;
}

static void log_count(struct server *srv, const struct probe_sess *s, enum log_kind kind)
{
	if (s->quiet)
		srv->hidden++;
	else
		srv->logged[kind]++;
}

/* ---- connections in their handshake ---- */

/*
 * A session on @pd's connection, for probe_greet(); quiet when over the
 * log rate.  The kind of line a failure of it would be.
 */
static enum log_kind conn_sess(struct server *srv, const struct pending *pd, struct probe_sess *s)
{
	enum log_kind kind = pd->st == PROBE_GREET_HELLO ? LOG_STRANGER : LOG_PEER;

	probe_sess_server(s, srv->ctx, srv->cfg, &pd->ctl);
	memcpy(s->nonce, pd->nonce, sizeof(s->nonce));
	s->peer_hello = pd->hello;
	s->quiet = !log_room(srv, kind);
	return kind;
}

/* Take p[@i] out of the list; the caller closes or keeps its connection. */
static struct pending *conn_take(struct server *srv, size_t i)
{
	struct pending *pd = srv->p[i];

	memmove(&srv->p[i], &srv->p[i + 1], (srv->n - i - 1) * sizeof(*srv->p));
	srv->n--;
	ctl_rx_free(&pd->rx);
	return pd;
}

static void conn_close(struct pending *pd)
{
	ctl_close(&pd->ctl);
	free(pd);
}

/* Drop p[@i]: one line saying why (@why, or @err's text), ERROR @code to the client. */
static void conn_drop(struct server *srv, size_t i, int err, uint16_t code, const char *why)
{
	struct probe_sess s;
	enum log_kind kind = conn_sess(srv, srv->p[i], &s);

	probe_greet_fail(&s, srv->p[i]->st, err, code, why);
	log_count(srv, &s, kind);
	conn_close(conn_take(srv, i));
}

/* Drop the connections whose step took too long (newest first: a drop moves those after it). */
static void conn_expire(struct server *srv, uint64_t now)
{
	char why[128];
	size_t i;

	snprintf(why, sizeof(why), "timed out: a client has %.1f s for each message of its handshake",
		 (double)srv->greet_ns / 1e9);
	for (i = srv->n; i-- > 0;)
		if (now - srv->p[i]->step_ns >= srv->greet_ns)
			conn_drop(srv, i, -ETIMEDOUT, PROBE_ERR_TIMEOUT, why);
}

static bool session_running(const struct server *srv)
{
	return srv->session > 0;
}

/* Collect the children that ended. */
static void reap(struct server *srv)
{
	pid_t pid;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0) {
		if (pid == srv->session)
			srv->session = 0;
		else if (srv->info)
			srv->info--;
	}
}

/* Serve @s in a child process, so the server goes on accepting; the child's pid or -1. */
static pid_t serve_forked(struct server *srv, struct probe_sess *s, const struct probe_frame *req)
{
	pid_t pid, parent = getpid();
	size_t i;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid)
		return pid;	/* parent, or -1 */
	/*
	 * A session never outlives its server: stopping the server (SIGTERM,
	 * a test's cleanup) must not leave a child holding QPs, the port or
	 * the files the server inherited.  Nor does it hold the other
	 * clients' connections: dropped by the server, they must close.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(1);
	close(srv->lfd);
	for (i = 0; i < srv->n; i++)
		close(srv->p[i]->ctl.fd);
	probe_serve(s, req, srv->rep);
	fflush(stdout);
	_exit(0);
}

/* Start the session of @s, whose request @req was accepted. */
static void conn_serve(struct server *srv, struct probe_sess *s, const struct probe_frame *req)
{
	bool test = req->type == PROBE_MSG_TEST_REQ;
	pid_t pid;

	if (test && session_running(srv)) {
		probe_fail(s, -EBUSY, PROBE_ERR_BUSY,
			   "Failed to start a test: the server is busy with another client; "
			   "try again when it is done");
		log_count(srv, s, LOG_PEER);
		ctl_close(&s->ctl);
		return;
	}
	/* Past SERVER_INFO_CHILDREN, a node query is answered here: slower, never refused. */
	if (!test && srv->info >= SERVER_INFO_CHILDREN) {
		probe_serve(s, req, srv->rep);
		return;
	}
	pid = serve_forked(srv, s, req);
	if (pid < 0)
		probe_fail(s, -errno, PROBE_ERR_SETUP, "Failed to start a session: %s", strerror(errno));
	else if (test)
		srv->session = pid;
	else
		srv->info++;
	ctl_close(&s->ctl);
}

/* p[@i] finished its handshake with @req: serve it.  1 when --once serves it here. */
static int conn_done(struct server *srv, size_t i, struct probe_sess *s, const struct probe_frame *req)
{
	int ret;

	free(conn_take(srv, i));	/* the connection is s's now */
	log_info(srv->ctx, "client %s: %s after the handshake", s->peer, probe_msg_name(req->type));
	ret = ctl_set_blocking(&s->ctl, 1);
	if (ret) {
		probe_fail(s, ret, 0, "Failed to serve the client: %s", strerror(-ret));
		ctl_close(&s->ctl);
		return 0;
	}
	if (srv->cfg->once) {
		*srv->here = *s;
		*srv->here_req = *req;
		return 1;
	}
	conn_serve(srv, s, req);
	return 0;
}

/*
 * A request refused (over --max-size, not a request at all) ends a session
 * that was asked for: its report, one JSON document with the error for a
 * server without --once (which reports its one session), unless its line
 * was left out of the log (the error the report takes is that line).
 */
static void request_refused(struct server *srv, const struct probe_sess *s, int err)
{
	if (!srv->cfg->once && !s->quiet && srv->rep && srv->rep->end)
		srv->rep->end(srv->rep, s->peer, err);
}

/* p[@i] is readable: take what arrived, answer a whole frame.  1: --once serves it here. */
static int conn_read(struct server *srv, size_t i)
{
	struct pending *pd = srv->p[i];
	enum probe_greet st;
	enum log_kind kind;
	struct probe_frame f;
	struct probe_sess s;
	int ret;

	ret = ctl_rx_recv(&pd->ctl, &pd->rx, &f);
	if (ret == -EAGAIN)
		return 0;
	if (ret) {
		conn_drop(srv, i, ret, 0, NULL);
		return 0;
	}
	kind = conn_sess(srv, pd, &s);
	st = pd->st;
	ret = probe_greet(&s, &pd->st, &f);
	memcpy(pd->nonce, s.nonce, sizeof(pd->nonce));
	pd->hello = s.peer_hello;
	if (ret) {
		log_count(srv, &s, kind);
		if (st == PROBE_GREET_REQUEST && f.type != PROBE_MSG_ERROR)
			request_refused(srv, &s, ret);
		conn_close(conn_take(srv, i));
		return 0;
	}
	if (pd->st == PROBE_GREET_DONE)
		return conn_done(srv, i, &s, &f);
	pd->step_ns = now_ns();	/* answered: the client's next message has its own time */
	return 0;
}

/*
 * Which connection makes room for one from @peer, and why (in @why).
 * Among those still waiting for their HELLO (a real client's HELLO
 * arrives with its connection, so those are strangers that say nothing or
 * dribble), the oldest of @peer's when @peer holds more than an eighth of
 * the cap, so that a flood from one address drops its own connections and
 * not a client from elsewhere; else the oldest of any address; with none
 * waiting for HELLO, the oldest of those least far along.
 */
static size_t conn_victim(const struct server *srv, const char *peer, char *why, size_t len)
{
	size_t i, same = 0, mine = SIZE_MAX, any = SIZE_MAX, least = 0;
	char rule[64] = "of those least far along";

	for (i = 0; i < srv->n; i++) {
		const struct pending *pd = srv->p[i];
		bool from_peer = !strcmp(pd->ctl.peer, peer);

		same += from_peer;
		if (pd->st == PROBE_GREET_HELLO && any == SIZE_MAX)
			any = i;
		if (pd->st == PROBE_GREET_HELLO && from_peer && mine == SIZE_MAX)
			mine = i;
		if (pd->st < srv->p[least]->st)
			least = i;
	}
	if (mine != SIZE_MAX && same > srv->cap / 8)
		snprintf(rule, sizeof(rule), "of the %zu from its address", same);
	else if ((mine = any) != SIZE_MAX)
		snprintf(rule, sizeof(rule), "still waiting for its HELLO");
	else
		mine = least;
	snprintf(why, len, "dropped to make room: %zu connections were in their handshake, the most "
		 "this server keeps; this was the oldest %s", srv->cap, rule);
	return mine;
}

/* Keep connection @c; past the cap, conn_victim() makes room. */
static void conn_add(struct server *srv, const struct probe_ctl *c, uint64_t now)
{
	struct pending *pd;
	char why[192];
	size_t i;

	if (srv->n == srv->cap) {
		i = conn_victim(srv, c->peer, why, sizeof(why));
		conn_drop(srv, i, -EBUSY, PROBE_ERR_BUSY, why);
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		close(c->fd);
		return;
	}
	pd->ctl = *c;
	pd->st = PROBE_GREET_HELLO;
	pd->step_ns = now;
	ctl_set_blocking(&pd->ctl, 0);
	srv->p[srv->n++] = pd;
}

/*
 * Out of file descriptors: drop the oldest handshake to make room; with
 * none to drop, leave the new connections in the kernel's queue and try
 * again in SERVER_TICK_MS (the listener stays readable: polling it now
 * would spin).
 */
static bool accept_no_fds(struct server *srv, int err, uint64_t now)
{
	if (srv->n) {
		conn_drop(srv, 0, err, PROBE_ERR_BUSY, "dropped: the server is out of open files "
			  "(ulimit -n) and this was the oldest connection in its handshake");
		return true;
	}
	if (log_room(srv, LOG_STRANGER)) {
		log_err(srv->ctx, "Failed to accept a connection: %s; trying again in %d ms (raise "
			"ulimit -n)", strerror(-err), SERVER_TICK_MS);
		srv->logged[LOG_STRANGER]++;
	}
	srv->accept_at_ns = now + SERVER_TICK_MS * NS_PER_MS;
	return false;
}

static void accept_new(struct server *srv, uint64_t now)
{
	/* Fewer than half the cap: what was accepted is read before it can be dropped. */
	size_t i, batch = srv->cap / 2 < SERVER_ACCEPT_BATCH ? srv->cap / 2 + 1 : SERVER_ACCEPT_BATCH;
	struct probe_ctl c;
	int ret;

	for (i = 0; i < batch; i++) {
		ret = ctl_accept(srv->lfd, 0, &c);
		if (ret == -ETIMEDOUT || ret == -EAGAIN)
			return;
		if (ret == -EMFILE || ret == -ENFILE || ret == -ENOBUFS || ret == -ENOMEM) {
			if (!accept_no_fds(srv, ret, now))
				return;
			continue;
		}
		if (ret)	/* ECONNABORTED, EINTR...: that one only */
			continue;
		conn_add(srv, &c, now);
	}
}

/* ---- the loop ---- */

static int min_ms(int a, int b)
{
	return a < 0 || (b >= 0 && b < a) ? b : a;
}

static int until_ms(uint64_t when, uint64_t now)
{
	return when > now ? (int)((when - now + NS_PER_MS - 1) / NS_PER_MS) : 0;
}

/* How long poll() may sleep: the next deadline, the next child to reap, the log's next second. */
static int poll_ms(const struct server *srv, uint64_t now)
{
	int ms = -1;
	size_t i;

	for (i = 0; i < srv->n; i++)
		ms = min_ms(ms, until_ms(srv->p[i]->step_ns + srv->greet_ns, now));
	if (session_running(srv) || srv->info)
		ms = min_ms(ms, SERVER_TICK_MS);
	if (srv->hidden)
		ms = min_ms(ms, until_ms(srv->log_from_ns + 1000 * NS_PER_MS, now));
	if (srv->accept_at_ns > now)
		ms = min_ms(ms, until_ms(srv->accept_at_ns, now));
	return ms;
}

/*
 * Every connection that poll() found ready, newest first: conn_read() may
 * take p[i] out of the list, which moves only those after it.
 */
static int read_ready(struct server *srv, size_t npfd)
{
	size_t k;
	int ret;

	for (k = npfd; k-- > 1;) {
		if (!srv->pfd[k].revents)
			continue;
		ret = conn_read(srv, k - 1);
		if (ret)
			return ret;
	}
	return 0;
}

/* One wait and what it found: 0 go on, 1 --once has its client, or -errno. */
static int server_step(struct server *srv)
{
	uint64_t now = now_ns();
	size_t i, npfd;
	int ret;

	log_tick(srv, now);
	reap(srv);
	npfd = srv->n + 1;
	srv->pfd[0] = (struct pollfd){ srv->lfd, srv->accept_at_ns > now ? 0 : POLLIN, 0 };
	for (i = 0; i < srv->n; i++)
		srv->pfd[i + 1] = (struct pollfd){ srv->p[i]->ctl.fd, POLLIN, 0 };
	ret = poll(srv->pfd, npfd, poll_ms(srv, now));
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	ret = ret ? read_ready(srv, npfd) : 0;
	if (ret)
		return ret;
	/*
	 * Steps run out after the reads and before the accepts: what a client
	 * sent in time while this process was slow (under valgrind, on a
	 * starved CPU: over 3 s from an accept to the next poll) is read
	 * before its step is judged, and a connection is read once before it
	 * can be dropped.  Expired first, a HELLO waiting unread was dropped.
	 */
	conn_expire(srv, now_ns());
	if (srv->pfd[0].revents & POLLIN)
		accept_new(srv, now_ns());
	return 0;
}

/* Stop listening and close every connection still in its handshake. */
static void server_shut(struct server *srv)
{
	if (srv->n)
		log_info(srv->ctx, "closing %zu connection(s) still in their handshake", srv->n);
	while (srv->n)
		conn_close(conn_take(srv, srv->n - 1));
	if (srv->lfd >= 0)
		close(srv->lfd);
	srv->lfd = -1;
}

static void server_free(struct server *srv)
{
	free(srv->p);
	free(srv->pfd);
	free(srv->here);
	free(srv->here_req);
}

static int server_listen(struct server *srv)
{
	const struct probe_cfg *cfg = srv->cfg;
	int ret = ctl_listen(cfg->bind, cfg->port, &srv->lfd);

	/* Never block in accept(): a client gone between poll() and accept() must not stall us. */
	if (!ret && fcntl(srv->lfd, F_SETFL, fcntl(srv->lfd, F_GETFL) | O_NONBLOCK))
		ret = -errno;
	if (ret) {
		log_err(srv->ctx, "Failed to listen on %s port %u: %s%s",
			cfg->bind ? cfg->bind : "any address", cfg->port, strerror(-ret),
			ret == -EADDRINUSE ? ". Is another probe server running? Use --port" : "");
		return ret;
	}
	/* Said always, not only with -v: an operator must know where it listens. */
	log_err(srv->ctx, "listening on %s port %u%s", cfg->bind ? cfg->bind : "every address",
		cfg->port, cfg->token ? ", clients must prove the token"
				      : " (no token: any client may run tests)");
	log_info(srv->ctx, "up to %zu connections in their handshake, %.1f s for each of its messages",
		 srv->cap, (double)srv->greet_ns / 1e9);
	/* A cluster probe's agent starts the client only now (see mesh/agent.c). */
	if (cfg->ready_fd > 0 && write(cfg->ready_fd, "L", 1) != 1)
		log_info(srv->ctx, "cannot say the server is ready: %s", strerror(errno));
	return 0;
}

int probe_server(struct ctx *ctx, const struct probe_cfg *cfg, struct probe_report *rep)
{
	struct server srv;
	int ret;

	ret = server_init(&srv, ctx, cfg, rep);
	if (ret)
		log_err(ctx, "Failed to start the server: %s", strerror(-ret));
	if (!ret)
		ret = server_listen(&srv);
	if (ret) {
		server_shut(&srv);
		server_free(&srv);
		return ret;
	}
	signals_ignore_pipe();
	do
		ret = server_step(&srv);
	while (!ret);
	/* --once: later clients are refused, those in their handshake closed. */
	server_shut(&srv);
	if (ret == 1)
		ret = probe_serve(srv.here, srv.here_req, rep);
	server_free(&srv);
	return ret;
}
