// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * plan: a pure function from (config, observed state of one interface) to the
 * list of operations that brings the kernel to the state ib-hook(8)
 * describes. No I/O here: what the unit tests check and --dry-run prints is
 * exactly what apply executes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/fib_rules.h>
#include <net/if_arp.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <string.h>

#include "array.h"
#include "config.h"
#include "op.h"
#include "plan.h"
#include "record.h"
#include "route-index.h"

bool plan_address_managed(const struct ibh_config *c, const struct ibh_ip *a)
{
	if (a->family == AF_INET)
		return true;
	return a->family == AF_INET6 && c->ipv6 && !IPV6_LINK_LOCAL(a->a);
}

/* the prefix the kernel routes for address a: its own, or its peer's */
void plan_addr_prefix(const struct ibh_addr *a, struct ibh_ip *ret)
{
	ip_prefix(ret, a->peer.family ? &a->peer : &a->ip);
}

static bool is_taken(const struct ibh_observed *o, const struct ibh_ip *a)
{
	for (size_t i = 0; i < o->n_taken; i++)
		if (ip_same_address(&o->taken[i], a))
			return true;
	return false;
}

/* a managed address of the link that no managed link with a lower index also has */
bool plan_address_wanted(const struct ibh_config *c, const struct ibh_observed *o, size_t i)
{
	return plan_address_managed(c, &o->addrs[i].ip) && !is_taken(o, &o->addrs[i].ip);
}

static void wanted_rule(const struct ibh_config *c, const struct ibh_observed *o,
			const struct ibh_ip *a, struct ibh_rule *ret)
{
	rule_wanted(a, o->table, c->priority, ret);
}

/* the route apply installs in table for address a, as the kernel reports it back */
static void wanted_route(const struct ibh_observed *o, const struct ibh_addr *a, uint32_t table,
			 struct ibh_route *ret)
{
	struct ibh_ip prefix;

	plan_addr_prefix(a, &prefix);
	route_wanted(&prefix, &a->ip, o->link.ifindex, o->link.name, table, ret);
}

size_t plan_prefix_first(const struct ibh_config *c, const struct ibh_observed *o, size_t i)
{
	struct ibh_ip pi, pj;

	plan_addr_prefix(&o->addrs[i], &pi);
	for (size_t j = 0; j < i; j++) {
		if (!plan_address_managed(c, &o->addrs[j].ip))
			continue;
		plan_addr_prefix(&o->addrs[j], &pj);
		if (ip_equal(&pi, &pj))
			return j;
	}
	return i;
}

/* the first managed address of its prefix carries the prefix's route */
static bool is_first_of_prefix(const struct ibh_config *c, const struct ibh_observed *o, size_t i)
{
	return plan_prefix_first(c, o, i) == i;
}

static bool rec_is_for(const struct ibh_rec *rec, const struct ibh_link *l)
{
	return rec->ifindex == l->ifindex && strcmp(rec->ifname, l->name) == 0;
}

/*
 * The record entry of a kernel object, when the object is ib-hook's: the
 * record finds an entry by the fields that name it, and the object must then
 * equal what ib-hook installed in every field, so that a user's object that
 * took the place of ib-hook's (`ip route replace ... pref high`) is theirs.
 */
static const struct ibh_rec *owner(const struct ibh_observed *o, const struct ibh_rec *rec)
{
	const struct ibh_rec *have = o->record ? record_find(o->record, rec) : NULL;

	if (!have)
		return NULL;
	return (rec->kind == IBH_REC_RULE ? rule_equal(&have->rule, &rec->rule)
					  : route_equal(&have->route, &rec->route))
		       ? have
		       : NULL;
}

const struct ibh_rec *plan_rule_owner(const struct ibh_observed *o, const struct ibh_rule *r)
{
	return owner(o, &(struct ibh_rec){ .kind = IBH_REC_RULE, .rule = *r });
}

const struct ibh_rec *plan_route_owner(const struct ibh_observed *o, const struct ibh_route *r)
{
	return owner(o, &(struct ibh_rec){ .kind = IBH_REC_ROUTE, .route = *r });
}

/* the record knows the link: nothing of it is adopted any more */
static bool link_known(const struct ibh_observed *o)
{
	struct ibh_rec rec = { .kind = IBH_REC_LINK, .ifindex = o->link.ifindex };

	snprintf(rec.ifname, sizeof(rec.ifname), "%s", o->link.name);
	return record_find(o->record, &rec) != NULL;
}

static int push(struct ibh_plan *p, const struct ibh_op *op)
{
	if (array_grow(&p->ops, &p->cap, p->n_ops, sizeof(*op), 16) < 0)
		return -ENOMEM;
	p->ops[p->n_ops++] = *op;
	return 0;
}

/* op on the object of rec, for the link ifname, ifindex: the record entry says so too */
static int push_for(struct ibh_plan *p, struct ibh_op *op, const char *ifname, int ifindex)
{
	op->ifindex = op->rec.ifindex = ifindex;
	snprintf(op->rec.ifname, sizeof(op->rec.ifname), "%s", ifname);
	snprintf(op->ifname, sizeof(op->ifname), "%s", ifname);
	return push(p, op);
}

static int push_rule(struct ibh_plan *p, enum ibh_op_kind kind, const struct ibh_rule *r,
		     const char *ifname, int ifindex)
{
	struct ibh_op op = { .kind = kind,
			     .rule = *r,
			     .rec = { .kind = IBH_REC_RULE, .rule = *r } };

	return push_for(p, &op, ifname, ifindex);
}

