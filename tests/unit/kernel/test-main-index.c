// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The watcher's index of main's routes through the managed links
 * (src/kernel/main-index.c): it answers what a dump of main filtered by device
 * would, after each notification, or it no longer knows the link (which is
 * then read from main again). Never a stale route, never a lost one.
 */
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ip.h"
#include "main-index.h"
#include "route-index.h"
#include "route.h"

#define LO   1
#define ETH0 2
#define IB0  3
#define IB1  4
#define IB2  5

/* "A" (a host) or "A/LEN" */
static struct ibh_ip ip(const char *s)
{
	struct ibh_ip a;

	assert_int_equal(ip_from_record(s, &a, strchr(s, '/') != NULL), 0);
	return a;
}

/* a static route of main: DST/LEN via GW through oif, with that metric */
static struct ibh_route via(const char *dst, const char *gw, int oif, uint32_t metric)
{
	struct ibh_route r = { .dst = ip(dst), .gw = ip(gw), .oif = oif, .metric = metric };

	r.table = RT_TABLE_MAIN;
	r.protocol = RTPROT_STATIC;
	r.type = RTN_UNICAST;
	r.gateway = true;
	return r;
}

/*
 * The notification left exactly the links of want (0 ends it): of the
 * ports, main_index_concerns(), asked before the index follows it as the
 * watcher asks, says those it does not name itself and want's
 */
static void leaves(struct ibh_main_index *x, const struct ibh_route *rt, bool add, bool replace,
		   const int *want)
{
	static const int ports[] = { IB0, IB1, IB2 };

	for (size_t p = 0; p < sizeof(ports) / sizeof(ports[0]); p++) {
		bool wanted = route_through(rt, ports[p]);

		for (size_t n = 0; want[n]; n++)
			wanted |= want[n] == ports[p];
		assert_int_equal(main_index_concerns(x, rt, ports[p]), wanted);
	}
	assert_int_equal(main_index_note(x, rt, add, replace), 0);
}

/* a route of main of type (blackhole, unreachable, prohibit) to dst: IPv6 says it `dev lo` */
static struct ibh_route reject(const char *dst, uint8_t type, uint32_t metric)
{
	struct ibh_route r = { .dst = ip(dst), .metric = metric, .type = type };

	r.table = RT_TABLE_MAIN;
	r.protocol = RTPROT_BOOT;
	r.oif = r.dst.family == AF_INET6 ? LO : 0;
	return r;
}

/* the index holds a route to dst through ifindex */
static bool holds(const struct ibh_main_index *x, int ifindex, const char *dst)
{
	struct ibh_route *v = NULL;
	struct ibh_ip d = ip(dst);
	size_t n = 0, cap = 0;
	bool found = false;

	assert_int_equal(main_index_through(x, ifindex, &v, &n, &cap), 0);
	for (size_t i = 0; i < n; i++)
		found |= ip_equal(&v[i].dst, &d);
	free(v);
	return found;
}

/* 10.20.0.0/16 through two next hops */
static struct ibh_route multipath(int oif_a, const char *gw_a, int oif_b, const char *gw_b)
{
	struct ibh_route r = via("10.20.0.0/16", gw_a, -1, 0);

	r.gw.family = 0;
	r.n_hops = 2;
	r.hops[0] = (struct ibh_nexthop){ .gw = ip(gw_a), .oif = oif_a };
	r.hops[1] = (struct ibh_nexthop){ .gw = ip(gw_b), .oif = oif_b };
	return r;
}

/* the routes the index holds through ifindex: their number, and the first in *ret */
static size_t through(const struct ibh_main_index *x, int ifindex, struct ibh_route *ret)
{
	struct ibh_route *v = NULL;
	size_t n = 0, cap = 0;

	assert_int_equal(main_index_through(x, ifindex, &v, &n, &cap), 0);
	if (n && ret)
		*ret = v[0];
	free(v);
	return n;
}

