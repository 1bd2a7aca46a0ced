/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet view (SPEC 10): the ports of every host (step 1, --inventory),
 * what each host found towards every other host's addresses (step 2,
 * --check --fleet), and the join of both into a matrix of directed port
 * pairs, each ok or with one cause placed at a host and port (step 3,
 * --join). The join is a pure function of the documents: no I/O, so that it
 * is unit-tested and any host, or a laptop, can run it.
 */
#pragma once

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ip.h"

struct json;

/*
 * Every size here is at least what the writer of the documents can write
 * (issue 38): a host name of HOST_NAME_MAX bytes (gethostname), an RDMA
 * device name of IB_DEVICE_NAME_MAX - 1, a hardware address of the kernel's
 * MAX_ADDR_LEN (32 bytes: 95 characters), the ARP answers arp.c keeps. A
 * port's addresses have no limit: as many as it holds.
 */
#define FLEET_NAME_MAX	  (HOST_NAME_MAX + 1)
#define FLEET_DEV_MAX	  64 /* IB_DEVICE_NAME_MAX */
#define FLEET_ANSWERS_MAX 4
#define FLEET_HWADDR_MAX  (3 * 32) /* MAX_ADDR_LEN bytes as aa:bb:...; IPoIB's 20: 59 */
#define FLEET_STATE_MAX	  64	   /* an RDMA port's state as sysfs says it */

/* one address of a port, with its prefix length */
struct fleet_addr {
	struct ibh_ip ip;
	/* a RoCE port holds a GID for it (RDMA needs one for each address) */
	bool gid;
	/* the port's host said, checking, that the port no longer holds it: the inventory is stale */
	bool stale;
	/* the join (issue 39): the address's number among the fleet's distinct addresses */
	uint32_t id;
	/* another port the inventory lists with the same address, +1 (0: none) */
	size_t conflict;
	/* its host's routes from it to the fleet (classes, longest prefix first), facts.c */
	struct fleet_class *classes;
	size_t n_classes, cap_classes;
	/* what RDMA CM answered from it to most peers (version 1), facts.c */
	struct fleet_cm_value *cms;
	size_t n_cms, cap_cms;
	/* how many exact facts (facts.c) have it as source, and as destination */
	uint32_t n_exact_from;
	/* the classes came from a version-1 answer (every pair asked) */
	bool v1;
};

/* what RDMA CM answered for a pair (strings interned: fleet.strings) */
struct fleet_cm_value {
	uint8_t cm; /* enum fleet_cm */
	uint32_t dev, error, port;
	size_t count;
};

/* a route from one address of a host to every peer of a prefix (answer version 2's class) */
struct fleet_class {
	struct ibh_ip peers; /* a prefix, or a whole address; len 0: the rest */
	bool route;	     /* the kernel had one */
	char route_dev[IF_NAMESIZE];
	uint32_t route_table;
	struct ibh_ip route_via;
	size_t count;	 /* version 1: how many peers the host's answer sent this way */
	size_t dev_port; /* the port route_dev names on the host, or SIZE_MAX */
	/*
	 * route_bound of answer version 2: 1 when a lookup bound to the source's
	 * own port finds a route through it, 0 when not, -1 unknown (version 1,
	 * or a kernel without RTM_F_FIB_MATCH)
	 */
	int8_t bound;
	/*
	 * Past 32 peers RDMA CM is asked for one peer of the class (answer
	 * version 2). Where it resolved that one through another device or port
	 * than the source port's, so does every peer the class routes the same
	 * way: cm is that answer, cm_peer the peer asked. A peer that does not
	 * resolve is its own (its ARP), never the class's.
	 */
	bool cm_wrong;
	struct ibh_ip cm_peer;
	struct fleet_cm_value cm;
};


/* a neighbour entry of a host for a fleet address, with another port's hardware address */
struct fleet_neigh {
	uint32_t peer;		/* address id */
	uint32_t lladdr, state; /* interned */
};

/* one port of one host, as its --inventory says */
struct fleet_port {
	char host[FLEET_NAME_MAX];
	char ifname[IF_NAMESIZE];
	char hwaddr[FLEET_HWADDR_MAX];
	bool up;
	struct fleet_addr *addrs; /* its own allocation: fleet_free */
	size_t n_addrs;
	/* a rule sends traffic from every address to a table of its own (ib-hook applied) */
	bool routed;
	/* effective IPv4 settings, -1 unknown */
	int arp_ignore, arp_filter, rp_filter, accept_local;
	/* its host's configuration sets AcceptLocal: pairs from the host's other ports are judged */
	bool local_delivery;
	bool rdma;
	char rdma_dev[FLEET_DEV_MAX];
	uint32_t rdma_port;
	char rdma_state[FLEET_STATE_MAX];
	/* a RoCE port (link layer Ethernet): RDMA needs a GID for each address (addrs[i].gid) */
	bool roce;
	/* its probes in fleet.probes: contiguous, by destination port (fleet_add_probes) */
	size_t probes_first, n_probes;
	/* its host's ports: ports[host_first] on, host_n of them (fleet_index) */
	size_t host_first, host_n;
	/* some port of its host is routed by ib-hook (fleet_index) */
	bool host_routed;
	/* its host's answers (step 2) were read */
	bool reported;
	/* another port with this hardware address, +1 (0: none); the address interned (facts.c) */
	size_t hw_conflict;
	uint32_t hw_id;
	/* the host's neighbour entries of fleet addresses that name a wrong port (answer v2) */
	struct fleet_neigh *neigh;
	size_t n_neigh;
	/* the host of the port: its number, by the order of the ports */
	size_t host_index;
	/* its host's rack or group, as the inventory says ("group"; optional): the page folds by it */
	char group[64];
};

