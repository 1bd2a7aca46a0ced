// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One view of the kernel for a run: the namespace's links, rules and
 * addresses read once and cached until ib-hook changes them, the record, and
 * what one link looks like (observe) for the planner.
 */
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "config.h"
#include "log.h"
#include "observe.h"
#include "plan.h"
#include "record.h"
#include "route-index.h"
#include "select.h"

/* lo is the first link of every network namespace */
#define LOOPBACK_IFINDEX 1

/*
 * when lo's 127.0.0.1 was added (1/100 s since boot); -ENOENT: it has none.
 * Read from the view's addresses, which a run reads anyway
 */
static int lo_birth(struct ibh_view *v, uint32_t *ret)
{
	struct ibh_ip lo = { .family = AF_INET, .len = 8, .a = { 127, 0, 0, 1 } };
	int r = view_load_addrs(v);

	if (r < 0)
		return r;
	for (size_t i = 0; i < v->n_addrs; i++)
		if (v->addrs[i].ifindex == LOOPBACK_IFINDEX &&
		    ip_same_address(&v->addrs[i].addr.ip, &lo)) {
			*ret = v->addrs[i].addr.created;
			return 0;
		}
	return -ENOENT;
}

/*
 * The record's file name, under a directory that every namespace shares. The
 * cookie (Linux 5.14) is never reused. The inode of /proc/self/ns/net is: the
 * next namespace gets it once this one is gone, and would take a dead
 * namespace's record for its own and delete its own routes. So there the
 * name is the inode, which lasts as long as the namespace, and the record
 * proves itself by its witnesses (record.c, view_load_record()). lo's
 * 127.0.0.1 is the witness that lasts longest (the kernel adds it when lo
 * first comes up, and again only if it is gone; lo down and up keeps it):
 * without it the record would hang on the managed addresses alone, which are
 * what moves, -ENOTUNIQ. legacy: the name the version before witnesses gave
 * the record (the inode and when lo's 127.0.0.1 was added), "" with the cookie.
 */
static int record_name(struct ibh_view *v, char *buf, size_t size, char *legacy, size_t lsize)
{
	struct ibh_netns ns;
	uint32_t birth;
	int r;

	legacy[0] = '\0';
	r = kernel->netns(v->k, &ns);
	if (r < 0)
		return r;
	if (ns.cookie) {
		snprintf(buf, size, "netns-c%llu", (unsigned long long)ns.cookie);
		return 0;
	}
	r = lo_birth(v, &birth);
	if (r == -ENOENT)
		return -ENOTUNIQ;
	if (r < 0)
		return r;
	snprintf(buf, size, "netns-i%llu-%llu", (unsigned long long)ns.dev,
		 (unsigned long long)ns.ino);
	snprintf(legacy, lsize, "%s-b%lu", buf, (unsigned long)birth);
	return 1;
}

int view_open(struct ibh_view *v, const struct ibh_config *c)
{
	char name[96], legacy[128];
	int r;

	memset(v, 0, sizeof(*v));
	v->config = c;
	r = kernel->open(&v->k);
	if (r < 0)
		return log_error_errno(r, "cannot open netlink: %m%s", log_errno_hint(r));
	r = record_name(v, name, sizeof(name), legacy, sizeof(legacy));
	if (r == -ENOTUNIQ)
		return log_error_errno(r, "cannot tell this network namespace from an earlier one "
					  "(no netns cookie before Linux 5.14, and lo has no "
					  "127.0.0.1: is lo up?): refusing to use a record that "
					  "may be a dead namespace's");
	if (r < 0)
		return log_error_errno(r, "cannot name this network namespace: %m%s",
				       log_errno_hint(r));
	snprintf(v->record_path, sizeof(v->record_path), "%s/%s", kernel->state_dir, name);
	v->record_witnessed = r > 0;
	if (legacy[0])
		snprintf(v->record_legacy, sizeof(v->record_legacy), "%s/%s", kernel->state_dir,
			 legacy);
	return 0;
}

void view_close(struct ibh_view *v)
{
	kernel->close(v->k);
	free(v->rules);
	free(v->links);
	free(v->addrs);
	main_index_free(&v->main);
	record_clear(&v->record);
	free(v->record_file);
	memset(v, 0, sizeof(*v));
}

void view_invalidate(struct ibh_view *v)
{
	if (v->record_dirty && view_save_record(v) >= 0)
		v->record_dirty = false;
	view_forget_kernel(v);
	v->record_loaded = false;
	v->record_damage_said = false;
	record_clear(&v->record);
}