static int push_route(struct ibh_plan *p, enum ibh_op_kind kind, enum ibh_rec_kind rec_kind,
		      const struct ibh_route *r, const char *ifname, int ifindex)
{
	struct ibh_op op = { .kind = kind, .route = *r, .rec = { .kind = rec_kind, .route = *r } };

	return push_for(p, &op, ifname, ifindex);
}

static int push_forget(struct ibh_plan *p, const struct ibh_rec *rec)
{
	struct ibh_op op = { .kind = IBH_OP_FORGET, .rec = *rec, .ifindex = rec->ifindex };

	snprintf(op.ifname, sizeof(op.ifname), "%s", rec->ifname);
	if (rec->kind == IBH_REC_RULE)
		op.rule = rec->rule;
	else
		op.route = rec->route;
	return push(p, &op);
}

static int refuse(struct ibh_plan *p, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct ibh_plan *p, int error, const char *fmt, ...)
{
	va_list ap;

	plan_clear(p);
	p->refused = error;
	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	return 0;
}

/* a rule the kernel would delete instead of o->rules[i] */
const struct ibh_rule *plan_rule_delete_hits(const struct ibh_observed *o, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (rule_delete_hits(&o->rules[j], &o->rules[i], o->rule_protocol))
			return &o->rules[j];
	return NULL;
}

const struct ibh_rule *plan_rule_add_hits(const struct ibh_observed *o, const struct ibh_rule *w)
{
	for (size_t j = 0; j < o->n_rules; j++)
		if (rule_add_hits(&o->rules[j], w, o->rule_protocol))
			return &o->rules[j];
	return NULL;
}

/* the plan deletes route r of the table before what comes next (ib-hook's own, in the kernel's order) */
static bool deleted_before(const struct ibh_plan *p, const struct ibh_route *r)
{
	for (size_t k = 0; k < p->n_ops; k++)
		if (p->ops[k].kind == IBH_OP_ROUTE_DEL && route_equal(&p->ops[k].route, r))
			return true;
	return false;
}

/*
 * A route before routes[i] that a delete of routes[i] would take instead,
 * unless the plan deletes it first (two of ib-hook's own copies that differ
 * in a metric alone: an IPv4 delete matches the metrics it carries, not
 * those it does not)
 */
static const struct ibh_route *table_delete_hit(const struct route_index *t, size_t i,
						const struct ibh_plan *p)
{
	size_t first, n = route_index_dst(t, &t->routes[i].dst, &first);

	/* route_delete_hits() asks for the same prefix: the routes before i with it */
	for (size_t k = first; k < first + n && t->by_dst[k] < &t->routes[i]; k++)
		if (route_delete_hits(t->by_dst[k], &t->routes[i]) &&
		    !deleted_before(p, t->by_dst[k]))
			return t->by_dst[k];
	return NULL;
}

bool plan_gateway_in_prefix(const struct ibh_config *c, const struct ibh_observed *o,
			    const struct ibh_ip *gw)
{
	for (size_t i = 0; i < o->n_addrs; i++) {
		struct ibh_ip prefix;

		if (!plan_address_managed(c, &o->addrs[i].ip))
			continue;
		plan_addr_prefix(&o->addrs[i], &prefix);
		if (ip_in_prefix(&prefix, gw))
			return true;
	}
	return false;
}

/* [Gateways] peer: the other address of o's first /31 (/127) or point-to-point address of family */
static bool peer_gateway(const struct ibh_config *c, const struct ibh_observed *o, uint8_t family,
			 struct ibh_ip *ret)
{
	for (size_t i = 0; i < o->n_addrs; i++) {
		const struct ibh_addr *a = &o->addrs[i];

		if (!plan_address_managed(c, &a->ip) || a->ip.family != family)
			continue;
		if (a->peer.family) {
			*ret = a->peer;
		} else if (a->ip.len == ip_bits(family) - 1) {
			*ret = a->ip;
			ret->a[ip_bits(family) / 8 - 1] ^= 1;
		} else {
			continue;
		}
		ret->len = (uint8_t)ip_bits(family);
		return true;
	}
	return false;
}

/* a next hop through another port via gw, which X reaches too: gw lies in one of X's prefixes */
static bool hop_reached(const struct ibh_config *c, const struct ibh_observed *o, int oif,
			const struct ibh_ip *gw)
{
	return oif != o->link.ifindex && index_set_has(&o->ports, oif) && gw->family &&
	       !(gw->family == AF_INET6 && IPV6_LINK_LOCAL(gw->a)) &&
	       plan_gateway_in_prefix(c, o, gw);
}

/* a next hop of m through X via gw */
static bool has_hop_via(const struct ibh_route *m, int oif, const struct ibh_ip *gw)
{
	for (size_t h = 0; h < m->n_hops; h++)
		if (m->hops[h].oif == oif && ip_same_address(&m->hops[h].gw, gw))
			return true;
	return false;
}

/*
 * m's next hops through another port via a gateway in one of X's prefixes
 * through X instead (section 9: a default or a storage network behind a
 * second router of the shared subnet is X's as well). Such a hop whose
 * gateway a hop through X already has leaves (IPv6 refuses a multipath
 * route that names a next hop twice).
 */
static void through_link(const struct ibh_config *c, const struct ibh_observed *o,
			 struct ibh_route *m)
{
	int x = o->link.ifindex;
	uint8_t kept = 0;

