/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet view's matrix (fleet.h, matrix.h) as text, as one JSON document
 * or as one HTML page (render-text.c, render-json.c, render-html.c)
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "matrix.h"

struct fleet;

enum fleet_format {
	FLEET_TEXT,
	FLEET_JSON,
	FLEET_HTML,
};

/* the matrix in format: 0 when no pair is not ok, 1 when one is, -ENOMEM */
int fleet_print(const struct fleet *f, enum fleet_format format, FILE *out);
/* the same, with options; -ENOENT: no such host */
int fleet_print_with(const struct fleet *f, enum fleet_format format, const struct fleet_options *o,
		     FILE *out);
