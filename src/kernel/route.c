// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "attr.h"
#include "route.h"

void route_wanted(const struct ibh_ip *prefix, const struct ibh_ip *local, int oif,
		  const char *oif_name, uint32_t table, struct ibh_route *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->dst = *prefix;
	if (local->family == AF_INET) {
		ret->src = *local;
		ret->src.len = 32;
		ret->scope = RT_SCOPE_LINK;
	} else {
		/* the kernel's default for IPv6, said out loud so that it compares equal */
		ret->metric = table == RT_TABLE_MAIN ? 256 : 1024;
		ret->scope = RT_SCOPE_UNIVERSE;
	}
	ret->oif = oif;
	ret->table = table;
	ret->protocol = RTPROT_KERNEL;
	ret->type = RTN_UNICAST;
	snprintf(ret->oif_name, sizeof(ret->oif_name), "%s", oif_name);
}

static bool gw_equal(const struct ibh_ip *a, const struct ibh_ip *b)
{
	return a->family == b->family && (!a->family || ip_same_address(a, b));
}

static bool hops_equal(const struct ibh_route *a, const struct ibh_route *b)
{
	if (a->n_hops != b->n_hops || !gw_equal(&a->gw, &b->gw))
		return false;
	for (size_t i = 0; i < a->n_hops; i++)
		if (!gw_equal(&a->hops[i].gw, &b->hops[i].gw) || a->hops[i].oif != b->hops[i].oif ||
		    a->hops[i].weight != b->hops[i].weight || a->hops[i].flags != b->hops[i].flags)
			return false;
	return true;
}

static bool metrics_equal(const struct ibh_route *a, const struct ibh_route *b)
{
	if (a->metrics_set != b->metrics_set || strcmp(a->cc_algo, b->cc_algo) != 0)
		return false;
	for (unsigned int k = 1; k <= IBH_RTAX_MAX; k++)
		if ((a->metrics_set & (1u << k)) && a->metric_values[k] != b->metric_values[k])
			return false;
	return true;
}

bool route_copy(const struct ibh_route *m, int oif, const char *oif_name, uint32_t table,
		struct ibh_route *ret)
{
	struct ibh_route c = *m;

	if (m->type != RTN_UNICAST || m->extra || m->protocol == RTPROT_KERNEL)
		return false;
	if (m->n_hops) {
		c.n_hops = 0;
		for (size_t i = 0; i < m->n_hops; i++)
			if (m->hops[i].oif == oif)
				c.hops[c.n_hops++] = m->hops[i];
		if (!c.n_hops)
			return false;
		/* one next hop is a plain route: the kernel reports it so */
		if (c.n_hops == 1) {
			c.gw = c.hops[0].gw;
			c.flags |= c.hops[0].flags;
			c.n_hops = 0;
		}
		for (size_t i = c.n_hops; i < IBH_ROUTE_HOPS; i++)
			memset(&c.hops[i], 0, sizeof(c.hops[i]));
	} else if (m->oif != oif) {
		return false;
	}
	c.oif = oif;
	c.table = table;
	c.protocol = RTPROT_KERNEL;
	c.expires = false;
	c.gateway = c.gw.family || c.n_hops;
	snprintf(c.oif_name, sizeof(c.oif_name), "%s", oif_name);
	*ret = c;
	return true;
}

bool route_equal(const struct ibh_route *a, const struct ibh_route *b)
{
	return ip_equal(&a->dst, &b->dst) && a->oif == b->oif && a->table == b->table &&
	       hops_equal(a, b) && metrics_equal(a, b) && a->metric == b->metric &&
	       a->scope == b->scope && a->protocol == b->protocol && a->type == b->type &&
	       a->tos == b->tos && a->pref == b->pref && a->expires == b->expires &&
	       a->flags == b->flags && a->gateway == b->gateway && a->extra == b->extra &&
	       a->src.family == b->src.family &&
	       (!a->src.family || ip_same_address(&a->src, &b->src));
}

