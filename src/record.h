/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record of what ib-hook installed: one file per network namespace under
 * /run, so that it lives exactly as long as the kernel state it describes.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* a missing file is an empty record with present = false */
int record_load(const char *path, struct ibh_record *ret);
/* the file's text: the header, then one line per entry in sorted order (malloc'ed) */
char *record_text(const struct ibh_record *r);
/* atomically (rename): the file is either the old text or the new one */
int record_write(const char *path, const char *text);

/* the record entry for rec's object, whatever interface it was made for */
struct ibh_rec *record_find(const struct ibh_record *r, const struct ibh_rec *rec);
int record_add(struct ibh_record *r, const struct ibh_rec *rec);
void record_forget(struct ibh_record *r, const struct ibh_rec *rec);

bool rec_same_object(const struct ibh_rec *a, const struct ibh_rec *b);
/* one line of the file, without newline; and back (-EINVAL on a bad line) */
void rec_format(char *buf, size_t size, const struct ibh_rec *rec);
int rec_parse(const char *line, struct ibh_rec *ret);
