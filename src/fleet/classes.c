// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "classes.h"

static bool in_prefix(const struct ibh_ip *pfx, const struct ibh_ip *addr)
{
	unsigned int bits = pfx->len;

	if (pfx->family != addr->family)
		return false;
	if (memcmp(pfx->a, addr->a, bits / 8) != 0)
		return false;
	if (bits % 8) {
		uint8_t m = (uint8_t)(0xff << (8 - bits % 8));

		return (pfx->a[bits / 8] & m) == (addr->a[bits / 8] & m);
	}
	return true;
}

size_t classes_lookup(const struct class_item *items, size_t n, size_t rest,
		      const struct ibh_ip *addr)
{
	int best = -1;
	size_t r = rest;

	for (size_t i = 0; i < n; i++)
		if (items[i].pfx.len > best && in_prefix(&items[i].pfx, addr)) {
			best = items[i].pfx.len;
			r = items[i].result;
		}
	return r;
}

static int by_len(const void *a, const void *b)
{
	const struct ibh_ip *x = a, *y = b;

	return x->len != y->len ? x->len - y->len : ip_compare(x, y);
}

static int push(struct class_item **items, size_t *n, size_t *cap, const struct ibh_ip *pfx,
		size_t result)
{
	if (array_grow(items, cap, *n, sizeof(**items), 8) < 0)
		return -ENOMEM;
	(*items)[(*n)++] = (struct class_item){ .pfx = *pfx, .result = result };
	return 0;
}

int classes_build(const struct ibh_ip *peers, const size_t *result, size_t n,
		  const struct ibh_ip *prefixes, size_t n_prefixes, struct class_item **ret,
		  size_t *n_ret, size_t *ret_rest)
{
	_cleanup_free_ size_t *count = calloc(n + 1, sizeof(*count)),
			      *touched = calloc(n + 1, sizeof(*touched));
	_cleanup_free_ struct ibh_ip *pfx = calloc(n_prefixes + 1, sizeof(*pfx));
	_cleanup_free_ struct class_item *items = NULL;
	size_t n_items = 0, cap = 0, n_pfx = 0, n_general, rest = 0, max_result = 0;

	if (!count || !touched || !pfx)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (result[i] > max_result)
			max_result = result[i];
	free(count);
	count = calloc(max_result + 1, sizeof(*count));
	if (!count)
		return -ENOMEM;
	/* the rest: the most common result (ties: the lowest) */
	for (size_t i = 0; i < n; i++)
		if (++count[result[i]] > count[rest] ||
		    (count[result[i]] == count[rest] && result[i] < rest))
			rest = result[i];
	/* the candidate prefixes of the peers' family, each once, the most general first */
	for (size_t i = 0; i < n_prefixes; i++)
		if (n && prefixes[i].family == peers[0].family &&
		    prefixes[i].len < ip_bits(prefixes[i].family))
			ip_prefix(&pfx[n_pfx++], &prefixes[i]);
	qsort(pfx, n_pfx, sizeof(*pfx), by_len);
	/*
	 * Each prefix where the most common result of its peers is not what the
	 * items so far say for it (the most specific of them holding it: they
	 * are no more specific than it) becomes an item of that result
	 */
	for (size_t i = 0; i < n_pfx; i++) {
		size_t n_touched = 0, best = SIZE_MAX, here;

		if (i && ip_equal(&pfx[i], &pfx[i - 1]))
			continue;
		memset(count, 0, (max_result + 1) * sizeof(*count));
		for (size_t j = 0; j < n; j++) {
			if (!in_prefix(&pfx[i], &peers[j]))
				continue;
			if (count[result[j]]++ == 0)
				touched[n_touched++] = result[j];
		}
		for (size_t t = 0; t < n_touched; t++)
			if (best == SIZE_MAX || count[touched[t]] > count[best] ||
			    (count[touched[t]] == count[best] && touched[t] < best))
				best = touched[t];
		if (best == SIZE_MAX)
			continue;
		here = classes_lookup(items, n_items, rest, &pfx[i]);
		if (best != here && push(&items, &n_items, &cap, &pfx[i], best) < 0)
			return -ENOMEM;
	}
	/* every peer the prefixes say wrong: its own address, the most specific item */
	n_general = n_items;
	for (size_t j = 0; j < n; j++) {
		struct ibh_ip a = peers[j];

		a.len = (uint8_t)ip_bits(a.family);
		if (classes_lookup(items, n_general, rest, &a) != result[j] &&
		    push(&items, &n_items, &cap, &a, result[j]) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(items);
	*n_ret = n_items;
	*ret_rest = rest;
	return 0;
}

size_t classes_result_id(struct class_result **results, size_t *n, size_t *cap,
			 const struct class_result *x)
{
	for (size_t i = 0; i < *n; i++) {
		const struct class_result *y = &(*results)[i];

		if (y->route == x->route && y->table == x->table && strcmp(y->dev, x->dev) == 0 &&
		    y->bound == x->bound && y->via.family == x->via.family &&
		    (!x->via.family || ip_same_address(&y->via, &x->via)))
			return i;
	}
	if (array_grow(results, cap, *n, sizeof(**results), 8) < 0)
		return SIZE_MAX;
	(*results)[*n] = *x;
	return (*n)++;
}
