/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Execute plans: the record written ahead of every add, exact adds and
 * deletes, the read-back on EEXIST, a link that changed or vanished meanwhile.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "array.h"
#include "model.h"

struct ibh_view;

/*
 * How often one pass plans a link. A refusal that may mean the link changed
 * after it was observed (a network manager took its address away, took it
 * down) is answered by observing it again. One more look is what one change
 * needs; a reconnect is two (the address goes, then comes back), and the
 * second may land on the second look. A link that still moves after that is
 * churning faster than a pass: that is said as a failure, and the watcher
 * hears of the changes anyway.
 */
#define PASS_TRIES 3

/* a plan waiting to be executed, and for which link (the journal's fields) */
struct ibh_pending {
	char name[IF_NAMESIZE];
	int ifindex;
	const char *action;
	uint32_t table;
	struct ibh_plan plan;
	unsigned int attempt; /* from 0: how often this pass has planned the link before */
	bool raced;	      /* stopped by a refusal that a fresh observation may answer */
};

struct ibh_apply {
	struct ibh_view *view;
	unsigned long changes; /* kernel objects changed since the engine began */
	/*
	 * links whose state ib-hook put back since engine_invalidate(): an object
	 * it installed that vanished, a main route it deleted that came back, a
	 * setting changed behind its back (the watcher's back-off)
	 */
	struct index_set repaired;
	/* links whose driver refused [IPoIB]: said once in a link's life (the watcher lives long) */
	struct index_set ipoib_warned;
	/* links whose MainRoute=delete left main without a route to their prefix: said once */
	struct index_set bare_said;
	/* SIGTERM or SIGINT came during a plan: it stopped before its deletions, the rest unmade */
	bool stopped;
};

/* SIGTERM or SIGINT is pending (held while plans run) */
bool apply_stop_pending(void);

/*
 * Execute n plans, signals held; quiet_gone: a main route that cannot be
 * given back to a link that went is forgotten without a word (the leftovers)
 */
enum ibh_result apply_change(struct ibh_apply *a, struct ibh_pending *v, size_t n, bool quiet_gone);
/* write what the runs forgot, once at the end */
enum ibh_result apply_flush_record(struct ibh_apply *a);
