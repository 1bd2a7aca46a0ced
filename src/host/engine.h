/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"

struct ibh_config;
struct ibh_engine;

enum ibh_mode {
	IBH_MODE_CHANGE, /* apply or remove */
	IBH_MODE_DRY_RUN,
	IBH_MODE_STATUS,
};

struct ibh_request {
	enum ibh_action action;
	enum ibh_mode mode;
	/* from a dispatcher: unknown or unmanaged interfaces are no business of ours */
	bool hook;
	FILE *out; /* --dry-run and --status output */
	bool json; /* ... as one JSON document */
	/* the watcher: a link that is down is handled as networkd-dispatcher's "off" */
	bool down_removes;
	/* the configuration files read, one per line, for the --status summary */
	const char *config_files;
	/* the watcher: links that wait out a fight, which engine_run_all() leaves alone */
	const int *held;
	size_t n_held;
	/*
	 * a hook or --iface run while the watcher of this namespace (that pid)
	 * runs with the same configuration: it follows main's routes, so the
	 * copies of them in T(X) are left to it (no walk of main); 0: none
	 */
	int watcher;
};

/* says why it failed (netlink, no name for the namespace) */
int engine_new(const struct ibh_config *c, struct ibh_engine **ret);
void engine_free(struct ibh_engine *e);
/* the record of this network namespace: RUNSTATEDIR/ib-hook/netns-... */
const char *engine_record_path(const struct ibh_engine *e);
/* runs from now on read c (the watcher's SIGHUP); c outlives them */
void engine_set_config(struct ibh_engine *e, const struct ibh_config *c);
/* forget every cached view of the kernel and the record: a long-lived engine's next run reads anew */
void engine_invalidate(struct ibh_engine *e);
/* every interface asked for by name exists: else "not found" and IBH_USAGE, before any run */
enum ibh_result engine_find_links(struct ibh_engine *e, const char *const *ifnames, size_t n);
enum ibh_result engine_run(struct ibh_engine *e, const char *ifname, const struct ibh_request *req);
/* every managed link that exists; with none, a note on --status */
enum ibh_result engine_run_all(struct ibh_engine *e, const struct ibh_request *req);
/* the link of that index, if it is managed, then what is left over: the watcher's run */
enum ibh_result engine_run_index(struct ibh_engine *e, int ifindex, const struct ibh_request *req);
/*
 * The watcher: main's routes through the managed links are read once and
 * then kept from the notifications that go through the index returned (it
 * lives as long as e), instead of one read of main per link and pass
 */
struct ibh_main_index *engine_follow_main(struct ibh_engine *e);
/* the engine's netlink port: notifications of its own changes carry it */
uint32_t engine_port(const struct ibh_engine *e);
/* how many kernel objects the engine changed so far */
unsigned long engine_changes(const struct ibh_engine *e);
/* the one managed link whose table is table: its ifindex, 0 when none or several, or -errno */
int engine_link_of_table(struct ibh_engine *e, uint32_t table);
/* the links whose state the engine put back since engine_invalidate(), in *ret */
size_t engine_repaired(const struct ibh_engine *e, const int **ret);
/* after the runs: the --status summary or the end of the JSON document, and its verdict */
enum ibh_result engine_end(struct ibh_engine *e, const struct ibh_request *req);
