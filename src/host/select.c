// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fnmatch.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "kernel.h"
#include "select.h"

/*
 * The RDMA ports of this namespace, asked for at most once per run and only
 * when a link's type and the config globs do not decide already, so that a
 * hook run for an unmanaged link costs a few syscalls more at most.
 */
static struct {
	bool asked;
	int error; /* < 0: the RDMA netlink could not be asked */
	struct ibh_rdma_port *ports;
	size_t n_ports;
} rdma;

static void rdma_ask(void)
{
	if (rdma.asked)
		return;
	rdma.asked = true;
	rdma.error = kernel->rdma_ports(&rdma.ports, &rdma.n_ports);
}

const struct ibh_rdma_port *select_rdma_port(int ifindex)
{
	rdma_ask();
	for (size_t i = 0; rdma.error == 0 && i < rdma.n_ports; i++)
		if (rdma.ports[i].ifindex == ifindex)
			return &rdma.ports[i];
	return NULL;
}

bool select_rdma_decides(int error, const struct ibh_rdma_port *ports, size_t n_ports)
{
	if (error == -EPROTONOSUPPORT)
		return true; /* no RDMA subsystem: no RDMA port */
	if (error < 0)
		return false;
	/* a port without its netdev: before 4.18 the kernel names none */
	for (size_t i = 0; i < n_ports; i++)
		if (ports[i].ifindex == 0)
			return false;
	return true;
}

bool select_rdma_any(void)
{
	rdma_ask();
	for (size_t i = 0; rdma.error == 0 && i < rdma.n_ports; i++)
		if (rdma.ports[i].ifindex)
			return true;
	return false;
}

void select_forget(void)
{
	free(rdma.ports);
	memset(&rdma, 0, sizeof(rdma));
}

bool link_is_managed(const struct ibh_config *c, const struct ibh_link *l)
{
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
	/* the netdev of an RDMA port: RoCE (mlx5, rxe), iWARP (siw, cxgb4), ... */
	if (select_rdma_port(l->ifindex))
		return true;
	if (select_rdma_decides(rdma.error, rdma.ports, rdma.n_ports))
		return false;
	/* the RDMA netlink failed or was not told (old kernel, seccomp): sysfs knows hardware RoCE */
	return l->type == ARPHRD_ETHER && kernel->netdev_exists(l->name, "device/infiniband");
}

/* "PREFIXglob1 glob2...SUFFIX": the [Match] Name= globs in a message */
static void globs_text(const struct ibh_config *c, char *buf, size_t size, const char *prefix,
		       const char *suffix)
{
	size_t len;

	snprintf(buf, size, "%s", prefix);
	for (size_t i = 0; i < c->n_globs; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? " " : "", c->globs[i]);
	}
	len = strlen(buf);
	snprintf(buf + len, size - len, "%s", suffix);
}

void select_none_why(const struct ibh_config *c, char *buf, size_t size)
{
	if (c->n_globs == 0)
		snprintf(buf, size,
			 "no InfiniBand link and no network device of an RDMA port "
			 "(the default selection; is the driver loaded?)");
	else
		globs_text(c, buf, size, "no link matches [Match] Name=", "");
}

void select_unmanaged_why(const struct ibh_config *c, char *buf, size_t size)
{
	if (c->n_globs == 0)
		snprintf(buf, size,
			 "not managed: neither InfiniBand nor the network device of an RDMA port");
	else
		globs_text(c, buf, size,
			   "not managed: no [Match] Name= glob matches it (Name=", ")");
}