	if (!m->n_hops) {
		if (hop_reached(c, o, m->oif, &m->gw))
			m->oif = x;
		return;
	}
	for (size_t h = 0; h < m->n_hops; h++) {
		struct ibh_nexthop hop = m->hops[h];

		if (hop_reached(c, o, hop.oif, &hop.gw)) {
			if (has_hop_via(m, x, &hop.gw))
				continue;
			hop.oif = x;
		}
		m->hops[kept++] = hop;
	}
	/* route_copy() reads no further and clears the rest of the copy's */
	m->n_hops = kept;
}

/*
 * A copy the kernel would not add beside an earlier one: the same (main may
 * hold a route twice through two hops), or one it would refuse or, IPv6,
 * join as a sibling (the same prefix and metric, both with a gateway: an RA
 * default through X and another port's default via a global gateway in X's
 * prefix), making one multipath route that neither copy is. The earlier
 * stays: X's own routes come first, in main's order.
 */
static bool copy_hits(const struct ibh_route *earlier, const struct ibh_route *later)
{
	return route_equal(earlier, later) || route_add_hits(earlier, later);
}

/* those that hit an earlier one leave at the end (copy_hits) */
static int push_copy(struct ibh_route **v, size_t *n, size_t *cap, const struct ibh_route *r)
{
	if (array_grow(v, cap, *n, sizeof(*r), 8) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = *r;
	return 0;
}

/* the configured gateway's default, where main has none: a few at most */
static bool is_copy_of(const struct ibh_route *v, size_t n, const struct ibh_route *r)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].dst.len == 0 && route_equal(&v[i], r))
			return true;
	return false;
}

int plan_copies(const struct ibh_config *c, const struct ibh_observed *o, struct ibh_route **ret,
		size_t *n_ret)
{
	const struct ibh_gateway_entry *g = config_gateway_of(c, o->link.name);
	struct ibh_route *v = NULL, copy;
	size_t n = 0, cap = 0;
	bool dflt[2] = { false, false };
	int r = 0;

	*ret = NULL;
	*n_ret = 0;
	/* the watcher's, while it runs: this run knows nothing of main's routes through X */
	if (!c->gateway_routes || o->copies_left)
		return 0;
	for (size_t i = 0; r >= 0 && i < o->n_main_via; i++) {
		struct ibh_route m = o->main_via[i];

		if (m.dst.family == AF_INET6 && !c->ipv6)
			continue;
		through_link(c, o, &m);
		if (route_copy(&m, o->link.ifindex, o->link.name, o->table, &copy))
			r = push_copy(&v, &n, &cap, &copy);
	}
	if (r >= 0) {
		ssize_t kept = route_dedup_by(v, n, copy_hits);

		r = kept < 0 ? (int)kept : 0;
		n = kept < 0 ? n : (size_t)kept;
	}
	for (size_t i = 0; i < n; i++)
		dflt[v[i].dst.family == AF_INET6] |= v[i].dst.len == 0;
	/* a gateway named in the configuration, where main routes nothing through the port */
	for (int f = 0; r >= 0 && g && f < 2; f++) {
		uint8_t family = f ? AF_INET6 : AF_INET;
		struct ibh_ip gw = {};

		if (dflt[f] || (f && !c->ipv6))
			continue;
		for (size_t k = 0; k < g->n_gw; k++)
			if (g->gw[k].family == family)
				gw = g->gw[k];
		if (!gw.family && !(g->peer && peer_gateway(c, o, family, &gw)))
			continue;
		memset(&copy, 0, sizeof(copy));
		copy.dst.family = family;
		copy.gw = gw;
		copy.gateway = true;
		copy.oif = o->link.ifindex;
		copy.table = o->table;
		copy.protocol = RTPROT_KERNEL;
		copy.type = RTN_UNICAST;
		copy.scope = RT_SCOPE_UNIVERSE;
		copy.metric = f ? 1024 : 0;
		snprintf(copy.oif_name, sizeof(copy.oif_name), "%s", o->link.name);
		if (r >= 0 && !is_copy_of(v, n, &copy))
			r = push_copy(&v, &n, &cap, &copy);
	}
	if (r < 0) {
		free(v);
		return r;
	}
	*ret = v;
	*n_ret = n;
	return 0;
}

static bool is_copy(const struct route_index *copies, const struct ibh_route *have)
{
	return route_index_find(copies, have) >= 0;
}

static bool table_route_wanted(const struct ibh_config *c, const struct ibh_observed *o,
			       const struct ibh_route *have)
{
	struct ibh_route want;

	for (size_t i = 0; i < o->n_addrs; i++) {
		if (!plan_address_managed(c, &o->addrs[i].ip) || !is_first_of_prefix(c, o, i))
			continue;
		wanted_route(o, &o->addrs[i], o->table, &want);
		if (route_equal(have, &want))
			return true;
	}
	return false;
}

/*
 * A route of T that ib-hook installed for X and that is no prefix route of
 * X's, while the watcher keeps the copies: a copy the watcher wants or will
 * take back at its pass over X, which this run leaves alone; unless it stands
 * in the way of one of X's prefix routes, which this run adds
 */
static bool left_to_watcher(const struct ibh_config *c, const struct ibh_observed *o,
			    const struct ibh_route *have)
{
	struct ibh_route want;

	if (!o->copies_left)
		return false;
	for (size_t i = 0; i < o->n_addrs; i++) {
		if (!plan_address_managed(c, &o->addrs[i].ip) || !is_first_of_prefix(c, o, i))
			continue;
		wanted_route(o, &o->addrs[i], o->table, &want);
		if (route_add_hits(have, &want))
			return false;
	}
	return true;
}

