// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "attr.h"
#include "kernel-abi.h"
#include "rule.h"

void rule_wanted(const struct ibh_ip *src, uint32_t table, uint32_t priority, struct ibh_rule *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->src = *src;
	ret->src.len = (uint8_t)ip_bits(src->family);
	ret->table = table;
	ret->priority = priority;
	ret->protocol = RTPROT_KERNEL;
	ret->action = FR_ACT_TO_TBL;
	ret->exact = true;
}

bool rule_equal(const struct ibh_rule *a, const struct ibh_rule *b)
{
	return a->exact && b->exact && ip_equal(&a->src, &b->src) && a->table == b->table &&
	       a->priority == b->priority && a->protocol == b->protocol;
}

bool rule_same_key(const struct ibh_rule *a, const struct ibh_rule *b)
{
	return ip_equal(&a->src, &b->src) && a->table == b->table && a->priority == b->priority;
}

bool rule_is(const struct ibh_rule *r, const struct ibh_ip *src, uint32_t table, uint32_t priority)
{
	return r->exact && r->table == table && r->priority == priority &&
	       ip_same_address(&r->src, src);
}

/*
 * The kernel deletes the first rule whose fields *set in the request* agree
 * (rule_find): the selectors ib-hook does not send are wildcards. A rule
 * before ib-hook's own that agrees on family, source, table, priority and,
 * where the kernel compares it, protocol would go in its place.
 */
bool rule_delete_hits(const struct ibh_rule *f, const struct ibh_rule *r, bool rule_protocol)
{
	return f->src.family == r->src.family && f->action == FR_ACT_TO_TBL &&
	       f->table == r->table && f->priority == r->priority && ip_equal(&f->src, &r->src) &&
	       (!rule_protocol || f->protocol == RTPROT_KERNEL) && !rule_equal(f, r);
}

/*
 * NLM_F_EXCL makes the kernel refuse an add when a rule agrees on every
 * selector it compares exactly and on the wildcards ib-hook leaves unset
 * (to, tos, not): such a rule keeps ib-hook's from being added at all.
 */
bool rule_add_hits(const struct ibh_rule *f, const struct ibh_rule *w, bool rule_protocol)
{
	return !f->strict && rule_delete_hits(f, w, rule_protocol);
}

void rule_to_record(char *buf, size_t size, const struct ibh_rule *r)
{
	char a[64];

	snprintf(buf, size, "%s %u %u", ip_to_record(&r->src, a, sizeof(a), true), r->table,
		 r->priority);
}

int rule_from_record(const char *s, struct ibh_rule *ret)
{
	struct ibh_rule rule = {};
	unsigned int table, prio;
	char a[64];
	int end = -1;

	if (sscanf(s, "%63s %u %u %n", a, &table, &prio, &end) != 3 ||
	    ip_from_record(a, &rule.src, true) < 0 || !rule.src.family)
		return -EINVAL;
	if (end < 0 || s[end] != '\0')
		return -EINVAL;
	rule.table = table;
	rule.priority = prio;
	rule.protocol = RTPROT_KERNEL;
	rule.action = FR_ACT_TO_TBL;
	rule.exact = true;
	*ret = rule;
	return 0;
}

void rule_command(char *buf, size_t size, const char *verb, const struct ibh_rule *r)
{
	char a[64];

	snprintf(buf, size, "ip%s rule %s from %s lookup %u priority %u protocol kernel",
		 r->src.family == AF_INET6 ? " -6" : "", verb,
		 ip_to_string(&r->src, a, sizeof(a), false), r->table, r->priority);
}

void rule_text(char *buf, size_t size, const struct ibh_rule *r, bool with_priority)
{
	char a[64];
	int n = snprintf(buf, size, "from %s lookup %u", ip_to_string(&r->src, a, sizeof(a), false),
			 r->table);

	if (with_priority && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " priority %u", r->priority);
}

