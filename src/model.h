/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What ib-hook observes of the kernel and what it plans to change: plain data
 * shared by observe (observe.c), plan (plan.c) and apply (apply.c).
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ip.h"
#include "route.h"
#include "rule.h"

#define IBH_HW_MAX 32 /* the kernel's MAX_ADDR_LEN */

struct ibh_link {
	char name[IF_NAMESIZE];
	int ifindex;
	unsigned int type; /* ARPHRD_* */
	bool up;
	/* IFLA_ADDRESS and IFLA_BROADCAST, from the link's own namespace (sysfs may show another's) */
	uint8_t hw[IBH_HW_MAX], broadcast[IBH_HW_MAX];
	uint8_t hw_len, broadcast_len; /* 0: the kernel reported none */
};

/* an address of a link: local, and the prefix it routes (the peer's with `peer`) */
struct ibh_addr {
	struct ibh_ip ip;
	struct ibh_ip peer; /* family 0: no peer, the prefix is ip's */
	uint32_t metric;    /* IFA_RT_PRIORITY: the metric of the kernel's prefix route */
	bool noprefixroute; /* the kernel makes no prefix route for it (NetworkManager) */
	uint32_t created;   /* IFA_CACHEINFO cstamp: when it was added, in 1/100 s since boot */
};

/* what tells a network namespace from the others, for the name of its record */
struct ibh_netns {
	uint64_t cookie; /* SO_NETNS_COOKIE (Linux 5.14): never reused; 0 without it */
	uint64_t dev,
		ino; /* of /proc/self/ns/net: a later namespace gets the inode once it is free */
};

/* result of one interface, worst wins */
enum ibh_result {
	IBH_OK = 0,
	IBH_FAILED = 1, /* a change failed, or --status found drift */
	IBH_USAGE = 2,	/* e.g. an unknown interface asked for by name */
};

/* what a run does for a link */
enum ibh_action {
	IBH_ACTION_NONE,
	IBH_ACTION_APPLY,
	IBH_ACTION_REMOVE,
};

/* what ib-hook installed (or deleted from main), as kept under /run */
enum ibh_rec_kind {
	IBH_REC_RULE,
	IBH_REC_ROUTE,
	IBH_REC_MAIN, /* a prefix route of main that ib-hook deleted (MainRoute=delete) */
	IBH_REC_LINK, /* a link ib-hook has planned for since the record exists */
};

struct ibh_rec {
	enum ibh_rec_kind kind;
	char ifname[IF_NAMESIZE]; /* the interface it was installed for */
	int ifindex;
	struct ibh_rule rule;	/* RULE */
	struct ibh_route route; /* ROUTE, MAIN */
	/* set by observe: no current interface and configuration wants it */
	bool leftover;
};

struct ibh_record {
	struct ibh_rec *recs;
	size_t n, cap;
	/* false: no record for this namespace yet */
	bool present;
};

/* an RDMA port whose netdev is in this network namespace */
struct ibh_rdma_port {
	int ifindex;	    /* of the netdev */
	uint32_t dev_index; /* of the RDMA device */
	uint32_t port;
	char dev[64]; /* IB_DEVICE_NAME_MAX */
	char ndev[16];
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

/* an IPoIB link's mode, as /sys/class/net/X/mode says it */
enum ibh_ipoib_mode {
	IBH_IPOIB_KEEP, /* config: leave it; observed: not read or unknown */
	IBH_IPOIB_DATAGRAM,
	IBH_IPOIB_CONNECTED,
};

struct ibh_observed {
	struct ibh_link link; /* ifindex 0: the leftovers plan, about no link */
	uint32_t table;
	/* another managed link that exists and has the same table */
	char table_shared_with[IF_NAMESIZE];

	struct ibh_addr *addrs; /* with the interface's prefix length */
	size_t n_addrs;
	/* addresses of the link that a managed link with a lower index also has */
	struct ibh_ip *taken;
	size_t n_taken;
	struct ibh_rule *rules; /* every rule of the namespace, in the kernel's order */
	size_t n_rules;
	bool rule_protocol; /* the kernel reports and compares rule protocols (>= 4.17) */
	/* table T and the tables of leftover routes, in the kernel's order */
	struct ibh_route *routes;
	size_t n_routes;
	/* main's routes for the link's prefixes through the link (fib lookups) */
	bool main_known;
	struct ibh_route *main_routes;
	size_t n_main_routes, cap_main_routes;
	/*
	 * GatewayRoutes=yes: main's unicast routes through the link, and for a
	 * family the link has no gateway route of, those through the other
	 * managed links (their gateway may lie in the link's prefix): what T
	 * copies (filtered dumps of main, by device)
	 */
	struct ibh_route *main_via;
	size_t n_main_via, cap_main_via;
	/*
	 * main's routes through the link whose gateway the link does not reach
	 * (its address went, the route stayed): the kernel refuses their copies
	 */
	struct ibh_route *main_unreachable;
	size_t n_main_unreachable, cap_main_unreachable;
	const struct ibh_record *record;

	int sysctl[IBH_SYSCTL_MAX];	/* conf/X, or IBH_SYSCTL_UNKNOWN */
	int sysctl_all[IBH_SYSCTL_MAX]; /* conf/all */
	/* InfiniBand links, when [IPoIB] asks for them: 0 (KEEP) when not read */
	enum ibh_ipoib_mode ipoib_mode;
	uint32_t mtu;
	/* the RDMA port whose netdev the link is (dev[0] 0: none, or not asked) */
	struct ibh_rdma_port rdma;
};

enum ibh_op_kind {
	IBH_OP_ROUTE_ADD,
	IBH_OP_ROUTE_DEL,
	IBH_OP_RULE_ADD,
	IBH_OP_RULE_DEL,
	IBH_OP_MAIN_DEL,
	IBH_OP_MAIN_RESTORE,
	IBH_OP_ADOPT,  /* an object 0.1.0 installed (no record): only the record changes */
	IBH_OP_FORGET, /* a recorded object that is gone already: only the record changes */
	/*
	 * ib-hook's object, recorded for a link since deleted or renamed, exactly
	 * as the planned link wants it: only the record changes, it is that link's now
	 */
	IBH_OP_TRANSFER,
	IBH_OP_SYSCTL,
	IBH_OP_NEIGH_FLUSH,
	IBH_OP_IPOIB_MODE, /* /sys/class/net/X/mode */
	IBH_OP_MTU,
};

struct ibh_op {
	enum ibh_op_kind kind;
	union {
		struct ibh_route route; /* ROUTE_*, MAIN_* */
		struct ibh_rule rule;	/* RULE_* */
		struct {
			enum ibh_sysctl key;
			int value;
		} sysctl;
		enum ibh_ipoib_mode mode; /* IPOIB_MODE */
		uint32_t mtu;		  /* MTU */
	};
	/* the record entry the op adds (ADD, MAIN_DEL) or takes back (the others) */
	struct ibh_rec rec;
	/* the link the op acts for: the planned one, or a leftover's */
	char ifname[IF_NAMESIZE];
	int ifindex;
};

struct ibh_plan {
	struct ibh_op *ops;
	size_t n_ops;
	size_t cap;
	/* the interface is refused: error (negative errno) and why */
	int refused;
	char why[320];
};

void observed_clear(struct ibh_observed *o);
void record_clear(struct ibh_record *r);
void plan_clear(struct ibh_plan *p);
