// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The answers of --check --fleet read into facts (facts.h), streaming:
 * version 1 (one record per pair: each source address's routes are folded
 * into the way most peers go plus the exceptions, each ARP answer into its
 * destination's segment unless it differs), and version 2 (routes by class,
 * sampled ARP and RDMA CM, the host's stale neighbour entries), mixed.
 * Memory grows with the ports and with what differs, not with the pairs.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "array.h"
#include "facts.h"
#include "fleet.h"
#include "json.h"
#include "sample.h"

/* the ARP answers for one address, from the askers of one segment (their prefix) */
struct fleet_seg {
	struct ibh_ip segment;
	/* what the first version-1 asker found (the others: exact facts where they differ) */
	bool has_v1, has_probe;
	struct fleet_arp v1;
	/* the first probe that went out (either version): what askers that did not ask are judged by */
	struct fleet_arp probe;
};

struct fleet_dst {
	struct fleet_seg *segs;
	size_t n, cap;
	size_t port; /* the first port holding the address */
};

struct fleet_slot {
	struct ibh_ip ip;
	size_t port, k;
};

/* an RDMA CM probe of a version-2 answer: from (port, address k) to address id */
struct cm_sample {
	size_t port, k;
	uint32_t id;
};

/* the version-1 pairs of the answer being read, until each source's usual way is known */
struct pending {
	uint32_t port, k, dst, route, cm;
	struct ibh_ip ip; /* the peer's address */
};

struct fleet_facts {
	char **strings;
	size_t n_strings, cap_strings;
	uint32_t *str_hash; /* id + 1, open addressing */
	size_t str_hcap;
	struct fleet_slot *slots; /* every (port, address) by address */
	size_t n_slots;
	struct fleet_dst *dsts; /* by address id */
	size_t n_ids;
	struct fleet_exact *exact;
	size_t n_exact, cap_exact;
	uint32_t *ex_hash; /* index + 1 */
	size_t ex_hcap;
	struct pending *pend;
	size_t n_pend, cap_pend;
	/* the RDMA CM probes of the version-2 answer being read, for its classes */
	struct cm_sample *cm_pend;
	size_t n_cm_pend, cap_cm_pend;
	/* the most probers per address an answer said (probing.probers; 0: none said) */
	unsigned int probers;
	/*
	 * By address id, once asked (facts_unprobed): 0 not yet, 1 a prober of it
	 * sent answers (or it has none), else 2 + the first port of the host that
	 * was to ask it first and sent none
	 */
	size_t *unprobed;
	struct sample sample;
};

/*
 * key's member of o, looked for first at index hint (where ib-hook writes
 * it: one comparison per member instead of one per key and member), then anywhere
 */
static const struct json *get(const struct json *o, const char *key, size_t hint)
{
	if (o->type == JSON_OBJECT && hint < o->n_items && strcmp(o->keys[hint], key) == 0)
		return o->items[hint];
	return json_get(o, key);
}

static const char *get_string(const struct json *o, const char *key, size_t hint)
{
	const struct json *v = get(o, key, hint);

	return v && v->type == JSON_STRING ? v->s : NULL;
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

const char *facts_string(const struct fleet *f, uint32_t id)
{
	return id < f->facts->n_strings ? f->facts->strings[id] : "";
}

/* s's number, the same for the same text */
static int intern(struct fleet *f, const char *s, uint32_t *ret)
{
	struct fleet_facts *x = f->facts;
	size_t i;

	if (x->n_strings * 2 >= x->str_hcap) {
		size_t cap = x->str_hcap ? x->str_hcap * 2 : 256;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -ENOMEM;
		for (size_t k = 0; k < x->n_strings; k++) {
			for (i = str_hash(x->strings[k]) & (cap - 1); h[i]; i = (i + 1) & (cap - 1))
				;
			h[i] = (uint32_t)k + 1;
		}
		free(x->str_hash);
		x->str_hash = h;
		x->str_hcap = cap;
	}
	for (i = str_hash(s) & (x->str_hcap - 1); x->str_hash[i]; i = (i + 1) & (x->str_hcap - 1))
		if (strcmp(x->strings[x->str_hash[i] - 1], s) == 0) {
			*ret = x->str_hash[i] - 1;
			return 0;
		}
	if (array_grow(&x->strings, &x->cap_strings, x->n_strings, sizeof(*x->strings), 64) < 0)
		return -ENOMEM;
	x->strings[x->n_strings] = strdup(s);
	if (!x->strings[x->n_strings])
		return -ENOMEM;
	x->str_hash[i] = (uint32_t)++x->n_strings;
	*ret = (uint32_t)(x->n_strings - 1);
	return 0;
}

static uint64_t exact_key(size_t port, size_t k, uint32_t id)
{
	return ((uint64_t)port << 40) ^ ((uint64_t)(k & 0xff) << 32) ^ id;
}

static struct fleet_exact *exact_find(const struct fleet_facts *x, uint64_t key)
{
	if (!x->ex_hcap)
		return NULL;
	for (size_t i = mix(key) & (x->ex_hcap - 1); x->ex_hash[i]; i = (i + 1) & (x->ex_hcap - 1))
		if (x->exact[x->ex_hash[i] - 1].key == key)
			return &x->exact[x->ex_hash[i] - 1];
	return NULL;
}

/* the exact facts of (port, k) to id, made when there are none */
static int exact_get(struct fleet *f, size_t port, size_t k, uint32_t id, struct fleet_exact **ret)
{
	struct fleet_facts *x = f->facts;
	uint64_t key = exact_key(port, k, id);
	size_t i;

	*ret = exact_find(x, key);
	if (*ret)
		return 0;
	if (x->n_exact * 2 >= x->ex_hcap) {
		size_t cap = x->ex_hcap ? x->ex_hcap * 2 : 1024;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -ENOMEM;
		for (size_t e = 0; e < x->n_exact; e++) {
			for (i = mix(x->exact[e].key) & (cap - 1); h[i]; i = (i + 1) & (cap - 1))
				;
			h[i] = (uint32_t)e + 1;
		}
		free(x->ex_hash);
		x->ex_hash = h;
		x->ex_hcap = cap;
	}
	if (array_grow(&x->exact, &x->cap_exact, x->n_exact, sizeof(*x->exact), 256) < 0)
		return -ENOMEM;
	for (i = mix(key) & (x->ex_hcap - 1); x->ex_hash[i]; i = (i + 1) & (x->ex_hcap - 1))
		;
	x->ex_hash[i] = (uint32_t)++x->n_exact;
	*ret = &x->exact[x->n_exact - 1];
	memset(*ret, 0, sizeof(**ret));
	(*ret)->key = key;
	f->ports[port].addrs[k].n_exact_from++;
	return 0;
}

const struct fleet_exact *facts_exact(const struct fleet *f, size_t port, size_t k, uint32_t id)
{
	if (!f->facts || !f->ports[port].addrs[k].n_exact_from)
		return NULL;
	return exact_find(f->facts, exact_key(port, k, id));
}

static int slot_cmp(const void *x, const void *y)
{
	const struct fleet_slot *a = x, *b = y;
	int c = a->ip.family - b->ip.family;

	if (!c)
		c = memcmp(a->ip.a, b->ip.a, sizeof(a->ip.a));
	if (!c)
		c = a->port < b->port ? -1 : a->port > b->port;
	return c;
}

/* the id of address ip (whole), or -ENOENT */
static int address_id(const struct fleet *f, const struct ibh_ip *ip, uint32_t *ret)
{
	const struct fleet_facts *x = f->facts;
	struct fleet_slot key = { .ip = *ip };
	size_t lo = 0, hi = x->n_slots;

	memset(key.ip.a + (ip->family == AF_INET ? 4 : 16), 0, ip->family == AF_INET ? 12 : 0);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key.ip.family - x->slots[mid].ip.family;

		if (!c)
			c = memcmp(key.ip.a, x->slots[mid].ip.a, sizeof(key.ip.a));
		if (c > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == x->n_slots || !ip_same_address(&x->slots[lo].ip, ip))
		return -ENOENT;
	*ret = f->ports[x->slots[lo].port].addrs[x->slots[lo].k].id;
	return 0;
}

static void facts_free(struct fleet *f)
{
	struct fleet_facts *x = f->facts;

	if (!x)
		return;
	for (size_t i = 0; i < x->n_strings; i++)
		free(x->strings[i]);
	free(x->strings);
	free(x->str_hash);
	free(x->slots);
	for (size_t i = 0; i < x->n_ids; i++)
		free(x->dsts[i].segs);
	free(x->dsts);
	free(x->exact);
	free(x->ex_hash);
	free(x->pend);
	free(x->cm_pend);
	free(x->unprobed);
	sample_free(&x->sample);
	free(x);
	f->facts = NULL;
	for (size_t i = 0; i < f->n_ports; i++) {
		for (size_t k = 0; k < f->ports[i].n_addrs; k++) {
			free(f->ports[i].addrs[k].classes);
			free(f->ports[i].addrs[k].cms);
		}
		free(f->ports[i].neigh);
	}
}

/*
 * Here, not in fleet.c: the facts hang off the ports, and only this floor
 * knows them; fleet.c, below, never calls up into it
 */
void fleet_free(struct fleet *f)
{
	facts_free(f);
	fleet_free_ports(f);
}

static int addr_cmp(const void *x, const void *y)
{
	const struct fleet_addr *a = x, *b = y;

	if (a->ip.family != b->ip.family)
		return a->ip.family < b->ip.family ? -1 : 1;
	return memcmp(a->ip.a, b->ip.a, sizeof(a->ip.a));
}

/*
 * Every address by value: its id, the ports that list one address twice
 * (an address conflict), and one hardware address on two ports
 */
int facts_build(struct fleet *f)
{
	struct fleet_facts *x;
	size_t n = 0, id = 0;

	if (f->facts)
		return 0;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	f->facts = x;
	/* each port's addresses by family and value: the order the judge takes pairs in */
	for (size_t i = 0; i < f->n_ports; i++)
		if (f->ports[i].n_addrs > 1)
			qsort(f->ports[i].addrs, f->ports[i].n_addrs, sizeof(*f->ports[i].addrs),
			      addr_cmp);
	for (size_t i = 0; i < f->n_ports; i++)
		n += f->ports[i].n_addrs;
	x->slots = calloc(n + 1, sizeof(*x->slots));
	x->dsts = calloc(n + 1, sizeof(*x->dsts));
	if (!x->slots || !x->dsts)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_ports; i++)
		for (size_t k = 0; k < f->ports[i].n_addrs; k++) {
			struct fleet_slot *s = &x->slots[x->n_slots++];

			s->ip = f->ports[i].addrs[k].ip;
			s->ip.len = (uint8_t)ip_bits(s->ip.family);
			s->port = i;
			s->k = k;
		}
	if (n)
		qsort(x->slots, n, sizeof(*x->slots), slot_cmp);
	for (size_t i = 0; i < n; i++) {
		struct fleet_addr *a = &f->ports[x->slots[i].port].addrs[x->slots[i].k];

		if (i && ip_same_address(&x->slots[i - 1].ip, &x->slots[i].ip)) {
			struct fleet_addr *b =
				&f->ports[x->slots[i - 1].port].addrs[x->slots[i - 1].k];

			if (x->slots[i - 1].port != x->slots[i].port) {
				a->conflict = x->slots[i - 1].port + 1;
				if (!b->conflict)
					b->conflict = x->slots[i].port + 1;
			}
			a->id = b->id;
			continue;
		}
		x->dsts[id].port = x->slots[i].port;
		a->id = (uint32_t)id++;
	}
	x->n_ids = id;
	for (size_t i = 0; i < f->n_ports; i++)
		if (intern(f, f->ports[i].hwaddr, &f->ports[i].hw_id) < 0)
			return -ENOMEM;
	for (size_t i = 1; i < f->n_indexed; i++) {
		const struct fleet_port *p = f->by_hwaddr[i - 1], *q = f->by_hwaddr[i];

		if (*p->hwaddr && strcasecmp(p->hwaddr, q->hwaddr) == 0) {
			f->ports[q - f->ports].hw_conflict = (size_t)(p - f->ports) + 1;
			if (!p->hw_conflict)
				f->ports[p - f->ports].hw_conflict = (size_t)(q - f->ports) + 1;
		}
	}
	return 0;
}

/* the address k of port whose address is ip, or -ENOENT */
static int addr_of(const struct fleet_port *p, const struct ibh_ip *ip, size_t *ret)
{
	for (size_t k = 0; k < p->n_addrs; k++)
		if (ip_same_address(&p->addrs[k].ip, ip)) {
			*ret = k;
			return 0;
		}
	return -ENOENT;
}

const struct fleet_class *facts_class(const struct fleet_addr *a, const struct ibh_ip *dst)
{
	for (size_t i = 0; i < a->n_classes; i++) {
		const struct fleet_class *c = &a->classes[i];

		if (c->peers.len == 0 ? true : ip_in_prefix(&c->peers, dst))
			return c;
	}
	return NULL;
}

static struct fleet_seg *seg_of(const struct fleet *f, uint32_t id, const struct ibh_ip *src)
{
	struct fleet_dst *d = &f->facts->dsts[id];

	for (size_t i = 0; i < d->n; i++)
		if (ip_in_prefix(&d->segs[i].segment, src))
			return &d->segs[i];
	return NULL;
}

const struct fleet_arp *facts_arp(const struct fleet *f, size_t port, size_t k, uint32_t id,
				  bool *ret_derived)
{
	const struct fleet_addr *a = &f->ports[port].addrs[k];
	const struct fleet_seg *s;

	*ret_derived = false;
	if (!f->facts || a->ip.family != AF_INET)
		return NULL;
	s = seg_of(f, id, &a->ip);
	if (!s)
		return NULL;
	if (a->v1)
		return s->has_v1 ? &s->v1 : NULL;
	*ret_derived = true;
	return s->has_probe ? &s->probe : NULL;
}

static bool arp_same(const struct fleet_arp *a, const struct fleet_arp *b)
{
	return a->probed == b->probed && a->n == b->n &&
	       memcmp(a->answers, b->answers, a->n * sizeof(a->answers[0])) == 0;
}

static int arp_of(struct fleet *f, const struct json *arp, struct fleet_arp *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!arp || arp->type != JSON_ARRAY)
		return 0;
	ret->probed = true;
	for (size_t i = 0; i < arp->n_items && ret->n < FLEET_ANSWERS_MAX; i++) {
		int r;

		if (arp->items[i]->type != JSON_STRING ||
		    strlen(arp->items[i]->s) >= FLEET_HWADDR_MAX)
			continue;
		r = intern(f, arp->items[i]->s, &ret->answers[ret->n]);
		if (r < 0)
			return r;
		ret->n++;
	}
	return 0;
}

