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
#include "facts.h"
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
		char silent[FLEET_NAME_MAX + 64] = "no host answered for them";

		m->nothing = false;
		if (m->n_silent)
			snprintf(silent, sizeof(silent), "%s sent no answers%s",
				 f->ports[m->silent[0]].host,
				 m->n_silent > 1 ? " (and more hosts)" : "");
		if (m->not_ok && m->unknown)
			snprintf(m->reason, sizeof(m->reason), "%zu pairs not ok, %zu unknown%s%s",
				 m->not_ok, m->unknown, m->n_silent ? ": " : "",
				 m->n_silent ? silent : "");
		else if (m->not_ok)
			snprintf(m->reason, sizeof(m->reason), "%zu pair%s not ok", m->not_ok,
				 m->not_ok == 1 ? "" : "s");
		else if (m->unknown)
			snprintf(m->reason, sizeof(m->reason), "%zu pair%s unknown: %s", m->unknown,
				 m->unknown == 1 ? "" : "s", silent);
	}
}

bool matrix_ok(const struct fleet_matrix *m)
{
	return !m->reason[0];
}

/* above this many hosts the page folds them into blocks */
#define FOLD_HOSTS 256
/* about this many blocks when folded */
#define FOLD_BLOCKS 64

/* the name without its trailing digits: hosts of one pattern share it */
static size_t stem(const char *host)
{
	size_t n = strlen(host);

	while (n && host[n - 1] >= '0' && host[n - 1] <= '9')
		n--;
	return n;
}

/*
 * The hosts in blocks: each its own up to FOLD_HOSTS; above, runs of hosts
 * whose names differ only in their trailing number (n1..n1024: one run),
 * cut into about FOLD_BLOCKS blocks in all
 */
static int matrix_blocks(const struct fleet *f, struct fleet_matrix *m)
{
	size_t h = 0, size = (f->n_hosts + FOLD_BLOCKS - 1) / FOLD_BLOCKS, n = 0;

	m->host_port = calloc(f->n_hosts + 1, sizeof(*m->host_port));
	m->block_of_host = calloc(f->n_hosts + 1, sizeof(*m->block_of_host));
	m->block_first = calloc(f->n_hosts + 1, sizeof(*m->block_first));
	m->block_last = calloc(f->n_hosts + 1, sizeof(*m->block_last));
	if (!m->host_port || !m->block_of_host || !m->block_first || !m->block_last)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_ports; i += f->ports[i].host_n)
		m->host_port[h++] = i;
	m->folded = f->n_hosts > FOLD_HOSTS;
	for (h = 0; m->folded && h < f->n_hosts && !m->by_rack; h++)
		m->by_rack = *f->ports[m->host_port[h]].group != '\0';
	for (h = 0; h < f->n_hosts; h++) {
		const char *name = f->ports[m->host_port[h]].host;
		const char *group = f->ports[m->host_port[h]].group;
		bool start = h == 0 || !m->folded;
		size_t b = n;

		if (m->by_rack) {
			/* a block per rack or group the inventory names, in the order they come */
			for (b = 0; b < n; b++)
				if (strcmp(f->ports[m->host_port[m->block_first[b]]].group,
					   group) == 0)
					break;
			if (b == n)
				m->block_first[n++] = h;
			m->block_of_host[h] = b;
			m->block_last[b] = h;
			continue;
		}
		if (!start) {
			const char *prev = f->ports[m->host_port[h - 1]].host;

			start = stem(prev) != stem(name) || strncmp(prev, name, stem(name)) != 0 ||
				h - m->block_first[n - 1] >= size;
		}
		if (start)
			m->block_first[n++] = h;
		m->block_of_host[h] = n - 1;
		m->block_last[n - 1] = h;
	}
	m->n_blocks = n;
	m->counts = calloc(n * n * FLEET_CAUSE_MAX + 1, sizeof(*m->counts));
	return m->counts ? 0 : -ENOMEM;
}

const uint32_t *matrix_block(const struct fleet_matrix *m, size_t a, size_t b)
{
	return &m->counts[(a * m->n_blocks + b) * FLEET_CAUSE_MAX];
}

/*
 * A pair of two simple ports (facts.h) of two hosts, in one prefix: ok, and
 * by which probe (c->arp), as the full judge would say; false: ask it
 */
