/* SPDX-License-Identifier: GPL-2.0-or-later */
/* the fleet view as one HTML page: the matrix in colours, then each cause with its pairs */
#pragma once

#include <stddef.h>
#include <stdio.h>

struct fleet;
struct fleet_group;
struct fleet_matrix;
struct fleet_options;

void render_html(const struct fleet *f, const struct fleet_matrix *m, const struct fleet_group *g,
		 size_t n_groups, const struct fleet_options *o, FILE *out);
