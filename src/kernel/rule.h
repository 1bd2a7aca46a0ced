/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A routing policy rule: every field ib-hook sets, compares, records and
 * prints is known here and nowhere else, its netlink message included
 * (netlink.c only sends and dumps).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ip.h"

struct ibh_msg;
struct nlmsghdr;

/*
 * A rule as the kernel reported it. Only the fields ib-hook sets are kept as
 * values; everything else is summed up in `exact` and `strict`, and in desc
 * for messages.
 */
struct ibh_rule {
	struct ibh_ip src;
	uint32_t table;
	uint32_t priority;
	uint8_t protocol;
	uint8_t action;
	/* from, lookup, priority and protocol, nothing else: the shape ib-hook makes */
	bool exact;
	/*
	 * a selector the kernel compares exactly when it looks for an existing
	 * rule on add (iif, oif, fwmark, uidrange, ...); dst, tos and `not` are
	 * wildcards there
	 */
	bool strict;
	char desc[160]; /* `ip rule` syntax, for messages */
};

/* the rule ib-hook installs: from src (a whole address) lookup table priority, protocol kernel */
void rule_wanted(const struct ibh_ip *src, uint32_t table, uint32_t priority, struct ibh_rule *ret);
/* field by field: equal rules are interchangeable for the kernel */
bool rule_equal(const struct ibh_rule *a, const struct ibh_rule *b);
/* the fields that name a recorded rule */
bool rule_same_key(const struct ibh_rule *a, const struct ibh_rule *b);
/* an exact rule from src lookup table priority, whatever src's length */
bool rule_is(const struct ibh_rule *r, const struct ibh_ip *src, uint32_t table, uint32_t priority);
/*
 * f, before r in the kernel's order, is the rule the kernel deletes instead
 * of r (rule_protocol: the kernel compares protocols)
 */
bool rule_delete_hits(const struct ibh_rule *f, const struct ibh_rule *r, bool rule_protocol);
/* f makes the kernel refuse adding w (EEXIST) */
bool rule_add_hits(const struct ibh_rule *f, const struct ibh_rule *w, bool rule_protocol);

/*
 * An RTM_NEWRULE message as the kernel reports it; *protocol: it carries the
 * rule's protocol (kernels >= 4.17). -ENOENT: not an IPv4 or IPv6 rule;
 * -EINVAL: another message, or malformed.
 */
int rule_from_msg(const struct nlmsghdr *nlh, struct ibh_rule *ret, bool *protocol);
/*
 * A dump without any FRA_PROTOCOL (before 4.17): the kernel neither keeps
 * nor compares a rule's protocol, so ib-hook's shape reads as protocol kernel
 */
void rule_protocol_unreported(struct ibh_rule *r);
/* the request that adds (NLM_F_EXCL) or deletes r */
void rule_to_msg(struct ibh_msg *m, const struct ibh_rule *r, bool add);

/* the record's fields: "SRC/LEN TABLE PRIORITY"; and back (-EINVAL) */
void rule_to_record(char *buf, size_t size, const struct ibh_rule *r);
int rule_from_record(const char *s, struct ibh_rule *ret);

/* `ip rule VERB ...`, as --dry-run prints it */
void rule_command(char *buf, size_t size, const char *verb, const struct ibh_rule *r);
/* "from 172.16.34.2 lookup 1004 priority 1000" (with_priority) for messages */
void rule_text(char *buf, size_t size, const struct ibh_rule *r, bool with_priority);
