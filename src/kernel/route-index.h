/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Routes found by their destination: a table, its copies or main's routes
 * through a port may hold tens of thousands (routing on the host), and every
 * question the engine asks of them (is this route there, what comes before
 * it with the same prefix) is about one prefix. Sorted once, O(n log n), or
 * only checked, O(n), when they come in order (a dump, the copies of one),
 * and each destination hashed: a question then costs a look into the hash
 * and the few routes of its prefix.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ibh_ip;
struct ibh_route;

struct route_index {
	const struct ibh_route *routes;
	/* the routes by destination, and in their array's order within one */
	const struct ibh_route **by_dst;
	size_t n;
	/* where each destination starts in by_dst, by a hash of it (open addressing) */
	size_t *starts, mask;
};

/* an index of routes[0..n), which must not move or change while it is used */
int route_index_build(struct route_index *x, const struct ibh_route *routes, size_t n);
void route_index_free(struct route_index *x);
/*
 * The routes whose destination equals dst: *first is where they start in
 * x->by_dst (in the array's order), the return value how many there are
 */
size_t route_index_dst(const struct route_index *x, const struct ibh_ip *dst, size_t *first);
/* where in the array the first route equal to r (route_equal) is, or -1 */
ssize_t route_index_find(const struct route_index *x, const struct ibh_route *r);
/* the routes equal to an earlier one leave v (order kept): the new count, or -ENOMEM */
ssize_t route_dedup(struct ibh_route *v, size_t n);
/* the same for the routes that hit an earlier one of their destination */
ssize_t route_dedup_by(struct ibh_route *v, size_t n,
		       bool (*hit)(const struct ibh_route *earlier, const struct ibh_route *later));
