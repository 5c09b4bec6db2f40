// SPDX-License-Identifier: MIT
/*
 * rdmactl env --for nccl|ucx|mpi [-d DEV[/PORT]]...: the job variables of
 * this node, as "export NAME=value" lines and nothing else, the form
 * Slurm's TaskProlog reads; or, where no value is right, nothing on
 * stdout, the doctor's reason on stderr and exit 1 (lib/doctor/jobenv.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "base/ctx.h"
#include "base/log.h"
#include "base/output.h"
#include "base/text.h"
#include "cmds.h"
#include "doctor/doctor.h"
#include "doctor/jobenv.h"
#include "node/gids.h"

enum {
	OPT_FOR = OPT_LONG_BASE,
};

const struct opt env_opts[] = {
	{ "for", OPT_FOR, ARG_CHOICE, "JOB", "the variables of this kind of job (required)",
	  NULL, 0, 0, &job_kinds_env },
	{ "device", 'd', ARG_DEVPORT, "DEV[/PORT]",
	  "use this device or port; again for more (default: every active port)" },
	{ 0 }
};

struct env_args {
	enum job_kind target;
	bool have_for;
	struct jobenv_pick picks[JOBENV_PICKS_MAX];
	size_t n;
};

/* parse_args() printed the usage: nothing else to do. */
#define HELP_SHOWN (-1)

static int add_pick(const struct ctx *ctx, struct env_args *a, const char *val)
{
	struct jobenv_pick *pk = &a->picks[a->n];

	if (a->n == JOBENV_PICKS_MAX) {
		log_err(ctx, "Failed to use -d '%s': at most %d devices or ports", val,
			JOBENV_PICKS_MAX);
		return RC_USAGE;
	}
	if (rdma_parse_devport(val, pk->dev, sizeof(pk->dev), &pk->port)) {
		log_err(ctx, "Failed to parse -d '%s': expected DEV or DEV/PORT, as in mlx5_0 or "
			"mlx5_0/1", val);
		return RC_USAGE;
	}
	a->n++;
	return RC_OK;
}

static int parse_args(struct ctx *ctx, int argc, char **argv, struct env_args *a)
{
	struct optparser p;
	int c, rc;

	memset(a, 0, sizeof(*a));
	if (opt_init(&p, ctx, command_find("env"), argc, argv))
		return RC_USAGE;
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case OPT_FOR:
			/* opt_next() let only env's kinds through. */
			job_kind_parse(p.optarg, JOB_IN_ENV, &a->target);
			a->have_for = true;
			break;
		case 'd':
			rc = add_pick(ctx, a, p.optarg);
			if (rc)
				return rc;
			break;
		default:
			return c == OPT_HELP ? HELP_SHOWN : RC_USAGE;
		}
	}
	if (opt_check_args(&p))
		return RC_USAGE;
	if (!a->have_for) {
		char kinds[128];

		opt_choice_list(&env_opts[0], kinds, sizeof(kinds));
		log_err(ctx, "Failed to choose the variables: --for is missing; give --for %s", kinds);
		return RC_USAGE;
	}
	return RC_OK;
}

/*
 * @s as the doctor's table and devices show text from outside: every
 * control byte escaped, a newline too.  The log keeps newlines (its own
 * multi-line messages), but a job's variable or a name in env's line must
 * stay on that line: the TaskProlog and a wrapper read it line by line.
 */
static const char *one_line(const char *s, char *buf, size_t len)
{
	return text_safe(s, buf, len, 0);
}

static struct json_object *port_obj(const struct jobenv_port *jp)
{
	struct json_object *o = json_object_new_object();
	char gid[GID_STR_LEN], v4[INET_ADDRSTRLEN];

	row_str(o, "dev", jp->dev->name);
	row_int(o, "port", jp->port->num);
	row_str(o, "link_layer", link_layer_str(jp->port->link_layer));
	row_str(o, "netdev", jp->port->netdev[0] ? jp->port->netdev : NULL);
	row_int(o, "gid_index", jp->gid->index);
	row_str(o, "gid", gid_str(jp->gid->raw, gid, sizeof(gid)));
	row_str(o, "ipv4", gid_ipv4(jp->gid->raw, v4, sizeof(v4)) ? v4 : NULL);
	row_str(o, "why", jp->why);
	return o;
}

static struct json_object *skip_obj(const struct jobenv_skip *s)
{
	struct json_object *o = json_object_new_object();

