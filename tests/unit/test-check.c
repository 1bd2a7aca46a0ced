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
		.gid_index = 1,
		.gid_type = "RoCE v2",
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
	l.gid_index = -1;
	assert_int_equal(judge(&l), IBH_CHECK_NO_GID);
	assert_string_equal(l.why, "rxe_ib1 port 1 holds no GID for 172.16.34.2");
	/* InfiniBand: a LID, not a GID for the address, is what counts */
	l = good();
	snprintf(l.link_layer, sizeof(l.link_layer), "InfiniBand");
	l.gid_index = -1;
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
	l.gid_index = -1;
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
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok),
		cmocka_unit_test(test_rdma_port),
		cmocka_unit_test(test_rdma_cm),
		cmocka_unit_test(test_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
