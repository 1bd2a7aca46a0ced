/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

struct ibh_config;
struct ibh_link;

/* [Match] Name= globs when given; else InfiniBand links and RDMA-backed Ethernet */
bool link_is_managed(const struct ibh_config *c, const struct ibh_link *l);
