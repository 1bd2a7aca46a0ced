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
#include <stdio.h>

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

/*
 * Reading a stream of documents without holding one whole (the fleet view's
 * answers, issue 39): the reader walks objects and arrays a step at a time
 * and gives each value it is asked for as a small tree (json_parse). Memory:
 * the largest single value read, not the document.
 */
struct json_arena;

struct json_reader {
	FILE *in;
	char *buf;
	size_t at, len, cap; /* buf[at..len): read from in, not yet taken */
	size_t offset;	     /* where buf[0] is in the stream */
	/* just after '{' or '[': no ',' before the next member or item */
	bool fresh;
	/* the trees of json_reader_value: the reader's, until its next call */
	struct json_arena *arena;
};

void json_reader_init(struct json_reader *r, FILE *in);
void json_reader_free(struct json_reader *r);
/* the next document's '{': 0; -ENODATA at the end, -EINVAL when it is no object */
int json_reader_object(struct json_reader *r);
/* the next member's key of the object read now into key (size): 1; 0 at its end ('}') */
int json_reader_key(struct json_reader *r, char *key, size_t size);
/* the member's value is an array: its '[' (0), -EINVAL when it is not one */
int json_reader_array(struct json_reader *r);
/* another item in the array read now: 1; 0 at its end (']') */
int json_reader_item(struct json_reader *r);
/* the next value as a tree: the reader's until its next call (not to json_free) */
int json_reader_value(struct json_reader *r, struct json **ret);
/* the next value, skipped */
int json_reader_skip(struct json_reader *r);
/* the byte offset read up to: where an error is */
size_t json_reader_offset(const struct json_reader *r);
