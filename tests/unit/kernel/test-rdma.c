// SPDX-License-Identifier: GPL-2.0-or-later
/* The RDMA netlink port parser over dump messages, and broken ones */
#include <errno.h>
#include <linux/netlink.h>
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
#include "rdma-messages.h"
#include "select.h"

static size_t unhex(const char *h, unsigned char *buf, size_t size)
{
	size_t n = strlen(h) / 2;

	assert_true(n <= size);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(sscanf(h + 2 * i, "%2hhx", &buf[i]), 1);
	return n;
}

static void check(const struct rdma_fixture *f)
{
	unsigned char buf[1024];
	struct ibh_rdma_port p;
	size_t n = unhex(f->hex, buf, sizeof(buf));
	int r = netlink_parse_rdma_port(buf, n, &p);

	assert_int_equal(r, f->result);
	if (r < 0)
		return;
	assert_string_equal(p.dev, f->dev);
	assert_int_equal(p.port, f->port);
	assert_int_equal(p.ifindex, f->ifindex);
	assert_string_equal(p.ndev, f->ndev);
}

static void test_constructed(void **state)
{
	for (size_t i = 0; i < sizeof(rdma_constructed) / sizeof(rdma_constructed[0]); i++)
		check(&rdma_constructed[i]);
}

static void test_captured(void **state)
{
	for (size_t i = 0; i < sizeof(rdma_captured) / sizeof(rdma_captured[0]); i++)
		check(&rdma_captured[i]);
}

static void test_captured_dev(void **state)
{
	for (size_t i = 0; i < sizeof(rdma_dev_captured) / sizeof(rdma_dev_captured[0]); i++) {
		const struct rdma_dev_fixture *f = &rdma_dev_captured[i];
		unsigned char buf[1024];
		size_t n = unhex(f->hex, buf, sizeof(buf));
		uint32_t index = 12345;
		int r = netlink_parse_rdma_dev(buf, n, &index);

		assert_int_equal(r, f->result);
		assert_int_equal(index, r == 0 ? f->index : 12345);
	}
}

/* the offset of attribute type in buf's attributes, or 0 */
static size_t find_attr(const unsigned char *buf, size_t n, uint16_t type)
{
	for (size_t at = NLMSG_HDRLEN; at + NLA_HDRLEN <= n;) {
		struct nlattr a;

		memcpy(&a, buf + at, sizeof(a));
		if (a.nla_type == type)
			return at;
		if (a.nla_len < NLA_HDRLEN)
			return 0;
		at += NLA_ALIGN(a.nla_len);
	}
	return 0;
}

