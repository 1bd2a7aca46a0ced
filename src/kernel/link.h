/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The links and addresses of the kernel as ib-hook sees them: plain data
 * shared by the seam (kernel.h), which reads them, and the engine above it,
 * which plans from them (model.h).
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "ip.h"

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
