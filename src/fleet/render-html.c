// SPDX-License-Identifier: GPL-2.0-or-later
/* the fleet view as one HTML page: the matrix in colours, then each cause with its pairs */
#include <stdio.h>
#include <string.h>

#include "fleet.h"
#include "matrix.h"
#include "render-html.h"

/* how many ports host has, counted from port i on (the ports come host by host) */
static size_t host_span(const struct fleet *f, size_t i)
{
	size_t n = 0;

	while (i + n < f->n_ports && strcmp(f->ports[i + n].host, f->ports[i].host) == 0)
		n++;
	return n;
}

void render_html(const struct fleet *f, const struct fleet_matrix *m, const struct fleet_group *g,
		 size_t n_groups, FILE *out)
{
	fprintf(out,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>ib-hook: fleet view</title>\n<style>\n"
		"body{font-family:sans-serif;margin:1em}table.m{border-collapse:collapse}"
		"table.m th{font-size:11px;font-weight:normal;padding:1px 3px}"
		"table.m th.h{font-weight:bold;border:1px solid #888}"
		"td.cell,td.self{width:14px;height:14px;border:1px solid #fff;padding:0}"
		/* a port and itself: no pair, struck through rather than a colour of a verdict */
		"td.self{background:linear-gradient(to top right,#f4f4f4 calc(50%% - 1px),#888,"
		"#f4f4f4 calc(50%% + 1px))}ul.l{font-size:13px}span.k{display:inline-block;"
		"width:12px;height:12px;margin:0 4px;border:1px solid #888;vertical-align:middle}"
		"p.legend>span{white-space:nowrap}"
		"\n");
	for (size_t i = 0; i < FLEET_CAUSE_MAX; i++)
		fprintf(out, ".%s{background:%s}\n", fleet_causes[i].word, fleet_causes[i].colour);
	fprintf(out, "</style></head><body>\n<h1>");
	matrix_summary(out, m);
	fprintf(out, "</h1>\n");
	if (m->nothing) {
		fprintf(out, "<p><strong>Not ok: ");
		matrix_html_text(out, m->reason);
		fprintf(out, "</strong></p>\n");
	}
	fprintf(out, "<p>Rows: the source port; columns: the destination port. "
		     "Hover over a cell for its cause.</p>\n<p class=\"legend\">");
	for (size_t i = 0; i < FLEET_CAUSE_MAX; i++)
		fprintf(out, "<span title=\"%s\"><span class=\"k %s\"></span>%s</span> ",
			fleet_causes[i].meaning, fleet_causes[i].word, fleet_causes[i].word);
	fprintf(out, "</p>\n<table class=\"m\">\n<tr><th></th><th></th>");
	for (size_t j = 0; j < f->n_ports; j += host_span(f, j)) {
		fprintf(out, "<th class=\"h\" colspan=\"%zu\">", host_span(f, j));
		matrix_html_text(out, f->ports[j].host);
		fprintf(out, "</th>");
	}
	fprintf(out, "</tr>\n<tr><th></th><th></th>");
	for (size_t j = 0; j < f->n_ports; j++) {
		fprintf(out, "<th>");
		matrix_html_text(out, f->ports[j].ifname);
		fprintf(out, "</th>");
	}
	fprintf(out, "</tr>\n");
	for (size_t i = 0; i < f->n_ports; i++) {
		fprintf(out, "<tr>");
		if (i == 0 || strcmp(f->ports[i - 1].host, f->ports[i].host) != 0) {
			fprintf(out, "<th class=\"h\" rowspan=\"%zu\">", host_span(f, i));
			matrix_html_text(out, f->ports[i].host);
			fprintf(out, "</th>");
		}
		fprintf(out, "<th>");
		matrix_html_text(out, f->ports[i].ifname);
		fprintf(out, "</th>");
		for (size_t j = 0; j < f->n_ports; j++) {
			const struct fleet_cell *c = &m->cells[i * f->n_ports + j];

			if (i == j) {
				fprintf(out, "<td class=\"self\" title=\"");
				matrix_html_text(out, f->ports[i].host);
				fprintf(out, " ");
				matrix_html_text(out, f->ports[i].ifname);
				fprintf(out, ": the same port, no pair\"></td>");
				continue;
			}
			fprintf(out, "<td class=\"cell %s\" title=\"", fleet_cause_word(c->cause));
			matrix_html_text(out, f->ports[i].host);
			fprintf(out, " ");
			matrix_html_text(out, f->ports[i].ifname);
			fprintf(out, " -> ");
			matrix_html_text(out, f->ports[j].host);
			fprintf(out, " ");
			matrix_html_text(out, f->ports[j].ifname);
			fprintf(out, ": %s", fleet_cause_word(c->cause));
			if (matrix_failing(c)) {
				fprintf(out, " at ");
				matrix_html_text(out, f->ports[c->at].host);
				fprintf(out, " ");
				matrix_html_text(out, f->ports[c->at].ifname);
				fprintf(out, ": ");
				matrix_html_text(out, c->why);
			}
			fprintf(out, "\"></td>");
		}
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
	if (n_groups)
		fprintf(out, "<h2>Failing pairs, by cause</h2>\n");
	for (size_t k = 0; k < n_groups; k++) {
		fprintf(out, "<h3><span class=\"k %s\"></span>%s at ", fleet_cause_word(g[k].cause),
			fleet_cause_word(g[k].cause));
		matrix_html_text(out, f->ports[g[k].at].host);
		fprintf(out, " ");
		matrix_html_text(out, f->ports[g[k].at].ifname);
		fprintf(out, " (%zu pair%s)</h3>\n<p>", g[k].pairs, g[k].pairs == 1 ? "" : "s");
		matrix_html_text(out, m->cells[g[k].first].why);
		fprintf(out, "</p>\n<ul class=\"l\">\n");
		matrix_fold(f, m, &g[k], true, out);
		fprintf(out, "</ul>\n");
	}
	fprintf(out, "</body></html>\n");
}
