/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growing arrays and small sets of link indexes: the lowest floor, with ip.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Room for one more item in *items (n used of *cap, each size bytes),
 * doubling from first: 0, or -ENOMEM with *items as it was
 */
int array_grow(void *items, size_t *cap, size_t n, size_t size, size_t first);
/* ifindex into set (n used of max) once; a full set stays as it is */
void index_set_add(int *set, size_t *n, size_t max, int ifindex);
