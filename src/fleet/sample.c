// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "array.h"
#include "sample.h"

/* splitmix64's finaliser: every input bit moves every output bit */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t sample_host_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = (h ^ *c) * 0x100000001b3ULL;
	return mix(h);
}

uint64_t sample_score(uint64_t host_hash, const struct ibh_ip *a)
{
	uint64_t x = a->family;

	for (unsigned int i = 0; i < (a->family == AF_INET ? 4u : 16u); i++)
		x = (x << 8 | a->a[i]) ^ (x >> 56) * 0x100000001b3ULL;
	return mix(mix(x) ^ host_hash);
}

void sample_free(struct sample *s)
{
	for (size_t i = 0; i < s->n_pfx; i++)
		free(s->pfx[i].hosts);
	free(s->pfx);
	free(s->hosts);
	free(s->host_of);
	*s = (struct sample){};
}

static int add_prefix(struct sample *s, const struct ibh_ip *addr, size_t host, size_t *cap)
{
	struct ibh_ip p;
	struct sample_prefix *x = NULL;

	ip_prefix(&p, addr);
	for (size_t i = 0; i < s->n_pfx && !x; i++)
		if (ip_equal(&s->pfx[i].pfx, &p))
			x = &s->pfx[i];
	if (!x) {
		if (array_grow(&s->pfx, cap, s->n_pfx, sizeof(*s->pfx), 8) < 0)
			return -ENOMEM;
		x = &s->pfx[s->n_pfx++];
		*x = (struct sample_prefix){ .pfx = p };
	}
	/* a host once per prefix: its ports come together, so it is the last one if there */
	if (x->n_hosts && x->hosts[x->n_hosts - 1] == host)
		return 0;
	if (array_grow(&x->hosts, &x->cap_hosts, x->n_hosts, sizeof(*x->hosts), 16) < 0)
		return -ENOMEM;
	x->hosts[x->n_hosts++] = host;
	return 0;
}

int sample_init(struct sample *s, const struct fleet *f)
{
	size_t cap_hosts = 0, cap_pfx = 0;

	*s = (struct sample){ .f = f };
	s->host_of = calloc(f->n_ports + 1, sizeof(*s->host_of));
	if (!s->host_of)
		goto nomem;
	for (size_t i = 0; i < f->n_ports; i++) {
		if (i == 0 || strcmp(f->ports[i].host, f->ports[i - 1].host) != 0) {
			if (array_grow(&s->hosts, &cap_hosts, s->n_hosts, sizeof(*s->hosts), 64) <
			    0)
				goto nomem;
			s->hosts[s->n_hosts++] =
				(struct sample_host){ .first = i,
						      .h = sample_host_hash(f->ports[i].host) };
		}
		s->hosts[s->n_hosts - 1].n++;
		s->host_of[i] = s->n_hosts - 1;
		if (!f->ports[i].up)
			continue;
		for (size_t k = 0; k < f->ports[i].n_addrs; k++)
			if (f->ports[i].addrs[k].ip.family == AF_INET &&
			    add_prefix(s, &f->ports[i].addrs[k].ip, s->n_hosts - 1, &cap_pfx) < 0)
				goto nomem;
	}
	return 0;
nomem:
	sample_free(s);
	return -ENOMEM;
}

size_t sample_probers(const struct sample *s, size_t to, const struct ibh_ip *dst, unsigned int k,
		      size_t *ret)
{
	uint64_t best[SAMPLE_PROBERS_MAX];
	size_t n = 0, own = s->host_of[to];

	if (k > SAMPLE_PROBERS_MAX)
		k = SAMPLE_PROBERS_MAX;
	for (size_t i = 0; i < s->n_pfx; i++) {
		if (!ip_in_prefix(&s->pfx[i].pfx, dst))
			continue;
		for (size_t j = 0; j < s->pfx[i].n_hosts; j++) {
			size_t h = s->pfx[i].hosts[j], at;
			uint64_t sc;
			bool dup = false;

			if (h == own)
				continue;
			for (size_t x = 0; x < n && !dup; x++)
				dup = ret[x] == h;
			if (dup)
				continue;
			sc = sample_score(s->hosts[h].h, dst);
			/* ties (never in practice) to the host first in the inventory */
			for (at = n; at > 0 &&
				     (best[at - 1] < sc || (best[at - 1] == sc && ret[at - 1] > h));
			     at--)
				;
			if (at >= k)
				continue;
			if (n < k)
				n++;
			memmove(&best[at + 1], &best[at], (n - 1 - at) * sizeof(*best));
			memmove(&ret[at + 1], &ret[at], (n - 1 - at) * sizeof(*ret));
			best[at] = sc;
			ret[at] = h;
		}
	}
	return n;
}

