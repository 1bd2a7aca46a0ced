/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A host's routes to the fleet by class (answers version 2): the peers a
 * source address sends the same way, said by prefixes and addresses. A
 * peer's class is the one whose item matches it most specifically (a whole
 * address is the longest prefix; the rest is 0/0): the items are chosen so
 * that this gives every peer exactly the result its own lookup gave. Pure.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ip.h"

/* what a source's lookup to a peer gave: a class's key */
struct class_result {
	bool route;
	char dev[IF_NAMESIZE];
	uint32_t table;
	struct ibh_ip via; /* family 0: none */
	/*
	 * the lookup from the source bound to its own port finds a route
	 * through that port (ROUTE_BOUND_YES/NO), or the kernel cannot say
	 */
	enum { ROUTE_BOUND_UNKNOWN, ROUTE_BOUND_YES, ROUTE_BOUND_NO } bound;
};

struct class_item {
	struct ibh_ip pfx; /* a prefix, or a whole address */
	size_t result;
};

/*
 * peers[i] (whole addresses of one family, each once) got result[i]; the
 * prefixes are the candidates (the inventory's). Into *ret the items, most
 * general first, and *ret_rest the result of everything else (0/0).
 */
int classes_build(const struct ibh_ip *peers, const size_t *result, size_t n,
		  const struct ibh_ip *prefixes, size_t n_prefixes, struct class_item **ret,
		  size_t *n_ret, size_t *ret_rest);
/* the result the items say for addr: the most specific match, else rest */
size_t classes_lookup(const struct class_item *items, size_t n, size_t rest,
		      const struct ibh_ip *addr);
/*
 * x's index in results[0..*n) (results that differ in any field, bound
 * included, have different indexes), appended if new; SIZE_MAX: no memory
 */
size_t classes_result_id(struct class_result **results, size_t *n, size_t *cap,
			 const struct class_result *x);
