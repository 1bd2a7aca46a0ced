// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --check's verdicts from what was found, for the RDMA cases that no kernel
 * here can show (no rdma_rxe): a port not ACTIVE, a RoCE port without the
 * address's GID, an InfiniBand port without a LID, RDMA CM choosing another
 * device or failing; and the order when several apply.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "kernel.h"

/* ib1 172.16.34.2 on rxe_ib1 port 1, all as it should be */
static struct ibh_check_line good(void)
{
	struct ibh_check_line l = {
		.ifname = "ib1",
		.ifindex = 5,
		.up = true,
		.route_oif = 5,
		.route_dev = "ib1",
		.arp_ignore = 2,
		.arp_announce = 2,
		.arp_filter = 0,
		.rdma = true,
		.rdma_dev = "rxe_ib1",
		.rdma_port = 1,
		.state = "ACTIVE",
		.link_layer = "Ethernet",
		.gid = { .index = 3, .type = IBH_GID_ROCE_V2, .entries = 4, .global = 2 },
		.cm_r = 0,
		.cm = { .dev = "rxe_ib1", .port = 1 },
	};

	l.addr.family = l.peer.family = AF_INET;
	l.addr.len = l.peer.len = 32;
	inet_pton(AF_INET, "172.16.34.2", l.addr.a);
	inet_pton(AF_INET, "172.16.16.1", l.peer.a);
	l.peer_given = true;
	return l;
}

static enum ibh_check_verdict judge(struct ibh_check_line *l)
{
	check_judge(l);
	return l->verdict;
}

static void test_ok(void **state)
{
	struct ibh_check_line l = good();

	assert_int_equal(judge(&l), IBH_CHECK_OK);
	assert_string_equal(l.why, "");
	/* no librdmacm, or no peer: RDMA CM is not asked, the rest decides */
	l.cm_r = -ENOSYS;
	assert_int_equal(judge(&l), IBH_CHECK_OK);
	l.cm_r = 1;
	assert_int_equal(judge(&l), IBH_CHECK_OK);
	/* not root: RDMA CM's device is not ours to open, the rest decides */
	l.cm_r = -EACCES;
	assert_int_equal(judge(&l), IBH_CHECK_OK);
	/* a veth matched by Name=: routing and ARP only */
	l.rdma = false;
	assert_int_equal(judge(&l), IBH_CHECK_OK);
	/* arp_filter=1 keeps ARP on the right port as well */
	l.arp_ignore = 0;
	l.arp_filter = 1;
	assert_int_equal(judge(&l), IBH_CHECK_OK);
}

static void test_rdma_port(void **state)
{
	struct ibh_check_line l = good();

	snprintf(l.state, sizeof(l.state), "DOWN");
	assert_int_equal(judge(&l), IBH_CHECK_PORT_DOWN);
	assert_string_equal(l.why, "rxe_ib1 port 1 is DOWN");
	/* not yet active: no connection either */
	snprintf(l.state, sizeof(l.state), "ACTIVE_DEFER");
	assert_int_equal(judge(&l), IBH_CHECK_PORT_DOWN);
	l = good();
	l.gid.index = -1;
	assert_int_equal(judge(&l), IBH_CHECK_NO_GID);
	assert_string_equal(l.why, "rxe_ib1 port 1 holds no GID for 172.16.34.2");
	/* the port's table holds the MAC's link-local twins only */
	l.gid.entries = 2;
	l.gid.global = 0;
	assert_int_equal(judge(&l), IBH_CHECK_LINK_LOCAL_GIDS);
	assert_string_equal(l.why, "rxe_ib1 port 1 holds link-local GIDs only, none for "
				   "172.16.34.2: RDMA CM cannot use the address (is it on ib1 "
				   "itself?)");
	/* an empty table is no GID, not link-local only */
	l.gid.entries = 0;
	assert_int_equal(judge(&l), IBH_CHECK_NO_GID);
	/* RoCE v1 only: RDMA CM and a job-wide RoCE v2 index both miss it */
	l = good();
	l.gid.type = IBH_GID_ROCE_V1;
	l.gid.index = 2;
	assert_int_equal(judge(&l), IBH_CHECK_NO_ROCE_V2);
	assert_non_null(
		strstr(l.why, "holds no RoCE v2 GID for 172.16.34.2, only RoCE v1 (index 2)"));
	/* no gid_attrs: the type is unknown, never ok */
	l.gid.type = IBH_GID_UNKNOWN;
	assert_int_equal(judge(&l), IBH_CHECK_UNKNOWN);
	/* InfiniBand: a LID, not a GID for the address, is what counts */
	l = good();
	snprintf(l.link_layer, sizeof(l.link_layer), "InfiniBand");
	l.gid.index = -1;
	l.lid = 7;
	assert_int_equal(judge(&l), IBH_CHECK_OK);
	l.lid = 0;
	assert_int_equal(judge(&l), IBH_CHECK_NO_LID);
}