int sample_source(const struct sample *s, size_t host, const struct ibh_ip *dst, size_t *ret_port,
		  size_t *ret_addr)
{
	const struct sample_host *h = &s->hosts[host];

	for (size_t i = h->first; i < h->first + h->n; i++) {
		const struct fleet_port *p = &s->f->ports[i];

		for (size_t k = 0; p->up && k < p->n_addrs; k++)
			if (p->addrs[k].ip.family == AF_INET && !p->addrs[k].stale &&
			    ip_in_prefix(&p->addrs[k].ip, dst)) {
				*ret_port = i;
				*ret_addr = k;
				return 0;
			}
	}
	return -ENOENT;
}

/* a broadcast domain: the prefix of the asked addresses, and the fleet's requests into it */
struct domain {
	struct ibh_ip pfx;
	size_t n;
};

int sample_plan(const struct sample *s, size_t self, unsigned int k, unsigned int rate,
		struct sample_request **ret, size_t *n_ret, unsigned int *ret_window_ms)
{
	const struct fleet *f = s->f;
	_cleanup_free_ struct domain *d = NULL;
	_cleanup_free_ size_t *mine_d = NULL;
	_cleanup_free_ struct sample_request *req = NULL;
	size_t n_d = 0, cap_d = 0, cap = 0, cap_m = 0, n = 0;
	unsigned int window = 0;

	if (rate == 0)
		rate = 1;
	for (size_t i = 0; i < f->n_ports; i++)
		for (size_t a = 0; a < f->ports[i].n_addrs; a++) {
			const struct ibh_ip *dst = &f->ports[i].addrs[a].ip;
			size_t who[SAMPLE_PROBERS_MAX], m, x;
			struct ibh_ip p;

			if (dst->family != AF_INET)
				continue;
			m = sample_probers(s, i, dst, k, who);
			if (m == 0)
				continue;
			ip_prefix(&p, dst);
			for (x = 0; x < n_d && !ip_equal(&d[x].pfx, &p); x++)
				;
			if (x == n_d) {
				if (array_grow(&d, &cap_d, n_d, sizeof(*d), 8) < 0)
					return -ENOMEM;
				d[n_d++] = (struct domain){ .pfx = p };
			}
			for (size_t j = 0; j < m; j++) {
				size_t slot = d[x].n++;
				struct sample_request *q;

				if (who[j] != self)
					continue;
				if (array_grow(&req, &cap, n, sizeof(*req), 64) < 0 ||
				    array_grow(&mine_d, &cap_m, n, sizeof(*mine_d), 64) < 0)
					return -ENOMEM;
				q = &req[n];
				*q = (struct sample_request){ .to = i, .to_addr = a };
				q->at_ms = (unsigned int)((uint64_t)slot * 1000 / rate);
				mine_d[n++] = x;
				/* no source: the inventory's port of this host lost the address */
				if (sample_source(s, self, dst, &q->from, &q->from_addr) < 0)
					q->from = SIZE_MAX;
			}
		}
	for (size_t i = 0; i < n; i++) {
		unsigned int w =
			(unsigned int)(((uint64_t)d[mine_d[i]].n * 1000 + rate - 1) / rate);

		window = w > window ? w : window;
	}
	*ret = TAKE_PTR(req);
	*n_ret = n;
	*ret_window_ms = window;
	return 0;
}
