// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>

#include "array.h"

int array_grow(void *items, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t more = *cap ? *cap * 2 : first;
	void *grown;

	if (n < *cap)
		return 0;
	grown = realloc(*(void **)items, more * size);
	if (!grown)
		return -ENOMEM;
	*(void **)items = grown;
	*cap = more;
	return 0;
}

bool index_array_add(int *set, size_t *n, size_t max, int ifindex)
{
	for (size_t i = 0; i < *n; i++)
		if (set[i] == ifindex)
			return true;
	if (*n == max)
		return false;
	set[(*n)++] = ifindex;
	return true;
}

bool index_set_has(const struct index_set *s, int ifindex)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->items[i] == ifindex)
			return true;
	return false;
}

int index_set_add(struct index_set *s, int ifindex)
{
	int r;

	if (index_set_has(s, ifindex))
		return 0;
	r = array_grow(&s->items, &s->cap, s->n, sizeof(*s->items), 8);
	if (r < 0)
		return r;
	s->items[s->n++] = ifindex;
	return 0;
}

void index_set_del(struct index_set *s, int ifindex)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->items[i] == ifindex) {
			s->items[i] = s->items[--s->n];
			return;
		}
}

void index_set_free(struct index_set *s)
{
	free(s->items);
	*s = (struct index_set){};
}
