/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One view of the kernel for a run, and the record: read once, read again
 * only after ib-hook changed something or was told to (view_invalidate).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "main-index.h"
#include "model.h"

struct ibh_config;

struct ibh_view {
	const struct ibh_config *config;
	struct ibh_kernel *k;
	/* the namespace's rules, read once and again only after ib-hook changed them */
	struct ibh_rule *rules;
	size_t n_rules;
	bool rule_protocol;
	bool rules_valid;
	/* every address of the namespace (the same address on two links) */
	struct ibh_addr_entry *addrs;
	size_t n_addrs;
	bool addrs_valid;
	/* links of the namespace, read once by --all */
	struct ibh_link *links;
	size_t n_links;
	bool links_valid;
	/* links asked for one by one (not --all), until view_invalidate() */
	struct {
		int ifindex;
		int r; /* 0 or -ENODEV */
		struct ibh_link link;
	} asked[16];
	size_t n_asked;
	/*
	 * main's routes through the links a run asked for: one dump of main per
	 * link and run, or in the watcher, read once and then followed
	 */
	struct ibh_main_index main;
	/* T(X)'s copies of main's routes are the watcher's (ibh_request.watcher): main is not read */
	bool copies_left;
	/* what ib-hook installed in this namespace */
	char record_path[256];
	/* no netns cookie: the record must name one of the namespace's addresses (record.c) */
	bool record_witnessed;
	/* where the version before witnesses kept it (the inode and lo's birth), or "" */
	char record_legacy[256];
	struct ibh_record record;
	bool record_loaded;
	bool record_dirty; /* forgotten entries not yet written */
	char *record_file; /* the file's text as last read or written; NULL: unknown */
	/* the warning that it is damaged was given, since view_invalidate() */
	bool record_damage_said;
};

int view_open(struct ibh_view *v, const struct ibh_config *c);
void view_close(struct ibh_view *v);
/* forget every cached view of the kernel and the record (a pending write is written first) */
void view_invalidate(struct ibh_view *v);
/* the kernel as it is now: what this pass read of rules, addresses and links is old */
void view_forget_kernel(struct ibh_view *v);

/* every link of the namespace, for --all: later lookups answer from it */
int view_load_links(struct ibh_view *v);
int view_load_addrs(struct ibh_view *v);
/* -ENODEV when there is no such link */
int view_link_by_index(struct ibh_view *v, int ifindex, struct ibh_link *ret);
int view_link_by_name(struct ibh_view *v, const char *name, struct ibh_link *ret);

/* a damaged record is said once and read as absent */
int view_load_record(struct ibh_view *v);
/*
 * The parts of the record that a plan for link ifindex with table needs: its
 * own, and any with an entry in table (0: none)
 */
int view_load_parts(struct ibh_view *v, int ifindex, uint32_t table);
/* a record that says what the file already says is not written again */
int view_save_record(struct ibh_view *v);
/* mark every record entry that no current link and configuration wants */
void view_mark_leftovers(struct ibh_view *v);
/* the record holds something installed for that name, or that link under another name */
bool view_record_names(struct ibh_view *v, const char *ifname, int ifindex);

/* what plan_build() needs to know of link (status: what --status shows, too) */
int observe(struct ibh_view *v, const struct ibh_link *link, enum ibh_action action, bool status,
	    struct ibh_observed *o);
/* every rule of the namespace into o */
int observe_rules(struct ibh_view *v, struct ibh_observed *o);
/* main's route for prefix through oif, if it is there: one lookup, not a dump of main */
int observe_main_route(struct ibh_view *v, struct ibh_observed *o, const struct ibh_ip *prefix,
		       int oif);
/* *ret: a socket bound to no address reaches prefix through main (any link) */
int observe_main_reaches(struct ibh_view *v, const struct ibh_observed *o,
			 const struct ibh_ip *prefix, bool *ret);
/* what plan_leftovers() needs: rules, main's routes, the tables of leftover routes */
int observe_leftovers(struct ibh_view *v, struct ibh_observed *o);
