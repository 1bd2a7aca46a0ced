/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --check --fleet FILE, step 2 of the fleet view (SPEC 10): given the joined
 * inventory, this host checks every address of every other host from each of
 * its own: the route from the address, and which hardware addresses answer
 * an ARP request for the peer sent from it (all probes at once, bounded in
 * time). One JSON document (or a line per pair) for the join.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* how step 2 probes ([Fleet] of the configuration) */
struct probe_opts {
	unsigned int probers; /* FleetProbers=: hosts asking each address, 1..3 */
	unsigned int rate;    /* FleetArpRate=: requests per second per broadcast domain */
	int format; /* the answers' version: 2, or 1 (every pair, IB_HOOK_FLEET_FORMAT=1) */
};

#define PROBE_PROBERS_DEFAULT 1
#define PROBE_RATE_DEFAULT    2000

/*
 * path: the joined inventory ("-": stdin). 0 done; -EINVAL: it is not one
 * (*ret_error: the byte), -ENOENT: this host is not in it, or no such file
 */
int probe_run(const char *path, const struct probe_opts *o, bool json, FILE *out,
	      size_t *ret_error);
