/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --inventory, step 1 of the fleet view (SPEC 10): this host's managed ports
 * as one JSON document on one line (doc/ib-hook-fleet.schema.json), so that
 * a parallel shell's output, one line per host, is the joined inventory.
 */
#pragma once

#include <stdio.h>

struct ibh_config;

/* 0, or negative errno when the kernel could not be asked */
int inventory_run(const struct ibh_config *c, FILE *out);
