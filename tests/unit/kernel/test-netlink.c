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
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "attr.h"
#include "kernel-abi.h"
#include "netlink.h"
#include "route.h"
#include "rule.h"
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
	struct ibh_route r[8];

	for (size_t i = 0; i < 8; i++) {
		size_t n = unhex(route_msgs[i], buf, sizeof(buf));

		assert_int_equal(netlink_parse_route(buf, n, &r[i]), 0);
		assert_int_equal(r[i].table, 1005);
	}
	/* unreachable default: no device */
	assert_int_equal(r[0].type, RTN_UNREACHABLE);
	assert_int_equal(r[0].oif, 0);
	/* metric 50 mtu 1400: a route metric, read so that a copy carries it */
	assert_int_equal(r[1].metric, 50);
	assert_false(r[1].extra);
	assert_int_equal(r[1].metrics_set, 1u << RTAX_MTU);
	assert_int_equal(r[1].metric_values[RTAX_MTU], 1400);
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
	/* ib-hook's IPv6 route is medium, lives for ever, has no flags */
	assert_int_equal(r[3].pref, 0);
	assert_false(r[3].expires);
	assert_int_equal(r[3].flags, 0);
	/* the same prefix, metric and device with pref high, expires or onlink: other routes */
	assert_int_equal(r[5].pref, 1);
	assert_true(r[6].expires);
	assert_int_equal(r[7].flags, RTNH_F_ONLINK);
	for (size_t i = 5; i < 8; i++) {
		struct ibh_route same = r[i];

		assert_int_equal(r[i].metric, 1024);
		assert_false(r[i].extra);
		assert_true(route_equal(&r[i], &same));
		same.pref = 0;
		same.expires = false;
		same.flags = 0;
		assert_false(route_equal(&r[i], &same));
	}
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

/* the message in buf (n bytes) without its attribute TYPE; returns the new length */
static size_t drop_attr(unsigned char *buf, size_t n, size_t hdrlen, uint16_t type)
{
	for (size_t at = NLMSG_HDRLEN + NLMSG_ALIGN(hdrlen); at + NLA_HDRLEN <= n;) {
		struct nlattr a;
		size_t len;

		memcpy(&a, buf + at, sizeof(a));
		len = NLA_ALIGN(a.nla_len);
		assert_true(a.nla_len >= NLA_HDRLEN && at + len <= n);
		if (a.nla_type == type) {
			memmove(buf + at, buf + at + len, n - at - len);
			set_len(buf, n - len);
			return n - len;
		}
		at += len;
	}
	fail_msg("no attribute %u", type);
	return n;
}

/* the u32 attribute TYPE of the message in buf set to v */
static void set_u32_attr(unsigned char *buf, size_t n, size_t hdrlen, uint16_t type, uint32_t v)
{
	for (size_t at = NLMSG_HDRLEN + NLMSG_ALIGN(hdrlen); at + NLA_HDRLEN <= n;) {
		struct nlattr a;

		memcpy(&a, buf + at, sizeof(a));
		assert_true(a.nla_len >= NLA_HDRLEN);
		if (a.nla_type == type) {
			assert_int_equal(a.nla_len, NLA_HDRLEN + 4);
			memcpy(buf + at + NLA_HDRLEN, &v, 4);
			return;
		}
		at += NLA_ALIGN(a.nla_len);
	}
	fail_msg("no attribute %u", type);
}

/*
 * Before 4.17 the kernel sends no FRA_PROTOCOL: the captured dump without
 * it. A rule of ib-hook's shape then reads as protocol kernel (whose it is,
 * the record says), every other keeps protocol 0 and would not be deleted
 * for ib-hook's; the rest of every rule is read as with FRA_PROTOCOL.
 */