/* ib0 and ib1 known, each with its default; eth0's routes never enter */
static void learned(struct ibh_main_index *x)
{
	struct ibh_route d0 = via("0.0.0.0/0", "10.0.0.0", IB0, 100),
			 d1 = via("0.0.0.0/0", "10.0.0.2", IB1, 101),
			 kernel = { .oif = IB0,
				    .table = RT_TABLE_MAIN,
				    .protocol = RTPROT_KERNEL,
				    .type = RTN_UNICAST };

	kernel.dst = ip("10.0.0.0/31");
	assert_int_equal(main_index_learn(x, IB0, (struct ibh_route[]){ d0, kernel }, 2), 0);
	assert_int_equal(main_index_learn(x, IB1, &d1, 1), 0);
}

static void test_learn_and_churn(void **state)
{
	struct ibh_main_index x = {};
	struct ibh_route r, up = via("32.0.1.0/24", "192.0.2.2", ETH0, 0);

	(void)state;
	learned(&x);
	assert_true(main_index_knows(&x, IB0) && main_index_knows(&x, IB1));
	assert_false(main_index_knows(&x, ETH0));
	/* the kernel's prefix route is no copy's input */
	assert_int_equal(through(&x, IB0, &r), 1);
	assert_int_equal(r.metric, 100);
	/* the uplink's churn leaves the index as it was, and no link */
	leaves(&x, &up, true, false, (int[]){ 0 });
	leaves(&x, &up, true, true, (int[]){ 0 });
	leaves(&x, &up, false, false, (int[]){ 0 });
	assert_int_equal(x.n, 2);
	assert_true(main_index_knows(&x, IB0) && main_index_knows(&x, IB1));
	main_index_free(&x);
}

static void test_add_replace_delete(void **state)
{
	struct ibh_main_index x = {};
	struct ibh_route r, agg = via("10.9.0.0/16", "10.0.0.2", IB1, 0),
			    d1 = via("0.0.0.0/0", "10.0.0.2", IB1, 101),
			    d1new = via("0.0.0.0/0", "10.0.0.7", IB1, 101);

	(void)state;
	learned(&x);
	assert_int_equal(main_index_note(&x, &agg, true, false), 0);
	assert_int_equal(through(&x, IB1, NULL), 2);
	/* the same notification read twice (it raced with the dump) is one route */
	assert_int_equal(main_index_note(&x, &agg, true, false), 0);
	assert_int_equal(through(&x, IB1, NULL), 2);
	/* `ip route replace default via NEW dev ib1 metric 101`: the old one goes */
	d1new.metrics_set = 1u << RTAX_MTU;
	d1new.metric_values[RTAX_MTU] = 1400;
	assert_int_equal(main_index_note(&x, &d1new, true, true), 0);
	assert_int_equal(through(&x, IB1, NULL), 2);
	assert_true(main_index_knows(&x, IB1));
	assert_int_equal(main_index_note(&x, &agg, false, false), 0);
	assert_int_equal(through(&x, IB1, &r), 1);
	assert_true(route_equal(&r, &d1new));
	/* a delete of what is not there changes nothing */
	assert_int_equal(main_index_note(&x, &d1, false, false), 0);
	assert_int_equal(through(&x, IB1, NULL), 1);
	assert_true(main_index_knows(&x, IB1));
	main_index_free(&x);
}

static void test_replace_moves_away(void **state)
{
	struct ibh_main_index x = {};
	struct ibh_route d1up = via("0.0.0.0/0", "192.0.2.2", ETH0, 101);

	(void)state;
	learned(&x);
	/*
	 * ib1's default replaced by one through the uplink: ib1 has none now,
	 * and knows it; the notification names eth0, the index says ib1 lost it
	 */
	leaves(&x, &d1up, true, true, (int[]){ IB1, 0 });
	assert_int_equal(through(&x, IB1, NULL), 0);
	assert_true(main_index_knows(&x, IB1));
	assert_int_equal(through(&x, ETH0, NULL), 0);
	assert_int_equal(through(&x, IB0, NULL), 1);
	main_index_free(&x);
}

/*
 * Issue 44, item 2: a replace names the new route's devices only; every link
 * the old route went through has lost it, and its copy in T(X) must go
 */
