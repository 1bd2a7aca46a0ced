// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "snapshot.h"

void snapshot_close(struct ibh_snapshot *s)
{
	free(s->links);
	free(s->addrs);
	if (s->k)
		kernel->close(s->k);
	memset(s, 0, sizeof(*s));
}

int snapshot_open(struct ibh_snapshot *s)
{
	int r;

	memset(s, 0, sizeof(*s));
	r = kernel->open(&s->k);
	if (r >= 0)
		r = kernel->dump_links(s->k, &s->links, &s->n_links);
	if (r >= 0)
		r = kernel->dump_addrs(s->k, 0, &s->addrs, &s->n_addrs);
	if (r < 0)
		snapshot_close(s);
	return r;
}

int snapshot_find_links(const struct ibh_snapshot *s, const char *const *ifnames, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		bool found = false;

		for (size_t i = 0; i < s->n_links && !found; i++)
			found = strcmp(s->links[i].name, ifnames[k]) == 0;
		if (!found) {
			log_error("interface '%s' not found", ifnames[k]);
			return -ENODEV;
		}
	}
	return 0;
}
