// SPDX-License-Identifier: GPL-2.0-or-later
/* plan() over hand-made observed states: what apply would do, op by op */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <net/if_arp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "op.h"
#include "plan.h"
#include "record.h"

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
			      .action = FR_ACT_TO_TBL,
			      .exact = true };

	r.src = ip(src, strchr(src, ':') ? 128 : 32);
	snprintf(r.desc, sizeof(r.desc), "from %s lookup %u priority %u", src, table, prio);
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
	struct ibh_addr addrs[4];
	struct ibh_ip taken[2];
	struct ibh_rule rules[12];
	struct ibh_route routes[6];
	struct ibh_route main_routes[2];
	struct ibh_route main_via[8];
	struct ibh_record record;
	struct ibh_plan p;
};

static int setup(void **state)
{
	static struct fixture f;

	record_clear(&f.record);
	memset(&f, 0, sizeof(f));
	config_defaults(&f.c);
	strcpy(f.o.link.name, "ib1");
	f.o.link.ifindex = IB1;
	f.o.link.up = true;
	f.o.table = config_table(&f.c, "ib1", IB1);
	f.addrs[0].ip = ip("172.16.34.2", 16);
	f.o.addrs = f.addrs;
	f.o.n_addrs = 1;
	f.o.taken = f.taken;
	f.rules[0] = (struct ibh_rule){ .table = RT_TABLE_LOCAL, .action = FR_ACT_TO_TBL };
	f.rules[1] = (struct ibh_rule){ .table = RT_TABLE_MAIN,
					.priority = 32766,
					.action = FR_ACT_TO_TBL };
	f.rules[2] = (struct ibh_rule){ .table = RT_TABLE_DEFAULT,
					.priority = 32767,
					.action = FR_ACT_TO_TBL };
	for (int i = 0; i < 3; i++)
		f.rules[i].src.family = AF_INET;
	f.o.rules = f.rules;
	f.o.n_rules = 3;
	f.o.rule_protocol = true;
	f.o.routes = f.routes;
	f.o.main_routes = f.main_routes;
	f.o.main_known = true;
	f.o.main_via = f.main_via;
	f.record.present = true;
	f.o.record = &f.record;
	/* ib-hook has run for ib1 before: it adopts nothing */
	f.record.recs = calloc(16, sizeof(*f.record.recs));
	f.record.cap = 16;
	f.record.recs[f.record.n].kind = IBH_REC_LINK;
	strcpy(f.record.recs[f.record.n].ifname, "ib1");
	f.record.recs[f.record.n++].ifindex = IB1;
	for (int k = 0; k < IBH_SYSCTL_MAX; k++)
		f.o.sysctl[k] = 0;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	plan_clear(&f->p);
	record_clear(&f->record);
	return 0;
}

static const char *format(struct fixture *f)
{
	static char buf[4096];
	char cmd[512];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < f->p.n_ops; i++) {
		op_command(cmd, sizeof(cmd), "ib1", &f->p.ops[i]);
		if (cmd[0])
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\n", cmd);
	}
	return buf;
}

/* the plan as `ip` commands, one per line */
static const char *dump(struct fixture *f, enum ibh_action action)
{
	plan_clear(&f->p);
	assert_int_equal(plan_build(&f->c, &f->o, action, &f->p), 0);
	return format(f);
}

static const char *dump_leftovers(struct fixture *f)
{
	plan_clear(&f->p);
	assert_int_equal(plan_leftovers(&f->o, &f->p), 0);
	return format(f);
}

static void remember_rule(struct fixture *f, const struct ibh_rule *r, const char *ifname,
			  int ifindex)
{
	struct ibh_rec rec = { .kind = IBH_REC_RULE, .rule = *r, .ifindex = ifindex };

	strcpy(rec.ifname, ifname);
	assert_int_equal(record_add(&f->record, &rec), 0);
}

static void remember_route(struct fixture *f, enum ibh_rec_kind kind, const struct ibh_route *r,
			   const char *ifname, int ifindex)
{
	struct ibh_rec rec = { .kind = kind, .route = *r, .ifindex = ifindex };

	strcpy(rec.ifname, ifname);
	assert_int_equal(record_add(&f->record, &rec), 0);
}

static void add_rule(struct fixture *f, struct ibh_rule r, bool ours)
{
	f->rules[f->o.n_rules++] = r;
	if (ours)
		remember_rule(f, &r, "ib1", IB1);
}

static void add_route(struct fixture *f, struct ibh_route r, bool ours)
{
	f->routes[f->o.n_routes++] = r;
	if (ours)
		remember_route(f, IBH_REC_ROUTE, &r, "ib1", IB1);
}

/* the observed state once the fresh plan ran */
static void make_applied(struct fixture *f)
{
	add_rule(f, rule("172.16.34.2", T1, 1000), true);
	add_route(f, route("172.16.0.0", 16, IB1, "172.16.34.2", T1), true);
	f->o.sysctl[IBH_SYSCTL_ARP_IGNORE] = 2;
	f->o.sysctl[IBH_SYSCTL_ARP_ANNOUNCE] = 2;
}