static void test_replace_leaves_multipath(void **state)
{
	struct ibh_main_index x = {};
	struct ibh_route mp = multipath(IB0, "10.0.0.0", IB1, "10.0.0.2"),
			 one = via("10.20.0.0/16", "10.0.0.4", IB2, 0);

	(void)state;
	learned(&x);
	assert_int_equal(main_index_learn(&x, IB2, NULL, 0), 0);
	assert_int_equal(main_index_note(&x, &mp, true, false), 0);
	assert_true(holds(&x, IB0, "10.20.0.0/16") && holds(&x, IB1, "10.20.0.0/16"));
	/* `ip route replace 10.20.0.0/16 via G dev ib2` */
	leaves(&x, &one, true, true, (int[]){ IB0, IB1, 0 });
	assert_false(holds(&x, IB0, "10.20.0.0/16") || holds(&x, IB1, "10.20.0.0/16"));
	assert_true(holds(&x, IB2, "10.20.0.0/16"));
	assert_true(main_index_knows(&x, IB0) && main_index_knows(&x, IB1));
	/* and back: ib2 lost it */
	leaves(&x, &mp, true, true, (int[]){ IB2, 0 });
	assert_false(holds(&x, IB2, "10.20.0.0/16"));
	assert_true(holds(&x, IB0, "10.20.0.0/16") && holds(&x, IB1, "10.20.0.0/16"));
	/* an IPv6 multipath route (as a dump says it) replaced by one hop */
	mp = multipath(IB0, "fe80::1", IB1, "fe80::2");
	mp.dst = ip("2001:db8:20::/48");
	mp.metric = 1024;
	one = via("2001:db8:20::/48", "fe80::4", IB2, 1024);
	assert_int_equal(main_index_learn(&x, IB0, &mp, 1), 0);
	assert_true(holds(&x, IB1, "2001:db8:20::/48"));
	leaves(&x, &one, true, true, (int[]){ IB0, IB1, 0 });
	assert_false(holds(&x, IB0, "2001:db8:20::/48") || holds(&x, IB1, "2001:db8:20::/48"));
	assert_true(holds(&x, IB2, "2001:db8:20::/48"));
	main_index_free(&x);
}

static void test_replace_leaves_device(void **state)
{
	struct ibh_main_index x = {};
	struct ibh_route a4 = via("10.91.0.0/16", "10.0.0.0", IB0, 0),
			 b4 = via("10.91.0.0/16", "10.0.0.2", IB1, 0),
			 c4 = via("10.91.0.0/16", "10.0.0.3", IB1, 0),
			 a6 = via("2001:db8:53::/48", "fe80::1", IB0, 1024),
			 b6 = via("2001:db8:53::/48", "fe80::1", IB1, 1024);

	(void)state;
	learned(&x);
	assert_int_equal(main_index_note(&x, &a4, true, false), 0);
	assert_int_equal(main_index_note(&x, &a6, true, false), 0);
	leaves(&x, &b4, true, true, (int[]){ IB0, 0 });
	leaves(&x, &b6, true, true, (int[]){ IB0, 0 });
	assert_false(holds(&x, IB0, "10.91.0.0/16") || holds(&x, IB0, "2001:db8:53::/48"));
	assert_true(holds(&x, IB1, "10.91.0.0/16") && holds(&x, IB1, "2001:db8:53::/48"));
	/* another gateway through the same device: the device is left (and named) */
	leaves(&x, &c4, true, true, (int[]){ IB1, 0 });
	assert_true(holds(&x, IB1, "10.91.0.0/16"));
	/* a replace by the very route the index holds changes nothing */
	leaves(&x, &c4, true, true, (int[]){ 0 });
	assert_true(main_index_knows(&x, IB0) && main_index_knows(&x, IB1));
	main_index_free(&x);
}

/* unicast to blackhole, unreachable, prohibit: IPv4 says no device, IPv6 `dev lo` */
static void test_replace_leaves_reject(void **state)
{
	static const uint8_t types[] = { RTN_BLACKHOLE, RTN_UNREACHABLE, RTN_PROHIBIT };
	static const char *const dsts[] = { "10.92.0.0/16", "2001:db8:54::/48" };

	(void)state;
	for (size_t f = 0; f < 2; f++)
		for (size_t t = 0; t < sizeof(types); t++) {
			struct ibh_main_index x = {};
			struct ibh_route u = via(dsts[f], f ? "fe80::1" : "10.0.0.0", IB0, 100),
					 rej = reject(dsts[f], types[t], 100),
					 back = via(dsts[f], f ? "fe80::1" : "10.0.0.2", IB1, 100);

			learned(&x);
			assert_int_equal(main_index_note(&x, &u, true, false), 0);
			assert_true(holds(&x, IB0, dsts[f]));
			leaves(&x, &rej, true, true, (int[]){ IB0, 0 });
			assert_false(holds(&x, IB0, dsts[f]));
			assert_true(main_index_knows(&x, IB0));
			/* the reject route was never the index's: replaced or deleted, it leaves no link */
			leaves(&x, &back, true, true, (int[]){ 0 });
			assert_true(holds(&x, IB1, dsts[f]));
			leaves(&x, &back, false, false, (int[]){ IB1, 0 });
			leaves(&x, &rej, true, false, (int[]){ 0 });
			leaves(&x, &rej, false, false, (int[]){ 0 });
			assert_int_equal(x.n - x.free_slots, 2);
			main_index_free(&x);
		}
}

