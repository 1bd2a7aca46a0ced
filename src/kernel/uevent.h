/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* a socket for the kernel's uevents (non-blocking), or negative errno */
int uevent_open(void);
/* one kernel uevent (NUL-separated, NUL-terminated): an RDMA device came, went or changed */
bool uevent_is_rdma(const char *buf, size_t len);
/* reads every pending uevent; sets *ret_rdma when one was an RDMA device's (or some were lost) */
int uevent_read(int fd, bool *ret_rdma);
