// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if_arp.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "op.h"
#include "plan.h"
#include "report.h"
#include "route-index.h"
#include "sysctl.h"

struct ibh_report {
	FILE *out;
	bool json, status;
	/* JSON: a list is open, and whether it has an element yet */
	bool in_list, first;
	unsigned int count[IBH_VERDICT_MAX], unmanaged, leftovers, refused_leftovers;
};

static const struct {
	const char *name;
	const char *meaning; /* after the name in the text status; NULL: the reason */
	bool fails;
} verdicts[IBH_VERDICT_MAX] = {
	[IBH_VERDICT_OK] = { "ok", "", false },
	[IBH_VERDICT_DRIFT] = { "drift", " (apply would run the pending commands)", true },
	[IBH_VERDICT_DOWN] = { "down", " (the link is down: nothing is expected)", false },
	[IBH_VERDICT_REFUSED] = { "refused", NULL, true },
	[IBH_VERDICT_UNKNOWN] = { "unknown", NULL, true },
};

bool report_verdict_fails(enum ibh_verdict v)
{
	return verdicts[v].fails;
}

int report_new(FILE *out, bool json, bool status, struct ibh_report **ret)
{
	struct ibh_report *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->out = out;
	r->json = json;
	r->status = status;
	if (json)
		fprintf(out, "{\"version\":1,\"%s\":[", status ? "interfaces" : "operations");
	r->in_list = true;
	r->first = true;
	*ret = r;
	return 0;
}

void report_free(struct ibh_report *r)
{
	free(r);
}

/* the length of the valid UTF-8 sequence s starts with (RFC 3629), 0 if none */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong form, no UTF-16 surrogate, nothing beyond U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * A link name, a path or a message may hold any byte: valid UTF-8 is
 * written as it is, and a byte that is not part of it as \udcXX (U+DC80 +
 * byte - 0x80, Python's "surrogateescape"). No valid UTF-8 gives such a code
 * point, so the document is valid UTF-8 and every name comes back exactly.
 */
void report_json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		size_t n = utf8_len(s);

		if (n == 0)
			fprintf(f, "\\udc%02x", *s);
		else if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fwrite(s, 1, n, f);
		s += n ? n : 1;
	}
	fputc('"', f);
}

static void next(struct ibh_report *r)
{
	if (!r->first)
		fputc(',', r->out);
	r->first = false;
}

static int sysctl_effective(const struct ibh_observed *o, int k)
{
	if (o->sysctl[k] == IBH_SYSCTL_UNKNOWN || o->sysctl_all[k] == IBH_SYSCTL_UNKNOWN)
		return IBH_SYSCTL_UNKNOWN;
	if (k == IBH_SYSCTL_ACCEPT_LOCAL)
		return o->sysctl[k] || o->sysctl_all[k];
	return o->sysctl[k] > o->sysctl_all[k] ? o->sysctl[k] : o->sysctl_all[k];
}

static bool has_rule(const struct ibh_config *c, const struct ibh_observed *o,
		     const struct ibh_ip *src)
{
	for (size_t j = 0; j < o->n_rules; j++) {
		if (rule_is(&o->rules[j], src, o->table, c->priority))
			return true;
	}
	return false;
}

/*
 * What the main table holds for o->addrs[i]'s prefix through the link: one
 * route per prefix, the kernel's for the prefix's first address (a second
 * address in the prefix, such as a service address, shares it)
 */
static const char *main_route_state(const struct ibh_config *c, const struct ibh_observed *o,
				    size_t i)
{
	struct ibh_ip prefix;

	plan_addr_prefix(&o->addrs[i], &prefix);
	if (!plan_main_route(o, &prefix))
		return "absent";
	return plan_main_route_is_kernels(o, plan_prefix_first(c, o, i)) ? "present" : "other";
}

/* T's route for o->addrs[i]'s prefix, the one apply leaves: its first address's */
static const char *table_route_state(const struct ibh_config *c, const struct ibh_observed *o,
				     size_t i)
{
	return plan_table_route_present(o, plan_prefix_first(c, o, i)) ? "ok" : "missing";
}

/*
 * What apply cannot change about a sysctl the configuration sets, and the
 * verdict does not count: conf/all overrides it (the kernel uses the
 * larger), or conf/all could not be read, so the value in use is unknown
 */