/* routes of one prefix with another metric are other routes: only the replaced twin's links */
static void test_replace_leaves_twins(void **state)
{
	struct ibh_main_index x = {};
	struct ibh_route m100 = via("2001:db8:51::/48", "fe80::1", IB0, 100),
			 m200 = via("2001:db8:51::/48", "fe80::1", IB0, 200),
			 m300 = via("2001:db8:51::/48", "fe80::1", IB1, 300),
			 hole = reject("2001:db8:51::/48", RTN_BLACKHOLE, 200),
			 v100 = via("10.95.0.0/16", "10.0.0.0", IB0, 100),
			 v200 = via("10.95.0.0/16", "10.0.0.2", IB1, 200),
			 v200new = via("10.95.0.0/16", "10.0.0.4", IB2, 200);

	(void)state;
	learned(&x);
	assert_int_equal(main_index_learn(&x, IB2, NULL, 0), 0);
	assert_int_equal(main_index_note(&x, &m100, true, false), 0);
	assert_int_equal(main_index_note(&x, &m200, true, false), 0);
	assert_int_equal(main_index_note(&x, &m300, true, false), 0);
	assert_int_equal(through(&x, IB0, NULL), 3);
	/* the metric-100 twin deleted, then the metric-200 one replaced by a blackhole */
	leaves(&x, &m100, false, false, (int[]){ IB0, 0 });
	assert_int_equal(through(&x, IB0, NULL), 2);
	leaves(&x, &hole, true, true, (int[]){ IB0, 0 });
	assert_false(holds(&x, IB0, "2001:db8:51::/48"));
	assert_true(holds(&x, IB1, "2001:db8:51::/48"));
	/* IPv4: the metric-200 twin moves from ib1 to ib2, ib0's metric 100 stays */
	assert_int_equal(main_index_note(&x, &v100, true, false), 0);
	assert_int_equal(main_index_note(&x, &v200, true, false), 0);
	leaves(&x, &v200new, true, true, (int[]){ IB1, 0 });
	assert_true(holds(&x, IB0, "10.95.0.0/16") && holds(&x, IB2, "10.95.0.0/16"));
	assert_false(holds(&x, IB1, "10.95.0.0/16"));
	assert_true(main_index_knows(&x, IB0) && main_index_knows(&x, IB1) &&
		    main_index_knows(&x, IB2));
	main_index_free(&x);
}

/*
 * Where the index cannot tell which route went (IPv4 twins of one place made
 * with `ip route append`, a next hop of an IPv6 multipath route deleted), the
 * links are read again, and every link of the routes it dropped is left
 */
static void test_unsure_leaves(void **state)
{
	struct ibh_main_index x = {};
	struct ibh_route t0 = via("10.96.0.0/16", "10.0.0.0", IB0, 0),
			 t1 = via("10.96.0.0/16", "10.0.0.2", IB1, 0),
			 t2 = via("10.96.0.0/16", "10.0.0.4", IB2, 0),
			 mp = multipath(IB0, "fe80::1", IB1, "fe80::2"),
			 hop1 = via("2001:db8:21::/48", "fe80::2", IB1, 1024);

	(void)state;
	learned(&x);
	assert_int_equal(main_index_learn(&x, IB2, NULL, 0), 0);
	assert_int_equal(main_index_note(&x, &t0, true, false), 0);
	assert_int_equal(main_index_note(&x, &t1, true, false), 0);
	leaves(&x, &t2, true, true, (int[]){ IB0, IB1, 0 });
	assert_false(main_index_knows(&x, IB0) || main_index_knows(&x, IB1));
	learned(&x);
	mp.dst = ip("2001:db8:21::/48");
	mp.metric = 1024;
	assert_int_equal(main_index_learn(&x, IB0, &mp, 1), 0);
	leaves(&x, &hop1, false, false, (int[]){ IB0, IB1, 0 });
	assert_false(main_index_knows(&x, IB0) || main_index_knows(&x, IB1));
	main_index_free(&x);
}