static void test_rdma_cm(void **state)
{
	struct ibh_check_line l = good();

	/* its RDMA device went away (Name= keeps it managed): RDMA CM answers elsewhere */
	l.rdma = false;
	l.rdma_dev[0] = '\0';
	snprintf(l.cm.dev, sizeof(l.cm.dev), "rxe_ib0");
	assert_int_equal(judge(&l), IBH_CHECK_WRONG_PORT);
	assert_string_equal(l.why, "RDMA CM chose rxe_ib0 port 1, but ib1 has no RDMA port");
	l.cm_r = -ENODEV;
	assert_int_equal(judge(&l), IBH_CHECK_UNRESOLVED);
	l = good();

	snprintf(l.cm.dev, sizeof(l.cm.dev), "rxe_ib0");
	assert_int_equal(judge(&l), IBH_CHECK_WRONG_PORT);
	assert_string_equal(l.why, "RDMA CM chose rxe_ib0 port 1, not rxe_ib1 port 1");
	l = good();
	l.cm_r = -ETIMEDOUT;
	assert_int_equal(judge(&l), IBH_CHECK_UNRESOLVED);
	assert_non_null(strstr(l.why, "could not resolve 172.16.34.2"));
}

static void test_order(void **state)
{
	struct ibh_check_line l = good();

	/* routing first: RDMA CM follows the route, so that is the cause to name */
	l.route_oif = 3;
	snprintf(l.route_dev, sizeof(l.route_dev), "ib0");
	l.arp_ignore = 0;
	l.gid.index = -1;
	snprintf(l.cm.dev, sizeof(l.cm.dev), "rxe_ib0");
	assert_int_equal(judge(&l), IBH_CHECK_WRONG_PORT);
	assert_string_equal(l.why, "the route from 172.16.34.2 leaves through ib0, not ib1");
	l.route_oif = 5;
	assert_int_equal(judge(&l), IBH_CHECK_ARP_FLUX);
	l.arp_ignore = 8;
	assert_int_equal(judge(&l), IBH_CHECK_ARP_OFF);
	l.up = false;
	assert_int_equal(judge(&l), IBH_CHECK_LINK_DOWN);
	l = good();
	l.route_r = -ENETUNREACH;
	assert_int_equal(judge(&l), IBH_CHECK_NO_ROUTE);
	/* IPv6 has no ARP settings to judge */
	l = good();
	l.addr.family = AF_INET6;
	l.arp_ignore = -1;
	assert_int_equal(judge(&l), IBH_CHECK_OK);
	assert_string_equal(check_verdict_word(IBH_CHECK_NO_GID), "no-gid");
	assert_string_equal(check_verdict_word(IBH_CHECK_NO_ROCE_V2), "no-roce-v2");
	assert_string_equal(check_verdict_word(IBH_CHECK_LINK_LOCAL_GIDS), "link-local-gids");
}

/* a value that could not be read is never ok (issue 29) */
static void test_unknown(void **state)
{
	struct ibh_check_line l = good();

	l.arp_ignore = -1;
	assert_int_equal(judge(&l), IBH_CHECK_UNKNOWN);
	assert_false(check_verdict_passes(l.verdict));
	l = good();
	l.arp_filter = -1;
	assert_int_equal(judge(&l), IBH_CHECK_UNKNOWN);
	l = good();
	snprintf(l.state, sizeof(l.state), "?");
	assert_int_equal(judge(&l), IBH_CHECK_UNKNOWN);
	l = good();
	snprintf(l.link_layer, sizeof(l.link_layer), "InfiniBand");
	l.lid_r = -EACCES;
	assert_int_equal(judge(&l), IBH_CHECK_UNKNOWN);
}

/* the peer is the host's own address (RDMA between two local ports) */
static void test_local(void **state)
{
	struct ibh_check_line l = good();

	l.route_oif = 1;
	snprintf(l.route_dev, sizeof(l.route_dev), "lo");
	l.local = true;
	l.local_ifindex = 4;
	snprintf(l.local_dev, sizeof(l.local_dev), "ib0");
	l.local_accept = 0;
	l.local_arp_filter = 0;
	l.cm_r = 1;
	assert_int_equal(judge(&l), IBH_CHECK_LOCAL_DROPPED);
	assert_non_null(strstr(l.why, "on ib0, which drops ARP from 172.16.34.2 (accept_local=0"));
	assert_false(check_verdict_passes(l.verdict));
	l.local_accept = 1;
	assert_int_equal(judge(&l), IBH_CHECK_LOCAL);
	assert_true(check_verdict_passes(l.verdict));
	assert_string_equal(check_verdict_word(l.verdict), "local");
	l.local_arp_filter = 1;
	assert_int_equal(judge(&l), IBH_CHECK_LOCAL_DROPPED);
	l.local_arp_filter = -1;
	assert_int_equal(judge(&l), IBH_CHECK_UNKNOWN);
	/* its own port: nothing crosses the fabric */
	l.local_ifindex = l.ifindex;
	assert_int_equal(judge(&l), IBH_CHECK_LOCAL);
	/* lo is never a wrong port; a problem of the address's own port still counts */
	l.arp_ignore = 0;
	assert_int_equal(judge(&l), IBH_CHECK_ARP_FLUX);
}

