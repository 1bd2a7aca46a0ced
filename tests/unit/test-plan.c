// SPDX-License-Identifier: GPL-2.0-or-later
/* plan() over hand-made observed states: what apply would do, op by op */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "plan.h"

#define IB1 4
#define T1  1004

static struct ibh_ip ip(const char *s, unsigned int len)
{
	struct ibh_ip a = { .len = (uint8_t)len };

	a.family = strchr(s, ':') ? AF_INET6 : AF_INET;
	assert_int_equal(inet_pton(a.family, s, a.a), 1);
	return a;
}

static struct ibh_rule rule(const char *src, uint32_t table, uint32_t prio)
{
	struct ibh_rule r = { .table = table,
			      .priority = prio,
			      .protocol = RTPROT_KERNEL,
			      .plain = true,
			      .live = true };

	r.src = ip(src, strchr(src, ':') ? 128 : 32);
	return r;
}

static struct ibh_route route(const char *dst, unsigned int len, int oif, const char *src,
			      uint32_t table)
{
	struct ibh_route r = {
		.oif = oif, .table = table, .protocol = RTPROT_KERNEL, .type = RTN_UNICAST
	};

	r.dst = ip(dst, len);
	r.scope = r.dst.family == AF_INET ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
	r.metric = r.dst.family == AF_INET ? 0 : 1024;
	if (src)
		r.src = ip(src, 32);
	return r;
}

/* memserver34's ib1 with its one address, nothing installed yet */
struct fixture {
	struct ibh_config c;
	struct ibh_observed o;
	struct ibh_ip addrs[4];
	struct ibh_rule rules[8];
	struct ibh_route routes[4];
	struct ibh_route main_routes[2];
	struct ibh_plan p;
};

static int setup(void **state)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	config_defaults(&f.c);
	strcpy(f.o.link.name, "ib1");
	f.o.link.ifindex = IB1;
	f.o.link.up = true;
	f.o.table = config_table(&f.c, "ib1", IB1);
	f.addrs[0] = ip("172.16.34.2", 16);
	f.o.addrs = f.addrs;
	f.o.n_addrs = 1;
	f.rules[0] = (struct ibh_rule){ .table = RT_TABLE_LOCAL, .plain = true };
	f.rules[1] = (struct ibh_rule){ .table = RT_TABLE_MAIN, .priority = 32766, .plain = true };
	f.rules[2] =
		(struct ibh_rule){ .table = RT_TABLE_DEFAULT, .priority = 32767, .plain = true };
	for (int i = 0; i < 3; i++)
		f.rules[i].src.family = AF_INET;
	f.o.rules = f.rules;
	f.o.n_rules = 3;
	f.o.rule_protocol = true;
	f.o.routes = f.routes;
	f.o.main_routes = f.main_routes;
	for (int k = 0; k < IBH_SYSCTL_MAX; k++)
		f.o.sysctl[k] = 0;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	plan_clear(&f->p);
	return 0;
}

/* the plan as `ip` commands, one per line */
static const char *dump(struct fixture *f, enum ibh_action action)
{
	static char buf[4096];
	FILE *m;

	plan_clear(&f->p);
	assert_int_equal(plan_build(&f->c, &f->o, action, &f->p), 0);
	m = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(m);
	for (size_t i = 0; i < f->p.n_ops; i++)
		plan_format_op(m, "ib1", &f->p.ops[i]);
	fputc('\0', m);
	fclose(m);
	return buf;
}

/* the observed state once the fresh plan ran */
static void make_applied(struct fixture *f)
{
	f->rules[f->o.n_rules++] = rule("172.16.34.2", T1, 1000);
	f->routes[f->o.n_routes++] = route("172.16.0.0", 16, IB1, "172.16.34.2", T1);
	f->o.sysctl[IBH_SYSCTL_ARP_IGNORE] = 2;
	f->o.sysctl[IBH_SYSCTL_ARP_ANNOUNCE] = 2;
}

static void test_fresh(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(f->o.table, 1004);
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip route replace 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 "
		"table 1004\n"
		"ip rule add from 172.16.34.2 lookup 1004 priority 1000 protocol kernel\n"
		"sysctl -w net.ipv4.conf.ib1.arp_ignore=2\n"
		"sysctl -w net.ipv4.conf.ib1.arp_announce=2\n"
		"ip neigh flush dev ib1\n");
}

static void test_already_applied(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_int_equal(f->p.n_ops, 0);
}

static void test_duplicate_rule(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->rules[f->o.n_rules++] = rule("172.16.34.2", T1, 1000);
	assert_string_equal(dump(f, IBH_ACTION_APPLY),
			    "ip rule del from 172.16.34.2 lookup 1004 priority 1000\n"
			    "ip neigh flush dev ib1\n");
}