/* the segment of dst id for askers from src (its prefix), made when new */
static int seg_get(struct fleet *f, uint32_t id, const struct ibh_ip *src, struct fleet_seg **ret)
{
	struct fleet_dst *d = &f->facts->dsts[id];

	*ret = seg_of(f, id, src);
	if (*ret)
		return 0;
	if (array_grow(&d->segs, &d->cap, d->n, sizeof(*d->segs), 1) < 0)
		return -ENOMEM;
	*ret = &d->segs[d->n++];
	memset(*ret, 0, sizeof(**ret));
	(*ret)->segment = *src;
	return 0;
}

/*
 * An ARP probe of the pair (port, address k) to dst id: exact where the
 * pair is local or differs from its segment's, else the segment's
 */
static int add_arp(struct fleet *f, size_t port, size_t k, size_t to, uint32_t id,
		   const struct fleet_arp *arp, bool v1)
{
	const struct fleet_addr *a = &f->ports[port].addrs[k];
	bool local = f->ports[port].host_index == f->ports[to].host_index;
	struct fleet_exact *e;
	struct fleet_seg *s = NULL;
	int r;

	/* no probe (IPv6, a peer off the link): nothing to keep, the pair's route judges it */
	if (!local && a->ip.family != AF_INET && !arp->probed)
		return 0;
	if (!local && a->ip.family == AF_INET) {
		r = seg_get(f, id, &a->ip, &s);
		if (r < 0)
			return r;
		if (arp->probed && !s->has_probe) {
			s->has_probe = true;
			s->probe = *arp;
		}
		if (v1 && !s->has_v1) {
			s->has_v1 = true;
			s->v1 = *arp;
			return 0;
		}
		if (v1 && arp_same(&s->v1, arp))
			return 0;
	}
	r = exact_get(f, port, k, id, &e);
	if (r < 0)
		return r;
	e->has_arp = true;
	e->arp = *arp;
	return 0;
}

