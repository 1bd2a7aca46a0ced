// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Main's routes through the managed links, kept between the watcher's passes.
 * A notification says a route of main came, was replaced or went, with every
 * attribute, so the index follows it exactly. Where the kernel changes main
 * without a notification, the index does what the kernel does: a link that
 * goes down takes its routes with one next hop along. Where that is not
 * certain (a link deleted, an address that goes, which takes the routes it
 * was the source of and, the last of the link's IPv4 addresses, all of the
 * link's IPv4 routes) or a notification does not say which route it replaced
 * (IPv4 routes appended with the same prefix and metric, IPv6 multipath
 * routes whose next hops come and go one by one), the links concerned are
 * read from main again at their next run. That is rare; an unrelated route
 * of main (a BGP host's churn through its uplink) costs nothing but a look at
 * its devices.
 */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "main-index.h"
#include "route.h"

bool main_index_wanted(const struct ibh_route *rt)
{
	return rt->type == RTN_UNICAST && rt->protocol != RTPROT_KERNEL;
}

struct main_prefix {
	int ifindex;
	struct ibh_ip prefix;
};

int main_index_set_prefixes(struct ibh_main_index *x, int ifindex, const struct ibh_ip *prefixes,
			    size_t n)
{
	size_t kept = 0;

	for (size_t i = 0; i < x->n_prefixes; i++)
		if (x->prefixes[i].ifindex != ifindex)
			x->prefixes[kept++] = x->prefixes[i];
	x->n_prefixes = kept;
	for (size_t i = 0; i < n; i++) {
		if (array_grow(&x->prefixes, &x->cap_prefixes, x->n_prefixes, sizeof(*x->prefixes),
			       8) < 0)
			return -ENOMEM;
		x->prefixes[x->n_prefixes++] = (struct main_prefix){ ifindex, prefixes[i] };
	}
	return 0;
}

/* gw lies in a prefix of the link ifindex */
static bool in_prefix_of(const struct ibh_main_index *x, const struct ibh_ip *gw, int ifindex)
{
	for (size_t i = 0; i < x->n_prefixes; i++)
		if (x->prefixes[i].ifindex == ifindex && ip_in_prefix(&x->prefixes[i].prefix, gw))
			return true;
	return false;
}

/* rt leaves through ifindex, or by a managed link via a gateway in ifindex's prefixes */
static bool reaches(const struct ibh_main_index *x, const struct ibh_route *rt, int ifindex)
{
	if (route_through(rt, ifindex))
		return true;
	if (!rt->n_hops)
		return rt->gw.family && index_set_has(&x->managed, rt->oif) &&
		       in_prefix_of(x, &rt->gw, ifindex);
	for (size_t h = 0; h < rt->n_hops; h++)
		if (rt->hops[h].gw.family && index_set_has(&x->managed, rt->hops[h].oif) &&
		    in_prefix_of(x, &rt->hops[h].gw, ifindex))
			return true;
	return false;
}

bool main_index_knows(const struct ibh_main_index *x, int ifindex)
{
	return index_set_has(&x->known, ifindex);
}

/* the route leaves through a link the index knows */
static bool concerns(const struct ibh_main_index *x, const struct ibh_route *rt)
{
	for (size_t k = 0; k < x->known.n; k++)
		if (route_through(rt, x->known.items[k]))
			return true;
	return false;
}

/*
 * The slots by destination. A host that routes may hold tens of thousands
 * of routes through a port (BGP-learned rail prefixes): a notification and
 * a dump's every route find their destination's few slots by a hash, and a
 * route that goes frees its slot, so that nothing costs the square of them.
 */
#define NONE ((size_t)-1)

static bool live(const struct ibh_route *rt)
{
	return rt->dst.family != 0;
}

static size_t bucket(const struct ibh_main_index *x, const struct ibh_ip *dst)
{
	return ip_hash(dst, 2166136261u) & x->mask;
}

/* the slots of x->routes[0..n) hashed again, in room for cap of them: 0 or -ENOMEM */
static int rehash(struct ibh_main_index *x, size_t cap)
{
	size_t buckets = 64, *head, *next;

	while (buckets < 2 * cap)
		buckets *= 2;
	head = malloc(buckets * sizeof(*head));
	next = malloc((cap ? cap : 1) * sizeof(*next));
	if (!head || !next) {
		free(head);
		free(next);
		return -ENOMEM;
	}
	free(x->head);
	free(x->next);
	x->head = head;
	x->next = next;
	x->mask = buckets - 1;
	x->next_cap = cap;
	for (size_t b = 0; b < buckets; b++)
		head[b] = NONE;
	for (size_t i = 0; i < x->n; i++)
		if (live(&x->routes[i])) {
			size_t b = bucket(x, &x->routes[i].dst);

			next[i] = head[b];
			head[b] = i;
		}
	return 0;
}

/* the free slots close up, in order (when half of the slots are free) */
static void compact(struct ibh_main_index *x)
{
	size_t kept = 0;

	if (x->free_slots * 2 <= x->n)
		return;
	for (size_t i = 0; i < x->n; i++)
		if (live(&x->routes[i]))
			x->routes[kept++] = x->routes[i];
	x->n = kept;
	x->free_slots = 0;
	/* the same room: cannot fail for want of memory only if it keeps its arrays */
	if (rehash(x, x->next_cap) < 0) {
		x->n = 0;
		x->known.n = 0;
	}
}

/* the links rt leaves through are read again (tidy() then drops their routes) */
static void unknow_links(struct ibh_main_index *x, const struct ibh_route *rt)
{
	index_set_del(&x->known, rt->oif);
	for (size_t h = 0; h < rt->n_hops; h++)
		index_set_del(&x->known, rt->hops[h].oif);
}

/*
 * The slot i goes: its route leaves the index. unsure: which routes main
 * holds through its links is not known any more (a multipath route's other
 * hops, a twin the kernel does not name): they are read again
 */
static void drop(struct ibh_main_index *x, size_t i, bool unsure)
{
	size_t *p = &x->head[bucket(x, &x->routes[i].dst)];

	if (unsure)
		unknow_links(x, &x->routes[i]);
	while (*p != NONE && *p != i)
		p = &x->next[*p];
	if (*p == i)
		*p = x->next[i];
	memset(&x->routes[i], 0, sizeof(x->routes[i]));
	x->free_slots++;
}

/* the first slot of dst's chain (then x->next[i], NONE at the end) */
static size_t first_of(const struct ibh_main_index *x, const struct ibh_ip *dst)
{
	return x->head ? x->head[bucket(x, dst)] : NONE;
}

static int add(struct ibh_main_index *x, const struct ibh_route *rt)
{
	size_t b;

	for (size_t i = first_of(x, &rt->dst); i != NONE; i = x->next[i])
		if (route_equal(&x->routes[i], rt))
			return 0;
	if (array_grow(&x->routes, &x->cap, x->n, sizeof(*x->routes), 8) < 0)
		return -ENOMEM;
	if ((x->n + 1 > x->next_cap || !x->head) && rehash(x, x->cap) < 0)
		return -ENOMEM;
	x->routes[x->n] = *rt;
	b = bucket(x, &rt->dst);
	x->next[x->n] = x->head[b];
	x->head[b] = x->n++;
	return 0;
}

int main_index_learn(struct ibh_main_index *x, int ifindex, const struct ibh_route *routes,
		     size_t n)
{
	int r = index_set_add(&x->known, ifindex);

	for (size_t i = 0; r >= 0 && i < n; i++)
		if (main_index_wanted(&routes[i]) && route_through(&routes[i], ifindex))
			r = add(x, &routes[i]);
	if (r < 0)
		main_index_forget(x, ifindex);
	return r;
}

int main_index_through(const struct ibh_main_index *x, int ifindex, struct ibh_route **v, size_t *n,
		       size_t *cap)
{
	for (size_t i = 0; i < x->n; i++) {
		int r;

		if (!live(&x->routes[i]) || !route_through(&x->routes[i], ifindex))
			continue;
		r = array_grow(v, cap, *n, sizeof(**v), 4);
		if (r < 0)
			return r;
		(*v)[(*n)++] = x->routes[i];
	}
	return 0;
}

/*
 * After drops: where links became unknown, what no known link leaves
 * through is no longer the index's (one pass); the free slots close up
 */
static void tidy(struct ibh_main_index *x, bool unknown)
{
	for (size_t i = 0; unknown && i < x->n; i++)
		if (live(&x->routes[i]) && !concerns(x, &x->routes[i]))
			drop(x, i, false);
	compact(x);
}

void main_index_forget(struct ibh_main_index *x, int ifindex)
{
	for (size_t i = 0; i < x->n; i++)
		if (live(&x->routes[i]) && route_through(&x->routes[i], ifindex))
			drop(x, i, true);
	index_set_del(&x->known, ifindex);
	tidy(x, true);
}

void main_index_link_down(struct ibh_main_index *x, int ifindex)
{
	/*
	 * A route with one next hop through the link goes with it (IPv6 says
	 * so, IPv4 does not); one with several stays with that hop dead: which
	 * of its hops the kernel reports then is read again
	 */
	bool unknown = false;

	for (size_t i = 0; i < x->n; i++) {
		bool hops;

		if (!live(&x->routes[i]) || !route_through(&x->routes[i], ifindex))
			continue;
		hops = x->routes[i].n_hops != 0;
		unknown |= hops;
		drop(x, i, hops);
	}
	tidy(x, unknown);
}

void main_index_forget_all(struct ibh_main_index *x)
{
	x->n = 0;
	x->free_slots = 0;
	x->known.n = 0;
	if (x->head)
		for (size_t b = 0; b <= x->mask; b++)
			x->head[b] = NONE;
}

/* the kernel's NLM_F_REPLACE of one puts it in the other's place: same prefix, tos and metric */
static bool same_place(const struct ibh_route *a, const struct ibh_route *b)
{
	return ip_equal(&a->dst, &b->dst) && a->table == b->table && a->tos == b->tos &&
	       a->metric == b->metric;
}

bool main_index_concerns(const struct ibh_main_index *x, const struct ibh_route *rt, int ifindex)
{
	if (reaches(x, rt, ifindex))
		return true;
	/* a replace says the new route only, a delete of an IPv6 next hop not which stay */
	for (size_t i = first_of(x, &rt->dst); i != NONE; i = x->next[i])
		if (same_place(&x->routes[i], rt) && reaches(x, &x->routes[i], ifindex))
			return true;
	return false;
}

/*
 * IPv6 joins gateway routes of one prefix and metric into one multipath
 * route. A route the kernel learned from a router advertisement joins none
 * (RTF_ADDRCONF), but netlink does not say that flag, only the protocol,
 * and `ip route append ... proto ra` makes a route that does join: one of
 * protocol ra may have joined, and is read again like one that did (once
 * per such route; a kernel that says the join in the notification, as
 * RTA_MULTIPATH, is read again below anyway).
 */
static bool joins(const struct ibh_route *a, const struct ibh_route *b)
{
	return a->dst.family == AF_INET6 && same_place(a, b) && a->gateway && b->gateway;
}

int main_index_note(struct ibh_main_index *x, const struct ibh_route *rt, bool add_, bool replace)
{
	size_t placed = 0, i, nx;
	bool exact = false, unknown = false;
	int r = 0;

	/* only the slots of rt's destination can be of its place */
	for (i = first_of(x, &rt->dst); i != NONE; i = x->next[i]) {
		placed += same_place(&x->routes[i], rt);
		exact |= route_equal(&x->routes[i], rt);
	}
	if (!add_) {
		for (i = first_of(x, &rt->dst); i != NONE; i = nx) {
			/* a next hop of an IPv6 multipath route went: which stay is not said */
			bool hop = !exact && placed && rt->dst.family == AF_INET6 &&
				   same_place(&x->routes[i], rt);

			nx = x->next[i];
			if (hop || (exact && route_equal(&x->routes[i], rt))) {
				drop(x, i, hop);
				unknown |= hop;
			}
		}
		tidy(x, unknown);
		return 0;
	}
	/*
	 * An IPv6 route that joined others says its own protocol, preference
	 * and metrics, with its siblings' next hops after its own
	 * (RTA_MULTIPATH); a dump of main says the first sibling's for all of
	 * them. The index holds what a dump says, so that the watcher copies
	 * what a run would: read the links again (the siblings through links
	 * the index does not know were never in it to see the join).
	 */
	if (rt->dst.family == AF_INET6 && rt->n_hops > 1 && !replace) {
		for (i = first_of(x, &rt->dst); i != NONE; i = nx) {
			nx = x->next[i];
			if (same_place(&x->routes[i], rt))
				drop(x, i, true);
		}
		unknow_links(x, rt);
		tidy(x, true);
		return 0;
	}
	for (i = first_of(x, &rt->dst); i != NONE; i = nx) {
		nx = x->next[i];
		if (!same_place(&x->routes[i], rt) || route_equal(&x->routes[i], rt) ||
		    !(replace || joins(&x->routes[i], rt)))
			continue;
		/*
		 * The kernel says the new route only. Which route it replaced is
		 * the one the index held of that place, when it held one (unless
		 * main holds a twin of it through another device, made with `ip
		 * route append`, which no network manager does); an IPv6 next hop
		 * that joined a route makes one multipath route of two. Otherwise:
		 * read them again.
		 */
		if (placed > 1 || !replace) {
			unknow_links(x, rt);
			unknown = true;
		}
		drop(x, i, placed > 1 || !replace);
	}
	if (unknown)
		tidy(x, true);
	if (main_index_wanted(rt) && concerns(x, rt))
		r = add(x, rt);
	if (r < 0) {
		unknow_links(x, rt);
		tidy(x, true);
	}
	return r;
}

void main_index_addr_gone(struct ibh_main_index *x, int ifindex, const struct ibh_ip *addr)
{
	/*
	 * IPv4 takes the routes whose source it was away, and every route
	 * through the link with its last address; IPv6 drops the source from
	 * them: all without a notification
	 */
	for (size_t i = 0; i < x->n; i++)
		if (live(&x->routes[i]) && x->routes[i].src.family &&
		    ip_same_address(&x->routes[i].src, addr))
			drop(x, i, true);
	tidy(x, true);
	if (addr->family == AF_INET)
		main_index_forget(x, ifindex);
}

void main_index_free(struct ibh_main_index *x)
{
	free(x->routes);
	free(x->head);
	free(x->next);
	index_set_free(&x->known);
	index_set_free(&x->managed);
	free(x->prefixes);
	*x = (struct ibh_main_index){};
}
