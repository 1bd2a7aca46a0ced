/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record of what ib-hook installed: one file per network namespace under
 * /run, so that it lives exactly as long as the kernel state it describes.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/*
 * The largest record read or written. An entry is at most about 170 bytes
 * (a route with two full IPv6 addresses and the largest numbers), and an
 * address needs at most three (its rule, its prefix's table and main
 * routes) and a witness of about 70: 16 ports with 1,000 addresses each
 * need at most about 9.3 MB.
 * Twice that is no record ib-hook wrote, and reading it stays quick under
 * the lock.
 */
#define RECORD_MAX_BYTES (16 * 1024 * 1024)

/*
 * The record's file at path, its parts listed but not read. A missing file
 * is an empty record with present = false. A damaged one (not a regular
 * file, larger than RECORD_MAX_BYTES, a line that is no entry) is -EINVAL,
 * and why says what it is ("is a FIFO"); nothing here blocks.
 */
int record_load(const char *path, struct ibh_record *ret, char *why, size_t size);
/*
 * The entries of part k (of the record at path) among r's. A damaged part
 * is -EINVAL (why says what it is) and read as empty: its file is written
 * again at the next write
 */
int record_load_part(const char *path, struct ibh_record *r, size_t k, char *why, size_t size);
/* the record and every part */
int record_load_all(const char *path, struct ibh_record *ret, char *why, size_t size);
void record_part_path(char *buf, size_t size, const char *path, int ifindex);
/*
 * The record's file's text: the header, then one line per entry but routes,
 * per witness and per part and what its entries are about, sorted (malloc'ed)
 */
char *record_text(const struct ibh_record *r);
/* part k's text, sorted as record_text(); n_entries: how many it holds */
char *record_part_text(const struct ibh_record *r, size_t k, size_t *n_entries);
/*
 * The parts that changed, each written atomically or deleted when it has no
 * entry left: before the record's file (record_text) is written
 */
int record_write_parts(const char *path, struct ibh_record *r);
/* the record's file and its parts */
int record_remove(const char *path);
/*
 * Atomically (rename): the file is either the old text or the new one,
 * whatever was planted there; -EFBIG for a text larger than RECORD_MAX_BYTES
 */
int record_write(const char *path, const char *text);

/* the record entry for rec's object, whatever interface it was made for */
struct ibh_rec *record_find(const struct ibh_record *r, const struct ibh_rec *rec);
int record_add(struct ibh_record *r, const struct ibh_rec *rec);
void record_forget(struct ibh_record *r, const struct ibh_rec *rec);

struct ibh_addr_entry;
/*
 * The record's witnesses become those of addrs (the namespace's) that are on
 * lo or on a link the record names, and that say when they were added
 */
int record_witness(struct ibh_record *r, const struct ibh_addr_entry *addrs, size_t n);
/* 1: one of the record's witnesses is among addrs (same link, address, length and time); 0: none */
int record_witnessed(const struct ibh_record *r, const struct ibh_addr_entry *addrs, size_t n);

bool rec_same_object(const struct ibh_rec *a, const struct ibh_rec *b);
/* one line of the file, without newline; and back (-EINVAL on a bad line) */
void rec_format(char *buf, size_t size, const struct ibh_rec *rec);
int rec_parse(const char *line, struct ibh_rec *ret);
