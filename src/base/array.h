/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Growing arrays, small sets of link indexes, and arrays freed on the way
 * out: the lowest floor, with ip.h.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/*
 * An array freed when its variable goes out of scope, as systemd's
 * _cleanup_free_; TAKE_PTR(p) is p's value, p left NULL: what a function
 * hands to its caller is not freed on the way out
 */
static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_free_ __attribute__((cleanup(freep)))
#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) taken_ = (p);                                                        \
		(p) = NULL;                                                                        \
		taken_;                                                                            \
	})

/*
 * Room for one more item in *items (n used of *cap, each size bytes),
 * doubling from first: 0, or -ENOMEM with *items as it was
 */
int array_grow(void *items, size_t *cap, size_t n, size_t size, size_t first);
/* ifindex into set (n used of max) once: false when the set is full without it */
bool index_array_add(int *set, size_t *n, size_t max, int ifindex);

/* a set of link indexes that grows with what it holds: no count of links is too many */
struct index_set {
	int *items;
	size_t n, cap;
};

bool index_set_has(const struct index_set *s, int ifindex);
/* ifindex into s once: 0, or -ENOMEM with s as it was */
int index_set_add(struct index_set *s, int ifindex);
void index_set_del(struct index_set *s, int ifindex);
void index_set_free(struct index_set *s);