static int cm_of(struct fleet *f, const struct json *cm, struct fleet_cm_value *ret)
{
	const char *dev, *error;

	memset(ret, 0, sizeof(*ret));
	if (!cm || cm->type != JSON_OBJECT)
		return cm && cm->type != JSON_NULL ? -EINVAL : 0;
	dev = json_get_string(cm, "device");
	error = json_get_string(cm, "error");
	if (dev && strlen(dev) < FLEET_DEV_MAX) {
		double p = json_get_number(cm, "port", 0);

		ret->cm = FLEET_CM_RESOLVED;
		ret->port = p >= 0 && p <= UINT32_MAX ? (uint32_t)p : 0;
		return intern(f, dev, &ret->dev);
	}
	if (!error || strlen(error) >= 128)
		return -EINVAL;
	ret->cm = FLEET_CM_FAILED;
	return intern(f, error, &ret->error);
}

static bool cm_same(const struct fleet_cm_value *a, const struct fleet_cm_value *b)
{
	return a->cm == b->cm && a->dev == b->dev && a->port == b->port && a->error == b->error;
}

static int route_of(const struct json *o, struct fleet_class *c, size_t hint)
{
	const char *dev = get_string(o, "route_dev", hint),
		   *via = get_string(o, "route_via", hint + 2);
	const struct json *table = get(o, "route_table", hint + 1),
			  *bound = get(o, "route_bound", hint + 3);
	double t = table && table->type == JSON_NUMBER ? table->n : 0;

	memset(c, 0, sizeof(*c));
	c->bound = bound && bound->type == JSON_BOOL ? bound->b : -1;
	if (!dev)
		return 0;
	if (strlen(dev) >= sizeof(c->route_dev))
		return -EINVAL;
	c->route = true;
	memcpy(c->route_dev, dev, strlen(dev) + 1);
	c->route_table = t >= 0 && t <= UINT32_MAX ? (uint32_t)t : 0;
	if (via && ip_from_record(via, &c->route_via, false) < 0)
		return -EINVAL;
	return 0;
}