static bool fast_ok(const struct fleet_fast *s, const struct fleet_fast *d, struct fleet_cell *c)
{
	uint8_t arp;

	if (!s->simple || !d->simple || s->host == d->host || !ip_in_prefix(&s->ip, &d->ip) ||
	    d->segs == 2)
		return false;
	c->cause = FLEET_OK;
	c->arp = 0;
	c->missing = 0;
	c->not_probed = false;
	/* no segment of askers holding the source: no probe judges the pair */
	arp = d->segs == 0 || !ip_in_prefix(&d->seg, &s->ip) ? FAST_ARP_NONE
	      : s->v1					     ? d->v1_arp
							     : d->probe_arp;
	/* a version-2 source no probe judges: whether one was due (a hole) is the judge's */
	if (arp == FAST_ARP_OTHER || (arp == FAST_ARP_NONE && !s->v1 && s->ip.family == AF_INET))
		return false;
	c->arp = arp == FAST_ARP_OK ? (s->v1 ? 1 : 2) : 0;
	return true;
}

int matrix_make(const struct fleet *f, struct fleet_matrix *m)
{
	struct fleet_fast *fast, src;
	struct fleet_cell c;
	int r;

	memset(m, 0, sizeof(*m));
	r = matrix_blocks(f, m);
	if (r < 0)
		return r;
	m->silent_from = calloc(f->n_hosts + 1, sizeof(*m->silent_from));
	m->silent_probe = calloc(f->n_hosts + 1, sizeof(*m->silent_probe));
	m->silent = calloc(f->n_hosts + 1, sizeof(*m->silent));
	if (!m->silent_from || !m->silent_probe || !m->silent)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_ports; i += f->ports[i].host_n)
		if (!f->ports[i].reported)
			m->silent[m->n_silent++] = i;
	fast = calloc(f->n_ports + 1, sizeof(*fast));
	if (!fast)
		return -ENOMEM;
	for (size_t j = 0; j < f->n_ports; j++)
		facts_fast_dst(f, j, &fast[j]);
	for (size_t i = 0; i < f->n_ports; i++) {
		size_t bi = m->block_of_host[f->ports[i].host_index];

		facts_fast_src(f, i, &src);
		for (size_t j = 0; j < f->n_ports; j++) {
			size_t bj = m->block_of_host[f->ports[j].host_index];

			if (i == j)
				continue;
			if (!fast_ok(&src, &fast[j], &c))
				fleet_judge_pair(f, i, j, false, &c);
			m->n++;
			m->ok += c.cause == FLEET_OK;
			m->local += c.cause == FLEET_LOCAL;
			m->unknown += c.cause == FLEET_UNKNOWN;
			m->probed += c.arp == 1;
			m->derived += c.arp == 2;
			m->counts[(bi * m->n_blocks + bj) * FLEET_CAUSE_MAX + c.cause]++;
			if (c.cause == FLEET_UNKNOWN && c.missing)
				(c.not_probed
					 ? m->silent_probe
					 : m->silent_from)[f->ports[c.missing - 1].host_index]++;
			if (!matrix_failing(&c))
				continue;
			if (array_grow(&m->fails, &m->cap_fails, m->n_fails, sizeof(*m->fails),
				       1024) < 0) {
				free(fast);
				return -ENOMEM;
			}
			m->fails[m->n_fails++] = (struct fleet_fail){ .k = i * f->n_ports + j,
								      .at = (uint32_t)c.at,
								      .cause = (uint8_t)c.cause };
		}
	}
	free(fast);
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
	size_t n = 0, cap = 0, *slot, *fill = NULL;

	slot = calloc((size_t)FLEET_CAUSE_MAX * f->n_ports + 1, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t x = 0; x < m->n_fails; x++) {
		const struct fleet_fail *c = &m->fails[x];
		size_t *s = &slot[(size_t)c->cause * f->n_ports + c->at];

		if (!*s) {
			if (array_grow(&g, &cap, n, sizeof(*g), 8) < 0)
				goto nomem;
			g[n++] = (struct fleet_group){ .cause = c->cause,
						       .at = c->at,
						       .first = c->k };
			*s = n;
		}
		g[*s - 1].pairs++;
	}
	if (n)
		qsort(g, n, sizeof(*g), group_cmp);
	/* each group's place in by_group, in the order of the groups */
	m->by_group = malloc((m->n_fails + 1) * sizeof(*m->by_group));
	fill = malloc((n + 1) * sizeof(*fill));
	if (!m->by_group || !fill)
		goto nomem;
	for (size_t i = 0, at = 0; i < n; at += g[i++].pairs) {
		g[i].list = at;
		fill[i] = at;
		slot[(size_t)g[i].cause * f->n_ports + g[i].at] = i + 1;
	}
	for (size_t x = 0; x < m->n_fails; x++) {
		const struct fleet_fail *c = &m->fails[x];

		m->by_group[fill[slot[(size_t)c->cause * f->n_ports + c->at] - 1]++] = c->k;
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
	free(m->fails);
	free(m->by_group);
	free(m->host_port);
	free(m->block_of_host);
	free(m->block_first);
	free(m->block_last);
	free(m->counts);
	free(m->silent_from);
	free(m->silent_probe);
	free(m->silent);
	memset(m, 0, sizeof(*m));
}

