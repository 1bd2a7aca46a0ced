/* SPDX-License-Identifier: GPL-2.0-or-later */
/* the fleet view as one JSON document (doc/ib-hook-fleet.schema.json) */
#pragma once

#include <stddef.h>
#include <stdio.h>

struct fleet;
struct fleet_group;
struct fleet_matrix;
struct fleet_options;

void render_json(const struct fleet *f, const struct fleet_matrix *m, const struct fleet_group *g,
		 size_t n_groups, const struct fleet_options *o, FILE *out);