/* the port of port's host that route c leaves through, or SIZE_MAX */
static size_t dev_port(const struct fleet *f, size_t port, const struct fleet_class *c)
{
	const struct fleet_port *p = &f->ports[port];

	for (size_t i = p->host_first; c->route && i < p->host_first + p->host_n; i++)
		if (strcmp(f->ports[i].ifname, c->route_dev) == 0)
			return i;
	return SIZE_MAX;
}

static bool route_same(const struct fleet_class *a, const struct fleet_class *b)
{
	return a->route == b->route && a->bound == b->bound && strcmp(a->route_dev, b->route_dev) == 0 &&
	       a->route_table == b->route_table && a->route_via.family == b->route_via.family &&
	       (!a->route_via.family || ip_same_address(&a->route_via, &b->route_via));
}

/* the answer being read */
struct answer {
	char host[FLEET_NAME_MAX];
	int version;
	size_t first, n; /* its host's ports */
	/* the last ports looked up: a version-1 answer names the same ones record after record */
	char from_name[IF_NAMESIZE], to_host[FLEET_NAME_MAX], to_name[IF_NAMESIZE];
	size_t from, to;
};

/* the port of host and name, remembered in (cache_host, cache_name, cache) */
static int port_cached(const struct fleet *f, const char *host, const char *name, char *cache_host,
		       char *cache_name, size_t *cache, size_t *ret)
{
	if (*cache_name && (!cache_host || strcmp(cache_host, host) == 0) &&
	    strcmp(cache_name, name) == 0) {
		*ret = *cache;
		return 0;
	}
	if (strlen(name) >= IF_NAMESIZE || fleet_port_find(f, host, name, ret) < 0)
		return -EINVAL;
	if (cache_host)
		memcpy(cache_host, host, strlen(host) + 1);
	memcpy(cache_name, name, strlen(name) + 1);
	*cache = *ret;
	return 0;
}

/* (interface, address) of the answer's host: its port and address k */
static int source_of(const struct fleet *f, struct answer *d, const struct json *o,
		     size_t *ret_port, size_t *ret_k, struct ibh_ip *ret_ip)
{
	const char *name = get_string(o, "interface", 0), *a = get_string(o, "address", 1);

	if (!name || !a ||
	    port_cached(f, d->host, name, NULL, d->from_name, &d->from, ret_port) < 0 ||
	    ip_from_record(a, ret_ip, false) < 0)
		return -EINVAL;
	/* an address the port does not list (any more): nothing to judge by it */
	return addr_of(&f->ports[*ret_port], ret_ip, ret_k) < 0 ? -ENOENT : 0;
}

/* one record of a version-1 answer: its route and RDMA CM wait for the others (finish_v1) */
static int add_v1(struct fleet *f, struct answer *d, const struct json *o)
{
	struct fleet_facts *x = f->facts;
	const char *peer_host = get_string(o, "peer_host", 2), *peer = get_string(o, "peer", 4),
		   *peer_if = get_string(o, "peer_interface", 3);
	struct fleet_class c;
	struct fleet_cm_value cm;
	struct fleet_arp arp;
	struct ibh_ip src, dst;
	size_t port, to, k, i;
	struct fleet_addr *a;
	uint32_t id;
	int r;

	if (!peer_host || !peer || !peer_if)
		return -EINVAL;
	r = source_of(f, d, o, &port, &k, &src);
	if (r == -ENOENT)
		return 0;
	if (r < 0 || strlen(peer_host) >= FLEET_NAME_MAX ||
	    port_cached(f, peer_host, peer_if, d->to_host, d->to_name, &d->to, &to) < 0 ||
	    ip_from_record(peer, &dst, false) < 0)
		return -EINVAL;
	if (address_id(f, &dst, &id) < 0)
		return 0;
	r = route_of(o, &c, 5);
	if (r == 0)
		r = cm_of(f, get(o, "rdma_cm", 9), &cm);
	if (r == 0)
		r = arp_of(f, get(o, "arp", 8), &arp);
	if (r == 0)
		r = add_arp(f, port, k, to, id, &arp, true);
	if (r < 0)
		return r;
	c.dev_port = dev_port(f, port, &c);
	a = &f->ports[port].addrs[k];
	a->v1 = true;
	for (i = 0; i < a->n_classes && !route_same(&a->classes[i], &c); i++)
		;
	if (i == a->n_classes) {
		if (array_grow(&a->classes, &a->cap_classes, a->n_classes, sizeof(c), 2) < 0)
			return -ENOMEM;
		a->classes[a->n_classes++] = c;
	}
	a->classes[i].count++;
	if (array_grow(&x->pend, &x->cap_pend, x->n_pend, sizeof(*x->pend), 1024) < 0)
		return -ENOMEM;
	x->pend[x->n_pend] = (struct pending){
		.port = (uint32_t)port, .k = (uint32_t)k, .dst = id, .route = (uint32_t)i, .ip = dst
	};
	for (i = 0; i < a->n_cms && !cm_same(&a->cms[i], &cm); i++)
		;
	if (i == a->n_cms) {
		if (array_grow(&a->cms, &a->cap_cms, a->n_cms, sizeof(cm), 2) < 0)
			return -ENOMEM;
		a->cms[a->n_cms++] = cm;
	}
	a->cms[i].count++;
	x->pend[x->n_pend++].cm = (uint32_t)i;
	return 0;
}

