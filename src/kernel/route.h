/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A route: every field ib-hook sets, compares, records and prints is known
 * here and nowhere else, its netlink message included (netlink.c only sends
 * and dumps).
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ip.h"

struct ibh_msg;
struct nlmsghdr;

/* one next hop of a multipath route (RTA_MULTIPATH) */
struct ibh_nexthop {
	struct ibh_ip gw; /* family 0: none */
	int oif;
	uint8_t weight; /* rtnh_hops: the kernel's weight less one */
	uint8_t flags;	/* the flags a user sets (onlink) */
};

#define IBH_ROUTE_HOPS 8
/* RTAX_FASTOPEN_NO_COOKIE, the last route metric kernels from 4.15 know */
#define IBH_RTAX_MAX	 17
#define IBH_RTAX_CC_ALGO 16

struct ibh_route {
	struct ibh_ip dst;
	struct ibh_ip src; /* family 0: no preferred source */
	int oif;	   /* 0: no device (unreachable, nexthop object...) */
	uint32_t table;
	uint32_t metric;
	uint8_t protocol;
	uint8_t scope;
	uint8_t type;
	uint8_t tos;
	uint8_t pref;	/* IPv6 router preference (RTA_PREF): 0 is medium, the default */
	bool expires;	/* IPv6: the kernel deletes it when its lifetime ends */
	uint32_t flags; /* rtm_flags a user sets (onlink, pervasive, prefix), not states */
	bool gateway;	/* has a gateway or several next hops */
	/* an attribute ib-hook cannot make (encap, nexthop id, flow, via...) */
	bool extra;
	struct ibh_ip gw; /* the gateway of a route with one next hop; family 0: none */
	/* the next hops of a multipath route: oif is theirs if they share one, else -1 */
	struct ibh_nexthop hops[IBH_ROUTE_HOPS];
	uint8_t n_hops;
	/* RTA_METRICS (mtu, advmss, hoplimit...): metric[RTAX_*] where bit RTAX_* is set */
	uint32_t metrics_set;
	uint32_t metric_values[IBH_RTAX_MAX + 1];
	char cc_algo[16]; /* RTAX_CC_ALGO, a name */
	char oif_name[IF_NAMESIZE];
};

/*
 * The route the kernel makes for an address's prefix through oif (named
 * oif_name) in table, and that ib-hook copies: IPv4 with the address as
 * source, IPv6 with the kernel's default metric said out loud
 */
void route_wanted(const struct ibh_ip *prefix, const struct ibh_ip *local, int oif,
		  const char *oif_name, uint32_t table, struct ibh_route *ret);
/*
 * The copy in table of main's route m for the next hops of m through oif,
 * with protocol kernel (as ib-hook's prefix routes, which networkd leaves
 * alone) and without m's lifetime (the copy goes when m goes): false when no
 * next hop of m leaves through oif or m is no unicast route ib-hook can copy
 * (the kernel's own prefix route, an encap or a nexthop object)
 */
bool route_copy(const struct ibh_route *m, int oif, const char *oif_name, uint32_t table,
		struct ibh_route *ret);
/* every field the kernel reports: a route that differs in any is another route */
bool route_equal(const struct ibh_route *a, const struct ibh_route *b);
/*
 * The fields that name a recorded route; main: a prefix route taken out of
 * main, named by fewer (its metric, scope... are the kernel's)
 */
bool route_same_key(const struct ibh_route *a, const struct ibh_route *b, bool main);
/* r leaves through oif: its device, or a next hop's */
bool route_through(const struct ibh_route *r, int oif);
/* a route through a device: the kinds that carry packets out of one */
bool route_has_device(const struct ibh_route *r);
/* f, before r in its table, is the route the kernel deletes instead of r */
bool route_delete_hits(const struct ibh_route *f, const struct ibh_route *r);
/* f makes the kernel refuse adding w (EEXIST) */
bool route_add_hits(const struct ibh_route *f, const struct ibh_route *w);
/* f goes where w would: the same prefix through the same device (what is in the way) */
bool route_same_place(const struct ibh_route *f, const struct ibh_route *w);

/* an RTM_NEWROUTE message's route, every field that sets it apart; -EINVAL: malformed */
int route_from_msg(const struct nlmsghdr *nlh, struct ibh_route *ret);
/* the request that adds (NLM_F_APPEND, never REPLACE) or deletes r */
void route_to_msg(struct ibh_msg *m, const struct ibh_route *r, bool add);

/*
 * The record's fields after the interface: "DST OIF TABLE SRC METRIC SCOPE
 * PROTOCOL TYPE", or for main "DST OIF SRC METRIC"; and back (-EINVAL)
 */
void route_to_record(char *buf, size_t size, const struct ibh_route *r, bool main);
int route_from_record(const char *s, struct ibh_route *ret, bool main);

/* "main" or the number */
void route_table_name(char *buf, size_t size, uint32_t table);
/* a route as `ip route` names it, with every field that sets it apart */
const char *route_format(char *buf, size_t size, const struct ibh_route *r);
/* `ip route VERB ...`, as --dry-run prints it (ifname: without oif_name) */
void route_command(char *buf, size_t size, const char *verb, const struct ibh_route *r,
		   const char *ifname);
/* for messages: "DST in table T" */
void route_text_named(char *buf, size_t size, const struct ibh_route *r);
/* for messages: "DST src SRC in table T" (added) or "DST dev X from table T" (deleted) */
void route_text_added(char *buf, size_t size, const struct ibh_route *r);
void route_text_deleted(char *buf, size_t size, const struct ibh_route *r, const char *ifname);