/* where the kernel's rule (route of T) equal to r is, or -1 */
static ssize_t rule_index(const struct ibh_observed *o, const struct ibh_rule *r)
{
	for (size_t j = 0; j < o->n_rules; j++)
		if (rule_equal(&o->rules[j], r))
			return (ssize_t)j;
	return -1;
}

/*
 * The route of T that keeps the kernel from adding w; not one that ib-hook
 * installed for X and that this plan deletes first, as stale (a copy whose
 * original in main changed only in its MTU: IPv6 sees the same next hop)
 */
static const struct ibh_route *table_add_hit(const struct ibh_config *c,
					     const struct ibh_observed *o,
					     const struct route_index *t, const struct ibh_route *w,
					     const struct route_index *copies)
{
	size_t first, n = route_index_dst(t, &w->dst, &first);

	/* route_add_hits() asks for the same prefix: the table's order within it */
	for (size_t k = first; k < first + n; k++) {
		const struct ibh_route *f = t->by_dst[k];
		const struct ibh_rec *owner = plan_route_owner(o, f);

		if (!route_add_hits(f, w))
			continue;
		if (owner && !owner->leftover && rec_is_for(owner, &o->link) &&
		    !table_route_wanted(c, o, f) && !is_copy(copies, f))
			continue;
		return f;
	}
	return NULL;
}

bool plan_table_route_present(const struct ibh_observed *o, size_t i)
{
	struct ibh_route want;

	wanted_route(o, &o->addrs[i], o->table, &want);
	for (size_t j = 0; j < o->n_routes; j++)
		if (route_equal(&o->routes[j], &want))
			return true;
	return false;
}

static int plan_table_routes(const struct ibh_config *c, const struct ibh_observed *o,
			     enum ibh_action action, const struct route_index *t,
			     const struct route_index *copies, struct ibh_plan *p);

/*
 * T(X) and its copies are found by destination (route_index): with tens of
 * thousands of copies (routing on the host) a scan per route would cost the
 * square of main's routes through X
 */
static int plan_routes(const struct ibh_config *c, const struct ibh_observed *o,
		       enum ibh_action action, struct ibh_plan *p)
{
	struct route_index t = {}, ci = {};
	struct ibh_route *copies = NULL;
	size_t n_copies = 0;
	int r;

	if (action == IBH_ACTION_APPLY && (r = plan_copies(c, o, &copies, &n_copies)) < 0)
		return r;
	r = route_index_build(&t, o->routes, o->n_routes);
	if (r >= 0)
		r = route_index_build(&ci, copies, n_copies);
	if (r >= 0)
		r = plan_table_routes(c, o, action, &t, &ci, p);
	route_index_free(&ci);
	route_index_free(&t);
	free(copies);
	return r;
}

/*
 * T(X) holds route r through another device: the table is someone else's (a
 * network manager's `Table=`, netplan's `routes: table:`). Said with how T
 * came about, since whoever reads it may not know that TableBase + ifindex
 * picked it, and with the way out.
 */
static int refuse_taken(const struct ibh_config *c, const struct ibh_observed *o,
			struct ibh_plan *p, const struct ibh_route *r)
{
	char route[160];

	route_format(route, sizeof(route), r);
	if (config_table_of(c, o->link.name))
		return refuse(p, -EEXIST,
			      "table %u holds route %s that ib-hook did not install; give %s "
			      "another table in [Tables]",
			      o->table, route, o->link.name);
	return refuse(p, -EEXIST,
		      "table %u holds route %s that ib-hook did not install; table %u is "
		      "TableBase %u + ifindex %d: give %s a table in [Tables]",
		      o->table, route, o->table, c->table_base, o->link.ifindex, o->link.name);
}

