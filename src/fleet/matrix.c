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

int matrix_groups(const struct fleet *f, const struct fleet_matrix *m, struct fleet_group **ret,
		  size_t *n_ret)
{
	struct fleet_group *g = NULL;
	size_t n = 0, cap = 0;

	for (size_t k = 0; k < f->n_ports * f->n_ports; k++) {
		const struct fleet_cell *c = &m->cells[k];
		size_t i;

		if (k / f->n_ports == k % f->n_ports || !matrix_failing(c))
			continue;
		for (i = 0; i < n; i++)
			if (g[i].cause == c->cause && g[i].at == c->at)
				break;
		if (i == n) {
			if (array_grow(&g, &cap, n, sizeof(*g), 8) < 0) {
				free(g);
				return -ENOMEM;
			}
			g[n++] = (struct fleet_group){ .cause = c->cause, .at = c->at, .first = k };
		}
		g[i].pairs++;
	}
	if (n)
		qsort(g, n, sizeof(*g), group_cmp);
	*ret = g;
	*n_ret = n;
	return 0;
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
		else
			fputc(*s, out);
	}
}

/* the pairs of group g, folded: a line per source port (a list item in HTML) */
void matrix_fold(const struct fleet *f, const struct fleet_matrix *m, const struct fleet_group *g,
		 bool html, FILE *out)
{
	for (size_t i = 0; i < f->n_ports; i++) {
		bool any = false;

		for (size_t j = 0; j < f->n_ports; j++) {
			const struct fleet_cell *c = &m->cells[i * f->n_ports + j];

			if (i == j || c->cause != g->cause || c->at != g->at)
				continue;
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
			any = true;
		}
		if (any)
			fprintf(out, html ? "</li>\n" : "\n");
	}
}
