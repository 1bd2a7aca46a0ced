/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the hosts' answers said (issue 39), held by port and address, not by
 * pair: each source address's routes by class, each destination address's
 * ARP answers by segment, the few facts of one pair that differ from those
 * (exact facts), each port's stale neighbour entries. The judge (fleet.c)
 * derives every pair's verdict from them while counting.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "fleet.h"

/* what answered one ARP probe: hardware addresses interned (facts_string) */
struct fleet_arp {
	bool probed;
	uint8_t n;
	uint32_t answers[FLEET_ANSWERS_MAX];
};

/* the facts of one pair of addresses, from (port, address) to an address id */
struct fleet_exact {
	uint64_t key;
	bool has_arp, has_cm;
	struct fleet_arp arp;
	struct fleet_cm_value cm;
};

/* the index of the addresses and the look-ups, after the inventory: -ENOMEM */
int facts_build(struct fleet *f);
void facts_free(struct fleet *f);
const char *facts_string(const struct fleet *f, uint32_t id);
/* the exact facts of (port, its address k) to address id, or NULL */
const struct fleet_exact *facts_exact(const struct fleet *f, size_t port, size_t k, uint32_t id);
/*
 * The ARP answers that judge the pair (port, address k) to address id, when
 * not its exact facts: *ret_derived when another host's probe
 */
const struct fleet_arp *facts_arp(const struct fleet *f, size_t port, size_t k, uint32_t id,
				  bool *ret_derived);
/* the route class from (port, address k) to dst, or NULL when its host said none */
const struct fleet_class *facts_class(const struct fleet_addr *a, const struct ibh_ip *dst);
/* pairs whose ARP was judged by their own probe, by another's */
