/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>

#include "model.h"

struct ibh_cm_result {
	char dev[64]; /* the RDMA device RDMA CM chose */
	uint8_t port;
	char event[64]; /* what RDMA CM answered instead of resolving, for messages */
};

/*
 * RDMA CM's answer for a connection from src to dst: 0 and the device and
 * port it chose; -ENOSYS without librdmacm (not installed, or built without
 * its header); another negative errno when it could not resolve
 */
int cm_resolve(const struct ibh_ip *src, const struct ibh_ip *dst, int timeout_ms,
	       struct ibh_cm_result *ret);
