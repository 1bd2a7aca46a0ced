// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The engine's decisions against a stand-in kernel (fake-kernel.c), without
 * root: leftovers, the write-ahead record and what a crash leaves, a link
 * that vanishes mid-run, EEXIST from a foreign object, and the retry after
 * the world moved under an add.
 */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "engine.h"
#include "fake-kernel.h"
#include "log.h"
#include "select.h"

#define MEMSERVER "[Match]\nName=ib0 ib1\n"
#define HEADER	  "# ib-hook record 1: what ib-hook installed in this network namespace\n"

static struct ibh_config config;

/* memserver34: ib0 (index 3) and ib1 (index 4) in 172.16.0.0/16, tables 1003 and 1004 */
static int setup(void **state)
{
	(void)state;
	fake_begin();
	select_forget();
	fake_memserver34();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	select_forget();
	fake_end();
	return 0;
}

static void configure(const char *text)
{
	config_defaults(&config);
	assert_int_equal(config_parse(&config, text, strlen(text), NULL), 0);
}

/* one `ib-hook --all` (or --status, --dry-run with out) with a fresh engine */
static enum ibh_result run_all(enum ibh_action action, enum ibh_mode mode, FILE *out)
{
	struct ibh_request req = { .action = action, .mode = mode, .out = out ? out : stdout };
	struct ibh_engine *e;
	enum ibh_result res, end;

	assert_int_equal(engine_new(&config, &e), 0);
	res = engine_run_all(e, &req);
	end = engine_end(e, &req);
	engine_free(e);
	return res > end ? res : end;
}

static enum ibh_result apply(void)
{
	return run_all(IBH_ACTION_APPLY, IBH_MODE_CHANGE, NULL);
}

/* one `ib-hook --iface ifname` (a person's: a link not found is a usage error) */
static enum ibh_result apply_one(const char *ifname)
{
	struct ibh_request req = { .action = IBH_ACTION_APPLY, .out = stdout };
	struct ibh_engine *e;
	enum ibh_result res;

	assert_int_equal(engine_new(&config, &e), 0);
	res = engine_run(e, ifname, &req);
	engine_free(e);
	return res;
}

static void test_apply_and_again(void **state)
{
	(void)state;
	configure(MEMSERVER);
	assert_int_equal(apply(), IBH_OK);
	assert_int_equal(fake_rules_from("172.16.34.1", 1003, 1000), 1);
	assert_int_equal(fake_rules_from("172.16.34.2", 1004, 1000), 1);
	assert_int_equal(fake_routes_to(1003, "172.16.0.0/16"), 1);
	assert_int_equal(fake_routes_to(1004, "172.16.0.0/16"), 1);
	assert_non_null(strstr(fake_record(), "\nrule ib0 3 172.16.34.1/32 1003 1000\n"));
	assert_non_null(strstr(fake_record(), "\nlink ib1 4\n"));
	/* a second run asks the kernel for nothing */
	memset(fake.calls, 0, sizeof(fake.calls));
	assert_int_equal(apply(), IBH_OK);
	assert_int_equal(fake.calls[FAKE_ROUTE_ADD] + fake.calls[FAKE_RULE_ADD] +
				 fake.calls[FAKE_ROUTE_DEL] + fake.calls[FAKE_RULE_DEL],
			 0);
}

/* a configuration change: what the old one installed is taken back */
static void test_leftovers_taken_back(void **state)
{
	(void)state;
	configure(MEMSERVER);
	assert_int_equal(apply(), IBH_OK);
	configure(MEMSERVER "[Routing]\nPriority=900\n[Tables]\nib0=941\n");
	assert_int_equal(apply(), IBH_OK);
	assert_int_equal(fake_rules_from("172.16.34.1", 1003, 1000), 0);
	assert_int_equal(fake_rules_from("172.16.34.2", 1004, 1000), 0);
	assert_int_equal(fake_rules_from("172.16.34.1", 941, 900), 1);
	assert_int_equal(fake_rules_from("172.16.34.2", 1004, 900), 1);
	assert_int_equal(fake_routes_to(1003, "172.16.0.0/16"), 0);
	assert_int_equal(fake_routes_to(941, "172.16.0.0/16"), 1);
	assert_null(strstr(fake_record(), " 1000\n"));
	assert_null(strstr(fake_record(), " 1003 "));
}

/* the record names each add before the kernel is asked for it */
static int record_holds_rule(enum fake_call call, int n)
{
	if (call == FAKE_RULE_ADD && n == 0)
		assert_non_null(strstr(fake_record(), "\nrule ib0 3 172.16.34.1/32 1003 1000\n"));
	return 0;
}

