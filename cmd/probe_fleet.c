// SPDX-License-Identifier: MIT
/*
 * rdmactl probe -w HOSTLIST: every link of many nodes.  This host is the
 * coordinator (lib/mesh/coord.c): it starts `rdmactl probe --agent` on
 * every node (probe_agent.c), hands each the test as given here, and
 * reports; --save, --from and --html are its files.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/ctx.h"
#include "base/file.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/run.h"
#include "base/text.h"
#include "cmds.h"
#include "mesh/resume.h"
#include "mesh/runsave.h"
#include "mesh/topology.h"
#include "probe_mode.h"
#include "report/html.h"

int probe_fleet_opt(struct ctx *ctx, struct probe_args *a, int c, const char *val)
{
	struct coord_cfg *coord = &a->coord;
	long l;

	switch (c) {
	case OPT_PAIRS: coord->pairs_file = val; return 0;
	case OPT_RENDEZVOUS: coord->rendezvous = val; return 0;
	case OPT_NO_RETEST: coord->retest = false; return 0;
	case OPT_HTML: a->html = val; return 0;
	case OPT_SAVE: coord->save = val; return 0;
	case OPT_FROM: a->from = val; return 0;
	case OPT_TOPOLOGY: a->topology = val; return 0;
	case 'f': a->force = true; return 0;
	case OPT_RAILS:
		if (opt_long(ctx, "--rails", val, 1, 16, &l))
			return -EINVAL;
		coord->rails = (unsigned int)l;
		return 0;
	case OPT_PATTERN:
		a->pattern_given = true;
		return pattern_parse(val, &coord->pattern) ? probe_bad_value(ctx, "--pattern", val,
									  "use pairs, ring, quick or triage") : 0;
	case OPT_SLOW:
		return probe_parse_number(val, 0.01, 0.99, &coord->slow)
		       ? probe_bad_value(ctx, "--slow", val, "expected a fraction of the median, 0.01 to 0.99") : 0;
	}
	return launch_opt(ctx, &a->launch, c, val);
}

/* Options of the test itself: every agent of -w gets them as given. */
static const int test_opts[] = {
	's', OPT_SWEEP, OPT_SWEEP_MAX, 'n', 'D', OPT_QPS, OPT_DEPTH, OPT_BIDIR, OPT_VERIFY,
	OPT_RDMA_CM, OPT_TRANSPORT, OPT_LAT_ITERS, 'x', OPT_TIMEOUT,
};

/* "--name=value", or "--name" for a flag, for every agent; 0, -E2BIG or -ENOMEM. */
static int forward_word(struct probe_args *a, const char *name, const char *val)
{
	char *w;

	if (a->nfwd >= sizeof(a->fwd) / sizeof(a->fwd[0]) - 1)
		return -E2BIG;
	if (val ? asprintf(&w, "--%s=%s", name, val) < 0 : asprintf(&w, "--%s", name) < 0)
		return -ENOMEM;
	a->fwd[a->nfwd++] = w;
	return 0;
}

int probe_forward(struct probe_args *a, const struct opt *opts, int c, const char *val)
{
	const struct opt *o;
	size_t i;

	for (i = 0; i < sizeof(test_opts) / sizeof(test_opts[0]) && test_opts[i] != c; i++)
		;
	if (i == sizeof(test_opts) / sizeof(test_opts[0]))
		return 0;
	for (o = opts; o->name && o->val != c; o++)
		;
	if (!o->name)
		return 0;
	return forward_word(a, o->name, o->arg == ARG_NONE ? NULL : val);
}

int probe_forward_done(struct probe_args *a, int rc)
{
	while (a->nfwd)
		free(a->fwd[--a->nfwd]);
	return rc;
}

/*
 * What -w cannot take besides another mode's options (opt_mode_check()
 * judged those): a PEER, a token from anywhere, --pattern with --pairs.
 * 0 or -EINVAL (said).
 */
static int fleet_check(struct ctx *ctx, const struct probe_args *a, const char *peer)
{
	const char *bad = NULL, *why = "";

	if (peer)
		bad = peer, why = ": -w measures the nodes of its list; give PEER without -w";
	else if (a->cfg.token)
		bad = "--token or RDMACTL_TOKEN", why = " with -w: the run makes a token of its own "
						       "and hands it to the agents on stdin";
	else if (a->coord.pairs_file && a->pattern_given)
		bad = "--pattern", why = " with --pairs: the file is the schedule";
	if (!bad)
		return 0;
	log_err(ctx, "Failed to use %s%s", bad, why);
	return -EINVAL;
}

