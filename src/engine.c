// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * observe -> plan -> apply for one interface at a time, and the reports of
 * --dry-run and --status. This is the level that logs: netlink.c and plan.c
 * only return codes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "engine.h"
#include "log.h"
#include "netlink.h"
#include "plan.h"
#include "select.h"
#include "sysctl.h"

struct ibh_engine {
	const struct ibh_config *config;
	struct ibh_nl *nl;
	/* the namespace's rules, read once and again only after ib-hook changed them */
	struct ibh_rule *rules;
	size_t n_rules;
	bool rule_protocol;
	bool rules_valid;
	/* links and addresses of the namespace, read once by --all */
	struct ibh_link *links;
	size_t n_links;
	struct ibh_addr_entry *addrs;
	size_t n_addrs;
	bool all_valid;
};

static const char *action_name(enum ibh_action a)
{
	return a == IBH_ACTION_REMOVE ? "remove" : "apply";
}

static const char *errno_hint(int r)
{
	return r == -EPERM || r == -EACCES ? " (ib-hook needs root or CAP_NET_ADMIN)" : "";
}

int engine_new(const struct ibh_config *c, struct ibh_engine **ret)
{
	struct ibh_engine *e = calloc(1, sizeof(*e));
	int r;

	if (!e)
		return -ENOMEM;
	e->config = c;
	r = netlink_open(&e->nl);
	if (r < 0) {
		free(e);
		return r;
	}
	*ret = e;
	return 0;
}

void engine_free(struct ibh_engine *e)
{
	if (!e)
		return;
	netlink_close(e->nl);
	free(e->rules);
	free(e->links);
	free(e->addrs);
	free(e);
}

/* the link whose table t is exists: its rules are not orphans */
static bool table_is_live(const struct ibh_engine *e, uint32_t t)
{
	const struct ibh_config *c = e->config;
	char name[IF_NAMESIZE];

	for (size_t i = 0; i < c->n_tables; i++)
		if (c->tables[i].table == t)
			return if_nametoindex(c->tables[i].ifname) > 0;
	if (t <= c->table_base || t - c->table_base > INT32_MAX)
		return false;
	if (e->all_valid) {
		for (size_t i = 0; i < e->n_links; i++)
			if (e->links[i].ifindex == (int)(t - c->table_base))
				return config_table_of(c, e->links[i].name) == 0;
		return false;
	}
	if (!if_indextoname(t - c->table_base, name))
		return false;
	/* a [Tables] entry takes the link out of the computed range */
	return config_table_of(c, name) == 0;
}

static int load_rules(struct ibh_engine *e)
{
	int r;

	if (e->rules_valid)
		return 0;
	free(e->rules);
	e->rules = NULL;
	r = netlink_dump_rules(e->nl, &e->rules, &e->n_rules, &e->rule_protocol);
	if (r < 0)
		return r;
	e->rules_valid = true;
	return 0;
}

static int observe(struct ibh_engine *e, const struct ibh_link *link, bool status,
		   struct ibh_observed *o)
{
	const struct ibh_config *c = e->config;
	struct ibh_addr_entry *addrs = NULL;
	size_t n_addrs = 0;
	int r;

	memset(o, 0, sizeof(*o));
	o->link = *link;
	o->table = config_table(c, link->name, link->ifindex);

	if (e->all_valid) {
		addrs = e->addrs;
		n_addrs = e->n_addrs;
	} else {
		r = netlink_dump_addrs(e->nl, link->ifindex, &addrs, &n_addrs);
		if (r < 0)
			return r;
	}
	o->addrs = calloc(n_addrs ? n_addrs : 1, sizeof(*o->addrs));
	if (!o->addrs) {
		r = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < n_addrs; i++)
		if (addrs[i].ifindex == link->ifindex)
			o->addrs[o->n_addrs++] = addrs[i].ip;

	r = load_rules(e);
	if (r < 0)
		goto cleanup;
	o->rules = malloc((e->n_rules ? e->n_rules : 1) * sizeof(*o->rules));
	if (!o->rules) {
		r = -ENOMEM;
		goto cleanup;
	}
	memcpy(o->rules, e->rules, e->n_rules * sizeof(*o->rules));
	o->n_rules = e->n_rules;
	o->rule_protocol = e->rule_protocol;
	/* only ib-hook's rules for other tables can be orphans: ask about those alone */
	for (size_t i = 0; i < o->n_rules; i++)
		o->rules[i].live = o->rules[i].table == o->table ||
				   !plan_rule_is_ours(c, o, &o->rules[i]) ||
				   table_is_live(e, o->rules[i].table);

