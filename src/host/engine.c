// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The order of a run: observe (observe.c) -> plan (plan.c) -> apply
 * (apply.c) for one interface at a time, or for every managed one with
 * --all, then for what earlier runs and configurations left behind, and the
 * reports of --dry-run and --status. engine.c, observe.c and apply.c are the
 * level that logs: netlink.c, plan.c and record.c only return codes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "apply.h"
#include "engine.h"
#include "kernel.h"
#include "log.h"
#include "observe.h"
#include "op.h"
#include "plan.h"
#include "record.h"
#include "report.h"
#include "route.h"
#include "select.h"

struct ibh_engine {
	struct ibh_view view;
	struct ibh_apply apply;
	bool leftovers_done;
	struct ibh_report *rep;
	/* links whose main route MainRoute=delete leaves (not the kernel's), said once */
	struct index_set main_other_said;
	/* links with a route of main whose gateway they do not reach, said once */
	struct index_set unreachable_said;
};

static const char *action_name(enum ibh_action a)
{
	return a == IBH_ACTION_REMOVE ? "remove" : "apply";
}

int engine_new(const struct ibh_config *c, struct ibh_engine **ret)
{
	struct ibh_engine *e = calloc(1, sizeof(*e));
	int r;

	if (!e)
		return log_error_errno(-ENOMEM, "%m");
	r = view_open(&e->view, c);
	if (r < 0) {
		engine_free(e);
		return r;
	}
	e->apply.view = &e->view;
	*ret = e;
	return 0;
}

enum ibh_result engine_end(struct ibh_engine *e, const struct ibh_request *req)
{
	char why[600];
	bool ok;

