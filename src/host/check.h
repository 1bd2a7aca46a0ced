/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cm.h"
#include "gid.h"
#include "model.h"

struct ibh_addr_entry;
struct ibh_config;

enum ibh_check_verdict {
	IBH_CHECK_OK,
	IBH_CHECK_LINK_DOWN,
	IBH_CHECK_NO_ROUTE,
	IBH_CHECK_WRONG_PORT,
	IBH_CHECK_ARP_FLUX,
	IBH_CHECK_ARP_OFF,
	IBH_CHECK_PORT_DOWN,
	IBH_CHECK_NO_GID,
	IBH_CHECK_LINK_LOCAL_GIDS,
	IBH_CHECK_NO_ROCE_V2,
	IBH_CHECK_NO_LID,
	IBH_CHECK_UNRESOLVED,
	IBH_CHECK_UNKNOWN,
	IBH_CHECK_LOCAL,
	IBH_CHECK_LOCAL_DROPPED,
};

/* one (address, peer) pair: what was found, then the verdict */
struct ibh_check_line {
	char ifname[IF_NAMESIZE];
	int ifindex;
	bool up;
	struct ibh_ip addr, peer;
	bool peer_given;
	/* no peer given and addr's prefix holds no other address: no route to ask about */
	bool no_probe;
	/* the route from addr to peer: route_r < 0 when there is none */
	int route_r;
	int route_oif;
	char route_dev[IF_NAMESIZE];
	/*
	 * The peer is one of the host's own addresses (a local route): on the
	 * link local_dev (ifindex local_ifindex, 0: no link holds it), whose
	 * effective accept_local and arp_filter decide whether ARP between the
	 * two ports is answered (-1 unknown)
	 */
	bool local;
	int local_ifindex;
	char local_dev[IF_NAMESIZE];
	int local_accept, local_arp_filter;
	/* IPv4: the effective ARP settings, -1 unknown */
	int arp_ignore, arp_announce, arp_filter;
	/* the port's RDMA port, when it is one */
	bool rdma;
	char rdma_dev[64];
	uint32_t rdma_port;
	char state[32];	     /* "4: ACTIVE", as sysfs says it */
	char link_layer[16]; /* "Ethernet" (RoCE) or "InfiniBand" */
	struct ibh_gid gid;  /* RoCE: addr's entry in the GID table (index -1: none) */
	unsigned int lid;    /* 0 with lid_r < 0: could not be read */
	int lid_r;
	/* RDMA CM: 0 resolved; 1 not asked (no peer, no RDMA port); -ENOSYS no librdmacm */
	int cm_r;
	struct ibh_cm_result cm;
	enum ibh_check_verdict verdict;
	char why[256];
};

/* the verdict from what was found: the first problem, worst first */
void check_judge(struct ibh_check_line *l);
const char *check_verdict_word(enum ibh_check_verdict v);
/* the verdict counts as passing: ok, or a local peer that the host reaches */
bool check_verdict_passes(enum ibh_check_verdict v);
/*
 * The address --check probes for a without a peer given: the peer of a
 * peer address, else an address inside a's prefix that is none of the
 * host's (all), nor its network's or broadcast address. -ENOENT when the
 * prefix holds no other address (a /32 or /128 without a peer).
 */
int check_probe(const struct ibh_addr *a, const struct ibh_addr_entry *all, size_t n_all,
		struct ibh_ip *ret);
/*
 * The GID that RoCE port port of dev holds for addr on netdev ifname
 * (gid_find() over sysfs): a RoCE v2 one where there are twins; -ENOENT
 * when it holds none
 */
int check_gid(const char *dev, uint32_t port, const char *ifname, const struct ibh_ip *addr,
	      struct ibh_gid *ret);
/* the value the kernel uses: the larger of conf/all and conf/X, or either for a flag; -1 unknown */
int check_conf_effective(const char *ifname, const char *key, bool or);
/*
 * Checks every managed address (or those of ifnames) against each peer,
 * else against a probe address in its prefix; prints one line each (or one
 * JSON document). 0 when every line is ok, 1 when one is not, negative errno
 * when the kernel could not be asked
 */
int check_run(const struct ibh_config *c, const char *const *ifnames, size_t n_ifnames,
	      const struct ibh_ip *peers, size_t n_peers, bool json, FILE *out);
