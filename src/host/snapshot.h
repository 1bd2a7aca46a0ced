/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The links and addresses of the namespace, read once for a read-only run
 * (--check, --inventory, --check --fleet): unlike the view (observe.h), no
 * record, so that it runs where the namespace cannot be named, and as any user.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"

struct ibh_snapshot {
	struct ibh_kernel *k; /* open: the run may ask more */
	struct ibh_link *links;
	size_t n_links;
	struct ibh_addr_entry *addrs; /* of every link, IPv6 link-local ones included */
	size_t n_addrs;
};

/* 0, or negative errno (nothing to close) */
int snapshot_open(struct ibh_snapshot *s);
void snapshot_close(struct ibh_snapshot *s);
/* 0 when each of the n names is a link of the snapshot, else -ENODEV (said) */
int snapshot_find_links(const struct ibh_snapshot *s, const char *const *ifnames, size_t n);