static bool sysctl_warning(const struct ibh_config *c, const struct ibh_observed *o, int k,
			   char *buf, size_t size)
{
	const char *name = sysctl_name((enum ibh_sysctl)k);
	int eff = sysctl_effective(o, k);

	if (c->sysctl[k] == IBH_SYSCTL_KEEP || o->sysctl[k] != c->sysctl[k])
		return false;
	if (o->sysctl_all[k] == IBH_SYSCTL_UNKNOWN)
		snprintf(buf, size,
			 "net.ipv4.conf.all.%s could not be read: the value the kernel uses is "
			 "unknown",
			 name);
	else if (eff != c->sysctl[k])
		snprintf(buf, size, "net.ipv4.conf.all.%s=%d overrides %s=%d", name,
			 o->sysctl_all[k], name, c->sysctl[k]);
	else
		return false;
	return true;
}

/*
 * A value the configuration sets that could not be read: the interface may
 * or may not be as apply leaves it, which is never ok. (A sysctl of the
 * interface that could not be read is drift: apply writes it.)
 */
static bool unread(const struct ibh_config *c, const struct ibh_observed *o, char *why, size_t size)
{
	if (o->link.type != ARPHRD_INFINIBAND)
		return false;
	if (c->ipoib_mode != IBH_IPOIB_KEEP && o->ipoib_mode == IBH_IPOIB_KEEP)
		snprintf(why, size, "the IPoIB mode of %s could not be read (wanted %s)",
			 o->link.name, ipoib_mode_name(c->ipoib_mode));
	else if (c->ipoib_mtu && !o->mtu)
		snprintf(why, size, "the MTU of %s could not be read (wanted %u)", o->link.name,
			 c->ipoib_mtu);
	else
		return false;
	return true;
}

/* the reason of a verdict whose table row has no meaning of its own */
static const char *reason(const struct ibh_config *c, const struct ibh_observed *o,
			  const struct ibh_plan *p, enum ibh_verdict v, char *buf, size_t size)
{
	if (v == IBH_VERDICT_REFUSED)
		return p->why;
	if (!unread(c, o, buf, size))
		buf[0] = '\0';
	return buf;
}

static enum ibh_verdict verdict_of(const struct ibh_config *c, const struct ibh_observed *o,
				   const struct ibh_plan *p)
{
	char why[128];

	if (!o->link.up)
		return IBH_VERDICT_DOWN;
	if (p->refused)
		return IBH_VERDICT_REFUSED;
	/* conf/all overriding a value is a warning: apply cannot change it, so it is no drift */
	for (size_t i = 0; i < p->n_ops; i++)
		if (op_kind(p->ops[i].kind)->drift)
			return IBH_VERDICT_DRIFT;
	if (unread(c, o, why, sizeof(why)))
		return IBH_VERDICT_UNKNOWN;
	return IBH_VERDICT_OK;
}

static const char *rule_state(const struct ibh_config *c, const struct ibh_observed *o, size_t i)
{
	if (!plan_address_wanted(c, o, i))
		return "served-by-another-interface";
	return has_rule(c, o, &o->addrs[i].ip) ? "ok" : "missing";
}

static const char *main_state(const struct ibh_config *c, const char *state)
{
	if (strcmp(state, "other") == 0)
		return "present, not the kernel's prefix route (left alone)";
	if (c->main_route == IBH_MAIN_DELETE)
		return strcmp(state, "present") == 0 ? "present, to be deleted" : "deleted";
	return strcmp(state, "present") == 0 ? "present (kept)" : "absent";
}

/* the copies T(X) wants of main's routes (section 9): present or missing */
static void status_copies(FILE *f, const struct ibh_config *c, const struct ibh_observed *o,
			  bool json)
{
	struct ibh_route *copies = NULL;
	struct route_index t = {};
	size_t n = 0;
	char text[512];

	/* T(X) by destination: a scan per copy would cost the square of main's routes through X */
	if (plan_copies(c, o, &copies, &n) < 0 || route_index_build(&t, o->routes, o->n_routes) < 0)
		n = 0;
	if (json)
		fprintf(f, ",\"copies\":[");
	for (size_t i = 0; i < n; i++) {
		const char *state = route_index_find(&t, &copies[i]) >= 0 ? "ok" : "missing";

		route_format(text, sizeof(text), &copies[i]);
		if (json) {
			fprintf(f, "%s{\"route\":", i ? "," : "");
			report_json_string(f, text);
			fprintf(f, ",\"state\":\"%s\"}", state);
		} else {
			fprintf(f, "  copy %s: %s\n", text, state);
		}
	}
	/* main's routes whose gateway the link does not reach: the kernel refuses a copy */
	for (size_t i = 0; i < o->n_main_unreachable; i++) {
		route_format(text, sizeof(text), &o->main_unreachable[i]);
		if (json) {
			fprintf(f, "%s{\"route\":", i || n ? "," : "");
			report_json_string(f, text);
			fprintf(f, ",\"state\":\"unreachable\"}");
		} else {
			fprintf(f, "  copy of %s: none, %s does not reach its gateway\n", text,
				o->link.name);
		}
	}
	if (json)
		fputc(']', f);
	route_index_free(&t);
	free(copies);
}

