/* SPDX-License-Identifier: MIT */
/*
 * Reading values out of a json-c object by key, one way for every reader
 * of a document rdmactl wrote (a saved run, a gathered doctor document,
 * an agent's result, nft -j's ruleset).  A value of the wrong type reads
 * as absent, except through jtext() and jint(), which say so.  @o may be
 * NULL or not an object: every key is then absent.
 */
#ifndef RDMACTL_JSON_H
#define RDMACTL_JSON_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

/* The value at @key; NULL when absent (or JSON null). */
struct json_object *jget(struct json_object *o, const char *key);
/* The string at @key; NULL when absent or not a string. */
const char *jstr(struct json_object *o, const char *key);
/* The string at @key; @dflt when absent or not a string. */
const char *jstr_or(struct json_object *o, const char *key, const char *dflt);
/*
 * The value at @key as text: a string as it is, any other value as JSON
 * writes it (9000, true, [1,2]); NULL when absent or null.  For a cell
 * that shows whatever a fact holds (a drift's MTU is a number).
 */
const char *jtext(struct json_object *o, const char *key);
/* The number (integer or not) at @key; @dflt when absent or not a number. */
double jnum(struct json_object *o, const char *key, double dflt);
/*
 * The value at @key as json-c reads an integer (a number truncated, a
 * string of digits parsed, null 0); @dflt when absent.
 */
int64_t jint(struct json_object *o, const char *key, int64_t dflt);
/* The number of elements of @arr; 0 when it is NULL or not an array. */
size_t jlen(struct json_object *arr);

#endif
