/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Main's routes through the managed links, the input of T(X)'s copies
 * (GatewayRoutes=): read by one dump of main per link, filtered by device,
 * and then, in the watcher, kept up to date from the route notifications of
 * main, so that a pass reads them without walking main again.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "array.h"

struct ibh_ip;
struct ibh_route;
struct main_prefix;

struct ibh_main_index {
	/*
	 * main's unicast routes (not the kernel's prefix routes) through a
	 * known link, in main's order; a slot whose dst.family is 0 held a
	 * route that went (the slots close up when half of them are free)
	 */
	struct ibh_route *routes;
	size_t n, cap, free_slots;
	/* the slots by destination: a hash, with a chain through next */
	size_t *head, mask, *next, next_cap;
	/* links whose routes of main are all in routes */
	struct index_set known;
	/* the watcher's managed links: a route of main through one is a reason to look at it */
	struct index_set managed;
	/* their prefixes: a route of main via a gateway in one is a reason to look at its link */
	struct main_prefix *prefixes;
	size_t n_prefixes, cap_prefixes;
	/* notifications keep it up to date (the watcher): it outlives a pass */
	bool followed;
};

/* a route of main that T copies: unicast, through a device, not the kernel's prefix route */
bool main_index_wanted(const struct ibh_route *rt);
/*
 * The managed link ifindex has these prefixes (its addresses' that ib-hook
 * manages; n 0: none, or no longer managed): 0, or -ENOMEM
 */
int main_index_set_prefixes(struct ibh_main_index *x, int ifindex, const struct ibh_ip *prefixes,
			    size_t n);
/*
 * A notification of rt concerns the managed link ifindex: rt leaves through
 * it, or a next hop of rt through another managed link has a gateway in one
 * of its prefixes (section 9 copies that route through it too); and so does
 * a route of the index that rt may replace or delete (one in its place),
 * asked before the index follows the notification
 */
bool main_index_concerns(const struct ibh_main_index *x, const struct ibh_route *rt, int ifindex);
bool main_index_knows(const struct ibh_main_index *x, int ifindex);
/* the routes of a dump of main filtered by ifindex: known from now on */
int main_index_learn(struct ibh_main_index *x, int ifindex, const struct ibh_route *routes,
		     size_t n);
/* the routes through ifindex, appended to *v (n used of *cap) */
int main_index_through(const struct ibh_main_index *x, int ifindex, struct ibh_route **v, size_t *n,
		       size_t *cap);
/* ifindex, and every link a route through it also leaves by, are read again from main */
void main_index_forget(struct ibh_main_index *x, int ifindex);
/* the link went down: the kernel took its routes away, without a notification for IPv4 */
void main_index_link_down(struct ibh_main_index *x, int ifindex);
/* every link is read again from main (notifications were lost) */
void main_index_forget_all(struct ibh_main_index *x);
/*
 * A notification of a route of main (RTM_NEWROUTE with NLM_F_REPLACE:
 * replace; RTM_DELROUTE: !add) applied: 0, or -ENOMEM with the links it
 * concerns forgotten. Which links lost the route it replaced or deleted,
 * main_index_concerns() says before.
 */
int main_index_note(struct ibh_main_index *x, const struct ibh_route *rt, bool add, bool replace);
/* an address of ifindex went: the kernel drops routes of main by it without a notification */
void main_index_addr_gone(struct ibh_main_index *x, int ifindex, const struct ibh_ip *addr);
void main_index_free(struct ibh_main_index *x);