/* a RoCE port's entry for an address: what a client given its index uses */
static void status_gid_text(FILE *f, const struct ibh_gid *g)
{
	if (g->index >= 0)
		fprintf(f, "; gid %d %s", g->index, gid_type_name(g->type));
	else if (g->entries && !g->global)
		fprintf(f, "; gid none (the port holds link-local GIDs only)");
	else
		fprintf(f, "; gid none");
}

static void status_text(struct ibh_report *r, const struct ibh_config *c,
			const struct ibh_observed *o, const struct ibh_plan *p, enum ibh_verdict v,
			bool ipv4)
{
	FILE *f = r->out;
	char a[64], b[64], cmd[512], warning[128], why[128];
	size_t managed = 0;

	fprintf(f, "%s: table %u, priority %u, main route %s%s\n", o->link.name, o->table,
		c->priority, c->main_route == IBH_MAIN_DELETE ? "delete" : "keep",
		o->link.up ? "" : ", link down");
	if (o->rdma.dev[0])
		fprintf(f, "  rdma: %s port %u%s%s\n", o->rdma.dev, o->rdma.port,
			o->rdma_link_layer[0] ? ", " : "", o->rdma_link_layer);
	for (size_t i = 0; i < o->n_addrs; i++) {
		struct ibh_ip prefix;

		if (!plan_address_managed(c, &o->addrs[i].ip))
			continue;
		managed++;
		plan_addr_prefix(&o->addrs[i], &prefix);
		fprintf(f, "  address %s: rule %s; table route %s %s; main route %s",
			ip_to_string(&o->addrs[i].ip, a, sizeof(a), true), rule_state(c, o, i),
			ip_to_string(&prefix, b, sizeof(b), true), table_route_state(c, o, i),
			main_state(c, main_route_state(c, o, i)));
		if (o->gids)
			status_gid_text(f, &o->gids[i]);
		fputc('\n', f);
		if (o->main_reaches && !o->main_reaches[i])
			fprintf(f,
				"  warning: main has no route to %s: a socket bound to no address "
				"gets none (MainRoute=delete deletes each port's; keep keeps it)\n",
				b);
	}
	if (managed == 0)
		fprintf(f, "  no address\n");
	status_copies(f, c, o, false);
	if (o->link.type == ARPHRD_INFINIBAND && (o->ipoib_mode != IBH_IPOIB_KEEP || o->mtu)) {
		fprintf(f, "  ipoib: mode %s",
			o->ipoib_mode != IBH_IPOIB_KEEP ? ipoib_mode_name(o->ipoib_mode)
							: "unknown");
		if (c->ipoib_mode != IBH_IPOIB_KEEP && c->ipoib_mode != o->ipoib_mode)
			fprintf(f, " (wanted %s)", ipoib_mode_name(c->ipoib_mode));
		fprintf(f, ", mtu %u", o->mtu);
		if (c->ipoib_mtu && c->ipoib_mtu != o->mtu)
			fprintf(f, " (wanted %u)", c->ipoib_mtu);
		fputc('\n', f);
	}
	if (ipv4) {
		fprintf(f, "  sysctl:");
		for (int k = 0; k < IBH_SYSCTL_MAX; k++) {
			int eff = sysctl_effective(o, k);

			fprintf(f, " %s=", sysctl_name((enum ibh_sysctl)k));
			if (eff == IBH_SYSCTL_UNKNOWN)
				fprintf(f, "?");
			else
				fprintf(f, "%d", eff);
			if (c->sysctl[k] != IBH_SYSCTL_KEEP && eff != c->sysctl[k])
				fprintf(f, " (wanted %d)", c->sysctl[k]);
		}
		fputc('\n', f);
		for (int k = 0; k < IBH_SYSCTL_MAX; k++)
			if (sysctl_warning(c, o, k, warning, sizeof(warning))) {
				fprintf(f, "  warning: %s\n", warning);
			}
	}
	for (size_t i = 0; v == IBH_VERDICT_DRIFT && i < p->n_ops; i++) {
		if (!op_kind(p->ops[i].kind)->drift)
			continue;
		op_command(cmd, sizeof(cmd), o->link.name, &p->ops[i]);
		fprintf(f, "  pending: %s\n", cmd);
	}
	if (verdicts[v].meaning)
		fprintf(f, "  verdict: %s%s\n", verdicts[v].name, verdicts[v].meaning);
	else
		fprintf(f, "  verdict: %s: %s\n", verdicts[v].name,
			reason(c, o, p, v, why, sizeof(why)));
}

