// SPDX-License-Identifier: GPL-2.0-or-later
/* The real kernel behind kernel.h: rtnetlink and the RDMA netlink (netlink.c), /proc/sys and sysfs (sysctl.c). */
#include <errno.h>
#include <stdlib.h>

#include "build-config.h"
#include "kernel.h"
#include "cm.h"
#include "netlink.h"
#include "sysctl.h"
#include "uevent.h"

struct ibh_kernel {
	struct ibh_nl *nl;
};

static int linux_open(struct ibh_kernel **ret)
{
	struct ibh_kernel *k = calloc(1, sizeof(*k));
	int r = k ? netlink_open(&k->nl) : -ENOMEM;

	if (r < 0)
		free(k);
	else
		*ret = k;
	return r;
}

static void linux_close(struct ibh_kernel *k)
{
	if (!k)
		return;
	netlink_close(k->nl);
	free(k);
}

static uint32_t linux_port(const struct ibh_kernel *k)
{
	return netlink_port(k->nl);
}

static int linux_netns(struct ibh_kernel *k, struct ibh_netns *ret)
{
	struct ibh_netns ns = {};
	int r;

	r = netlink_netns_cookie(k->nl, &ns.cookie);
	if (r < 0 && r != -ENOPROTOOPT)
		return r;
	/* only without the cookie: a root without /proc (a chroot) has none */
	if (!ns.cookie) {
		r = netlink_netns_inode(&ns.dev, &ns.ino);
		if (r < 0)
			return r;
	}
	*ret = ns;
	return 0;
}

static int linux_get_link(struct ibh_kernel *k, const char *name, struct ibh_link *ret)
{
	return netlink_get_link(k->nl, name, ret);
}

static int linux_get_link_by_index(struct ibh_kernel *k, int ifindex, struct ibh_link *ret)
{
	return netlink_get_link_by_index(k->nl, ifindex, ret);
}

static int linux_dump_links(struct ibh_kernel *k, struct ibh_link **ret, size_t *n_ret)
{
	return netlink_dump_links(k->nl, ret, n_ret);
}

static int linux_dump_addrs(struct ibh_kernel *k, int ifindex, struct ibh_addr_entry **ret,
			    size_t *n_ret)
{
	return netlink_dump_addrs(k->nl, ifindex, ret, n_ret);
}

static int linux_dump_rules(struct ibh_kernel *k, struct ibh_rule **ret, size_t *n_ret,
			    bool *ret_protocol)
{
	return netlink_dump_rules(k->nl, ret, n_ret, ret_protocol);
}

static int linux_dump_table(struct ibh_kernel *k, uint32_t table, int oif, struct ibh_route **ret,
			    size_t *n_ret)
{
	return netlink_dump_table(k->nl, table, oif, ret, n_ret);
}

static int linux_fib_match(struct ibh_kernel *k, const struct ibh_ip *dst, int oif,
			   struct ibh_route *ret)
{
	return netlink_fib_match(k->nl, dst, oif, ret);
}

static int linux_route_add(struct ibh_kernel *k, const struct ibh_route *r)
{
	return netlink_route_add(k->nl, r);
}

static int linux_route_del(struct ibh_kernel *k, const struct ibh_route *r)
{
	return netlink_route_del(k->nl, r);
}

static int linux_rule_add(struct ibh_kernel *k, const struct ibh_rule *r)
{
	return netlink_rule_add(k->nl, r);
}

static int linux_rule_del(struct ibh_kernel *k, const struct ibh_rule *r)
{
	return netlink_rule_del(k->nl, r);
}

static int linux_neigh_flush(struct ibh_kernel *k, int ifindex)
{
	return netlink_neigh_flush(k->nl, ifindex);
}

static int linux_dump_neigh(struct ibh_kernel *k, struct ibh_neigh **ret, size_t *n_ret)
{
	return netlink_neigh_dump(k->nl, ret, n_ret);
}

static int linux_neigh_del(struct ibh_kernel *k, int ifindex, const struct ibh_ip *dst)
{
	return netlink_neigh_del(k->nl, ifindex, dst);
}

static int linux_route_get(struct ibh_kernel *k, const struct ibh_ip *dst, const struct ibh_ip *src,
			   struct ibh_route *ret)
{
	return netlink_route_get(k->nl, dst, src, ret);
}

static int linux_route_get_bound(struct ibh_kernel *k, const struct ibh_ip *dst,
				 const struct ibh_ip *src, int oif, struct ibh_route *ret)
{
	return netlink_route_get_bound(k->nl, dst, src, oif, ret);
}

const struct ibh_kernel_ops kernel_linux = {
	.state_dir = RUNSTATEDIR "/ib-hook",
	.open = linux_open,
	.close = linux_close,
	.port = linux_port,
	.netns = linux_netns,
	.get_link = linux_get_link,
	.get_link_by_index = linux_get_link_by_index,
	.dump_links = linux_dump_links,
	.dump_addrs = linux_dump_addrs,
	.dump_rules = linux_dump_rules,
	.dump_table = linux_dump_table,
	.fib_match = linux_fib_match,
	.route_add = linux_route_add,
	.route_del = linux_route_del,
	.rule_add = linux_rule_add,
	.rule_del = linux_rule_del,
	.neigh_flush = linux_neigh_flush,
	.dump_neigh = linux_dump_neigh,
	.neigh_del = linux_neigh_del,
	.rdma_ports = netlink_rdma_ports,
	.sysctl_read = sysctl_read,
	.sysctl_write = sysctl_write,
	.netdev_read = netdev_attr_read,
	.netdev_write = netdev_attr_write,
	.netdev_exists = netdev_attr_exists,
	.route_get = linux_route_get,
	.route_get_bound = linux_route_get_bound,
	.conf_read = sysctl_read_name,
	.rdma_port_read = rdma_port_attr_read,
	.cm_resolve = cm_resolve,
	.cm_resolve_all = cm_resolve_all,
	.rdma_monitor_open = uevent_open,
	.rdma_monitor_read = uevent_read,
	.monitor_open = netlink_monitor_open,
	.monitor_close = netlink_monitor_close,
	.monitor_fd = netlink_monitor_fd,
	.monitor_read = netlink_monitor_read,
};

const struct ibh_kernel_ops *kernel = &kernel_linux;