static void test_write_ahead(void **state)
{
	(void)state;
	configure(MEMSERVER);
	fake.before = record_holds_rule;
	assert_int_equal(apply(), IBH_OK);
	assert_int_equal(fake.calls[FAKE_RULE_ADD], 2);
}

/*
 * A crash after the record was written and before the add: the entry names
 * a rule the kernel lacks, which the next run forgets; a rule of ib-hook's
 * shape that the record does not name is someone else's and stays.
 */
static void test_crash_recovery(void **state)
{
	(void)state;
	configure(MEMSERVER);
	fake_write_record(HEADER "link ib0 3\nlink ib1 4\n"
				 "rule ib0 3 172.16.34.9/32 1003 1000\n"
				 "route ib0 3 10.9.0.0/16 3 1099 - 0 253 2 1\n");
	fake_rule("172.16.34.8", 1003, 1000, RTPROT_KERNEL);
	assert_int_equal(apply(), IBH_OK);
	assert_null(strstr(fake_record(), "172.16.34.9"));
	assert_null(strstr(fake_record(), "10.9.0.0"));
	assert_int_equal(fake_rules_from("172.16.34.8", 1003, 1000), 1);
	assert_int_equal(fake.calls[FAKE_RULE_DEL] + fake.calls[FAKE_ROUTE_DEL], 0);
	assert_non_null(strstr(fake_record(), "\nrule ib0 3 172.16.34.1/32 1003 1000\n"));
}

/* ib1 is deleted while its plan runs */
static int delete_ib1(enum fake_call call, int n)
{
	if (call == FAKE_ROUTE_ADD && n == 1)
		fake_link_del(4);
	return 0;
}

static void test_link_vanishes(void **state)
{
	(void)state;
	configure(MEMSERVER);
	fake.before = delete_ib1;
	assert_int_equal(apply(), IBH_OK);
	assert_int_equal(fake_rules_from("172.16.34.1", 1003, 1000), 1);
	/* what was recorded ahead and never sent is gone from the record */
	assert_null(strstr(fake_record(), "route ib1"));
	assert_null(strstr(fake_record(), "rule ib1"));
	fake.before = NULL;
	assert_int_equal(apply(), IBH_OK);
	assert_null(strstr(fake_record(), "ib1"));
	assert_non_null(strstr(fake_record(), "\nrule ib0 3 172.16.34.1/32 1003 1000\n"));
}

/* someone adds a rule that keeps ib-hook's out (from, lookup, priority alike; tos set) */
static int foreign_rule(enum fake_call call, int n)
{
	if (call == FAKE_RULE_ADD && n == 0) {
		fake_rule("172.16.34.1", 1003, 1000, RTPROT_KERNEL);
		fake.rules[fake.n_rules - 1].exact = false;
		snprintf(fake.rules[fake.n_rules - 1].desc, sizeof(fake.rules[0].desc),
			 "from 172.16.34.1 tos 0x10 lookup 1003 priority 1000 proto 2");
	}
	return 0;
}

static void test_eexist_foreign_rule(void **state)
{
	(void)state;
	configure("[Match]\nName=ib0\n");
	fake.before = foreign_rule;
	assert_int_equal(apply(), IBH_FAILED);
	assert_int_equal(fake_rules_from("172.16.34.1", 1003, 1000), 1);
	assert_null(strstr(fake_record(), "rule ib0"));
	/* the table route before it was sent, and stays ib-hook's */
	assert_non_null(strstr(fake_record(), "route ib0 3 172.16.0.0/16"));
}

/* a user's route of the same prefix, metric and device in T: IPv6 refuses ib-hook's */
static int foreign_route6(enum fake_call call, int n)
{
	if (call == FAKE_ROUTE_ADD && n == 1)
		fake_route(1003, "fd00:34::/64", 3, 1024, RTPROT_STATIC);
	return 0;
}

static void test_eexist_foreign_route6(void **state)
{
	(void)state;
	configure("[Match]\nName=ib0\n[Routing]\nIPv6=yes\n");
	fake_addr(3, "fd00:34::1/64");
	fake.before = foreign_route6;
	assert_int_equal(apply(), IBH_FAILED);
	assert_int_equal(fake_routes_to(1003, "fd00:34::/64"), 1);
	assert_int_equal(fake.routes[fake.n_routes - 1].protocol, RTPROT_STATIC);
	assert_null(strstr(fake_record(), "fd00:34::/64"));
}