static size_t most(const void *items, size_t n, size_t size, size_t offset)
{
	size_t best = 0, count = 0;

	for (size_t i = 0; i < n; i++) {
		size_t c;

		memcpy(&c, (const char *)items + i * size + offset, sizeof(c));
		if (c > count) {
			count = c;
			best = i;
		}
	}
	return best;
}

static int class_cmp(const void *x, const void *y)
{
	const struct fleet_class *a = x, *b = y;

	return (int)b->peers.len - (int)a->peers.len;
}

/*
 * The version-1 records of the answer read: each source address's way most
 * peers go is its class "rest", every other peer an exception of its own
 * (a whole address), and RDMA CM's most frequent answer its rest, the other
 * answers exact facts
 */
static int finish_v1(struct fleet *f, struct answer *d)
{
	struct fleet_facts *x = f->facts;
	int r = 0;

	for (size_t i = d->first; i < d->first + d->n; i++)
		for (size_t k = 0; k < f->ports[i].n_addrs; k++) {
			struct fleet_addr *a = &f->ports[i].addrs[k];
			size_t best;

			if (!a->v1 || !a->n_classes)
				continue;
			best = most(a->classes, a->n_classes, sizeof(*a->classes),
				    offsetof(struct fleet_class, count));
			/* the count field marks the distinct values: the exceptions come next */
			for (size_t c = 0; c < a->n_classes; c++)
				a->classes[c].count = c == best ? 0 : SIZE_MAX;
			best = most(a->cms, a->n_cms, sizeof(*a->cms),
				    offsetof(struct fleet_cm_value, count));
			for (size_t c = 0; c < a->n_cms; c++)
				a->cms[c].count = c == best ? 0 : SIZE_MAX;
		}
	for (size_t p = 0; p < x->n_pend && r == 0; p++) {
		struct fleet_addr *a = &f->ports[x->pend[p].port].addrs[x->pend[p].k];
		const struct fleet_cm_value *cm = &a->cms[x->pend[p].cm];
		struct fleet_class c = a->classes[x->pend[p].route];

		if (cm->count) {
			struct fleet_exact *e;

			r = exact_get(f, x->pend[p].port, x->pend[p].k, x->pend[p].dst, &e);
			if (r < 0)
				break;
			e->has_cm = true;
			e->cm = *cm;
		}
		if (!c.count)
			continue;
		/* an exception: the peer's own address */
		c.peers = x->pend[p].ip;
		c.peers.len = (uint8_t)ip_bits(c.peers.family);
		c.count = 1; /* kept: not the rest */
		if (array_grow(&a->classes, &a->cap_classes, a->n_classes, sizeof(c), 2) < 0)
			r = -ENOMEM;
		else
			a->classes[a->n_classes++] = c;
	}
	for (size_t i = d->first; r == 0 && i < d->first + d->n; i++)
		for (size_t k = 0; k < f->ports[i].n_addrs; k++) {
			struct fleet_addr *a = &f->ports[i].addrs[k];
			size_t n = 0;

			if (!a->v1)
				continue;
			/* the rest (count 0) and the exceptions (count 1) stay; the distinct values go */
			for (size_t c = 0; c < a->n_classes; c++)
				if (a->classes[c].count != SIZE_MAX) {
					a->classes[n] = a->classes[c];
					if (a->classes[n].count == 0)
						a->classes[n].peers.len = 0;
					n++;
				}
			a->n_classes = n;
			if (n)
				qsort(a->classes, n, sizeof(*a->classes), class_cmp);
			n = 0;
			for (size_t c = 0; c < a->n_cms; c++)
				if (a->cms[c].count == 0)
					a->cms[n++] = a->cms[c];
			a->n_cms = n;
		}
	x->n_pend = 0;
	return r;
}

/* a version-2 source address: its routes by class */
static int add_source(struct fleet *f, struct answer *d, const struct json *o)
{
	const struct json *classes = json_get(o, "classes");
	struct ibh_ip src;
	struct fleet_addr *a;
	size_t port, k;
	int r = source_of(f, d, o, &port, &k, &src);

	if (r == -ENOENT)
		return 0;
	if (r < 0 || !classes || classes->type != JSON_ARRAY)
		return -EINVAL;
	a = &f->ports[port].addrs[k];
	a->v1 = false;
	a->n_classes = 0;
	for (size_t i = 0; i < classes->n_items; i++) {
		const struct json *c = classes->items[i], *peers = json_get(c, "peers");
		struct fleet_class cl;
		size_t n = peers && peers->type == JSON_ARRAY ? peers->n_items : 1;

		if (route_of(c, &cl, 1) < 0 || !peers ||
		    (peers->type == JSON_STRING && strcmp(peers->s, "rest") != 0) ||
		    (peers->type != JSON_STRING && peers->type != JSON_ARRAY))
			return -EINVAL;
		cl.dev_port = dev_port(f, port, &cl);
		for (size_t m = 0; m < n; m++) {
			if (peers->type == JSON_ARRAY) {
				const struct json *e = peers->items[m];

				/* "rest" among prefixes: the rest class also names exceptions */
				if (e->type == JSON_STRING && strcmp(e->s, "rest") == 0)
					memset(&cl.peers, 0, sizeof(cl.peers));
				else if (e->type != JSON_STRING ||
					 ip_from_record(e->s, &cl.peers,
							strchr(e->s, '/') != NULL) < 0 ||
					 !cl.peers.family)
					return -EINVAL;
			} else
				memset(&cl.peers, 0, sizeof(cl.peers));
			if (array_grow(&a->classes, &a->cap_classes, a->n_classes, sizeof(cl), 2) <
			    0)
				return -ENOMEM;
			a->classes[a->n_classes++] = cl;
		}
	}
	/* longest prefix first; "rest" (length 0) last */
	if (a->n_classes)
		qsort(a->classes, a->n_classes, sizeof(*a->classes), class_cmp);
	return 0;
}