bool route_same_key(const struct ibh_route *x, const struct ibh_route *y, bool main)
{
	if (!ip_equal(&x->dst, &y->dst) || x->oif != y->oif || x->table != y->table ||
	    x->src.family != y->src.family ||
	    (x->src.family && !ip_same_address(&x->src, &y->src)) || x->tos != y->tos ||
	    !hops_equal(x, y))
		return false;
	/* two copies of one route of main before and after a change are two routes */
	return main || (x->metric == y->metric && x->scope == y->scope &&
			x->protocol == y->protocol && x->type == y->type && x->pref == y->pref &&
			x->flags == y->flags && metrics_equal(x, y));
}

bool route_through(const struct ibh_route *r, int oif)
{
	if (r->oif == oif)
		return true;
	for (size_t i = 0; i < r->n_hops; i++)
		if (r->hops[i].oif == oif)
			return true;
	return false;
}

bool route_has_device(const struct ibh_route *r)
{
	switch (r->type) {
	case RTN_BLACKHOLE:
	case RTN_UNREACHABLE:
	case RTN_PROHIBIT:
	case RTN_THROW:
		return false;
	default:
		return true;
	}
}

/* a next hop of f (its only one, or one of several) through oif via gw (any gw: family 0) */
static bool has_hop(const struct ibh_route *f, int oif, const struct ibh_ip *gw)
{
	if (!f->n_hops)
		return f->oif == oif && (!gw->family || gw_equal(&f->gw, gw));
	for (size_t i = 0; i < f->n_hops; i++)
		if (f->hops[i].oif == oif && (!gw->family || gw_equal(&f->hops[i].gw, gw)))
			return true;
	return false;
}

/*
 * A route delete matches on what it carries (fib_table_delete with
 * fib_nh_match and fib_metrics_match, ip6_route_del): an IPv4 request
 * without a metric matches any metric, one without a source any source; an
 * IPv6 one without a gateway any gateway, and IPv6 deletes next hops one by
 * one (siblings).
 */
bool route_delete_hits(const struct ibh_route *f, const struct ibh_route *r)
{
	if (f->table != r->table || !ip_equal(&f->dst, &r->dst) || f->protocol != r->protocol ||
	    route_equal(f, r))
		return false;
	if (r->dst.family == AF_INET6) {
		if (f->metric != r->metric)
			return false;
		if (!r->n_hops)
			return has_hop(f, r->oif, &r->gw);
		for (size_t i = 0; i < r->n_hops; i++)
			if (has_hop(f, r->hops[i].oif, &r->hops[i].gw))
				return true;
		return false;
	}
	if (f->oif != r->oif || f->tos != r->tos || f->type != r->type || f->scope != r->scope ||
	    (r->src.family && !gw_equal(&f->src, &r->src)) || (r->metric && f->metric != r->metric))
		return false;
	if (r->n_hops ? !hops_equal(f, r)
		      : f->n_hops || (r->gw.family && !gw_equal(&f->gw, &r->gw)))
		return false;
	for (unsigned int k = 1; k <= IBH_RTAX_MAX; k++)
		if ((r->metrics_set & (1u << k)) &&
		    ((f->metrics_set & (1u << k)) ? f->metric_values[k] : 0) != r->metric_values[k])
			return false;
	return true;
}

/*
 * An IPv6 add meets EEXIST from any route of the table with the same prefix,
 * metric and next hop, whatever else it carries (fib6_add_rt2node, which
 * compares no preference, lifetime or protocol); IPv4 only from an identical
 * route. Such a route keeps ib-hook's out: it is in the way, not ib-hook's.
 * An IPv6 gateway route added next to another gateway route of the same
 * prefix and metric joins it as a sibling (ECMP): that one is in the way too.
 */
bool route_add_hits(const struct ibh_route *f, const struct ibh_route *w)
{
	if (w->dst.family != AF_INET6 || f->table != w->table || !ip_equal(&f->dst, &w->dst) ||
	    f->metric != w->metric || !route_has_device(f) || route_equal(f, w))
		return false;
	return f->gateway ? w->gateway : !w->gateway && f->oif == w->oif;
}

