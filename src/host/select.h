/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct ibh_config;
struct ibh_link;
struct ibh_rdma_port;

/*
 * [Match] Name= globs when given; else InfiniBand links and the netdevs of
 * RDMA ports (the kernel's RDMA netlink, asked once per run)
 */
bool link_is_managed(const struct ibh_config *c, const struct ibh_link *l);
/* the RDMA port whose netdev is ifindex, or NULL */
const struct ibh_rdma_port *select_rdma_port(int ifindex);
/*
 * Whether the RDMA netlink's answer (error, ports) settles a link that is
 * none of its ports; false when it failed or named no netdev for a port,
 * then sysfs is asked
 */
bool select_rdma_decides(int error, const struct ibh_rdma_port *ports, size_t n_ports);
/* this network namespace has an RDMA port with a netdev */
bool select_rdma_any(void);
/* ask the kernel again next time (--watch: ports come and go) */
void select_forget(void);
/* what finding no managed interface means, for the --status summary */
void select_none_why(const struct ibh_config *c, char *buf, size_t size);
/* why a link is not managed, in words, for --status and the log */
void select_unmanaged_why(const struct ibh_config *c, char *buf, size_t size);