/* (interface, address, peer) of a sampled probe: its port, address k, the peer's port and id */
static int sampled_of(const struct fleet *f, struct answer *d, const struct json *o, size_t *port,
		      size_t *k, size_t *to, uint32_t *id)
{
	const char *peer = json_get_string(o, "peer");
	struct ibh_ip src, dst;
	int r = source_of(f, d, o, port, k, &src);

	if (r < 0)
		return r;
	if (!peer || ip_from_record(peer, &dst, false) < 0 || !dst.family)
		return -EINVAL;
	if (address_id(f, &dst, id) < 0)
		return -ENOENT;
	*to = f->facts->dsts[*id].port;
	return 0;
}

static int add_arp_v2(struct fleet *f, struct answer *d, const struct json *o)
{
	const struct json *answers = json_get(o, "answers");
	struct fleet_arp arp;
	size_t port, k, to;
	uint32_t id;
	int r = sampled_of(f, d, o, &port, &k, &to, &id);

	if (r == -ENOENT)
		return 0;
	if (r < 0 || !answers || answers->type != JSON_ARRAY)
		return -EINVAL;
	r = arp_of(f, answers, &arp);
	return r < 0 ? r : add_arp(f, port, k, to, id, &arp, false);
}

static int add_cm_v2(struct fleet *f, struct answer *d, const struct json *o)
{
	struct fleet_exact *e;
	struct fleet_cm_value cm;
	size_t port, k, to;
	uint32_t id;
	int r = sampled_of(f, d, o, &port, &k, &to, &id);

	if (r == -ENOENT)
		return 0;
	if (r == 0)
		r = cm_of(f, json_get(o, "rdma_cm"), &cm);
	if (r == 0 && cm.cm == FLEET_CM_NOT_ASKED)
		r = -EINVAL;
	if (r == 0)
		r = exact_get(f, port, k, id, &e);
	if (r < 0)
		return r;
	e->has_cm = true;
	e->cm = cm;
	r = array_grow(&f->facts->cm_pend, &f->facts->cap_cm_pend, f->facts->n_cm_pend,
		       sizeof(struct cm_sample), 16);
	if (r < 0)
		return r;
	f->facts->cm_pend[f->facts->n_cm_pend++] = (struct cm_sample){ port, k, id };
	return 0;
}

/* the address of id */
static const struct ibh_ip *address_of(const struct fleet *f, uint32_t id)
{
	const struct fleet_port *p = &f->ports[f->facts->dsts[id].port];

	for (size_t k = 0; k < p->n_addrs; k++)
		if (p->addrs[k].id == id)
			return &p->addrs[k].ip;
	return NULL;
}

int facts_unprobed(const struct fleet *f, uint32_t id, size_t *ret_port, unsigned int *ret_k)
{
	struct fleet_facts *x = f->facts;
	unsigned int k = x && x->probers ? x->probers : 1;
	size_t who[SAMPLE_PROBERS_MAX], n, *u;
	const struct ibh_ip *dst;

	*ret_k = k;
	*ret_port = SIZE_MAX;
	if (!x || id >= x->n_ids)
		return 0;
	/* the choice of step 2 (sample.c), made again here, only for addresses nobody probed */
	if (!x->sample.f && sample_init(&x->sample, f) < 0)
		return 1; /* who was to ask is not known: still not probed */
	if (!x->unprobed) {
		x->unprobed = calloc(x->n_ids + 1, sizeof(*x->unprobed));
		if (!x->unprobed)
			return 1;
	}
	u = &x->unprobed[id];
	dst = address_of(f, id);
	if (!*u && dst) {
		n = sample_probers(&x->sample, x->dsts[id].port, dst, k, who);
		*u = n ? 2 + x->sample.hosts[who[0]].first : 1;
		for (size_t i = 0; i < n; i++)
			if (f->ports[x->sample.hosts[who[i]].first].reported)
				*u = 1;
	}
	if (*u < 2)
		return 0;
	*ret_port = *u - 2;
	return 1;
}

/*
 * The answer's RDMA CM probes that resolved through another device or port
 * than the source port's mark their class (fleet_class.cm_wrong): the
 * peers it routes the same way resolve the same way. Read once the answer's
 * classes are, in whatever order its members came.
 */
static void cm_classes(struct fleet *f)
{
	struct fleet_facts *x = f->facts;

	for (size_t i = 0; i < x->n_cm_pend; i++) {
		const struct cm_sample *c = &x->cm_pend[i];
		struct fleet_port *p = &f->ports[c->port];
		const struct fleet_exact *e = exact_find(x, exact_key(c->port, c->k, c->id));
		const struct ibh_ip *dst = address_of(f, c->id);
		struct fleet_class *cl;

		if (!e || !dst || e->cm.cm != FLEET_CM_RESOLVED ||
		    (strcmp(facts_string(f, e->cm.dev), p->rdma_dev) == 0 &&
		     e->cm.port == p->rdma_port))
			continue;
		cl = (struct fleet_class *)facts_class(&p->addrs[c->k], dst);
		if (cl && !cl->cm_wrong) {
			cl->cm_wrong = true;
			cl->cm = e->cm;
			cl->cm_peer = *dst;
		}
	}
	x->n_cm_pend = 0;
}