static void test_multipath(void **state)
{
	struct ibh_main_index x = {};
	struct ibh_route mp = multipath(IB0, "10.0.0.0", ETH0, "192.0.2.2");

	(void)state;
	learned(&x);
	/* a multipath route with a hop through ib0 is ib0's too */
	assert_int_equal(main_index_note(&x, &mp, true, false), 0);
	assert_int_equal(through(&x, IB0, NULL), 2);
	assert_int_equal(through(&x, IB1, NULL), 1);
	/* ib0 goes down: its default goes; which hops of the multipath route stay is read again */
	main_index_link_down(&x, IB0);
	assert_false(main_index_knows(&x, IB0));
	assert_int_equal(through(&x, IB0, NULL), 0);
	assert_true(main_index_knows(&x, IB1));
	assert_int_equal(through(&x, IB1, NULL), 1);
	main_index_free(&x);
}

static void test_link_down_deleted(void **state)
{
	struct ibh_main_index x = {};
	struct ibh_route mp = multipath(IB0, "10.0.0.0", IB1, "10.0.0.2");

	(void)state;
	learned(&x);
	/* deleted with a multipath route through both: both are read again */
	assert_int_equal(main_index_note(&x, &mp, true, false), 0);
	assert_int_equal(x.n, 3);
	main_index_forget(&x, IB0);
	assert_false(main_index_knows(&x, IB0) || main_index_knows(&x, IB1));
	assert_int_equal(x.n, 0);
	learned(&x);
	/* down: its routes with one hop go with it, and the link stays known */
	main_index_link_down(&x, IB1);
	assert_true(main_index_knows(&x, IB1));
	assert_int_equal(through(&x, IB1, NULL), 0);
	assert_int_equal(through(&x, IB0, NULL), 1);
	/* deleted: read again should its index come back */
	main_index_forget(&x, IB0);
	assert_false(main_index_knows(&x, IB0));
	assert_int_equal(x.n, 0);
	main_index_free(&x);
}

static void test_ipv6_join(void **state)
{
	struct ibh_main_index x = {};
	struct ibh_route a = via("fd00::/16", "fe80::1", IB0, 300),
			 b = via("fd00::/16", "fe80::2", IB1, 300),
			 ra0 = via("::/0", "fe80::1", IB0, 1024),
			 ra1 = via("::/0", "fe80::1", IB1, 1024),
			 joined = via("::/0", "fe80::2", -1, 1024);

	(void)state;
	learned(&x);
	ra0.protocol = ra1.protocol = RTPROT_RA;
	ra0.expires = ra1.expires = true;
	/*
	 * router advertisements: one default per port, which the kernel never
	 * joins; but `ip route append ... proto ra` looks the same and does
	 * join (seed 2091113781 of tests/random/ownership.py): read again
	 */
	assert_int_equal(main_index_note(&x, &ra0, true, false), 0);
	assert_int_equal(through(&x, IB0, NULL), 2);
	assert_int_equal(main_index_note(&x, &ra1, true, false), 0);
	assert_false(main_index_knows(&x, IB0));
	assert_false(main_index_knows(&x, IB1));
	learned(&x);
	/* a static IPv6 gateway route of the same prefix and metric joins a multipath route */
	assert_int_equal(main_index_note(&x, &a, true, false), 0);
	assert_int_equal(main_index_note(&x, &b, true, false), 0);
	assert_false(main_index_knows(&x, IB0));
	assert_false(main_index_knows(&x, IB1));
	/*
	 * a next hop through ib1 that joined a default through eth0, which the
	 * index never held (seed 949225389): the notification says the
	 * joiner's own attributes, a dump the first sibling's: read again
	 */
	learned(&x);
	joined.gw.family = 0;
	joined.n_hops = 2;
	joined.hops[0] = (struct ibh_nexthop){ .gw = ip("fe80::2"), .oif = IB1 };
	joined.hops[1] = (struct ibh_nexthop){ .gw = ip("fe80::9"), .oif = ETH0 };
	assert_int_equal(main_index_note(&x, &joined, true, false), 0);
	assert_false(main_index_knows(&x, IB1));
	assert_true(main_index_knows(&x, IB0));
	assert_int_equal(through(&x, IB0, NULL), 1);
	main_index_free(&x);
}

