/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "link.h"

/* the key's name under /proc/sys/net/ipv4/conf/IFNAME */
const char *sysctl_name(enum ibh_sysctl key);
/* "datagram", "connected", or "keep": /sys/class/net/IFNAME/mode */
const char *ipoib_mode_name(enum ibh_ipoib_mode m);

/* ifname "all" reads conf/all; the value, or a negative errno */
int sysctl_read(const char *ifname, enum ibh_sysctl key);
int sysctl_write(const char *ifname, enum ibh_sysctl key, int value);

/* /sys/class/net/IFNAME/ATTR: its first line without the newline, or a negative errno */
int netdev_attr_read(const char *ifname, const char *attr, char *buf, size_t size);
int netdev_attr_write(const char *ifname, const char *attr, const char *value);
bool netdev_attr_exists(const char *ifname, const char *attr);
/* net.ipv4.conf.IFNAME.NAME, for a key ib-hook does not set (arp_filter) */
int sysctl_read_name(const char *ifname, const char *name);
/* /sys/class/infiniband/DEV/ports/PORT/ATTR: its first line without the newline */
int rdma_port_attr_read(const char *dev, uint32_t port, const char *attr, char *buf, size_t size);
/* the same under root, a directory laid out as /sys/class/infiniband (the tests' fixtures) */
int rdma_port_attr_read_at(const char *root, const char *dev, uint32_t port, const char *attr,
			   char *buf, size_t size);
