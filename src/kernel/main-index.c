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

const struct ibh_ip *main_index_default_probe(uint8_t family)
{
	/* 0.0.0.0 is the host itself to the kernel, :: and ff00::/8 are not routed by main */
	static const struct ibh_ip far4 = { .family = AF_INET,
					    .len = 32,
					    .a = { 255, 255, 255, 254 } };
	static const struct ibh_ip far6 = { .family = AF_INET6,
					    .len = 128,
					    .a = { 0xfe, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
						   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
						   0xfe } };

	return family == AF_INET6 ? &far6 : &far4;
}

bool main_index_meets_default(const struct ibh_route *rt)
{
	struct ibh_ip probe;

	if (rt->dst.family != AF_INET && rt->dst.family != AF_INET6)
		return false;
	probe = *main_index_default_probe(rt->dst.family);
	probe.len = rt->dst.len;
	ip_prefix(&probe, &probe);
	return ip_equal(&probe, &rt->dst);
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

/* in order: the copies are planned in the order main holds them */
static void drop(struct ibh_main_index *x, size_t i)
{
	memmove(&x->routes[i], &x->routes[i + 1], (x->n - i - 1) * sizeof(*x->routes));
	x->n--;
}

static int add(struct ibh_main_index *x, const struct ibh_route *rt)
{
	int r;

	for (size_t i = 0; i < x->n; i++)
		if (route_equal(&x->routes[i], rt))
			return 0;
	r = array_grow(&x->routes, &x->cap, x->n, sizeof(*x->routes), 8);
	if (r < 0)
		return r;
	x->routes[x->n++] = *rt;
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

		if (!route_through(&x->routes[i], ifindex))
			continue;
		r = array_grow(v, cap, *n, sizeof(**v), 4);
		if (r < 0)
			return r;
		(*v)[(*n)++] = x->routes[i];
	}
	return 0;
}

/* the links rt leaves through are read again; its copies in the index go */
static void forget_route_links(struct ibh_main_index *x, const struct ibh_route *rt)
{
	struct ibh_route r = *rt;

	index_set_del(&x->known, r.oif);
	for (size_t h = 0; h < r.n_hops; h++)
		index_set_del(&x->known, r.hops[h].oif);
	/* what no known link leaves through is no longer the index's */
	for (size_t i = x->n; i-- > 0;)
		if (!concerns(x, &x->routes[i]))
			drop(x, i);
}

void main_index_forget(struct ibh_main_index *x, int ifindex)
{
	/* forget_route_links() may drop more than one */
	for (size_t i = x->n; i-- > 0;)
		if (i < x->n && route_through(&x->routes[i], ifindex)) {
			struct ibh_route rt = x->routes[i];

			drop(x, i);
			forget_route_links(x, &rt);
		}
	index_set_del(&x->known, ifindex);
}

void main_index_link_down(struct ibh_main_index *x, int ifindex)
{
	/*
	 * A route with one next hop through the link goes with it (IPv6 says
	 * so, IPv4 does not); one with several stays with that hop dead: which
	 * of its hops the kernel reports then is read again
	 */
	for (size_t i = x->n; i-- > 0;) {
		struct ibh_route rt;

		if (i >= x->n || !route_through(&x->routes[i], ifindex))
			continue;
		rt = x->routes[i];
		drop(x, i);
		if (rt.n_hops)
			forget_route_links(x, &rt);
	}
}

void main_index_forget_all(struct ibh_main_index *x)
{
	x->n = 0;
	x->known.n = 0;
}

/* the kernel's NLM_F_REPLACE of one puts it in the other's place: same prefix, tos and metric */
static bool same_place(const struct ibh_route *a, const struct ibh_route *b)
{
	return ip_equal(&a->dst, &b->dst) && a->table == b->table && a->tos == b->tos &&
	       a->metric == b->metric;
}

/* IPv6 joins gateway routes of one prefix and metric into one multipath route */
static bool joins(const struct ibh_route *a, const struct ibh_route *b)
{
	return a->dst.family == AF_INET6 && same_place(a, b) && a->gateway && b->gateway &&
	       a->protocol != RTPROT_RA && b->protocol != RTPROT_RA;
}

int main_index_note(struct ibh_main_index *x, const struct ibh_route *rt, bool add_, bool replace)
{
	size_t placed = 0;
	bool exact = false;
	int r = 0;

	for (size_t i = 0; i < x->n; i++) {
		placed += same_place(&x->routes[i], rt);
		exact |= route_equal(&x->routes[i], rt);
	}
	if (!add_) {
		for (size_t i = x->n; exact && i-- > 0;)
			if (route_equal(&x->routes[i], rt))
				drop(x, i);
		/* a next hop of an IPv6 multipath route went: which ones stay is not said */
		if (!exact && placed && rt->dst.family == AF_INET6)
			for (size_t i = x->n; i-- > 0;)
				if (i < x->n && same_place(&x->routes[i], rt)) {
					struct ibh_route old = x->routes[i];

					drop(x, i);
					forget_route_links(x, &old);
				}
		return 0;
	}
	for (size_t i = x->n; i-- > 0;) {
		struct ibh_route old;

		if (i >= x->n || !same_place(&x->routes[i], rt) || route_equal(&x->routes[i], rt) ||
		    !(replace || joins(&x->routes[i], rt)))
			continue;
		old = x->routes[i];
		drop(x, i);
		/*
		 * The kernel says the new route only. Which route it replaced is
		 * the one the index held of that place, when it held one (unless
		 * main holds a twin of it through another device, made with `ip
		 * route append`, which no network manager does); an IPv6 next hop
		 * that joined a route makes one multipath route of two. Otherwise:
		 * read them again.
		 */
		if (placed > 1 || !replace) {
			forget_route_links(x, &old);
			forget_route_links(x, rt);
		}
	}
	if (main_index_wanted(rt) && concerns(x, rt))
		r = add(x, rt);
	if (r < 0)
		forget_route_links(x, rt);
	return r;
}

void main_index_addr_gone(struct ibh_main_index *x, int ifindex, const struct ibh_ip *addr)
{
	/*
	 * IPv4 takes the routes whose source it was away, and every route
	 * through the link with its last address; IPv6 drops the source from
	 * them: all without a notification
	 */
	for (size_t i = x->n; i-- > 0;)
		if (i < x->n && x->routes[i].src.family &&
		    ip_same_address(&x->routes[i].src, addr)) {
			struct ibh_route rt = x->routes[i];

			drop(x, i);
			forget_route_links(x, &rt);
		}
	if (addr->family == AF_INET)
		main_index_forget(x, ifindex);
}

void main_index_free(struct ibh_main_index *x)
{
	free(x->routes);
	index_set_free(&x->known);
	index_set_free(&x->managed);
	*x = (struct ibh_main_index){};
}