/* -w's test: 2 s a size unless -n or -D says otherwise; its expected length. */
static int fleet_test(struct ctx *ctx, struct probe_args *a)
{
	struct probe_test_req *r = &a->cfg.req;
	unsigned int sizes = 1;

	if (!a->have_n && !a->have_D) {
		a->have_D = true;
		r->duration_ms = 2000;
		if (forward_word(a, "duration", "2"))
			return -ENOMEM;
	}
	if (probe_test_finish(ctx, a))
		return -EINVAL;
	while (a->sweep && (2ull << sizes) <= r->size_max)
		sizes++;
	a->coord.timed = a->have_D;
	a->coord.test_s = sizes * (r->duration_ms / 1000.0 + 0.5) + 1;
	a->coord.probe = a->cfg;
	if (!a->coord.probe.port || a->coord.probe.port == PROBE_DEFAULT_PORT)
		a->coord.probe.port = PROBE_DEFAULT_PORT + 1;
	a->fwd[a->nfwd] = NULL;
	a->coord.test_args = a->fwd;
	return 0;
}

/* --html: the page's file, open from the start, written when the run ends (coord_cfg.done). */
struct html_out {
	struct ctx *ctx;
	struct outfile of;
	bool open;
};

static int html_done(void *arg, const struct linkmap *m, struct json_object *run)
{
	struct html_out *h = arg;

	h->open = false;
	return html_write_probe(h->ctx, &h->of, m, run);
}

/*
 * Every agent runs for the whole run and holds a connection to this host:
 * all of them within the limit of open files (raised as far as they need),
 * or none started.  0 or -EMFILE (said).
 */
static int agents_fit(const struct ctx *ctx, const struct launch *l, size_t n)
{
	unsigned long allowed;
	size_t room = launch_room(l, n, 1, &allowed);

	if (room >= n)
		return 0;
	log_err(ctx, "Failed to run %zu agents at once: only %lu open files are allowed (ulimit -Hn), "
		"room for %zu; raise the hard limit (limits.conf nofile)", n, allowed, room);
	return -EMFILE;
}

/* A saved document larger than this is not one (a 1 000-node run of two rails is ~400 MB). */
#define FROM_MAX ((size_t)2 << 30)

/* --from FILE: what of the saved run carries over to @nodes; 0 or -EINVAL (said). */
static int from_plan(struct ctx *ctx, const char *path, const struct hostlist *nodes,
		     struct resume *rs)
{
	struct saved_run sv;
	char err[512] = "", safe[512], *text;
	size_t len;
	int ret = file_read_all(path, FROM_MAX, 0, &text, &len, NULL);

	text_safe(path, safe, sizeof(safe), 0);
	if (ret) {
		log_err(ctx, "Failed to read --from '%s': %s", safe, ret == -EINVAL ? "not a regular file" :
			ret == -EFBIG ? "larger than 2 GiB: not a saved run" : strerror(-ret));
		return -EINVAL;
	}
	ret = saved_run_read(text, len, &sv, err, sizeof(err));
	free(text);
	if (ret) {
		log_err(ctx, "Failed to read --from '%s': %s", safe, ret == -ENOMEM ? strerror(ENOMEM) : err);
		return -EINVAL;
	}
	ret = resume_plan(&sv, nodes->names, (uint32_t)nodes->n, rs);
	if (ret == -ENOENT)
		log_err(ctx, "Failed to resume --from '%s': it shares fewer than two nodes with -w; it is "
			"the run of other nodes", safe);
	else if (ret)
		log_err(ctx, "Failed to resume --from '%s': %s", safe, strerror(-ret));
	saved_run_free(&sv);
	return ret ? -EINVAL : 0;
}

/* A topology.conf larger than this is not one (100 000 nodes' is a few MB). */
#define TOPOLOGY_MAX ((size_t)64 << 20)

/*
 * --topology FILE, or "slurm": `scontrol show topology` of the running
 * Slurm (a file of that name is ./slurm).  The tree for @nodes into @t;
 * 0, or -EINVAL with one line said (rdmactl-probe(8): exit 2).
 */
static int topology_load(struct ctx *ctx, const char *arg, const struct hostlist *nodes,
			 struct topology *t)
{
	char *argv[] = { "scontrol", "show", "topology", NULL };
	bool slurm = !strcmp(arg, "slurm");
	char err[700] = "", msg[300] = "", safe[512], *text = NULL;
	size_t len;
	int ret;

	memset(t, 0, sizeof(*t));
	text_safe(arg, safe, sizeof(safe), 0);
	ret = slurm ? run_query(argv, &text, msg, sizeof(msg)) : file_read_all(arg, TOPOLOGY_MAX, 0, &text, &len, NULL);
	if (ret) {
		if (slurm)
			log_err(ctx, "Failed to read --topology slurm: scontrol show topology: %s",
				ret == -ENOENT ? "scontrol is not installed" : msg[0] ? msg : strerror(-ret));
		else
			log_err(ctx, "Failed to read --topology '%s': %s", safe,
				ret == -EINVAL ? "not a regular file" : strerror(-ret));
		return -EINVAL;
	}
	ret = topology_parse(text, slurm ? "scontrol show topology" : safe, slurm, nodes->names,
			     (uint32_t)nodes->n, t, err, sizeof(err));
	free(text);
	if (ret)
		log_err(ctx, "Failed to read --topology: %s", err);
	return ret ? -EINVAL : 0;
}