static void test_fresh(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(f->o.table, 1004);
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip route append 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 "
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

static void test_stale_rule(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	/* an address ib1 no longer has: recorded for ib1, so it goes */
	add_rule(f, rule("172.16.34.9", T1, 1000), true);
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip rule del from 172.16.34.9 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
}

static void test_unrecorded_lookalikes_untouched(void **state)
{
	struct fixture *f = *state;
	struct ibh_rule r;

	make_applied(f);
	/* exactly ib-hook's shape, priority and table, but not in the record */
	add_rule(f, rule("172.16.34.9", T1, 1000), false);
	add_rule(f, rule("192.0.2.7", 7777, 1000), false);
	/* selectors ib-hook never sets */
	r = rule("172.16.34.2", T1, 1000);
	r.exact = false;
	r.strict = true;
	add_rule(f, r, false);
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_string_equal(
		dump(f, IBH_ACTION_REMOVE),
		"ip route del 172.16.0.0/16 dev ib1 proto kernel scope link src "
		"172.16.34.2 table 1004\n"
		"ip rule del from 172.16.34.2 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
}

static void test_delete_would_hit_foreign_rule(void **state)
{
	struct fixture *f = *state;
	struct ibh_rule iif = rule("172.16.34.2", T1, 1000);

	/* `ip rule add from A iif ib0 lookup T priority P proto kernel`, before ib-hook's */
	iif.exact = false;
	iif.strict = true;
	strcpy(iif.desc, "from 172.16.34.2 iif ib0 lookup 1004 priority 1000 proto 2");
	add_rule(f, iif, false);
	make_applied(f);
	assert_string_equal(dump(f, IBH_ACTION_REMOVE), "");
	assert_int_equal(f->p.refused, -EBUSY);
	assert_non_null(strstr(f->p.why, "iif ib0"));
	/* another protocol is compared by the kernel: no conflict */
	f->rules[3].protocol = RTPROT_STATIC;
	dump(f, IBH_ACTION_REMOVE);
	assert_int_equal(f->p.refused, 0);
	/* unless the kernel is too old to compare it */
	f->o.rule_protocol = false;
	dump(f, IBH_ACTION_REMOVE);
	assert_int_equal(f->p.refused, -EBUSY);
}

static void test_add_blocked_by_foreign_rule(void **state)
{
	struct fixture *f = *state;
	struct ibh_rule to = rule("172.16.34.2", T1, 1000);

	/* `to 10.0.0.0/8 from A lookup T priority P proto kernel`: EEXIST for ib-hook's add */
	to.exact = false;
	strcpy(to.desc, "from 172.16.34.2 to 10.0.0.0/8 lookup 1004 priority 1000 proto 2");
	add_rule(f, to, false);
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_int_equal(f->p.refused, -EEXIST);
	assert_non_null(strstr(f->p.why, "to 10.0.0.0/8"));
	/* a strict selector (iif) does not keep the kernel from adding */
	f->rules[3].strict = true;
	dump(f, IBH_ACTION_APPLY);
	assert_int_equal(f->p.refused, 0);
}

static void test_identical_foreign_rule_serves(void **state)
{
	struct fixture *f = *state;

	/* the user's own rule, identical to ib-hook's: it serves, and it stays theirs */
	add_rule(f, rule("172.16.34.2", T1, 1000), false);
	add_route(f, route("172.16.0.0", 16, IB1, "172.16.34.2", T1), true);
	f->o.sysctl[IBH_SYSCTL_ARP_IGNORE] = 2;
	f->o.sysctl[IBH_SYSCTL_ARP_ANNOUNCE] = 2;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_string_equal(dump(f, IBH_ACTION_REMOVE),
			    "ip route del 172.16.0.0/16 dev ib1 proto kernel scope link src "
			    "172.16.34.2 table 1004\n"
			    "ip neigh flush dev ib1\n");
}

static void test_adopt_without_record(void **state)
{
	struct fixture *f = *state;

	/* 0.1.0 installed these and kept no record */
	f->record.present = false;
	f->record.n = 0;
	add_rule(f, rule("172.16.34.2", T1, 1000), false);
	add_route(f, route("172.16.0.0", 16, IB1, "172.16.34.2", T1), false);
	add_rule(f, rule("172.16.34.9", T1, 1000), false);
	f->o.sysctl[IBH_SYSCTL_ARP_IGNORE] = 2;
	f->o.sysctl[IBH_SYSCTL_ARP_ANNOUNCE] = 2;
	/* what apply would install is adopted; a look-alike for another address is not */
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_int_equal(f->p.n_ops, 3);
	assert_int_equal(f->p.ops[0].kind, IBH_OP_ADOPT);
	assert_int_equal(f->p.ops[1].kind, IBH_OP_ADOPT);
	/* and the record now speaks for ib1 */
	assert_int_equal(f->p.ops[2].kind, IBH_OP_ADOPT);
	assert_int_equal(f->p.ops[2].rec.kind, IBH_REC_LINK);
	assert_false(op_kind(f->p.ops[0].kind)->drift);
	/* and removed by remove, never doubled */
	assert_string_equal(
		dump(f, IBH_ACTION_REMOVE),
		"ip route del 172.16.0.0/16 dev ib1 proto kernel scope link src "
		"172.16.34.2 table 1004\n"
		"ip rule del from 172.16.34.2 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
}

static void test_forget_what_is_gone(void **state)
{
	struct fixture *f = *state;

	/* a link bounce emptied T: the record still names the route */
	make_applied(f);
	f->o.n_routes = 0;
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip route append 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 "
		"table 1004\n"
		"ip neigh flush dev ib1\n");
	assert_int_equal(f->p.n_ops, 3);
	assert_int_equal(f->p.ops[0].kind, IBH_OP_FORGET);
}

static void test_address_changed(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->addrs[0].ip = ip("10.20.0.2", 24);
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip route del 172.16.0.0/16 dev ib1 proto kernel scope link src "
		"172.16.34.2 table 1004\n"
		"ip route append 10.20.0.0/24 dev ib1 proto kernel scope link src "
		"10.20.0.2 table 1004\n"
		"ip rule del from 172.16.34.2 lookup 1004 priority 1000 protocol kernel\n"
		"ip rule add from 10.20.0.2 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
}

static void test_peer_address(void **state)
{
	struct fixture *f = *state;

	/* `ip addr add 10.72.0.1 peer 10.99.0.0/24`: the kernel routes the peer's prefix */
	f->addrs[0].ip = ip("10.72.0.1", 24);
	f->addrs[0].peer = ip("10.99.0.0", 24);
	f->c.sysctl[IBH_SYSCTL_ARP_IGNORE] = IBH_SYSCTL_KEEP;
	f->c.sysctl[IBH_SYSCTL_ARP_ANNOUNCE] = IBH_SYSCTL_KEEP;
	assert_string_equal(dump(f, IBH_ACTION_APPLY),
			    "ip route append 10.99.0.0/24 dev ib1 proto kernel scope link src "
			    "10.72.0.1 table 1004\n"
			    "ip rule add from 10.72.0.1 lookup 1004 priority 1000 protocol kernel\n"
			    "ip neigh flush dev ib1\n");
}

static void test_second_address_same_prefix(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->addrs[f->o.n_addrs++].ip = ip("172.16.34.3", 16);
	/* one route per prefix (the primary's source), one rule per address */
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip rule add from 172.16.34.3 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
}

static void test_same_address_on_lower_link(void **state)
{
	struct fixture *f = *state;

	/* ib0 (lower index) has ib1's address too: ib0's table serves it, stably */
	make_applied(f);
	f->taken[f->o.n_taken++] = ip("172.16.34.2", 16);
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip rule del from 172.16.34.2 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
	f->o.n_rules--;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
}

static void test_ipv6(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->addrs[f->o.n_addrs++].ip = ip("2001:db8::2", 64);
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip -6 route append 2001:db8::/64 dev ib1 proto kernel metric 1024 table 1004\n"
		"ip -6 rule add from 2001:db8::2 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
	f->c.ipv6 = false;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	f->c.ipv6 = true;
	f->addrs[f->o.n_addrs - 1].ip = ip("fe80::2", 64);
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
	assert_non_null(strstr(f->p.why, "10.0.0.0/8 dev eth0"));
	assert_string_equal(dump(f, IBH_ACTION_REMOVE), "");
	assert_int_equal(f->p.refused, -EEXIST);
}

static void test_user_routes_in_table_kept(void **state)
{
	struct fixture *f = *state;
	struct ibh_route r;

	make_applied(f);
	/* a gateway route on ib1 for the same prefix, hardening, an IPv6 blackhole */
	r = route("172.16.0.0", 16, IB1, NULL, T1);
	r.gateway = true;
	r.scope = RT_SCOPE_UNIVERSE;
	r.protocol = RTPROT_BOOT;
	add_route(f, r, false);
	r = route("0.0.0.0", 0, 0, NULL, T1);
	r.type = RTN_UNREACHABLE;
	add_route(f, r, false);
	r = route("::", 0, 1, NULL, T1);
	r.type = RTN_BLACKHOLE;
	add_route(f, r, false);
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_int_equal(f->p.refused, 0);
	assert_string_equal(
		dump(f, IBH_ACTION_REMOVE),
		"ip route del 172.16.0.0/16 dev ib1 proto kernel scope link src "
		"172.16.34.2 table 1004\n"
		"ip rule del from 172.16.34.2 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
}

static void test_shared_table(void **state)
{
	struct fixture *f = *state;

	strcpy(f->o.table_shared_with, "ib0");
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_int_equal(f->p.refused, -EEXIST);
	assert_non_null(strstr(f->p.why, "'ib0'"));
}

static void test_main_delete_and_give_back(void **state)
{
	struct fixture *f = *state;
	struct ibh_route m = route("172.16.0.0", 16, IB1, "172.16.34.2", 254);

	make_applied(f);
	f->c.main_route = IBH_MAIN_DELETE;
	f->main_routes[f->o.n_main_routes++] = m;
	assert_string_equal(dump(f, IBH_ACTION_APPLY),
			    "ip route del 172.16.0.0/16 dev ib1 proto kernel scope link src "
			    "172.16.34.2 table main\n"
			    "ip neigh flush dev ib1\n");
	assert_true(op_kind(f->p.ops[0].kind)->drift);
	/* gone from main: nothing to do */
	f->o.n_main_routes = 0;
	remember_route(f, IBH_REC_MAIN, &m, "ib1", IB1);
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	/* back in main (a link bounce, another program): the record's entry is made again */
	f->main_routes[f->o.n_main_routes++] = m;
	dump(f, IBH_ACTION_APPLY);
	assert_int_equal(f->p.ops[0].kind, IBH_OP_MAIN_DEL);
	assert_int_equal(f->p.ops[1].kind, IBH_OP_FORGET);
	assert_true(rec_same_object(&f->p.ops[0].rec, &f->p.ops[1].rec));
	f->o.n_main_routes = 0;
	/* remove gives main its prefix route back, so that the subnet stays reachable */
	assert_string_equal(
		dump(f, IBH_ACTION_REMOVE),
		"ip route del 172.16.0.0/16 dev ib1 proto kernel scope link src "
		"172.16.34.2 table 1004\n"
		"ip rule del from 172.16.34.2 lookup 1004 priority 1000 protocol kernel\n"
		"ip route append 172.16.0.0/16 dev ib1 proto kernel scope link src "
		"172.16.34.2 table main\n"
		"ip neigh flush dev ib1\n");
}

static void test_leftovers(void **state)
{
	struct fixture *f = *state;
	struct ibh_route old = route("172.16.0.0", 16, IB1, "172.16.34.2", 5004);

	/* TableBase moved from 5000 to 1000: the old rule and route are leftovers */
	add_rule(f, rule("172.16.34.2", 5004, 1000), true);
	add_route(f, old, true);
	remember_route(f, IBH_REC_MAIN, &old, "ib9", 9);
	for (size_t i = 0; i < f->record.n; i++)
		f->record.recs[i].leftover = true;
	f->o.n_main_routes = 0;
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip route append 172.16.0.0/16 dev ib1 proto kernel scope link src "
		"172.16.34.2 table 1004\n"
		"ip rule add from 172.16.34.2 lookup 1004 priority 1000 protocol kernel\n"
		"sysctl -w net.ipv4.conf.ib1.arp_ignore=2\n"
		"sysctl -w net.ipv4.conf.ib1.arp_announce=2\n"
		"ip neigh flush dev ib1\n");
	assert_string_equal(
		dump_leftovers(f),
		"ip rule del from 172.16.34.2 lookup 5004 priority 1000 protocol kernel\n"
		"ip route del 172.16.0.0/16 dev ib1 proto kernel scope link src "
		"172.16.34.2 table 5004\n"
		"ip route append 172.16.0.0/16 dev ib9 proto kernel scope link src "
		"172.16.34.2 table 5004\n");
}

/*
 * Two leftover copies in T that differ in a metric alone (ownership.py seed
 * 126053997): an IPv4 delete of the later one, which carries no mtu, would
 * take the earlier one; that one is ib-hook's too, and goes first
 */
static void test_leftover_copies_twins(void **state)
{
	struct fixture *f = *state;
	struct ibh_route a = route("128.0.0.0", 1, IB1, NULL, 5004), b;

	a.scope = RT_SCOPE_UNIVERSE;
	a.gw = ip("172.16.0.254", 32);
	a.gateway = true;
	b = a;
	a.metrics_set |= 1u << RTAX_MTU;
	a.metric_values[RTAX_MTU] = 1400;
	add_route(f, a, true);
	add_route(f, b, true);
	for (size_t i = 0; i < f->record.n; i++)
		f->record.recs[i].leftover = true;
	assert_string_equal(dump_leftovers(f),
			    "ip route del 128.0.0.0/1 via 172.16.0.254 dev ib1 proto kernel mtu 1400 "
			    "table 5004\n"
			    "ip route del 128.0.0.0/1 via 172.16.0.254 dev ib1 proto kernel table 5004\n");
	/* the earlier one is not ib-hook's: refused, nothing done */
	f->o.n_routes = 0;
	f->record.n = 0;
	add_route(f, a, false);
	add_route(f, b, true);
	f->record.recs[0].leftover = true;
	assert_string_equal(dump_leftovers(f), "");
	assert_int_equal(f->p.refused, -EBUSY);
}

static void test_renamed_link_keeps_its_objects(void **state)
{
	struct fixture *f = *state;
	struct ibh_rule r = rule("172.16.34.2", T1, 1000);
	struct ibh_route rt = route("172.16.0.0", 16, IB1, "172.16.34.2", T1);

	/* installed for ib9, which is ib1 renamed: a leftover that ib1 wants as it is */
	f->o.rules[f->o.n_rules++] = r;
	f->o.routes[f->o.n_routes++] = rt;
	remember_rule(f, &r, "ib9", IB1);
	remember_route(f, IBH_REC_ROUTE, &rt, "ib9", IB1);
	for (size_t i = 0; i < f->record.n; i++)
		f->record.recs[i].leftover = f->record.recs[i].kind != IBH_REC_LINK;
	f->o.sysctl[IBH_SYSCTL_ARP_IGNORE] = 2;
	f->o.sysctl[IBH_SYSCTL_ARP_ANNOUNCE] = 2;
	/* nothing is added, deleted or flushed: only the record changes hands */
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_int_equal(f->p.n_ops, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(f->p.ops[i].kind, IBH_OP_TRANSFER);
		assert_string_equal(f->p.ops[i].rec.ifname, "ib1");
		assert_false(op_kind(f->p.ops[i].kind)->drift);
	}
	assert_int_equal(f->p.ops[0].rec.kind, IBH_REC_ROUTE);
	assert_int_equal(f->p.ops[1].rec.kind, IBH_REC_RULE);
	/* remove wants nothing: the leftovers' plan takes them back */
	assert_string_equal(dump(f, IBH_ACTION_REMOVE), "");
	assert_string_equal(
		dump_leftovers(f),
		"ip rule del from 172.16.34.2 lookup 1004 priority 1000 protocol kernel\n"
		"ip route del 172.16.0.0/16 dev ib9 proto kernel scope link src "
		"172.16.34.2 table 1004\n");
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

/* [IPoIB] on an InfiniBand link: mode first, then MTU; nothing on other links or on remove */
static void test_ipoib(void **state)
{
	struct fixture *f = *state;

	make_applied(f);
	f->c.ipoib_mode = IBH_IPOIB_CONNECTED;
	f->c.ipoib_mtu = 65520;
	f->o.ipoib_mode = IBH_IPOIB_DATAGRAM;
	f->o.mtu = 2044;
	/* a veth named like a port is no InfiniBand link */
	f->o.link.type = ARPHRD_ETHER;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	f->o.link.type = ARPHRD_INFINIBAND;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "echo connected > /sys/class/net/ib1/mode\n"
						       "ip link set dev ib1 mtu 65520\n");
	/* mode and MTU are not routing: no neighbour flush, and they count as drift */
	for (size_t i = 0; i < f->p.n_ops; i++)
		assert_true(op_kind(f->p.ops[i].kind)->drift);
	/* a mode change resets the MTU: it is written again even when it looks right */
	f->o.mtu = 65520;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "echo connected > /sys/class/net/ib1/mode\n"
						       "ip link set dev ib1 mtu 65520\n");
	f->o.ipoib_mode = IBH_IPOIB_CONNECTED;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	f->o.mtu = 4092;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "ip link set dev ib1 mtu 65520\n");
	/* remove leaves them as they are */
	assert_string_equal(
		dump(f, IBH_ACTION_REMOVE),
		"ip route del 172.16.0.0/16 dev ib1 proto kernel scope link src "
		"172.16.34.2 table 1004\n"
		"ip rule del from 172.16.34.2 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
	/* a mode or MTU that could not be read is left alone; keep is keep */
	f->o.ipoib_mode = IBH_IPOIB_KEEP;
	f->o.mtu = 0;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	f->o.ipoib_mode = IBH_IPOIB_DATAGRAM;
	f->o.mtu = 2044;
	f->c.ipoib_mode = IBH_IPOIB_KEEP;
	f->c.ipoib_mtu = 0;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
}

static void test_priority_and_tables(void **state)
{
	struct fixture *f = *state;

	f->c.priority = 77;
	f->c.tables[0] = (struct ibh_table_entry){ .ifname = "ib1", .table = 942 };
	f->c.n_tables = 1;
	f->o.table = config_table(&f->c, "ib1", IB1);
	assert_string_equal(dump(f, IBH_ACTION_APPLY),
			    "ip route append 172.16.0.0/16 dev ib1 proto kernel scope link src "
			    "172.16.34.2 table 942\n"
			    "ip rule add from 172.16.34.2 lookup 942 priority 77 protocol kernel\n"
			    "sysctl -w net.ipv4.conf.ib1.arp_ignore=2\n"
			    "sysctl -w net.ipv4.conf.ib1.arp_announce=2\n"
			    "ip neigh flush dev ib1\n");
}

static void test_reserved_table(void **state)
{
	struct fixture *f = *state;

	/* TableBase 251 + ifindex 4 is main: the refusal names 255, not 0 */
	f->c.table_base = 251;
	f->o.table = config_table(&f->c, "ib1", IB1);
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_int_equal(f->p.refused, -ERANGE);
	assert_string_equal(f->p.why, "table 255 (TableBase 251 + ifindex 4) is reserved (0, "
				      "253-255); give ib1 a table in [Tables]");
	f->c.table_base = UINT32_MAX;
	f->o.table = config_table(&f->c, "ib1", IB1);
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_string_equal(f->p.why, "table 4294967299 (TableBase 4294967295 + ifindex 4) is "
				      "above 4294967295; give ib1 a table in [Tables]");
}

static void test_record_lines(void **state)
{
	struct fixture *f = *state;
	struct ibh_rec in[3] = {}, out;
	char line[256];

	make_applied(f);
	in[0] = f->record.recs[1];
	in[1] = f->record.recs[2];
	in[2].kind = IBH_REC_ROUTE;
	in[2].route = route("2001:db8::", 64, IB1, NULL, T1);
	strcpy(in[2].ifname, "ibp4s0d1");
	in[2].ifindex = 12;
	for (int i = 0; i < 3; i++) {
		rec_format(line, sizeof(line), &in[i]);
		assert_int_equal(rec_parse(line, &out), 0);
		assert_true(rec_same_object(&in[i], &out));
		assert_string_equal(in[i].ifname, out.ifname);
		assert_int_equal(in[i].ifindex, out.ifindex);
	}
	assert_int_equal(rec_parse("rule ib1 4 172.16.34.2/32 1004", &out), -EINVAL);
	assert_int_equal(rec_parse("rule ib1 4 172.16.34.2/33 1004 1000", &out), -EINVAL);
	assert_int_equal(rec_parse("rule ib1 4 172.16.34.2/32 1004 1000 extra", &out), -EINVAL);
	assert_int_equal(rec_parse("route ib1 4 nonsense 4 1004 - 0 0 2 1", &out), -EINVAL);
	assert_int_equal(rec_parse("table ib1 4", &out), -EINVAL);
	assert_int_equal(rec_parse("link ib1 4", &out), 0);
	assert_int_equal(out.kind, IBH_REC_LINK);
	assert_int_equal(rec_parse("link ib1 4 x", &out), -EINVAL);
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

#define IB0 2
#define IB2 6

/* a route of main (or of table) through oif via gw */
static struct ibh_route gw_route(const char *dst, unsigned int len, const char *gw, int oif,
				 uint32_t table, uint32_t metric)
{
	struct ibh_route r = { .oif = oif,
			       .table = table,
			       .metric = metric,
			       .protocol = RTPROT_STATIC,
			       .type = RTN_UNICAST,
			       .gateway = true };

	r.dst = ip(dst, len);
	r.gw = ip(gw, strchr(gw, ':') ? 128 : 32);
	snprintf(r.oif_name, sizeof(r.oif_name), "%s",
		 oif == IB1   ? "ib1"
		 : oif == IB0 ? "ib0"
			      : "");
	return r;
}

/* a rail port: ib1 10.1.0.1/31, applied before (its rule and prefix route recorded) */
static void rail_port(struct fixture *f)
{
	struct ibh_route pr;
	struct ibh_rule rl = rule("10.1.0.1", T1, 1000);

	f->addrs[0].ip = ip("10.1.0.1", 31);
	pr = route("10.1.0.0", 31, IB1, "10.1.0.1", T1);
	strcpy(pr.oif_name, "ib1");
	f->routes[f->o.n_routes++] = pr;
	remember_route(f, IBH_REC_ROUTE, &pr, "ib1", IB1);
	f->rules[f->o.n_rules++] = rl;
	remember_rule(f, &rl, "ib1", IB1);
	f->o.sysctl[IBH_SYSCTL_ARP_IGNORE] = 2;
	f->o.sysctl[IBH_SYSCTL_ARP_ANNOUNCE] = 2;
}

/* main's gateway routes through ib1 are copied exactly, protocol kernel; others are not */
static void test_rails_copies(void **state)
{
	struct fixture *f = *state;
	struct ibh_route *m = f->main_via;
	size_t n = 0;

	rail_port(f);
	m[n] = gw_route("0.0.0.0", 0, "10.1.0.0", IB1, RT_TABLE_MAIN, 101);
	m[n].metrics_set = 1u << RTAX_MTU;
	m[n++].metric_values[RTAX_MTU] = 1400;
	/* the RA default: its lifetime is main's, the copy goes when it goes */
	m[n] = gw_route("::", 0, "fe80::1", IB1, RT_TABLE_MAIN, 1024);
	m[n].protocol = RTPROT_RA;
	m[n].expires = true;
	m[n++].pref = 1;
	/* a multipath route: the hops through ib1 */
	m[n] = gw_route("10.20.0.0", 16, "10.1.0.0", -1, RT_TABLE_MAIN, 0);
	m[n].gw.family = 0;
	m[n].n_hops = 3;
	m[n].hops[0] = (struct ibh_nexthop){ .gw = ip("10.0.0.0", 32), .oif = IB0 };
	m[n].hops[1] = (struct ibh_nexthop){ .gw = ip("10.1.0.0", 32), .oif = IB1, .weight = 2 };
	m[n++].hops[2] = (struct ibh_nexthop){ .gw = ip("10.1.0.8", 32),
					       .oif = IB1,
					       .flags = RTNH_F_ONLINK };
	/* a multipath route with one hop through ib1: a plain route */
	m[n] = gw_route("10.21.0.0", 16, "10.1.0.0", -1, RT_TABLE_MAIN, 0);
	m[n].gw.family = 0;
	m[n].n_hops = 2;
	m[n].hops[0] = (struct ibh_nexthop){ .gw = ip("10.0.0.0", 32), .oif = IB0 };
	m[n++].hops[1] = (struct ibh_nexthop){ .gw = ip("10.1.0.0", 32), .oif = IB1, .weight = 4 };
	/* not copied: the kernel's prefix route, one with an encap, a broadcast route */
	m[n] = route("10.1.0.0", 31, IB1, "10.1.0.1", RT_TABLE_MAIN);
	m[n++].protocol = RTPROT_KERNEL;
	m[n] = gw_route("10.50.0.0", 16, "10.1.0.0", IB1, RT_TABLE_MAIN, 0);
	m[n++].extra = true;
	m[n] = route("10.1.0.1", 32, IB1, NULL, RT_TABLE_MAIN);
	m[n].protocol = RTPROT_BOOT;
	m[n++].type = RTN_BROADCAST;
	f->o.n_main_via = n;
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip route append 0.0.0.0/0 via 10.1.0.0 dev ib1 proto kernel metric 101 mtu 1400 "
		"table 1004\n"
		"ip -6 route append ::/0 via fe80::1 dev ib1 proto kernel metric 1024 pref high "
		"table 1004\n"
		"ip route append 10.20.0.0/16 proto kernel table 1004 nexthop via 10.1.0.0 dev ib1 "
		"weight 3 "
		"nexthop via 10.1.0.8 dev ib1 weight 1 onlink\n"
		"ip route append 10.21.0.0/16 via 10.1.0.0 dev ib1 proto kernel table 1004\n"
		"ip neigh flush dev ib1\n");
	/* the copies are recorded, without main's lifetime, as ib-hook's protocol */
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(f->p.ops[i].kind, IBH_OP_ROUTE_ADD);
		assert_int_equal(f->p.ops[i].rec.kind, IBH_REC_ROUTE);
		assert_int_equal(f->p.ops[i].route.protocol, RTPROT_KERNEL);
		assert_false(f->p.ops[i].route.expires);
		assert_int_equal(f->p.ops[i].route.oif, IB1);
	}

	/* GatewayRoutes=no: prefix routes only */
	f->c.gateway_routes = false;
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
}