static int plan_table_routes(const struct ibh_config *c, const struct ibh_observed *o,
			     enum ibh_action action, const struct route_index *t,
			     const struct route_index *copies, struct ibh_plan *p)
{
	const struct ibh_route *copy = copies->routes;
	const char *x = o->link.name;
	struct ibh_route want;
	char buf[320];
	int r;

	for (size_t i = 0; i < o->n_routes; i++) {
		const struct ibh_route *have = &o->routes[i];
		const struct ibh_rec *owner = plan_route_owner(o, have);
		bool adopt = !owner && !link_known(o) && table_route_wanted(c, o, have);
		const struct ibh_route *hit;

		if (have->table != o->table)
			continue;
		if (!owner && !adopt) {
			/* the user's own routes in T stay; one through another device makes T theirs */
			if (route_has_device(have) && have->oif != o->link.ifindex)
				return refuse_taken(c, o, p, have);
			continue;
		}
		bool wanted = table_route_wanted(c, o, have) || is_copy(copies, have);

		if (owner && owner->leftover && action == IBH_ACTION_APPLY && wanted) {
			/* deleting it as a leftover would leave the link without it */
			r = push_route(p, IBH_OP_TRANSFER, IBH_REC_ROUTE, have, x, o->link.ifindex);
			if (r < 0)
				return r;
			continue;
		}
		if (owner && (owner->leftover || !rec_is_for(owner, &o->link)))
			continue; /* the leftovers' plan, or another link's */
		if (action == IBH_ACTION_APPLY && wanted) {
			if (adopt && (r = push_route(p, IBH_OP_ADOPT, IBH_REC_ROUTE, have, x,
						     o->link.ifindex)) < 0)
				return r;
			continue;
		}
		if (action == IBH_ACTION_APPLY && owner && left_to_watcher(c, o, have))
			continue;
		hit = table_delete_hit(t, i, p);
		if (hit)
			return refuse(p, -EBUSY,
				      "deleting route %s from table %u would delete route %s that "
				      "ib-hook did not install, which comes first",
				      ip_to_string(&have->dst, buf, 64, true), o->table,
				      route_format(buf + 64, sizeof(buf) - 64, hit));
		r = push_route(p, IBH_OP_ROUTE_DEL, IBH_REC_ROUTE, have, x, o->link.ifindex);
		if (r < 0)
			return r;
	}

	/* recorded routes that are gone (a link bounce empties T) */
	for (size_t i = 0; o->record && i < o->record->n; i++) {
		const struct ibh_rec *rec = &o->record->recs[i];

		if (rec->kind == IBH_REC_ROUTE && !rec->leftover && rec_is_for(rec, &o->link) &&
		    rec->route.table == o->table && route_index_find(t, &rec->route) < 0 &&
		    (r = push_forget(p, rec)) < 0)
			return r;
	}

	if (action != IBH_ACTION_APPLY)
		return 0;
	for (size_t i = 0; i < o->n_addrs; i++) {
		if (!plan_address_managed(c, &o->addrs[i].ip) || !is_first_of_prefix(c, o, i))
			continue;
		const struct ibh_route *hit;

		wanted_route(o, &o->addrs[i], o->table, &want);
		/* an identical route of the user's serves as well, and stays theirs */
		if (route_index_find(t, &want) >= 0)
			continue;
		hit = table_add_hit(c, o, t, &want, copies);
		if (hit)
			return refuse(p, -EEXIST,
				      "route %s in table %u, which ib-hook did not install, makes "
				      "the kernel refuse ib-hook's route %s",
				      route_format(buf, 96, hit), o->table,
				      ip_to_string(&want.dst, buf + 96, sizeof(buf) - 96, true));
		r = push_route(p, IBH_OP_ROUTE_ADD, IBH_REC_ROUTE, &want, x, o->link.ifindex);
		if (r < 0)
			return r;
	}
	/* after the prefix routes: the kernel looks a gateway up in T when it adds a route */
	for (size_t i = 0; i < copies->n; i++) {
		const struct ibh_route *hit;

		if (route_index_find(t, &copy[i]) >= 0)
			continue;
		hit = table_add_hit(c, o, t, &copy[i], copies);
		if (hit)
			return refuse(p, -EEXIST,
				      "route %s in table %u, which ib-hook did not install, makes "
				      "the kernel refuse ib-hook's copy of main's route %s",
				      route_format(buf, 160, hit), o->table,
				      route_format(buf + 160, sizeof(buf) - 160, &copy[i]));
		r = push_route(p, IBH_OP_ROUTE_ADD, IBH_REC_ROUTE, &copy[i], x, o->link.ifindex);
		if (r < 0)
			return r;
	}
	return 0;
}

/* index of the wanted address whose rule r is, or -1 */
static ssize_t rule_wanted_for(const struct ibh_config *c, const struct ibh_observed *o,
			       const struct ibh_rule *r)
{
	struct ibh_rule want;

	for (size_t j = 0; j < o->n_addrs; j++) {
		if (!plan_address_wanted(c, o, j))
			continue;
		wanted_rule(c, o, &o->addrs[j].ip, &want);
		if (rule_equal(r, &want))
			return (ssize_t)j;
	}
	return -1;
}

static int plan_rules(const struct ibh_config *c, const struct ibh_observed *o,
		      enum ibh_action action, struct ibh_plan *p)
{
	const char *x = o->link.name;
	bool *kept = NULL;
	char a[64];
	int r = 0;

	kept = calloc(o->n_addrs ? o->n_addrs : 1, sizeof(*kept));
	if (!kept)
		return -ENOMEM;

	for (size_t i = 0; i < o->n_rules; i++) {
		const struct ibh_rule *rule = &o->rules[i];
		const struct ibh_rec *owner = plan_rule_owner(o, rule);
		ssize_t j = rule_wanted_for(c, o, rule);
		const struct ibh_rule *hit;

		if (!owner && (link_known(o) || j < 0))
			continue; /* not ib-hook's */
		if (owner && owner->leftover && action == IBH_ACTION_APPLY && j >= 0 && !kept[j]) {
			/* deleting it as a leftover would leave the link without it */
			kept[j] = true;
			r = push_rule(p, IBH_OP_TRANSFER, rule, x, o->link.ifindex);
			if (r < 0)
				goto cleanup;
			continue;
		}
		if (owner && (owner->leftover || !rec_is_for(owner, &o->link)))
			continue;
		if (action == IBH_ACTION_APPLY && j >= 0 && !kept[j]) {
			kept[j] = true;
			if (!owner)
				r = push_rule(p, IBH_OP_ADOPT, rule, x, o->link.ifindex);
			if (r < 0)
				goto cleanup;
			continue;
		}
		hit = plan_rule_delete_hits(o, i);
		if (hit) {
			r = refuse(p, -EBUSY,
				   "deleting rule from %s lookup %u would delete '%s' that ib-hook "
				   "did not install, which comes first",
				   ip_to_string(&rule->src, a, sizeof(a), false), rule->table,
				   hit->desc);
			goto cleanup;
		}
		r = push_rule(p, IBH_OP_RULE_DEL, rule, x, o->link.ifindex);
		if (r < 0)
			goto cleanup;
	}

