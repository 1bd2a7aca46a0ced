/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "model.h"

struct ibh_config;

/* the addresses ib-hook manages: IPv4, and IPv6 but link-local when IPv6=yes */
bool plan_address_managed(const struct ibh_config *c, const struct ibh_ip *a);
/* ... and that no managed link with a lower index also has (it serves them) */
bool plan_address_wanted(const struct ibh_config *c, const struct ibh_observed *o, size_t i);
void plan_addr_prefix(const struct ibh_addr *a, struct ibh_ip *ret);
/* gw lies in one of the prefixes of o's managed addresses */
bool plan_gateway_in_prefix(const struct ibh_config *c, const struct ibh_observed *o,
			    const struct ibh_ip *gw);
/*
 * The managed address whose routes serve o->addrs[i]'s prefix: the first of
 * that prefix (the kernel's primary address), i itself when it is first
 */
size_t plan_prefix_first(const struct ibh_config *c, const struct ibh_observed *o, size_t i);

/* the record entry that makes a kernel object ib-hook's, or NULL */
const struct ibh_rec *plan_rule_owner(const struct ibh_observed *o, const struct ibh_rule *r);
const struct ibh_rec *plan_route_owner(const struct ibh_observed *o, const struct ibh_route *r);
/* a rule the kernel would delete instead of o->rules[i], or NULL */
const struct ibh_rule *plan_rule_delete_hits(const struct ibh_observed *o, size_t i);
/* T holds the route apply installs for o->addrs[i]'s prefix, exactly */
bool plan_table_route_present(const struct ibh_observed *o, size_t i);
/* main's route for prefix through o->link, whoever made it, or NULL */
const struct ibh_route *plan_main_route(const struct ibh_observed *o, const struct ibh_ip *prefix);
/* that route is the one the kernel made for o->addrs[i]: MainRoute=delete's to delete */
bool plan_main_route_is_kernels(const struct ibh_observed *o, size_t i);
/* a rule that makes the kernel refuse adding w (EEXIST), or NULL */
const struct ibh_rule *plan_rule_add_hits(const struct ibh_observed *o, const struct ibh_rule *w);

/*
 * The routes T(X) holds besides X's prefix routes (GatewayRoutes=yes): the
 * copies of main's routes through X, of another port's gateway routes whose
 * gateway lies in X's prefix (for a family main routes nothing through X),
 * and [Gateways]' default; *ret to be freed
 */
int plan_copies(const struct ibh_config *c, const struct ibh_observed *o, struct ibh_route **ret,
		size_t *n_ret);
/*
 * What apply (or remove) does for o->link: ownership is the record in
 * o->record, nothing else; entries marked leftover are not this plan's.
 */
int plan_build(const struct ibh_config *c, const struct ibh_observed *o, enum ibh_action action,
	       struct ibh_plan *ret);
/* take back every record entry marked leftover (o->link is not used) */
int plan_leftovers(const struct ibh_observed *o, struct ibh_plan *ret);