static int add_neigh(struct fleet *f, struct answer *d, const struct json *o)
{
	const char *name = json_get_string(o, "interface"), *peer = json_get_string(o, "peer"),
		   *ll = json_get_string(o, "lladdr"), *state = json_get_string(o, "state");
	struct fleet_neigh n;
	struct fleet_port *p;
	struct ibh_ip ip;
	size_t port;
	int r;

	if (!name || !peer || !ll || fleet_port_find(f, d->host, name, &port) < 0 ||
	    ip_from_record(peer, &ip, false) < 0 || !ip.family)
		return -EINVAL;
	if (address_id(f, &ip, &n.peer) < 0)
		return 0;
	r = intern(f, ll, &n.lladdr);
	if (r == 0)
		r = intern(f, state ? state : "", &n.state);
	if (r < 0)
		return r;
	p = &f->ports[port];
	if (!(p->n_neigh & (p->n_neigh - 1)) || !p->n_neigh) {
		struct fleet_neigh *grown =
			realloc(p->neigh, (p->n_neigh ? p->n_neigh * 2 : 1) * sizeof(n));

		if (!grown)
			return -ENOMEM;
		p->neigh = grown;
	}
	p->neigh[p->n_neigh++] = n;
	return 0;
}

/*
 * The addresses a host found, checking, that the inventory lists on a port
 * that does not hold them now (its own, or another host's that it holds):
 * the pairs of that port are stale, not judged by what the address did
 */
static int stale_of(struct fleet *f, const struct json *stale)
{
	if (!stale)
		return 0;
	if (stale->type != JSON_ARRAY)
		return -EINVAL;
	for (size_t i = 0; i < stale->n_items; i++) {
		const char *h = json_get_string(stale->items[i], "host"),
			   *name = json_get_string(stale->items[i], "interface"),
			   *a = json_get_string(stale->items[i], "address");
		struct ibh_ip ip;
		size_t at;

		if (!h || !name || !a || ip_from_record(a, &ip, true) < 0)
			return -EINVAL;
		/* a port the inventory does not have: the one read here is even older */
		if (fleet_port_find(f, h, name, &at) < 0)
			continue;
		for (size_t k = 0; k < f->ports[at].n_addrs; k++)
			if (ip_same_address(&f->ports[at].addrs[k].ip, &ip))
				f->ports[at].addrs[k].stale = true;
	}
	return 0;
}

/* the answer's host: said once, in the inventory (its ports: reported) */
static int answer_host(struct fleet *f, struct answer *d, const char *host)
{
	int r;

	if (!host || !*host || strlen(host) >= sizeof(d->host) || d->host[0])
		return -EINVAL;
	for (size_t i = 0; i < f->n_reported; i++)
		if (strcmp(f->reported[i], host) == 0)
			return -EEXIST;
	r = array_grow(&f->reported, &f->cap_reported, f->n_reported, sizeof(*f->reported), 16);
	if (r < 0)
		return r;
	memcpy(f->reported[f->n_reported++], host, strlen(host) + 1);
	memcpy(d->host, host, strlen(host) + 1);
	d->n = 0;
	for (size_t i = 0; i < f->n_ports; i++)
		if (strcmp(f->ports[i].host, host) == 0) {
			d->first = f->ports[i].host_first;
			d->n = f->ports[i].host_n;
			break;
		}
	for (size_t i = d->first; i < d->first + d->n; i++)
		f->ports[i].reported = true;
	/* who sent answers changed: the holes found so far (facts_unprobed) are found again */
	free(f->facts->unprobed);
	f->facts->unprobed = NULL;
	return 0;
}

/* key's value (not an array of records) in the answer d */
static int answer_member(struct fleet *f, struct answer *d, const char *key, const struct json *v)
{
	if (strcmp(key, "version") == 0) {
		if (v->type != JSON_NUMBER || (v->n != 1 && v->n != 2) || d->version)
			return -EINVAL;
		d->version = (int)v->n;
		return 0;
	}
	if (strcmp(key, "host") == 0)
		return answer_host(f, d, v->type == JSON_STRING ? v->s : NULL);
	if (strcmp(key, "stale") == 0)
		return stale_of(f, v);
	if (strcmp(key, "probing") == 0) {
		/* how many hosts ask each address: an address whose probers are all silent is a hole */
		double k = v->type == JSON_OBJECT ? json_get_number(v, "probers", 0) : 0;

		if (k >= 1 && k <= SAMPLE_PROBERS_MAX && (unsigned int)k > f->facts->probers)
			f->facts->probers = (unsigned int)k;
		return 0;
	}
	/* rdma_cm and what a later version adds: said, nothing to judge by */
	return 0;
}

/* the records of the answer's arrays, by key: 1 when key is no such array */
static int answer_item(struct fleet *f, struct answer *d, const char *key, const struct json *o)
{
	int (*add)(struct fleet *, struct answer *, const struct json *) =
		strcmp(key, "probes") == 0	     ? add_v1
		: strcmp(key, "sources") == 0	     ? add_source
		: strcmp(key, "arp") == 0	     ? add_arp_v2
		: strcmp(key, "rdma_cm_probes") == 0 ? add_cm_v2
		: strcmp(key, "neigh") == 0	     ? add_neigh
						     : NULL;

	if (!add)
		return 1;
	/* the host comes first in what ib-hook writes: a record needs it */
	if (!d->host[0] || o->type != JSON_OBJECT)
		return -EINVAL;
	return add(f, d, o);
}

static bool array_key(const char *key)
{
	return strcmp(key, "probes") == 0 || strcmp(key, "sources") == 0 ||
	       strcmp(key, "arp") == 0 || strcmp(key, "rdma_cm_probes") == 0 ||
	       strcmp(key, "neigh") == 0;
}

static int answer_end(struct fleet *f, struct answer *d, bool probes)
{
	if (!d->version || !d->host[0] || (d->version == 1 && !probes))
		return -EINVAL;
	cm_classes(f);
	return finish_v1(f, d);
}