	for (size_t i = 0; o->record && i < o->record->n; i++) {
		const struct ibh_rec *rec = &o->record->recs[i];

		if (rec->kind == IBH_REC_RULE && !rec->leftover && rec_is_for(rec, &o->link) &&
		    rule_index(o, &rec->rule) < 0 && (r = push_forget(p, rec)) < 0)
			goto cleanup;
	}

	for (size_t j = 0; j < o->n_addrs && action == IBH_ACTION_APPLY; j++) {
		struct ibh_rule want;
		const struct ibh_rule *hit;

		if (kept[j] || !plan_address_wanted(c, o, j))
			continue;
		wanted_rule(c, o, &o->addrs[j].ip, &want);
		/* two addresses equal but for their prefix length want one rule */
		if (rule_wanted_for(c, o, &want) != (ssize_t)j || rule_index(o, &want) >= 0)
			continue;
		hit = plan_rule_add_hits(o, &want);
		if (hit) {
			r = refuse(p, -EEXIST,
				   "rule '%s', which ib-hook did not install, makes the kernel "
				   "refuse rule from %s lookup %u priority %u",
				   hit->desc, ip_to_string(&want.src, a, sizeof(a), false),
				   want.table, want.priority);
			goto cleanup;
		}
		r = push_rule(p, IBH_OP_RULE_ADD, &want, x, o->link.ifindex);
		if (r < 0)
			goto cleanup;
	}
cleanup:
	free(kept);
	return r;
}

/* the route the kernel makes in main for address a (none under noprefixroute) */
static void kernel_prefix_route(const struct ibh_observed *o, const struct ibh_addr *a,
				struct ibh_route *ret)
{
	wanted_route(o, a, RT_TABLE_MAIN, ret);
	/* an address's metric (IFA_RT_PRIORITY) is its prefix route's */
	if (a->metric || a->ip.family == AF_INET)
		ret->metric = a->metric;
}

/* main's route for prefix through the link, whoever made it */
const struct ibh_route *plan_main_route(const struct ibh_observed *o, const struct ibh_ip *prefix)
{
	for (size_t j = 0; j < o->n_main_routes; j++) {
		const struct ibh_route *m = &o->main_routes[j];

		if (ip_equal(&m->dst, prefix) && m->oif == o->link.ifindex &&
		    m->table == RT_TABLE_MAIN)
			return m;
	}
	return NULL;
}

/*
 * o->addrs[i]'s prefix route in main is the one the kernel made for the
 * address, every field as the kernel makes it: only that one is ib-hook's to
 * delete under MainRoute=delete. A route with a metric or an MTU of the
 * user's, or NetworkManager's (its addresses are noprefixroute), is not.
 */
bool plan_main_route_is_kernels(const struct ibh_observed *o, size_t i)
{
	struct ibh_route want;
	const struct ibh_route *have;

	kernel_prefix_route(o, &o->addrs[i], &want);
	have = plan_main_route(o, &want.dst);
	return have && !o->addrs[i].noprefixroute && route_equal(have, &want);
}

/* the route ib-hook deleted from main is there again, exactly */
static bool main_route_back(const struct ibh_observed *o, const struct ibh_route *deleted)
{
	for (size_t j = 0; j < o->n_main_routes; j++)
		if (route_equal(&o->main_routes[j], deleted))
			return true;
	return false;
}

/* the record says ib-hook deleted want from main for the link */
static bool main_deleted(const struct ibh_observed *o, const struct ibh_route *want)
{
	struct ibh_rec rec = { .kind = IBH_REC_MAIN, .route = *want };
	const struct ibh_rec *have = o->record ? record_find(o->record, &rec) : NULL;

	return have && !have->leftover && rec_is_for(have, &o->link);
}

static int plan_main(const struct ibh_config *c, const struct ibh_observed *o,
		     enum ibh_action action, struct ibh_plan *p)
{
	const char *x = o->link.name;
	struct ibh_route want;
	int r;

	if (!o->main_known)
		return 0;
	for (size_t i = 0; i < o->n_addrs; i++) {
		const struct ibh_route *have;

		if (!plan_address_managed(c, &o->addrs[i].ip) || !is_first_of_prefix(c, o, i))
			continue;
		kernel_prefix_route(o, &o->addrs[i], &want);
		have = plan_main_route(o, &want.dst);
		if (action == IBH_ACTION_APPLY && c->main_route == IBH_MAIN_DELETE &&
		    plan_main_route_is_kernels(o, i)) {
			struct ibh_route del = *have;

			snprintf(del.oif_name, sizeof(del.oif_name), "%s", x);
			r = push_route(p, IBH_OP_MAIN_DEL, IBH_REC_MAIN, &del, x, o->link.ifindex);
		} else if (action == IBH_ACTION_REMOVE && c->main_route == IBH_MAIN_DELETE &&
			   o->link.up && !o->addrs[i].noprefixroute &&
			   (main_deleted(o, &want) ? !plan_main_route_is_kernels(o, i)
						   : !have && !link_known(o)))
			/*
			 * what ib-hook deleted comes back, exactly; a link it
			 * has no record of (0.1.0 kept none) gets the kernel's
			 * route when none reaches the prefix through it
			 */
			r = push_route(p, IBH_OP_MAIN_RESTORE, IBH_REC_MAIN, &want, x,
				       o->link.ifindex);
		else
			continue;
		if (r < 0)
			return r;
	}
	/*
	 * prefix routes ib-hook took out of main and that are back (deleted again
	 * above: a repair), or are not to come back
	 */
	for (size_t i = 0; o->record && i < o->record->n; i++) {
		const struct ibh_rec *rec = &o->record->recs[i];
		bool planned = false;

		if (rec->kind != IBH_REC_MAIN || rec->leftover || !rec_is_for(rec, &o->link))
			continue;
		for (size_t k = 0; k < p->n_ops && !planned; k++)
			planned = (p->ops[k].kind == IBH_OP_MAIN_RESTORE ||
				   p->ops[k].kind == IBH_OP_MAIN_DEL) &&
				  ip_equal(&p->ops[k].route.dst, &rec->route.dst);
		if (((action == IBH_ACTION_REMOVE && !planned) ||
		     main_route_back(o, &rec->route)) &&
		    (r = push_forget(p, rec)) < 0)
			return r;
	}
	return 0;
}