enum fleet_cm {
	FLEET_CM_NOT_ASKED,
	FLEET_CM_RESOLVED,
	FLEET_CM_FAILED,
};

/* what the source host found for one pair of addresses (step 2) */
struct fleet_probe {
	size_t from, to; /* ports */
	struct ibh_ip src, dst;
	bool route; /* the kernel has a route from src to dst */
	char route_dev[IF_NAMESIZE];
	uint32_t route_table;
	struct ibh_ip route_via; /* its gateway; family 0: none (or an earlier ib-hook's answer) */
	/* dst is in src's prefix: ARP asks for dst itself (else for a gateway: not probed) */
	bool onlink;
	bool probed; /* an ARP request went out (IPv4, on link, port up) */
	/* the hardware addresses that answered that request, in order */
	char answers[FLEET_ANSWERS_MAX][FLEET_HWADDR_MAX];
	size_t n_answers;
	/* what RDMA CM answered from src to dst, asked where the source port has an RDMA device */
	enum fleet_cm cm;
	char cm_dev[FLEET_DEV_MAX]; /* the device and port it resolved to */
	uint32_t cm_port;
	char cm_error[128]; /* why it did not */
};

struct fleet {
	struct fleet_port *ports;
	size_t n_ports, cap_ports;
	struct fleet_probe *probes;
	size_t n_probes, cap_probes;
	/* hosts whose step 2 was read */
	char (*reported)[FLEET_NAME_MAX];
	size_t n_reported, cap_reported;
	/* hosts whose inventory lists no port: nothing of them can be judged */
	char (*portless)[FLEET_NAME_MAX];
	size_t n_portless, cap_portless;
	/* the ports by host and name, and by hardware address (fleet_index): n_indexed of them */
	const struct fleet_port **by_name, **by_hwaddr;
	size_t n_indexed;
	/* the join (issue 39, facts.c): what the answers said, by port and address */
	struct fleet_facts *facts;
	size_t n_hosts;
};

/* the verdicts and causes of a cell, one table (fleet.c) */
enum fleet_cause {
	FLEET_OK,
	FLEET_LOCAL,
	FLEET_UNKNOWN,
	FLEET_STALE,
	FLEET_PORT_DOWN,
	FLEET_NO_GID,
	FLEET_NO_ROUTE,
	FLEET_NOT_APPLIED,
	FLEET_NO_RULE,
	FLEET_WRONG_PORT,
	FLEET_RP_FILTER,
	FLEET_ARP_FLUX,
	FLEET_NO_ANSWER,
	FLEET_LOCAL_DROPPED,
	FLEET_UNRESOLVED,
	FLEET_ADDRESS_CONFLICT,
	FLEET_HWADDR_CONFLICT,
	FLEET_NEIGH_STALE,
	FLEET_CAUSE_MAX,
};

/* a verdict or cause: its word, what it means, its colour on the HTML page */
struct fleet_cause_info {
	enum fleet_cause cause;
	const char *word;
	const char *meaning;
	const char *colour;
};
/* every verdict, then the causes in the order they are looked for */
extern const struct fleet_cause_info fleet_causes[FLEET_CAUSE_MAX];

/* one directed port pair: its verdict, and where its cause lies */
struct fleet_cell {
	enum fleet_cause cause;
	size_t at; /* a port */
	/* the pair's ARP verdict: 0 none, 1 by its own probe, 2 derived from another host's */
	int arp;
	/*
	 * unknown because a host sent no answers: that host's first port + 1 (0:
	 * not so); not_probed: it was to ask the destination's address (issue 47),
	 * else the pair is its own
	 */
	size_t missing;
	bool not_probed;
	char why[256];
};

const char *fleet_cause_word(enum fleet_cause c);
/* everything, the answers' facts included (facts.c: the floor that reads the answers) */
void fleet_free(struct fleet *f);
/* what the inventory and the probes hold, not the facts: fleet_free() frees those first */
void fleet_free_ports(struct fleet *f);
/* the ports of one --inventory document; -EINVAL when it is not one, -EEXIST for a host twice */
int fleet_add_inventory(struct fleet *f, const struct json *doc);
/* the ports by host name, as people sort them (n2 before n10); before any probe is added */
int fleet_sort(struct fleet *f);
/* the probes of one --check --fleet document; -EINVAL when it is not one */
int fleet_add_probes(struct fleet *f, const struct json *doc);
/* the look-ups by name and hardware address, and each port's host: after the inventory; -ENOMEM */
int fleet_index(struct fleet *f);
/* the port of host and ifname, or -ENOENT */
int fleet_port_find(const struct fleet *f, const char *host, const char *ifname, size_t *ret);
/* every JSON document of text, in turn, to add (fleet_add_*): -EINVAL names the byte */
int fleet_read(struct fleet *f, const char *text, int (*add)(struct fleet *, const struct json *),
	       size_t *ret_error);
/*
 * The verdict of the pair from port from to port to; why: also the text of
 * its cause (else ret->why is left empty, for speed)
 */
void fleet_judge_pair(const struct fleet *f, size_t from, size_t to, bool why,
		      struct fleet_cell *ret);
/* the verdict of the pair from port from to port to, with its why */
void fleet_judge(const struct fleet *f, size_t from, size_t to, struct fleet_cell *ret);
/*
 * The answers of --check --fleet (version 1 or 2, mixed) streamed from in,
 * one document after another: -EINVAL (*ret_error the byte), -EEXIST a host twice
 */
int fleet_read_answers(struct fleet *f, FILE *in, size_t *ret_error);
/* the inventory streamed from in, one document after another */
int fleet_read_inventory(struct fleet *f, FILE *in, size_t *ret_error);