int view_load_links(struct ibh_view *v)
{
	int r;

	free(v->links);
	v->links = NULL;
	r = kernel->dump_links(v->k, &v->links, &v->n_links);
	if (r < 0)
		return r;
	v->links_valid = true;
	v->rules_valid = false;
	v->addrs_valid = false;
	return 0;
}

/*
 * Without the cookie a record is this namespace's only if one of its
 * witnesses is still here; one that the version before witnesses left under
 * the inode and lo's birth is, by its name. An earlier namespace's with this
 * inode is read as absent, and the next write replaces it.
 */
static int record_witnessed_here(struct ibh_view *v, const char *path)
{
	int r = view_load_addrs(v);

	if (r < 0 || !v->record.present || path == v->record_legacy)
		return r;
	r = record_witnessed(&v->record, v->addrs, v->n_addrs);
	if (r == 0) {
		log_notice(
			"'%s' names none of this network namespace's addresses: an earlier "
			"namespace's with its inode (or every address it saw went): read as absent",
			path);
		record_clear(&v->record);
	}
	return r < 0 ? r : 0;
}

static bool rec_leftover(struct ibh_view *v, const struct ibh_rec *rec);

/* part k of the record, read now; a damaged part is said and read as empty */
static int load_part(struct ibh_view *v, size_t k)
{
	char why[96], file[300];
	int r = record_load_part(v->record_path, &v->record, k, why, sizeof(why));

	if (r == -EINVAL) {
		record_part_path(file, sizeof(file), v->record_path, v->record.parts[k].ifindex);
		log_warning("'%s' %s: damaged, read as absent", file, why);
		r = 0;
	}
	return r;
}

/* the parts that may hold a leftover: every entry of the others is wanted as it is */
static int load_leftover_parts(struct ibh_view *v)
{
	int r = 0;

	for (size_t k = 0; r >= 0 && k < v->record.n_parts; k++) {
		const struct ibh_record_part *p = &v->record.parts[k];
		bool leftover = false;

		for (size_t j = 0; !p->loaded && j < p->n_keys && !leftover; j++)
			leftover = rec_leftover(v, &p->keys[j]);
		if (leftover)
			r = load_part(v, k);
	}
	return r;
}

int view_load_parts(struct ibh_view *v, int ifindex, uint32_t table)
{
	int r = 0;

	for (size_t k = 0; r >= 0 && k < v->record.n_parts; k++) {
		const struct ibh_record_part *p = &v->record.parts[k];
		bool wanted = p->ifindex == ifindex;

		for (size_t j = 0; !p->loaded && j < p->n_keys && !wanted; j++)
			wanted = table && p->keys[j].route.table == table;
		if (wanted)
			r = load_part(v, k);
	}
	return r;
}

int view_load_record(struct ibh_view *v)
{
	const char *path = v->record_path;
	char why[96];
	int r;

	if (v->record_loaded)
		return 0;
	record_clear(&v->record);
	r = record_load(path, &v->record, why, sizeof(why));
	if (r == 0 && !v->record.present && v->record_legacy[0]) {
		path = v->record_legacy;
		r = record_load(path, &v->record, why, sizeof(why));
	}
	if (r == -EINVAL) {
		/* never guess from a damaged record: treat it as absent, which adopts nothing foreign */
		if (!v->record_damage_said)
			log_warning("'%s' %s: damaged, read as absent", path, why);
		/* once per run, also when a failed write makes it read again */
		v->record_damage_said = true;
		record_clear(&v->record);
		r = 0;
	}
	if (r == 0 && v->record_witnessed)
		r = record_witnessed_here(v, path);
	if (r < 0)
		return r;
	if (r == 0)
		r = load_leftover_parts(v);
	if (r < 0)
		return r;
	v->record_loaded = true;
	free(v->record_file);
	/*
	 * NULL when absent, under the old name or in the old format: the first
	 * save writes the file
	 */
	v->record_file = v->record.present && path == v->record_path && !v->record.one_file
				 ? record_text(&v->record)
				 : NULL;
	/* the witnesses of the next write: this namespace's addresses now */
	if (v->record_witnessed && record_witness(&v->record, v->addrs, v->n_addrs) < 0)
		return -ENOMEM;
	return 0;
}

/* a record that says what the file already says is not written again (a repair re-adds) */
int view_save_record(struct ibh_view *v)
{
	char *text;
	int r;

	/* the addresses as this pass read them, if it did (never a read here: addrs may be in use) */
	if (v->record_witnessed && v->addrs_valid &&
	    record_witness(&v->record, v->addrs, v->n_addrs) < 0)
		return -ENOMEM;
	r = record_write_parts(v->record_path, &v->record);
	if (r < 0)
		return r;
	text = record_text(&v->record);
	if (!text)
		return -ENOMEM;
	if (v->record_file && strcmp(text, v->record_file) == 0) {
		free(text);
		return 0;
	}
	r = record_write(v->record_path, text);
	free(v->record_file);
	v->record_file = NULL;
	if (r < 0) {
		free(text);
		return r;
	}
	v->record_file = text;
	v->record.present = true;
	/* read only while the new name is missing: it is not any more */
	if (v->record_legacy[0] && unlink(v->record_legacy) < 0 && errno != ENOENT)
		log_warning_errno(-errno, "cannot delete '%s', which an earlier version wrote: %m",
				  v->record_legacy);
	v->record_legacy[0] = '\0';
	return r;
}