static int plan_sysctls(const struct ibh_config *c, const struct ibh_observed *o,
			struct ibh_plan *p)
{
	bool ipv4 = false;

	for (size_t i = 0; i < o->n_addrs; i++)
		ipv4 |= o->addrs[i].ip.family == AF_INET;
	if (!ipv4)
		return 0;
	for (int k = 0; k < IBH_SYSCTL_MAX; k++) {
		struct ibh_op op = { .kind = IBH_OP_SYSCTL };
		int r;

		if (c->sysctl[k] == IBH_SYSCTL_KEEP || o->sysctl[k] == c->sysctl[k])
			continue;
		op.sysctl.key = (enum ibh_sysctl)k;
		op.sysctl.value = c->sysctl[k];
		r = push(p, &op);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * [IPoIB] on an InfiniBand link: the mode first (the driver changes the MTU
 * with it: connected allows up to 65520, datagram 2044 or 4092), then the
 * MTU. A mode or MTU that could not be read is left alone.
 */
static int plan_ipoib(const struct ibh_config *c, const struct ibh_observed *o, struct ibh_plan *p)
{
	int r;

	if (o->link.type != ARPHRD_INFINIBAND)
		return 0;
	if (c->ipoib_mode != IBH_IPOIB_KEEP && o->ipoib_mode != IBH_IPOIB_KEEP &&
	    o->ipoib_mode != c->ipoib_mode) {
		struct ibh_op op = { .kind = IBH_OP_IPOIB_MODE, .mode = c->ipoib_mode };

		r = push(p, &op);
		if (r < 0)
			return r;
	}
	if (c->ipoib_mtu && o->mtu && (o->mtu != c->ipoib_mtu || p->n_ops)) {
		struct ibh_op op = { .kind = IBH_OP_MTU, .mtu = c->ipoib_mtu };

		return push(p, &op);
	}
	return 0;
}

int plan_build(const struct ibh_config *c, const struct ibh_observed *o, enum ibh_action action,
	       struct ibh_plan *ret)
{
	static const struct ibh_record none;
	struct ibh_observed view = *o;
	struct ibh_plan p = {};
	bool routing = false;
	int r;

	if (!view.record)
		view.record = &none;
	if (action == IBH_ACTION_NONE)
		goto done;
	if (o->table == 0) {
		/* only TableBase + ifindex can fall there: [Tables] entries are checked on load */
		uint64_t t = (uint64_t)c->table_base + (uint64_t)o->link.ifindex;

		refuse(&p, -ERANGE,
		       "table %llu (TableBase %u + ifindex %d) is %s; give %s a table in [Tables]",
		       (unsigned long long)t, c->table_base, o->link.ifindex,
		       t > UINT32_MAX ? "above 4294967295" : "reserved (0, 253-255)", o->link.name);
		goto done;
	}
	if (o->table_shared_with[0]) {
		refuse(&p, -EEXIST,
		       "table %u is also the table of '%s'; give each its own in [Tables]",
		       o->table, o->table_shared_with);
		goto done;
	}

	/* before routing: a mode change re-creates the link's paths and may change its MTU */
	if (action == IBH_ACTION_APPLY) {
		r = plan_ipoib(c, &view, &p);
		if (r < 0)
			goto fail;
	}
	r = plan_routes(c, &view, action, &p);
	if (r < 0)
		goto fail;
	if (p.refused)
		goto done;
	r = plan_rules(c, &view, action, &p);
	if (r < 0)
		goto fail;
	if (p.refused)
		goto done;
	r = plan_main(c, &view, action, &p);
	if (r < 0)
		goto fail;
	/*
	 * From now on the record speaks for the link: what 0.1.0 installed was
	 * adopted above, and an object that equals a wanted one is the user's.
	 */
	if (!link_known(&view)) {
		struct ibh_op op = { .kind = IBH_OP_ADOPT, .ifindex = o->link.ifindex };

		op.rec.kind = IBH_REC_LINK;
		op.rec.ifindex = o->link.ifindex;
		snprintf(op.rec.ifname, sizeof(op.rec.ifname), "%s", o->link.name);
		snprintf(op.ifname, sizeof(op.ifname), "%s", o->link.name);
		r = push(&p, &op);
		if (r < 0)
			goto fail;
	}
	for (size_t i = 0; i < p.n_ops; i++)
		routing |= op_kind(p.ops[i].kind)->routing;
	if (action == IBH_ACTION_APPLY) {
		r = plan_sysctls(c, &view, &p);
		if (r < 0)
			goto fail;
	}
	/* peers must re-resolve through the right port once routing moved */
	if (routing && o->link.up) {
		struct ibh_op op = { .kind = IBH_OP_NEIGH_FLUSH, .ifindex = o->link.ifindex };

		snprintf(op.ifname, sizeof(op.ifname), "%s", o->link.name);
		r = push(&p, &op);
		if (r < 0)
			goto fail;
	}
	for (size_t i = 0; i < p.n_ops; i++)
		if (!p.ops[i].ifname[0]) {
			snprintf(p.ops[i].ifname, sizeof(p.ops[i].ifname), "%s", o->link.name);
			p.ops[i].ifindex = o->link.ifindex;
		}
done:
	*ret = p;
	return 0;
fail:
	plan_clear(&p);
	return r;
}

struct leftover_route {
	size_t at;
	const struct ibh_rec *rec;
};

static int by_place(const void *a, const void *b)
{
	const struct leftover_route *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

/* the leftover routes found in T, in the kernel's order: an earlier one first */
static int delete_leftover_routes(struct ibh_plan *p, const struct ibh_observed *o,
				  const struct route_index *t, const struct leftover_route *dels,
				  size_t n_dels)
{
	char buf[160];
	int r = 0;

	for (size_t k = 0; k < n_dels && r >= 0 && !p->refused; k++) {
		const struct ibh_rec *rec = dels[k].rec;
		const struct ibh_route *hit = table_delete_hit(t, dels[k].at, p);

		if (hit)
			r = refuse(p, -EBUSY,
				   "deleting leftover route %s from table %u would delete "
				   "route %s that ib-hook did not install, which comes first",
				   ip_to_string(&rec->route.dst, buf, 64, true), rec->route.table,
				   route_format(buf + 64, sizeof(buf) - 64, hit));
		else
			r = push_route(p, IBH_OP_ROUTE_DEL, IBH_REC_ROUTE, &o->routes[dels[k].at],
				       rec->ifname, rec->ifindex);
	}
	return r;
}

int plan_leftovers(const struct ibh_observed *o, struct ibh_plan *ret)
{
	struct ibh_plan p = {};
	struct route_index t;
	/* the leftover routes found in T, deleted in the kernel's order: an earlier one first */
	struct leftover_route *dels = NULL;
	size_t n_dels = 0, cap_dels = 0;
	bool routes_done = false;
	char buf[160];
	int r = route_index_build(&t, o->routes, o->n_routes);

	/* first the leftover routes found in T, to be deleted in the kernel's order */
	for (size_t i = 0; o->record && i < o->record->n && r >= 0; i++) {
		const struct ibh_rec *rec = &o->record->recs[i];
		ssize_t at;

		if (!rec->leftover || rec->kind != IBH_REC_ROUTE)
			continue;
		at = route_index_find(&t, &rec->route);
		if (at >= 0 && (r = array_grow(&dels, &cap_dels, n_dels, sizeof(*dels), 8)) >= 0) {
			dels[n_dels].at = (size_t)at;
			dels[n_dels++].rec = rec;
		}
	}
	if (n_dels)
		qsort(dels, n_dels, sizeof(*dels), by_place);
	for (size_t i = 0; o->record && i < o->record->n && r >= 0 && !p.refused; i++) {
		const struct ibh_rec *rec = &o->record->recs[i];
		ssize_t at;

		if (!rec->leftover)
			continue;
		switch (rec->kind) {
		case IBH_REC_RULE:
			at = rule_index(o, &rec->rule);
			if (at < 0) {
				r = push_forget(&p, rec);
			} else if (plan_rule_delete_hits(o, (size_t)at)) {
				r = refuse(&p, -EBUSY,
					   "deleting leftover rule from %s lookup %u would delete "
					   "'%s' that ib-hook did not install, which comes first",
					   ip_to_string(&rec->rule.src, buf, sizeof(buf), false),
					   rec->rule.table,
					   plan_rule_delete_hits(o, (size_t)at)->desc);
			} else
				r = push_rule(&p, IBH_OP_RULE_DEL, &o->rules[at], rec->ifname,
					      rec->ifindex);
			break;
		case IBH_REC_ROUTE:
			at = route_index_find(&t, &rec->route);
			if (at < 0)
				r = push_forget(&p, rec);
			else if (!routes_done)
				r = delete_leftover_routes(&p, o, &t, dels, n_dels);
			routes_done |= at >= 0;
			break;
		case IBH_REC_LINK:
			r = push_forget(&p, rec);
			break;
		case IBH_REC_MAIN:
			if (main_route_back(o, &rec->route) || !o->main_known)
				r = push_forget(&p, rec);
			else
				r = push_route(&p, IBH_OP_MAIN_RESTORE, IBH_REC_MAIN, &rec->route,
					       rec->ifname, rec->ifindex);
			break;
		}
	}
	free(dels);
	route_index_free(&t);
	if (r < 0) {
		plan_clear(&p);
		return r;
	}
	*ret = p;
	return 0;
}

void plan_clear(struct ibh_plan *p)
{
	free(p->ops);
	memset(p, 0, sizeof(*p));
}

void observed_clear(struct ibh_observed *o)
{
	free(o->addrs);
	free(o->taken);
	free(o->rules);
	free(o->routes);
	free(o->main_routes);
	free(o->main_reaches);
	free(o->gids);
	free(o->main_via);
	free(o->main_unreachable);
	index_set_free(&o->ports);
	memset(o, 0, sizeof(*o));
}
