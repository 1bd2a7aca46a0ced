// SPDX-License-Identifier: GPL-2.0-or-later
/* the fleet view as text: the counts, then each cause with its pairs folded */
#include <stdio.h>

#include "fleet.h"
#include "matrix.h"
#include "render-text.h"

void render_text(const struct fleet *f, const struct fleet_matrix *m, const struct fleet_group *g,
		 size_t n_groups, FILE *out)
{
	matrix_summary(out, m);
	fprintf(out, "\n");
	if (m->nothing)
		fprintf(out, "not ok: %s\n", m->reason);
	for (size_t k = 0; k < n_groups; k++) {
		const struct fleet_port *at = &f->ports[g[k].at];

		fprintf(out, "---------------\n%s at %s %s (%zu pair%s)\n---------------\n%s\n",
			fleet_cause_word(g[k].cause), at->host, at->ifname, g[k].pairs,
			g[k].pairs == 1 ? "" : "s", m->cells[g[k].first].why);
		matrix_fold(f, m, &g[k], false, out);
	}
}