static int load_rules(struct ibh_view *v)
{
	int r;

	if (v->rules_valid)
		return 0;
	free(v->rules);
	v->rules = NULL;
	r = kernel->dump_rules(v->k, &v->rules, &v->n_rules, &v->rule_protocol);
	if (r < 0)
		return r;
	v->rules_valid = true;
	return 0;
}

int view_load_addrs(struct ibh_view *v)
{
	int r;

	if (v->addrs_valid)
		return 0;
	free(v->addrs);
	v->addrs = NULL;
	r = kernel->dump_addrs(v->k, 0, &v->addrs, &v->n_addrs);
	if (r < 0)
		return r;
	v->addrs_valid = true;
	return 0;
}

/* links asked for one by one: one question per link and pass (engine_invalidate) */
static void remember_link(struct ibh_view *v, int ifindex, int r, const struct ibh_link *link)
{
	if ((r != 0 && r != -ENODEV) || v->n_asked == sizeof(v->asked) / sizeof(v->asked[0]))
		return;
	v->asked[v->n_asked].ifindex = ifindex;
	v->asked[v->n_asked].r = r;
	v->asked[v->n_asked].link = r == 0 ? *link : (struct ibh_link){ .ifindex = ifindex };
	v->n_asked++;
}

int view_link_by_index(struct ibh_view *v, int ifindex, struct ibh_link *ret)
{
	int r;

	if (v->links_valid) {
		for (size_t i = 0; i < v->n_links; i++)
			if (v->links[i].ifindex == ifindex) {
				*ret = v->links[i];
				return 0;
			}
		return -ENODEV;
	}
	for (size_t i = 0; i < v->n_asked; i++)
		if (v->asked[i].ifindex == ifindex) {
			*ret = v->asked[i].link;
			return v->asked[i].r;
		}
	r = kernel->get_link_by_index(v->k, ifindex, ret);
	remember_link(v, ifindex, r, ret);
	return r;
}

int view_link_by_name(struct ibh_view *v, const char *name, struct ibh_link *ret)
{
	int r;

	if (v->links_valid) {
		for (size_t i = 0; i < v->n_links; i++)
			if (strcmp(v->links[i].name, name) == 0) {
				*ret = v->links[i];
				return 0;
			}
		return -ENODEV;
	}
	for (size_t i = 0; i < v->n_asked; i++)
		if (v->asked[i].r == 0 && strcmp(v->asked[i].link.name, name) == 0) {
			*ret = v->asked[i].link;
			return 0;
		}
	r = kernel->get_link(v->k, name, ret);
	if (r == 0)
		remember_link(v, ret->ifindex, r, ret);
	return r;
}

/* another managed link that exists and has table t: [Tables] made them collide */
static void find_table_sharer(struct ibh_view *v, const struct ibh_link *link, uint32_t t,
			      char *ret, size_t size)
{
	const struct ibh_config *c = v->config;
	struct ibh_link other;

	for (size_t i = 0; i < c->n_tables; i++)
		if (c->tables[i].table == t && strcmp(c->tables[i].ifname, link->name) != 0 &&
		    view_link_by_name(v, c->tables[i].ifname, &other) == 0 &&
		    link_is_managed(c, &other)) {
			snprintf(ret, size, "%s", other.name);
			return;
		}
	if (t > c->table_base && t - c->table_base <= INT32_MAX &&
	    (int)(t - c->table_base) != link->ifindex &&
	    view_link_by_index(v, (int)(t - c->table_base), &other) == 0 &&
	    link_is_managed(c, &other) && config_table_of(c, other.name) == 0)
		snprintf(ret, size, "%s", other.name);
}

/*
 * A record entry is a leftover when no current interface and configuration
 * wants it: its link is gone, renamed or no longer matched, its table or
 * priority changed, IPv6 was switched off, MainRoute= went back to keep.
 */
