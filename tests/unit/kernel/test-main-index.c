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

#define IB0  3
#define IB1  4
#define ETH0 2

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
	/* the uplink's churn leaves the index as it was */
	assert_int_equal(main_index_note(&x, &up, true, false), 0);
	assert_int_equal(main_index_note(&x, &up, true, true), 0);
	assert_int_equal(main_index_note(&x, &up, false, false), 0);
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
	/* ib1's default replaced by one through the uplink: ib1 has none now, and knows it */
	assert_int_equal(main_index_note(&x, &d1up, true, true), 0);
	assert_int_equal(through(&x, IB1, NULL), 0);
	assert_true(main_index_knows(&x, IB1));
	assert_int_equal(through(&x, ETH0, NULL), 0);
	assert_int_equal(through(&x, IB0, NULL), 1);
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
