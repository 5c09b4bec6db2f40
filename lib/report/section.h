/* SPDX-License-Identifier: MIT */
/*
 * What every section of the HTML report is written with: the escaper
 * every string from a node goes through, the line that says where a run
 * came from, and the size above which a matrix is drawn, not tabled.
 */
#ifndef RDMACTL_SECTION_H
#define RDMACTL_SECTION_H

#include <stdio.h>

struct json_object;

/* Up to this many nodes a matrix is an HTML table; above, a canvas drawn from compact data. */
#define HTML_TABLE_MAX 64

/*
 * @s as HTML text or attribute value: control bytes, format and
 * separator characters (a bidi override would reorder the page) and
 * invalid UTF-8 shown as text_safe() shows them ("\x1b", "\xe2\x80\xae"),
 * then & < > " ' as entities.
 * NULL writes nothing.
 */
void html_escape(FILE *f, const char *s);

/*
 * What a section is, under its heading: the hostlist, when the run
 * started and ended, the file it came from and the rdmactl that ran it
 * (each "not recorded" when the document lacks it).  @run: the
 * document's "run", or NULL.
 */
void html_provenance(FILE *f, struct json_object *run, const char *hostlist, const char *src);

#endif
