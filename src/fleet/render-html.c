// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet view as one HTML page, without scripts: the matrix in colours,
 * then each cause with its pairs. Up to PORTS_MAX ports a cell per port
 * pair; above, a cell per pair of hosts (the block of their ports),
 * coloured by its worst verdict with the count of failing pairs, hosts
 * folded into blocks above a few hundred (matrix.c); --host NAME: that
 * host's ports against those of the hosts it has failing pairs with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "matrix.h"
#include "render-html.h"

/* a cell per port pair up to this many ports (32 hosts x 8) */
#define PORTS_MAX 256
/* the hosts a host's page shows besides it */
#define PEERS_MAX 7
/* the failing pairs listed per cause, unless every one is asked for */
#define LINES_MAX 20

/* how many of the ports ports[i..n) are of the host of ports[i] (they come host by host) */
static size_t host_span(const struct fleet *f, const size_t *ports, size_t n, size_t i)
{
	size_t k = 0;

	while (i + k < n && f->ports[ports[i + k]].host_index == f->ports[ports[i]].host_index)
		k++;
	return k;
}

static void port_name(const struct fleet *f, size_t i, FILE *out)
{
	matrix_html_text(out, f->ports[i].host);
	fprintf(out, " ");
	matrix_html_text(out, f->ports[i].ifname);
}

