/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* ifname "all" reads conf/all; the value, or a negative errno */
int sysctl_read(const char *ifname, enum ibh_sysctl key);
int sysctl_write(const char *ifname, enum ibh_sysctl key, int value);

/* /sys/class/net/IFNAME/ATTR: its first line without the newline, or a negative errno */
int netdev_attr_read(const char *ifname, const char *attr, char *buf, size_t size);
int netdev_attr_write(const char *ifname, const char *attr, const char *value);
bool netdev_attr_exists(const char *ifname, const char *attr);
/* a /proc or /sys file's first line without its newline, or a negative errno */
int sysfs_read_line(const char *path, char *buf, size_t size);
