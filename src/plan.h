/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "model.h"

struct ibh_config;

enum ibh_action {
	IBH_ACTION_NONE,
	IBH_ACTION_APPLY,
	IBH_ACTION_REMOVE,
};

/* the addresses ib-hook manages: IPv4, and IPv6 but link-local when IPv6=yes */
bool plan_address_managed(const struct ibh_config *c, const struct ibh_ip *a);
/* a rule ib-hook installed: its priority, shape, protocol and one of its tables */
bool plan_rule_is_ours(const struct ibh_config *c, const struct ibh_observed *o,
		       const struct ibh_rule *r);
bool plan_route_is_ours(const struct ibh_route *r);
/* the route apply wants in T for the prefix of address i is there, as apply makes it */
bool plan_table_route_ok(const struct ibh_config *c, const struct ibh_observed *o, size_t i);

int plan_build(const struct ibh_config *c, const struct ibh_observed *o, enum ibh_action action,
	       struct ibh_plan *ret);
/* an operation that only follows others (neighbour flush) is no drift */
bool plan_op_is_drift(const struct ibh_op *op);

/* the `ip` / `sysctl` command equivalent to op */
void plan_format_op(FILE *f, const char *ifname, const struct ibh_op *op);
/* what op did, for the log: "added rule from 172.16.34.2 lookup 1004 priority 1000" */
void plan_describe_op(char *buf, size_t size, const char *ifname, const struct ibh_op *op);

void ip_prefix(struct ibh_ip *ret, const struct ibh_ip *a);
bool ip_equal(const struct ibh_ip *a, const struct ibh_ip *b);
bool ip_same_address(const struct ibh_ip *a, const struct ibh_ip *b);
const char *ip_to_string(const struct ibh_ip *a, char *buf, size_t size, bool with_len);
