/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The judged matrix of the fleet view and the causes of its failing pairs:
 * what the renderers (render-*.c) print
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fleet.h"

/* the matrix: n_ports x n_ports cells (the diagonal unused) and the counts */
struct fleet_matrix {
	struct fleet_cell *cells;
	size_t n, ok, not_ok, local, unknown;
	/* why the fleet is not ok; "" when it is (every pair between two hosts seen and ok) */
	char reason[256];
	/* nothing to judge was seen (no port, a host without one, no pair): reason says what */
	bool nothing;
	/* the failing cells, by group (matrix_groups), each group's in cell order */
	size_t *by_group;
};

/* the causes of failing cells, once each (cause and port), most pairs first */
struct fleet_group {
	enum fleet_cause cause;
	size_t at, pairs, first; /* first: a cell index */
	size_t list;		 /* its pairs: m->by_group[list] on */
};

/* every pair judged (fleet_judge); -ENOMEM */
int matrix_make(const struct fleet *f, struct fleet_matrix *m);
/* the groups of m's failing pairs, most pairs first, in *ret (to free); -ENOMEM */
int matrix_groups(const struct fleet *f, struct fleet_matrix *m, struct fleet_group **ret,
		  size_t *n_ret);
void matrix_free(struct fleet_matrix *m);
/* every pair between two hosts seen and ok: m->reason is empty */
bool matrix_ok(const struct fleet_matrix *m);
/* neither ok nor local */
bool matrix_failing(const struct fleet_cell *c);
void matrix_summary(FILE *out, const struct fleet_matrix *m);
/* s with <, >, &, " and ' escaped */
void matrix_html_text(FILE *out, const char *s);
/* the pairs of group g, folded: a line per source port (a list item in HTML) */
void matrix_fold(const struct fleet *f, const struct fleet_matrix *m, const struct fleet_group *g,
		 bool html, FILE *out);
