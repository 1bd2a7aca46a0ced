// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

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