bool route_same_place(const struct ibh_route *f, const struct ibh_route *w)
{
	return ip_equal(&f->dst, &w->dst) && f->oif == w->oif;
}

/* appends to buf what the end of s says, if it fits */
static void append(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

/*
 * After the fields every route has, a copied route's in words that old
 * records lack: "via GW", "hop GW OIF WEIGHT FLAGS", "tos N", "flags N",
 * "pref N", "metric TYPE VALUE", "cc NAME"
 */
void route_to_record(char *buf, size_t size, const struct ibh_route *r, bool main)
{
	char a[64], b[64];

	if (main) {
		snprintf(buf, size, "%s %d %s %u", ip_to_record(&r->dst, a, sizeof(a), true),
			 r->oif, ip_to_record(&r->src, b, sizeof(b), false), r->metric);
		return;
	}
	snprintf(buf, size, "%s %d %u %s %u %u %u %u", ip_to_record(&r->dst, a, sizeof(a), true),
		 r->oif, r->table, ip_to_record(&r->src, b, sizeof(b), false), r->metric, r->scope,
		 r->protocol, r->type);
	if (r->gw.family)
		append(buf, size, " via %s", ip_to_record(&r->gw, a, sizeof(a), false));
	for (size_t i = 0; i < r->n_hops; i++)
		append(buf, size, " hop %s %d %u %u",
		       ip_to_record(&r->hops[i].gw, a, sizeof(a), false), r->hops[i].oif,
		       r->hops[i].weight, r->hops[i].flags);
	if (r->tos)
		append(buf, size, " tos %u", r->tos);
	if (r->flags)
		append(buf, size, " flags %u", r->flags);
	if (r->pref)
		append(buf, size, " pref %u", r->pref);
	for (unsigned int k = 1; k <= IBH_RTAX_MAX; k++)
		if ((r->metrics_set & (1u << k)) && k != IBH_RTAX_CC_ALGO)
			append(buf, size, " metric %u %u", k, r->metric_values[k]);
	if (r->cc_algo[0])
		append(buf, size, " cc %s", r->cc_algo);
}

/*
 * The next word of *s (shorter than size), *s then past it and the space
 * after it: a record's words, one space apart, read without sscanf (a part
 * of the record may hold hundreds of thousands of routes)
 */
static bool take_word(const char **s, char *buf, size_t size)
{
	size_t n = strcspn(*s, " ");

	if (n == 0 || n >= size)
		return false;
	memcpy(buf, *s, n);
	buf[n] = '\0';
	*s += n + ((*s)[n] == ' ');
	return true;
}

/* the next word of *s, a decimal number in [min, max] */
static bool take_number(const char **s, long long min, long long max, long long *ret)
{
	char word[24], *end;
	long long v;

	if (!take_word(s, word, sizeof(word)) ||
	    !(isdigit((unsigned char)word[0]) || word[0] == '-'))
		return false;
	errno = 0;
	v = strtoll(word, &end, 10);
	if (*end || errno || v < min || v > max)
		return false;
	*ret = v;
	return true;
}

/* the words after the fields every route has; -EINVAL for anything else */
static int route_words_from_record(const char *s, struct ibh_route *rt)
{
	char word[8], a[64], cc[sizeof(rt->cc_algo)];
	unsigned int x, y, z;
	int oif, n;

	while (*s) {
		if (!take_word(&s, word, sizeof(word)))
			return -EINVAL;
		n = -1;
		if (strcmp(word, "via") == 0) {
			if (!take_word(&s, a, sizeof(a)) || ip_from_record(a, &rt->gw, false) < 0 ||
			    !rt->gw.family)
				return -EINVAL;
			n = 0;
		} else if (strcmp(word, "hop") == 0) {
			struct ibh_nexthop *h = &rt->hops[rt->n_hops];

			if (rt->n_hops == IBH_ROUTE_HOPS ||
			    sscanf(s, "%63s %d %u %u %n", a, &oif, &x, &y, &n) != 4 || n < 0 ||
			    ip_from_record(a, &h->gw, false) < 0 || x > 255 || y > 255)
				return -EINVAL;
			h->oif = oif;
			h->weight = (uint8_t)x;
			h->flags = (uint8_t)y;
			rt->n_hops++;
		} else if (strcmp(word, "metric") == 0) {
			if (sscanf(s, "%u %u %n", &x, &z, &n) != 2 || n < 0 || x < 1 ||
			    x > IBH_RTAX_MAX || x == IBH_RTAX_CC_ALGO)
				return -EINVAL;
			rt->metrics_set |= 1u << x;
			rt->metric_values[x] = z;
		} else if (strcmp(word, "cc") == 0) {
			if (sscanf(s, "%15s %n", cc, &n) != 1 || n < 0)
				return -EINVAL;
			snprintf(rt->cc_algo, sizeof(rt->cc_algo), "%s", cc);
			rt->metrics_set |= 1u << IBH_RTAX_CC_ALGO;
		} else {
			if (sscanf(s, "%u %n", &x, &n) != 1 || n < 0 || x > 255)
				return -EINVAL;
			if (strcmp(word, "tos") == 0)
				rt->tos = (uint8_t)x;
			else if (strcmp(word, "flags") == 0)
				rt->flags = x;
			else if (strcmp(word, "pref") == 0)
				rt->pref = (uint8_t)x;
			else
				return -EINVAL;
		}
		s += n;
	}
	rt->gateway = rt->gw.family || rt->n_hops;
	return 0;
}

int route_from_record(const char *s, struct ibh_route *ret, bool main)
{
	unsigned int table = RT_TABLE_MAIN, metric;
	struct ibh_route rt = {};
	char a[64], b[64];
	long long v[6];
	int oif = 0, end = -1;

	if (main) {
		if (sscanf(s, "%63s %d %63s %u %n", a, &oif, b, &metric, &end) != 4)
			return -EINVAL;
	} else {
		const char *p = s;

		if (!take_word(&p, a, sizeof(a)) || !take_number(&p, INT_MIN, INT_MAX, &v[0]) ||
		    !take_number(&p, 0, UINT32_MAX, &v[1]) || !take_word(&p, b, sizeof(b)) ||
		    !take_number(&p, 0, UINT32_MAX, &v[2]) || !take_number(&p, 0, 255, &v[3]) ||
		    !take_number(&p, 0, 255, &v[4]) || !take_number(&p, 0, 255, &v[5]))
			return -EINVAL;
		oif = (int)v[0];
		table = (unsigned int)v[1];
		metric = (unsigned int)v[2];
		rt.scope = (uint8_t)v[3];
		rt.protocol = (uint8_t)v[4];
		rt.type = (uint8_t)v[5];
		end = (int)(p - s);
	}
	if (ip_from_record(a, &rt.dst, true) < 0 || !rt.dst.family ||
	    ip_from_record(b, &rt.src, false) < 0)
		return -EINVAL;
	rt.oif = oif;
	rt.table = table;
	rt.metric = metric;
	/* what ib-hook takes out of main and gives back is the kernel's prefix route */
	if (main) {
		rt.protocol = RTPROT_KERNEL;
		rt.type = RTN_UNICAST;
		rt.scope = rt.dst.family == AF_INET ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
	}
	if (end < 0 || (main ? s[end] != '\0' : route_words_from_record(s + end, &rt) < 0))
		return -EINVAL;
	*ret = rt;
	return 0;
}

void route_table_name(char *buf, size_t size, uint32_t table)
{
	if (table == RT_TABLE_MAIN)
		snprintf(buf, size, "main");
	else
		snprintf(buf, size, "%u", table);
}

static const char *proto_name(uint8_t protocol, char *buf, size_t size)
{
	static const char *const names[] = {
		[RTPROT_REDIRECT] = "redirect", [RTPROT_KERNEL] = "kernel", [RTPROT_BOOT] = "boot",
		[RTPROT_STATIC] = "static",	[RTPROT_RA] = "ra",	    [RTPROT_DHCP] = "dhcp",
	};

	if (protocol < sizeof(names) / sizeof(names[0]) && names[protocol])
		return names[protocol];
	snprintf(buf, size, "%u", protocol);
	return buf;
}

/* iproute2's names of the route metrics, RTAX_* */
static const char *const metric_names[IBH_RTAX_MAX + 1] = {
	[1] = "lock",
	[2] = "mtu",
	[3] = "window",
	[4] = "rtt",
	[5] = "rttvar",
	[6] = "ssthresh",
	[7] = "cwnd",
	[8] = "advmss",
	[9] = "reordering",
	[10] = "hoplimit",
	[11] = "initcwnd",
	[12] = "features",
	[13] = "rto_min",
	[14] = "initrwnd",
	[15] = "quickack",
	[16] = "congctl",
	[17] = "fastopen_no_cookie",
};

/* " via GW dev X" or " nexthop via GW dev X weight W" for each hop, then the metrics */
static void append_hops_metrics(char *buf, size_t size, const struct ibh_route *r,
				const char *ifname)
{
	char a[64];

	if (r->gw.family)
		append(buf, size, " via %s", ip_to_string(&r->gw, a, sizeof(a), false));
	if (!r->n_hops)
		append(buf, size, " dev %s", r->oif_name[0] ? r->oif_name : ifname);
	for (size_t i = 0; i < r->n_hops; i++) {
		const struct ibh_nexthop *h = &r->hops[i];

		append(buf, size, " nexthop%s%s", h->gw.family ? " via " : "",
		       h->gw.family ? ip_to_string(&h->gw, a, sizeof(a), false) : "");
		if (h->oif == r->oif)
			append(buf, size, " dev %s", r->oif_name[0] ? r->oif_name : ifname);
		else
			append(buf, size, " dev #%d", h->oif);
		append(buf, size, " weight %u%s", h->weight + 1u,
		       h->flags & RTNH_F_ONLINK ? " onlink" : "");
	}
}

static void append_attrs(char *buf, size_t size, const struct ibh_route *r)
{
	static const char *const prefs[] = { "", " pref high", " pref 2", " pref low" };

	if (r->metric)
		append(buf, size, " metric %u", r->metric);
	if (r->tos)
		append(buf, size, " tos 0x%x", r->tos);
	for (unsigned int k = 2; k <= IBH_RTAX_MAX; k++)
		if (r->metrics_set & (1u << k)) {
			bool locked = (r->metrics_set & 2u) && (r->metric_values[1] & (1u << k));

			if (k == IBH_RTAX_CC_ALGO)
				append(buf, size, " congctl %s%s", locked ? "lock " : "",
				       r->cc_algo);
			else
				append(buf, size, " %s %s%u", metric_names[k],
				       locked ? "lock " : "", r->metric_values[k]);
		}
	append(buf, size, "%s%s", prefs[r->pref & 3], r->flags & RTNH_F_ONLINK ? " onlink" : "");
}

const char *route_format(char *buf, size_t size, const struct ibh_route *r)
{
	char a[64], p[8];
	static const char *const types[] = {
		[RTN_UNICAST] = "",
		[RTN_LOCAL] = "local ",
		[RTN_BROADCAST] = "broadcast ",
		[RTN_ANYCAST] = "anycast ",
		[RTN_MULTICAST] = "multicast ",
		[RTN_BLACKHOLE] = "blackhole ",
		[RTN_UNREACHABLE] = "unreachable ",
		[RTN_PROHIBIT] = "prohibit ",
		[RTN_THROW] = "throw ",
		[RTN_NAT] = "nat ",
	};
	const char *type = r->type < sizeof(types) / sizeof(types[0]) && types[r->type]
				   ? types[r->type]
				   : "type? ";

	snprintf(buf, size, "%s%s", type, ip_to_string(&r->dst, a, sizeof(a), true));
	if (r->gw.family || r->n_hops || r->oif_name[0])
		append_hops_metrics(buf, size, r, "?");
	else if (r->oif)
		append(buf, size, " dev ?");
	append(buf, size, " proto %s", proto_name(r->protocol, p, sizeof(p)));
	append_attrs(buf, size, r);
	append(buf, size, "%s%s", r->expires ? " expires" : "",
	       r->extra ? " (with more attributes)" : "");
	return buf;
}

void route_command(char *buf, size_t size, const char *verb, const struct ibh_route *r,
		   const char *ifname)
{
	char a[64], b[64], t[16];

	route_table_name(t, sizeof(t), r->table);
	snprintf(buf, size, "ip%s route %s %s", r->dst.family == AF_INET6 ? " -6" : "", verb,
		 ip_to_string(&r->dst, a, sizeof(a), true));
	if (!r->n_hops)
		append_hops_metrics(buf, size, r, ifname);
	append(buf, size, " proto kernel%s%s%s", r->scope == RT_SCOPE_LINK ? " scope link" : "",
	       r->src.family ? " src " : "",
	       r->src.family ? ip_to_string(&r->src, b, sizeof(b), false) : "");
	append_attrs(buf, size, r);
	append(buf, size, " table %s", t);
	if (r->n_hops)
		append_hops_metrics(buf, size, r, ifname);
}

void route_text_named(char *buf, size_t size, const struct ibh_route *r)
{
	char a[64], t[16];

	route_table_name(t, sizeof(t), r->table);
	snprintf(buf, size, "%s in table %s", ip_to_string(&r->dst, a, sizeof(a), true), t);
}

void route_text_added(char *buf, size_t size, const struct ibh_route *r)
{
	char a[64], b[64], t[16];

	route_table_name(t, sizeof(t), r->table);
	snprintf(buf, size, "%s%s%s", ip_to_string(&r->dst, a, sizeof(a), true),
		 r->src.family ? " src " : "",
		 r->src.family ? ip_to_string(&r->src, b, sizeof(b), false) : "");
	if (r->gateway)
		append_hops_metrics(buf, size, r, "?");
	append(buf, size, " in table %s", t);
}

void route_text_deleted(char *buf, size_t size, const struct ibh_route *r, const char *ifname)
{
	char a[64], t[16];

	route_table_name(t, sizeof(t), r->table);
	snprintf(buf, size, "%s dev %s from table %s", ip_to_string(&r->dst, a, sizeof(a), true),
		 r->oif_name[0] ? r->oif_name : ifname, t);
}

/* lengths the kernel guarantees, checked anyway: a parser must not trust its input */
static const uint8_t route_minlen[RTA_MAX + 1] = {
	[RTA_TABLE] = 4,   [RTA_OIF] = 4,     [RTA_PRIORITY] = 4,
	[RTA_PREF] = 1,	   [RTA_EXPIRES] = 4, [RTA_CACHEINFO] = sizeof(struct rta_cacheinfo),
	[RTA_GATEWAY] = 4,
};

/* RTA_MULTIPATH: its next hops into r, r->oif theirs if they share one, else -1 */
static void parse_multipath(const struct nlattr *mp, struct ibh_route *r)
{
	const struct rtnexthop *nh = attr_data(mp);
	int len = attr_len(mp), oif = 0;

	while (len >= (int)sizeof(*nh) && nh->rtnh_len >= sizeof(*nh) && nh->rtnh_len <= len) {
		const struct nlattr *a = (const struct nlattr *)RTNH_DATA(nh);
		int rem = nh->rtnh_len - (int)RTNH_LENGTH(0);

		if (oif && oif != nh->rtnh_ifindex)
			oif = -1;
		else if (!oif)
			oif = nh->rtnh_ifindex;
		if (r->n_hops == IBH_ROUTE_HOPS) {
			r->extra = true;
		} else {
			struct ibh_nexthop *h = &r->hops[r->n_hops++];

			h->oif = nh->rtnh_ifindex;
			h->weight = nh->rtnh_hops;
			h->flags = nh->rtnh_flags & RTNH_F_ONLINK;
			for (; rem >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) &&
			       a->nla_len <= rem;
			     rem -= NLA_ALIGN(a->nla_len),
			     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len))) {
				if (attr_type(a) == RTA_GATEWAY &&
				    (attr_len(a) == 4 || attr_len(a) == 16))
					attr_ip(&h->gw, attr_len(a) == 4 ? AF_INET : AF_INET6,
						attr_len(a) == 4 ? 32 : 128, a);
				else
					r->extra = true; /* RTA_VIA, RTA_FLOW, an encap */
			}
		}
		len -= RTNH_ALIGN(nh->rtnh_len);
		nh = RTNH_NEXT(nh);
	}
	r->oif = oif;
}

