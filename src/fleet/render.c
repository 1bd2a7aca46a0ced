// SPDX-License-Identifier: GPL-2.0-or-later
/* the fleet view in the format asked for: one matrix, one list of causes, one renderer */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "matrix.h"
#include "render-html.h"
#include "render-json.h"
#include "render-text.h"
#include "render.h"

int fleet_print(const struct fleet *f, enum fleet_format format, FILE *out)
{
	const struct fleet_options o = {};

	return fleet_print_with(f, format, &o, out);
}

int fleet_print_with(const struct fleet *f, enum fleet_format format, const struct fleet_options *o,
		     FILE *out)
{
	struct fleet_group *g = NULL;
	struct fleet_matrix m;
	size_t n_groups = 0;
	int r;

	if (o->host) {
		size_t i = 0;

		while (i < f->n_ports && strcmp(f->ports[i].host, o->host) != 0)
			i++;
		if (i == f->n_ports)
			return -ENOENT;
	}
	r = matrix_make(f, &m);
	if (r < 0)
		goto cleanup;
	r = matrix_groups(f, &m, &g, &n_groups);
	if (r < 0)
		goto cleanup;
	if (format == FLEET_JSON)
		render_json(f, &m, g, n_groups, o, out);
	else if (format == FLEET_HTML)
		render_html(f, &m, g, n_groups, o, out);
	else
		render_text(f, &m, g, n_groups, o, out);
	r = matrix_ok(&m) ? 0 : 1;
cleanup:
	free(g);
	matrix_free(&m);
	return r;
}
