/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A stand-in for the kernel behind kernel.h (tests/unit only): links,
 * addresses, rules and routes in memory, answering as Linux does where
 * ib-hook depends on it (EEXIST on add, EINVAL for a source address no link
 * has, ENODEV for a link that is gone, the kernel's prefix routes in main).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"
#include "route.h"
#include "rule.h"

enum fake_call {
	FAKE_ROUTE_ADD,
	FAKE_ROUTE_DEL,
	FAKE_RULE_ADD,
	FAKE_RULE_DEL,
};

struct fake_kernel {
	struct ibh_link links[8];
	size_t n_links;
	struct ibh_addr_entry addrs[32];
	size_t n_addrs;
	struct ibh_rule rules[64];
	size_t n_rules;
	struct ibh_route routes[128]; /* every table, main included */
	size_t n_routes;
	struct {
		char ifname[IF_NAMESIZE];
		int value[IBH_SYSCTL_MAX];
	} sysctl[8];
	size_t n_sysctl;
	struct ibh_rdma_port rdma[4];
	size_t n_rdma;
	/* the sysfs attributes of the RDMA ports ("link_layer", "gids/1"): any other is absent */
	struct {
		char attr[32];
		char value[48];
	} port_attrs[8];
	size_t n_port_attrs;
	/* called before every change the kernel is asked for; an errno < 0 fails it */
	int (*before)(enum fake_call call, int n);
	unsigned int calls[4]; /* per enum fake_call */
	char state_dir[64];
	struct ibh_netns netns; /* the cookie FAKE_COOKIE unless a test takes it away */
};

#define FAKE_COOKIE 1

extern struct fake_kernel fake;

/* a fresh kernel with a state directory of its own (removed by fake_end), in use */
void fake_begin(void);
void fake_end(void);
/* the namespace goes (without --remove) and a new one takes its place: an empty kernel, the same /run */
void fake_new_netns(void);
void fake_link(const char *name, int ifindex, bool up);
/* memserver34: ib0 (index 3) and ib1 (index 4), up, 172.16.34.1/16 and 172.16.34.2/16 */
void fake_memserver34(void);
/* the address and, as the kernel does, its prefix route in main */
void fake_addr(int ifindex, const char *cidr);
/* the link and what the kernel takes with it: addresses, routes through it */
void fake_link_del(int ifindex);
void fake_addr_del(int ifindex, const char *cidr);
void fake_rule(const char *src, unsigned int table, unsigned int priority, unsigned char protocol);
/* a route of the user's in table through ifindex: dst, metric, protocol */
void fake_route(unsigned int table, const char *dst, int ifindex, unsigned int metric,
		unsigned char protocol);
/* how many rules (routes in table) the kernel holds from src (to dst) */
size_t fake_rules_from(const char *src, unsigned int table, unsigned int priority);
size_t fake_routes_to(unsigned int table, const char *dst);
/* the record file's text, then its parts', or "" when there is none (static buffer) */
const char *fake_record(void);
/* the record file's text (PATH.routes-IFINDEX, by suffix, a part's) */
void fake_write_record(const char *text);
void fake_write_record_file(const char *suffix, const char *text);