static void test_stale_rule(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	/* an address ib1 no longer has, and ib1's address pointing at another ib-hook table */
	f->rules[f->o.n_rules++] = rule("172.16.34.9", T1, 1000);
	f->rules[f->o.n_rules++] = rule("172.16.34.2", 1003, 1000);
	assert_string_equal(dump(f, IBH_ACTION_APPLY),
			    "ip rule del from 172.16.34.9 lookup 1004 priority 1000\n"
			    "ip rule del from 172.16.34.2 lookup 1003 priority 1000\n"
			    "ip neigh flush dev ib1\n");
}

static void test_orphan_rule(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	/* another live interface's rule stays; a vanished interface's rule goes */
	f->rules[f->o.n_rules++] = rule("172.16.34.1", 1003, 1000);
	f->rules[f->o.n_rules] = rule("172.16.34.7", 1009, 1000);
	f->rules[f->o.n_rules++].live = false;
	assert_string_equal(dump(f, IBH_ACTION_APPLY),
			    "ip rule del from 172.16.34.7 lookup 1009 priority 1000\n"
			    "ip neigh flush dev ib1\n");
}

static void test_foreign_rules_untouched(void **state)
{
	struct fixture *f = *state;
	struct ibh_rule r;

	make_applied(f);
	/* same source, but another priority, a selector, no protocol, or a user's table */
	f->rules[f->o.n_rules++] = rule("172.16.34.2", 942, 32765);
	r = rule("172.16.34.2", T1, 1000);
	r.plain = false;
	f->rules[f->o.n_rules++] = r;
	r = rule("172.16.34.2", 1003, 1000);
	r.protocol = RTPROT_BOOT;
	f->rules[f->o.n_rules++] = r;
	f->rules[f->o.n_rules++] = rule("172.16.34.2", 100, 1000);
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
}

static void test_address_changed(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->addrs[0] = ip("10.20.0.2", 24);
	assert_string_equal(dump(f, IBH_ACTION_APPLY),
			    "ip route del 172.16.0.0/16 dev ib1 proto kernel scope link src "
			    "172.16.34.2 table 1004\n"
			    "ip route replace 10.20.0.0/24 dev ib1 proto kernel scope link src "
			    "10.20.0.2 table 1004\n"
			    "ip rule del from 172.16.34.2 lookup 1004 priority 1000\n"
			    "ip rule add from 10.20.0.2 lookup 1004 priority 1000 protocol kernel\n"
			    "ip neigh flush dev ib1\n");
}

static void test_second_address_same_prefix(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->addrs[f->o.n_addrs++] = ip("172.16.34.3", 16);
	/* one route per prefix (the primary's source), one rule per address */
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip rule add from 172.16.34.3 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
}

static void test_ipv6(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->addrs[f->o.n_addrs++] = ip("2001:db8::2", 64);
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip -6 route replace 2001:db8::/64 dev ib1 proto kernel table 1004\n"
		"ip -6 rule add from 2001:db8::2 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
	f->c.ipv6 = false;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	f->c.ipv6 = true;
	f->addrs[f->o.n_addrs - 1] = ip("fe80::2", 64);
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
}

static void test_foreign_table(void **state)
{
	struct fixture *f = *state;

	/* [Tables] points ib1 at a table that routes through somebody else's eth0 */
	f->routes[f->o.n_routes] = route("10.0.0.0", 8, 2, NULL, T1);
	strcpy(f->routes[f->o.n_routes++].oif_name, "eth0");
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_int_equal(f->p.refused, -EEXIST);
	assert_non_null(strstr(f->p.why, "through 'eth0'"));
	assert_string_equal(dump(f, IBH_ACTION_REMOVE), "");
	assert_int_equal(f->p.refused, -EEXIST);
}

static void test_table_left_by_managed_link(void **state)
{
	struct fixture *f = *state;

	/* ib0 moved to another table: its old route in T is ib-hook's own leftover */
	f->routes[f->o.n_routes] = route("172.16.0.0", 16, 3, "172.16.34.1", T1);
	strcpy(f->routes[f->o.n_routes].oif_name, "ib0");
	f->routes[f->o.n_routes++].oif_managed = true;
	assert_int_equal(f->p.refused, 0);
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip route del 172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1 table "
		"1004\n"
		"ip route replace 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 "
		"table 1004\n"
		"ip rule add from 172.16.34.2 lookup 1004 priority 1000 protocol kernel\n"
		"sysctl -w net.ipv4.conf.ib1.arp_ignore=2\n"
		"sysctl -w net.ipv4.conf.ib1.arp_announce=2\n"
		"ip neigh flush dev ib1\n");
}

static void test_user_route_on_link_kept(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->routes[f->o.n_routes] = route("0.0.0.0", 0, IB1, NULL, T1);
	f->routes[f->o.n_routes++].gateway = true;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
}

