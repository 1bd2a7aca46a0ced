// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet view as text: the counts, then each cause with its pairs folded;
 * one screen (issue 39): at most GROUPS_MAX causes, each with at most
 * LINES_MAX source ports of LINES_MAX destinations, and how many more,
 * unless every pair is asked for
 */
#include <stdio.h>

#include "fleet.h"
#include "matrix.h"
#include "render-text.h"

#define GROUPS_MAX 12
#define LINES_MAX  6

void render_text(const struct fleet *f, const struct fleet_matrix *m, const struct fleet_group *g,
		 size_t n_groups, const struct fleet_options *o, FILE *out)
{
	size_t shown = o->all_pairs || n_groups <= GROUPS_MAX ? n_groups : GROUPS_MAX, more = 0;

	matrix_summary(out, m);
	fprintf(out, "\n");
	matrix_holes(out, f, m, false);
	if (m->nothing)
		fprintf(out, "not ok: %s\n", m->reason);
	for (size_t k = 0; k < shown; k++) {
		const struct fleet_port *at = &f->ports[g[k].at];
		struct fleet_cell c;

		fleet_judge(f, g[k].first / f->n_ports, g[k].first % f->n_ports, &c);
		fprintf(out, "---------------\n%s at %s %s (%zu pair%s)\n---------------\n%s\n",
			fleet_cause_word(g[k].cause), at->host, at->ifname, g[k].pairs,
			g[k].pairs == 1 ? "" : "s", c.why);
		matrix_fold_capped(f, m, &g[k], false, o->all_pairs ? 0 : LINES_MAX, out);
	}
	for (size_t k = shown; k < n_groups; k++)
		more += g[k].pairs;
	if (shown < n_groups)
		fprintf(out,
			"---------------\nand %zu more causes (%zu pairs): --all-pairs lists "
			"them\n",
			n_groups - shown, more);
}
