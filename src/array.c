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

void index_set_add(int *set, size_t *n, size_t max, int ifindex)
{
	for (size_t i = 0; i < *n; i++)
		if (set[i] == ifindex)
			return;
	if (*n < max)
		set[(*n)++] = ifindex;
}
