/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What ib-hook observes of the kernel and what it plans to change: plain data
 * shared by observe (netlink.c), plan (plan.c) and apply (netlink.c).
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An address or prefix: family AF_INET or AF_INET6, len in bits. */
struct ibh_ip {
	uint8_t family;
	uint8_t len;
	uint8_t a[16];
};

struct ibh_link {
	char name[IF_NAMESIZE];
	int ifindex;
	unsigned int type; /* ARPHRD_* */
	bool up;
};

struct ibh_rule {
	struct ibh_ip src;
	uint32_t table;
	uint32_t priority;
	uint8_t protocol;
	/* "lookup T" with no selector but "from": the only shape ib-hook makes */
	bool plain;
	/* T belongs to a link that exists now (set by observe for ib-hook's rules) */
	bool live;
};

struct ibh_route {
	struct ibh_ip dst;
	struct ibh_ip src; /* family 0: no preferred source */
	int oif;
	uint32_t table;
	uint32_t metric;
	uint8_t protocol;
	uint8_t scope;
	uint8_t type;
	bool gateway; /* has a gateway or several next hops */
	/* oif is another link that ib-hook manages with another table */
	bool oif_managed;
	char oif_name[IF_NAMESIZE];
};

enum ibh_sysctl {
	IBH_SYSCTL_ARP_IGNORE,
	IBH_SYSCTL_ARP_ANNOUNCE,
	IBH_SYSCTL_RP_FILTER,
	IBH_SYSCTL_ACCEPT_LOCAL,
	IBH_SYSCTL_MAX,
};

#define IBH_SYSCTL_KEEP	   (-1)
#define IBH_SYSCTL_UNKNOWN (-2)

struct ibh_observed {
	struct ibh_link link;
	uint32_t table;

	struct ibh_ip *addrs; /* with the interface's prefix length */
	size_t n_addrs;
	struct ibh_rule *rules; /* every rule of the namespace */
	size_t n_rules;
	bool rule_protocol;	  /* the kernel reports rule protocols (>= 4.17) */
	struct ibh_route *routes; /* table T only */
	size_t n_routes;
	/* main-table routes through the link: only read by --status */
	bool main_known;
	struct ibh_route *main_routes;
	size_t n_main_routes;

	int sysctl[IBH_SYSCTL_MAX];	/* conf/X, or IBH_SYSCTL_UNKNOWN */
	int sysctl_all[IBH_SYSCTL_MAX]; /* conf/all */
};

enum ibh_op_kind {
	IBH_OP_ROUTE_REPLACE,
	IBH_OP_ROUTE_DEL,
	IBH_OP_RULE_ADD,
	IBH_OP_RULE_DEL,
	IBH_OP_MAIN_DEL,
	IBH_OP_SYSCTL,
	IBH_OP_NEIGH_FLUSH,
};

struct ibh_op {
	enum ibh_op_kind kind;
	union {
		struct ibh_route route; /* ROUTE_*, MAIN_DEL */
		struct ibh_rule rule;	/* RULE_* */
		struct {
			enum ibh_sysctl key;
			int value;
		} sysctl;
	};
	/* MAIN_DEL planned without knowing whether the route exists */
	bool maybe;
};

struct ibh_plan {
	struct ibh_op *ops;
	size_t n_ops;
	size_t cap;
	/* the interface is refused: error (negative errno) and why */
	int refused;
	char why[160];
};

void observed_clear(struct ibh_observed *o);
void plan_clear(struct ibh_plan *p);
