// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
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

bool route_equal(const struct ibh_route *a, const struct ibh_route *b)
{
	return ip_equal(&a->dst, &b->dst) && a->oif == b->oif && a->table == b->table &&
	       a->metric == b->metric && a->scope == b->scope && a->protocol == b->protocol &&
	       a->type == b->type && a->tos == b->tos && a->pref == b->pref &&
	       a->expires == b->expires && a->flags == b->flags && a->gateway == b->gateway &&
	       a->extra == b->extra && a->src.family == b->src.family &&
	       (!a->src.family || ip_same_address(&a->src, &b->src));
}

bool route_same_key(const struct ibh_route *x, const struct ibh_route *y, bool main)
{
	if (!ip_equal(&x->dst, &y->dst) || x->oif != y->oif || x->table != y->table ||
	    x->src.family != y->src.family || (x->src.family && !ip_same_address(&x->src, &y->src)))
		return false;
	return main || (x->metric == y->metric && x->scope == y->scope &&
			x->protocol == y->protocol && x->type == y->type);
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

/*
 * A route delete matches on what it carries (fib_table_delete,
 * ip6_route_del): an IPv4 request without a metric matches any metric, an
 * IPv6 one without a gateway any gateway.
 */
bool route_delete_hits(const struct ibh_route *f, const struct ibh_route *r)
{
	if (f->table != r->table || !ip_equal(&f->dst, &r->dst) || f->oif != r->oif ||
	    f->protocol != r->protocol || route_equal(f, r))
		return false;
	return r->dst.family == AF_INET6
		       ? f->metric == r->metric
		       : f->tos == 0 && f->type == r->type && f->scope == r->scope &&
				 f->src.family == r->src.family &&
				 ip_same_address(&f->src, &r->src);
}

/*
 * An IPv6 add meets EEXIST from any route of the table with the same prefix,
 * metric and next hop, whatever else it carries (fib6_add_rt2node, which
 * compares no preference, lifetime or protocol); IPv4 only from an identical
 * route. Such a route keeps ib-hook's out: it is in the way, not ib-hook's.
 */
bool route_add_hits(const struct ibh_route *f, const struct ibh_route *w)
{
	return w->dst.family == AF_INET6 && f->table == w->table && ip_equal(&f->dst, &w->dst) &&
	       f->metric == w->metric && f->oif == w->oif && !f->gateway && route_has_device(f) &&
	       !route_equal(f, w);
}

bool route_same_place(const struct ibh_route *f, const struct ibh_route *w)
{
	return ip_equal(&f->dst, &w->dst) && f->oif == w->oif;
}

void route_to_record(char *buf, size_t size, const struct ibh_route *r, bool main)
{
	char a[64], b[64];

	if (main)
		snprintf(buf, size, "%s %d %s %u", ip_to_record(&r->dst, a, sizeof(a), true),
			 r->oif, ip_to_record(&r->src, b, sizeof(b), false), r->metric);
	else
		snprintf(buf, size, "%s %d %u %s %u %u %u %u",
			 ip_to_record(&r->dst, a, sizeof(a), true), r->oif, r->table,
			 ip_to_record(&r->src, b, sizeof(b), false), r->metric, r->scope,
			 r->protocol, r->type);
}

int route_from_record(const char *s, struct ibh_route *ret, bool main)
{
	unsigned int table = RT_TABLE_MAIN, metric, scope, proto, type;
	struct ibh_route rt = {};
	char a[64], b[64];
	int oif, end = -1;

	if (main) {
		if (sscanf(s, "%63s %d %63s %u %n", a, &oif, b, &metric, &end) != 4)
			return -EINVAL;
	} else {
		if (sscanf(s, "%63s %d %u %63s %u %u %u %u %n", a, &oif, &table, b, &metric, &scope,
			   &proto, &type, &end) != 8 ||
		    scope > 255 || proto > 255 || type > 255)
			return -EINVAL;
		rt.scope = (uint8_t)scope;
		rt.protocol = (uint8_t)proto;
		rt.type = (uint8_t)type;
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
	if (end < 0 || s[end] != '\0')
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
	static const char *const prefs[] = { "", " pref high", " pref 2", " pref low" };
	const char *type = r->type < sizeof(types) / sizeof(types[0]) && types[r->type]
				   ? types[r->type]
				   : "type? ";
	int n;

	n = snprintf(buf, size, "%s%s%s%s%s proto %s", type,
		     ip_to_string(&r->dst, a, sizeof(a), true), r->gateway ? " via a gateway" : "",
		     r->oif_name[0] ? " dev " : "",
		     r->oif_name[0] ? r->oif_name
		     : r->oif	    ? " dev ?"
				    : "",
		     proto_name(r->protocol, p, sizeof(p)));
	if (n >= 0 && (size_t)n < size && r->metric)
		n += snprintf(buf + n, size - (size_t)n, " metric %u", r->metric);
	if (n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "%s%s%s%s", prefs[r->pref & 3],
			 r->expires ? " expires" : "", r->flags ? " onlink" : "",
			 r->extra ? " (with more attributes)" : "");
	return buf;
}

void route_command(char *buf, size_t size, const char *verb, const struct ibh_route *r,
		   const char *ifname)
{
	char a[64], b[64], m[24] = "", t[16];

	route_table_name(t, sizeof(t), r->table);
	if (r->metric)
		snprintf(m, sizeof(m), " metric %u", r->metric);
	snprintf(buf, size, "ip%s route %s %s dev %s proto kernel%s%s%s%s table %s",
		 r->dst.family == AF_INET6 ? " -6" : "", verb,
		 ip_to_string(&r->dst, a, sizeof(a), true), r->oif_name[0] ? r->oif_name : ifname,
		 r->scope == RT_SCOPE_LINK ? " scope link" : "", r->src.family ? " src " : "",
		 r->src.family ? ip_to_string(&r->src, b, sizeof(b), false) : "", m, t);
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
	snprintf(buf, size, "%s%s%s in table %s", ip_to_string(&r->dst, a, sizeof(a), true),
		 r->src.family ? " src " : "",
		 r->src.family ? ip_to_string(&r->src, b, sizeof(b), false) : "", t);
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
	[RTA_TABLE] = 4, [RTA_OIF] = 4,	    [RTA_PRIORITY] = 4,
	[RTA_PREF] = 1,	 [RTA_EXPIRES] = 4, [RTA_CACHEINFO] = sizeof(struct rta_cacheinfo),
};

/* the device of every next hop, or -1 when they differ */
static int multipath_oif(const struct nlattr *mp)
{
	const struct rtnexthop *nh = attr_data(mp);
	int len = attr_len(mp), oif = 0;

	while (len >= (int)sizeof(*nh) && nh->rtnh_len >= sizeof(*nh) && nh->rtnh_len <= len) {
		if (oif && oif != nh->rtnh_ifindex)
			return -1;
		oif = nh->rtnh_ifindex;
		len -= RTNH_ALIGN(nh->rtnh_len);
		nh = RTNH_NEXT(nh);
	}
	return oif;
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
		route->oif = multipath_oif(tb[RTA_MULTIPATH]);
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
		case RTA_VIA:
		case RTA_MULTIPATH:
		case RTA_CACHEINFO: /* IPv6 reports these for every route */
		case RTA_PREF:
		case RTA_EXPIRES:
			break;
		case RTA_METRICS:
			/* an empty nest is no metric */
			if (attr_len(a) > 0)
				route->extra = true;
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
	msg_put_u32(m, RTA_OIF, (uint32_t)r->oif);
	if (r->src.family)
		msg_put_ip(m, RTA_PREFSRC, &r->src);
	if (r->metric)
		msg_put_u32(m, RTA_PRIORITY, r->metric);
}
