/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What --status and --dry-run print, as text for a person or as one JSON
 * document (--json, schema in ib-hook(8)). Decisions are made before: the
 * verdict comes from the plan, this file only says it.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "model.h"

struct ibh_config;
struct ibh_report;

enum ibh_verdict {
	IBH_VERDICT_OK,
	IBH_VERDICT_DRIFT,
	IBH_VERDICT_DOWN,
	IBH_VERDICT_REFUSED,
	IBH_VERDICT_UNKNOWN, /* a value apply would set could not be read */
	IBH_VERDICT_MAX,
};

/* the verdict makes --status exit 1 */
bool report_verdict_fails(enum ibh_verdict v);

int report_new(FILE *out, bool json, bool status, struct ibh_report **ret);
void report_free(struct ibh_report *r);

/* --status of one managed interface; returns its verdict */
enum ibh_verdict report_status(struct ibh_report *r, const struct ibh_config *c,
			       const struct ibh_observed *o, const struct ibh_plan *p);
/* --status --iface X where X is not managed, or not there */
void report_unmanaged(struct ibh_report *r, const char *ifname, const char *why);
/* --dry-run: what apply would do for one interface */
void report_plan(struct ibh_report *r, const char *ifname, const struct ibh_plan *p);
/* --dry-run of a hook or --iface run: T(X)'s copies are left to the watcher (a # line) */
void report_comment(struct ibh_report *r, const char *ifname, uint32_t table, int watcher);
/* what earlier configurations left (--status: leftovers; --dry-run: operations) */
void report_leftovers(struct ibh_report *r, const struct ibh_plan *p);
/*
 * The closing summary (--status) or the end of the JSON document. Returns
 * true when everything that is up is as apply leaves it and nothing is left.
 */
/* none_why: what "no managed interface" means under this configuration */
bool report_end(struct ibh_report *r, const char *record_path, bool record_present,
		const char *config_files, const char *none_why);
/* s as a JSON string: bytes that are not UTF-8 as \udcXX (see ib-hook(8)) */
void report_json_string(FILE *f, const char *s);