static void desc_add(struct ibh_rule *rule, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void desc_add(struct ibh_rule *rule, const char *fmt, ...)
{
	size_t len = strlen(rule->desc);
	va_list ap;

	if (len >= sizeof(rule->desc) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(rule->desc + len, sizeof(rule->desc) - len, fmt, ap);
	va_end(ap);
}

/*
 * Every attribute is looked at: one that ib-hook does not set, or does not
 * know (a kernel newer than the headers), makes the rule someone else's.
 * `strict` follows the kernel's rule_exists(): the selectors it compares
 * exactly, where a rule with them never makes ib-hook's add fail.
 */
static void rule_attr(struct ibh_rule *rule, const struct nlattr *a, const struct fib_rule_hdr *frh)
{
	char buf[64];
	struct ibh_ip ip;
	uint32_t v;

	switch (attr_type(a)) {
	case FRA_SRC:
	case FRA_TABLE:
	case FRA_PRIORITY:
	case FRA_PROTOCOL:
		return; /* read from the table of attributes */
	case FRA_DST:
		attr_ip(&ip, frh->family, frh->dst_len, a);
		desc_add(rule, " to %s", ip_to_string_short(&ip, buf, sizeof(buf)));
		rule->exact = false;
		return;
	case FRA_IIFNAME:
	case FRA_OIFNAME:
		snprintf(buf, sizeof(buf), "%.*s", attr_len(a), (const char *)attr_data(a));
		desc_add(rule, " %s %s", attr_type(a) == FRA_IIFNAME ? "iif" : "oif", buf);
		break;
	case FRA_FWMARK:
	case FRA_FWMASK:
		/* fwmark 0 with mask 0 matches every packet: no selector */
		if (attr_len(a) < 4 || attr_u32(a) == 0)
			return;
		desc_add(rule, " %s 0x%x", attr_type(a) == FRA_FWMARK ? "fwmark" : "fwmask",
			 attr_u32(a));
		break;
	case FRA_SUPPRESS_PREFIXLEN:
	case FRA_SUPPRESS_IFGROUP:
		v = attr_len(a) >= 4 ? attr_u32(a) : 0;
		if (v == UINT32_MAX)
			return; /* "not set", reported anyway */
		desc_add(rule, " %s %u",
			 attr_type(a) == FRA_SUPPRESS_PREFIXLEN ? "suppress_prefixlength"
								: "suppress_ifgroup",
			 v);
		break;
	case FRA_UID_RANGE:
		if (attr_len(a) >= 8) {
			const uint32_t *u = attr_data(a);

			if (u[0] == 0 && u[1] == UINT32_MAX)
				return;
			desc_add(rule, " uidrange %u-%u", u[0], u[1]);
		} else
			desc_add(rule, " uidrange ?");
		break;
	case FRA_L3MDEV:
		if (attr_len(a) >= 1 && attr_u8(a) == 0)
			return;
		desc_add(rule, " l3mdev");
		break;
	case FRA_GOTO:
		desc_add(rule, " goto %u", attr_len(a) >= 4 ? attr_u32(a) : 0);
		break;
	case FRA_IP_PROTO:
		desc_add(rule, " ipproto %u", attr_len(a) >= 1 ? attr_u8(a) : 0);
		break;
	case FRA_TUN_ID:
	case FRA_SPORT_RANGE:
	case FRA_DPORT_RANGE:
		desc_add(rule, " %s",
			 attr_type(a) == FRA_TUN_ID	   ? "tun_id"
			 : attr_type(a) == FRA_SPORT_RANGE ? "sport"
							   : "dport");
		break;
	case FRA_FLOW:
		/* realms: compared like from/to on add, a wildcard when 0 */
		desc_add(rule, " realms 0x%x", attr_len(a) >= 4 ? attr_u32(a) : 0);
		rule->exact = false;
		return;
	default:
		desc_add(rule, " attribute-%d", attr_type(a));
		rule->exact = false;
		return; /* unknown: not known to be compared, so it may block an add */
	}
	rule->exact = false;
	rule->strict = true;
}

/* lengths the kernel guarantees, checked anyway: a parser must not trust its input */
static const uint8_t rule_minlen[FRA_MAX + 1] = {
	[FRA_TABLE] = 4,
	[FRA_PRIORITY] = 4,
	[FRA_PROTOCOL] = 1,
};

int rule_from_msg(const struct nlmsghdr *nlh, struct ibh_rule *rule, bool *protocol)
{
	const struct nlattr *tb[FRA_MAX + 1], *a;
	const struct fib_rule_hdr *frh = msg_header(nlh, sizeof(*frh));
	char buf[64];
	int rem;

	if (nlh->nlmsg_type != RTM_NEWRULE || !frh ||
	    attr_parse(nlh, sizeof(*frh), tb, FRA_MAX, rule_minlen) < 0)
		return -EINVAL;
	if (frh->family != AF_INET && frh->family != AF_INET6)
		return -ENOENT;
	memset(rule, 0, sizeof(*rule));
	attr_ip(&rule->src, frh->family, frh->src_len, tb[FRA_SRC]);
	rule->table = tb[FRA_TABLE] ? attr_u32(tb[FRA_TABLE]) : frh->table;
	rule->priority = tb[FRA_PRIORITY] ? attr_u32(tb[FRA_PRIORITY]) : 0;
	rule->action = frh->action;
	*protocol = tb[FRA_PROTOCOL];
	if (tb[FRA_PROTOCOL])
		rule->protocol = attr_u8(tb[FRA_PROTOCOL]);
	rule->exact = frh->action == FR_ACT_TO_TBL && frh->dst_len == 0 && frh->tos == 0 &&
		      frh->flags == 0 && frh->src_len == (frh->family == AF_INET ? 32 : 128);

	if (frh->flags & FIB_RULE_INVERT)
		desc_add(rule, "not ");
	if (frh->src_len)
		desc_add(rule, "from %s", ip_to_string_short(&rule->src, buf, sizeof(buf)));
	else
		desc_add(rule, "from all");
	if (frh->tos)
		desc_add(rule, " tos 0x%x", frh->tos);
	attr_for_each(a, nlh, sizeof(*frh), rem) rule_attr(rule, a, frh);
	if (frh->action == FR_ACT_TO_TBL)
		desc_add(rule, " lookup %u", rule->table);
	else
		desc_add(rule, " action %u", frh->action);
	desc_add(rule, " priority %u", rule->priority);
	if (tb[FRA_PROTOCOL])
		desc_add(rule, " proto %u", rule->protocol);
	return 0;
}

void rule_protocol_unreported(struct ibh_rule *r)
{
	if (r->exact)
		r->protocol = RTPROT_KERNEL;
}

void rule_to_msg(struct ibh_msg *m, const struct ibh_rule *r, bool add)
{
	/* a rule has no default action: without one the kernel refuses it */
	struct fib_rule_hdr frh = { .family = r->src.family,
				    .src_len = r->src.len,
				    .table = msg_table8(r->table),
				    .action = FR_ACT_TO_TBL };

	msg_request(m, add ? RTM_NEWRULE : RTM_DELRULE, add, NLM_F_EXCL, &frh, sizeof(frh));
	/*
	 * protocol kernel: systemd-networkd >= 248 leaves such rules alone, and
	 * kernels >= 4.17 compare it on delete, so that a rule of another
	 * protocol is never the one deleted
	 */
	msg_put_u32(m, FRA_PRIORITY, r->priority);
	msg_put_u32(m, FRA_TABLE, r->table);
	msg_put_ip(m, FRA_SRC, &r->src);
	msg_put_u8(m, FRA_PROTOCOL, RTPROT_KERNEL);
}