static bool rec_leftover(struct ibh_view *v, const struct ibh_rec *rec)
{
	const struct ibh_config *c = v->config;
	struct ibh_link l;
	uint8_t family = rec->kind == IBH_REC_RULE ? rec->rule.src.family : rec->route.dst.family;
	char sharer[IF_NAMESIZE] = "";

	if (view_link_by_index(v, rec->ifindex, &l) < 0 || strcmp(l.name, rec->ifname) != 0)
		return true;
	/*
	 * The record keeps speaking for a link that left the match: if it
	 * comes back, an object that merely looks like ib-hook's is not
	 * adopted (adoption is for what 0.1.0 installed).
	 */
	if (rec->kind == IBH_REC_LINK)
		return false;
	if (!link_is_managed(c, &l))
		return true;
	/* a [Tables] collision refuses the link: what works stays until it is fixed */
	find_table_sharer(v, &l, config_table(c, l.name, l.ifindex), sharer, sizeof(sharer));
	if (sharer[0])
		return false;
	if (family == AF_INET6 && !c->ipv6)
		return true;
	switch (rec->kind) {
	case IBH_REC_RULE:
		return rec->rule.table != config_table(c, l.name, l.ifindex) ||
		       rec->rule.priority != c->priority;
	case IBH_REC_ROUTE:
		return rec->route.table != config_table(c, l.name, l.ifindex);
	case IBH_REC_MAIN:
		return c->main_route != IBH_MAIN_DELETE;
	case IBH_REC_LINK:
		break;
	}
	return false;
}

/* what rec_leftover() reads of an entry is the same: a part's thousands of copies ask once */
static bool same_question(const struct ibh_rec *a, const struct ibh_rec *b)
{
	if (a->kind != b->kind || a->ifindex != b->ifindex || strcmp(a->ifname, b->ifname) != 0)
		return false;
	if (a->kind == IBH_REC_RULE)
		return a->rule.table == b->rule.table && a->rule.priority == b->rule.priority &&
		       a->rule.src.family == b->rule.src.family;
	return a->route.table == b->route.table && a->route.dst.family == b->route.dst.family;
}