/* applied copies: nothing to do; main changed: the stale copy goes, the new one comes */
static void test_rails_copies_follow_main(void **state)
{
	struct fixture *f = *state;
	struct ibh_route copy;

	rail_port(f);
	f->main_via[0] = gw_route("0.0.0.0", 0, "10.1.0.0", IB1, RT_TABLE_MAIN, 101);
	f->o.n_main_via = 1;
	assert_true(route_copy(&f->main_via[0], IB1, "ib1", T1, &copy));
	f->routes[f->o.n_routes++] = copy;
	remember_route(f, IBH_REC_ROUTE, &copy, "ib1", IB1);
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");

	/* ip route replace default via 10.1.0.0 dev ib1 metric 101 mtu 1300 */
	f->main_via[0].metrics_set = 1u << RTAX_MTU;
	f->main_via[0].metric_values[RTAX_MTU] = 1300;
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip route del 0.0.0.0/0 via 10.1.0.0 dev ib1 proto kernel metric 101 table 1004\n"
		"ip route append 0.0.0.0/0 via 10.1.0.0 dev ib1 proto kernel metric 101 mtu 1300 "
		"table 1004\n"
		"ip neigh flush dev ib1\n");

	/* the original left main: its copy goes */
	f->o.n_main_via = 0;
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip route del 0.0.0.0/0 via 10.1.0.0 dev ib1 proto kernel metric 101 table 1004\n"
		"ip neigh flush dev ib1\n");

	/* a user's route that took the copy's place (another pref, an mtu) is theirs */
	f->o.n_main_via = 1;
	f->routes[1].metrics_set = 1u << RTAX_MTU;
	f->routes[1].metric_values[RTAX_MTU] = 9000;
	assert_string_equal(dump(f, IBH_ACTION_APPLY),
			    "ip route append 0.0.0.0/0 via 10.1.0.0 dev ib1 proto kernel metric "
			    "101 mtu 1300 table 1004\n"
			    "ip neigh flush dev ib1\n");

	/* remove takes the copy back, and only it */
	f->routes[1] = copy;
	assert_string_equal(
		dump(f, IBH_ACTION_REMOVE),
		"ip route del 10.1.0.0/31 dev ib1 proto kernel scope link src 10.1.0.1 table 1004\n"
		"ip route del 0.0.0.0/0 via 10.1.0.0 dev ib1 proto kernel metric 101 table 1004\n"
		"ip rule del from 10.1.0.1 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
}

