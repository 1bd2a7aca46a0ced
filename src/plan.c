// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * plan: a pure function from (config, observed state of one interface) to the
 * list of operations that brings the kernel to the state SPEC section 3
 * describes. No I/O here: what the unit tests check and --dry-run prints is
 * exactly what apply executes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "plan.h"

#define IPV6_LINK_LOCAL(a) ((a)[0] == 0xfe && ((a)[1] & 0xc0) == 0x80)

static unsigned int ip_bits(uint8_t family)
{
	return family == AF_INET ? 32 : 128;
}

void ip_prefix(struct ibh_ip *ret, const struct ibh_ip *a)
{
	unsigned int bytes = ip_bits(a->family) / 8;

	*ret = *a;
	for (unsigned int i = 0; i < bytes; i++) {
		unsigned int first = i * 8;

		if (first >= a->len)
			ret->a[i] = 0;
		else if (first + 8 > a->len)
			ret->a[i] &= (uint8_t)(0xff << (8 - (a->len - first)));
	}
	for (unsigned int i = bytes; i < sizeof(ret->a); i++)
		ret->a[i] = 0;
}

bool ip_same_address(const struct ibh_ip *a, const struct ibh_ip *b)
{
	return a->family == b->family && memcmp(a->a, b->a, ip_bits(a->family) / 8) == 0;
}

bool ip_equal(const struct ibh_ip *a, const struct ibh_ip *b)
{
	return ip_same_address(a, b) && a->len == b->len;
}

const char *ip_to_string(const struct ibh_ip *a, char *buf, size_t size, bool with_len)
{
	char tmp[INET6_ADDRSTRLEN];

	if (!inet_ntop(a->family, a->a, tmp, sizeof(tmp)))
		snprintf(tmp, sizeof(tmp), "?");
	if (with_len)
		snprintf(buf, size, "%s/%u", tmp, a->len);
	else
		snprintf(buf, size, "%s", tmp);
	return buf;
}

bool plan_address_managed(const struct ibh_config *c, const struct ibh_ip *a)
{
	if (a->family == AF_INET)
		return true;
	return a->family == AF_INET6 && c->ipv6 && !IPV6_LINK_LOCAL(a->a);
}

static bool table_is_ibhook(const struct ibh_config *c, uint32_t table)
{
	return config_table_is_listed(c, table) || table > c->table_base;
}

bool plan_rule_is_ours(const struct ibh_config *c, const struct ibh_observed *o,
		       const struct ibh_rule *r)
{
	/* before 4.17 rules have no protocol: priority, shape and table must do */
	return r->plain && r->priority == c->priority && table_is_ibhook(c, r->table) &&
	       (!o->rule_protocol || r->protocol == RTPROT_KERNEL) &&
	       r->src.len == ip_bits(r->src.family);
}

bool plan_route_is_ours(const struct ibh_route *r)
{
	return r->protocol == RTPROT_KERNEL && r->type == RTN_UNICAST && !r->gateway &&
	       (r->dst.family == AF_INET6 || r->scope == RT_SCOPE_LINK);
}

static int push(struct ibh_plan *p, const struct ibh_op *op)
{
	if (p->n_ops == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct ibh_op *ops = realloc(p->ops, cap * sizeof(*ops));

		if (!ops)
			return -ENOMEM;
		p->ops = ops;
		p->cap = cap;
	}
	p->ops[p->n_ops++] = *op;
	return 0;
}

static int push_rule(struct ibh_plan *p, enum ibh_op_kind kind, const struct ibh_rule *r)
{
	struct ibh_op op = { .kind = kind, .rule = *r };

	return push(p, &op);
}

static int push_route(struct ibh_plan *p, enum ibh_op_kind kind, const struct ibh_route *r,
		      bool maybe)
{
	struct ibh_op op = { .kind = kind, .route = *r, .maybe = maybe };

	return push(p, &op);
}

/* the route apply installs in T for the prefix of address a */
static void wanted_route(const struct ibh_observed *o, const struct ibh_ip *a, uint32_t table,
			 struct ibh_route *ret)
{
	memset(ret, 0, sizeof(*ret));
	ip_prefix(&ret->dst, a);
	if (a->family == AF_INET) {
		ret->src = *a;
		ret->src.len = 32;
		ret->scope = RT_SCOPE_LINK;
	} else
		ret->scope = RT_SCOPE_UNIVERSE;
	ret->oif = o->link.ifindex;
	ret->table = table;
	ret->protocol = RTPROT_KERNEL;
	ret->type = RTN_UNICAST;
	snprintf(ret->oif_name, sizeof(ret->oif_name), "%s", o->link.name);
}

