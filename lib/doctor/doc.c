// SPDX-License-Identifier: MIT
/* The doctor's document: its status words and the table of a node's checks (doc.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "base/json.h"
#include "base/output.h"
#include "doctor/doc.h"

const struct column doc_check_cols[] = {
	{ DOC_STATUS, "STATUS", 0, check_status_color, check_status_cell },
	{ DOC_ID, "CHECK", 0, NULL },
	{ DOC_FOUND, "FOUND", COL_WRAP, NULL },
	{ DOC_FIX, "FIX", COL_BELOW, NULL },
	{ 0 }
};

/* The one place the words are spelled. */
#define WORD_OK "ok"
#define WORD_WARN "warn"
#define WORD_FAIL "fail"
#define WORD_SKIP "skip"
static const char *const status_words[] = {
	[CHECK_OK] = WORD_OK, [CHECK_WARN] = WORD_WARN, [CHECK_FAIL] = WORD_FAIL,
	[CHECK_SKIP] = WORD_SKIP,
};

const char *check_status_str(enum check_status s)
{
	return s <= CHECK_SKIP ? status_words[s] : "unknown";
}

const char *check_status_text(enum check_status s)
{
	/* A failure stands out in a column of lowercase words, even without colour. */
	return s == CHECK_FAIL ? "FAIL" : check_status_str(s);
}

int check_status_parse(const char *word)
{
	enum check_status s;

	for (s = CHECK_OK; word && s <= CHECK_SKIP; s++)
		if (!strcasecmp(word, check_status_str(s)))
			return (int)s;
	return -EINVAL;
}

const char *check_status_list(void)
{
	return WORD_OK ", " WORD_WARN ", " WORD_FAIL ", " WORD_SKIP;
}

enum color check_status_color(const char *text)
{
	static const enum color colors[] = {
		[CHECK_OK] = COLOR_GREEN, [CHECK_WARN] = COLOR_YELLOW,
		[CHECK_FAIL] = COLOR_RED, [CHECK_SKIP] = COLOR_DIM,
	};
	int s = check_status_parse(text);

	return s < 0 ? COLOR_DIM : colors[s];
}

const char *check_status_cell(struct json_object *row, char *buf, size_t len)
{
	struct json_object *v;
	const char *word;
	int s;

	if (!json_object_object_get_ex(row, DOC_STATUS, &v) || !(word = json_object_get_string(v)))
		return NULL;
	s = check_status_parse(word);
	snprintf(buf, len, "%s", s < 0 ? word : check_status_text((enum check_status)s));
	return buf;
}

struct json_object *doc_summary_json(const int *n, const char *problems)
{
	struct json_object *s = json_object_new_object(), *probs = json_object_new_array();
	char buf[1024], *save = NULL, *id;

	if (!s || !probs) {
		json_object_put(s);
		json_object_put(probs);
		return NULL;
	}
	json_object_object_add(s, DOC_FAILED, json_object_new_int(n[CHECK_FAIL]));
	json_object_object_add(s, DOC_WARNINGS, json_object_new_int(n[CHECK_WARN]));
	json_object_object_add(s, check_status_str(CHECK_OK), json_object_new_int(n[CHECK_OK]));
	json_object_object_add(s, DOC_SKIPPED, json_object_new_int(n[CHECK_SKIP]));
	snprintf(buf, sizeof(buf), "%s", problems);
	for (id = strtok_r(buf, ", ", &save); id; id = strtok_r(NULL, ", ", &save))
		json_object_array_add(probs, json_object_new_string(id));
	json_object_object_add(s, DOC_PROBLEMS, probs);
	return s;
}

bool doc_drain_reason(struct json_object *row, char *reason, size_t len)
{
	const char *st = jtext(row, DOC_STATUS), *id = jtext(row, DOC_ID),
		   *found = jtext(row, DOC_FOUND);

	if (!st || !id || !found || check_status_parse(st) != CHECK_FAIL)
		return false;
	snprintf(reason, len, DOC_DRAIN_PREFIX "%s: %.180s", id, found);
	for (char *q = reason; *q; q++)
		if (*q == '"' || *q == '\n')
			*q = '\'';
	return true;
}
