/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one seam to the kernel: everything ib-hook asks of the kernel or tells
 * it (rtnetlink, the RDMA netlink, /proc/sys, sysfs) goes through the
 * functions of *kernel. kernel-linux.c is the real kernel; the unit tests put
 * a stand-in in its place (tests/unit/host/fake-kernel.c), as OpenWrt's netifd has
 * system-linux.c and system-dummy.c behind system.h.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "link.h"

/* one connection to the kernel's routing, for a run or the watcher's life */
struct ibh_kernel;

struct ibh_addr_entry {
	int ifindex;
	struct ibh_addr addr;
};

/* what notifications since the last read say to look at */
struct ibh_events {
	bool all;     /* events were lost, or too many links: look at everything */
	bool overrun; /* ... because the receive buffer overflowed (ENOBUFS) */
	/* look at every managed link: a rule, a route without a device, a link changed, an address went */
	bool tables_changed;
	/*
	 * routes came or went in these tables (not main, not local): the
	 * managed link whose table one is, or every one (watch.c)
	 */
	uint32_t tables[8];
	size_t n_tables;
	int ifindex[64];
	size_t n;
	unsigned long events, own; /* counted: others', and the echo of ib-hook's own */
	/* the watcher's copy of main's routes through the managed links: kept by the notifications */
	struct ibh_main_index *main;
};

/* one entry of the neighbour table (the fleet view) */
struct ibh_neigh {
	int ifindex;
	struct ibh_ip dst; /* a whole address */
	uint8_t lladdr[32]; /* MAX_ADDR_LEN */
	uint8_t lladdr_len; /* 0: none (incomplete, failed) */
	uint16_t state;	    /* NUD_* */
};

struct ibh_monitor;
struct ibh_cm_result;
struct ibh_main_index;
struct ibh_route;
struct ibh_rule;
struct ibh_cm_query;

struct ibh_kernel_ops {
	/* where the record of each network namespace lives (RUNSTATEDIR/ib-hook) */
	const char *state_dir;
	int (*open)(struct ibh_kernel **ret);
	void (*close)(struct ibh_kernel *k);
	/* the connection's netlink port: the kernel stamps the notifications of its requests */
	uint32_t (*port)(const struct ibh_kernel *k);
	/* the network namespace of the connection, for the record's file name */
	int (*netns)(struct ibh_kernel *k, struct ibh_netns *ret);

	/* -ENODEV when there is no such link */
	int (*get_link)(struct ibh_kernel *k, const char *name, struct ibh_link *ret);
	int (*get_link_by_index)(struct ibh_kernel *k, int ifindex, struct ibh_link *ret);
	int (*dump_links)(struct ibh_kernel *k, struct ibh_link **ret, size_t *n_ret);
	/* addresses of ifindex (0: of every link), IPv6 link-local ones included */
	int (*dump_addrs)(struct ibh_kernel *k, int ifindex, struct ibh_addr_entry **ret,
			  size_t *n_ret);
	/* *ret_protocol: the kernel reports rule protocols (>= 4.17) */
	int (*dump_rules)(struct ibh_kernel *k, struct ibh_rule **ret, size_t *n_ret,
			  bool *ret_protocol);
	/* the routes of one table, IPv4 and IPv6, optionally only those through oif */
	int (*dump_table)(struct ibh_kernel *k, uint32_t table, int oif, struct ibh_route **ret,
			  size_t *n_ret);
	/* the route a packet to dst leaving through oif would use; -ENOENT when none */
	int (*fib_match)(struct ibh_kernel *k, const struct ibh_ip *dst, int oif,
			 struct ibh_route *ret);
	/*
	 * 1: changed, 0: absent already on delete, < 0: -errno. -EEXIST on add
	 * says only that the kernel found something it counts as equal.
	 */
	int (*route_add)(struct ibh_kernel *k, const struct ibh_route *r);
	int (*route_del)(struct ibh_kernel *k, const struct ibh_route *r);
	int (*rule_add)(struct ibh_kernel *k, const struct ibh_rule *r);
	int (*rule_del)(struct ibh_kernel *k, const struct ibh_rule *r);
	/* 1 if some entry went, 0 if none; keeps permanent entries */
	int (*neigh_flush)(struct ibh_kernel *k, int ifindex);