	row_str(o, "dev", s->dev->name);
	row_int(o, "port", s->port->num);
	row_str(o, "why", s->why);
	row_str(o, "fix", s->fix[0] ? s->fix : NULL);
	return o;
}

/* What -j adds to the variables: the ports, their GIDs, and what was left out and why. */
static void attach_ports(struct ctx *ctx, const struct jobenv *e)
{
	struct json_object *ports = json_object_new_array(), *left = json_object_new_array();
	size_t i;

	for (i = 0; i < e->n; i++)
		json_object_array_add(ports, port_obj(&e->ports[i]));
	for (i = 0; i < e->n_skipped; i++)
		json_object_array_add(left, skip_obj(&e->skipped[i]));
	json_attach(ctx, "ports", ports);
	json_attach(ctx, "left_out", left);
}

/*
 * The variables: "export NAME=value" lines (a value a shell would expand
 * in single quotes), or -j's "variables" object; those the job set
 * already stay as they are (-j's "kept", -v says so).  Where none is
 * printed, one line on stderr says why.
 */
static void print_vars(struct ctx *ctx, const struct jobenv *e, enum job_kind f)
{
	static struct jobenv_var v[JOBENV_VARS_MAX];
	static char line[2 * JOBENV_VALUE_MAX];
	struct json_object *vars = json_object_new_object(), *kept = json_object_new_object();
	size_t i, printed = 0, n = jobenv_vars(e, f, v);

	for (i = 0; i < n; i++) {
		if (v[i].kept) {
			const char *file = doctor_env_file(e->d, v[i].name);
			char val[256], from[384];

			row_str(kept, v[i].name, doctor_env(e->d, v[i].name));
			log_info(ctx, "kept the job's %s='%s'%s%s", v[i].name,
				 one_line(doctor_env(e->d, v[i].name), val, sizeof(val)),
				 file ? " from " : "", file ? one_line(file, from, sizeof(from)) : "");
			continue;
		}
		row_str(vars, v[i].name, v[i].value);
		print_verbatim(ctx, "export %s\n", jobenv_assignment(v[i].name, v[i].value, line,
								  sizeof(line)));
		printed++;
	}
	if (!printed)
		log_note(ctx, "no variable printed: %s", n ? "the job set each one already (-v names "
			 "them)" : e->silent[0] ? e->silent : "the job's library needs none here");
	if (ctx->json) {
		json_attach(ctx, "for", json_object_new_string(job_kind_name(f)));
		json_attach(ctx, "variables", vars);
		json_attach(ctx, "kept", kept);
		attach_ports(ctx, e);
	} else {
		json_object_put(vars);
		json_object_put(kept);
	}
}

/* With -v, on stderr: the ports the default choice left out, and what was left to the library. */
static void tell_left_out(const struct ctx *ctx, const struct jobenv *e)
{
	char buf[sizeof(e->notes[0]) + 64];
	size_t i;

	for (i = 0; i < e->n_skipped; i++)
		log_info(ctx, "left out: %s", one_line(e->skipped[i].why, buf, sizeof(buf)));
	for (i = 0; i < e->n_notes; i++)
		log_info(ctx, "%s", one_line(e->notes[i], buf, sizeof(buf)));
}

static int env_here(struct ctx *ctx, const struct env_args *a)
{
	struct node_facts d;
	struct jobenv e;
	int ret, rc = RC_OK;

	/* The doctor's checks of that kind judge the job's own variables. */
	doctor_load(&d, ctx, a->target, NULL);
	ret = jobenv_build(&d, a->target, a->picks, a->n, &e);
	if (ret) {
		char why[sizeof(e.why) + 256];

		log_err_errno(ctx, ret == -EINVAL || ret == -ENODATA ? 0 : ret, "%s",
			      one_line(e.why, why, sizeof(why)));
		rc = ret == -EINVAL ? RC_USAGE : RC_PROBLEM;
	} else {
		/*
		 * Every value came from a port's GID entries, which gid_choose()
		 * refuses to pass an unread one by: a file no value depends on
		 * (a node GUID, a firmware version, a rate) was warned about
		 * and changes nothing here.
		 */
		ctx->warnings_judged = true;
		tell_left_out(ctx, &e);
		print_vars(ctx, &e, a->target);
	}
	jobenv_free(&e);
	doctor_free(&d);
	return rc;
}

int cmd_env(struct ctx *ctx, int argc, char **argv)
{
	struct env_args a;
	int rc = parse_args(ctx, argc, argv, &a);

	if (rc)
		return rc == HELP_SHOWN ? RC_OK : rc;
	return env_here(ctx, &a);
}