static void test_main_delete(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->c.main_route = IBH_MAIN_DELETE;
	/* apply does not read main (it may hold a million routes): it deletes blindly */
	assert_string_equal(dump(f, IBH_ACTION_APPLY),
			    "ip route del 172.16.0.0/16 dev ib1 proto kernel table main\n"
			    "ip neigh flush dev ib1\n");
	assert_true(f->p.ops[0].maybe);
	assert_false(plan_op_is_drift(&f->p.ops[0]));
	/* --status reads main through ib1: present is drift, absent is nothing to do */
	f->o.main_known = true;
	f->main_routes[f->o.n_main_routes++] = route("172.16.0.0", 16, IB1, "172.16.34.2", 254);
	dump(f, IBH_ACTION_APPLY);
	assert_int_equal(f->p.n_ops, 2);
	assert_true(plan_op_is_drift(&f->p.ops[0]));
	f->o.n_main_routes = 0;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
}

static void test_remove(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->c.main_route = IBH_MAIN_DELETE;
	/* remove leaves main and the sysctls alone */
	assert_string_equal(dump(f, IBH_ACTION_REMOVE),
			    "ip route del 172.16.0.0/16 dev ib1 proto kernel scope link src "
			    "172.16.34.2 table 1004\n"
			    "ip rule del from 172.16.34.2 lookup 1004 priority 1000\n"
			    "ip neigh flush dev ib1\n");
	/* after ifdown the address is gone, the rule pointing at T still goes */
	f->o.n_addrs = 0;
	f->o.n_routes = 0;
	assert_string_equal(dump(f, IBH_ACTION_REMOVE),
			    "ip rule del from 172.16.34.2 lookup 1004 priority 1000\n"
			    "ip neigh flush dev ib1\n");
}

static void test_no_address(void **state)
{
	struct fixture *f = *state;

	f->o.n_addrs = 0;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
}

static void test_sysctl_keep(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->c.sysctl[IBH_SYSCTL_RP_FILTER] = 1;
	f->c.sysctl[IBH_SYSCTL_ARP_IGNORE] = IBH_SYSCTL_KEEP;
	f->o.sysctl[IBH_SYSCTL_ARP_IGNORE] = 0;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "sysctl -w net.ipv4.conf.ib1.rp_filter=1\n");
}

static void test_priority_and_tables(void **state)
{
	struct fixture *f = *state;

	f->c.priority = 77;
	f->c.tables[0] = (struct ibh_table_entry){ .ifname = "ib1", .table = 942 };
	f->c.n_tables = 1;
	f->o.table = config_table(&f->c, "ib1", IB1);
	assert_string_equal(dump(f, IBH_ACTION_APPLY),
			    "ip route replace 172.16.0.0/16 dev ib1 proto kernel scope link src "
			    "172.16.34.2 table 942\n"
			    "ip rule add from 172.16.34.2 lookup 942 priority 77 protocol kernel\n"
			    "sysctl -w net.ipv4.conf.ib1.arp_ignore=2\n"
			    "sysctl -w net.ipv4.conf.ib1.arp_announce=2\n"
			    "ip neigh flush dev ib1\n");
}

static void test_reserved_table(void **state)
{
	struct fixture *f = *state;

	f->o.table = 0;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_int_equal(f->p.refused, -ERANGE);
}

static void test_old_kernel_without_rule_protocol(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->o.rule_protocol = false;
	f->rules[3].protocol = 0;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
}

static void test_prefix(void **state)
{
	struct ibh_ip p, a = ip("172.16.34.2", 16);
	char buf[64];

	ip_prefix(&p, &a);
	assert_string_equal(ip_to_string(&p, buf, sizeof(buf), true), "172.16.0.0/16");
	a = ip("10.1.2.255", 25);
	ip_prefix(&p, &a);
	assert_string_equal(ip_to_string(&p, buf, sizeof(buf), true), "10.1.2.128/25");
	a = ip("2001:db8:1:2:3::9", 60);
	ip_prefix(&p, &a);
	assert_string_equal(ip_to_string(&p, buf, sizeof(buf), true), "2001:db8:1::/60");
	a = ip("10.1.2.3", 32);
	ip_prefix(&p, &a);
	assert_string_equal(ip_to_string(&p, buf, sizeof(buf), true), "10.1.2.3/32");
	a = ip("10.1.2.3", 0);
	ip_prefix(&p, &a);
	assert_string_equal(ip_to_string(&p, buf, sizeof(buf), true), "0.0.0.0/0");
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_fresh),
		T(test_already_applied),
		T(test_duplicate_rule),
		T(test_stale_rule),
		T(test_orphan_rule),
		T(test_foreign_rules_untouched),
		T(test_address_changed),
		T(test_second_address_same_prefix),
		T(test_ipv6),
		T(test_foreign_table),
		T(test_table_left_by_managed_link),
		T(test_user_route_on_link_kept),
		T(test_main_delete),
		T(test_remove),
		T(test_no_address),
		T(test_sysctl_keep),
		T(test_priority_and_tables),
		T(test_reserved_table),
		T(test_old_kernel_without_rule_protocol),
		T(test_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