	if (o->table) {
		r = netlink_dump_table(e->nl, o->table, 0, &o->routes, &o->n_routes);
		if (r < 0)
			goto cleanup;
	}
	for (size_t i = 0; i < o->n_routes; i++) {
		struct ibh_route *rt = &o->routes[i];
		struct ibh_link other;

		if (rt->oif == link->ifindex || rt->oif <= 0 ||
		    !if_indextoname((unsigned int)rt->oif, rt->oif_name))
			continue;
		/* a route left in T by a managed link that has another table now is ours */
		if (netlink_get_link(e->nl, rt->oif_name, &other) == 0 &&
		    link_is_managed(c, &other))
			rt->oif_managed = config_table(c, other.name, other.ifindex) != o->table;
	}
	if (status) {
		r = netlink_dump_table(e->nl, RT_TABLE_MAIN, link->ifindex, &o->main_routes,
				       &o->n_main_routes);
		if (r < 0)
			goto cleanup;
		o->main_known = true;
	}
	for (int k = 0; k < IBH_SYSCTL_MAX; k++) {
		bool wanted = status || c->sysctl[k] != IBH_SYSCTL_KEEP;

		o->sysctl[k] =
			wanted ? sysctl_read(link->name, (enum ibh_sysctl)k) : IBH_SYSCTL_UNKNOWN;
		o->sysctl_all[k] =
			status ? sysctl_read("all", (enum ibh_sysctl)k) : IBH_SYSCTL_UNKNOWN;
		if (o->sysctl[k] < 0)
			o->sysctl[k] = IBH_SYSCTL_UNKNOWN;
		if (o->sysctl_all[k] < 0)
			o->sysctl_all[k] = IBH_SYSCTL_UNKNOWN;
	}
	r = 0;
cleanup:
	if (addrs != e->addrs)
		free(addrs);
	if (r < 0)
		observed_clear(o);
	return r;
}

static int execute(struct ibh_engine *e, const struct ibh_link *link, const struct ibh_op *op)
{
	switch (op->kind) {
	case IBH_OP_ROUTE_REPLACE:
		return netlink_route_replace(e->nl, &op->route);
	case IBH_OP_ROUTE_DEL:
	case IBH_OP_MAIN_DEL:
		return netlink_route_del(e->nl, &op->route);
	case IBH_OP_RULE_ADD:
		e->rules_valid = false;
		return netlink_rule_add(e->nl, &op->rule);
	case IBH_OP_RULE_DEL:
		e->rules_valid = false;
		return netlink_rule_del(e->nl, &op->rule);
	case IBH_OP_SYSCTL: {
		int r = sysctl_write(link->name, op->sysctl.key, op->sysctl.value);

		return r < 0 ? r : 1;
	}
	case IBH_OP_NEIGH_FLUSH:
		return netlink_neigh_flush(e->nl, link->ifindex);
	}
	return -EINVAL;
}

/*
 * The link went away under us (deleted, or re-created with a new index): its
 * routes went with it, but rules name addresses, not links. Take back the
 * rules that point at its table so that nothing stale stays behind.
 */
static enum ibh_result vanished(struct ibh_engine *e, const struct ibh_link *link, uint32_t table)
{
	struct ibh_observed o = {};
	int r;

	e->rules_valid = false;
	r = load_rules(e);
	o.rule_protocol = e->rule_protocol;
	for (size_t i = 0; r >= 0 && i < e->n_rules; i++)
		if (e->rules[i].table == table && plan_rule_is_ours(e->config, &o, &e->rules[i]))
			r = netlink_rule_del(e->nl, &e->rules[i]);
	e->rules_valid = false;
	if (r < 0) {
		log_error_errno(r,
				"%s: interface disappeared while ib-hook ran; its rules for table "
				"%u stay: %m",
				link->name, table);
		return IBH_FAILED;
	}
	log_notice("%s: interface disappeared while ib-hook ran; its rules were taken back",
		   link->name);
	return IBH_OK;
}

static bool link_still_there(struct ibh_engine *e, const struct ibh_link *link)
{
	struct ibh_link now;

	return netlink_get_link(e->nl, link->name, &now) == 0 && now.ifindex == link->ifindex;
}

