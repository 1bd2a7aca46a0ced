/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --join, step 3 of the fleet view (SPEC 10): the joined inventory and the
 * hosts' answers to --check --fleet, read from files, into the matrix
 * (fleet.c) as text, JSON or one HTML page (render.h).
 */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "fleet.h"
#include "render.h"

/* the whole of path ("-": stdin), NUL-terminated; negative errno */
int join_read_file(const char *path, char **ret);
/*
 * 0 every pair between two hosts is ok, 1 one is not (or unknown), -errno
 * when a file could not be read or is no such document (logged, naming it)
 */
int join_run(const char *inventory, const char *const *answers, size_t n_answers,
	     enum fleet_format format, const struct fleet_options *o, FILE *out);
