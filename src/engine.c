// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * observe -> plan -> apply for one interface at a time, then for what earlier
 * runs and configurations left behind, and the reports of --dry-run and
 * --status. This is the level that logs: netlink.c, plan.c and record.c only
 * return codes.
 */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if_arp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "build-config.h"
#include "config.h"
#include "engine.h"
#include "log.h"
#include "netlink.h"
#include "op.h"
#include "plan.h"
#include "record.h"
#include "report.h"
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
	/* every address of the namespace (the same address on two links) */
	struct ibh_addr_entry *addrs;
	size_t n_addrs;
	bool addrs_valid;
	/* links of the namespace, read once by --all */
	struct ibh_link *links;
	size_t n_links;
	bool links_valid;
	/* links asked for one by one (not --all), until engine_invalidate() */
	struct {
		int ifindex;
		int r; /* 0 or -ENODEV */
		struct ibh_link link;
	} asked[16];
	size_t n_asked;
	/* what ib-hook installed in this namespace */
	char record_path[256];
	struct ibh_record record;
	bool record_loaded;
	bool record_dirty; /* forgotten entries not yet written */
	char *record_file; /* the file's text as last read or written; NULL: unknown */
	/* the warning that it is damaged was given, since engine_invalidate() */
	bool record_damage_said;
	bool leftovers_done;
	struct ibh_report *rep;
	unsigned long changes; /* kernel objects changed since the engine began */
	/*
	 * links whose state ib-hook put back since engine_invalidate(): an object
	 * it installed that vanished, a main route it deleted that came back, a
	 * setting changed behind its back (the watcher's back-off)
	 */
	int repaired[64];
	size_t n_repaired;
	/* links whose driver refused [IPoIB] (said once per process: the watcher lives long) */
	int ipoib_warned[32];
	size_t n_ipoib_warned;
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
	char id[64];
	int r;

	if (!e)
		return -ENOMEM;
	e->config = c;
	r = netlink_open(&e->nl);
	if (r >= 0)
		r = netlink_netns_id(e->nl, id, sizeof(id));
	if (r < 0) {
		engine_free(e);
		return r;
	}
	snprintf(e->record_path, sizeof(e->record_path), "%s/ib-hook/%s", RUNSTATEDIR, id);
	*ret = e;
	return 0;
}

/* "PREFIXglob1 glob2...SUFFIX": the [Match] Name= globs in a message */
static void globs_text(const struct ibh_config *c, char *buf, size_t size, const char *prefix,
		       const char *suffix)
{
	size_t len;

	snprintf(buf, size, "%s", prefix);
	for (size_t i = 0; i < c->n_globs; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? " " : "", c->globs[i]);
	}
	len = strlen(buf);
	snprintf(buf + len, size - len, "%s", suffix);
}

/* what finding no managed interface means, for the --status summary */
static void none_why(const struct ibh_config *c, char *buf, size_t size)
{
	if (c->n_globs == 0)
		snprintf(buf, size,
			 "no InfiniBand link and no network device of an RDMA port "
			 "(the default selection; is the driver loaded?)");
	else
		globs_text(c, buf, size, "no link matches [Match] Name=", "");
}

enum ibh_result engine_end(struct ibh_engine *e, const struct ibh_request *req)
{
	char why[600];
	bool ok;

	if (!e->rep)
		return IBH_OK;
	none_why(e->config, why, sizeof(why));
	ok = report_end(e->rep, e->record_path, e->record.present,
			req->config_files ? req->config_files : "", why);
	report_free(e->rep);
	e->rep = NULL;
	return ok || req->mode != IBH_MODE_STATUS ? IBH_OK : IBH_FAILED;
}

void engine_free(struct ibh_engine *e)
{
	if (!e)
		return;
	report_free(e->rep);
	netlink_close(e->nl);
	free(e->rules);
	free(e->links);
	free(e->addrs);
	record_clear(&e->record);
	free(e->record_file);
	free(e);
}

static int load_record(struct ibh_engine *e)
{
	char why[96];
	int r;

	if (e->record_loaded)
		return 0;
	record_clear(&e->record);
	r = record_load(e->record_path, &e->record, why, sizeof(why));
	if (r == -EINVAL) {
		/* never guess from a damaged record: treat it as absent, which adopts nothing foreign */
		if (!e->record_damage_said)
			log_warning("'%s' %s: damaged, read as absent", e->record_path, why);
		/* once per run, also when a failed write makes it read again */
		e->record_damage_said = true;
		record_clear(&e->record);
		r = 0;
	}
	if (r < 0)
		return r;
	e->record_loaded = true;
	free(e->record_file);
	/* NULL when absent: the first save writes the file, which says the record exists */
	e->record_file = e->record.present ? record_text(&e->record) : NULL;
	return 0;
}

/* a record that says what the file already says is not written again (a repair re-adds) */
static int save_record(struct ibh_engine *e)
{
	char *text = record_text(&e->record);
	int r;

	if (!text)
		return -ENOMEM;
	if (e->record_file && strcmp(text, e->record_file) == 0) {
		free(text);
		return 0;
	}
	r = record_write(e->record_path, text);
	free(e->record_file);
	e->record_file = NULL;
	if (r < 0) {
		free(text);
		return r;
	}
	e->record_file = text;
	e->record.present = true;
	return r;
}

