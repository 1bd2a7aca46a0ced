// SPDX-License-Identifier: GPL-2.0-or-later
#include <fnmatch.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "select.h"

bool link_is_managed(const struct ibh_config *c, const struct ibh_link *l)
{
	char path[96];

	if (l->type == ARPHRD_LOOPBACK)
		return false;
	if (c->n_globs > 0) {
		for (size_t i = 0; i < c->n_globs; i++)
			if (fnmatch(c->globs[i], l->name, 0) == 0)
				return true;
		return false;
	}
	if (l->type == ARPHRD_INFINIBAND)
		return true;
	/* RoCE: an Ethernet port whose PCI function also carries an RDMA device */
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/infiniband", l->name);
	return l->type == ARPHRD_ETHER && access(path, F_OK) == 0;
}
