/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "link.h"

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

/* one question of cm_resolve_all: r is its answer, as cm_resolve's */
struct ibh_cm_query {
	struct ibh_ip src, dst;
	int r;
	struct ibh_cm_result res;
};

/*
 * The n questions at once, on one event channel, all answered (or timed out)
 * within timeout_ms and a little more: 0 and each q[i].r; -ENOSYS without
 * librdmacm, or another negative errno when RDMA CM could not be asked at
 * all (no access to /dev/infiniband/rdma_cm: -EACCES, -EPERM)
 */
int cm_resolve_all(struct ibh_cm_query *q, size_t n, int timeout_ms);