	if (!e->rep)
		return IBH_OK;
	select_none_why(e->view.config, why, sizeof(why));
	ok = report_end(e->rep, e->view.record_path, e->view.record.present,
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
	view_close(&e->view);
	index_set_free(&e->main_other_said);
	index_set_free(&e->unreachable_said);
	index_set_free(&e->apply.repaired);
	index_set_free(&e->apply.ipoib_warned);
	index_set_free(&e->apply.bare_said);
	free(e);
}

void engine_set_config(struct ibh_engine *e, const struct ibh_config *c)
{
	e->view.config = c;
}

void engine_invalidate(struct ibh_engine *e)
{
	view_invalidate(&e->view);
	e->leftovers_done = false;
	e->apply.repaired.n = 0;
}

/*
 * What was said once of a link is said again of the next link with its index:
 * a watcher that sees links come and go for years keeps only those that are
 */
static void forget_link(struct ibh_engine *e, int ifindex)
{
	index_set_del(&e->main_other_said, ifindex);
	index_set_del(&e->unreachable_said, ifindex);
	index_set_del(&e->apply.ipoib_warned, ifindex);
	index_set_del(&e->apply.bare_said, ifindex);
}

/* after a dump of every link: forget those that went */
static void forget_gone(struct ibh_engine *e, const struct index_set *s)
{
	struct ibh_link l;

	for (size_t i = s->n; i-- > 0;)
		if (view_link_by_index(&e->view, s->items[i], &l) == -ENODEV)
			forget_link(e, s->items[i]);
}

/* --status and --dry-run collect their output here until engine_end() */
static int ensure_report(struct ibh_engine *e, const struct ibh_request *req)
{
	if (e->rep || req->mode == IBH_MODE_CHANGE)
		return 0;
	return report_new(req->out, req->json, req->mode == IBH_MODE_STATUS, &e->rep);
}

/*
 * Under MainRoute=delete, a prefix route in main through the link that is not
 * the kernel's own (NetworkManager's, metric 100 and up; one with the user's
 * MTU) stays: the watcher says so once per link, other runs only with -v (a
 * run with nothing to do is silent), and --status shows it.
 */
static void say_main_other(struct ibh_engine *e, const struct ibh_observed *o,
			   const struct ibh_request *req)
{
	const struct ibh_config *c = e->view.config;
	bool said = false;
	char a[64];

	said = index_set_has(&e->main_other_said, o->link.ifindex);
	for (size_t i = 0; i < o->n_addrs && !said; i++) {
		struct ibh_ip prefix;

		if (!plan_address_managed(c, &o->addrs[i].ip))
			continue;
		plan_addr_prefix(&o->addrs[i], &prefix);
		if (!plan_main_route(o, &prefix) || plan_main_route_is_kernels(o, i))
			continue;
		log_full(req->down_removes ? LOG_NOTICE : LOG_DEBUG, 0,
			 "%s: main's route to %s through %s is not the kernel's prefix route "
			 "(NetworkManager's, or one with a metric or MTU of its own): "
			 "MainRoute=delete leaves it",
			 o->link.name, ip_to_string(&prefix, a, sizeof(a), true), o->link.name);
		said = true;
		(void)index_set_add(&e->main_other_said, o->link.ifindex);
	}
}

/*
 * A route of main through the link whose gateway the link does not reach
 * (the link's address went, the route stayed) has no copy: the kernel would
 * refuse it. Said as say_main_other() says its routes: once.
 */
static void say_unreachable(struct ibh_engine *e, const struct ibh_observed *o,
			    const struct ibh_request *req)
{
	char text[512];

	if (!o->n_main_unreachable || index_set_has(&e->unreachable_said, o->link.ifindex))
		return;
	route_format(text, sizeof(text), &o->main_unreachable[0]);
	log_full(req->down_removes ? LOG_NOTICE : LOG_DEBUG, 0,
		 "%s: main's route %s%s is not copied: %s does not reach its gateway", o->link.name,
		 text, o->n_main_unreachable > 1 ? " (and others)" : "", o->link.name);
	(void)index_set_add(&e->unreachable_said, o->link.ifindex);
}

static enum ibh_result run_link_try(struct ibh_engine *e, const struct ibh_link *link,
				    const struct ibh_request *req, struct ibh_pending *defer,
				    unsigned int attempt);

/* v's link changed while its plan was applied: plan it again, as it is now */
static enum ibh_result run_again(struct ibh_engine *e, const struct ibh_pending *v,
				 const struct ibh_request *req)
{
	struct ibh_link link;
	int r;

	view_forget_kernel(&e->view);
	r = view_link_by_index(&e->view, v->ifindex, &link);
	/* gone or renamed: the leftovers' pass takes back what it installed */
	if (r == -ENODEV || (r == 0 && strcmp(link.name, v->name) != 0) ||
	    (r == 0 && !link_is_managed(e->view.config, &link)))
		return IBH_OK;
	if (r < 0) {
		log_error_errno(r, "%s: cannot read the link: %m%s", v->name, log_errno_hint(r));
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
				const struct ibh_request *req, struct ibh_pending *defer)
{
	return run_link_try(e, link, req, defer, 0);
}

static enum ibh_result run_link_try(struct ibh_engine *e, const struct ibh_link *link,
				    const struct ibh_request *req, struct ibh_pending *defer,
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
		    config_table(e->view.config, link->name, link->ifindex));
	/* the kernel takes a down link's routes away and refuses new ones */
	if (action == IBH_ACTION_APPLY && req->mode != IBH_MODE_STATUS && !link->up) {
		log_full(req->hook || e->view.links_valid ? LOG_DEBUG : LOG_NOTICE, 0,
			 "%s: link is down, nothing to apply until it is up", link->name);
		log_context(NULL, NULL, 0);
		return IBH_OK;
	}
	r = observe(&e->view, link, action, req->mode == IBH_MODE_STATUS, &o);
	if (r == -ENODEV && req->hook) {
		log_context(NULL, NULL, 0);
		return IBH_OK;
	}
	if (r < 0) {
		log_error_errno(r, "%s: cannot read its state: %m%s", link->name,
				log_errno_hint(r));
		log_context(NULL, NULL, 0);
		return IBH_FAILED;
	}
	r = plan_build(e->view.config, &o, action, &p);
	/* --status and --dry-run then see the leftovers that apply would see */
	for (size_t i = 0; r >= 0 && req->mode != IBH_MODE_CHANGE && i < p.n_ops; i++)
		if (p.ops[i].kind == IBH_OP_TRANSFER)
			r = record_add(&e->view.record, &p.ops[i].rec);
	if (r < 0) {
		log_error_errno(r, "%s: cannot plan: %m", link->name);
		res = IBH_FAILED;
		goto cleanup;
	}
	if (req->mode == IBH_MODE_STATUS) {
		enum ibh_verdict v = report_status(e->rep, e->view.config, &o, &p);

		res = report_verdict_fails(v) ? IBH_FAILED : IBH_OK;
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
	if (action == IBH_ACTION_APPLY && e->view.config->main_route == IBH_MAIN_DELETE &&
	    req->mode == IBH_MODE_CHANGE)
		say_main_other(e, &o, req);
	if (action == IBH_ACTION_APPLY && req->mode == IBH_MODE_CHANGE)
		say_unreachable(e, &o, req);
	if (req->mode == IBH_MODE_DRY_RUN) {
		report_plan(e->rep, link->name, &p);
		if (o.copies_left && o.table)
			report_comment(e->rep, link->name, o.table, req->watcher);
	} else if (p.n_ops) {
		struct ibh_pending one = { .ifindex = link->ifindex,
					   .action = action_name(action),
					   .table = o.table,
					   .plan = p,
					   .attempt = attempt };

		snprintf(one.name, sizeof(one.name), "%s", link->name);
		if (defer) {
			*defer = one;
			memset(&p, 0, sizeof(p));
		} else {
			res = apply_change(&e->apply, &one, 1, false);
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

	r = observe(&e->view, link, IBH_ACTION_APPLY, false, &o);
	if (r < 0)
		return r == -ENODEV ? 0 : r;
	r = plan_build(e->view.config, &o, IBH_ACTION_APPLY, &p);
	for (size_t i = 0; r >= 0 && i < p.n_ops; i++) {
		if (p.ops[i].kind != IBH_OP_TRANSFER)
			continue;
		r = record_add(&e->view.record, &p.ops[i].rec);
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
	if (ifindex <= 0 || view_link_by_index(&e->view, ifindex, &l) < 0 ||
	    !link_is_managed(e->view.config, &l) || !l.up)
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
	int r = view_load_addrs(&e->view);

	for (size_t i = 0; r >= 0 && i < e->view.record.n; i++) {
		const struct ibh_rec *rec = &e->view.record.recs[i];

		if (!rec->leftover)
			continue;
		if (rec->kind == IBH_REC_ROUTE)
			r = offer(e, req, rec->route.oif, planned, &n_planned, max, &moved);
		/* a rule names no link: the links that have its address */
		for (size_t j = 0; rec->kind == IBH_REC_RULE && r >= 0 && j < e->view.n_addrs; j++)
			if (ip_same_address(&e->view.addrs[j].addr.ip, &rec->rule.src))
				r = offer(e, req, e->view.addrs[j].ifindex, planned, &n_planned,
					  max, &moved);
	}
	if (moved) {
		view_mark_leftovers(&e->view);
		e->view.record_dirty |= req->mode == IBH_MODE_CHANGE;
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
	r = view_load_record(&e->view);
	if (r < 0) {
		log_error_errno(r, "cannot read '%s': %m%s", e->view.record_path,
				log_errno_hint(r));
		return IBH_FAILED;
	}
	view_mark_leftovers(&e->view);
	for (size_t i = 0; i < e->view.record.n; i++)
		n += e->view.record.recs[i].leftover;
	if (n && (req->mode == IBH_MODE_STATUS || req->action == IBH_ACTION_APPLY)) {
		r = pass_on_leftovers(e, req);
		if (r < 0) {
			log_error_errno(r, "cannot plan for what earlier runs installed: %m%s",
					log_errno_hint(r));
			return IBH_FAILED;
		}
		n = 0;
		for (size_t i = 0; i < e->view.record.n; i++)
			n += e->view.record.recs[i].leftover;
	}
	if (n == 0)
		return IBH_OK;

	r = observe_leftovers(&e->view, &o);
	if (r >= 0)
		r = plan_leftovers(&o, &p);
	if (r < 0) {
		log_error_errno(r, "cannot take back what earlier runs installed: %m%s",
				log_errno_hint(r));
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
		struct ibh_pending one = { .action = "remove", .plan = p };

		res = apply_change(&e->apply, &one, 1, true);
	}
cleanup:
	plan_clear(&p);
	observed_clear(&o);
	return res;
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
	       e->view.config->main_route == IBH_MAIN_DELETE && e->apply.changes != changes_before;
}

static enum ibh_result run_links(struct ibh_engine *e, const struct ibh_request *req);

static enum ibh_result worst(enum ibh_result a, enum ibh_result b)
{
	return a > b ? a : b;
}

/*
 * The end of every run: the leftovers, one more pass when taking them back
 * uncovered something (for link, or with all for every managed link), and
 * the record written
 */
static enum ibh_result finish_run(struct ibh_engine *e, const struct ibh_request *req,
				  enum ibh_result res, const struct ibh_link *link, bool all)
{
	unsigned long before = e->apply.changes;

	res = worst(res, run_leftovers(e, req));
	if ((link || all) && res == IBH_OK && leftovers_uncover(e, req, before)) {
		e->view.rules_valid = false;
		res = all ? run_links(e, req) : run_link(e, link, req, NULL);
	}
	/* a record of 0.2.0 or older, all in one file, is written in parts once */
	e->view.record_dirty |= req->mode == IBH_MODE_CHANGE && e->view.record.one_file;
	return worst(res, apply_flush_record(&e->apply));
}

enum ibh_result engine_find_links(struct ibh_engine *e, const char *const *ifnames, size_t n)
{
	enum ibh_result res = IBH_OK;
	struct ibh_link link;

	for (size_t i = 0; i < n; i++) {
		int r = view_link_by_name(&e->view, ifnames[i], &link);

		if (r == -ENODEV) {
			log_error("interface '%s' not found", ifnames[i]);
			res = IBH_USAGE;
		} else if (r < 0) {
			log_error_errno(r, "%s: cannot read the link: %m%s", ifnames[i],
					log_errno_hint(r));
			return IBH_FAILED;
		}
	}
	return res;
}

enum ibh_result engine_run(struct ibh_engine *e, const char *ifname, const struct ibh_request *req)
{
	enum ibh_result res = IBH_OK;
	struct ibh_link link;
	bool managed = false;
	int r;

	/* a hook or --iface run leaves T(X)'s copies to the watcher that keeps them */
	e->view.copies_left =
		req->watcher > 0 && req->action == IBH_ACTION_APPLY && req->mode != IBH_MODE_STATUS;
	r = view_link_by_name(&e->view, ifname, &link);
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
		log_error_errno(r, "%s: cannot read the link: %m%s", ifname, log_errno_hint(r));
		return IBH_FAILED;
	} else if (!link_is_managed(e->view.config, &link)) {
		char why[IBH_MAX_GLOBS * (IBH_MAX_GLOB_LEN + 1) + 96];

		select_unmanaged_why(e->view.config, why, sizeof(why));
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
	if (req->hook && !managed &&
	    !view_record_names(&e->view, ifname, r == 0 ? link.ifindex : 0))
		return res;
	return finish_run(e, req, res, managed ? &link : NULL, false);
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
	struct ibh_pending *pending;
	size_t n_pending = 0;

	pending = calloc(e->view.n_links ? e->view.n_links : 1, sizeof(*pending));
	if (!pending)
		return log_error_errno(-ENOMEM, "%m"), IBH_FAILED;
	for (size_t i = 0; i < e->view.n_links; i++) {
		if (!link_is_managed(e->view.config, &e->view.links[i]) ||
		    is_held(req, e->view.links[i].ifindex))
			continue;
		one = run_link(e, &e->view.links[i], req, &pending[n_pending]);
		if (pending[n_pending].plan.n_ops)
			n_pending++;
		if (one > res)
			res = one;
	}
	if (n_pending) {
		one = apply_change(&e->apply, pending, n_pending, false);
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
	int r;

	/* --all reads main's routes through every port itself */
	e->view.copies_left = false;
	if (ensure_report(e, req) < 0)
		return log_error_errno(-ENOMEM, "%m"), IBH_FAILED;
	r = view_load_links(&e->view);
	if (r < 0) {
		log_error_errno(r, "cannot list interfaces: %m%s", log_errno_hint(r));
		return IBH_FAILED;
	}
	forget_gone(e, &e->main_other_said);
	forget_gone(e, &e->unreachable_said);
	forget_gone(e, &e->apply.ipoib_warned);
	forget_gone(e, &e->apply.bare_said);
	if (e->view.main.followed) {
		/* the prefixes of each managed link that is up come with its pass */
		e->view.main.managed.n = 0;
		e->view.main.n_prefixes = 0;
		for (size_t i = 0; i < e->view.n_links; i++)
			if (link_is_managed(e->view.config, &e->view.links[i]) &&
			    index_set_add(&e->view.main.managed, e->view.links[i].ifindex) < 0)
				return log_error_errno(-ENOMEM, "%m"), IBH_FAILED;
	}
	return finish_run(e, req, run_links(e, req), NULL, true);
}

struct ibh_main_index *engine_follow_main(struct ibh_engine *e)
{
	e->view.main.followed = true;
	return &e->view.main;
}

uint32_t engine_port(const struct ibh_engine *e)
{
	return kernel->port(e->view.k);
}

unsigned long engine_changes(const struct ibh_engine *e)
{
	return e->apply.changes;
}

int engine_link_of_table(struct ibh_engine *e, uint32_t table)
{
	const struct ibh_config *c = e->view.config;
	int r = e->view.links_valid ? 0 : view_load_links(&e->view), found = 0;

	for (size_t i = 0; r >= 0 && i < e->view.n_links; i++) {
		const struct ibh_link *l = &e->view.links[i];

		if (!link_is_managed(c, l) || config_table(c, l->name, l->ifindex) != table)
			continue;
		if (found)
			return 0;
		found = l->ifindex;
	}
	return r < 0 ? r : found;
}

size_t engine_repaired(const struct ibh_engine *e, const int **ret)
{
	*ret = e->apply.repaired.items;
	return e->apply.repaired.n;
}

enum ibh_result engine_run_index(struct ibh_engine *e, int ifindex, const struct ibh_request *req)
{
	enum ibh_result res = IBH_OK;
	struct ibh_link link;
	int r;

	e->view.copies_left = false; /* the watcher's own run */
	r = view_link_by_index(&e->view, ifindex, &link);
	if (r == -ENODEV)
		forget_link(e, ifindex);
	if (r == 0 && link_is_managed(e->view.config, &link)) {
		if (e->view.main.followed && index_set_add(&e->view.main.managed, ifindex) < 0)
			return log_error_errno(-ENOMEM, "%m"), IBH_FAILED;
		res = run_link(e, &link, req, NULL);
	} else if (r == 0 || r == -ENODEV) {
		index_set_del(&e->view.main.managed, ifindex);
		(void)main_index_set_prefixes(&e->view.main, ifindex, NULL, 0);
	} else if (r < 0 && r != -ENODEV) {
		log_error_errno(r, "cannot read link %d: %m%s", ifindex, log_errno_hint(r));
		res = IBH_FAILED;
	}
	/* a link that went, or left the match, leaves leftovers */
	return finish_run(e, req, res,
			  r == 0 && link_is_managed(e->view.config, &link) ? &link : NULL, false);
}

const char *engine_record_path(const struct ibh_engine *e)
{
	return e->view.record_path;
}
