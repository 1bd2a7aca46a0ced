/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "model.h"

/* ifname "all" reads conf/all; the value, or a negative errno */
int sysctl_read(const char *ifname, enum ibh_sysctl key);
int sysctl_write(const char *ifname, enum ibh_sysctl key, int value);
