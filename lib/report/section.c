// SPDX-License-Identifier: MIT
/* What every section of the HTML report is written with (see section.h). */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/json.h"
#include "base/text.h"
#include "report/section.h"

void html_escape(FILE *f, const char *s)
{
	size_t len;
	char *safe;
	const char *c;

	if (!s)
		return;
	len = strlen(s) * 4 + 1;
	safe = malloc(len);
	if (!safe) {
		fputs("?", f);
		return;
	}
	text_safe(s, safe, len, 0);
	for (c = safe; *c; c++) {
		switch (*c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*c, f);
		}
	}
	free(safe);
}

/* One fact of html_provenance(): its value escaped, or "not recorded". */
static void prov_item(FILE *f, const char *name, const char *val)
{
	fprintf(f, "<span>%s ", name);
	if (val && *val)
		html_escape(f, val);
	else
		fputs("<i>not recorded</i>", f);
	fputs("</span>", f);
}

void html_provenance(FILE *f, struct json_object *run, const char *hostlist, const char *src)
{
	fputs("<p class=\"prov\">", f);
	prov_item(f, "hostlist", hostlist ?: jtext(run, "hostlist"));
	prov_item(f, "started", jtext(run, "started"));
	prov_item(f, "ended", jtext(run, "ended"));
	prov_item(f, "from", src ?: "this run, as it ended");
	prov_item(f, "rdmactl", jtext(run, "version"));
	fputs("</p>\n", f);
}