/* --from and --save name one file (resumed into it): that file only gains (coord.h). */
static bool same_file(const char *a, const char *b)
{
	struct stat x, y;

	return a && b && !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/*
 * --save FILE: refused now, not after minutes of running, when it cannot
 * be written; an existing one is kept unless -f, or it is the --from file
 * resumed.  0, or the exit code (rdmactl(8), FILES).
 */
static int save_check(struct ctx *ctx, const struct probe_args *a)
{
	unsigned int flags = a->force || same_file(a->from, a->coord.save) ? OUTFILE_FORCE : 0;
	struct outfile of;

	if (outfile_open(ctx, &of, a->coord.save, "the run's document (--save)", flags))
		return of.refused ? RC_USAGE : RC_PROBLEM;
	outfile_discard(&of);
	return 0;
}

/*
 * fleet_run() with the stop signals held: the lock, --from, the run and
 * its files.  The exit code (a signal's end is the caller's).
 */
static int fleet_locked(struct ctx *ctx, struct probe_args *a, const struct hostlist *nodes)
{
	struct html_out h = { .ctx = ctx };
	struct resume rs = { 0 };
	int lock = -1, ret = 0;

	/* The lock first: the --from read after it is the file as no other run changes it. */
	if (a->coord.save && (ret = runsave_lock(ctx, a->coord.save, &lock)))
		return ret == -EBUSY ? RC_USAGE : RC_PROBLEM;
	if (a->from && from_plan(ctx, a->from, nodes, &rs))
		ret = RC_USAGE;
	if (!ret && rs.left_out && same_file(a->from, a->coord.save)) {
		char safe[512];

		log_err(ctx, "Failed to resume into --save '%s': %zu of its links are of nodes -w leaves "
			"out, and the file would lose them; --save another file",
			text_safe(a->coord.save, safe, sizeof(safe), 0), rs.left_out);
		resume_free(&rs);
		ret = RC_USAGE;
	}
	if (ret) {
		runsave_unlock(a->coord.save, lock);
		return ret;
	}
	a->coord.from = a->from ? &rs : NULL;
	if (a->html) {
		if (outfile_open(ctx, &h.of, a->html, "report", a->force ? OUTFILE_FORCE : 0)) {
			resume_free(&rs);
			runsave_unlock(a->coord.save, lock);
			return h.of.refused ? RC_USAGE : RC_PROBLEM;
		}
		h.open = true;
		a->coord.done = html_done;
		a->coord.done_arg = &h;
	}
	ret = coord_run(ctx, nodes, &a->coord);
	/* The run ended before its report: no page. */
	if (h.open)
		outfile_discard(&h.of);
	resume_free(&rs);
	runsave_unlock(a->coord.save, lock);
	if (ret < 0)
		return ret == -EINVAL ? RC_USAGE : RC_PROBLEM;
	return ret ? RC_PROBLEM : RC_OK;
}

static int fleet_run(struct ctx *ctx, struct probe_args *a, const char *peer)
{
	const struct hostlist *nodes = &a->nodes;
	int ret;

	a->coord.rdmactl = a->launch.rdmactl;
	a->coord.launch.node_timeout = (unsigned int)a->launch.node_timeout;
	if (fleet_check(ctx, a, peer) || fleet_test(ctx, a) ||
	    launch_pick(ctx, a->launch.launcher, &a->coord.launch.launcher))
		return RC_USAGE;
	if (nodes->n < 2) {
		log_err(ctx, "Failed to probe a cluster of one: -w '%s' names one node; give two or more",
			nodes->names[0]);
		return RC_USAGE;
	}
	if (agents_fit(ctx, &a->coord.launch, nodes->n))
		return RC_USAGE;

	ret = a->coord.save ? save_check(ctx, a) : 0;
	if (ret)
		return ret;
	/*
	 * A stop signal from here on is the run's to end: its save marked
	 * stopped and its lock removed whenever the signal comes, then rdmactl
	 * ends of it (a signal between the launcher's end and the save killed
	 * rdmactl with the save unmarked and the lock left).
	 */
	if (launch_hold_signals()) {
		log_err(ctx, "Failed to probe: no room for another signal hook");
		return RC_PROBLEM;
	}
	ret = fleet_locked(ctx, a, nodes);
	launch_release_signals();
	if (launch_stopped())
		raise(launch_stopped());
	return ret;
}

int probe_fleet_run(struct ctx *ctx, struct probe_args *a, const char *peer)
{
	struct topology topo;
	int rc;

	/* -w's nodes, unless the Slurm allocation's are there already. */
	if (!a->nodes.n && launch_nodes(ctx, a->launch.w, a->launch.x, &a->nodes))
		return RC_USAGE;
	if (!a->topology)
		return fleet_run(ctx, a, peer);
	/* Before anything starts: a bad tree is the run's input, refused as --pairs is. */
	if (topology_load(ctx, a->topology, &a->nodes, &topo)) {
		topology_free(&topo);
		return RC_USAGE;
	}
	a->coord.topo = &topo;
	rc = fleet_run(ctx, a, peer);
	a->coord.topo = NULL;
	topology_free(&topo);
	return rc;
}
