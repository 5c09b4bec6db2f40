/* SPDX-License-Identifier: MIT */
/* The probe -w section of the HTML report (html_probe.c). */
#ifndef RDMACTL_HTML_PROBE_H
#define RDMACTL_HTML_PROBE_H

#include <stddef.h>
#include <stdio.h>

struct linkview;

/*
 * The section of probe run @v, the @idx-th of the page, from file @src
 * (NULL: the run just ended).  0 or -ENOMEM.
 */
int html_probe(FILE *f, const struct linkview *v, size_t idx, const char *src);

#endif