/* RTA_METRICS into r; one ib-hook does not know makes r one it cannot copy */
static void parse_metrics(const struct nlattr *nest, struct ibh_route *r)
{
	const struct nlattr *a = attr_data(nest);
	int rem = attr_len(nest);

	for (; rem >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= rem;
	     rem -= NLA_ALIGN(a->nla_len),
	     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len))) {
		int k = attr_type(a);

		if (k < 1 || k > IBH_RTAX_MAX) {
			r->extra = true;
		} else if (k == IBH_RTAX_CC_ALGO) {
			snprintf(r->cc_algo, sizeof(r->cc_algo), "%.*s", attr_len(a),
				 (const char *)attr_data(a));
			r->metrics_set |= 1u << k;
		} else if (attr_len(a) >= 4) {
			r->metric_values[k] = attr_u32(a);
			r->metrics_set |= 1u << k;
		}
	}
}

/*
 * The route flags a request sets: part of a route's identity. The others
 * (dead, linkdown, offload, trap, cloned...) are the kernel's state of the
 * moment, not something the route was made with.
 */
#define ROUTE_USER_FLAGS (RTNH_F_ONLINK | RTNH_F_PERVASIVE | RTM_F_PREFIX)

int route_from_msg(const struct nlmsghdr *nlh, struct ibh_route *route)
{
	const struct nlattr *tb[RTA_MAX + 1], *a;
	const struct rtmsg *rtm = msg_header(nlh, sizeof(*rtm));
	int rem;

	if (!rtm || attr_parse(nlh, sizeof(*rtm), tb, RTA_MAX, route_minlen) < 0)
		return -EINVAL;
	memset(route, 0, sizeof(*route));
	attr_ip(&route->dst, rtm->rtm_family, rtm->rtm_dst_len, tb[RTA_DST]);
	if (tb[RTA_PREFSRC])
		attr_ip(&route->src, rtm->rtm_family, rtm->rtm_family == AF_INET ? 32 : 128,
			tb[RTA_PREFSRC]);
	route->table = tb[RTA_TABLE] ? attr_u32(tb[RTA_TABLE]) : rtm->rtm_table;
	route->oif = tb[RTA_OIF] ? (int)attr_u32(tb[RTA_OIF]) : 0;
	if (tb[RTA_MULTIPATH])
		parse_multipath(tb[RTA_MULTIPATH], route);
	if (tb[RTA_GATEWAY])
		attr_ip(&route->gw, rtm->rtm_family, rtm->rtm_family == AF_INET ? 32 : 128,
			tb[RTA_GATEWAY]);
	route->metric = tb[RTA_PRIORITY] ? attr_u32(tb[RTA_PRIORITY]) : 0;
	route->protocol = rtm->rtm_protocol;
	route->scope = rtm->rtm_scope;
	route->type = rtm->rtm_type;
	route->tos = rtm->rtm_tos;
	route->gateway = tb[RTA_GATEWAY] || tb[RTA_VIA] || tb[RTA_MULTIPATH];
	route->pref = tb[RTA_PREF] ? attr_u8(tb[RTA_PREF]) : 0;
	/* IPv6 reports a route's lifetime in its cache info; 0 is none */
	route->expires =
		tb[RTA_EXPIRES] ||
		(tb[RTA_CACHEINFO] &&
		 ((const struct rta_cacheinfo *)attr_data(tb[RTA_CACHEINFO]))->rta_expires);
	route->flags = rtm->rtm_flags & ROUTE_USER_FLAGS;
	attr_for_each(a, nlh, sizeof(*rtm), rem)
	{
		switch (attr_type(a)) {
		case RTA_DST:
		case RTA_PREFSRC:
		case RTA_TABLE:
		case RTA_OIF:
		case RTA_PRIORITY:
		case RTA_GATEWAY:
		case RTA_MULTIPATH:
		case RTA_CACHEINFO: /* IPv6 reports these for every route */
		case RTA_PREF:
		case RTA_EXPIRES:
			break;
		case RTA_METRICS:
			parse_metrics(a, route);
			break;
		default:
			route->extra = true;
		}
	}
	return 0;
}

