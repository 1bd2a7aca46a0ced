/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kinds of operation a plan holds, as one table: what each does to the
 * record and to routing, whether it is drift, and its text. Every user reads
 * the table; none lists kinds of its own.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

struct ibh_op_kind_info {
	/* the record learns of the op's entry before it runs (written ahead) */
	bool adds;
	/* the record forgets the op's entry once it ran */
	bool takes_back;
	/* only ib-hook's record changes: nothing is sent to the kernel */
	bool record_only;
	/* changes which port a packet leaves by: peers' neighbour entries go stale */
	bool routing;
	/* --status counts it as drift: apply would change the system */
	bool drift;
	/* a setting of the link (sysctl, IPoIB mode, MTU) rather than an object */
	bool link_setting;
	/* the `ip` verb of a rule or route op, and what the log says it did */
	const char *verb;
	const char *done;
};

const struct ibh_op_kind_info *op_kind(enum ibh_op_kind kind);

/* the `ip` / `sysctl` command equivalent to op, or "" for a record-only op */
void op_command(char *buf, size_t size, const char *ifname, const struct ibh_op *op);
/* what op did, for the log: "added rule from 172.16.34.2 lookup 1004 priority 1000" */
void op_describe(char *buf, size_t size, const char *ifname, const struct ibh_op *op);
