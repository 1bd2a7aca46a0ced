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

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ip.h"

struct json;

#define FLEET_NAME_MAX	  64
#define FLEET_ADDRS_MAX	  8
#define FLEET_ANSWERS_MAX 4
#define FLEET_HWADDR_MAX  64 /* an IPoIB address is 20 bytes: 59 characters */

/* one port of one host, as its --inventory says */
struct fleet_port {
	char host[FLEET_NAME_MAX];
	char ifname[IF_NAMESIZE];
	char hwaddr[FLEET_HWADDR_MAX];
	bool up;
	struct ibh_ip addrs[FLEET_ADDRS_MAX]; /* with their prefix length */
	size_t n_addrs;
	/* a rule sends traffic from every address to a table of its own (ib-hook applied) */
	bool routed;
	/* effective IPv4 settings, -1 unknown */
	int arp_ignore, arp_filter, rp_filter, accept_local;
	/* its host's configuration sets AcceptLocal: pairs from the host's other ports are judged */
	bool local_delivery;
	bool rdma;
	char rdma_dev[FLEET_NAME_MAX];
	uint32_t rdma_port;
	char rdma_state[32];
	/* a RoCE port (link layer Ethernet): RDMA needs a GID for each address, gid[i] for addrs[i] */
	bool roce;
	bool gid[FLEET_ADDRS_MAX];
	/* its probes in fleet.probes: contiguous, by destination port (fleet_add_probes) */
	size_t probes_first, n_probes;
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
	/* dst is in src's prefix: ARP asks for dst itself (else for a gateway: not probed) */
	bool onlink;
	bool probed; /* an ARP request went out (IPv4, on link, port up) */
	/* the hardware addresses that answered that request, in order */
	char answers[FLEET_ANSWERS_MAX][FLEET_HWADDR_MAX];
	size_t n_answers;
	/* what RDMA CM answered from src to dst, asked where the source port has an RDMA device */
	enum fleet_cm cm;
	char cm_dev[FLEET_NAME_MAX]; /* the device and port it resolved to */
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
};

/* the verdicts and causes of a cell, one table (fleet.c) */
enum fleet_cause {
	FLEET_OK,
	FLEET_LOCAL,
	FLEET_UNKNOWN,
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
	char why[256];
};

const char *fleet_cause_word(enum fleet_cause c);
void fleet_free(struct fleet *f);
/* the ports of one --inventory document; -EINVAL when it is not one, -EEXIST for a host twice */
int fleet_add_inventory(struct fleet *f, const struct json *doc);
/* the ports by host name, as people sort them (n2 before n10); before any probe is added */
int fleet_sort(struct fleet *f);
/* the probes of one --check --fleet document; -EINVAL when it is not one */
int fleet_add_probes(struct fleet *f, const struct json *doc);
/* the port of host and ifname, or -ENOENT */
int fleet_port_find(const struct fleet *f, const char *host, const char *ifname, size_t *ret);
/* every JSON document of text, in turn, to add (fleet_add_*): -EINVAL names the byte */
int fleet_read(struct fleet *f, const char *text, int (*add)(struct fleet *, const struct json *),
	       size_t *ret_error);
/* the verdict of the pair from port from to port to */
void fleet_judge(const struct fleet *f, size_t from, size_t to, struct fleet_cell *ret);