static void status_json(struct ibh_report *r, const struct ibh_config *c,
			const struct ibh_observed *o, const struct ibh_plan *p, enum ibh_verdict v,
			bool ipv4)
{
	FILE *f = r->out;
	char a[64], cmd[512], why[128];
	bool first = true;

	fprintf(f, "{\"name\":");
	report_json_string(f, o->link.name);
	fprintf(f, ",\"ifindex\":%d,\"up\":%s,\"table\":%u,\"priority\":%u,\"main_route\":\"%s\"",
		o->link.ifindex, o->link.up ? "true" : "false", o->table, c->priority,
		c->main_route == IBH_MAIN_DELETE ? "delete" : "keep");
	if (o->rdma.dev[0]) {
		fprintf(f, ",\"rdma\":{\"device\":");
		report_json_string(f, o->rdma.dev);
		fprintf(f, ",\"port\":%u,\"link_layer\":", o->rdma.port);
		if (o->rdma_link_layer[0])
			report_json_string(f, o->rdma_link_layer);
		else
			fprintf(f, "null");
		fputc('}', f);
	}
	fprintf(f, ",\"addresses\":[");
	for (size_t i = 0; i < o->n_addrs; i++) {
		struct ibh_ip prefix;

		if (!plan_address_managed(c, &o->addrs[i].ip))
			continue;
		plan_addr_prefix(&o->addrs[i], &prefix);
		fprintf(f, "%s{\"address\":\"%s\"", first ? "" : ",",
			ip_to_string(&o->addrs[i].ip, a, sizeof(a), true));
		fprintf(f, ",\"prefix\":\"%s\",\"rule\":\"%s\",\"table_route\":\"%s\"",
			ip_to_string(&prefix, a, sizeof(a), true), rule_state(c, o, i),
			table_route_state(c, o, i));
		fprintf(f, ",\"main_route\":\"%s\"", main_route_state(c, o, i));
		if (o->main_reaches)
			fprintf(f, ",\"main_reaches_prefix\":%s",
				o->main_reaches[i] ? "true" : "false");
		if (o->gids && o->gids[i].index >= 0)
			fprintf(f, ",\"gid\":{\"index\":%d,\"type\":\"%s\"}", o->gids[i].index,
				gid_type_name(o->gids[i].type));
		else if (o->gids)
			fprintf(f, ",\"gid\":null");
		fputc('}', f);
		first = false;
	}
	fputc(']', f);
	status_copies(f, c, o, true);
	fprintf(f, ",\"sysctl\":{");
	for (int k = 0; k < IBH_SYSCTL_MAX; k++) {
		int vals[3] = { o->sysctl[k], o->sysctl_all[k], sysctl_effective(o, k) };
		static const char *const names[3] = { "interface", "all", "effective" };

		fprintf(f, "%s\"%s\":{", k ? "," : "", sysctl_name((enum ibh_sysctl)k));
		for (int j = 0; j < 3; j++) {
			fprintf(f, "%s\"%s\":", j ? "," : "", names[j]);
			if (vals[j] == IBH_SYSCTL_UNKNOWN)
				fprintf(f, "null");
			else
				fprintf(f, "%d", vals[j]);
		}
		if (c->sysctl[k] == IBH_SYSCTL_KEEP)
			fprintf(f, ",\"wanted\":null}");
		else
			fprintf(f, ",\"wanted\":%d}", c->sysctl[k]);
	}
	fputc('}', f);
	if (o->link.type == ARPHRD_INFINIBAND) {
		fprintf(f, ",\"ipoib\":{\"mode\":");
		if (o->ipoib_mode != IBH_IPOIB_KEEP)
			fprintf(f, "\"%s\"", ipoib_mode_name(o->ipoib_mode));
		else
			fprintf(f, "null");
		fprintf(f, o->mtu ? ",\"mtu\":%u" : ",\"mtu\":null", o->mtu);
		fprintf(f, ",\"wanted_mode\":");
		if (c->ipoib_mode != IBH_IPOIB_KEEP)
			fprintf(f, "\"%s\"", ipoib_mode_name(c->ipoib_mode));
		else
			fprintf(f, "null");
		fprintf(f, c->ipoib_mtu ? ",\"wanted_mtu\":%u}" : ",\"wanted_mtu\":null}",
			c->ipoib_mtu);
	}
	fprintf(f, ",\"ipv4\":%s,\"verdict\":\"%s\",\"reason\":", ipv4 ? "true" : "false",
		verdicts[v].name);
	if (!verdicts[v].meaning) {
		report_json_string(f, reason(c, o, p, v, why, sizeof(why)));
	} else if (v == IBH_VERDICT_DRIFT) {
		/* a line a monitoring check can show: how much is pending, and the first of it */
		size_t n = 0, first_op = 0;
		char pending[600];

		for (size_t i = p->n_ops; i-- > 0;)
			if (op_kind(p->ops[i].kind)->drift) {
				n++;
				first_op = i;
			}
		op_command(cmd, sizeof(cmd), o->link.name, &p->ops[first_op]);
		snprintf(pending, sizeof(pending), "%zu pending: %s%s", n, cmd,
			 n > 1 ? "; ..." : "");
		report_json_string(f, pending);
	} else if (v == IBH_VERDICT_DOWN) {
		report_json_string(f, "the link is down: nothing is expected");
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\"pending\":[");
	first = true;
	for (size_t i = 0; v == IBH_VERDICT_DRIFT && i < p->n_ops; i++) {
		if (!op_kind(p->ops[i].kind)->drift)
			continue;
		op_command(cmd, sizeof(cmd), o->link.name, &p->ops[i]);
		if (!first)
			fputc(',', f);
		report_json_string(f, cmd);
		first = false;
	}
	fprintf(f, "],\"warnings\":[");
	first = true;
	for (int k = 0; ipv4 && k < IBH_SYSCTL_MAX; k++) {
		if (!sysctl_warning(c, o, k, cmd, sizeof(cmd)))
			continue;
		if (!first)
			fputc(',', f);
		report_json_string(f, cmd);
		first = false;
	}
	fprintf(f, "]}");
}