/* damaged copies of a message the kernel sent */
static void test_malformed(void **state)
{
	unsigned char buf[1024], copy[1024];
	struct ibh_rdma_port p;
	struct nlattr a;
	struct nlmsghdr h;
	size_t n = unhex(rdma_captured[0].hex, buf, sizeof(buf)), at;
	uint32_t zero = 0, index;

	/* too short, or a length beyond the buffer */
	assert_int_equal(netlink_parse_rdma_port(buf, 8, &p), -EINVAL);
	assert_int_equal(netlink_parse_rdma_port(buf, n - 4, &p), -EINVAL);
	/* another message type (a NLMSG_DONE, a device dump) is no port */
	memcpy(copy, buf, n);
	memcpy(&h, copy, sizeof(h));
	h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET);
	memcpy(copy, &h, sizeof(h));
	assert_int_equal(netlink_parse_rdma_port(copy, n, &p), -ENOENT);
	/* an attribute running past the message */
	memcpy(copy, buf, n);
	at = find_attr(copy, n, RDMA_NLDEV_ATTR_NDEV_NAME);
	assert_true(at > 0);
	memcpy(&a, copy + at, sizeof(a));
	a.nla_len = 200;
	memcpy(copy + at, &a, sizeof(a));
	assert_int_equal(netlink_parse_rdma_port(copy, n, &p), -EBADMSG);
	/* an NDEV_INDEX too short for a u32 is refused, not read past */
	memcpy(copy, buf, n);
	at = find_attr(copy, n, RDMA_NLDEV_ATTR_NDEV_INDEX);
	assert_true(at > 0);
	memcpy(&a, copy + at, sizeof(a));
	a.nla_len = NLA_HDRLEN + 2;
	memcpy(copy + at, &a, sizeof(a));
	assert_int_equal(netlink_parse_rdma_port(copy, n, &p), -EBADMSG);
	/* ifindex 0 names no netdev */
	memcpy(copy, buf, n);
	memcpy(copy + at + NLA_HDRLEN, &zero, sizeof(zero));
	assert_int_equal(netlink_parse_rdma_port(copy, n, &p), -EBADMSG);
	/* a device name without its terminator is cut, never read past */
	memcpy(copy, buf, n);
	at = find_attr(copy, n, RDMA_NLDEV_ATTR_DEV_NAME);
	memcpy(&a, copy + at, sizeof(a));
	/* "rxe_ib1\0": 8 bytes, the attribute's whole payload */
	assert_int_equal(a.nla_len, NLA_HDRLEN + 8);
	memset(copy + at + NLA_HDRLEN, 'x', 7);
	copy[at + NLA_HDRLEN + 7] = 'y';
	assert_int_equal(netlink_parse_rdma_port(copy, n, &p), 0);
	assert_string_equal(p.dev, "xxxxxxxy");
	/* an empty device name */
	copy[at + NLA_HDRLEN] = '\0';
	assert_int_equal(netlink_parse_rdma_port(copy, n, &p), -EBADMSG);

	/* a device message: cut short, without its index, with an index too short */
	n = unhex(rdma_dev_captured[0].hex, buf, sizeof(buf));
	assert_int_equal(netlink_parse_rdma_dev(buf, n - 4, &index), -EINVAL);
	memcpy(copy, buf, n);
	at = find_attr(copy, n, RDMA_NLDEV_ATTR_DEV_INDEX);
	assert_true(at > 0);
	memcpy(&a, copy + at, sizeof(a));
	a.nla_type = 0; /* RDMA_NLDEV_ATTR_UNSPEC */
	memcpy(copy + at, &a, sizeof(a));
	assert_int_equal(netlink_parse_rdma_dev(copy, n, &index), -EBADMSG);
	memcpy(copy, buf, n);
	a.nla_type = RDMA_NLDEV_ATTR_DEV_INDEX;
	a.nla_len = NLA_HDRLEN + 2;
	memcpy(copy + at, &a, sizeof(a));
	assert_int_equal(netlink_parse_rdma_dev(copy, n, &index), -EBADMSG);
	/* an attribute running past the message */
	memcpy(copy, buf, n);
	a.nla_len = 200;
	memcpy(copy + at, &a, sizeof(a));
	assert_int_equal(netlink_parse_rdma_dev(copy, n, &index), -EBADMSG);
}

/*
 * A kernel before 4.18 names no netdev for any port: the captured replies
 * with NDEV_INDEX and NDEV_NAME (their last attributes) cut off. The ports
 * are kept without a netdev, and the selection then asks sysfs rather than
 * selecting nothing.
 */
static void test_ports_without_netdev(void **state)
{
	struct ibh_rdma_port named[2], unnamed[2], mixed[2];

	for (size_t i = 0; i < 2; i++) {
		unsigned char buf[1024];
		size_t n = unhex(rdma_captured[i].hex, buf, sizeof(buf));
		size_t at = find_attr(buf, n, RDMA_NLDEV_ATTR_NDEV_INDEX);
		struct nlmsghdr h;

		assert_int_equal(netlink_parse_rdma_port(buf, n, &named[i]), 0);
		assert_true(at > 0);
		assert_true(find_attr(buf, n, RDMA_NLDEV_ATTR_NDEV_NAME) > at);
		memcpy(&h, buf, sizeof(h));
		h.nlmsg_len = (uint32_t)at;
		memcpy(buf, &h, sizeof(h));
		assert_int_equal(netlink_parse_rdma_port(buf, at, &unnamed[i]), 0);
		assert_int_equal(unnamed[i].ifindex, 0);
		assert_string_equal(unnamed[i].ndev, "");
		assert_string_equal(unnamed[i].dev, named[i].dev);
		assert_int_equal(unnamed[i].port, named[i].port);
		assert_int_equal(unnamed[i].dev_index, named[i].dev_index);
	}
	/* every port named: a link that is none of them is not an RDMA port */
	assert_true(select_rdma_decides(0, named, 2));
	/* none named (before 4.18), or one (an InfiniBand port beside RoCE ones) */
	assert_false(select_rdma_decides(0, unnamed, 2));
	mixed[0] = named[0];
	mixed[1] = unnamed[1];
	assert_false(select_rdma_decides(0, mixed, 2));
	/* no RDMA subsystem at all, and the RDMA netlink refused (seccomp) */
	assert_true(select_rdma_decides(-EPROTONOSUPPORT, NULL, 0));
	assert_false(select_rdma_decides(-EPERM, NULL, 0));
	/* no RDMA device */
	assert_true(select_rdma_decides(0, NULL, 0));
}

int main(void)
{
	/* one test per line: clang-format would pack the short names two to a line */
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constructed),
		cmocka_unit_test(test_captured),
		cmocka_unit_test(test_captured_dev),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_ports_without_netdev),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