static enum ibh_result change(struct ibh_engine *e, const struct ibh_link *link,
			      const struct ibh_observed *o, const struct ibh_plan *p)
{
	bool changed = false;
	char line[256];

	for (size_t i = 0; i < p->n_ops; i++) {
		const struct ibh_op *op = &p->ops[i];
		int r;

		if (op->kind == IBH_OP_NEIGH_FLUSH && !changed)
			continue;
		r = execute(e, link, op);
		if (r == -ENODEV || r == -ENXIO || (r < 0 && !link_still_there(e, link)))
			return vanished(e, link, o->table);
		if (r == 0)
			continue;
		plan_describe_op(line, sizeof(line), link->name, op);
		if (r < 0 && op->kind == IBH_OP_SYSCTL) {
			/* routing is what matters; a read-only /proc/sys (containers) must not undo it */
			log_warning_errno(r, "%s: cannot set %s to %d: %m", link->name,
					  sysctl_name(op->sysctl.key), op->sysctl.value);
			continue;
		}
		if (r < 0) {
			log_error_errno(r, "%s: failed: %s: %m%s", link->name, line, errno_hint(r));
			return IBH_FAILED;
		}
		if (op->kind != IBH_OP_NEIGH_FLUSH)
			changed = true;
		log_full(op->kind == IBH_OP_NEIGH_FLUSH ? LOG_DEBUG : LOG_INFO, 0, "%s: %s",
			 link->name, line);
	}
	if (changed && !link_still_there(e, link))
		return vanished(e, link, o->table);
	return IBH_OK;
}

static const char *sysctl_value(char *buf, size_t size, int v)
{
	if (v == IBH_SYSCTL_UNKNOWN)
		return "?";
	snprintf(buf, size, "%d", v);
	return buf;
}

/* the kernel uses the larger of conf/all and conf/X for these (accept_local: either) */
static int sysctl_effective(const struct ibh_observed *o, int k)
{
	if (o->sysctl[k] == IBH_SYSCTL_UNKNOWN || o->sysctl_all[k] == IBH_SYSCTL_UNKNOWN)
		return IBH_SYSCTL_UNKNOWN;
	if (k == IBH_SYSCTL_ACCEPT_LOCAL)
		return o->sysctl[k] || o->sysctl_all[k];
	return o->sysctl[k] > o->sysctl_all[k] ? o->sysctl[k] : o->sysctl_all[k];
}

static enum ibh_result report(struct ibh_engine *e, const struct ibh_observed *o,
			      const struct ibh_plan *p, FILE *f)
{
	const struct ibh_config *c = e->config;
	bool drift = p->refused != 0, ipv4 = false;
	char a[64], b[64], v1[16], v2[16], v3[16];

	fprintf(f, "%s: table %u, priority %u, main route %s\n", o->link.name, o->table,
		c->priority, c->main_route == IBH_MAIN_DELETE ? "delete" : "keep");
	if (o->n_addrs == 0)
		fprintf(f, "  no address\n");
	for (size_t i = 0; i < o->n_addrs; i++) {
		const struct ibh_ip *ad = &o->addrs[i];
		struct ibh_ip prefix;
		unsigned int rules = 0;
		bool route, dup = false;

		if (!plan_address_managed(c, ad))
			continue;
		ipv4 |= ad->family == AF_INET;
		ip_prefix(&prefix, ad);
		for (size_t j = 0; j < o->n_rules; j++)
			rules += plan_rule_is_ours(c, o, &o->rules[j]) &&
				 o->rules[j].table == o->table &&
				 ip_same_address(&o->rules[j].src, ad);
		route = plan_table_route_ok(c, o, i);
		for (size_t j = 0; j < o->n_main_routes; j++)
			dup |= ip_equal(&o->main_routes[j].dst, &prefix);
		fprintf(f, "  address %s: rule %s, table route %s %s, main route %s\n",
			ip_to_string(ad, a, sizeof(a), true),
			rules == 1   ? "ok"
			: rules == 0 ? "missing"
				     : "duplicated",
			ip_to_string(&prefix, b, sizeof(b), true),
			route ? "ok" : "missing or different", dup ? "present" : "absent");
	}
	if (ipv4) {
		fprintf(f, "  sysctl (interface/all/effective):");
		for (int k = 0; k < IBH_SYSCTL_MAX; k++)
			fprintf(f, " %s=%s/%s/%s", sysctl_name((enum ibh_sysctl)k),
				sysctl_value(v1, sizeof(v1), o->sysctl[k]),
				sysctl_value(v2, sizeof(v2), o->sysctl_all[k]),
				sysctl_value(v3, sizeof(v3), sysctl_effective(o, k)));
		fputc('\n', f);
		for (int k = 0; k < IBH_SYSCTL_MAX; k++) {
			int eff = sysctl_effective(o, k);

			if (c->sysctl[k] == IBH_SYSCTL_KEEP || eff == IBH_SYSCTL_UNKNOWN ||
			    eff == c->sysctl[k] || o->sysctl[k] != c->sysctl[k])
				continue;
			fprintf(f, "  warning: net.ipv4.conf.all.%s=%d overrides %s=%d\n",
				sysctl_name((enum ibh_sysctl)k), o->sysctl_all[k],
				sysctl_name((enum ibh_sysctl)k), c->sysctl[k]);
			drift = true;
		}
	}
	if (p->refused)
		fprintf(f, "  refused: %s\n", p->why);
	for (size_t i = 0; i < p->n_ops; i++) {
		if (!plan_op_is_drift(&p->ops[i]))
			continue;
		drift = true;
		fprintf(f, "  pending: ");
		plan_format_op(f, o->link.name, &p->ops[i]);
	}
	fprintf(f, "  verdict: %s\n", drift ? "drift" : "ok");
	return drift ? IBH_FAILED : IBH_OK;
}

