/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An RDMA port's GID table, as sysfs shows it under
 * /sys/class/infiniband/DEV/ports/N/: gids/I (the GID, 8 groups of 4 hex
 * digits, all zero for an empty slot), gid_attrs/types/I ("RoCE v2" or
 * "IB/RoCE v1") and gid_attrs/ndevs/I (the netdev a RoCE GID was made from).
 * A RoCE port holds one entry per address of its netdev and type (an IPv4
 * address as ::ffff:a.b.c.d), plus the link-local one made from the MAC.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ibh_ip;

enum ibh_gid_type {
	IBH_GID_UNKNOWN, /* no gid_attrs/types (kernels before 4.9), or unreadable */
	IBH_GID_IB,
	IBH_GID_ROCE_V1,
	IBH_GID_ROCE_V2,
};

/* what a port's GID table holds for one address */
struct ibh_gid {
	int index; /* -1: no entry */
	enum ibh_gid_type type;
	/* the table's entries that are not empty, as far as it was read, and the non-link-local ones */
	unsigned int entries, global;
};

/* reads ATTR ("gids/3") of port PORT of DEV: its first line, or -errno (-ENOENT past the table) */
typedef int (*ibh_port_reader)(const char *dev, uint32_t port, const char *attr, char *buf,
			       size_t size);

/* sysfs's text of a GID into its 16 bytes; -EINVAL when it is none */
int gid_parse(const char *text, uint8_t ret[16]);
/* gid_attrs/types/I's text; "IB/RoCE v1" is RoCE v1 on an Ethernet port (roce), else IB */
enum ibh_gid_type gid_type_parse(const char *text, bool roce);
/* "RoCE v2", "RoCE v1", "IB", or "unknown" */
const char *gid_type_name(enum ibh_gid_type t);
/* the GID a RoCE port holds for addr: IPv4 mapped into IPv6, or the IPv6 address */
void gid_of(const struct ibh_ip *addr, uint8_t ret[16]);
/*
 * The entry of RoCE port PORT of DEV for addr on netdev ifname: the RoCE v2
 * one where there are twins (RDMA CM's default type), else the first. The
 * read stops at the RoCE v2 entry; only a table without one is read to its
 * end, and then ret->global == 0 with ret->entries > 0 says that the port
 * holds link-local GIDs only. -ENOENT (ret filled, index -1) when no entry
 * is addr's; another -errno when gids/0 cannot be read.
 */
int gid_find(ibh_port_reader read, const char *dev, uint32_t port, const char *ifname,
	     const struct ibh_ip *addr, struct ibh_gid *ret);
