// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the fleet view's readers and join (fleet.c, facts.c,
 * judge.c, json.c) and its renderers (matrix.c, render*.c): what they read
 * comes from other hosts. The input is a joined inventory, a NUL, then the
 * hosts' answers (version 1 or 2), read as the join reads them: record by
 * record from a stream (fleet_read_answers). Beyond "no crash, no leak" it
 * checks that a failed read names a byte inside the text, that every probe
 * read names ports of the inventory, and that the join gives every pair one
 * verdict, a failing one at a port of the fleet, in all three renderings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "render.h"
#include "report.h"

/* report.c brings the whole of --status: the join only needs a JSON string written */
void report_json_string(FILE *f, const char *s)
{
	fprintf(f, "\"%s\"", s);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 2);
	const char *answers;
	struct fleet f = {};
	size_t at = 0;
	FILE *out;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = text[size + 1] = '\0';
	answers = text + strlen(text) + 1;
	if (fleet_read(&f, text, fleet_add_inventory, &at) < 0) {
		if (at > strlen(text))
			abort();
		goto cleanup;
	}
	if (fleet_sort(&f) < 0)
		abort();
	if (answers <= text + size) {
		FILE *in = fmemopen((void *)answers, strlen(answers), "r");

		at = 0;
		if (in && fleet_read_answers(&f, in, &at) < 0 && at > strlen(answers))
			abort();
		if (in)
			fclose(in);
	}
	for (size_t i = 0; i < f.n_probes; i++)
		if (f.probes[i].from >= f.n_ports || f.probes[i].to >= f.n_ports)
			abort();
	for (size_t i = 0; i < f.n_ports; i++)
		for (size_t j = 0; j < f.n_ports; j++) {
			struct fleet_cell c;

			if (i == j)
				continue;
			fleet_judge(&f, i, j, &c);
			if (c.cause >= FLEET_CAUSE_MAX || c.at >= f.n_ports)
				abort();
		}
	out = fopen("/dev/null", "w");
	if (out) {
		for (int k = FLEET_TEXT; k <= FLEET_HTML; k++)
			if (fleet_print(&f, (enum fleet_format)k, out) < 0)
				abort();
		fclose(out);
	}
cleanup:
	fleet_free(&f);
	free(text);
	return 0;
}
