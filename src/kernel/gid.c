// SPDX-License-Identifier: GPL-2.0-or-later
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "gid.h"
#include "ip.h"

/* a GID table's size on the kernels ib-hook knows (rxe: 1024); sysfs ends the table first */
#define GID_TABLE_MAX 4096

static const char *const type_names[] = {
	[IBH_GID_UNKNOWN] = "unknown",
	[IBH_GID_IB] = "IB",
	[IBH_GID_ROCE_V1] = "RoCE v1",
	[IBH_GID_ROCE_V2] = "RoCE v2",
};

int gid_parse(const char *text, uint8_t ret[16])
{
	struct in6_addr a;

	/* inet_pton() takes the 8 groups sysfs writes, and the short forms it never writes */
	if (inet_pton(AF_INET6, text, &a) != 1)
		return -EINVAL;
	memcpy(ret, a.s6_addr, 16);
	return 0;
}

enum ibh_gid_type gid_type_parse(const char *text, bool roce)
{
	if (strcmp(text, "RoCE v2") == 0)
		return IBH_GID_ROCE_V2;
	if (strcmp(text, "IB/RoCE v1") == 0)
		return roce ? IBH_GID_ROCE_V1 : IBH_GID_IB;
	return IBH_GID_UNKNOWN;
}

const char *gid_type_name(enum ibh_gid_type t)
{
	return type_names[t];
}

void gid_of(const struct ibh_ip *addr, uint8_t ret[16])
{
	memset(ret, 0, 16);
	if (addr->family == AF_INET) {
		ret[10] = ret[11] = 0xff;
		memcpy(ret + 12, addr->a, 4);
	} else
		memcpy(ret, addr->a, 16);
}

/* ATTR/I of the port: read's answer */
static int read_at(ibh_port_reader read, const char *dev, uint32_t port, const char *attr, int i,
		   char *buf, size_t size)
{
	char name[48];

	snprintf(name, sizeof(name), "%s/%d", attr, i);
	return read(dev, port, name, buf, size);
}

int gid_find(ibh_port_reader read, const char *dev, uint32_t port, const char *ifname,
	     const struct ibh_ip *addr, struct ibh_gid *ret)
{
	static const uint8_t zero[16];
	uint8_t want[16];

	*ret = (struct ibh_gid){ .index = -1 };
	gid_of(addr, want);
	for (int i = 0; i < GID_TABLE_MAX; i++) {
		char text[64], ndev[IF_NAMESIZE + 1], type[24];
		uint8_t g[16];
		int r = read_at(read, dev, port, "gids", i, text, sizeof(text));

		/* a slot whose entry went is all zero, and later ones stay: only the end ends it */
		if (r == -ENOENT)
			break;
		if (r < 0 && i == 0)
			return r;
		if (r < 0 || gid_parse(text, g) < 0 || memcmp(g, zero, 16) == 0)
			continue;
		ret->entries++;
		ret->global += !IPV6_LINK_LOCAL(g);
		if (memcmp(g, want, 16) != 0)
			continue;
		/* a RoCE GID belongs to the netdev it was made from (a VLAN's is the VLAN's) */
		if (read_at(read, dev, port, "gid_attrs/ndevs", i, ndev, sizeof(ndev)) == 0 &&
		    strcmp(ndev, ifname) != 0)
			continue;
		if (read_at(read, dev, port, "gid_attrs/types", i, type, sizeof(type)) < 0)
			type[0] = '\0';
		/* RoCE v1 and v2 entries come in twins: RDMA CM uses v2, so only v1 looks on */
		if (ret->index < 0 || gid_type_parse(type, true) == IBH_GID_ROCE_V2) {
			ret->index = i;
			ret->type = gid_type_parse(type, true);
		}
		if (ret->type != IBH_GID_ROCE_V1)
			return 0;
	}
	return ret->index >= 0 ? 0 : -ENOENT;
}