/* the user's routes next to the copies stay; one the kernel would merge with a copy refuses */
static void test_rails_foreign_neighbours(void **state)
{
	struct fixture *f = *state;

	rail_port(f);
	f->main_via[0] = gw_route("0.0.0.0", 0, "10.1.0.0", IB1, RT_TABLE_MAIN, 101);
	f->main_via[1] = gw_route("fd00::", 16, "fe80::1", IB1, RT_TABLE_MAIN, 300);
	f->o.n_main_via = 2;
	/* the same destination with another metric, and a gateway route of the user's */
	f->routes[f->o.n_routes++] = gw_route("0.0.0.0", 0, "10.1.0.0", IB1, T1, 5);
	f->routes[f->o.n_routes++] = gw_route("10.30.0.0", 16, "10.1.0.0", IB1, T1, 7);
	assert_string_equal(dump(f, IBH_ACTION_APPLY),
			    "ip route append 0.0.0.0/0 via 10.1.0.0 dev ib1 proto kernel metric "
			    "101 table 1004\n"
			    "ip -6 route append fd00::/16 via fe80::1 dev ib1 proto kernel metric "
			    "300 table 1004\n"
			    "ip neigh flush dev ib1\n");
	assert_string_equal(
		dump(f, IBH_ACTION_REMOVE),
		"ip route del 10.1.0.0/31 dev ib1 proto kernel scope link src 10.1.0.1 table 1004\n"
		"ip rule del from 10.1.0.1 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
	/* IPv6: a gateway route of the same prefix and metric would take the copy as its sibling */
	f->routes[f->o.n_routes++] = gw_route("fd00::", 16, "fe80::2", IB1, T1, 300);
	assert_string_equal(dump(f, IBH_ACTION_APPLY), "");
	assert_int_equal(f->p.refused, -EEXIST);
	assert_non_null(strstr(f->p.why, "fd00::/16 via fe80::2 dev ib1 proto static metric 300"));
}

/*
 * The one-subnet layout (section 9, issue 44): every gateway route of main
 * through another port whose gateway lies in ib1's prefix is ib1's too, the
 * default and a storage network behind a second router alike, also where
 * ib1 has gateway routes of its own
 */
static void test_rails_one_subnet(void **state)
{
	struct fixture *f = *state;
	struct ibh_route *m = f->main_via;
	char *plan;
	size_t n = 0;

	assert_int_equal(index_set_add(&f->o.ports, IB0), 0);
	assert_int_equal(index_set_add(&f->o.ports, IB2), 0);
	m[n++] = gw_route("0.0.0.0", 0, "172.16.0.1", IB0, RT_TABLE_MAIN, 0);
	m[n] = gw_route("10.50.0.0", 16, "172.16.0.254", IB0, RT_TABLE_MAIN, 50);
	m[n].metrics_set = 1u << RTAX_MTU;
	m[n++].metric_values[RTAX_MTU] = 1400;
	/* not through ib1: a gateway outside its prefix, a link-local one, a device not a port */
	m[n++] = gw_route("10.9.0.0", 16, "192.168.1.1", IB0, RT_TABLE_MAIN, 0);
	m[n++] = gw_route("::", 0, "fe80::1", IB0, RT_TABLE_MAIN, 1024);
	m[n++] = gw_route("10.6.0.0", 16, "172.16.0.5", 9, RT_TABLE_MAIN, 0);
	/* a multipath route through two other ports: both hops through ib1 */
	m[n] = gw_route("10.8.0.0", 16, "172.16.0.1", -1, RT_TABLE_MAIN, 0);
	m[n].gw.family = 0;
	m[n].n_hops = 2;
	m[n].hops[0] = (struct ibh_nexthop){ .gw = ip("172.16.0.1", 32), .oif = IB0 };
	m[n++].hops[1] = (struct ibh_nexthop){ .gw = ip("172.16.0.2", 32), .oif = IB2 };
	/* ib0's hop names ib1's gateway again: ib1's own stays, a plain route */
	m[n] = gw_route("10.5.0.0", 16, "172.16.0.1", -1, RT_TABLE_MAIN, 0);
	m[n].gw.family = 0;
	m[n].n_hops = 2;
	m[n].hops[0] = (struct ibh_nexthop){ .gw = ip("172.16.0.1", 32), .oif = IB0 };
	m[n++].hops[1] = (struct ibh_nexthop){ .gw = ip("172.16.0.1", 32), .oif = IB1 };
	/* a gateway route of ib1's own: the default through ib0 is copied all the same */
	m[n++] = gw_route("10.7.0.0", 16, "172.16.0.9", IB1, RT_TABLE_MAIN, 0);
	f->o.n_main_via = n;
	plan = strdup(dump(f, IBH_ACTION_APPLY));
	assert_string_equal(
		plan,
		"ip route append 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 "
		"table 1004\n"
		"ip route append 0.0.0.0/0 via 172.16.0.1 dev ib1 proto kernel table 1004\n"
		"ip route append 10.50.0.0/16 via 172.16.0.254 dev ib1 proto kernel metric 50 "
		"mtu 1400 table 1004\n"
		"ip route append 10.8.0.0/16 proto kernel table 1004 nexthop via 172.16.0.1 dev "
		"ib1 weight 1 nexthop via 172.16.0.2 dev ib1 weight 1\n"
		"ip route append 10.5.0.0/16 via 172.16.0.1 dev ib1 proto kernel table 1004\n"
		"ip route append 10.7.0.0/16 via 172.16.0.9 dev ib1 proto kernel table 1004\n"
		"ip rule add from 172.16.34.2 lookup 1004 priority 1000 protocol kernel\n"
		"sysctl -w net.ipv4.conf.ib1.arp_ignore=2\n"
		"sysctl -w net.ipv4.conf.ib1.arp_announce=2\n"
		"ip neigh flush dev ib1\n");
	free(plan);
	/* ib0 is no port (not managed): nothing of its routes is ib1's */
	index_set_del(&f->o.ports, IB0);
	assert_null(strstr(dump(f, IBH_ACTION_APPLY), "172.16.0.254"));
	index_set_free(&f->o.ports);
}

/*
 * IPv6 joins two gateway routes of one prefix and metric in T(X) into one
 * multipath route that neither copy is (main keeps an RA default apart):
 * the copy that comes first stays, X's own
 */
static void test_rails_ipv6_siblings(void **state)
{
	struct fixture *f = *state;
	struct ibh_route *m = f->main_via;
	size_t n = 0;

	f->addrs[1].ip = ip("fd00:34::12", 64);
	f->o.n_addrs = 2;
	assert_int_equal(index_set_add(&f->o.ports, IB0), 0);
	m[n] = gw_route("::", 0, "fe80::1", IB1, RT_TABLE_MAIN, 1024);
	m[n++].protocol = RTPROT_RA;
	m[n++] = gw_route("::", 0, "fd00:34::fe", IB0, RT_TABLE_MAIN, 1024);
	/* another metric: beside it */
	m[n++] = gw_route("::", 0, "fd00:34::fd", IB0, RT_TABLE_MAIN, 2048);
	f->o.n_main_via = n;
	assert_non_null(strstr(dump(f, IBH_ACTION_APPLY),
			       "ip -6 route append ::/0 via fe80::1 dev ib1 proto kernel metric 1024 "
			       "table 1004\n"
			       "ip -6 route append ::/0 via fd00:34::fd dev ib1 proto kernel metric "
			       "2048 table 1004\n"));
	assert_null(strstr(format(f), "fd00:34::fe"));
	index_set_free(&f->o.ports);
}

/* [Gateways]: a default through the named gateway, where main gives none through the port */
static void test_rails_configured_gateway(void **state)
{
	struct fixture *f = *state;
	static const char conf[] = "[Gateways]\nib1=peer fd00:1::1\n";
	struct ibh_config_error err;

	rail_port(f);
	f->addrs[1].ip = ip("fd00:1::2", 64);
	f->o.n_addrs = 2;
	assert_int_equal(config_parse(&f->c, conf, sizeof(conf) - 1, &err), 0);
	assert_string_equal(
		dump(f, IBH_ACTION_APPLY),
		"ip -6 route append fd00:1::/64 dev ib1 proto kernel metric 1024 table 1004\n"
		"ip route append 0.0.0.0/0 via 10.1.0.0 dev ib1 proto kernel table 1004\n"
		"ip -6 route append ::/0 via fd00:1::1 dev ib1 proto kernel metric 1024 table "
		"1004\n"
		"ip -6 rule add from fd00:1::2 lookup 1004 priority 1000 protocol kernel\n"
		"ip neigh flush dev ib1\n");
	/* main's default through the port wins over the configured one */
	f->main_via[0] = gw_route("0.0.0.0", 0, "10.1.0.0", IB1, RT_TABLE_MAIN, 100);
	f->o.n_main_via = 1;
	assert_null(strstr(dump(f, IBH_ACTION_APPLY),
			   "0.0.0.0/0 via 10.1.0.0 dev ib1 proto kernel table"));
	/* peer on an address that is no /31 and has no peer: no IPv4 default */
	f->addrs[0].ip = ip("10.1.0.1", 24);
	f->o.n_main_via = 0;
	assert_null(strstr(dump(f, IBH_ACTION_APPLY), "ip route append 0.0.0.0/0"));
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_fresh),
		T(test_already_applied),
		T(test_stale_rule),
		T(test_unrecorded_lookalikes_untouched),
		T(test_delete_would_hit_foreign_rule),
		T(test_add_blocked_by_foreign_rule),
		T(test_identical_foreign_rule_serves),
		T(test_adopt_without_record),
		T(test_forget_what_is_gone),
		T(test_address_changed),
		T(test_peer_address),
		T(test_second_address_same_prefix),
		T(test_same_address_on_lower_link),
		T(test_ipv6),
		T(test_foreign_table),
		T(test_user_routes_in_table_kept),
		T(test_shared_table),
		T(test_main_delete_and_give_back),
		T(test_leftovers),
		T(test_leftover_copies_twins),
		T(test_renamed_link_keeps_its_objects),
		T(test_no_address),
		T(test_sysctl_keep),
		T(test_ipoib),
		T(test_priority_and_tables),
		T(test_reserved_table),
		T(test_record_lines),
		T(test_prefix),
		T(test_rails_copies),
		T(test_rails_copies_follow_main),
		T(test_rails_foreign_neighbours),
		T(test_rails_one_subnet),
		T(test_rails_ipv6_siblings),
		T(test_rails_configured_gateway),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