/* the address goes between observe and the add: EINVAL, observe again, nothing failed */
static int address_vanishes(enum fake_call call, int n)
{
	if (call == FAKE_ROUTE_ADD && n == 0)
		fake_addr_del(3, "172.16.34.1/16");
	return 0;
}

static void test_race_retry(void **state)
{
	(void)state;
	configure("[Match]\nName=ib0\n");
	fake.before = address_vanishes;
	assert_int_equal(apply(), IBH_OK);
	assert_int_equal(fake.calls[FAKE_ROUTE_ADD], 1);
	assert_int_equal(fake_routes_to(1003, "172.16.0.0/16"), 0);
	assert_int_equal(fake_rules_from("172.16.34.1", 1003, 1000), 0);
	assert_null(strstr(fake_record(), "172.16.34.1"));
}

/* the text of the record's file (suffix "") or of one of its parts */
static void read_record_file(const char *suffix, char *buf, size_t size)
{
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/netns-c%d%s", fake.state_dir, FAKE_COOKIE, suffix);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* the record's file (suffix "") or one of its parts holds text, or (want false) not */
static void assert_file_has(const char *suffix, const char *text, bool want)
{
	char buf[4096];

	read_record_file(suffix, buf, sizeof(buf));
	if (want)
		assert_non_null(strstr(buf, text));
	else
		assert_null(strstr(buf, text));
}

/*
 * The routes installed for a link are a part of their own: a run for ib1
 * neither reads nor writes ib0's. A damaged part of ib0 (read as empty, and
 * so written again, when read) stays as it is across a repair of ib1.
 */
static void test_parts_per_link(void **state)
{
	static const char damaged[] = "# ib-hook record 2\nroute ib0 3 no route\n";
	char text[4096];

	(void)state;
	configure(MEMSERVER);
	assert_int_equal(apply(), IBH_OK);
	assert_file_has("", "\nroute ", false);
	assert_file_has("", "\npart 3 ib0 1003 inet\npart 4 ib1 1004 inet\n", true);
	assert_file_has(".routes-3", "\nroute ib0 3 172.16.0.0/16 3 1003 172.16.34.1 0 253 2 1\n",
			true);

	fake_write_record_file(".routes-3", damaged);
	fake.n_rules = 0; /* ib1's rule is repaired, and the record written */
	assert_int_equal(apply_one("ib1"), IBH_OK);
	assert_int_equal(fake_rules_from("172.16.34.2", 1004, 1000), 1);
	read_record_file(".routes-3", text, sizeof(text));
	assert_string_equal(text, damaged);

	/*
	 * --all reads it, as empty: ib0's route in T is then the user's, and
	 * stays; the repair of the rules writes the part again, without entries
	 */
	fake.n_rules = 0;
	assert_int_equal(apply(), IBH_OK);
	assert_int_equal(fake_routes_to(1003, "172.16.0.0/16"), 1);
	assert_int_equal(fake.calls[FAKE_ROUTE_DEL], 0);
	snprintf(text, sizeof(text), "%s/netns-c%d.routes-3", fake.state_dir, FAKE_COOKIE);
	assert_int_equal(access(text, F_OK), -1);
	assert_file_has("", "part 3 ", false);
}

/*
 * An upgrade: the record of 0.2.0, every entry in one file, is read as it
 * is (nothing is added or deleted), written in parts at the first run, and
 * what it names stays ib-hook's: remove takes it back
 */
static void test_upgrade_one_file(void **state)
{
	char text[4096];

	(void)state;
	configure(MEMSERVER);
	assert_int_equal(apply(), IBH_OK);
	fake_write_record(HEADER "link ib0 3\nlink ib1 4\n"
				 "route ib0 3 172.16.0.0/16 3 1003 172.16.34.1 0 253 2 1\n"
				 "route ib1 4 172.16.0.0/16 4 1004 172.16.34.2 0 253 2 1\n"
				 "rule ib0 3 172.16.34.1/32 1003 1000\n"
				 "rule ib1 4 172.16.34.2/32 1004 1000\n");
	for (int i = 3; i <= 4; i++) {
		snprintf(text, sizeof(text), "%s/netns-c%d.routes-%d", fake.state_dir, FAKE_COOKIE,
			 i);
		assert_int_equal(unlink(text), 0);
	}
	memset(fake.calls, 0, sizeof(fake.calls));
	assert_int_equal(apply(), IBH_OK);
	assert_int_equal(fake.calls[FAKE_ROUTE_ADD] + fake.calls[FAKE_RULE_ADD] +
				 fake.calls[FAKE_ROUTE_DEL] + fake.calls[FAKE_RULE_DEL],
			 0);
	assert_file_has("", "# ib-hook record 2", true);
	assert_file_has("", "\nroute ", false);
	assert_file_has("", "\npart 3 ib0 1003 inet\n", true);
	assert_file_has(".routes-4", "\nroute ib1 4 172.16.0.0/16 4 1004 172.16.34.2 0 253 2 1\n",
			true);

	assert_int_equal(run_all(IBH_ACTION_REMOVE, IBH_MODE_CHANGE, NULL), IBH_OK);
	assert_int_equal(fake_routes_to(1003, "172.16.0.0/16"), 0);
	assert_int_equal(fake_routes_to(1004, "172.16.0.0/16"), 0);
	assert_int_equal(fake_rules_from("172.16.34.1", 1003, 1000), 0);
	assert_null(strstr(fake_record(), "route "));
}

/* --status names the RDMA port observe found; report.c only prints it */
/* a namespace without the netns cookie (Linux < 5.14): its inode, and lo's 127.0.0.1 born at birth */
static void netns_without_cookie(uint32_t birth)
{
	fake.netns = (struct ibh_netns){ .dev = 4, .ino = 4026532123 };
	fake_link("lo", 1, true);
	fake_addr(1, "127.0.0.1/8");
	fake.addrs[fake.n_addrs - 1].addr.created = birth;
}

static bool record_exists(const char *name)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/%s", fake.state_dir, name);
	return access(path, F_OK) == 0;
}

