/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A host's routes to the fleet by class (answers version 2): the peers a
 * source address sends the same way, said by prefixes and addresses. A
 * peer's class is the one whose item matches it most specifically (a whole
 * address is the longest prefix; the rest is 0/0): the items are chosen so
 * that this gives every peer exactly the result its own lookup gave. Pure.
 */
#pragma once

#include <stddef.h>

#include "ip.h"

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
