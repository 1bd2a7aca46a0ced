// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "array.h"
#include "config.h"
#include "log.h"
#include "kernel.h"
#include "observe.h"
#include "op.h"
#include "plan.h"
#include "record.h"
#include "sysctl.h"

/* the kernel answered EEXIST to ib-hook's add: is the rule there now, or what is in the way */
static int rule_add_exists(struct ibh_apply *a, const struct ibh_rule *want, char *why, size_t size)
{
	struct ibh_observed now = {};
	const struct ibh_rule *hit;
	int r;

	a->view->rules_valid = false;
	r = observe_rules(a->view, &now);
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
static int route_add_exists(struct ibh_apply *a, const struct ibh_op *op, char *why, size_t size)
{
	const struct ibh_route *want = &op->route;
	struct ibh_route *routes = NULL;
	size_t n = 0;
	char text[160];
	int r = kernel->dump_table(a->view->k, want->table, 0, &routes, &n);

	if (r < 0)
		return r;
	r = -EEXIST;
	for (size_t i = 0; i < n && r < 0; i++)
		if (route_equal(&routes[i], want)) {
			record_forget(&a->view->record, &op->rec);
			r = 0;
		}
	for (size_t i = 0; i < n && r < 0; i++)
		if (route_same_place(&routes[i], want)) {
			snprintf(routes[i].oif_name, sizeof(routes[i].oif_name), "%s", op->ifname);
			route_format(text, sizeof(text), &routes[i]);
			snprintf(why, size,
				 "route %s, which ib-hook did not install, is in the way", text);
			break;
		}
	free(routes);
	return r;
}

static int execute(struct ibh_apply *a, const struct ibh_op *op, char *why, size_t size)
{
	int r;

	switch (op->kind) {
	case IBH_OP_ROUTE_ADD:
		r = kernel->route_add(a->view->k, &op->route);
		return r == -EEXIST ? route_add_exists(a, op, why, size) : r;
	case IBH_OP_MAIN_RESTORE:
		r = kernel->route_add(a->view->k, &op->route);
		/* a route to the prefix through the link is there: main serves it again */
		return r == -EEXIST ? 0 : r;
	case IBH_OP_ROUTE_DEL:
	case IBH_OP_MAIN_DEL:
		return kernel->route_del(a->view->k, &op->route);
	case IBH_OP_RULE_ADD:
		a->view->rules_valid = false;
		r = kernel->rule_add(a->view->k, &op->rule);
		return r == -EEXIST ? rule_add_exists(a, &op->rule, why, size) : r;
	case IBH_OP_RULE_DEL:
		a->view->rules_valid = false;
		return kernel->rule_del(a->view->k, &op->rule);
	case IBH_OP_SYSCTL:
		r = kernel->sysctl_write(op->ifname, op->sysctl.key, op->sysctl.value);
		return r < 0 ? r : 1;
	case IBH_OP_NEIGH_FLUSH:
		return kernel->neigh_flush(a->view->k, op->ifindex);
	case IBH_OP_ADOPT:
	case IBH_OP_FORGET:
	case IBH_OP_TRANSFER:
		return 1;
	case IBH_OP_IPOIB_MODE:
		r = kernel->netdev_write(op->ifname, "mode", ipoib_mode_name(op->mode));
		return r < 0 ? r : 1;
	case IBH_OP_MTU: {
		char mtu[16];

		snprintf(mtu, sizeof(mtu), "%u", op->mtu);
		r = kernel->netdev_write(op->ifname, "mtu", mtu);
		return r < 0 ? r : 1;
	}
	}
	return -EINVAL;
}

/* the link an op acts for was deleted or replaced while ib-hook ran */
static bool link_gone(struct ibh_apply *a, const struct ibh_op *op)
{
	struct ibh_link now;

	if (op->ifindex <= 0)
		return false;
	return kernel->get_link_by_index(a->view->k, op->ifindex, &now) == -ENODEV ||
	       strcmp(now.name, op->ifname) != 0;
}

/* the record learns of p's adds, and forgets what p found gone; not saved yet */
static int record_ahead(struct ibh_apply *a, const struct ibh_plan *p, bool *recorded)
{
	int r;

	/* forgotten first: an object gone from the kernel may be in the plan again, to add */
	for (size_t i = 0; i < p->n_ops; i++)
		if (p->ops[i].kind == IBH_OP_FORGET) {
			record_forget(&a->view->record, &p->ops[i].rec);
			*recorded = true;
		}
	for (size_t i = 0; i < p->n_ops; i++)
		if (op_kind(p->ops[i].kind)->adds) {
			r = record_add(&a->view->record, &p->ops[i].rec);
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
static bool op_repairs(const struct ibh_record *forgotten, const struct ibh_op *op)
{
	if (op_kind(op->kind)->link_setting)
		return true;
	return op_kind(op->kind)->adds && record_find(forgotten, &op->rec);
}

/* what the plan found gone and forgets, found by the fields that name it (op_repairs) */
static void plan_forgotten(const struct ibh_plan *p, struct ibh_record *ret)
{
	for (size_t k = 0; k < p->n_ops; k++)
		/* out of memory, the back-off misses one repair: nothing worse */
		if (p->ops[k].kind == IBH_OP_FORGET)
			(void)record_add(ret, &p->ops[k].rec);
}

static void note_repair(struct ibh_apply *a, int ifindex)
{
	/* out of memory, the back-off misses one repair: nothing worse */
	(void)index_set_add(&a->repaired, ifindex);
}

static void ipoib_refused(struct ibh_apply *a, const struct ibh_op *op, int r)
{
	if (index_set_has(&a->ipoib_warned, op->ifindex))
		return;
	(void)index_set_add(&a->ipoib_warned, op->ifindex);
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

/*
 * MainRoute=delete took op's prefix route out of main: if main has none left
 * to the prefix (every port in one subnet: each port's route is its
 * duplicate), sockets bound to no address get no route to it. Said as a
 * warning, once per link (the watcher deletes it again after each bounce).
 */
static void say_main_bare(struct ibh_apply *a, const struct ibh_op *op)
{
	struct ibh_observed none = {};
	bool reaches = true;
	char pfx[64];

	if (index_set_has(&a->bare_said, op->ifindex) ||
	    observe_main_reaches(a->view, &none, &op->route.dst, &reaches) < 0 || reaches)
		return;
	(void)index_set_add(&a->bare_said, op->ifindex);
	log_warning("%s: MainRoute=delete left main without a route to %s: a socket bound to no "
		    "address (the TCP exchange of perftest, UCX, MPI launchers and NCCL; RDMA CM "
		    "without a source address) gets none; MainRoute=keep keeps it",
		    op->ifname, ip_to_string(&op->route.dst, pfx, sizeof(pfx), true));
}

/* what the kernel answers when an object's address or link changed since it was observed */
static bool world_moved(int r)
{
	return r == -EINVAL || r == -EADDRNOTAVAIL || r == -ENETDOWN || r == -ENETUNREACH ||
	       r == -ESRCH || r == -ENOENT;
}

/* a plan stops at op from: what it recorded ahead and did not install leaves the record */
static void forget_unsent(struct ibh_apply *a, const struct ibh_plan *p, size_t from)
{
	for (size_t i = from; i < p->n_ops; i++)
		if (op_kind(p->ops[i].kind)->adds && p->ops[i].kind != IBH_OP_ADOPT)
			record_forget(&a->view->record, &p->ops[i].rec);
}

/*
 * SIGTERM or SIGINT waits, held: the watcher's stop (systemd's) or ^C of a
 * run. Checked every STOP_EVERY ops only: sigpending() is a system call.
 */
#define STOP_EVERY 64

bool apply_stop_pending(void)
{
	sigset_t pending;

	if (sigpending(&pending) < 0)
		return false;
	return sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1;
}

/*
 * Where p may stop when asked to: the first op from which nothing is left
 * but deleting what ib-hook installed (and record-only forgetting). A stop
 * there leaves an object or a copy that nobody wants a little longer, as
 * before the run, never a link half set up; the next run goes on.
 */
static size_t stoppable_from(const struct ibh_plan *p)
{
	size_t from = p->n_ops;

	while (from > 0) {
		enum ibh_op_kind k = p->ops[from - 1].kind;

		if (k != IBH_OP_ROUTE_DEL && k != IBH_OP_RULE_DEL && k != IBH_OP_FORGET &&
		    k != IBH_OP_NEIGH_FLUSH)
			break;
		from--;
	}
	return from;
}

static enum ibh_result execute_plan(struct ibh_apply *a, struct ibh_pending *v, bool quiet_gone)
{
	const struct ibh_plan *p = &v->plan;
	const char *name = v->name;
	struct ibh_record forgotten = {};
	enum ibh_result res = IBH_OK;
	bool changed = false;
	char line[256], why[320];
	size_t stoppable = stoppable_from(p);
	int r;

	plan_forgotten(p, &forgotten);
	for (size_t i = 0; i < p->n_ops; i++) {
		const struct ibh_op *op = &p->ops[i];

		if (i >= stoppable && (i - stoppable) % STOP_EVERY == 0 && apply_stop_pending()) {
			log_notice("%s: stopping, as asked, before %zu deletions; the next run "
				   "makes them",
				   name[0] ? name : op->ifname, p->n_ops - i);
			a->stopped = true;
			break;
		}
		if (op->kind == IBH_OP_NEIGH_FLUSH && !changed)
			continue;
		why[0] = '\0';
		r = execute(a, op, why, sizeof(why));
		op_describe(line, sizeof(line), name, op);
		if (r < 0 && quiet_gone && op->kind == IBH_OP_MAIN_RESTORE &&
		    (r == -ENETDOWN || r == -ENODEV || r == -EINVAL || r == -EADDRNOTAVAIL ||
		     r == -ENETUNREACH)) {
			/*
			 * the link is down, lost the address or is gone (a leftover's): the
			 * kernel makes the route itself, or has nothing to make it for
			 */
			record_forget(&a->view->record, &op->rec);
			continue;
		}
		if (r < 0 && (r == -ENODEV || r == -ENXIO || link_gone(a, op))) {
			forget_unsent(a, p, i);
			log_notice(
				"%s: interface disappeared while ib-hook ran; the next run takes "
				"back what it installed for it",
				op->ifname);
			break;
		}
		if (r < 0 && (op->kind == IBH_OP_IPOIB_MODE || op->kind == IBH_OP_MTU)) {
			/* routing is what matters: a driver without the mode or MTU warns, once */
			ipoib_refused(a, op, r);
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
			forget_unsent(a, p, i);
			log_full(LOG_DEBUG, r,
				 "%s: %s: %m; %s changed meanwhile, observing it again", op->ifname,
				 line, op->ifname);
			v->raced = true;
			break;
		}
		if (r < 0) {
			forget_unsent(a, p, i);
			if (why[0])
				log_error("%s: failed: %s: %s", op->ifname, line, why);
			else
				log_error_errno(r, "%s: failed: %s: %m%s", op->ifname, line,
						log_errno_hint(r));
			res = IBH_FAILED;
			break;
		}
		if (op_kind(op->kind)->takes_back && !op_kind(op->kind)->record_only)
			record_forget(&a->view->record, &op->rec);
		if (r == 0)
			continue;
		if (op->kind == IBH_OP_MAIN_DEL)
			say_main_bare(a, op);
		if (op_kind(op->kind)->drift) {
			changed = true;
			a->changes++;
			if (op_repairs(&forgotten, op))
				note_repair(a, op->ifindex);
		}
		log_full(op_kind(op->kind)->drift ? LOG_INFO : LOG_DEBUG, 0, "%s: %s", op->ifname,
			 line);
	}
	/*
	 * What was deleted leaves the record at the end of the run (flush_record):
	 * until then the record names a little more than the kernel has, which is
	 * the safe side.
	 */
	a->view->record_dirty = true;
	record_clear(&forgotten);
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
enum ibh_result apply_change(struct ibh_apply *a, struct ibh_pending *v, size_t n, bool quiet_gone)
{
	enum ibh_result res = IBH_OK, one;
	bool recorded = false, raced = false;
	sigset_t all, old;
	int r = 0;

	for (size_t i = 0; i < n && r >= 0; i++)
		r = record_ahead(a, &v[i].plan, &recorded);
	if (r >= 0 && recorded)
		r = view_save_record(a->view);
	if (r < 0) {
		log_error_errno(r, "cannot write '%s': %m%s", a->view->record_path,
				log_errno_hint(r));
		a->view->record_loaded = false;
		return IBH_FAILED;
	}
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	for (size_t i = 0; i < n; i++) {
		log_context(v[i].name[0] ? v[i].name : NULL, v[i].action, v[i].table);
		if (a->stopped) {
			/* a plan not begun is not made at all: the record loses its adds */
			forget_unsent(a, &v[i].plan, 0);
			continue;
		}
		one = execute_plan(a, &v[i], quiet_gone);
		if (one > res)
			res = one;
		raced |= v[i].raced;
	}
	/*
	 * signals are let in before the next try: the record loses the refused
	 * adds first, and a stop what it did not do (a run ends at the signal)
	 */
	if ((raced || a->stopped) && view_save_record(a->view) >= 0)
		a->view->record_dirty = false;
	log_context(NULL, NULL, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return res;
}

enum ibh_result apply_flush_record(struct ibh_apply *a)
{
	int r;

	if (!a->view->record_dirty)
		return IBH_OK;
	a->view->record_dirty = false;
	r = view_save_record(a->view);
	if (r < 0) {
		log_error_errno(r, "cannot write '%s': %m", a->view->record_path);
		a->view->record_loaded = false;
		return IBH_FAILED;
	}
	return IBH_OK;
}
