/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the hosts' answers said (issue 39), held by port and address, not by
 * pair: each source address's routes by class, each destination address's
 * ARP answers by segment, the few facts of one pair that differ from those
 * (exact facts), each port's stale neighbour entries. The judge (judge.c)
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
/*
 * Whether address id, which no ARP probe of an answer covers, is a hole
 * (SPEC 10.1: each address is asked by FleetProbers= hosts, k as the answers
 * say): every host step 2 chose to ask it sent no answers. *ret_port: the
 * first port of the first of them (SIZE_MAX: not known, out of memory);
 * *ret_k: k. 1 a hole, 0 not (a prober sent answers, or nobody was to ask).
 */
int facts_unprobed(const struct fleet *f, uint32_t id, size_t *ret_port, unsigned int *ret_k);

/*
 * The join's fast path (issue 39): what most pairs of a healthy fleet need,
 * per port, compact (the judge's full path touches each destination port's
 * facts in several places: at 4,096 x 8 the sweep no longer fits a cache)
 */
enum fleet_fast_arp {
	FAST_ARP_NONE,	   /* no probe judges the pair */
	FAST_ARP_OK,	   /* probed, answered by the destination port alone */
	FAST_ARP_NOT_SENT, /* version 1: the pair's own record has no probe */
	FAST_ARP_OTHER,	   /* anything else: the full path */
};

struct fleet_fast {
	struct ibh_ip ip;  /* its one address */
	struct ibh_ip seg; /* the askers' prefix of the destination's one segment */
	uint32_t host;
	bool simple;  /* one address, nothing odd at the port: the fast path may judge it */
	uint8_t segs; /* as destination: 0 no segment, 1 one, 2 more (the full path) */
	uint8_t v1_arp,
		probe_arp; /* enum fleet_fast_arp of that segment, version 1's and the probe's */
	bool v1;	   /* as source: its routes came from a version-1 answer */
};

/* port i as source (simple: its routes one class through itself, no exact fact, no neighbour) */
void facts_fast_src(const struct fleet *f, size_t i, struct fleet_fast *ret);
/*
 * port j as destination (simple: its host's way back one class through
 * itself, or no answer; no neighbour entry of its own)
 */
void facts_fast_dst(const struct fleet *f, size_t j, struct fleet_fast *ret);
