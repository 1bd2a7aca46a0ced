// SPDX-License-Identifier: GPL-2.0-or-later
/* The rule and route parsers over messages a real kernel sent, and broken ones */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kernel-abi.h"
#include "netlink.h"
#include "netlink-messages.h"

static size_t unhex(const char *h, unsigned char *buf, size_t size)
{
	size_t n = strlen(h) / 2;

	assert_true(n <= size);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(sscanf(h + 2 * i, "%2hhx", &buf[i]), 1);
	return n;
}

static struct ibh_rule rule_at(size_t i)
{
	unsigned char buf[1024];
	struct ibh_rule r;
	bool protocol = false;
	size_t n = unhex(rule_msgs[i], buf, sizeof(buf));

	assert_int_equal(netlink_parse_rule(buf, n, &r, &protocol), 0);
	assert_true(protocol);
	return r;
}

static void test_rules_from_the_kernel(void **state)
{
	struct ibh_rule r;

	/* what ib-hook installs: the one shape it owns */
	r = rule_at(0);
	assert_true(r.exact);
	assert_false(r.strict);
	assert_int_equal(r.table, 1005);
	assert_int_equal(r.priority, 1000);
	assert_int_equal(r.protocol, RTPROT_KERNEL);
	assert_int_equal(r.src.len, 32);
	assert_string_equal(r.desc, "from 172.16.34.2 lookup 1005 priority 1000 proto 2");
	/* iif: compared exactly on add, a wildcard on delete */
	r = rule_at(1);
	assert_false(r.exact);
	assert_true(r.strict);
	assert_string_equal(r.desc, "from 172.16.34.2 iif ib0 lookup 1005 priority 1000 proto 0");
	/* fwmark 0/0x1: the mark is 0, the mask is not */
	r = rule_at(2);
	assert_false(r.exact);
	assert_true(r.strict);
	assert_non_null(strstr(r.desc, "fwmask 0x1"));
	/* to: a wildcard when ib-hook adds, so it is in the way */
	r = rule_at(3);
	assert_false(r.exact);
	assert_false(r.strict);
	assert_non_null(strstr(r.desc, "to 10.0.0.0/8"));
	/* uidrange, ipproto, dport and an attribute newer than these headers (FRA_DPORT_MASK) */
	r = rule_at(4);
	assert_false(r.exact);
	assert_true(r.strict);
	assert_non_null(strstr(r.desc, "uidrange 100-200"));
	r = rule_at(5);
	assert_true(r.exact);
	assert_int_equal(r.src.len, 128);
}

static void test_routes_from_the_kernel(void **state)
{
	unsigned char buf[1024];
	struct ibh_route r[5];

	for (size_t i = 0; i < 5; i++) {
		size_t n = unhex(route_msgs[i], buf, sizeof(buf));

		assert_int_equal(netlink_parse_route(buf, n, &r[i]), 0);
		assert_int_equal(r[i].table, 1005);
	}
	/* unreachable default: no device */
	assert_int_equal(r[0].type, RTN_UNREACHABLE);
	assert_int_equal(r[0].oif, 0);
	/* metric 50 mtu 1400: a metric ib-hook never sets */
	assert_int_equal(r[1].metric, 50);
	assert_true(r[1].extra);
	/* ib-hook's IPv4 route */
	assert_int_equal(r[2].protocol, RTPROT_KERNEL);
	assert_int_equal(r[2].scope, RT_SCOPE_LINK);
	assert_int_equal(r[2].src.family, AF_INET);
	assert_false(r[2].extra);
	assert_false(r[2].gateway);
	/* ib-hook's IPv6 route: cache info and preference are no extra attributes */
	assert_int_equal(r[3].metric, 1024);
	assert_false(r[3].extra);
	/* IPv6 blackhole: the kernel names lo */
	assert_int_equal(r[4].type, RTN_BLACKHOLE);
}

static size_t put_attr(unsigned char *buf, size_t at, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type };

	memcpy(buf + at, &a, sizeof(a));
	memcpy(buf + at + NLA_HDRLEN, data, len);
	return at + NLA_ALIGN(a.nla_len);
}

static void set_len(unsigned char *buf, size_t len)
{
	struct nlmsghdr h;

	memcpy(&h, buf, sizeof(h));
	h.nlmsg_len = (uint32_t)len;
	memcpy(buf, &h, sizeof(h));
}

static void test_malformed(void **state)
{
	unsigned char buf[1024];
	struct ibh_rule r;
	struct ibh_route rt;
	bool protocol;
	uint32_t zero = 0, mask = 1;
	size_t n = unhex(rule_msgs[0], buf, sizeof(buf)), m;

	/* too short, or a length beyond the buffer */
	assert_int_equal(netlink_parse_rule(buf, 8, &r, &protocol), -EINVAL);
	assert_int_equal(netlink_parse_rule(buf, n - 4, &r, &protocol), -EINVAL);
	assert_int_equal(netlink_parse_route(buf, 3, &rt), -EINVAL);
	/* a rule message is no route */
	assert_int_equal(netlink_parse_route(buf, n, &rt), -ENOENT);
	/* an attribute of a type no header knows makes the rule foreign */
	m = put_attr(buf, n, 200, &zero, 4);
	set_len(buf, m);
	assert_int_equal(netlink_parse_rule(buf, m, &r, &protocol), 0);
	assert_false(r.exact);
	assert_non_null(strstr(r.desc, "attribute-200"));
	/* fwmark 0 alone matches every packet: still ib-hook's shape */
	m = put_attr(buf, n, FRA_FWMARK, &zero, 4);
	set_len(buf, m);
	assert_int_equal(netlink_parse_rule(buf, m, &r, &protocol), 0);
	assert_true(r.exact);
	/* ... but not with a mask */
	m = put_attr(buf, m, FRA_FWMASK, &mask, 4);
	set_len(buf, m);
	assert_int_equal(netlink_parse_rule(buf, m, &r, &protocol), 0);
	assert_false(r.exact);
	/* a table attribute too short for its type is refused, not read past */
	m = put_attr(buf, n, FRA_TABLE, &zero, 2);
	set_len(buf, m);
	assert_int_not_equal(netlink_parse_rule(buf, m, &r, &protocol), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_from_the_kernel),
		cmocka_unit_test(test_routes_from_the_kernel),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