static void test_rules_without_protocol(void **state)
{
	const size_t count = sizeof(rule_msgs) / sizeof(rule_msgs[0]);
	unsigned char now[4096], old[4096];
	size_t n_now = 0, n_old = 0, n_rules, n_old_rules;
	struct ibh_rule *rules, *old_rules;
	bool protocol;

	for (size_t i = 0; i < count; i++) {
		size_t m = unhex(rule_msgs[i], now + n_now, sizeof(now) - n_now);

		memcpy(old + n_old, now + n_now, m);
		n_old += drop_attr(old + n_old, m, sizeof(struct fib_rule_hdr), FRA_PROTOCOL);
		n_now += m;
	}
	assert_int_equal(netlink_parse_rules(now, n_now, &rules, &n_rules, &protocol), 0);
	assert_true(protocol);
	assert_int_equal(n_rules, count);
	assert_int_equal(netlink_parse_rules(old, n_old, &old_rules, &n_old_rules, &protocol), 0);
	assert_false(protocol);
	assert_int_equal(n_old_rules, count);
	for (size_t i = 0; i < count; i++) {
		assert_int_equal(old_rules[i].exact, rules[i].exact);
		assert_int_equal(old_rules[i].strict, rules[i].strict);
		assert_int_equal(old_rules[i].table, rules[i].table);
		assert_int_equal(old_rules[i].priority, rules[i].priority);
		assert_int_equal(old_rules[i].src.family, rules[i].src.family);
		assert_int_equal(old_rules[i].src.len, rules[i].src.len);
		assert_memory_equal(old_rules[i].src.a, rules[i].src.a, sizeof(rules[i].src.a));
		assert_int_equal(old_rules[i].protocol, rules[i].exact ? RTPROT_KERNEL : 0);
		assert_null(strstr(old_rules[i].desc, " proto "));
	}
	/* ib-hook's own, and a foreign iif rule that had protocol 0 anyway */
	assert_true(old_rules[0].exact);
	assert_int_equal(old_rules[0].protocol, RTPROT_KERNEL);
	assert_false(old_rules[1].exact);
	assert_int_equal(old_rules[1].protocol, 0);
	free(rules);
	free(old_rules);
}

/*
 * Without strict checking (before 4.20, or refused by the socket) the
 * kernel dumps every table whatever the request asked: ib-hook filters by
 * table and device itself. The captured table 1005 with two of its routes
 * copied into main.
 */
static void test_table_filtered_in_user_space(void **state)
{
	const size_t count = sizeof(route_msgs) / sizeof(route_msgs[0]);
	unsigned char buf[4096];
	struct ibh_route *routes, one;
	size_t n = 0, n_routes, oif5 = 0;

	for (size_t i = 0; i < count + 2; i++) {
		size_t m =
			unhex(route_msgs[i < count ? i : i - count + 1], buf + n, sizeof(buf) - n);

		if (i >= count) {
			buf[n + NLMSG_HDRLEN + 4] = RT_TABLE_MAIN; /* rtm_table */
			set_u32_attr(buf + n, m, sizeof(struct rtmsg), RTA_TABLE, RT_TABLE_MAIN);
		} else {
			assert_int_equal(netlink_parse_route(buf + n, m, &one), 0);
			oif5 += one.oif == 5;
		}
		n += m;
	}
	assert_int_equal(netlink_parse_table(buf, n, 1005, 0, &routes, &n_routes), 0);
	assert_int_equal(n_routes, count);
	for (size_t i = 0; i < n_routes; i++)
		assert_int_equal(routes[i].table, 1005);
	free(routes);
	assert_int_equal(netlink_parse_table(buf, n, RT_TABLE_MAIN, 0, &routes, &n_routes), 0);
	assert_int_equal(n_routes, 2);
	for (size_t i = 0; i < n_routes; i++)
		assert_int_equal(routes[i].table, RT_TABLE_MAIN);
	free(routes);
	/* by device too: the kernel's RTA_OIF filter is strict checking's as well */
	assert_true(oif5 > 0 && oif5 < count);
	assert_int_equal(netlink_parse_table(buf, n, 1005, 5, &routes, &n_routes), 0);
	assert_int_equal(n_routes, oif5);
	for (size_t i = 0; i < n_routes; i++)
		assert_int_equal(routes[i].oif, 5);
	free(routes);
	assert_int_equal(netlink_parse_table(buf, n, 1004, 0, &routes, &n_routes), 0);
	assert_int_equal(n_routes, 0);
	free(routes);
	/* a dump cut inside a message is refused */
	assert_int_equal(netlink_parse_table(buf, n - 3, 1005, 0, &routes, &n_routes), -EINVAL);
}