void matrix_summary(FILE *out, const struct fleet_matrix *m)
{
	fprintf(out, "%zu pairs: %zu ok, %zu not ok", m->n, m->ok, m->not_ok);
	if (m->local)
		fprintf(out, ", %zu local (not judged)", m->local);
	if (m->unknown)
		fprintf(out, ", %zu unknown", m->unknown);
	fprintf(out, "; ARP probed for %zu, derived for %zu", m->probed, m->derived);
}

/* the holes named, up to this many hosts (the summary stays one screen) */
#define HOLES_MAX 8

void matrix_holes(FILE *out, const struct fleet *f, const struct fleet_matrix *m, bool html)
{
	for (size_t k = 0; k < m->n_silent && k < HOLES_MAX; k++) {
		const struct fleet_port *p = &f->ports[m->silent[k]];
		size_t h = p->host_index;

		if (html) {
			fputs("<p class=\"hole\">missing answers: ", out);
			matrix_html_text(out, p->host);
		} else
			fprintf(out, "missing answers: %s", p->host);
		fprintf(out,
			" sent none: %zu pair%s from it unknown, %zu pair%s it was to probe "
			"(ARP) unknown",
			m->silent_from[h], m->silent_from[h] == 1 ? "" : "s", m->silent_probe[h],
			m->silent_probe[h] == 1 ? "" : "s");
		fputs(html ? "</p>\n" : "\n", out);
	}
	if (m->n_silent > HOLES_MAX)
		fprintf(out,
			html ? "<p class=\"hole\">and %zu more hosts sent no answers</p>\n"
			     : "and %zu more hosts sent no answers\n",
			m->n_silent - HOLES_MAX);
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

static void fold_port(const struct fleet *f, size_t i, bool html, FILE *out)
{
	if (html) {
		matrix_html_text(out, f->ports[i].host);
		fprintf(out, " ");
		matrix_html_text(out, f->ports[i].ifname);
	} else
		fprintf(out, "%s %s", f->ports[i].host, f->ports[i].ifname);
}

/*
 * The pairs of group g, folded: a line per source port (a list item in
 * HTML); max: at most so many lines, each of so many destinations, then
 * how many more (0: all)
 */
void matrix_fold_capped(const struct fleet *f, const struct fleet_matrix *m,
			const struct fleet_group *g, bool html, size_t max, FILE *out)
{
	size_t lines = 0, skipped = 0;

	for (size_t x = g->list; x < g->list + g->pairs;) {
		size_t i = m->by_group[x] / f->n_ports, end = x, n;

		/* the cells are in order: a source port's pairs come together */
		while (end < g->list + g->pairs && m->by_group[end] / f->n_ports == i)
			end++;
		if (max && lines == max) {
			skipped += end - x;
			x = end;
			continue;
		}
		fprintf(out, html ? "<li>" : "  ");
		fold_port(f, i, html, out);
		fprintf(out, html ? " &rarr;" : " ->");
		n = max && end - x > max ? max : end - x;
		for (size_t y = x; y < x + n; y++) {
			fprintf(out, " ");
			fold_port(f, m->by_group[y] % f->n_ports, html, out);
		}
		if (n < end - x)
			fprintf(out, " and %zu more", end - x - n);
		fprintf(out, "%s", html ? "</li>\n" : "\n");
		lines++;
		x = end;
	}
	if (skipped)
		fprintf(out, html ? "<li>and %zu more pairs</li>\n" : "  and %zu more pairs\n",
			skipped);
}

/* the pairs of group g, folded: a line per source port (a list item in HTML) */
void matrix_fold(const struct fleet *f, const struct fleet_matrix *m, const struct fleet_group *g,
		 bool html, FILE *out)
{
	matrix_fold_capped(f, m, g, html, 0, out);
}
