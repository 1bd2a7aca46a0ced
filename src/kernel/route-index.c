// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Routes by destination. The order within one destination is the array's,
 * so that "the first route of the table that ..." is the kernel's first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ip.h"
#include "route-index.h"
#include "route.h"

/*
 * The order of the index: family, address, then prefix length, the order
 * in which the kernel dumps a table (IPv4, then IPv6; a trie walked by
 * key), and so the order of the copies made from main's dump
 */
static int dst_compare(const struct ibh_ip *a, const struct ibh_ip *b)
{
	int c;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	c = memcmp(a->a, b->a, ip_bits(a->family) / 8);
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int by_dst(const void *a, const void *b)
{
	const struct ibh_route *x = *(const struct ibh_route *const *)a,
			       *y = *(const struct ibh_route *const *)b;
	int c = dst_compare(&x->dst, &y->dst);

	/* one array: the address is the order */
	return c ? c : (x > y) - (x < y);
}

#define NONE ((size_t)-1)

static size_t dst_slot(const struct route_index *x, const struct ibh_ip *dst)
{
	return ip_hash(dst, 2166136261u) & x->mask;
}

/* each destination's first place in by_dst, hashed */
static int hash_starts(struct route_index *x)
{
	size_t slots = 16;

	while (slots < 2 * x->n)
		slots *= 2;
	x->starts = malloc(slots * sizeof(*x->starts));
	if (!x->starts)
		return -ENOMEM;
	x->mask = slots - 1;
	for (size_t s = 0; s < slots; s++)
		x->starts[s] = NONE;
	for (size_t k = 0; k < x->n; k++) {
		size_t s;

		if (k && ip_equal(&x->by_dst[k - 1]->dst, &x->by_dst[k]->dst))
			continue;
		for (s = dst_slot(x, &x->by_dst[k]->dst); x->starts[s] != NONE;
		     s = (s + 1) & x->mask)
			;
		x->starts[s] = k;
	}
	return 0;
}

int route_index_build(struct route_index *x, const struct ibh_route *routes, size_t n)
{
	*x = (struct route_index){ .routes = routes, .n = n };
	x->by_dst = malloc((n ? n : 1) * sizeof(*x->by_dst));
	if (!x->by_dst)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		x->by_dst[i] = &routes[i];
	/* a dump is in order already: 200 000 routes are then checked, not sorted */
	for (size_t i = 1; i < n; i++)
		if (by_dst(&x->by_dst[i - 1], &x->by_dst[i]) > 0) {
			qsort(x->by_dst, n, sizeof(*x->by_dst), by_dst);
			break;
		}
	if (hash_starts(x) < 0) {
		route_index_free(x);
		return -ENOMEM;
	}
	return 0;
}

void route_index_free(struct route_index *x)
{
	free(x->by_dst);
	free(x->starts);
	*x = (struct route_index){};
}

size_t route_index_dst(const struct route_index *x, const struct ibh_ip *dst, size_t *first)
{
	size_t end;

	*first = 0;
	for (size_t s = dst_slot(x, dst); x->starts[s] != NONE; s = (s + 1) & x->mask)
		if (ip_equal(&x->by_dst[x->starts[s]]->dst, dst)) {
			*first = x->starts[s];
			for (end = *first; end < x->n && ip_equal(&x->by_dst[end]->dst, dst); end++)
				;
			return end - *first;
		}
	return 0;
}

ssize_t route_index_find(const struct route_index *x, const struct ibh_route *r)
{
	size_t first, n = route_index_dst(x, &r->dst, &first);

	for (size_t k = first; k < first + n; k++)
		if (route_equal(x->by_dst[k], r))
			return x->by_dst[k] - x->routes;
	return -1;
}

ssize_t route_dedup(struct ibh_route *v, size_t n)
{
	return route_dedup_by(v, n, route_equal);
}

ssize_t route_dedup_by(struct ibh_route *v, size_t n,
		       bool (*hit)(const struct ibh_route *earlier, const struct ibh_route *later))
{
	struct route_index x;
	bool *dup = calloc(n ? n : 1, sizeof(*dup));
	size_t kept = 0;

	if (!dup || route_index_build(&x, v, n) < 0) {
		free(dup);
		return -ENOMEM;
	}
	/* within one destination the earlier route comes first: it stays */
	for (size_t k = 0; k < n; k++)
		for (size_t j = k + 1; j < n && ip_equal(&x.by_dst[j]->dst, &x.by_dst[k]->dst); j++)
			if (!dup[x.by_dst[k] - v] && hit(x.by_dst[k], x.by_dst[j]))
				dup[x.by_dst[j] - v] = true;
	route_index_free(&x);
	for (size_t i = 0; i < n; i++)
		if (!dup[i])
			v[kept++] = v[i];
	free(dup);
	return (ssize_t)kept;
}