void engine_invalidate(struct ibh_engine *e)
{
	if (e->record_dirty && save_record(e) >= 0)
		e->record_dirty = false;
	e->rules_valid = false;
	e->addrs_valid = false;
	e->links_valid = false;
	e->n_asked = 0;
	e->record_loaded = false;
	e->record_damage_said = false;
	e->leftovers_done = false;
	e->n_repaired = 0;
	record_clear(&e->record);
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

static int load_addrs(struct ibh_engine *e)
{
	int r;

	if (e->addrs_valid)
		return 0;
	free(e->addrs);
	e->addrs = NULL;
	r = netlink_dump_addrs(e->nl, 0, &e->addrs, &e->n_addrs);
	if (r < 0)
		return r;
	e->addrs_valid = true;
	return 0;
}

/* links asked for one by one: one question per link and pass (engine_invalidate) */
static void remember_link(struct ibh_engine *e, int ifindex, int r, const struct ibh_link *link)
{
	if ((r != 0 && r != -ENODEV) || e->n_asked == sizeof(e->asked) / sizeof(e->asked[0]))
		return;
	e->asked[e->n_asked].ifindex = ifindex;
	e->asked[e->n_asked].r = r;
	e->asked[e->n_asked].link = r == 0 ? *link : (struct ibh_link){ .ifindex = ifindex };
	e->n_asked++;
}

static int link_by_index(struct ibh_engine *e, int ifindex, struct ibh_link *ret)
{
	int r;

	if (e->links_valid) {
		for (size_t i = 0; i < e->n_links; i++)
			if (e->links[i].ifindex == ifindex) {
				*ret = e->links[i];
				return 0;
			}
		return -ENODEV;
	}
	for (size_t i = 0; i < e->n_asked; i++)
		if (e->asked[i].ifindex == ifindex) {
			*ret = e->asked[i].link;
			return e->asked[i].r;
		}
	r = netlink_get_link_by_index(e->nl, ifindex, ret);
	remember_link(e, ifindex, r, ret);
	return r;
}

static int link_by_name(struct ibh_engine *e, const char *name, struct ibh_link *ret)
{
	int r;

	if (e->links_valid) {
		for (size_t i = 0; i < e->n_links; i++)
			if (strcmp(e->links[i].name, name) == 0) {
				*ret = e->links[i];
				return 0;
			}
		return -ENODEV;
	}
	for (size_t i = 0; i < e->n_asked; i++)
		if (e->asked[i].r == 0 && strcmp(e->asked[i].link.name, name) == 0) {
			*ret = e->asked[i].link;
			return 0;
		}
	r = netlink_get_link(e->nl, name, ret);
	if (r == 0)
		remember_link(e, ret->ifindex, r, ret);
	return r;
}

/* another managed link that exists and has table t: [Tables] made them collide */
static void find_table_sharer(struct ibh_engine *e, const struct ibh_link *link, uint32_t t,
			      char *ret, size_t size)
{
	const struct ibh_config *c = e->config;
	struct ibh_link other;

	for (size_t i = 0; i < c->n_tables; i++)
		if (c->tables[i].table == t && strcmp(c->tables[i].ifname, link->name) != 0 &&
		    link_by_name(e, c->tables[i].ifname, &other) == 0 &&
		    link_is_managed(c, &other)) {
			snprintf(ret, size, "%s", other.name);
			return;
		}
	if (t > c->table_base && t - c->table_base <= INT32_MAX &&
	    (int)(t - c->table_base) != link->ifindex &&
	    link_by_index(e, (int)(t - c->table_base), &other) == 0 && link_is_managed(c, &other) &&
	    config_table_of(c, other.name) == 0)
		snprintf(ret, size, "%s", other.name);
}

/*
 * A record entry is a leftover when no current interface and configuration
 * wants it: its link is gone, renamed or no longer matched, its table or
 * priority changed, IPv6 was switched off, MainRoute= went back to keep.
 */
static void mark_leftovers(struct ibh_engine *e)
{
	const struct ibh_config *c = e->config;

	for (size_t i = 0; i < e->record.n; i++) {
		struct ibh_rec *rec = &e->record.recs[i];
		struct ibh_link l;
		uint8_t family =
			rec->kind == IBH_REC_RULE ? rec->rule.src.family : rec->route.dst.family;

		char sharer[IF_NAMESIZE] = "";

		rec->leftover = true;
		if (link_by_index(e, rec->ifindex, &l) < 0 || strcmp(l.name, rec->ifname) != 0)
			continue;
		/*
		 * The record keeps speaking for a link that left the match: if it
		 * comes back, an object that merely looks like ib-hook's is not
		 * adopted (adoption is for what 0.1.0 installed).
		 */
		if (rec->kind == IBH_REC_LINK) {
			rec->leftover = false;
			continue;
		}
		if (!link_is_managed(c, &l))
			continue;
		/* a [Tables] collision refuses the link: what works stays until it is fixed */
		find_table_sharer(e, &l, config_table(c, l.name, l.ifindex), sharer,
				  sizeof(sharer));
		if (sharer[0]) {
			rec->leftover = false;
			continue;
		}
		if (family == AF_INET6 && !c->ipv6)
			continue;
		switch (rec->kind) {
		case IBH_REC_RULE:
			rec->leftover = rec->rule.table != config_table(c, l.name, l.ifindex) ||
					rec->rule.priority != c->priority;
			break;
		case IBH_REC_ROUTE:
			rec->leftover = rec->route.table != config_table(c, l.name, l.ifindex);
			break;
		case IBH_REC_MAIN:
			rec->leftover = c->main_route != IBH_MAIN_DELETE;
			break;
		case IBH_REC_LINK:
			rec->leftover = false;
			break;
		}
	}
}

/* an address inside prefix that is none of the link's own: what the kernel routes by it */
static void probe_address(const struct ibh_observed *o, const struct ibh_ip *prefix,
			  struct ibh_ip *ret)
{
	unsigned int bits = prefix->family == AF_INET ? 32 : 128;

	*ret = *prefix;
	ret->len = (uint8_t)bits;
	for (unsigned int k = 1; k <= 2 && prefix->len + 2u <= bits; k++) {
		bool local = false;

		ret->a[bits / 8 - 1] = (uint8_t)((prefix->a[bits / 8 - 1]) | k);
		for (size_t i = 0; i < o->n_addrs; i++)
			local |= ip_same_address(&o->addrs[i].ip, ret);
		if (!local)
			return;
	}
}

static int push_main_route(struct ibh_observed *o, const struct ibh_route *rt)
{
	struct ibh_route *m = realloc(o->main_routes, (o->n_main_routes + 1) * sizeof(*m));

	if (!m)
		return -ENOMEM;
	o->main_routes = m;
	m[o->n_main_routes++] = *rt;
	return 0;
}

/* main's route for prefix through oif, if it is there: one lookup, not a dump of main */
static int observe_main_route(struct ibh_engine *e, struct ibh_observed *o,
			      const struct ibh_ip *prefix, int oif)
{
	struct ibh_route rt;
	struct ibh_ip probe;
	int r;

	probe_address(o, prefix, &probe);
	r = netlink_fib_match(e->nl, &probe, oif, &rt);
	if (r == -ENOENT || r == -ENETDOWN || r == -ENODEV)
		return 0;
	if (r < 0)
		return r;
	if (rt.table != RT_TABLE_MAIN || !ip_equal(&rt.dst, prefix) || rt.oif != oif)
		return 0;
	return push_main_route(o, &rt);
}

static int copy_rules(struct ibh_engine *e, struct ibh_observed *o)
{
	int r = load_rules(e);

	if (r < 0)
		return r;
	o->rules = malloc((e->n_rules ? e->n_rules : 1) * sizeof(*o->rules));
	if (!o->rules)
		return -ENOMEM;
	if (e->n_rules)
		memcpy(o->rules, e->rules, e->n_rules * sizeof(*o->rules));
	o->n_rules = e->n_rules;
	o->rule_protocol = e->rule_protocol;
	return 0;
}

static int observe_addrs(struct ibh_engine *e, const struct ibh_link *link, struct ibh_observed *o)
{
	const struct ibh_config *c = e->config;
	int r = load_addrs(e);

	if (r < 0)
		return r;
	o->addrs = calloc(e->n_addrs ? e->n_addrs : 1, sizeof(*o->addrs));
	o->taken = calloc(e->n_addrs ? e->n_addrs : 1, sizeof(*o->taken));
	if (!o->addrs || !o->taken)
		return -ENOMEM;
	for (size_t i = 0; i < e->n_addrs; i++) {
		const struct ibh_addr_entry *a = &e->addrs[i];

		if (a->ifindex != link->ifindex)
			continue;
		o->addrs[o->n_addrs++] = a->addr;
		if (!plan_address_managed(c, &a->addr.ip))
			continue;
		/* the same address on two managed links: the lower index serves it, stably */
		for (size_t j = 0; j < e->n_addrs; j++) {
			struct ibh_link other;

			if (e->addrs[j].ifindex >= link->ifindex ||
			    !ip_same_address(&e->addrs[j].addr.ip, &a->addr.ip) ||
			    link_by_index(e, e->addrs[j].ifindex, &other) < 0 ||
			    !link_is_managed(c, &other))
				continue;
			o->taken[o->n_taken++] = a->addr.ip;
			log_warning("%s: address %s is also on '%s', whose table serves it",
				    link->name, ip_to_string(&a->addr.ip, (char[64]){}, 64, false),
				    other.name);
			break;
		}
	}
	return 0;
}

static int observe(struct ibh_engine *e, const struct ibh_link *link, enum ibh_action action,
		   bool status, struct ibh_observed *o)
{
	const struct ibh_config *c = e->config;
	int r;

	memset(o, 0, sizeof(*o));
	o->link = *link;
	o->table = config_table(c, link->name, link->ifindex);
	if (o->table)
		find_table_sharer(e, link, o->table, o->table_shared_with,
				  sizeof(o->table_shared_with));
	r = load_record(e);
	if (r < 0)
		goto cleanup;
	mark_leftovers(e);
	o->record = &e->record;
	r = observe_addrs(e, link, o);
	if (r < 0)
		goto cleanup;
	r = copy_rules(e, o);
	if (r < 0)
		goto cleanup;
	if (o->table) {
		r = netlink_dump_table(e->nl, o->table, 0, &o->routes, &o->n_routes);
		if (r < 0)
			goto cleanup;
	}
	for (size_t i = 0; i < o->n_routes; i++) {
		struct ibh_route *rt = &o->routes[i];
		struct ibh_link other;

		if (rt->oif > 0 && link_by_index(e, rt->oif, &other) == 0)
			snprintf(rt->oif_name, sizeof(rt->oif_name), "%s", other.name);
	}
	if (status || c->main_route == IBH_MAIN_DELETE || action == IBH_ACTION_REMOVE) {
		for (size_t i = 0; i < o->n_addrs; i++) {
			struct ibh_ip prefix;

			if (!plan_address_managed(c, &o->addrs[i].ip))
				continue;
			plan_addr_prefix(&o->addrs[i], &prefix);
			r = observe_main_route(e, o, &prefix, link->ifindex);
			if (r < 0)
				goto cleanup;
		}
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
	if (link->type == ARPHRD_INFINIBAND &&
	    (status || c->ipoib_mode != IBH_IPOIB_KEEP || c->ipoib_mtu)) {
		char v[64];

		if (netdev_attr_read(link->name, "mode", v, sizeof(v)) == 0)
			o->ipoib_mode = strcmp(v, "connected") == 0  ? IBH_IPOIB_CONNECTED
					: strcmp(v, "datagram") == 0 ? IBH_IPOIB_DATAGRAM
								     : IBH_IPOIB_KEEP;
		if (netdev_attr_read(link->name, "mtu", v, sizeof(v)) == 0)
			o->mtu = (uint32_t)strtoul(v, NULL, 10);
	}
	r = 0;
cleanup:
	if (r < 0)
		observed_clear(o);
	return r;
}

/* the kernel answered EEXIST to ib-hook's add: is the rule there now, or what is in the way */
static int rule_add_exists(struct ibh_engine *e, const struct ibh_rule *want, char *why,
			   size_t size)
{
	struct ibh_observed now = {};
	const struct ibh_rule *hit;
	int r;

	e->rules_valid = false;
	r = copy_rules(e, &now);
	if (r < 0)
		goto cleanup;
	for (size_t i = 0; i < now.n_rules; i++)
		if (rule_equal(&now.rules[i], want)) {
			r = 0;
			goto cleanup;
		}
	hit = plan_rule_add_hits(&now, want);
	snprintf(why, size, "rule '%s', which ib-hook did not install, is in the way",
		 hit ? hit->desc : "?");
	r = -EEXIST;
cleanup:
	observed_clear(&now);
	return r;
}

/*
 * The kernel answered EEXIST to ib-hook's route: IPv4 does for an identical
 * route only, IPv6 for any route with the same prefix, metric and next hop.
 * An identical route that appeared since observe serves, and is not ib-hook's
 * (the record forgets it); anything else is in the way.
 */
static int route_add_exists(struct ibh_engine *e, const struct ibh_op *op, char *why, size_t size)
{
	const struct ibh_route *want = &op->route;
	struct ibh_route *routes = NULL;
	size_t n = 0;
	char text[160];
	int r = netlink_dump_table(e->nl, want->table, 0, &routes, &n);

	if (r < 0)
		return r;
	r = -EEXIST;
	for (size_t i = 0; i < n && r < 0; i++)
		if (route_equal(&routes[i], want)) {
			record_forget(&e->record, &op->rec);
			r = 0;
		}
	for (size_t i = 0; i < n && r < 0; i++)
		if (ip_equal(&routes[i].dst, &want->dst) && routes[i].oif == want->oif) {
			snprintf(routes[i].oif_name, sizeof(routes[i].oif_name), "%s", op->ifname);
			route_format(text, sizeof(text), &routes[i]);
			snprintf(why, size,
				 "route %s, which ib-hook did not install, is in the way", text);
			break;
		}
	free(routes);
	return r;
}

static int execute(struct ibh_engine *e, const struct ibh_op *op, char *why, size_t size)
{
	int r;

	switch (op->kind) {
	case IBH_OP_ROUTE_ADD:
		r = netlink_route_add(e->nl, &op->route);
		return r == -EEXIST ? route_add_exists(e, op, why, size) : r;
	case IBH_OP_MAIN_RESTORE:
		r = netlink_route_add(e->nl, &op->route);
		/* a route to the prefix through the link is there: main serves it again */
		return r == -EEXIST ? 0 : r;
	case IBH_OP_ROUTE_DEL:
	case IBH_OP_MAIN_DEL:
		return netlink_route_del(e->nl, &op->route);
	case IBH_OP_RULE_ADD:
		e->rules_valid = false;
		r = netlink_rule_add(e->nl, &op->rule);
		return r == -EEXIST ? rule_add_exists(e, &op->rule, why, size) : r;
	case IBH_OP_RULE_DEL:
		e->rules_valid = false;
		return netlink_rule_del(e->nl, &op->rule);
	case IBH_OP_SYSCTL:
		r = sysctl_write(op->ifname, op->sysctl.key, op->sysctl.value);
		return r < 0 ? r : 1;
	case IBH_OP_NEIGH_FLUSH:
		return netlink_neigh_flush(e->nl, op->ifindex);
	case IBH_OP_ADOPT:
	case IBH_OP_FORGET:
	case IBH_OP_TRANSFER:
		return 1;
	case IBH_OP_IPOIB_MODE:
		r = netdev_attr_write(op->ifname, "mode", ipoib_mode_name(op->mode));
		return r < 0 ? r : 1;
	case IBH_OP_MTU: {
		char mtu[16];

		snprintf(mtu, sizeof(mtu), "%u", op->mtu);
		r = netdev_attr_write(op->ifname, "mtu", mtu);
		return r < 0 ? r : 1;
	}
	}
	return -EINVAL;
}

/* the link an op acts for was deleted or replaced while ib-hook ran */
static bool link_gone(struct ibh_engine *e, const struct ibh_op *op)
{
	struct ibh_link now;

	if (op->ifindex <= 0)
		return false;
	return netlink_get_link_by_index(e->nl, op->ifindex, &now) == -ENODEV ||
	       strcmp(now.name, op->ifname) != 0;
}

/*
 * How often one pass plans a link. A refusal that may mean the link changed
 * after it was observed (a network manager took its address away, took it
 * down) is answered by observing it again. One more look is what one change
 * needs; a reconnect is two (the address goes, then comes back), and the
 * second may land on the second look. A link that still moves after that is
 * churning faster than a pass: that is said as a failure, and the watcher
 * hears of the changes anyway.
 */
#define PASS_TRIES 3

/* a plan waiting to be executed, and for which link (the journal's fields) */
struct pending {
	char name[IF_NAMESIZE];
	int ifindex;
	const char *action;
	uint32_t table;
	struct ibh_plan plan;
	unsigned int attempt; /* from 0: how often this pass has planned the link before */
	bool raced;	      /* stopped by a refusal that a fresh observation may answer */
};

/* the record learns of p's adds, and forgets what p found gone; not saved yet */
static int record_ahead(struct ibh_engine *e, const struct ibh_plan *p, bool *recorded)
{
	int r;

	/* forgotten first: an object gone from the kernel may be in the plan again, to add */
	for (size_t i = 0; i < p->n_ops; i++)
		if (p->ops[i].kind == IBH_OP_FORGET) {
			record_forget(&e->record, &p->ops[i].rec);
			*recorded = true;
		}
	for (size_t i = 0; i < p->n_ops; i++)
		if (op_kind(p->ops[i].kind)->adds) {
			r = record_add(&e->record, &p->ops[i].rec);
			if (r < 0)
				return r;
			*recorded = true;
		}
	return 0;
}

/*
 * op puts back what ib-hook had made so before: an object the plan found
 * gone from (or, for main, back in) the kernel, which it forgets and makes
 * again; a link setting, which apply makes once and only somebody else
 * changes afterwards
 */
static bool op_repairs(const struct ibh_plan *p, const struct ibh_op *op)
{
	if (op_kind(op->kind)->link_setting)
		return true;
	for (size_t k = 0; op_kind(op->kind)->adds && k < p->n_ops; k++)
		if (p->ops[k].kind == IBH_OP_FORGET && rec_same_object(&p->ops[k].rec, &op->rec))
			return true;
	return false;
}

static void note_repair(struct ibh_engine *e, int ifindex)
{
	for (size_t i = 0; i < e->n_repaired; i++)
		if (e->repaired[i] == ifindex)
			return;
	if (e->n_repaired < sizeof(e->repaired) / sizeof(e->repaired[0]))
		e->repaired[e->n_repaired++] = ifindex;
}

static void ipoib_refused(struct ibh_engine *e, const struct ibh_op *op, int r)
{
	for (size_t i = 0; i < e->n_ipoib_warned; i++)
		if (e->ipoib_warned[i] == op->ifindex)
			return;
	if (e->n_ipoib_warned < sizeof(e->ipoib_warned) / sizeof(e->ipoib_warned[0]))
		e->ipoib_warned[e->n_ipoib_warned++] = op->ifindex;
	if (op->kind == IBH_OP_IPOIB_MODE && op->mode == IBH_IPOIB_CONNECTED &&
	    (r == -EINVAL || r == -EOPNOTSUPP))
		log_warning("%s: the driver keeps datagram mode (enhanced IPoIB, ConnectX-4 and "
			    "later, has no connected mode); routing is applied, set [IPoIB] "
			    "Mode=datagram or keep to silence this",
			    op->ifname);
	else if (op->kind == IBH_OP_IPOIB_MODE)
		log_warning_errno(r, "%s: cannot set IPoIB mode %s: %m; routing is applied",
				  op->ifname, ipoib_mode_name(op->mode));
	else
		log_warning_errno(r, "%s: cannot set MTU %u: %m; routing is applied", op->ifname,
				  op->mtu);
}

/* what the kernel answers when an object's address or link changed since it was observed */
static bool world_moved(int r)
{
	return r == -EINVAL || r == -EADDRNOTAVAIL || r == -ENETDOWN || r == -ENETUNREACH ||
	       r == -ESRCH || r == -ENOENT;
}

/* a plan stops at op from: what it recorded ahead and did not install leaves the record */
static void forget_unsent(struct ibh_engine *e, const struct ibh_plan *p, size_t from)
{
	for (size_t i = from; i < p->n_ops; i++)
		if (op_kind(p->ops[i].kind)->adds && p->ops[i].kind != IBH_OP_ADOPT)
			record_forget(&e->record, &p->ops[i].rec);
}

static enum ibh_result execute_plan(struct ibh_engine *e, struct pending *v, bool quiet_gone)
{
	const struct ibh_plan *p = &v->plan;
	const char *name = v->name;
	enum ibh_result res = IBH_OK;
	bool changed = false;
	char line[256], why[320];
	int r;

	for (size_t i = 0; i < p->n_ops; i++) {
		const struct ibh_op *op = &p->ops[i];

		if (op->kind == IBH_OP_NEIGH_FLUSH && !changed)
			continue;
		why[0] = '\0';
		r = execute(e, op, why, sizeof(why));
		op_describe(line, sizeof(line), name, op);
		if (r < 0 && quiet_gone && op->kind == IBH_OP_MAIN_RESTORE &&
		    (r == -ENETDOWN || r == -ENODEV || r == -EINVAL || r == -EADDRNOTAVAIL ||
		     r == -ENETUNREACH)) {
			/*
			 * the link is down, lost the address or is gone (a leftover's): the
			 * kernel makes the route itself, or has nothing to make it for
			 */
			record_forget(&e->record, &op->rec);
			continue;
		}
		if (r < 0 && (r == -ENODEV || r == -ENXIO || link_gone(e, op))) {
			forget_unsent(e, p, i);
			log_notice(
				"%s: interface disappeared while ib-hook ran; the next run takes "
				"back what it installed for it",
				op->ifname);
			break;
		}
		if (r < 0 && (op->kind == IBH_OP_IPOIB_MODE || op->kind == IBH_OP_MTU)) {
			/* routing is what matters: a driver without the mode or MTU warns, once */
			ipoib_refused(e, op, r);
			continue;
		}
		if (r < 0 && op->kind == IBH_OP_SYSCTL) {
			/* routing is what matters; a read-only /proc/sys (containers) must not undo it */
			log_warning_errno(r, "%s: cannot set %s to %d: %m", op->ifname,
					  sysctl_name(op->sysctl.key), op->sysctl.value);
			continue;
		}
		if (r < 0 && !why[0] && world_moved(r) && v->ifindex > 0 &&
		    v->attempt + 1 < PASS_TRIES) {
			forget_unsent(e, p, i);
			log_full(LOG_DEBUG, r,
				 "%s: %s: %m; %s changed meanwhile, observing it again", op->ifname,
				 line, op->ifname);
			v->raced = true;
			break;
		}
		if (r < 0) {
			forget_unsent(e, p, i);
			if (why[0])
				log_error("%s: failed: %s: %s", op->ifname, line, why);
			else
				log_error_errno(r, "%s: failed: %s: %m%s", op->ifname, line,
						errno_hint(r));
			res = IBH_FAILED;
			break;
		}
		if (op_kind(op->kind)->takes_back && !op_kind(op->kind)->record_only)
			record_forget(&e->record, &op->rec);
		if (r == 0)
			continue;
		if (op_kind(op->kind)->drift) {
			changed = true;
			e->changes++;
			if (op_repairs(p, op))
				note_repair(e, op->ifindex);
		}
		log_full(op_kind(op->kind)->drift ? LOG_INFO : LOG_DEBUG, 0, "%s: %s", op->ifname,
			 line);
	}
	/*
	 * What was deleted leaves the record at the end of the run (flush_record):
	 * until then the record names a little more than the kernel has, which is
	 * the safe side.
	 */
	e->record_dirty = true;
	return res;
}

/*
 * Execute plans. The record learns of every add before it is sent, so that
 * a crash cannot leave an object ib-hook installed but does not know; it
 * forgets a deleted object after the kernel confirmed. --all writes it once
 * for all its interfaces. Signals wait until the plans are done (SIGPIPE is
 * ignored): an interrupted run never leaves half of them applied, and
 * SIGKILL leaves what the next run repairs.
 */
static enum ibh_result change(struct ibh_engine *e, struct pending *v, size_t n, bool quiet_gone)
{
	enum ibh_result res = IBH_OK, one;
	bool recorded = false, raced = false;
	sigset_t all, old;
	int r = 0;

	for (size_t i = 0; i < n && r >= 0; i++)
		r = record_ahead(e, &v[i].plan, &recorded);
	if (r >= 0 && recorded)
		r = save_record(e);
	if (r < 0) {
		log_error_errno(r, "cannot write '%s': %m%s", e->record_path, errno_hint(r));
		e->record_loaded = false;
		return IBH_FAILED;
	}
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	for (size_t i = 0; i < n; i++) {
		log_context(v[i].name[0] ? v[i].name : NULL, v[i].action, v[i].table);
		one = execute_plan(e, &v[i], quiet_gone);
		if (one > res)
			res = one;
		raced |= v[i].raced;
	}
	/* signals are let in before the next try: the record loses the refused adds first */
	if (raced && save_record(e) >= 0)
		e->record_dirty = false;
	log_context(NULL, NULL, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return res;
}

static enum ibh_result flush_record(struct ibh_engine *e)
{
	int r;

	if (!e->record_dirty)
		return IBH_OK;
	e->record_dirty = false;
	r = save_record(e);
	if (r < 0) {
		log_error_errno(r, "cannot write '%s': %m", e->record_path);
		e->record_loaded = false;
		return IBH_FAILED;
	}
	return IBH_OK;
}

/* --status and --dry-run collect their output here until engine_end() */
static int ensure_report(struct ibh_engine *e, const struct ibh_request *req)
{
	if (e->rep || req->mode == IBH_MODE_CHANGE)
		return 0;
	return report_new(req->out, req->json, req->mode == IBH_MODE_STATUS, &e->rep);
}

static enum ibh_result run_link_try(struct ibh_engine *e, const struct ibh_link *link,
				    const struct ibh_request *req, struct pending *defer,
				    unsigned int attempt);

/* the kernel as it is now: what this pass read of rules, addresses and links is old */
static void observe_again(struct ibh_engine *e)
{
	e->rules_valid = false;
	e->addrs_valid = false;
	e->links_valid = false;
	e->n_asked = 0;
}

/* v's link changed while its plan was applied: plan it again, as it is now */
static enum ibh_result run_again(struct ibh_engine *e, const struct pending *v,
				 const struct ibh_request *req)
{
	struct ibh_link link;
	int r;

	observe_again(e);
	r = link_by_index(e, v->ifindex, &link);
	/* gone or renamed: the leftovers' pass takes back what it installed */
	if (r == -ENODEV || (r == 0 && strcmp(link.name, v->name) != 0) ||
	    (r == 0 && !link_is_managed(e->config, &link)))
		return IBH_OK;
	if (r < 0) {
		log_error_errno(r, "%s: cannot read the link: %m%s", v->name, errno_hint(r));
		return IBH_FAILED;
	}
	return run_link_try(e, &link, req, NULL, v->attempt + 1);
}

/*
 * observe, plan, and report or apply for one link. With defer, a plan that
 * changes something is handed out instead of executed (--all executes them
 * together).
 */
static enum ibh_result run_link(struct ibh_engine *e, const struct ibh_link *link,
				const struct ibh_request *req, struct pending *defer)
{
	return run_link_try(e, link, req, defer, 0);
}

static enum ibh_result run_link_try(struct ibh_engine *e, const struct ibh_link *link,
				    const struct ibh_request *req, struct pending *defer,
				    unsigned int attempt)
{
	struct ibh_observed o;
	struct ibh_plan p = {};
	enum ibh_result res = IBH_OK;
	enum ibh_action action = req->mode == IBH_MODE_STATUS ? IBH_ACTION_APPLY : req->action;
	int r;

	if (action == IBH_ACTION_APPLY && req->mode == IBH_MODE_CHANGE && !link->up &&
	    req->down_removes)
		action = IBH_ACTION_REMOVE;

	log_context(link->name, action_name(action),
		    config_table(e->config, link->name, link->ifindex));
	/* the kernel takes a down link's routes away and refuses new ones */
	if (action == IBH_ACTION_APPLY && req->mode != IBH_MODE_STATUS && !link->up) {
		log_full(req->hook || e->links_valid ? LOG_DEBUG : LOG_NOTICE, 0,
			 "%s: link is down, nothing to apply until it is up", link->name);
		log_context(NULL, NULL, 0);
		return IBH_OK;
	}
	r = observe(e, link, action, req->mode == IBH_MODE_STATUS, &o);
	if (r == -ENODEV && req->hook) {
		log_context(NULL, NULL, 0);
		return IBH_OK;
	}
	if (r < 0) {
		log_error_errno(r, "%s: cannot read its state: %m%s", link->name, errno_hint(r));
		log_context(NULL, NULL, 0);
		return IBH_FAILED;
	}
	r = plan_build(e->config, &o, action, &p);
	/* --status and --dry-run then see the leftovers that apply would see */
	for (size_t i = 0; r >= 0 && req->mode != IBH_MODE_CHANGE && i < p.n_ops; i++)
		if (p.ops[i].kind == IBH_OP_TRANSFER)
			r = record_add(&e->record, &p.ops[i].rec);
	if (r < 0) {
		log_error_errno(r, "%s: cannot plan: %m", link->name);
		res = IBH_FAILED;
		goto cleanup;
	}
	if (req->mode == IBH_MODE_STATUS) {
		enum ibh_verdict v = report_status(e->rep, e->config, &o, &p);

		res = v == IBH_VERDICT_DRIFT || v == IBH_VERDICT_REFUSED ? IBH_FAILED : IBH_OK;
		goto cleanup;
	}
	if (p.refused) {
		char table[24] = "";

		/* without a table, the reason names the reserved one TableBase gave */
		if (o.table)
			snprintf(table, sizeof(table), " table %u", o.table);
		log_error_errno(p.refused, "%s: refusing to %s%s: %s", link->name,
				action_name(action), table, p.why);
		res = IBH_FAILED;
		goto cleanup;
	}
	log_debug("%s: ifindex %d, table %u, %zu address(es), %zu operation(s)", link->name,
		  link->ifindex, o.table, o.n_addrs, p.n_ops);
	if (req->mode == IBH_MODE_DRY_RUN)
		report_plan(e->rep, link->name, &p);
	else if (p.n_ops) {
		struct pending one = { .ifindex = link->ifindex,
				       .action = action_name(action),
				       .table = o.table,
				       .plan = p,
				       .attempt = attempt };

		snprintf(one.name, sizeof(one.name), "%s", link->name);
		if (defer) {
			*defer = one;
			memset(&p, 0, sizeof(p));
		} else {
			res = change(e, &one, 1, false);
			if (one.raced)
				res = run_again(e, &one, req);
		}
	}
cleanup:
	plan_clear(&p);
	observed_clear(&o);
	log_context(NULL, NULL, 0);
	return res;
}

/* plan for link as apply would, and let it take over the leftovers it wants as they are */
static int take_over(struct ibh_engine *e, const struct ibh_link *link,
		     const struct ibh_request *req, bool *moved)
{
	struct ibh_observed o;
	struct ibh_plan p = {};
	char line[256];
	int r;

	r = observe(e, link, IBH_ACTION_APPLY, false, &o);
	if (r < 0)
		return r == -ENODEV ? 0 : r;
	r = plan_build(e->config, &o, IBH_ACTION_APPLY, &p);
	for (size_t i = 0; r >= 0 && i < p.n_ops; i++) {
		if (p.ops[i].kind != IBH_OP_TRANSFER)
			continue;
		r = record_add(&e->record, &p.ops[i].rec);
		*moved = true;
		if (req->mode == IBH_MODE_CHANGE) {
			op_describe(line, sizeof(line), link->name, &p.ops[i]);
			log_debug("%s: %s", link->name, line);
		}
	}
	plan_clear(&p);
	observed_clear(&o);
	return r;
}

/* the link of that index, once per run, if it is managed and up: it may want a leftover */
static int offer(struct ibh_engine *e, const struct ibh_request *req, int ifindex, int *planned,
		 size_t *n_planned, size_t max, bool *moved)
{
	struct ibh_link l;

	for (size_t k = 0; k < *n_planned; k++)
		if (planned[k] == ifindex)
			return 0;
	if (ifindex <= 0 || link_by_index(e, ifindex, &l) < 0 || !link_is_managed(e->config, &l) ||
	    !l.up)
		return 0;
	if (*n_planned < max)
		planned[(*n_planned)++] = ifindex;
	return take_over(e, &l, req, moved);
}

/*
 * A leftover that a managed link that is up wants as it is passes to that
 * link, also when this run does not plan for it (a hook run for another
 * interface): only what nobody wants is taken back.
 */
static int pass_on_leftovers(struct ibh_engine *e, const struct ibh_request *req)
{
	int planned[16];
	size_t n_planned = 0, max = sizeof(planned) / sizeof(planned[0]);
	bool moved = false;
	int r = load_addrs(e);

	for (size_t i = 0; r >= 0 && i < e->record.n; i++) {
		const struct ibh_rec *rec = &e->record.recs[i];

		if (!rec->leftover)
			continue;
		if (rec->kind == IBH_REC_ROUTE)
			r = offer(e, req, rec->route.oif, planned, &n_planned, max, &moved);
		/* a rule names no link: the links that have its address */
		for (size_t j = 0; rec->kind == IBH_REC_RULE && r >= 0 && j < e->n_addrs; j++)
			if (ip_same_address(&e->addrs[j].addr.ip, &rec->rule.src))
				r = offer(e, req, e->addrs[j].ifindex, planned, &n_planned, max,
					  &moved);
	}
	if (moved) {
		mark_leftovers(e);
		e->record_dirty |= req->mode == IBH_MODE_CHANGE;
	}
	return r;
}

/* what earlier runs and configurations installed that nothing wants now */
static enum ibh_result run_leftovers(struct ibh_engine *e, const struct ibh_request *req)
{
	struct ibh_observed o = {};
	struct ibh_plan p = {};
	enum ibh_result res = IBH_OK;
	size_t n = 0;
	int r;

	if (e->leftovers_done)
		return IBH_OK;
	e->leftovers_done = true;
	r = load_record(e);
	if (r < 0) {
		log_error_errno(r, "cannot read '%s': %m%s", e->record_path, errno_hint(r));
		return IBH_FAILED;
	}
	mark_leftovers(e);
	for (size_t i = 0; i < e->record.n; i++)
		n += e->record.recs[i].leftover;
	if (n && (req->mode == IBH_MODE_STATUS || req->action == IBH_ACTION_APPLY)) {
		r = pass_on_leftovers(e, req);
		if (r < 0) {
			log_error_errno(r, "cannot plan for what earlier runs installed: %m%s",
					errno_hint(r));
			return IBH_FAILED;
		}
		n = 0;
		for (size_t i = 0; i < e->record.n; i++)
			n += e->record.recs[i].leftover;
	}
	if (n == 0)
		return IBH_OK;

	o.record = &e->record;
	r = copy_rules(e, &o);
	for (size_t i = 0; r >= 0 && i < e->record.n; i++) {
		const struct ibh_rec *rec = &e->record.recs[i];
		bool seen = false;

		if (!rec->leftover || rec->kind == IBH_REC_RULE || rec->kind == IBH_REC_LINK)
			continue;
		if (rec->kind == IBH_REC_MAIN) {
			r = observe_main_route(e, &o, &rec->route.dst, rec->route.oif);
			continue;
		}
		for (size_t j = 0; j < i; j++)
			seen |= e->record.recs[j].leftover &&
				e->record.recs[j].kind == IBH_REC_ROUTE &&
				e->record.recs[j].route.table == rec->route.table;
		if (!seen) {
			struct ibh_route *t = NULL, *all;
			size_t n_t = 0;

			r = netlink_dump_table(e->nl, rec->route.table, 0, &t, &n_t);
			if (r < 0)
				break;
			all = realloc(o.routes, (o.n_routes + n_t + 1) * sizeof(*all));
			if (!all) {
				free(t);
				r = -ENOMEM;
				break;
			}
			if (n_t)
				memcpy(all + o.n_routes, t, n_t * sizeof(*t));
			o.routes = all;
			o.n_routes += n_t;
			free(t);
		}
	}
	o.main_known = true;
	if (r >= 0)
		r = plan_leftovers(&o, &p);
	if (r < 0) {
		log_error_errno(r, "cannot take back what earlier runs installed: %m%s",
				errno_hint(r));
		res = IBH_FAILED;
		goto cleanup;
	}
	if (req->mode != IBH_MODE_CHANGE) {
		bool drift = p.refused != 0;

		for (size_t i = 0; i < p.n_ops; i++)
			drift |= op_kind(p.ops[i].kind)->drift;
		report_leftovers(e->rep, &p);
		res = req->mode == IBH_MODE_STATUS && drift ? IBH_FAILED : IBH_OK;
	} else if (p.refused) {
		log_error_errno(p.refused, "refusing to take back a leftover: %s", p.why);
		res = IBH_FAILED;
	} else if (p.n_ops) {
		struct pending one = { .action = "remove", .plan = p };

		res = change(e, &one, 1, true);
	}
cleanup:
	plan_clear(&p);
	observed_clear(&o);
	return res;
}

/* why a link is not managed, in words, for --status and the log */
static void unmanaged_why(const struct ibh_config *c, char *buf, size_t size)
{
	if (c->n_globs == 0)
		snprintf(buf, size,
			 "not managed: neither InfiniBand nor the network device of an RDMA port");
	else
		globs_text(c, buf, size,
			   "not managed: no [Match] Name= glob matches it (Name=", ")");
}

/* the record holds something installed for that name, or that link under another name */
static bool record_names(struct ibh_engine *e, const char *ifname, int ifindex)
{
	if (load_record(e) < 0)
		return true; /* let the leftovers' pass say what is wrong */
	for (size_t i = 0; i < e->record.n; i++)
		if (strcmp(e->record.recs[i].ifname, ifname) == 0 ||
		    (ifindex > 0 && e->record.recs[i].ifindex == ifindex))
			return true;
	return false;
}

/*
 * Taking leftovers back can uncover a main route to delete: a foreign rule
 * may send source-less lookups into a table ib-hook has just emptied, which
 * hid main's duplicate from the lookup. One more pass then leaves the state
 * that the next run would leave (apply stays idempotent); there is nothing
 * else a leftover can change for a link.
 */
static bool leftovers_uncover(const struct ibh_engine *e, const struct ibh_request *req,
			      unsigned long changes_before)
{
	return req->mode == IBH_MODE_CHANGE && req->action == IBH_ACTION_APPLY &&
	       e->config->main_route == IBH_MAIN_DELETE && e->changes != changes_before;
}

enum ibh_result engine_find_links(struct ibh_engine *e, const char *const *ifnames, size_t n)
{
	enum ibh_result res = IBH_OK;
	struct ibh_link link;

	for (size_t i = 0; i < n; i++) {
		int r = link_by_name(e, ifnames[i], &link);

		if (r == -ENODEV) {
			log_error("interface '%s' not found", ifnames[i]);
			res = IBH_USAGE;
		} else if (r < 0) {
			log_error_errno(r, "%s: cannot read the link: %m%s", ifnames[i],
					errno_hint(r));
			return IBH_FAILED;
		}
	}
	return res;
}

enum ibh_result engine_run(struct ibh_engine *e, const char *ifname, const struct ibh_request *req)
{
	enum ibh_result res = IBH_OK, left;
	struct ibh_link link;
	unsigned long before;
	bool managed = false;
	int r;

	r = link_by_name(e, ifname, &link);
	if (ensure_report(e, req) < 0)
		return log_error_errno(-ENOMEM, "%m"), IBH_FAILED;
	if (r == -ENODEV) {
		if (req->hook)
			log_debug("%s: no such interface, nothing to do", ifname);
		else {
			log_error("interface '%s' not found", ifname);
			return IBH_USAGE;
		}
	} else if (r < 0) {
		log_error_errno(r, "%s: cannot read the link: %m%s", ifname, errno_hint(r));
		return IBH_FAILED;
	} else if (!link_is_managed(e->config, &link)) {
		char why[IBH_MAX_GLOBS * (IBH_MAX_GLOB_LEN + 1) + 96];

		unmanaged_why(e->config, why, sizeof(why));
		if (req->mode == IBH_MODE_STATUS) {
			report_unmanaged(e->rep, ifname, why);
			res = IBH_FAILED;
		} else if (req->hook)
			log_debug("%s: %s, nothing to do", ifname, why);
		else
			log_notice("%s: %s, nothing to do", ifname, why);
	} else {
		managed = true;
		res = run_link(e, &link, req, NULL);
	}
	/*
	 * Dispatchers run ib-hook for every interface (lo, eth0...): such a run
	 * stays a few system calls unless ib-hook installed something for that
	 * name (an interface deleted, renamed or dropped from the match).
	 */
	if (req->hook && !managed && !record_names(e, ifname, r == 0 ? link.ifindex : 0))
		return res;
	before = e->changes;
	left = run_leftovers(e, req);
	if (left > res)
		res = left;
	if (managed && res == IBH_OK && leftovers_uncover(e, req, before)) {
		e->rules_valid = false;
		res = run_link(e, &link, req, NULL);
	}
	left = flush_record(e);
	return left > res ? left : res;
}

static bool is_held(const struct ibh_request *req, int ifindex)
{
	for (size_t i = 0; i < req->n_held; i++)
		if (req->held[i] == ifindex)
			return true;
	return false;
}

/* every managed link: plans first, against one view of the kernel, then the changes */
static enum ibh_result run_links(struct ibh_engine *e, const struct ibh_request *req)
{
	enum ibh_result res = IBH_OK, one;
	struct pending *pending;
	size_t n_pending = 0;

	pending = calloc(e->n_links ? e->n_links : 1, sizeof(*pending));
	if (!pending)
		return log_error_errno(-ENOMEM, "%m"), IBH_FAILED;
	for (size_t i = 0; i < e->n_links; i++) {
		if (!link_is_managed(e->config, &e->links[i]) || is_held(req, e->links[i].ifindex))
			continue;
		one = run_link(e, &e->links[i], req, &pending[n_pending]);
		if (pending[n_pending].plan.n_ops)
			n_pending++;
		if (one > res)
			res = one;
	}
	if (n_pending) {
		one = change(e, pending, n_pending, false);
		if (one > res)
			res = one;
	}
	for (size_t i = 0; i < n_pending; i++) {
		if (!pending[i].raced)
			continue;
		one = run_again(e, &pending[i], req);
		if (one > res)
			res = one;
	}
	for (size_t i = 0; i < n_pending; i++)
		plan_clear(&pending[i].plan);
	free(pending);
	return res;
}

enum ibh_result engine_run_all(struct ibh_engine *e, const struct ibh_request *req)
{
	enum ibh_result res = IBH_OK, one;
	unsigned long before;
	int r;

	if (ensure_report(e, req) < 0)
		return log_error_errno(-ENOMEM, "%m"), IBH_FAILED;
	free(e->links);
	e->links = NULL;
	r = netlink_dump_links(e->nl, &e->links, &e->n_links);
	if (r < 0) {
		log_error_errno(r, "cannot list interfaces: %m%s", errno_hint(r));
		return IBH_FAILED;
	}
	e->links_valid = true;
	e->rules_valid = false;
	e->addrs_valid = false;
	res = run_links(e, req);
	before = e->changes;
	one = run_leftovers(e, req);
	if (one > res)
		res = one;
	if (res == IBH_OK && leftovers_uncover(e, req, before)) {
		e->rules_valid = false;
		one = run_links(e, req);
		if (one > res)
			res = one;
	}
	one = flush_record(e);
	return one > res ? one : res;
}

uint32_t engine_port(const struct ibh_engine *e)
{
	return netlink_port(e->nl);
}

unsigned long engine_changes(const struct ibh_engine *e)
{
	return e->changes;
}

size_t engine_repaired(const struct ibh_engine *e, const int **ret)
{
	*ret = e->repaired;
	return e->n_repaired;
}

enum ibh_result engine_run_index(struct ibh_engine *e, int ifindex, const struct ibh_request *req)
{
	enum ibh_result res = IBH_OK, one;
	struct ibh_link link;
	unsigned long before;
	int r;

	r = link_by_index(e, ifindex, &link);
	if (r == 0 && link_is_managed(e->config, &link))
		res = run_link(e, &link, req, NULL);
	else if (r < 0 && r != -ENODEV) {
		log_error_errno(r, "cannot read link %d: %m%s", ifindex, errno_hint(r));
		res = IBH_FAILED;
	}
	/* a link that went, or left the match, leaves leftovers */
	before = e->changes;
	one = run_leftovers(e, req);
	if (one > res)
		res = one;
	if (r == 0 && link_is_managed(e->config, &link) && res == IBH_OK &&
	    leftovers_uncover(e, req, before)) {
		e->rules_valid = false;
		res = run_link(e, &link, req, NULL);
	}
	one = flush_record(e);
	return one > res ? one : res;
}
