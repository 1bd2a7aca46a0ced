/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtnetlink and the RDMA netlink with libnl: only netlink.c includes libnl.
 * The rest of ib-hook asks the kernel through kernel.h, whose real
 * implementation (kernel-linux.c) calls these.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "link.h"

struct ibh_nl;
struct ibh_route;
struct ibh_rule;

int netlink_open(struct ibh_nl **ret);
/* the socket's port: the kernel stamps the notifications of its requests with it */
uint32_t netlink_port(const struct ibh_nl *n);
void netlink_close(struct ibh_nl *n);

/* -ENODEV when there is no such link */
int netlink_get_link(struct ibh_nl *n, const char *name, struct ibh_link *ret);
int netlink_get_link_by_index(struct ibh_nl *n, int ifindex, struct ibh_link *ret);
/* "netns-…": names the network namespace of the socket, for the record */
/* the cookie of the socket's network namespace: -ENOPROTOOPT before Linux 5.14 */
int netlink_netns_cookie(struct ibh_nl *n, uint64_t *ret);
/* the device and inode of /proc/self/ns/net: the kernel reuses the inode once it is free */
int netlink_netns_inode(uint64_t *ret_dev, uint64_t *ret_ino);
int netlink_dump_links(struct ibh_nl *n, struct ibh_link **ret, size_t *n_ret);
/* addresses of ifindex (0: of every link), IPv6 link-local ones included */
int netlink_dump_addrs(struct ibh_nl *n, int ifindex, struct ibh_addr_entry **ret, size_t *n_ret);
/*
 * One RTM_NEWRULE or RTM_NEWROUTE message as a dump parses it (for tests and
 * fuzzing): -EINVAL when malformed, -ENOENT when not such a message.
 */
int netlink_parse_rule(const void *buf, size_t size, struct ibh_rule *ret, bool *ret_protocol);
int netlink_parse_route(const void *buf, size_t size, struct ibh_route *ret);
/*
 * *ret_protocol: whether the kernel reports rule protocols; when it does not
 * (before 4.17), rules of ib-hook's shape read as protocol kernel
 */
int netlink_dump_rules(struct ibh_nl *n, struct ibh_rule **ret, size_t *n_ret, bool *ret_protocol);
/* the same over a dump's messages in one buffer (tests) */
int netlink_parse_rules(const void *buf, size_t size, struct ibh_rule **ret, size_t *n_ret,
			bool *ret_protocol);
/*
 * Routes of one table, IPv4 and IPv6, optionally only those through oif.
 * The kernel filters the dump (strict checking, >= 4.20), so the cost follows
 * the size of that table and not of main.
 */
int netlink_dump_table(struct ibh_nl *n, uint32_t table, int oif, struct ibh_route **ret,
		       size_t *n_ret);
/* the same over a dump's messages in one buffer, as a kernel without strict checking sends (tests) */
int netlink_parse_table(const void *buf, size_t size, uint32_t table, int oif,
			struct ibh_route **ret, size_t *n_ret);

/*
 * 1: changed, 0: absent already on delete, < 0: -errno. -EEXIST on add says
 * only that the kernel found something it counts as equal: the caller looks
 * whether it is the object it asked for.
 */
int netlink_route_add(struct ibh_nl *n, const struct ibh_route *r);
int netlink_route_del(struct ibh_nl *n, const struct ibh_route *r);
int netlink_rule_add(struct ibh_nl *n, const struct ibh_rule *r);
int netlink_rule_del(struct ibh_nl *n, const struct ibh_rule *r);
/*
 * The route a packet to dst leaving through oif would use, as it is in its
 * table (RTM_F_FIB_MATCH): one lookup, whatever the size of the tables.
 * -ENOENT when there is none.
 */
int netlink_fib_match(struct ibh_nl *n, const struct ibh_ip *dst, int oif, struct ibh_route *ret);
/* 1 if some entry went, 0 if none; keeps permanent entries like `ip neigh flush` */
int netlink_neigh_flush(struct ibh_nl *n, int ifindex);
/* every neighbour entry (both families, permanent ones too) */
int netlink_neigh_dump(struct ibh_nl *n, struct ibh_neigh **ret, size_t *n_ret);
/* 1: deleted, 0: absent already, < 0: -errno */
int netlink_neigh_del(struct ibh_nl *n, int ifindex, const struct ibh_ip *dst);
/* the route for traffic from src to dst, as `ip route get DST from SRC` says it */
int netlink_route_get(struct ibh_nl *n, const struct ibh_ip *dst, const struct ibh_ip *src,
		      struct ibh_route *ret);
/*
 * The table's entry (RTM_F_FIB_MATCH) that the lookup from src to dst
 * bound to device oif matches, rules included: `ip route get fibmatch DST
 * from SRC oif DEV`. IPv4 matches only routes through oif; IPv6, given a
 * source, may answer a route through another device (the caller looks).
 * -ENOENT: none; -EOPNOTSUPP: the kernel does not do FIB_MATCH.
 */
int netlink_route_get_bound(struct ibh_nl *n, const struct ibh_ip *dst, const struct ibh_ip *src,
			    int oif, struct ibh_route *ret);

/* rcvbuf: bytes, 0 for the default */
int netlink_monitor_open(int rcvbuf, struct ibh_monitor **ret);
void netlink_monitor_close(struct ibh_monitor *m);
int netlink_monitor_fd(const struct ibh_monitor *m);
/* drain what is pending into ev (not cleared); notifications from own_port are ib-hook's echo */
int netlink_monitor_read(struct ibh_monitor *m, uint32_t own_port, struct ibh_events *ev);

/*
 * Every RDMA port, from the RDMA netlink (`rdma link`), with its netdev, or
 * ifindex 0 when the kernel names none here (see parse_rdma_port);
 * -EPROTONOSUPPORT when the kernel has no RDMA subsystem (ib_core not loaded).
 */
int netlink_rdma_ports(struct ibh_rdma_port **ret, size_t *n_ret);
/* one RDMA_NLDEV_CMD_GET dump message: the device's index; -ENOENT: another message */
int netlink_parse_rdma_dev(const void *buf, size_t size, uint32_t *ret_index);
/* one RDMA_NLDEV_CMD_PORT_GET dump message; -ENOENT: another message */
int netlink_parse_rdma_port(const void *buf, size_t size, struct ibh_rdma_port *ret);
