/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading JSON: the fleet view's steps read the documents of other hosts'
 * runs (--inventory, --check --fleet). A small tree, enough for documents
 * ib-hook itself writes; a byte that is not UTF-8 comes back from \udcXX as
 * report_json_string() wrote it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json {
	enum json_type type;
	bool b;
	double n;
	char *s;
	/* an array's items, an object's values with their keys */
	struct json **items;
	char **keys;
	size_t n_items;
	/* where the value's text starts and ends in the document (byte offsets): to pass it on as written */
	size_t start, end;
};

/*
 * One document from text, after blanks; *ret_end where it ended. -EINVAL
 * (and *ret_error the byte offset) when it is not JSON, -ENODATA at the end
 */
int json_parse(const char *text, const char **ret_end, size_t *ret_error, struct json **ret);
void json_free(struct json *j);
/* an object's member, or NULL */
const struct json *json_get(const struct json *o, const char *key);
/* a member's value when it has that type, else the fallback */
const char *json_get_string(const struct json *o, const char *key);
double json_get_number(const struct json *o, const char *key, double fallback);
bool json_get_bool(const struct json *o, const char *key, bool fallback);
