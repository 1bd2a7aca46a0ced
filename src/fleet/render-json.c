// SPDX-License-Identifier: GPL-2.0-or-later
/* the fleet view as one JSON document (doc/ib-hook-fleet.schema.json) */
#include <stdbool.h>
#include <stdio.h>

#include "fleet.h"
#include "matrix.h"
#include "render-json.h"
#include "report.h"

static void json_port(FILE *out, const char *key, const struct fleet_port *p)
{
	fprintf(out, "\"%s\":{\"host\":", key);
	report_json_string(out, p->host);
	fprintf(out, ",\"interface\":");
	report_json_string(out, p->ifname);
	fprintf(out, "}");
}

/* up to this many ports every pair is listed; above, the failing ones (unless all are asked for) */
#define ALL_PAIRS_MAX_PORTS 256

static void json_pair(FILE *out, const struct fleet *f, size_t i, size_t j, bool first)
{
	struct fleet_cell c;

	fleet_judge(f, i, j, &c);
	fprintf(out, "%s{", first ? "" : ",");
	json_port(out, "from", &f->ports[i]);
	fprintf(out, ",");
	json_port(out, "to", &f->ports[j]);
	fprintf(out, ",\"verdict\":\"%s\"", fleet_cause_word(c.cause));
	if (matrix_failing(&c)) {
		fprintf(out, ",");
		json_port(out, "at", &f->ports[c.at]);
		fprintf(out, ",\"why\":");
		report_json_string(out, c.why);
	}
	fprintf(out, "}");
}

void render_json(const struct fleet *f, const struct fleet_matrix *m, const struct fleet_group *g,
		 size_t n_groups, const struct fleet_options *o, FILE *out)
{
	bool all = o->all_pairs || f->n_ports <= ALL_PAIRS_MAX_PORTS;

	fprintf(out,
		"{\"version\":1,\"summary\":{\"pairs\":%zu,\"ok\":%zu,\"not_ok\":%zu,\"local\":%zu,"
		"\"unknown\":%zu,\"arp_probed\":%zu,\"arp_derived\":%zu,\"missing\":[",
		m->n, m->ok, m->not_ok, m->local, m->unknown, m->probed, m->derived);
	for (size_t k = 0; k < m->n_silent; k++) {
		const struct fleet_port *p = &f->ports[m->silent[k]];

		fprintf(out, "%s{\"host\":", k ? "," : "");
		report_json_string(out, p->host);
		fprintf(out, ",\"unknown_from\":%zu,\"not_probed\":%zu}",
			m->silent_from[p->host_index], m->silent_probe[p->host_index]);
	}
	fprintf(out, "]},\"listed\":\"%s\",\"pairs\":[", all ? "all" : "failing");
	if (all) {
		for (size_t i = 0; i < f->n_ports; i++)
			for (size_t j = 0; j < f->n_ports; j++)
				if (i != j)
					json_pair(out, f, i, j, i == 0 && j == 1);
	} else
		for (size_t x = 0; x < m->n_fails; x++)
			json_pair(out, f, m->fails[x].k / f->n_ports, m->fails[x].k % f->n_ports,
				  x == 0);
	fprintf(out, "],\"causes\":[");
	for (size_t k = 0; k < n_groups; k++) {
		fprintf(out, "%s{\"cause\":\"%s\",", k ? "," : "", fleet_cause_word(g[k].cause));
		json_port(out, "at", &f->ports[g[k].at]);
		fprintf(out, ",\"pairs\":%zu}", g[k].pairs);
	}
	fprintf(out, "],\"ok\":%s", matrix_ok(m) ? "true" : "false");
	if (!matrix_ok(m)) {
		fprintf(out, ",\"reason\":");
		report_json_string(out, m->reason);
	}
	fprintf(out, "}\n");
}