	/* every neighbour entry, both families, permanent ones included */
	int (*dump_neigh)(struct ibh_kernel *k, struct ibh_neigh **ret, size_t *n_ret);
	/* the entry for dst on ifindex: 1 gone, 0 absent already */
	int (*neigh_del)(struct ibh_kernel *k, int ifindex, const struct ibh_ip *dst);

	/* every RDMA port; -EPROTONOSUPPORT without an RDMA subsystem */
	int (*rdma_ports)(struct ibh_rdma_port **ret, size_t *n_ret);
	/* net.ipv4.conf.IFNAME.KEY ("all" for conf/all): the value, or -errno */
	int (*sysctl_read)(const char *ifname, enum ibh_sysctl key);
	int (*sysctl_write)(const char *ifname, enum ibh_sysctl key, int value);
	/* /sys/class/net/IFNAME/ATTR: its first line, or -errno; exists: it is there */
	int (*netdev_read)(const char *ifname, const char *attr, char *buf, size_t size);
	int (*netdev_write)(const char *ifname, const char *attr, const char *value);
	bool (*netdev_exists)(const char *ifname, const char *attr);

	/* --check: the route from src to dst, rules included (`ip route get DST from SRC`) */
	int (*route_get)(struct ibh_kernel *k, const struct ibh_ip *dst, const struct ibh_ip *src,
			 struct ibh_route *ret);
	/*
	 * --check --fleet: the table entry the lookup from src to dst bound to
	 * oif matches (`ip route get fibmatch DST from SRC oif DEV`); -ENOENT
	 * none, another -errno (-EOPNOTSUPP: no FIB_MATCH) when the kernel cannot say
	 */
	int (*route_get_bound)(struct ibh_kernel *k, const struct ibh_ip *dst,
			       const struct ibh_ip *src, int oif, struct ibh_route *ret);
	/* net.ipv4.conf.IFNAME.NAME for a setting ib-hook does not set (arp_filter), or -errno */
	int (*conf_read)(const char *ifname, const char *name);
	/* /sys/class/infiniband/DEV/ports/PORT/ATTR ("state", "gids/3"): first line, or -errno */
	int (*rdma_port_read)(const char *dev, uint32_t port, const char *attr, char *buf,
			      size_t size);
	/* what RDMA CM resolves from src to dst (cm.h): -ENOSYS without librdmacm */
	int (*cm_resolve)(const struct ibh_ip *src, const struct ibh_ip *dst, int timeout_ms,
			  struct ibh_cm_result *ret);
	/* --check --fleet: n such questions at once (cm.h), each q[i].r its answer */
	int (*cm_resolve_all)(struct ibh_cm_query *q, size_t n, int timeout_ms);
	/* RDMA devices coming and going (uevents): a non-blocking fd, or -errno */
	int (*rdma_monitor_open)(void);
	/* drain what is pending; *ret_changed when an RDMA device came, went or changed */
	int (*rdma_monitor_read)(int fd, bool *ret_changed);

	/* the kernel's notifications (--watch): rcvbuf bytes, 0 for the default */
	int (*monitor_open)(int rcvbuf, struct ibh_monitor **ret);
	void (*monitor_close)(struct ibh_monitor *m);
	int (*monitor_fd)(const struct ibh_monitor *m);
	/* drain what is pending into ev (not cleared); own_port's are ib-hook's echo */
	int (*monitor_read)(struct ibh_monitor *m, uint32_t own_port, struct ibh_events *ev);
};

/* the kernel ib-hook talks to: kernel_linux unless a test put its stand-in here */
extern const struct ibh_kernel_ops *kernel;
extern const struct ibh_kernel_ops kernel_linux;