static enum ibh_result run_link(struct ibh_engine *e, const struct ibh_link *link,
				const struct ibh_request *req)
{
	struct ibh_observed o;
	struct ibh_plan p = {};
	enum ibh_result res = IBH_OK;
	enum ibh_action action = req->mode == IBH_MODE_STATUS ? IBH_ACTION_APPLY : req->action;
	int r;

	log_context(link->name, action_name(action),
		    config_table(e->config, link->name, link->ifindex));
	/* the kernel takes a down link's routes away and refuses new ones */
	if (action == IBH_ACTION_APPLY && req->mode == IBH_MODE_CHANGE && !link->up) {
		log_full(req->hook || e->all_valid ? LOG_DEBUG : LOG_NOTICE, 0,
			 "%s: link is down, nothing to apply until it is up", link->name);
		log_context(NULL, NULL, 0);
		return IBH_OK;
	}
	r = observe(e, link, req->mode == IBH_MODE_STATUS, &o);
	if (r == -ENODEV && req->hook)
		return IBH_OK;
	if (r < 0) {
		log_error_errno(r, "%s: cannot read its state: %m%s", link->name, errno_hint(r));
		return IBH_FAILED;
	}
	r = plan_build(e->config, &o, action, &p);
	if (r < 0) {
		log_error_errno(r, "%s: cannot plan: %m", link->name);
		res = IBH_FAILED;
		goto cleanup;
	}
	if (req->mode == IBH_MODE_STATUS) {
		res = report(e, &o, &p, req->out);
		goto cleanup;
	}
	if (p.refused) {
		log_error_errno(p.refused, "%s: refusing to %s table %u: %s", link->name,
				action_name(action), o.table, p.why);
		res = IBH_FAILED;
		goto cleanup;
	}
	log_debug("%s: ifindex %d, table %u, %zu address(es), %zu operation(s)", link->name,
		  link->ifindex, o.table, o.n_addrs, p.n_ops);
	if (req->mode == IBH_MODE_DRY_RUN) {
		if (p.n_ops == 0)
			fprintf(req->out, "# %s: nothing to do\n", link->name);
		for (size_t i = 0; i < p.n_ops; i++)
			plan_format_op(req->out, link->name, &p.ops[i]);
	} else
		res = change(e, link, &o, &p);
cleanup:
	plan_clear(&p);
	observed_clear(&o);
	log_context(NULL, NULL, 0);
	return res;
}

enum ibh_result engine_run(struct ibh_engine *e, const char *ifname, const struct ibh_request *req)
{
	struct ibh_link link;
	int r;

	r = netlink_get_link(e->nl, ifname, &link);
	if (r == -ENODEV) {
		if (req->hook) {
			log_debug("%s: no such interface, nothing to do", ifname);
			return IBH_OK;
		}
		log_error("interface '%s' not found", ifname);
		return IBH_USAGE;
	}
	if (r < 0) {
		log_error_errno(r, "%s: cannot read the link: %m%s", ifname, errno_hint(r));
		return IBH_FAILED;
	}
	if (!link_is_managed(e->config, &link)) {
		if (req->hook)
			log_debug("%s: not managed by ib-hook, nothing to do", ifname);
		else
			log_notice("%s: not managed by ib-hook (not InfiniBand/RDMA, or not in "
				   "[Match] Name=), nothing to do",
				   ifname);
		return IBH_OK;
	}
	return run_link(e, &link, req);
}

enum ibh_result engine_run_all(struct ibh_engine *e, const struct ibh_request *req)
{
	enum ibh_result res = IBH_OK, one;
	size_t managed = 0;
	int r;

	r = netlink_dump_links(e->nl, &e->links, &e->n_links);
	if (r >= 0)
		r = netlink_dump_addrs(e->nl, 0, &e->addrs, &e->n_addrs);
	if (r < 0) {
		log_error_errno(r, "cannot list interfaces: %m%s", errno_hint(r));
		return IBH_FAILED;
	}
	e->all_valid = true;
	e->rules_valid = false;
	for (size_t i = 0; i < e->n_links; i++) {
		if (!link_is_managed(e->config, &e->links[i]))
			continue;
		managed++;
		one = run_link(e, &e->links[i], req);
		if (one > res)
			res = one;
	}
	if (managed == 0 && req->mode == IBH_MODE_STATUS)
		fprintf(req->out, "no managed interface\n");
	return res;
}