void route_to_msg(struct ibh_msg *m, const struct ibh_route *r, bool add)
{
	struct rtmsg rtm = {
		.rtm_family = r->dst.family,
		.rtm_dst_len = r->dst.len,
		.rtm_table = msg_table8(r->table),
		.rtm_protocol = r->protocol,
		.rtm_scope = r->scope,
		.rtm_type = r->type ? r->type : RTN_UNICAST,
		.rtm_tos = r->tos,
		.rtm_flags = r->flags,
	};

	/*
	 * Never NLM_F_REPLACE: it replaces whatever route holds the same prefix
	 * and metric, a user's gateway route included. APPEND puts ib-hook's
	 * route after such a route instead of before it, and the kernel answers
	 * EEXIST only for an identical route.
	 */
	msg_request(m, add ? RTM_NEWROUTE : RTM_DELROUTE, add, NLM_F_APPEND, &rtm, sizeof(rtm));
	msg_put_u32(m, RTA_TABLE, r->table);
	msg_put_ip(m, RTA_DST, &r->dst);
	if (!r->n_hops)
		msg_put_u32(m, RTA_OIF, (uint32_t)r->oif);
	if (r->gw.family)
		msg_put_ip(m, RTA_GATEWAY, &r->gw);
	if (r->src.family)
		msg_put_ip(m, RTA_PREFSRC, &r->src);
	if (r->metric)
		msg_put_u32(m, RTA_PRIORITY, r->metric);
	if (r->pref)
		msg_put_u8(m, RTA_PREF, r->pref);
	if (r->n_hops) {
		size_t mp = msg_nest_begin(m, RTA_MULTIPATH);

		for (size_t i = 0; i < r->n_hops; i++) {
			struct rtnexthop nh = { .rtnh_flags = r->hops[i].flags,
						.rtnh_hops = r->hops[i].weight,
						.rtnh_ifindex = r->hops[i].oif };
			size_t at = msg_begin(m, &nh, sizeof(nh));

			if (r->hops[i].gw.family)
				msg_put_ip(m, RTA_GATEWAY, &r->hops[i].gw);
			msg_end(m, at);
		}
		msg_end(m, mp);
	}
	if (r->metrics_set) {
		size_t mx = msg_nest_begin(m, RTA_METRICS);

		for (uint16_t k = 1; k <= IBH_RTAX_MAX; k++) {
			if (!(r->metrics_set & (1u << k)))
				continue;
			if (k == IBH_RTAX_CC_ALGO)
				msg_put(m, k, r->cc_algo, strlen(r->cc_algo) + 1);
			else
				msg_put_u32(m, k, r->metric_values[k]);
		}
		msg_end(m, mx);
	}
}