static void test_addr_gone(void **state)
{
	struct ibh_main_index x = {};
	struct ibh_route src0 = via("10.30.0.0/16", "10.0.0.2", IB1, 0);
	struct ibh_ip a0 = ip("10.0.0.1"), a6 = ip("fd00::1");

	(void)state;
	learned(&x);
	src0.src = a0;
	assert_int_equal(main_index_note(&x, &src0, true, false), 0);
	/* an IPv6 address: only the routes it was the source of are read again */
	main_index_addr_gone(&x, IB0, &a6);
	assert_true(main_index_knows(&x, IB0) && main_index_knows(&x, IB1));
	/* an IPv4 address of ib0 whose routes through ib1 name it */
	main_index_addr_gone(&x, IB0, &a0);
	assert_false(main_index_knows(&x, IB0));
	assert_false(main_index_knows(&x, IB1));
	assert_int_equal(x.n, 0);
	main_index_free(&x);
}

/*
 * Which managed links a notification of a route of main concerns (issue 44):
 * those it leaves through, and those whose prefixes hold its gateway through
 * another managed link, also for the route a replace puts out of its place
 */
static void test_concerns(void **state)
{
	struct ibh_main_index x = {};
	struct ibh_ip p0 = ip("172.16.0.0/16"), p1 = ip("172.16.0.0/16"),
		      eth = ip("192.168.1.0/24");
	struct ibh_route storage = via("10.50.0.0/16", "172.16.0.254", IB0, 0),
			 moved = via("10.50.0.0/16", "192.168.1.1", ETH0, 0),
			 uplink = via("0.0.0.0/0", "192.168.1.1", ETH0, 0),
			 foreign_gw = via("10.60.0.0/16", "172.16.0.254", ETH0, 0),
			 elsewhere = via("10.70.0.0/16", "10.9.0.1", IB0, 0),
			 hops = multipath(ETH0, "192.168.1.1", IB0, "172.16.0.253");

	(void)state;
	assert_int_equal(index_set_add(&x.managed, IB0), 0);
	assert_int_equal(index_set_add(&x.managed, IB1), 0);
	assert_int_equal(main_index_set_prefixes(&x, IB0, &p0, 1), 0);
	assert_int_equal(main_index_set_prefixes(&x, IB1, &p1, 1), 0);
	assert_int_equal(main_index_set_prefixes(&x, ETH0, &eth, 1), 0);
	assert_int_equal(main_index_learn(&x, IB0, &storage, 1), 0);
	/* through ib0 via a gateway of the shared subnet: ib1 copies it too */
	assert_true(main_index_concerns(&x, &storage, IB0));
	assert_true(main_index_concerns(&x, &storage, IB1));
	assert_false(main_index_concerns(&x, &storage, ETH0));
	/* a next hop of a multipath route */
	assert_true(main_index_concerns(&x, &hops, IB1));
	/* a gateway elsewhere, or a device ib-hook does not manage: nobody else's */
	assert_false(main_index_concerns(&x, &elsewhere, IB1));
	assert_false(main_index_concerns(&x, &uplink, IB1));
	assert_false(main_index_concerns(&x, &foreign_gw, IB1));
	/* a replace through eth0 puts ib0's route out of its place: ib0's and ib1's copies go */
	assert_true(main_index_concerns(&x, &moved, IB0));
	assert_true(main_index_concerns(&x, &moved, IB1));
	/* ib1 no longer managed: its prefixes go with it */
	assert_int_equal(main_index_set_prefixes(&x, IB1, NULL, 0), 0);
	assert_false(main_index_concerns(&x, &storage, IB1));
	assert_true(main_index_concerns(&x, &storage, IB0));
	main_index_free(&x);
}

