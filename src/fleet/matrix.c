// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet view's matrix, judged once for every renderer (render-text.c,
 * render-json.c, render-html.c), the causes of its failing pairs grouped, and
 * what more than one renderer writes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "fleet.h"
#include "matrix.h"

/*
 * Nothing seen is not ok (issue 38): an inventory without a port, a host in
 * it without one, or no pair judged (every one local) says so, as do pairs
 * that are not ok or that no host answered for.
 */
static void matrix_reason(const struct fleet *f, struct fleet_matrix *m)
{
	m->nothing = true;
	if (f->n_ports == 0)
		snprintf(m->reason, sizeof(m->reason), "the inventory lists no port%s",
			 f->n_portless ? " (its hosts matched none)" : ", and no host");
	else if (f->n_portless)
		snprintf(m->reason, sizeof(m->reason),
			 "%s%s lists no port: none of its pairs can be judged", f->portless[0],
			 f->n_portless > 1 ? " (and more hosts)" : "");
	else if (m->ok + m->not_ok + m->unknown == 0)
		snprintf(m->reason, sizeof(m->reason), "no pair between two hosts to judge");
	else {
		m->nothing = false;
		if (m->not_ok && m->unknown)
			snprintf(m->reason, sizeof(m->reason), "%zu pairs not ok, %zu unknown",
				 m->not_ok, m->unknown);
		else if (m->not_ok)
			snprintf(m->reason, sizeof(m->reason), "%zu pair%s not ok", m->not_ok,
				 m->not_ok == 1 ? "" : "s");
		else if (m->unknown)
			snprintf(m->reason, sizeof(m->reason),
				 "%zu pair%s unknown: no host answered for them", m->unknown,
				 m->unknown == 1 ? "" : "s");
	}
}

bool matrix_ok(const struct fleet_matrix *m)
{
	return !m->reason[0];
}

int matrix_make(const struct fleet *f, struct fleet_matrix *m)
{
	memset(m, 0, sizeof(*m));
	m->cells = calloc(f->n_ports * f->n_ports + 1, sizeof(*m->cells));
	if (!m->cells)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_ports; i++)
		for (size_t j = 0; j < f->n_ports; j++) {
			struct fleet_cell *c = &m->cells[i * f->n_ports + j];

			if (i == j)
				continue;
			fleet_judge(f, i, j, c);
			m->n++;
			m->ok += c->cause == FLEET_OK;
			m->local += c->cause == FLEET_LOCAL;
			m->unknown += c->cause == FLEET_UNKNOWN;
		}
	m->not_ok = m->n - m->ok - m->local - m->unknown;
	matrix_reason(f, m);
	return 0;
}

bool matrix_failing(const struct fleet_cell *c)
{
	return c->cause != FLEET_OK && c->cause != FLEET_LOCAL;
}

static int group_cmp(const void *a, const void *b)
{
	const struct fleet_group *x = a, *y = b;

	if (x->pairs != y->pairs)
		return x->pairs < y->pairs ? 1 : -1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * One pass over the matrix: a group's slot by its cause and port (an array
 * of causes x ports), then the failing cells listed group by group (a
 * counting sort), so that folding a group reads its own pairs only. The
 * square of the ports in all, where a look-up through the groups and a scan
 * of the matrix per group made it the cube (issue 38).
 */
int matrix_groups(const struct fleet *f, struct fleet_matrix *m, struct fleet_group **ret,
		  size_t *n_ret)
{
	struct fleet_group *g = NULL;
	size_t n = 0, cap = 0, failing = 0, *slot, *fill = NULL;

	slot = calloc((size_t)FLEET_CAUSE_MAX * f->n_ports + 1, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t k = 0; k < f->n_ports * f->n_ports; k++) {
		const struct fleet_cell *c = &m->cells[k];
		size_t *s;

		if (k / f->n_ports == k % f->n_ports || !matrix_failing(c))
			continue;
		s = &slot[(size_t)c->cause * f->n_ports + c->at];
		if (!*s) {
			if (array_grow(&g, &cap, n, sizeof(*g), 8) < 0)
				goto nomem;
			g[n++] = (struct fleet_group){ .cause = c->cause, .at = c->at, .first = k };
			*s = n;
		}
		g[*s - 1].pairs++;
		failing++;
	}
	if (n)
		qsort(g, n, sizeof(*g), group_cmp);
	/* each group's place in by_group, in the order of the groups */
	m->by_group = malloc((failing + 1) * sizeof(*m->by_group));
	fill = malloc((n + 1) * sizeof(*fill));
	if (!m->by_group || !fill)
		goto nomem;
	for (size_t i = 0, at = 0; i < n; at += g[i++].pairs) {
		g[i].list = at;
		fill[i] = at;
		slot[(size_t)g[i].cause * f->n_ports + g[i].at] = i + 1;
	}
	for (size_t k = 0; k < f->n_ports * f->n_ports; k++) {
		const struct fleet_cell *c = &m->cells[k];

		if (k / f->n_ports == k % f->n_ports || !matrix_failing(c))
			continue;
		m->by_group[fill[slot[(size_t)c->cause * f->n_ports + c->at] - 1]++] = k;
	}
	free(fill);
	free(slot);
	*ret = g;
	*n_ret = n;
	return 0;
nomem:
	free(fill);
	free(slot);
	free(g);
	free(m->by_group);
	m->by_group = NULL;
	return -ENOMEM;
}

void matrix_free(struct fleet_matrix *m)
{
	free(m->cells);
	free(m->by_group);
	m->cells = NULL;
	m->by_group = NULL;
}

void matrix_summary(FILE *out, const struct fleet_matrix *m)
{
	fprintf(out, "%zu pairs: %zu ok, %zu not ok", m->n, m->ok, m->not_ok);
	if (m->local)
		fprintf(out, ", %zu local (not judged)", m->local);
	if (m->unknown)
		fprintf(out, ", %zu unknown", m->unknown);
}

void matrix_html_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '"')
			fputs("&quot;", out);
		else if (*s == '\'')
			fputs("&#39;", out);
		else
			fputc(*s, out);
	}
}

/* the pairs of group g, folded: a line per source port (a list item in HTML) */
void matrix_fold(const struct fleet *f, const struct fleet_matrix *m, const struct fleet_group *g,
		 bool html, FILE *out)
{
	for (size_t x = g->list; x < g->list + g->pairs; x++) {
		size_t i = m->by_group[x] / f->n_ports, j = m->by_group[x] % f->n_ports;
		/* the cells are in order: a source port's pairs come together */
		bool any = x > g->list && m->by_group[x - 1] / f->n_ports == i,
		     last = x + 1 == g->list + g->pairs || m->by_group[x + 1] / f->n_ports != i;

		if (!any && html) {
			fprintf(out, "<li>");
			matrix_html_text(out, f->ports[i].host);
			fprintf(out, " ");
			matrix_html_text(out, f->ports[i].ifname);
			fprintf(out, " &rarr;");
		} else if (!any)
			fprintf(out, "  %s %s ->", f->ports[i].host, f->ports[i].ifname);
		if (html) {
			fprintf(out, " ");
			matrix_html_text(out, f->ports[j].host);
			fprintf(out, " ");
			matrix_html_text(out, f->ports[j].ifname);
		} else
			fprintf(out, " %s %s", f->ports[j].host, f->ports[j].ifname);
		if (last)
			fprintf(out, html ? "</li>\n" : "\n");
	}
}