/* a copied route survives its request and the record: every field, hops and metrics included */
static void test_copy_round_trip(void **state)
{
	struct ibh_route r = { .table = 1004,
			       .metric = 101,
			       .protocol = RTPROT_KERNEL,
			       .type = RTN_UNICAST,
			       .tos = 0x10,
			       .gateway = true,
			       .oif = 4,
			       .n_hops = 2,
			       .metrics_set = (1u << RTAX_MTU) | (1u << RTAX_ADVMSS) | (1u << 16),
			       .cc_algo = "reno" },
			 back, rec;
	struct ibh_msg m;
	char line[1100];

	(void)state;
	r.dst = (struct ibh_ip){ .family = AF_INET, .len = 16, .a = { 10, 20 } };
	r.metric_values[RTAX_MTU] = 1400;
	r.metric_values[RTAX_ADVMSS] = 1360;
	r.hops[0] = (struct ibh_nexthop){
		.gw = { .family = AF_INET, .len = 32, .a = { 10, 1, 0, 0 } }, .oif = 4, .weight = 2
	};
	r.hops[1] =
		(struct ibh_nexthop){ .gw = { .family = AF_INET, .len = 32, .a = { 10, 1, 0, 8 } },
				      .oif = 4,
				      .flags = RTNH_F_ONLINK };
	route_to_msg(&m, &r, true);
	assert_false(m.overflow);
	assert_int_equal(netlink_parse_route(msg_nlh(&m), msg_nlh(&m)->nlmsg_len, &back), 0);
	assert_true(route_equal(&r, &back));
	assert_false(back.extra);
	route_to_record(line, sizeof(line), &r, false);
	assert_string_equal(line,
			    "10.20.0.0/16 4 1004 - 101 0 2 1 hop 10.1.0.0 4 2 0 hop 10.1.0.8 4 0 4 "
			    "tos 16 metric 2 1400 metric 8 1360 cc reno");
	assert_int_equal(route_from_record(line, &rec, false), 0);
	assert_true(route_equal(&r, &rec));
	/* one word off: no record entry */
	assert_int_equal(
		route_from_record("10.20.0.0/16 4 1004 - 101 0 2 1 metric 99 1", &rec, false),
		-EINVAL);
	assert_int_equal(route_from_record("10.20.0.0/16 4 1004 - 101 0 2 1 via", &rec, false),
			 -EINVAL);
	/* a plain IPv6 copy with a link-local gateway and a preference */
	memset(&r, 0, sizeof(r));
	r = (struct ibh_route){ .table = 1004,
				.metric = 1024,
				.protocol = RTPROT_KERNEL,
				.type = RTN_UNICAST,
				.gateway = true,
				.oif = 4,
				.pref = 1 };
	r.dst.family = AF_INET6;
	r.gw = (struct ibh_ip){ .family = AF_INET6, .len = 128, .a = { 0xfe, 0x80, [15] = 1 } };
	route_to_msg(&m, &r, true);
	assert_int_equal(netlink_parse_route(msg_nlh(&m), msg_nlh(&m)->nlmsg_len, &back), 0);
	assert_true(route_equal(&r, &back));
	route_to_record(line, sizeof(line), &r, false);
	assert_int_equal(route_from_record(line, &rec, false), 0);
	assert_true(route_equal(&r, &rec));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_from_the_kernel),
		cmocka_unit_test(test_routes_from_the_kernel),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_rules_without_protocol),
		cmocka_unit_test(test_table_filtered_in_user_space),
		cmocka_unit_test(test_copy_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
