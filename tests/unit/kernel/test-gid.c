// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A RoCE port's GID table read from a directory laid out as
 * /sys/class/infiniband (made in a temporary directory): the entry of an
 * address, RoCE v2 over its v1 twin, the netdev it belongs to, empty and
 * link-local slots, attributes missing, and where the read stops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "gid.h"
#include "ip.h"
#include "sysctl.h"

static char root[64];
/* what the reader was asked: how often, and the highest gids/I */
static int reads, last_gid;

static int fixture_read(const char *dev, uint32_t port, const char *attr, char *buf, size_t size)
{
	reads++;
	if (strncmp(attr, "gids/", 5) == 0 && atoi(attr + 5) > last_gid)
		last_gid = atoi(attr + 5);
	return rdma_port_attr_read_at(root, dev, port, attr, buf, size);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

static void dirs(const char *dev)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, dev);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/ports", root, dev);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/ports/1", root, dev);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/ports/1/gids", root, dev);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/ports/1/gid_attrs", root, dev);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/ports/1/gid_attrs/types", root, dev);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/ports/1/gid_attrs/ndevs", root, dev);
	mkdir(p, 0755);
}

/* entry i of DEV's port 1; type or ndev NULL: that file is missing */
static void entry(const char *dev, int i, const char *gid, const char *type, const char *ndev)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s/ports/1/gids/%d", root, dev, i);
	put(p, gid);
	if (type) {
		snprintf(p, sizeof(p), "%s/%s/ports/1/gid_attrs/types/%d", root, dev, i);
		put(p, type);
	}
	if (ndev) {
		snprintf(p, sizeof(p), "%s/%s/ports/1/gid_attrs/ndevs/%d", root, dev, i);
		put(p, ndev);
	}
}

#define ZERO "0000:0000:0000:0000:0000:0000:0000:0000"
#define LL   "fe80:0000:0000:0000:0202:03ff:fe04:0506"
#define V1   "IB/RoCE v1"
#define V2   "RoCE v2"

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test-gid.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	/* rxe0 port 1 on ib0, as the kernel fills it: the MAC's link-local twins first */
	dirs("rxe0");
	entry("rxe0", 0, LL, V1, "ib0");
	entry("rxe0", 1, LL, V2, "ib0");
	entry("rxe0", 2, "0000:0000:0000:0000:0000:ffff:ac10:2201", V1, "ib0"); /* 172.16.34.1 */
	entry("rxe0", 3, "0000:0000:0000:0000:0000:ffff:ac10:2201", V2, "ib0");
	/* an address that went: its slots are empty, later ones stay */
	entry("rxe0", 4, ZERO, NULL, NULL);
	entry("rxe0", 5, "fd00:0000:0000:0000:0000:0000:0000:0001", V1, "ib0");
	entry("rxe0", 6, "fd00:0000:0000:0000:0000:0000:0000:0001", V2, "ib0");
	/* the same port's VLAN ib0.100 holds 172.16.34.9, ib0 does not */
	entry("rxe0", 7, "0000:0000:0000:0000:0000:ffff:ac10:2209", V2, "ib0.100");
	/* a kernel without gid_attrs (before 4.9): no type, no netdev */
	entry("rxe0", 8, "0000:0000:0000:0000:0000:ffff:ac10:2207", NULL, NULL);
	/* RoCE v1 only: no v2 twin */
	entry("rxe0", 9, "0000:0000:0000:0000:0000:ffff:ac10:2205", V1, "ib0");
	for (int i = 10; i < 16; i++)
		entry("rxe0", i, ZERO, NULL, NULL);
	/* rxe1: link-local GIDs only (the address is not on the netdev yet) */
	dirs("rxe1");
	entry("rxe1", 0, LL, V1, "ib1");
	entry("rxe1", 1, LL, V2, "ib1");
	entry("rxe1", 2, ZERO, NULL, NULL);
	/* rxe2: every slot empty */
	dirs("rxe2");
	entry("rxe2", 0, ZERO, NULL, NULL);
	entry("rxe2", 1, ZERO, NULL, NULL);
	return 0;
}

static int rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(root, rm, 16, FTW_DEPTH | FTW_PHYS);
}

static struct ibh_ip ip(const char *text)
{
	struct ibh_ip a = {};

	assert_int_equal(ip_from_record(text, &a, true), 0);
	return a;
}

/* gid_find on port 1 of dev, the reads counted from 0 */
static int find(const char *dev, const char *ifname, const char *addr, struct ibh_gid *ret)
{
	struct ibh_ip a = ip(addr);

	reads = 0;
	last_gid = -1;
	return gid_find(fixture_read, dev, 1, ifname, &a, ret);
}

