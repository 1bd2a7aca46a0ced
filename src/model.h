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

/* an address of a link: local, and the prefix it routes (the peer's with `peer`) */
struct ibh_addr {
	struct ibh_ip ip;
	struct ibh_ip peer; /* family 0: no peer, the prefix is ip's */
	uint32_t metric;    /* IFA_RT_PRIORITY: the metric of the kernel's prefix route */
	bool noprefixroute; /* the kernel makes no prefix route for it (NetworkManager) */
};

/*
 * A rule as the kernel reported it. Only the fields ib-hook sets are kept as
 * values; everything else is summed up in `exact` and `strict`, and in desc
 * for messages.
 */
struct ibh_rule {
	struct ibh_ip src;
	uint32_t table;
	uint32_t priority;
	uint8_t protocol;
	uint8_t action;
	/* from, lookup, priority and protocol, nothing else: the shape ib-hook makes */
	bool exact;
	/*
	 * a selector the kernel compares exactly when it looks for an existing
	 * rule on add (iif, oif, fwmark, uidrange, ...); dst, tos and `not` are
	 * wildcards there
	 */
	bool strict;
	char desc[160]; /* `ip rule` syntax, for messages */
};

struct ibh_route {
	struct ibh_ip dst;
	struct ibh_ip src; /* family 0: no preferred source */
	int oif;	   /* 0: no device (unreachable, nexthop object...) */
	uint32_t table;
	uint32_t metric;
	uint8_t protocol;
	uint8_t scope;
	uint8_t type;
	uint8_t tos;
	uint8_t pref;	/* IPv6 router preference (RTA_PREF): 0 is medium, the default */
	bool expires;	/* IPv6: the kernel deletes it when its lifetime ends */
	uint32_t flags; /* rtm_flags a user sets (onlink, pervasive, prefix), not states */
	bool gateway;	/* has a gateway or several next hops */
	/* an attribute ib-hook never sets (metrics, encap, nexthop id, flow...) */
	bool extra;
	char oif_name[IF_NAMESIZE];
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
	size_t n_main_routes;
	const struct ibh_record *record;

	int sysctl[IBH_SYSCTL_MAX];	/* conf/X, or IBH_SYSCTL_UNKNOWN */
	int sysctl_all[IBH_SYSCTL_MAX]; /* conf/all */
	/* InfiniBand links, when [IPoIB] asks for them: 0 (KEEP) when not read */
	enum ibh_ipoib_mode ipoib_mode;
	uint32_t mtu;
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