static bool route_matches(const struct ibh_route *have, const struct ibh_route *want)
{
	if (!ip_equal(&have->dst, &want->dst) || have->oif != want->oif ||
	    !plan_route_is_ours(have))
		return false;
	/* IPv6 routes carry no preferred source: ib-hook never sets one */
	if (want->dst.family == AF_INET6)
		return true;
	return have->src.family == AF_INET && ip_same_address(&have->src, &want->src) &&
	       have->metric == 0;
}

/* index of the first managed address of o whose prefix is that of a, i.e. the primary */
static bool is_first_of_prefix(const struct ibh_config *c, const struct ibh_observed *o, size_t i)
{
	struct ibh_ip pi, pj;

	ip_prefix(&pi, &o->addrs[i]);
	for (size_t j = 0; j < i; j++) {
		if (!plan_address_managed(c, &o->addrs[j]))
			continue;
		ip_prefix(&pj, &o->addrs[j]);
		if (ip_equal(&pi, &pj))
			return false;
	}
	return true;
}

static bool has_address(const struct ibh_config *c, const struct ibh_observed *o,
			const struct ibh_ip *host)
{
	for (size_t i = 0; i < o->n_addrs; i++)
		if (plan_address_managed(c, &o->addrs[i]) && ip_same_address(&o->addrs[i], host))
			return true;
	return false;
}

static bool wants_prefix(const struct ibh_config *c, const struct ibh_observed *o,
			 const struct ibh_ip *prefix)
{
	struct ibh_ip p;

	for (size_t i = 0; i < o->n_addrs; i++) {
		if (!plan_address_managed(c, &o->addrs[i]))
			continue;
		ip_prefix(&p, &o->addrs[i]);
		if (ip_equal(&p, prefix))
			return true;
	}
	return false;
}

static int refuse(struct ibh_plan *p, int error, const char *why)
{
	plan_clear(p);
	p->refused = error;
	snprintf(p->why, sizeof(p->why), "%s", why);
	return 0;
}

static int plan_routes(const struct ibh_config *c, const struct ibh_observed *o,
		       enum ibh_action action, struct ibh_plan *p)
{
	struct ibh_route want;
	int r;

	for (size_t i = 0; i < o->n_routes; i++) {
		const struct ibh_route *have = &o->routes[i];

		if (have->oif == o->link.ifindex) {
			/* a route the user put on X in T (a gateway, another metric) is theirs */
			if (!plan_route_is_ours(have))
				continue;
			if (action == IBH_ACTION_APPLY && wants_prefix(c, o, &have->dst))
				continue;
		} else if (!have->oif_managed || !plan_route_is_ours(have)) {
			char why[160], dst[64];

			snprintf(
				why, sizeof(why),
				"table %u holds route %s through '%s' that ib-hook did not install",
				o->table, ip_to_string(&have->dst, dst, sizeof(dst), true),
				have->oif_name[0] ? have->oif_name : "another device");
			return refuse(p, -EEXIST, why);
		}
		r = push_route(p, IBH_OP_ROUTE_DEL, have, false);
		if (r < 0)
			return r;
	}
	if (action != IBH_ACTION_APPLY)
		return 0;

