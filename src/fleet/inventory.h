/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --inventory, step 1 of the fleet view (SPEC 10): this host's managed ports
 * as one JSON document on one line (doc/ib-hook-fleet.schema.json), so that
 * a parallel shell's output, one line per host, is the joined inventory.
 */
#pragma once

#include <net/if.h>
#include <stdio.h>

struct ibh_config;

/*
 * 0; -EADDRNOTAVAIL when the kernel reports no hardware address for a
 * managed port (ret_port: its name), nothing printed; or negative errno when
 * the kernel could not be asked
 */
int inventory_run(const struct ibh_config *c, FILE *out, char ret_port[static IF_NAMESIZE]);
