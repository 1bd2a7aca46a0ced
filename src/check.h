/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cm.h"
#include "model.h"

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
	IBH_CHECK_NO_LID,
	IBH_CHECK_UNRESOLVED,
};

/* one (address, peer) pair: what was found, then the verdict */
struct ibh_check_line {
	char ifname[IF_NAMESIZE];
	int ifindex;
	bool up;
	struct ibh_ip addr, peer;
	bool peer_given;
	/* the route from addr to peer: route_r < 0 when there is none */
	int route_r;
	int route_oif;
	char route_dev[IF_NAMESIZE];
	/* IPv4: the effective ARP settings, -1 unknown */
	int arp_ignore, arp_announce, arp_filter;
	/* the port's RDMA port, when it is one */
	bool rdma;
	char rdma_dev[64];
	uint32_t rdma_port;
	char state[32];	     /* "4: ACTIVE", as sysfs says it */
	char link_layer[16]; /* "Ethernet" (RoCE) or "InfiniBand" */
	int gid_index;	     /* -1: no GID for addr */
	char gid_type[24];
	unsigned int lid;
	/* RDMA CM: 0 resolved; 1 not asked (no peer, no RDMA port); -ENOSYS no librdmacm */
	int cm_r;
	struct ibh_cm_result cm;
	enum ibh_check_verdict verdict;
	char why[256];
};

/* the verdict from what was found: the first problem, worst first */
void check_judge(struct ibh_check_line *l);
const char *check_verdict_word(enum ibh_check_verdict v);
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
