/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Kernel ABI constants newer than the oldest headers ib-hook builds against:
 * Linux 4.15's (Ubuntu 18.04's linux-libc-dev). The values are the kernel's
 * uapi, fixed for good; a running kernel older than them does not send them,
 * which the parsers handle (a rule dump without FRA_PROTOCOL, an RDMA port
 * without NDEV_*). Include this instead of the headers below: they are
 * included here first, so that the macros never meet their enums.
 */
#include <linux/fib_rules.h>
#include <linux/version.h>

/*
 * Enum members, which the preprocessor can not test for: the headers'
 * version decides. Headers with backports (RHEL) have them anyway, then the
 * macros are not needed and not defined.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(4, 17, 0)
#define FRA_PROTOCOL	21 /* the rule's originator (ip rule ... proto) */
#define FRA_IP_PROTO	22
#define FRA_SPORT_RANGE 23
#define FRA_DPORT_RANGE 24
#undef FRA_MAX
#define FRA_MAX FRA_DPORT_RANGE
#endif

/*
 * <rdma/rdma_netlink.h> is not in every linux-libc-dev of that age (Debian's
 * has it from 4.17 on) and 4.15's lacks NDEV_*: the few values ib-hook uses,
 * from its uapi. An older kernel's port replies carry no NDEV_INDEX and
 * NDEV_NAME (select.c then asks sysfs).
 */
#define RDMA_NL_GET_TYPE(client, op) (((client) << 10) + (op))
#define RDMA_NL_NLDEV		     5
#define RDMA_NLDEV_CMD_GET	     1
#define RDMA_NLDEV_CMD_PORT_GET	     5
#define RDMA_NLDEV_ATTR_DEV_INDEX    1	/* u32 */
#define RDMA_NLDEV_ATTR_DEV_NAME     2	/* string */
#define RDMA_NLDEV_ATTR_PORT_INDEX   3	/* u32 */
#define RDMA_NLDEV_ATTR_NDEV_INDEX   50 /* u32 */
#define RDMA_NLDEV_ATTR_NDEV_NAME    51 /* string */