void view_mark_leftovers(struct ibh_view *v)
{
	const struct ibh_rec *last = NULL;

	for (size_t i = 0; i < v->record.n; i++) {
		struct ibh_rec *rec = &v->record.recs[i];

		rec->leftover =
			last && same_question(last, rec) ? last->leftover : rec_leftover(v, rec);
		last = rec;
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

/* rt appended to the array *v of *n routes (room for *cap) */
static int push_route(struct ibh_route **v, size_t *n, size_t *cap, const struct ibh_route *rt)
{
	int r = array_grow(v, cap, *n, sizeof(**v), 4);

	if (r < 0)
		return r;
	(*v)[(*n)++] = *rt;
	return 0;
}

/*
 * A rule that may take a lookup without a source to another table than
 * main before main answers: any but `from A` (a whole address, nothing
 * else) and those that lead to main, local or default
 */
static bool rule_may_divert(const struct ibh_rule *r, uint8_t family)
{
	if (r->src.family != family || r->exact)
		return false;
	return r->action != FR_ACT_TO_TBL ||
	       (r->table != RT_TABLE_MAIN && r->table != RT_TABLE_LOCAL &&
		r->table != RT_TABLE_DEFAULT);
}

/*
 * The kernel's lookup goes through the rules: an answer from main is main's,
 * but another table's answer, or none, may hide main's route when a rule
 * (`from all lookup T`, `not from A lookup T`) diverts the lookup. Then main
 * itself is asked (*ret true). The usual rules (ib-hook's `from A`) cost
 * nothing more than the lookup.
 */
static int lookup_hides_main(struct ibh_view *v, int lookup, const struct ibh_route *rt,
			     uint8_t family, bool *ret)
{
	int r;

	if (lookup == 0) {
		*ret = rt->table != RT_TABLE_MAIN;
		return 0;
	}
	r = load_rules(v);
	if (r < 0)
		return r;
	*ret = false;
	for (size_t i = 0; i < v->n_rules && !*ret; i++)
		*ret = rule_may_divert(&v->rules[i], family);
	return 0;
}

/*
 * main's answer to a lookup of addr through oif (0: any) as the kernel's
 * lookup in main alone gives it: the longest prefix that covers addr, of
 * those the lowest metric. One dump of main, filtered by device where oif
 * is set: only when a rule diverts the lookup.
 */
static int main_lookup(struct ibh_view *v, const struct ibh_ip *addr, int oif,
		       struct ibh_route *ret)
{
	struct ibh_route *t = NULL;
	const struct ibh_route *best = NULL;
	size_t n_t = 0;
	int r = kernel->dump_table(v->k, RT_TABLE_MAIN, oif, &t, &n_t);

	if (r < 0)
		goto cleanup;
	for (size_t i = 0; i < n_t; i++) {
		struct ibh_ip a = *addr;

		if (t[i].dst.family != addr->family || t[i].tos || (oif && t[i].oif != oif))
			continue;
		a.len = t[i].dst.len;
		ip_prefix(&a, &a);
		if (!ip_equal(&a, &t[i].dst))
			continue;
		if (!best || t[i].dst.len > best->dst.len ||
		    (t[i].dst.len == best->dst.len && t[i].metric < best->metric))
			best = &t[i];
	}
	r = best ? 0 : -ENOENT;
	if (best)
		*ret = *best;
cleanup:
	free(t);
	return r;
}

/*
 * main's answer to a lookup of probe through oif (0: any link): one lookup,
 * not a dump of main, unless a rule may hide main (lookup_hides_main). 1
 * with *rt, 0 when main answers nothing the lookup reaches, or < 0.
 */
static int main_answer(struct ibh_view *v, const struct ibh_ip *probe, int oif,
		       struct ibh_route *rt)
{
	bool hidden;
	int r = kernel->fib_match(v->k, probe, oif, rt);

	if (r < 0 && r != -ENOENT && r != -ENETDOWN && r != -ENODEV)
		return r;
	if (r >= 0 && rt->table == RT_TABLE_MAIN)
		return 1;
	r = lookup_hides_main(v, r, rt, probe->family, &hidden);
	if (r < 0 || !hidden)
		return r;
	r = main_lookup(v, probe, oif, rt);
	if (r == -ENOENT || r == -ENODEV)
		return 0;
	return r < 0 ? r : 1;
}

/* main's route for prefix through oif, if it is there */
int observe_main_route(struct ibh_view *v, struct ibh_observed *o, const struct ibh_ip *prefix,
		       int oif)
{
	struct ibh_route rt;
	struct ibh_ip probe;
	int r;

	probe_address(o, prefix, &probe);
	r = main_answer(v, &probe, oif, &rt);
	if (r <= 0 || rt.table != RT_TABLE_MAIN || !ip_equal(&rt.dst, prefix) || rt.oif != oif)
		return r;
	return push_route(&o->main_routes, &o->n_main_routes, &o->cap_main_routes, &rt);
}

/*
 * The GID table of the link's RoCE port, read for the managed addresses
 * only, each up to its entry: a sysfs file per slot (the RDMA netlink has no
 * dump of the table)
 */
static void observe_gids(const struct ibh_config *c, struct ibh_observed *o)
{
	if (kernel->rdma_port_read(o->rdma.dev, o->rdma.port, "link_layer", o->rdma_link_layer,
				   sizeof(o->rdma_link_layer)) < 0) {
		o->rdma_link_layer[0] = '\0';
		return;
	}
	if (strcmp(o->rdma_link_layer, "Ethernet") != 0 || !o->n_addrs)
		return;
	o->gids = calloc(o->n_addrs, sizeof(*o->gids));
	for (size_t i = 0; o->gids && i < o->n_addrs; i++) {
		o->gids[i].index = -1;
		if (plan_address_managed(c, &o->addrs[i].ip))
			gid_find(kernel->rdma_port_read, o->rdma.dev, o->rdma.port, o->link.name,
				 &o->addrs[i].ip, &o->gids[i]);
	}
}

/*
 * Does a socket bound to no address reach prefix through main: its lookup
 * (no source, no device) ends in main at a route at least as specific as
 * prefix. Under MainRoute=delete with every port in one subnet, each port's
 * prefix route is its duplicate, and once all are deleted main has none.
 */
int observe_main_reaches(struct ibh_view *v, const struct ibh_observed *o,
			 const struct ibh_ip *prefix, bool *ret)
{
	struct ibh_route rt;
	struct ibh_ip probe;
	int r;

	probe_address(o, prefix, &probe);
	r = main_answer(v, &probe, 0, &rt);
	*ret = r > 0 && rt.dst.len >= prefix->len;
	return r < 0 ? r : 0;
}

int observe_rules(struct ibh_view *v, struct ibh_observed *o)
{
	int r = load_rules(v);

	if (r < 0)
		return r;
	o->rules = malloc((v->n_rules ? v->n_rules : 1) * sizeof(*o->rules));
	if (!o->rules)
		return -ENOMEM;
	if (v->n_rules)
		memcpy(o->rules, v->rules, v->n_rules * sizeof(*o->rules));
	o->n_rules = v->n_rules;
	o->rule_protocol = v->rule_protocol;
	return 0;
}

static int observe_addrs(struct ibh_view *v, const struct ibh_link *link, struct ibh_observed *o)
{
	const struct ibh_config *c = v->config;
	int r = view_load_addrs(v);

	if (r < 0)
		return r;
	o->addrs = calloc(v->n_addrs ? v->n_addrs : 1, sizeof(*o->addrs));
	o->taken = calloc(v->n_addrs ? v->n_addrs : 1, sizeof(*o->taken));
	if (!o->addrs || !o->taken)
		return -ENOMEM;
	for (size_t i = 0; i < v->n_addrs; i++) {
		const struct ibh_addr_entry *a = &v->addrs[i];

		if (a->ifindex != link->ifindex)
			continue;
		o->addrs[o->n_addrs++] = a->addr;
		if (!plan_address_managed(c, &a->addr.ip))
			continue;
		/* the same address on two managed links: the lower index serves it, stably */
		for (size_t j = 0; j < v->n_addrs; j++) {
			struct ibh_link other;

			if (v->addrs[j].ifindex >= link->ifindex ||
			    !ip_same_address(&v->addrs[j].addr.ip, &a->addr.ip) ||
			    view_link_by_index(v, v->addrs[j].ifindex, &other) < 0 ||
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

/*
 * main's routes through ifindex, appended to o->main_via, from the view's
 * index of main. A link it does not know yet costs one dump of main that the
 * kernel filters by device (strict checking, >= 4.20; before, all of main
 * crosses and netlink.c filters): the kernel has no cheaper way to name the
 * routes through a device, and walks all of main for it.
 */
static int observe_main_through(struct ibh_view *v, int ifindex, struct ibh_observed *o)
{
	if (!main_index_knows(&v->main, ifindex)) {
		struct ibh_route *t = NULL;
		size_t n_t = 0;
		int r = kernel->dump_table(v->k, RT_TABLE_MAIN, ifindex, &t, &n_t);

		/* the link went away since it was read: nothing leaves through it, and
		 * the engine finds it gone as it does for its addresses */
		if (r == -ENODEV)
			return 0;
		if (r >= 0)
			r = main_index_learn(&v->main, ifindex, t, n_t);
		free(t);
		if (r < 0)
			return r;
	}
	return main_index_through(&v->main, ifindex, &o->main_via, &o->n_main_via,
				  &o->cap_main_via);
}

/*
 * The kernel adds a route through X with gateway gw to T(X) only when T(X)
 * or a lookup through X reaches gw without a gateway: X's prefix routes
 * (the plan puts them into T first), a link-local or onlink gateway, or
 * what the lookup finds (one lookup, only for a gateway outside X's prefixes)
 */
static int gateway_reachable(struct ibh_view *v, const struct ibh_observed *o,
			     const struct ibh_ip *gw, uint32_t flags, bool *ret)
{
	struct ibh_route rt;
	int r;

	*ret = true;
	if ((flags & RTNH_F_ONLINK) || (gw->family == AF_INET6 && IPV6_LINK_LOCAL(gw->a)) ||
	    plan_gateway_in_prefix(v->config, o, gw))
		return 0;
	r = kernel->fib_match(v->k, gw, o->link.ifindex, &rt);
	if (r == -ENOMEM || r == -ENOBUFS)
		return r;
	*ret = r == 0 && rt.type == RTN_UNICAST && !rt.gateway && rt.oif == o->link.ifindex;
	return 0;
}

/*
 * main's routes through the link whose gateway (of a hop through the link)
 * it does not reach leave main_via for main_unreachable: not copied
 */
static int drop_unreachable(struct ibh_view *v, struct ibh_observed *o)
{
	size_t kept = 0;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < o->n_main_via; i++) {
		const struct ibh_route *m = &o->main_via[i];
		bool ok = true;

		if (!m->n_hops && m->oif == o->link.ifindex && m->gw.family)
			r = gateway_reachable(v, o, &m->gw, m->flags, &ok);
		for (size_t h = 0; r >= 0 && ok && h < m->n_hops; h++)
			if (m->hops[h].oif == o->link.ifindex && m->hops[h].gw.family)
				r = gateway_reachable(v, o, &m->hops[h].gw, m->hops[h].flags, &ok);
		if (r >= 0 && !ok) {
			struct ibh_route named = *m;

			if (named.oif == o->link.ifindex)
				snprintf(named.oif_name, sizeof(named.oif_name), "%s",
					 o->link.name);
			r = push_route(&o->main_unreachable, &o->n_main_unreachable,
				       &o->cap_main_unreachable, &named);
		} else if (r >= 0)
			o->main_via[kept++] = *m;
	}
	if (r >= 0)
		o->n_main_via = kept;
	return r;
}

/* the link's managed prefixes, which the watcher's index asks for the gateways of main's routes */
static int follow_prefixes(struct ibh_view *v, const struct ibh_observed *o)
{
	struct ibh_ip *p = calloc(o->n_addrs ? o->n_addrs : 1, sizeof(*p));
	size_t n = 0;
	int r;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_addrs; i++)
		if (plan_address_managed(v->config, &o->addrs[i].ip))
			plan_addr_prefix(&o->addrs[i], &p[n++]);
	r = main_index_set_prefixes(&v->main, o->link.ifindex, p, n);
	free(p);
	return r;
}

/*
 * What T copies of main: the routes through the link (one dump of main that
 * the kernel filters by device), and, where the link has a prefix, those
 * through every other managed link, whose gateway may lie in it (one such
 * dump per port; --all and the watcher read each once for every port)
 */
static int observe_main_via(struct ibh_view *v, const struct ibh_link *link, struct ibh_observed *o)
{
	struct ibh_link *links = v->links;
	size_t n_links = v->n_links;
	bool prefix = false;
	ssize_t kept;
	int r = observe_main_through(v, link->ifindex, o);

	for (size_t i = 0; i < o->n_addrs; i++)
		prefix |= plan_address_managed(v->config, &o->addrs[i].ip);
	if (r >= 0 && prefix && !v->links_valid)
		r = kernel->dump_links(v->k, &links, &n_links);
	for (size_t i = 0; r >= 0 && prefix && i < n_links; i++) {
		if (links[i].ifindex == link->ifindex || !link_is_managed(v->config, &links[i]))
			continue;
		r = index_set_add(&o->ports, links[i].ifindex);
		if (r >= 0)
			r = observe_main_through(v, links[i].ifindex, o);
	}
	if (links != v->links)
		free(links);
	if (r < 0)
		return r;
	/* a route through two of the ports was read through each */
	kept = route_dedup(o->main_via, o->n_main_via);
	if (kept < 0)
		return (int)kept;
	o->n_main_via = (size_t)kept;
	return drop_unreachable(v, o);
}

int observe(struct ibh_view *v, const struct ibh_link *link, enum ibh_action action, bool status,
	    struct ibh_observed *o)
{
	const struct ibh_config *c = v->config;
	int r;

	memset(o, 0, sizeof(*o));
	o->link = *link;
	o->table = config_table(c, link->name, link->ifindex);
	if (o->table)
		find_table_sharer(v, link, o->table, o->table_shared_with,
				  sizeof(o->table_shared_with));
	r = view_load_record(v);
	if (r >= 0)
		r = view_load_parts(v, link->ifindex, o->table);
	if (r < 0)
		goto cleanup;
	view_mark_leftovers(v);
	o->record = &v->record;
	r = observe_addrs(v, link, o);
	if (r < 0)
		goto cleanup;
	r = observe_rules(v, o);
	if (r < 0)
		goto cleanup;
	if (o->table) {
		r = kernel->dump_table(v->k, o->table, 0, &o->routes, &o->n_routes);
		if (r < 0)
			goto cleanup;
	}
	for (size_t i = 0; i < o->n_routes; i++) {
		struct ibh_route *rt = &o->routes[i];
		struct ibh_link other;

		if (rt->oif > 0 && view_link_by_index(v, rt->oif, &other) == 0)
			snprintf(rt->oif_name, sizeof(rt->oif_name), "%s", other.name);
	}
	if (v->main.followed) {
		r = follow_prefixes(v, o);
		if (r < 0)
			goto cleanup;
	}
	o->copies_left =
		c->gateway_routes && action == IBH_ACTION_APPLY && !status && v->copies_left;
	if (c->gateway_routes && action == IBH_ACTION_APPLY && o->table && !o->copies_left) {
		r = observe_main_via(v, link, o);
		if (r < 0)
			goto cleanup;
	}
	if (status || c->main_route == IBH_MAIN_DELETE || action == IBH_ACTION_REMOVE) {
		for (size_t i = 0; i < o->n_addrs; i++) {
			struct ibh_ip prefix;

			if (!plan_address_managed(c, &o->addrs[i].ip))
				continue;
			plan_addr_prefix(&o->addrs[i], &prefix);
			r = observe_main_route(v, o, &prefix, link->ifindex);
			if (r < 0)
				goto cleanup;
		}
		o->main_known = true;
	}
	if (status && c->main_route == IBH_MAIN_DELETE && o->n_addrs) {
		o->main_reaches = calloc(o->n_addrs, sizeof(*o->main_reaches));
		for (size_t i = 0; o->main_reaches && i < o->n_addrs; i++) {
			struct ibh_ip prefix;

			if (!plan_address_managed(c, &o->addrs[i].ip))
				continue;
			plan_addr_prefix(&o->addrs[i], &prefix);
			r = observe_main_reaches(v, o, &prefix, &o->main_reaches[i]);
			if (r < 0)
				goto cleanup;
		}
	}
	for (int k = 0; k < IBH_SYSCTL_MAX; k++) {
		bool wanted = status || c->sysctl[k] != IBH_SYSCTL_KEEP;

		o->sysctl[k] = wanted ? kernel->sysctl_read(link->name, (enum ibh_sysctl)k)
				      : IBH_SYSCTL_UNKNOWN;
		o->sysctl_all[k] = status ? kernel->sysctl_read("all", (enum ibh_sysctl)k)
					  : IBH_SYSCTL_UNKNOWN;
		if (o->sysctl[k] < 0)
			o->sysctl[k] = IBH_SYSCTL_UNKNOWN;
		if (o->sysctl_all[k] < 0)
			o->sysctl_all[k] = IBH_SYSCTL_UNKNOWN;
	}
	/* --status names the RDMA port of the link and, on RoCE, each address's GID */
	if (status && select_rdma_port(link->ifindex)) {
		o->rdma = *select_rdma_port(link->ifindex);
		observe_gids(c, o);
	}
	if (link->type == ARPHRD_INFINIBAND &&
	    (status || c->ipoib_mode != IBH_IPOIB_KEEP || c->ipoib_mtu)) {
		char val[64];

		if (kernel->netdev_read(link->name, "mode", val, sizeof(val)) == 0)
			o->ipoib_mode = strcmp(val, "connected") == 0  ? IBH_IPOIB_CONNECTED
					: strcmp(val, "datagram") == 0 ? IBH_IPOIB_DATAGRAM
								       : IBH_IPOIB_KEEP;
		if (kernel->netdev_read(link->name, "mtu", val, sizeof(val)) == 0)
			o->mtu = (uint32_t)strtoul(val, NULL, 10);
	}
	r = 0;
cleanup:
	if (r < 0)
		observed_clear(o);
	return r;
}

/* the kernel as it is now: what this pass read of rules, addresses and links is old */
void view_forget_kernel(struct ibh_view *v)
{
	v->rules_valid = false;
	v->addrs_valid = false;
	v->links_valid = false;
	v->n_asked = 0;
	/* main's routes are read again, unless the watcher's notifications keep them */
	if (!v->main.followed)
		main_index_forget_all(&v->main);
}

/* the record holds something installed for that name, or that link under another name */
bool view_record_names(struct ibh_view *v, const char *ifname, int ifindex)
{
	if (view_load_record(v) < 0)
		return true; /* let the leftovers' pass say what is wrong */
	for (size_t i = 0; i < v->record.n; i++)
		if (strcmp(v->record.recs[i].ifname, ifname) == 0 ||
		    (ifindex > 0 && v->record.recs[i].ifindex == ifindex))
			return true;
	for (size_t k = 0; k < v->record.n_parts; k++) {
		const struct ibh_record_part *p = &v->record.parts[k];

		if (ifindex > 0 && p->ifindex == ifindex)
			return true;
		for (size_t j = 0; j < p->n_keys; j++)
			if (strcmp(p->keys[j].ifname, ifname) == 0)
				return true;
	}
	return false;
}

/*
 * What the leftovers' plan looks at: every rule, main's routes that ib-hook
 * deleted, and each table that holds a leftover route, whole
 */
int observe_leftovers(struct ibh_view *v, struct ibh_observed *o)
{
	/* the tables dumped (as ints): a link's leftover copies may be thousands, in a few tables */
	struct index_set seen = {};
	int r;

	o->record = &v->record;
	r = observe_rules(v, o);
	for (size_t i = 0; r >= 0 && i < v->record.n; i++) {
		const struct ibh_rec *rec = &v->record.recs[i];

		if (!rec->leftover || rec->kind == IBH_REC_RULE || rec->kind == IBH_REC_LINK)
			continue;
		if (rec->kind == IBH_REC_MAIN) {
			r = observe_main_route(v, o, &rec->route.dst, rec->route.oif);
			continue;
		}
		if (!index_set_has(&seen, (int)rec->route.table)) {
			struct ibh_route *t = NULL, *all;
			size_t n_t = 0;

			r = kernel->dump_table(v->k, rec->route.table, 0, &t, &n_t);
			if (r < 0)
				break;
			all = realloc(o->routes, (o->n_routes + n_t + 1) * sizeof(*all));
			if (!all) {
				free(t);
				r = -ENOMEM;
				break;
			}
			if (n_t)
				memcpy(all + o->n_routes, t, n_t * sizeof(*t));
			o->routes = all;
			o->n_routes += n_t;
			free(t);
			r = index_set_add(&seen, (int)rec->route.table);
		}
	}
	index_set_free(&seen);
	o->main_known = true;
	return r;
}
