/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who probes what at cluster scale (SPEC 10.1): each IPv4 address of the
 * inventory is asked by `probers` hosts, chosen by rendezvous hashing among
 * the hosts with an up port whose prefix holds it (its own host excluded).
 * Every host computes the same choice from the same inventory: no
 * coordination. And when: a broadcast domain (the asked address's prefix)
 * gets the fleet's requests spread at `rate` per second, each request at
 * its slot in the fleet's order, so that the hosts together keep to the
 * rate. Pure: no I/O, unit-tested.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "fleet.h"

#define SAMPLE_PROBERS_MAX 3

struct sample_host {
	size_t first, n; /* its ports in f->ports */
	uint64_t h;	 /* its name's hash */
};

/* a prefix some up port's IPv4 address is in, and the hosts with such a port */
struct sample_prefix {
	struct ibh_ip pfx;
	size_t *hosts, n_hosts, cap_hosts;
};

struct sample {
	const struct fleet *f;
	struct sample_host *hosts;
	size_t n_hosts;
	size_t *host_of; /* each port's host */
	struct sample_prefix *pfx;
	size_t n_pfx;
};

int sample_init(struct sample *s, const struct fleet *f);
void sample_free(struct sample *s);
/* the score of host name for address a: the highest scores probe it */
uint64_t sample_score(uint64_t host_hash, const struct ibh_ip *a);
uint64_t sample_host_hash(const char *name);
/*
 * The probers of dst, an address of port to: up to k (1..SAMPLE_PROBERS_MAX)
 * hosts, best first, into ret; their number
 */
size_t sample_probers(const struct sample *s, size_t to, const struct ibh_ip *dst, unsigned int k,
		      size_t *ret);
/* where host asks dst from: its first up port with an IPv4 address whose prefix holds dst */
int sample_source(const struct sample *s, size_t host, const struct ibh_ip *dst, size_t *ret_port,
		  size_t *ret_addr);

/* one request this host makes: the destination (port, address), from where, and when */
struct sample_request {
	size_t to, to_addr, from, from_addr;
	unsigned int at_ms; /* its slot in its domain's window */
};

/*
 * This host's (index self) share of the fleet's requests, k probers per
 * address, rate requests per second per domain; *ret_window_ms the longest
 * window of a domain it asks in, *ret_fleet the fleet's requests on those domains
 */
int sample_plan(const struct sample *s, size_t self, unsigned int k, unsigned int rate,
		struct sample_request **ret, size_t *n_ret, unsigned int *ret_window_ms);