int fleet_add_probes(struct fleet *f, const struct json *doc)
{
	struct answer d = {};
	bool probes = false;
	int r;

	if (!doc || doc->type != JSON_OBJECT)
		return -EINVAL;
	r = facts_build(f);
	for (size_t i = 0; r >= 0 && i < doc->n_items; i++) {
		const struct json *v = doc->items[i];

		if (!array_key(doc->keys[i])) {
			r = answer_member(f, &d, doc->keys[i], v);
			continue;
		}
		if (v->type != JSON_ARRAY)
			return -EINVAL;
		probes |= strcmp(doc->keys[i], "probes") == 0;
		for (size_t k = 0; r >= 0 && k < v->n_items; k++)
			r = answer_item(f, &d, doc->keys[i], v->items[k]);
	}
	if (r < 0) {
		f->facts->n_pend = 0;
		f->facts->n_cm_pend = 0;
		return r;
	}
	return answer_end(f, &d, probes);
}

int fleet_read_answers(struct fleet *f, FILE *in, size_t *ret_error)
{
	struct json_reader rd;
	char key[64];
	int r = facts_build(f);

	json_reader_init(&rd, in);
	while (r >= 0) {
		struct answer d = {};
		bool probes = false;

		r = json_reader_object(&rd);
		if (r == -ENODATA) {
			r = 0;
			break;
		}
		while (r >= 0 && (r = json_reader_key(&rd, key, sizeof(key))) == 1) {
			struct json *v = NULL;

			if (array_key(key)) {
				probes |= strcmp(key, "probes") == 0;
				r = json_reader_array(&rd);
				while (r >= 0 && (r = json_reader_item(&rd)) == 1) {
					r = json_reader_value(&rd, &v);
					if (r == 0)
						r = answer_item(f, &d, key, v);
				}
				continue;
			}
			/* the small members whole; the unknown ones skipped */
			if (strcmp(key, "version") && strcmp(key, "host") && strcmp(key, "stale") &&
			    strcmp(key, "probing")) {
				r = json_reader_skip(&rd);
				continue;
			}
			r = json_reader_value(&rd, &v);
			if (r == 0)
				r = answer_member(f, &d, key, v);
		}
		if (r == 0)
			r = answer_end(f, &d, probes);
	}
	if (r < 0) {
		f->facts->n_pend = 0;
		f->facts->n_cm_pend = 0;
		*ret_error = json_reader_offset(&rd);
	}
	json_reader_free(&rd);
	return r;
}

int fleet_read_inventory(struct fleet *f, FILE *in, size_t *ret_error)
{
	struct json_reader rd;
	int r = 0;

	json_reader_init(&rd, in);
	for (;;) {
		struct json *doc;

		r = json_reader_value(&rd, &doc);
		if (r == -ENODATA) {
			r = f->n_indexed == f->n_ports ? 0 : fleet_index(f);
			break;
		}
		if (r == 0)
			r = fleet_add_inventory(f, doc);
		if (r < 0) {
			*ret_error = json_reader_offset(&rd);
			break;
		}
	}
	json_reader_free(&rd);
	return r;
}

/* the port is up, holds its one address, shares neither it nor its hardware address */
static bool fast_port(const struct fleet_port *p)
{
	const struct fleet_addr *a = &p->addrs[0];

	return p->n_addrs == 1 && !a->stale && !a->conflict && p->up && !p->hw_conflict &&
	       !p->roce && (!p->rdma || strcmp(p->rdma_state, "ACTIVE") == 0);
}

/* a's routes: one class, the rest, with a route through port i */
static bool fast_routes(const struct fleet_addr *a, size_t i)
{
	return a->n_classes == 1 && a->classes[0].peers.len == 0 && a->classes[0].route &&
	       a->classes[0].dev_port == i;
}

void facts_fast_src(const struct fleet *f, size_t i, struct fleet_fast *ret)
{
	const struct fleet_port *p = &f->ports[i];
	const struct fleet_addr *a = &p->addrs[0];

	memset(ret, 0, sizeof(*ret));
	ret->host = (uint32_t)p->host_index;
	if (!f->facts || !fast_port(p) || !p->reported || p->n_neigh || a->n_exact_from ||
	    !fast_routes(a, i) || (a->v1 && a->n_cms && a->cms[0].cm != FLEET_CM_NOT_ASKED))
		return;
	ret->simple = true;
	ret->ip = a->ip;
	ret->v1 = a->v1;
}

static uint8_t fast_arp(const struct fleet_port *p, const struct fleet_arp *arp)
{
	if (!arp->probed)
		return FAST_ARP_NOT_SENT;
	return arp->n == 1 && arp->answers[0] == p->hw_id ? FAST_ARP_OK : FAST_ARP_OTHER;
}

void facts_fast_dst(const struct fleet *f, size_t j, struct fleet_fast *ret)
{
	const struct fleet_port *p = &f->ports[j];
	const struct fleet_addr *a = &p->addrs[0];
	const struct fleet_dst *d;

	memset(ret, 0, sizeof(*ret));
	ret->host = (uint32_t)p->host_index;
	/* a neighbour entry it holds may drop the replies of pairs into it (judge.c) */
	if (!f->facts || !fast_port(p) || p->n_neigh || (p->reported && !fast_routes(a, j)))
		return;
	d = &f->facts->dsts[a->id];
	ret->simple = true;
	ret->ip = a->ip;
	ret->segs = d->n > 1 ? 2 : (uint8_t)d->n;
	if (d->n != 1)
		return;
	ret->seg = d->segs[0].segment;
	ret->v1_arp = d->segs[0].has_v1 ? fast_arp(p, &d->segs[0].v1) : FAST_ARP_NONE;
	ret->probe_arp = d->segs[0].has_probe ? fast_arp(p, &d->segs[0].probe) : FAST_ARP_NONE;
}