enum ibh_verdict report_status(struct ibh_report *r, const struct ibh_config *c,
			       const struct ibh_observed *o, const struct ibh_plan *p)
{
	bool ipv4 = false;
	enum ibh_verdict v;

	for (size_t i = 0; i < o->n_addrs; i++)
		ipv4 |= o->addrs[i].ip.family == AF_INET;
	v = verdict_of(c, o, p);
	r->count[v]++;
	if (r->json) {
		next(r);
		status_json(r, c, o, p, v, ipv4);
	} else
		status_text(r, c, o, p, v, ipv4);
	return v;
}

void report_unmanaged(struct ibh_report *r, const char *ifname, const char *why)
{
	r->unmanaged++;
	if (!r->json) {
		fprintf(r->out, "%s: %s\n", ifname, why);
		return;
	}
	next(r);
	fprintf(r->out, "{\"name\":");
	report_json_string(r->out, ifname);
	fprintf(r->out, ",\"verdict\":\"unmanaged\",\"reason\":");
	report_json_string(r->out, why);
	fprintf(r->out, "}");
}

void report_plan(struct ibh_report *r, const char *ifname, const struct ibh_plan *p)
{
	char cmd[512];

	for (size_t i = 0; i < p->n_ops; i++) {
		op_command(cmd, sizeof(cmd), ifname, &p->ops[i]);
		if (!cmd[0])
			continue; /* the record alone changes */
		if (!r->json) {
			fprintf(r->out, "%s\n", cmd);
			continue;
		}
		next(r);
		fprintf(r->out, "{\"interface\":");
		report_json_string(r->out, p->ops[i].ifname[0] ? p->ops[i].ifname : ifname);
		fprintf(r->out, ",\"command\":");
		report_json_string(r->out, cmd);
		fprintf(r->out, "}");
	}
}

void report_comment(struct ibh_report *r, const char *ifname, uint32_t table, int watcher)
{
	if (r->json)
		return; /* a list of commands: the copies are no command of this run's */
	fprintf(r->out,
		"# %s: the copies of main's routes in table %u are the watcher's (pid %d): "
		"it adds and deletes them, this run does not\n",
		ifname, table, watcher);
}

