/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The judged matrix of the fleet view and the causes of its failing pairs:
 * what the renderers (render-*.c) print
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fleet.h"

/* a failing pair: its cell (from * n_ports + to), cause and where it lies */
struct fleet_fail {
	size_t k;
	uint32_t at;
	uint8_t cause;
};

/*
 * The matrix, judged pair by pair and counted (issue 39: no cell per pair):
 * the counts, the failing pairs, and the counts of each block of hosts
 */
struct fleet_matrix {
	size_t n, ok, not_ok, local, unknown;
	/* pairs whose ARP verdict came from their own source's probe, from another host's */
	size_t probed, derived;
	/* why the fleet is not ok; "" when it is (every pair between two hosts seen and ok) */
	char reason[256];
	/* nothing to judge was seen (no port, a host without one, no pair): reason says what */
	bool nothing;
	struct fleet_fail *fails;
	size_t n_fails, cap_fails;
	/* the failing pairs, by group (matrix_groups), each group's in cell order: fails indices */
	size_t *by_group;
	/* the hosts in blocks (one host each, or folded: matrix_blocks), counts by cause */
	size_t n_blocks, *block_of_host, *block_first, *block_last; /* hosts */
	uint32_t *counts;  /* [from block][to block][cause] */
	size_t *host_port; /* each host's first port */
	bool folded;
	/* folded by the racks or groups the inventory names (block_first: a host of each) */
	bool by_rack;
	/*
	 * The holes (issue 47), by host: the pairs unknown because it sent no
	 * answers, its own (from it) and those it alone was to probe; the hosts
	 * that sent none (their first ports), n_silent of them
	 */
	size_t *silent_from, *silent_probe, *silent, n_silent;
};

/* the causes of failing cells, once each (cause and port), most pairs first */
struct fleet_group {
	enum fleet_cause cause;
	size_t at, pairs, first; /* first: a cell index (from * n_ports + to) */
	size_t list;		 /* its pairs: m->by_group[list] on, cell indices */
};

/* what a renderer prints beyond the summary and the causes */
struct fleet_options {
	/* every pair (JSON), every failing pair (text, page): not capped to one screen */
	bool all_pairs;
	/* the page of this host's ports, not the fleet's (--host NAME) */
	const char *host;
};

/* every pair judged (fleet_judge); -ENOMEM */
int matrix_make(const struct fleet *f, struct fleet_matrix *m);
/* the counts of block a to block b by cause */
const uint32_t *matrix_block(const struct fleet_matrix *m, size_t a, size_t b);

/* the groups of m's failing pairs, most pairs first, in *ret (to free); -ENOMEM */
int matrix_groups(const struct fleet *f, struct fleet_matrix *m, struct fleet_group **ret,
		  size_t *n_ret);
void matrix_free(struct fleet_matrix *m);
/* every pair between two hosts seen and ok: m->reason is empty */
bool matrix_ok(const struct fleet_matrix *m);
/* neither ok nor local */
bool matrix_failing(const struct fleet_cell *c);
void matrix_summary(FILE *out, const struct fleet_matrix *m);
/* the hosts that sent no answers and the pairs unknown because of each (html: a paragraph each) */
void matrix_holes(FILE *out, const struct fleet *f, const struct fleet_matrix *m, bool html);
/* s with <, >, &, " and ' escaped */
void matrix_html_text(FILE *out, const char *s);
/* the pairs of group g, folded: a line per source port (a list item in HTML) */
void matrix_fold(const struct fleet *f, const struct fleet_matrix *m, const struct fleet_group *g,
		 bool html, FILE *out);
/* at most max source ports of a group, each with at most max destinations, then "and N more" */
void matrix_fold_capped(const struct fleet *f, const struct fleet_matrix *m,
			const struct fleet_group *g, bool html, size_t max, FILE *out);