/* the port matrix of ports (n of them), a cell per pair, each judged again for its cause */
static void port_matrix(const struct fleet *f, const size_t *ports, size_t n, FILE *out)
{
	fprintf(out, "<p>Rows: the source port; columns: the destination port. "
		     "Hover over a cell for its cause.</p>\n");
	fprintf(out, "<table class=\"m\">\n<tr><th></th><th></th>");
	for (size_t j = 0; j < n; j += host_span(f, ports, n, j)) {
		fprintf(out, "<th class=\"h\" colspan=\"%zu\">", host_span(f, ports, n, j));
		matrix_html_text(out, f->ports[ports[j]].host);
		fprintf(out, "</th>");
	}
	fprintf(out, "</tr>\n<tr><th></th><th></th>");
	for (size_t j = 0; j < n; j++) {
		fprintf(out, "<th>");
		matrix_html_text(out, f->ports[ports[j]].ifname);
		fprintf(out, "</th>");
	}
	fprintf(out, "</tr>\n");
	for (size_t i = 0; i < n; i++) {
		size_t a = ports[i];

		fprintf(out, "<tr>");
		if (i == 0 || f->ports[ports[i - 1]].host_index != f->ports[a].host_index) {
			fprintf(out, "<th class=\"h\" rowspan=\"%zu\">", host_span(f, ports, n, i));
			matrix_html_text(out, f->ports[a].host);
			fprintf(out, "</th>");
		}
		fprintf(out, "<th>");
		matrix_html_text(out, f->ports[a].ifname);
		fprintf(out, "</th>");
		for (size_t j = 0; j < n; j++) {
			size_t b = ports[j];
			struct fleet_cell c;

			if (a == b) {
				fprintf(out, "<td class=\"self\" title=\"");
				port_name(f, a, out);
				fprintf(out, ": the same port, no pair\"></td>");
				continue;
			}
			fleet_judge(f, a, b, &c);
			fprintf(out, "<td class=\"cell %s\" title=\"", fleet_cause_word(c.cause));
			port_name(f, a, out);
			fprintf(out, " -> ");
			port_name(f, b, out);
			fprintf(out, ": %s", fleet_cause_word(c.cause));
			if (matrix_failing(&c)) {
				fprintf(out, " at ");
				port_name(f, c.at, out);
				fprintf(out, ": ");
				matrix_html_text(out, c.why);
			}
			fprintf(out, "\"></td>");
		}
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
}

/* a block's name: its host, or its first and last host */
static void block_name(const struct fleet *f, const struct fleet_matrix *m, size_t b, FILE *out)
{
	if (m->by_rack) {
		matrix_html_text(out, f->ports[m->host_port[m->block_first[b]]].group);
		return;
	}
	matrix_html_text(out, f->ports[m->host_port[m->block_first[b]]].host);
	if (m->block_last[b] != m->block_first[b]) {
		fprintf(out, "&ndash;");
		matrix_html_text(out, f->ports[m->host_port[m->block_last[b]]].host);
	}
}

/* the worst verdict of counts: the most frequent failing cause, else unknown, ok, local */
static enum fleet_cause worst(const uint32_t *counts, uint32_t *ret_failing)
{
	enum fleet_cause w = FLEET_LOCAL;
	uint32_t most = 0;

	*ret_failing = 0;
	for (int c = 0; c < FLEET_CAUSE_MAX; c++) {
		struct fleet_cell x = { .cause = (enum fleet_cause)c };

		if (!counts[c] || !matrix_failing(&x) || c == FLEET_UNKNOWN)
			continue;
		*ret_failing += counts[c];
		if (counts[c] > most) {
			most = counts[c];
			w = (enum fleet_cause)c;
		}
	}
	if (most)
		return w;
	if (counts[FLEET_UNKNOWN])
		return FLEET_UNKNOWN;
	return counts[FLEET_OK] ? FLEET_OK : FLEET_LOCAL;
}

/* a cell per pair of blocks: its worst verdict's colour, the count of failing pairs, the counts as title */
static void block_matrix(const struct fleet *f, const struct fleet_matrix *m, FILE *out)
{
	fprintf(out,
		"<p>Rows: the source %s; columns: the destination %s. A cell is the block of "
		"their port pairs, coloured by its worst verdict, with the count of failing "
		"pairs; hover over it for the counts. A host's own port matrix: "
		"<code>--join --html --host NAME</code>.</p>\n",
		!m->folded   ? "host"
		: m->by_rack ? "hosts (folded by the inventory's group)"
			     : "hosts (folded by name)",
		m->folded ? "hosts" : "host");
	fprintf(out, "<table class=\"b\">\n<tr><th></th>");
	for (size_t b = 0; b < m->n_blocks; b++) {
		fprintf(out, "<th class=\"v\"><div>");
		block_name(f, m, b, out);
		fprintf(out, "</div></th>");
	}
	fprintf(out, "</tr>\n");
	for (size_t a = 0; a < m->n_blocks; a++) {
		fprintf(out, "<tr><th>");
		block_name(f, m, a, out);
		fprintf(out, "</th>");
		for (size_t b = 0; b < m->n_blocks; b++) {
			const uint32_t *n = matrix_block(m, a, b);
			uint32_t failing, all = 0;
			enum fleet_cause w = worst(n, &failing);

			for (int c = 0; c < FLEET_CAUSE_MAX; c++)
				all += n[c];
			if (!all) {
				fprintf(out, "<td></td>");
				continue;
			}
			fprintf(out, "<td class=\"%s\" title=\"", fleet_cause_word(w));
			block_name(f, m, a, out);
			fprintf(out, " -&gt; ");
			block_name(f, m, b, out);
			fprintf(out, ": %u pairs", all);
			for (int c = 0; c < FLEET_CAUSE_MAX; c++)
				if (n[c])
					fprintf(out, ", %u %s", n[c],
						fleet_cause_word((enum fleet_cause)c));
			fprintf(out, "\">");
			if (failing)
				fprintf(out, "%u", failing);
			fprintf(out, "</td>");
		}
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
}

/* host's ports and those of the hosts it has a failing pair with (at most PEERS_MAX), host by host */
static size_t *host_ports(const struct fleet *f, const struct fleet_matrix *m, const char *host,
			  size_t *ret_n)
{
	bool *with = calloc(f->n_hosts + 1, sizeof(*with));
	size_t *ports = calloc(f->n_ports + 1, sizeof(*ports)), n = 0, peers = 0, h = 0;

	if (!with || !ports) {
		free(with);
		free(ports);
		return NULL;
	}
	while (strcmp(f->ports[m->host_port[h]].host, host) != 0)
		h++;
	with[h] = true;
	for (size_t x = 0; x < m->n_fails; x++) {
		size_t a = f->ports[m->fails[x].k / f->n_ports].host_index,
		       b = f->ports[m->fails[x].k % f->n_ports].host_index,
		       other = a == h	? b
			       : b == h ? a
					: SIZE_MAX;

		if (other != SIZE_MAX && !with[other] && peers < PEERS_MAX) {
			with[other] = true;
			peers++;
		}
	}
	for (size_t i = 0; i < f->n_ports; i++)
		if (with[f->ports[i].host_index])
			ports[n++] = i;
	free(with);
	*ret_n = n;
	return ports;
}

void render_html(const struct fleet *f, const struct fleet_matrix *m, const struct fleet_group *g,
		 size_t n_groups, const struct fleet_options *o, FILE *out)
{
	bool small = f->n_ports <= PORTS_MAX, all = o->all_pairs || small;

	fprintf(out,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>ib-hook: fleet view</title>\n<style>\n"
		"body{font-family:sans-serif;margin:1em}h1{font-size:20px}table.m{border-collapse:"
		"collapse}"
		"table.m th{font-size:11px;font-weight:normal;padding:1px 3px}"
		"table.m th.h{font-weight:bold;border:1px solid #888}"
		"td.cell,td.self{width:14px;height:14px;border:1px solid #fff;padding:0}"
		/* a port and itself: no pair, struck through rather than a colour of a verdict */
		"td.self{background:linear-gradient(to top right,#f4f4f4 calc(50%% - 1px),#888,"
		"#f4f4f4 calc(50%% + 1px))}ul.l{font-size:13px}span.k{display:inline-block;"
		"width:12px;height:12px;margin:0 4px;border:1px solid #888;vertical-align:middle}"
		"p.legend>span{white-space:nowrap}"
		"table.b{border-collapse:collapse;font-size:9px}"
		"table.b td{min-width:12px;height:12px;padding:0 1px;border:1px solid #fff;"
		"text-align:center}table.b th{font-weight:normal;padding:0 2px;text-align:right;"
		"white-space:nowrap}table.b th.v{vertical-align:bottom;height:8em}"
		"table.b th.v>div{writing-mode:vertical-rl;transform:rotate(180deg)}"
		"\n");
	for (size_t i = 0; i < FLEET_CAUSE_MAX; i++)
		fprintf(out, ".%s{background:%s}\n", fleet_causes[i].word, fleet_causes[i].colour);
	fprintf(out, "</style></head><body>\n<h1>");
	matrix_summary(out, m);
	fprintf(out, "</h1>\n");
	matrix_holes(out, f, m, true);
	if (m->nothing) {
		fprintf(out, "<p><strong>Not ok: ");
		matrix_html_text(out, m->reason);
		fprintf(out, "</strong></p>\n");
	}
	fprintf(out, "<p class=\"legend\">");
	for (size_t i = 0; i < FLEET_CAUSE_MAX; i++)
		fprintf(out, "<span title=\"%s\"><span class=\"k %s\"></span>%s</span> ",
			fleet_causes[i].meaning, fleet_causes[i].word, fleet_causes[i].word);
	fprintf(out, "</p>\n");
	if (o->host) {
		size_t n = 0, *ports = host_ports(f, m, o->host, &n);

		fprintf(out, "<h2>");
		matrix_html_text(out, o->host);
		fprintf(out, " and the hosts it has failing pairs with</h2>\n");
		if (ports)
			port_matrix(f, ports, n, out);
		free(ports);
	} else if (small) {
		size_t *ports = calloc(f->n_ports + 1, sizeof(*ports));

		for (size_t i = 0; ports && i < f->n_ports; i++)
			ports[i] = i;
		if (ports)
			port_matrix(f, ports, f->n_ports, out);
		free(ports);
	} else
		block_matrix(f, m, out);
	if (n_groups)
		fprintf(out, "<h2>Failing pairs, by cause</h2>\n");
	for (size_t k = 0; k < n_groups; k++) {
		struct fleet_cell c;

		fleet_judge(f, g[k].first / f->n_ports, g[k].first % f->n_ports, &c);
		fprintf(out, "<h3><span class=\"k %s\"></span>%s at ", fleet_cause_word(g[k].cause),
			fleet_cause_word(g[k].cause));
		port_name(f, g[k].at, out);
		fprintf(out, " (%zu pair%s)</h3>\n<p>", g[k].pairs, g[k].pairs == 1 ? "" : "s");
		matrix_html_text(out, c.why);
		fprintf(out, "</p>\n<ul class=\"l\">\n");
		matrix_fold_capped(f, m, &g[k], true, all ? 0 : LINES_MAX, out);
		fprintf(out, "</ul>\n");
	}
	fprintf(out, "</body></html>\n");
}