static void test_parse(void **state)
{
	uint8_t g[16], want[16] = { [10] = 0xff, [11] = 0xff, 0x0a, 0x00, 0x00, 0x01 };
	struct ibh_ip a = ip("10.0.0.1/8");

	(void)state;
	/* sysfs's form of ::ffff:10.0.0.1 */
	assert_int_equal(gid_parse("0000:0000:0000:0000:0000:ffff:0a00:0001", g), 0);
	assert_memory_equal(g, want, 16);
	gid_of(&a, g);
	assert_memory_equal(g, want, 16);
	assert_int_equal(gid_parse("0000:0000:0000:0000:0000:FFFF:0A00:0001", g), 0);
	assert_memory_equal(g, want, 16);
	assert_int_equal(gid_parse("", g), -EINVAL);
	assert_int_equal(gid_parse("0000:0000", g), -EINVAL);
	assert_int_equal(gid_parse("10.0.0.1", g), -EINVAL);
	assert_int_equal(gid_type_parse("RoCE v2", true), IBH_GID_ROCE_V2);
	assert_int_equal(gid_type_parse("IB/RoCE v1", true), IBH_GID_ROCE_V1);
	assert_int_equal(gid_type_parse("IB/RoCE v1", false), IBH_GID_IB);
	assert_int_equal(gid_type_parse("", true), IBH_GID_UNKNOWN);
	assert_string_equal(gid_type_name(IBH_GID_ROCE_V2), "RoCE v2");
	assert_string_equal(gid_type_name(IBH_GID_ROCE_V1), "RoCE v1");
	assert_string_equal(gid_type_name(IBH_GID_IB), "IB");
}

static void test_ipv4_v2_over_v1(void **state)
{
	struct ibh_gid g;

	(void)state;
	assert_int_equal(find("rxe0", "ib0", "172.16.34.1/16", &g), 0);
	assert_int_equal(g.index, 3);
	assert_int_equal(g.type, IBH_GID_ROCE_V2);
	/* the v2 twin ends the read: nothing past it */
	assert_int_equal(last_gid, 3);
	assert_int_equal(g.entries, 4);
	assert_int_equal(g.global, 2);
}

static void test_ipv6_past_an_empty_slot(void **state)
{
	struct ibh_gid g;

	(void)state;
	assert_int_equal(find("rxe0", "ib0", "fd00::1/64", &g), 0);
	assert_int_equal(g.index, 6);
	assert_int_equal(g.type, IBH_GID_ROCE_V2);
	assert_int_equal(last_gid, 6);
	/* slot 4 is empty: not an entry */
	assert_int_equal(g.entries, 6);
}

static void test_another_netdev(void **state)
{
	struct ibh_gid g;

	(void)state;
	assert_int_equal(find("rxe0", "ib0", "172.16.34.9/16", &g), -ENOENT);
	assert_int_equal(g.index, -1);
	/* read to the end of the table, and no further */
	assert_int_equal(last_gid, 16);
	assert_int_equal(find("rxe0", "ib0.100", "172.16.34.9/16", &g), 0);
	assert_int_equal(g.index, 7);
	assert_int_equal(g.type, IBH_GID_ROCE_V2);
}

static void test_no_gid_attrs(void **state)
{
	struct ibh_gid g;

	(void)state;
	/* no netdev to tell: the entry counts; no type: nothing better follows */
	assert_int_equal(find("rxe0", "ib0", "172.16.34.7/16", &g), 0);
	assert_int_equal(g.index, 8);
	assert_int_equal(g.type, IBH_GID_UNKNOWN);
	assert_int_equal(last_gid, 8);
}

static void test_v1_only(void **state)
{
	struct ibh_gid g;

	(void)state;
	assert_int_equal(find("rxe0", "ib0", "172.16.34.5/16", &g), 0);
	assert_int_equal(g.index, 9);
	assert_int_equal(g.type, IBH_GID_ROCE_V1);
	/* a v2 twin was looked for */
	assert_int_equal(last_gid, 16);
}

static void test_none(void **state)
{
	struct ibh_gid g;

	(void)state;
	assert_int_equal(find("rxe0", "ib0", "10.0.0.1/8", &g), -ENOENT);
	assert_int_equal(g.index, -1);
	/* 0-3 and 5-9: 2 of them link-local */
	assert_int_equal(g.entries, 9);
	assert_int_equal(g.global, 7);
	/* the gids files of 0-16, and the attributes of no entry: none matched */
	assert_int_equal(reads, 17);
}

static void test_link_local_only(void **state)
{
	struct ibh_gid g;

	(void)state;
	assert_int_equal(find("rxe1", "ib1", "172.16.34.2/16", &g), -ENOENT);
	assert_int_equal(g.entries, 2);
	assert_int_equal(g.global, 0);
	assert_int_equal(find("rxe2", "ib1", "172.16.34.2/16", &g), -ENOENT);
	assert_int_equal(g.entries, 0);
	/* no such device: an empty table */
	assert_int_equal(find("rxe9", "ib1", "172.16.34.2/16", &g), -ENOENT);
	assert_int_equal(g.entries, 0);
	assert_int_equal(reads, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_ipv4_v2_over_v1),
		cmocka_unit_test(test_ipv6_past_an_empty_slot),
		cmocka_unit_test(test_another_netdev),
		cmocka_unit_test(test_no_gid_attrs),
		cmocka_unit_test(test_v1_only),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_link_local_only),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