static struct ibh_addr addr_of(const char *s, unsigned int len, const char *peer)
{
	struct ibh_addr a = {};

	a.ip.family = strchr(s, ':') ? AF_INET6 : AF_INET;
	assert_int_equal(inet_pton(a.ip.family, s, a.ip.a), 1);
	a.ip.len = (uint8_t)len;
	if (peer) {
		a.peer.family = a.ip.family;
		assert_int_equal(inet_pton(a.ip.family, peer, a.peer.a), 1);
		a.peer.len = (uint8_t)len;
	}
	return a;
}

static bool in_prefix(const struct ibh_ip *x, const struct ibh_addr *a)
{
	struct ibh_ip p, q = *x;

	ip_prefix(&p, a->peer.family ? &a->peer : &a->ip);
	q.len = p.len;
	ip_prefix(&q, &q);
	return ip_equal(&p, &q);
}

static bool is(const struct ibh_ip *x, const char *s)
{
	struct ibh_addr a = addr_of(s, 0, NULL);

	return ip_same_address(x, &a.ip);
}

/* every prefix length, both families: the probe lies inside the prefix and is no host's */
static void test_probe(void **state)
{
	static const char *const v4[] = { "10.0.0.1", "10.0.0.0", "10.0.0.255", "172.16.34.2" };
	static const char *const v6[] = { "fd00::1", "fd00::", "fd00::ffff", "2001:db8::2" };
	struct ibh_addr_entry all[2] = {};
	struct ibh_ip x;

	for (int fam = 0; fam < 2; fam++) {
		unsigned int bits = fam ? 128 : 32;

		for (size_t i = 0; i < 4; i++) {
			for (unsigned int len = 0; len <= bits; len++) {
				struct ibh_addr a = addr_of(fam ? v6[i] : v4[i], len, NULL);
				int r;

				all[0].addr = a;
				r = check_probe(&a, all, 1, &x);
				if (len == bits) {
					/* a /32 or /128 alone: nothing to probe */
					assert_int_equal(r, -ENOENT);
					continue;
				}
				assert_int_equal(r, 0);
				assert_int_equal(x.len, bits);
				assert_true(in_prefix(&x, &a));
				assert_false(ip_same_address(&x, &a.ip));
			}
		}
	}
	/* IPv4: never the network or broadcast address below /31; /31 has both ends */
	struct ibh_addr a = addr_of("10.0.0.1", 30, NULL);
	all[0].addr = a;
	all[1].addr = addr_of("10.0.0.2", 30, NULL);
	assert_int_equal(check_probe(&a, all, 2, &x), -ENOENT);
	a = addr_of("10.0.0.1", 31, NULL);
	all[0].addr = a;
	assert_int_equal(check_probe(&a, all, 1, &x), 0);
	assert_true(is(&x, "10.0.0.0"));
	/* IPv6 /127: the other end, below or above */
	a = addr_of("fd00::1", 127, NULL);
	all[0].addr = a;
	assert_int_equal(check_probe(&a, all, 1, &x), 0);
	assert_true(is(&x, "fd00::"));
	/* a peer address: the peer, whatever the local address is */
	a = addr_of("10.9.9.9", 32, "10.0.0.2");
	all[0].addr = a;
	assert_int_equal(check_probe(&a, all, 1, &x), 0);
	assert_true(is(&x, "10.0.0.2"));
	a = addr_of("10.9.9.9", 24, "10.0.0.2");
	assert_int_equal(check_probe(&a, all, 1, &x), 0);
	assert_true(is(&x, "10.0.0.2"));
	a = addr_of("fd00:1::1", 128, "fd00:2::2");
	all[0].addr = a;
	assert_int_equal(check_probe(&a, all, 1, &x), 0);
	assert_true(is(&x, "fd00:2::2"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok),	cmocka_unit_test(test_rdma_port),
		cmocka_unit_test(test_rdma_cm), cmocka_unit_test(test_order),
		cmocka_unit_test(test_unknown), cmocka_unit_test(test_local),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
