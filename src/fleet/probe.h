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

/*
 * path: the joined inventory ("-": stdin). 0 done; -EINVAL: it is not one
 * (*ret_error: the byte), -ENOENT: this host is not in it, or no such file
 */
int probe_run(const char *path, bool json, FILE *out, size_t *ret_error);
