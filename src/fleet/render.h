/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet view's matrix (fleet.h, matrix.h) as text, as one JSON document
 * or as one HTML page (render-text.c, render-json.c, render-html.c)
 */
#pragma once

#include <stdio.h>

struct fleet;

enum fleet_format {
	FLEET_TEXT,
	FLEET_JSON,
	FLEET_HTML,
};

/* the matrix in format: 0 when no pair is not ok, 1 when one is, -ENOMEM */
int fleet_print(const struct fleet *f, enum fleet_format format, FILE *out);