/*
 * Thousands of routes through a port (issue 38 item 10): learnt, half of
 * them deleted by notification, one replaced; the index answers as a dump
 * of main would, in main's order
 */
static void test_many(void **state)
{
	enum { N = 4000 };
	struct ibh_main_index x = {};
	struct ibh_route *v = malloc(N * sizeof(*v)), *got = NULL, moved;
	size_t n = 0, cap = 0;

	(void)state;
	assert_non_null(v);
	for (int i = 0; i < N; i++) {
		char dst[32];

		snprintf(dst, sizeof(dst), "10.%d.%d.0/24", i >> 8, i & 255);
		v[i] = via(dst, "10.0.0.2", IB0, 100);
	}
	assert_int_equal(main_index_learn(&x, IB0, v, N), 0);
	/* a dump that says a route twice (two hops of one route) holds it once */
	assert_int_equal(main_index_note(&x, &v[5], true, false), 0);
	assert_int_equal(through(&x, IB0, NULL), N);
	for (int i = 0; i < N; i += 2)
		assert_int_equal(main_index_note(&x, &v[i], false, false), 0);
	assert_true(main_index_knows(&x, IB0));
	moved = v[1];
	moved.gw = ip("10.0.0.3");
	assert_int_equal(main_index_note(&x, &moved, true, true), 0);
	assert_int_equal(main_index_through(&x, IB0, &got, &n, &cap), 0);
	assert_int_equal(n, N / 2);
	/* the replacing route comes last: the index appends it */
	for (size_t i = 0; i + 1 < n; i++)
		assert_true(route_equal(&got[i], &v[2 * i + 3]));
	assert_true(route_equal(&got[n - 1], &moved));
	free(got);
	free(v);
	main_index_free(&x);
}

/* routes sorted by destination answer as a scan would (issue 38 item 10) */
static void test_route_index(void **state)
{
	struct ibh_route v[] = {
		via("10.1.0.0/24", "10.0.0.2", IB0, 100), via("10.2.0.0/24", "10.0.0.2", IB0, 100),
		via("10.1.0.0/24", "10.0.0.3", IB0, 100), via("10.1.0.0/16", "10.0.0.2", IB0, 100),
		via("10.1.0.0/24", "10.0.0.2", IB0, 100), via("fd00::/64", "fe80::1", IB0, 100),
	};
	struct route_index t;
	size_t first;

	(void)state;
	assert_int_equal(route_index_build(&t, v, 6), 0);
	assert_int_equal(route_index_dst(&t, &v[0].dst, &first), 3);
	/* within a destination, the array's order */
	assert_ptr_equal(t.by_dst[first], &v[0]);
	assert_ptr_equal(t.by_dst[first + 1], &v[2]);
	assert_ptr_equal(t.by_dst[first + 2], &v[4]);
	assert_int_equal(route_index_find(&t, &v[4]), 0);
	assert_int_equal(route_index_find(&t, &v[2]), 2);
	assert_int_equal(route_index_find(&t, &v[3]), 3);
	assert_int_equal(route_index_find(&t, &v[5]), 5);
	assert_int_equal(
		route_index_dst(&t, &(struct ibh_ip){ .family = AF_INET, .len = 8 }, &first), 0);
	route_index_free(&t);
	/* the later twin of a route leaves, the order stays */
	struct ibh_route second = via("10.1.0.0/24", "10.0.0.3", IB0, 100),
			 last = via("fd00::/64", "fe80::1", IB0, 100);

	assert_int_equal(route_dedup(v, 6), 5);
	assert_true(route_equal(&v[2], &second));
	assert_true(route_equal(&v[4], &last));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_learn_and_churn),
		cmocka_unit_test(test_add_replace_delete),
		cmocka_unit_test(test_replace_moves_away),
		cmocka_unit_test(test_replace_leaves_multipath),
		cmocka_unit_test(test_replace_leaves_device),
		cmocka_unit_test(test_replace_leaves_reject),
		cmocka_unit_test(test_replace_leaves_twins),
		cmocka_unit_test(test_unsure_leaves),
		cmocka_unit_test(test_multipath),
		cmocka_unit_test(test_link_down_deleted),
		cmocka_unit_test(test_ipv6_join),
		cmocka_unit_test(test_addr_gone),
		cmocka_unit_test(test_concerns),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_route_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
