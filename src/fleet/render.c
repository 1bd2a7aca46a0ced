// SPDX-License-Identifier: GPL-2.0-or-later
/* the fleet view in the format asked for: one matrix, one list of causes, one renderer */
#include <stdlib.h>

#include "fleet.h"
#include "matrix.h"
#include "render-html.h"
#include "render-json.h"
#include "render-text.h"
#include "render.h"

int fleet_print(const struct fleet *f, enum fleet_format format, FILE *out)
{
	struct fleet_group *g = NULL;
	struct fleet_matrix m;
	size_t n_groups = 0;
	int r;

	r = matrix_make(f, &m);
	if (r < 0)
		return r;
	r = matrix_groups(f, &m, &g, &n_groups);
	if (r < 0)
		goto cleanup;
	if (format == FLEET_JSON)
		render_json(f, &m, g, n_groups, out);
	else if (format == FLEET_HTML)
		render_html(f, &m, g, n_groups, out);
	else
		render_text(f, &m, g, n_groups, out);
	r = matrix_ok(&m) ? 0 : 1;
cleanup:
	free(g);
	matrix_free(&m);
	return r;
}