void report_leftovers(struct ibh_report *r, const struct ibh_plan *p)
{
	char cmd[512];

	if (!r->status) {
		report_plan(r, "", p);
		return;
	}
	if (r->json && r->in_list) {
		fprintf(r->out, "],\"leftovers\":[");
		r->first = true;
	}
	if (p->refused) {
		r->refused_leftovers++;
		if (r->json) {
			next(r);
			fprintf(r->out, "{\"interface\":null,\"command\":null,\"refused\":");
			report_json_string(r->out, p->why);
			fprintf(r->out, "}");
		} else
			fprintf(r->out, "leftovers: refused: %s\n", p->why);
	}
	for (size_t i = 0; i < p->n_ops; i++) {
		if (!op_kind(p->ops[i].kind)->drift)
			continue;
		r->leftovers++;
		op_command(cmd, sizeof(cmd), p->ops[i].ifname, &p->ops[i]);
		if (!r->json) {
			fprintf(r->out, "leftover of an earlier configuration (%s): %s\n",
				p->ops[i].ifname, cmd);
			continue;
		}
		next(r);
		fprintf(r->out, "{\"interface\":");
		report_json_string(r->out, p->ops[i].ifname);
		fprintf(r->out, ",\"command\":");
		report_json_string(r->out, cmd);
		fprintf(r->out, ",\"refused\":null}");
	}
	r->in_list = false;
}

bool report_end(struct ibh_report *r, const char *record_path, bool record_present,
		const char *config_files, const char *none_why)
{
	unsigned int managed = 0, failed = 0;
	bool ok;

	for (int v = 0; v < IBH_VERDICT_MAX; v++) {
		managed += r->count[v];
		failed += verdicts[v].fails ? r->count[v] : 0;
	}
	ok = failed == 0 && r->unmanaged == 0 && r->leftovers == 0 && r->refused_leftovers == 0 &&
	     managed > 0;

	if (!r->status) {
		if (r->json)
			fprintf(r->out, "]}\n");
		return true;
	}
	if (r->json) {
		if (r->in_list)
			fprintf(r->out, "],\"leftovers\":[");
		fprintf(r->out, "],\"record\":");
		report_json_string(r->out, record_path);
		fprintf(r->out, ",\"record_present\":%s,\"config_files\":[",
			record_present ? "true" : "false");
		/* config_files: one name per line */
		for (const char *s = config_files, *first = s; s && *s;) {
			const char *nl = strchr(s, '\n');
			char name[4096];
			size_t len = nl ? (size_t)(nl - s) : strlen(s);

			snprintf(name, sizeof(name), "%.*s", (int)len, s);
			if (s != first)
				fputc(',', r->out);
			report_json_string(r->out, name);
			s += len + (nl ? 1 : 0);
		}
		fprintf(r->out,
			"],\"summary\":{\"managed\":%u,\"ok\":%u,\"drift\":%u,\"down\":%u,"
			"\"refused\":%u,\"unknown\":%u,\"leftovers\":%u},\"ok\":%s}\n",
			managed, r->count[IBH_VERDICT_OK], r->count[IBH_VERDICT_DRIFT],
			r->count[IBH_VERDICT_DOWN], r->count[IBH_VERDICT_REFUSED],
			r->count[IBH_VERDICT_UNKNOWN], r->leftovers, ok ? "true" : "false");
		return ok;
	}
	if (managed == 0 && r->unmanaged == 0)
		fprintf(r->out, "no managed interface: %s\n", none_why);
	fprintf(r->out, "%u managed: %u ok, %u drift, %u down, %u refused", managed,
		r->count[IBH_VERDICT_OK], r->count[IBH_VERDICT_DRIFT], r->count[IBH_VERDICT_DOWN],
		r->count[IBH_VERDICT_REFUSED]);
	if (r->count[IBH_VERDICT_UNKNOWN])
		fprintf(r->out, ", %u unknown", r->count[IBH_VERDICT_UNKNOWN]);
	fprintf(r->out, "; %u leftover(s); config: ", r->leftovers);
	if (!config_files || !*config_files)
		fputs("none, the defaults", r->out);
	for (const char *s = config_files; s && *s; s++)
		fputc(*s == '\n' ? ',' : *s, r->out);
	fprintf(r->out, "; record: %s (%s)\n", record_path, record_present ? "present" : "absent");
	return ok;
}
