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

#include "array.h"
#include "gid.h"
#include "link.h"
#include "route.h"
#include "rule.h"

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
	/* one of them, by kind: a part of the record holds thousands of entries */
	union {
		struct ibh_rule rule;	/* RULE */
		struct ibh_route route; /* ROUTE, MAIN */
	};
	/* set by observe: no current interface and configuration wants it */
	bool leftover;
};

/*
 * An address of this namespace that vouches for its record where the
 * record's name cannot (no netns cookie, record.c): link, address and when
 * the kernel added it
 */
struct ibh_witness {
	int ifindex;
	struct ibh_ip ip;
	uint32_t created;
};

struct ibh_record_index;

/*
 * The routes installed for one link (by ifindex) are a file of their own
 * beside the record (record.c): a run reads only the links it needs
 */
struct ibh_record_part {
	int ifindex;
	/* its entries are among the record's recs */
	bool loaded;
	/* an entry came or changed (written before the parts that only lost one) */
	bool grew;
	/* an entry came, changed or went since the file was read or written */
	bool touched;
	/* a hash of the file's text as last read or written; 0: no file */
	uint64_t hash;
	/*
	 * what its entries are about, one route entry per ifname, table and
	 * family, as the record's file says (the entries may be unloaded)
	 */
	struct ibh_rec *keys;
	size_t n_keys, cap_keys;
};

struct ibh_record {
	struct ibh_rec *recs;
	size_t n, cap;
	struct ibh_witness *wits;
	size_t n_wits, cap_wits;
	struct ibh_record_part *parts;
	size_t n_parts, cap_parts;
	/* false: no record for this namespace yet */
	bool present;
	/* read in the format before parts (0.5.0 and older): every route in the one file */
	bool one_file;
	/* the entries by the fields that name them (record.c), made when first asked */
	struct ibh_record_index *index;
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
	 * --status under MainRoute=delete, per address (NULL otherwise): an
	 * unbound lookup of its prefix finds a route in main (through any
	 * link), as a socket that binds no address (a TCP exchange to a peer)
	 * would
	 */
	bool *main_reaches;
	/*
	 * GatewayRoutes=yes: main's unicast routes through the link and through
	 * the other managed links, the ports (a gateway of theirs may lie in
	 * the link's prefix): what T copies (filtered dumps of main, by device)
	 */
	struct ibh_route *main_via;
	size_t n_main_via, cap_main_via;
	struct index_set ports;
	/*
	 * the watcher keeps the copies (a hook run while it runs): main_via was
	 * not read, and the plan neither adds nor deletes copies
	 */
	bool copies_left;
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
	/* --status, its link layer ("Ethernet", "InfiniBand"; empty: unread) */
	char rdma_link_layer[16];
	/* --status on a RoCE port: each managed address's GID entry, as addrs (NULL otherwise) */
	struct ibh_gid *gids;
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
