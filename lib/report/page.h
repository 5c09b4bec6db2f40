/* SPDX-License-Identifier: MIT */
/*
 * The page's style and script, files of their own (page.css, page.js)
 * that the build makes into these strings: the page carries them inline,
 * and its Content Security Policy allows them by their hashes, so that
 * nothing else may style or run.
 *
 * page.css: its lines are joined without their newlines (the page's style
 * is one line), so a rule may break only where no space is needed.
 * Colours: viridis in ten steps (q0 darkest, a link far under the median,
 * to q9, at the median), readable with any colour vision and in grey;
 * failed cells are hatched and carry a cross, untested ones a dot.
 *
 * page.js: each line with its newline.  It paints each canvas from its
 * compact cells (two base64url characters: 4095 not tested, 4094 failed,
 * else the value), ticks the nodes the findings name, writes which rows
 * stand out, and shows a cell's figures under the mouse; it marks the body
 * data-ready="1" when done.
 */
#ifndef RDMACTL_PAGE_H
#define RDMACTL_PAGE_H

extern const char page_style[];
extern const char page_script[];

#endif