/*
 * Without the cookie, the kernel gives a namespace's inode to a later one
 * once it is gone (issue 29, item 1). A record that a namespace left (it went
 * without --remove) is never the next one's: the same rule and route made by
 * hand there, in a table the record names, stay.
 */
static void test_netns_without_cookie(void **state)
{
	struct ibh_rule rules[64];
	struct ibh_route routes[128];
	size_t n_rules, n_routes;
	struct ibh_engine *e;

	(void)state;
	configure(MEMSERVER);
	netns_without_cookie(1500);
	assert_int_equal(apply(), IBH_OK);
	assert_true(record_exists("netns-i4-4026532123"));
	assert_false(record_exists("netns-i4-4026532123-b1500"));
	assert_int_equal(fake_rules_from("172.16.34.1", 1003, 1000), 1);
	n_rules = fake.n_rules;
	n_routes = fake.n_routes;
	memcpy(rules, fake.rules, sizeof(rules));
	memcpy(routes, fake.routes, sizeof(routes));

	/* the next namespace, with the same inode: what ib-hook installed, made by hand */
	fake_new_netns();
	netns_without_cookie(2100);
	fake_link("eth0", 3, true);
	fake_link("eth1", 4, true);
	fake.n_rules = n_rules;
	fake.n_routes = n_routes;
	memcpy(fake.rules, rules, sizeof(rules));
	memcpy(fake.routes, routes, sizeof(routes));
	assert_int_equal(apply(), IBH_OK);
	assert_int_equal(fake.calls[FAKE_RULE_DEL] + fake.calls[FAKE_ROUTE_DEL], 0);
	assert_int_equal(fake_rules_from("172.16.34.1", 1003, 1000), 1);
	assert_int_equal(fake_routes_to(1003, "172.16.0.0/16"), 1);

	/* lo without 127.0.0.1: the witness that lasts longest is missing, refused */
	fake_addr_del(1, "127.0.0.1/8");
	assert_int_equal(engine_new(&config, &e), -ENOTUNIQ);
	assert_int_equal(fake.calls[FAKE_RULE_DEL] + fake.calls[FAKE_ROUTE_DEL], 0);

	/* the cookie, where the kernel has it, is enough (every other case names netns-c1) */
	fake.netns.cookie = 77;
	assert_int_equal(engine_new(&config, &e), 0);
	engine_free(e);
}

/* lo's 127.0.0.1 deleted and added again (added at 2000), 172.16.34.1 moved from ib0 to ib1 */
static void lo_reborn_and_move(void)
{
	fake_addr_del(1, "127.0.0.1/8");
	fake_addr(1, "127.0.0.1/8");
	fake.addrs[fake.n_addrs - 1].addr.created = 2000;
	fake_addr_del(3, "172.16.34.1/16");
	fake_addr(4, "172.16.34.1/16");
	fake.addrs[fake.n_addrs - 1].addr.created = 2001;
}

/*
 * Without the cookie the record is named by the inode alone and proves itself
 * by its witnesses: lo's 127.0.0.1 added again leaves ib1's 172.16.34.2 (added
 * at 1600) to vouch for it, and ib-hook's rule for the address that moved is
 * taken back (issue 38, item 7)
 */