	for (size_t i = 0; i < o->n_addrs; i++) {
		bool present = false;

		if (!plan_address_managed(c, &o->addrs[i]) || !is_first_of_prefix(c, o, i))
			continue;
		wanted_route(o, &o->addrs[i], o->table, &want);
		for (size_t j = 0; j < o->n_routes && !present; j++)
			present = route_matches(&o->routes[j], &want);
		if (!present) {
			r = push_route(p, IBH_OP_ROUTE_REPLACE, &want, false);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

bool plan_table_route_ok(const struct ibh_config *c, const struct ibh_observed *o, size_t i)
{
	struct ibh_route want;
	size_t primary = i;

	for (size_t j = 0; j < o->n_addrs; j++)
		if (plan_address_managed(c, &o->addrs[j]) && is_first_of_prefix(c, o, j)) {
			struct ibh_ip pi, pj;

			ip_prefix(&pi, &o->addrs[i]);
			ip_prefix(&pj, &o->addrs[j]);
			if (ip_equal(&pi, &pj)) {
				primary = j;
				break;
			}
		}
	wanted_route(o, &o->addrs[primary], o->table, &want);
	for (size_t j = 0; j < o->n_routes; j++)
		if (route_matches(&o->routes[j], &want))
			return true;
	return false;
}

/* two addresses equal but for their prefix length want one rule */
static bool same_address_before(const struct ibh_config *c, const struct ibh_observed *o, size_t j)
{
	for (size_t k = 0; k < j; k++)
		if (plan_address_managed(c, &o->addrs[k]) &&
		    ip_same_address(&o->addrs[k], &o->addrs[j]))
			return true;
	return false;
}

static int plan_rules(const struct ibh_config *c, const struct ibh_observed *o,
		      enum ibh_action action, struct ibh_plan *p)
{
	bool *kept = NULL;
	int r = 0;

	if (o->n_addrs) {
		kept = calloc(o->n_addrs, sizeof(*kept));
		if (!kept)
			return -ENOMEM;
	}

	for (size_t i = 0; i < o->n_rules; i++) {
		const struct ibh_rule *rule = &o->rules[i];
		bool keep = false;

		if (!plan_rule_is_ours(c, o, rule))
			continue;
		if (rule->table == o->table) {
			for (size_t j = 0; j < o->n_addrs && action == IBH_ACTION_APPLY; j++)
				if (!kept[j] && plan_address_managed(c, &o->addrs[j]) &&
				    ip_same_address(&o->addrs[j], &rule->src)) {
					kept[j] = keep = true;
					break;
				}
		} else if (!has_address(c, o, &rule->src) && rule->live)
			continue; /* another interface's rule */
		if (keep)
			continue;
		r = push_rule(p, IBH_OP_RULE_DEL, rule);
		if (r < 0)
			goto cleanup;
	}

	for (size_t j = 0; j < o->n_addrs && action == IBH_ACTION_APPLY; j++) {
		struct ibh_rule want = {
			.table = o->table,
			.priority = c->priority,
			.protocol = RTPROT_KERNEL,
			.plain = true,
			.live = true,
		};

		if (kept[j] || !plan_address_managed(c, &o->addrs[j]))
			continue;
		if (same_address_before(c, o, j))
			continue;
		want.src = o->addrs[j];
		want.src.len = (uint8_t)ip_bits(want.src.family);
		r = push_rule(p, IBH_OP_RULE_ADD, &want);
		if (r < 0)
			goto cleanup;
	}
cleanup:
	free(kept);
	return r;
}

static int plan_main(const struct ibh_config *c, const struct ibh_observed *o, struct ibh_plan *p)
{
	struct ibh_route want;
	int r;

	for (size_t i = 0; i < o->n_addrs; i++) {
		bool present = !o->main_known;

		if (!plan_address_managed(c, &o->addrs[i]) || !is_first_of_prefix(c, o, i))
			continue;
		wanted_route(o, &o->addrs[i], RT_TABLE_MAIN, &want);
		for (size_t j = 0; j < o->n_main_routes && !present; j++)
			present = ip_equal(&o->main_routes[j].dst, &want.dst) &&
				  o->main_routes[j].oif == o->link.ifindex &&
				  o->main_routes[j].protocol == RTPROT_KERNEL;
		if (!present)
			continue;
		/* match any metric and source: the kernel's own route is the one to go */
		want.src.family = 0;
		want.scope = RT_SCOPE_NOWHERE;
		r = push_route(p, IBH_OP_MAIN_DEL, &want, !o->main_known);
		if (r < 0)
			return r;
	}
	return 0;
}

static int plan_sysctls(const struct ibh_config *c, const struct ibh_observed *o,
			struct ibh_plan *p)
{
	bool ipv4 = false;

	for (size_t i = 0; i < o->n_addrs; i++)
		ipv4 |= o->addrs[i].family == AF_INET;
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

int plan_build(const struct ibh_config *c, const struct ibh_observed *o, enum ibh_action action,
	       struct ibh_plan *ret)
{
	struct ibh_plan p = {};
	size_t routing_ops;
	int r;

	if (action == IBH_ACTION_NONE)
		goto done;
	if (o->table == 0) {
		refuse(&p, -ERANGE, "its table number falls on a reserved table (0, 253-255)");
		goto done;
	}

	r = plan_routes(c, o, action, &p);
	if (r < 0)
		goto fail;
	if (p.refused)
		goto done;
	r = plan_rules(c, o, action, &p);
	if (r < 0)
		goto fail;
	if (action == IBH_ACTION_APPLY && c->main_route == IBH_MAIN_DELETE) {
		r = plan_main(c, o, &p);
		if (r < 0)
			goto fail;
	}
	routing_ops = p.n_ops;
	if (action == IBH_ACTION_APPLY) {
		r = plan_sysctls(c, o, &p);
		if (r < 0)
			goto fail;
	}
	/* peers must re-resolve through the right port once routing moved */
	if (routing_ops > 0 && o->link.up) {
		struct ibh_op op = { .kind = IBH_OP_NEIGH_FLUSH };

		r = push(&p, &op);
		if (r < 0)
			goto fail;
	}
done:
	*ret = p;
	return 0;
fail:
	plan_clear(&p);
	return r;
}

bool plan_op_is_drift(const struct ibh_op *op)
{
	return op->kind != IBH_OP_NEIGH_FLUSH && !op->maybe;
}

void plan_clear(struct ibh_plan *p)
{
	free(p->ops);
	memset(p, 0, sizeof(*p));
}

void observed_clear(struct ibh_observed *o)
{
	free(o->addrs);
	free(o->rules);
	free(o->routes);
	free(o->main_routes);
	memset(o, 0, sizeof(*o));
}

static const char *family_flag(uint8_t family)
{
	return family == AF_INET6 ? " -6" : "";
}

static void format_table(char *buf, size_t size, uint32_t table)
{
	if (table == RT_TABLE_MAIN)
		snprintf(buf, size, "main");
	else
		snprintf(buf, size, "%u", table);
}

void plan_format_op(FILE *f, const char *ifname, const struct ibh_op *op)
{
	char a[64], b[64], t[16];

	switch (op->kind) {
	case IBH_OP_ROUTE_REPLACE:
	case IBH_OP_ROUTE_DEL:
	case IBH_OP_MAIN_DEL:
		format_table(t, sizeof(t), op->route.table);
		fprintf(f, "ip%s route %s %s dev %s", family_flag(op->route.dst.family),
			op->kind == IBH_OP_ROUTE_REPLACE ? "replace" : "del",
			ip_to_string(&op->route.dst, a, sizeof(a), true),
			op->route.oif_name[0] ? op->route.oif_name : ifname);
		if (op->kind != IBH_OP_MAIN_DEL) {
			fprintf(f, " proto kernel");
			if (op->route.dst.family == AF_INET)
				fprintf(f, " scope link");
		} else
			fprintf(f, " proto kernel");
		if (op->route.src.family && op->kind != IBH_OP_MAIN_DEL)
			fprintf(f, " src %s", ip_to_string(&op->route.src, b, sizeof(b), false));
		fprintf(f, " table %s\n", t);
		break;
	case IBH_OP_RULE_ADD:
	case IBH_OP_RULE_DEL:
		fprintf(f, "ip%s rule %s from %s lookup %u priority %u%s\n",
			family_flag(op->rule.src.family),
			op->kind == IBH_OP_RULE_ADD ? "add" : "del",
			ip_to_string(&op->rule.src, a, sizeof(a), false), op->rule.table,
			op->rule.priority, op->kind == IBH_OP_RULE_ADD ? " protocol kernel" : "");
		break;
	case IBH_OP_SYSCTL:
		fprintf(f, "sysctl -w net.ipv4.conf.");
		/* sysctl(8) writes the dots of a name (ib0.8001) as slashes */
		for (const char *s = ifname; *s; s++)
			fputc(*s == '.' ? '/' : *s, f);
		fprintf(f, ".%s=%d\n", sysctl_name(op->sysctl.key), op->sysctl.value);
		break;
	case IBH_OP_NEIGH_FLUSH:
		fprintf(f, "ip neigh flush dev %s\n", ifname);
		break;
	}
}

void plan_describe_op(char *buf, size_t size, const char *ifname, const struct ibh_op *op)
{
	char a[64], b[64], t[16];

	switch (op->kind) {
	case IBH_OP_ROUTE_REPLACE:
		format_table(t, sizeof(t), op->route.table);
		snprintf(buf, size, "set route %s%s%s in table %s",
			 ip_to_string(&op->route.dst, a, sizeof(a), true),
			 op->route.src.family ? " src " : "",
			 op->route.src.family ? ip_to_string(&op->route.src, b, sizeof(b), false)
					      : "",
			 t);
		break;
	case IBH_OP_ROUTE_DEL:
	case IBH_OP_MAIN_DEL:
		format_table(t, sizeof(t), op->route.table);
		snprintf(buf, size, "deleted route %s dev %s from table %s",
			 ip_to_string(&op->route.dst, a, sizeof(a), true),
			 op->route.oif_name[0] ? op->route.oif_name : ifname, t);
		break;
	case IBH_OP_RULE_ADD:
	case IBH_OP_RULE_DEL:
		snprintf(buf, size, "%s rule from %s lookup %u priority %u",
			 op->kind == IBH_OP_RULE_ADD ? "added" : "deleted",
			 ip_to_string(&op->rule.src, a, sizeof(a), false), op->rule.table,
			 op->rule.priority);
		break;
	case IBH_OP_SYSCTL:
		snprintf(buf, size, "set %s=%d", sysctl_name(op->sysctl.key), op->sysctl.value);
		break;
	case IBH_OP_NEIGH_FLUSH:
		snprintf(buf, size, "flushed neighbour entries");
		break;
	}
}
