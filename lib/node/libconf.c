// SPDX-License-Identifier: MIT
/*
 * NCCL's and UCX's configuration files (libconf.h): which files, in which
 * order, and each library's line syntax, so that the value a job's
 * library will use is the one judged.  Everything is read below the root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "base/sysfs.h"
#include "node/libconf.h"

#define CONF_MAX (1u << 20)	/* a configuration file larger than 1 MiB is not one */

/* The file at @path (below the root), or NULL; a relative path only on the live node. */
static char *conf_text(const struct ctx *ctx, const char *path)
{
	char *text = NULL;

	if (!path || !path[0] || (path[0] != '/' && ctx && ctx->root && ctx->root[0]))
		return NULL;
	if (read_file(ctx, path, CONF_MAX, &text, NULL))
		return NULL;
	return text;
}

static void setting_fill(struct lib_setting *out, const char *name, const char *value, size_t len,
			 const char *path, unsigned int lineno)
{
	snprintf(out->name, sizeof(out->name), "%s", name);
	snprintf(out->value, sizeof(out->value), "%.*s", (int)len, value);
	snprintf(out->where, sizeof(out->where), "%s:%u", path, lineno);
}

/*
 * NCCL's setEnvFile(): "NAME=VALUE" with nothing trimmed, a line whose
 * first byte is '#' skipped; the first line for @name wins (setenv's
 * overwrite is 0).  True when found.
 */
static bool nccl_file(const struct ctx *ctx, const char *path, const char *name,
		      struct lib_setting *out)
{
	char *text = conf_text(ctx, path);
	const char *line, *eq;
	size_t n = strlen(name), len;
	unsigned int lineno = 0;
	bool found = false;

	for (line = text; line && *line && !found; line = line[len] ? line + len + 1 : line + len) {
		len = strcspn(line, "\n");
		lineno++;
		if (line[0] == '#' || !(eq = memchr(line, '=', len)))
			continue;
		if ((size_t)(eq - line) != n || strncmp(line, name, n))
			continue;
		setting_fill(out, name, eq + 1, len - n - 1, path, lineno);
		found = true;
	}
	free(text);
	return found;
}

bool nccl_conf_setting(const struct ctx *ctx, const char *home, const char *name,
		       struct lib_setting *out)
{
	const char *user = getenv("NCCL_CONF_FILE");
	char path[4096];

	memset(out, 0, sizeof(*out));
	if (user && user[0]) {
		if (nccl_file(ctx, user, name, out))
			return true;
	} else if (home && home[0]) {
		snprintf(path, sizeof(path), "%s/.nccl.conf", home);
		if (nccl_file(ctx, path, name, out))
			return true;
	}
	return nccl_file(ctx, NCCL_CONF, name, out);
}

/*
 * UCX's ini_parse_file() callback: "NAME = VALUE", both trimmed, whole-line
 * '#' and ';' comments, "[section]" lines; the last line for @name wins
 * (the files are parsed with override on).  True when found.
 */
static bool ucx_file(const struct ctx *ctx, const char *path, const char *name,
		     struct lib_setting *out)
{
	char *text = conf_text(ctx, path);
	char buf[2048], *key, *eq;
	const char *line;
	unsigned int lineno = 0;
	bool found = false;
	size_t len;

	for (line = text; line && *line; line = line[len] ? line + len + 1 : line + len) {
		len = strcspn(line, "\n");
		lineno++;
		snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
		key = strtrim(buf);
		/* Whole-line comments only: UCX reads "n # why" as the value "n # why". */
		if (*key == '#' || *key == ';' || *key == '[' || !(eq = strchr(key, '=')))
			continue;
		*eq = '\0';
		if (strcmp(strtrim(key), name))
			continue;
		key = strtrim(eq + 1);
		setting_fill(out, name, key, strlen(key), path, lineno);
		found = true;
	}
	free(text);
	return found;
}

bool ucx_conf_setting(const struct ctx *ctx, const char *libdir, const char *name,
		      struct lib_setting *out)
{
	const char *home = getenv("HOME"), *dir = getenv("UCX_CONFIG_DIR");
	char path[4096];
	bool found;

	memset(out, 0, sizeof(*out));
	found = ucx_file(ctx, UCX_CONF, name, out);
	if (libdir && libdir[0]) {
		snprintf(path, sizeof(path), "%s/../etc/ucx/ucx.conf", libdir);
		found |= ucx_file(ctx, path, name, out);
	}
	if (home && home[0]) {
		snprintf(path, sizeof(path), "%s/ucx.conf", home);
		found |= ucx_file(ctx, path, name, out);
	}
	if (dir && dir[0]) {
		snprintf(path, sizeof(path), "%s/ucx.conf", dir);
		found |= ucx_file(ctx, path, name, out);
	}
	return found;
}