static void test_lo_reborn(void **state)
{
	(void)state;
	configure(MEMSERVER);
	netns_without_cookie(1500);
	fake.addrs[1].addr.created = 1600; /* 172.16.34.2 on ib1 */
	assert_int_equal(apply(), IBH_OK);
	assert_int_equal(fake_rules_from("172.16.34.1", 1003, 1000), 1);
	lo_reborn_and_move();
	assert_int_equal(apply(), IBH_OK);
	assert_int_equal(fake_rules_from("172.16.34.1", 1003, 1000), 0);
	assert_int_equal(fake_rules_from("172.16.34.1", 1004, 1000), 1);
	assert_int_equal(fake_rules_from("172.16.34.2", 1004, 1000), 1);
	assert_true(record_exists("netns-i4-4026532123"));
}

/*
 * A record the version before witnesses wrote, named by the inode and lo's
 * birth, is read while the inode's name is missing, and moves there
 */
static void test_lo_legacy_record(void **state)
{
	char path[192], legacy[208], line[256];
	FILE *in, *out;

	(void)state;
	configure(MEMSERVER);
	netns_without_cookie(1500);
	assert_int_equal(apply(), IBH_OK);
	snprintf(path, sizeof(path), "%s/netns-i4-4026532123", fake.state_dir);
	snprintf(legacy, sizeof(legacy), "%s-b1500", path);
	in = fopen(path, "r");
	out = fopen(legacy, "w");
	assert_non_null(in);
	assert_non_null(out);
	while (fgets(line, sizeof(line), in))
		if (strncmp(line, "witness ", 8) != 0)
			fputs(line, out);
	fclose(in);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(unlink(path), 0);

	fake_addr_del(3, "172.16.34.1/16");
	fake_addr(4, "172.16.34.1/16");
	assert_int_equal(apply(), IBH_OK);
	assert_int_equal(fake_rules_from("172.16.34.1", 1003, 1000), 0);
	assert_int_equal(fake_rules_from("172.16.34.1", 1004, 1000), 1);
	assert_true(record_exists("netns-i4-4026532123"));
	assert_false(record_exists("netns-i4-4026532123-b1500"));
}

static void test_status_rdma(void **state)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	(void)state;
	configure(MEMSERVER);
	fake.rdma[0] = (struct ibh_rdma_port){ .ifindex = 3, .port = 1, .dev = "mlx5_0" };
	fake.n_rdma = 1;
	/* a RoCE port: the MAC's link-local GID, then 172.16.34.1's RoCE v2 entry */
	fake.port_attrs[0] = (typeof(fake.port_attrs[0])){ "link_layer", "Ethernet" };
	fake.port_attrs[1] =
		(typeof(fake.port_attrs[0])){ "gids/0", "fe80:0000:0000:0000:0202:03ff:fe04:0506" };
	fake.port_attrs[2] =
		(typeof(fake.port_attrs[0])){ "gids/1", "0000:0000:0000:0000:0000:ffff:ac10:2201" };
	fake.port_attrs[3] = (typeof(fake.port_attrs[0])){ "gid_attrs/types/1", "RoCE v2" };
	fake.port_attrs[4] = (typeof(fake.port_attrs[0])){ "gid_attrs/ndevs/1", "ib0" };
	fake.n_port_attrs = 5;
	assert_int_equal(run_all(IBH_ACTION_APPLY, IBH_MODE_STATUS, out), IBH_FAILED);
	assert_int_equal(fclose(out), 0);
	assert_non_null(strstr(buf,
			       "ib0: table 1003, priority 1000, main route keep\n"
			       "  rdma: mlx5_0 port 1, Ethernet\n"
			       "  address 172.16.34.1/16: rule missing; table route 172.16.0.0/16 "
			       "missing; main route present (kept); gid 1 RoCE v2\n"));
	assert_null(strstr(buf, "rdma: mlx5_0 port 1\n  address 172.16.34.2"));
	/* ib1 has no RDMA port: no GID read for it */
	assert_null(strstr(buf, "172.16.34.2/16: rule missing; table route 172.16.0.0/16 "
				"missing; main route present (kept); gid"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_apply_and_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leftovers_taken_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_ahead, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_recovery, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_vanishes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eexist_foreign_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eexist_foreign_route6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_race_retry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_rdma, setup, teardown),
		cmocka_unit_test_setup_teardown(test_netns_without_cookie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lo_reborn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lo_legacy_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parts_per_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upgrade_one_file, setup, teardown),
	};

	log_setup(IBH_LOG_STDERR, LOG_INFO);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
