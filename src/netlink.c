// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Observe and change routing over rtnetlink with libnl-3. Dumps are parsed
 * here from the raw attributes rather than through libnl-route-3's caches:
 * the caches would read whole tables and, before libnl 3.5, drop the rule
 * protocol.
 */
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "netlink.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif
#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif

#define DUMP_TRIES 5

struct ibh_nl {
	struct nl_sock *sk;
};

/* the one place where libnl's -NLE_* codes become -errno */
static int nle_to_errno(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case 0:
		return 0;
	case NLE_EXIST:
		return -EEXIST;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_NODEV:
		return -ENODEV;
	case NLE_INVAL:
		return -EINVAL;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_BUSY:
		return -EBUSY;
	case NLE_RANGE:
		return -ERANGE;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:
		return -EAFNOSUPPORT;
	case NLE_NOADDR:
		return -EADDRNOTAVAIL;
	case NLE_MSG_TRUNC:
		return -EMSGSIZE;
	case NLE_DUMP_INTR:
		return -EINTR;
	default:
		return -EIO;
	}
}

int netlink_open(struct ibh_nl **ret)
{
	struct ibh_nl *n;
	int one = 1, r;

	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->sk = nl_socket_alloc();
	if (!n->sk) {
		free(n);
		return -ENOMEM;
	}
	/* writes ask for their ack themselves; a get must not leave one queued */
	nl_socket_disable_auto_ack(n->sk);
	/*
	 * The kernel never builds a dump message over 32 KiB: a buffer that size
	 * needs no peek (one recvmsg per message instead of two), and requests
	 * are small enough for 1 KiB messages instead of a zeroed page each.
	 */
	nl_socket_disable_msg_peek(n->sk);
	nl_socket_set_msg_buf_size(n->sk, 32768);
	nlmsg_set_default_size(1024);
	r = nl_connect(n->sk, NETLINK_ROUTE);
	if (r < 0) {
		netlink_close(n);
		return nle_to_errno(r);
	}
	/* lets the kernel filter dumps by table and device; older kernels dump all */
	(void)setsockopt(nl_socket_get_fd(n->sk), SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one,
			 sizeof(one));
	*ret = n;
	return 0;
}

void netlink_close(struct ibh_nl *n)
{
	if (!n)
		return;
	nl_socket_free(n->sk);
	free(n);
}

struct transaction {
	int (*parse)(struct nlmsghdr *nlh, void *arg);
	void *arg;
	int error;
};

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct transaction *t = arg;

	t->error = e->error < 0 ? e->error : -EIO;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct transaction *t = arg;
	int r = t->parse(nlmsg_hdr(msg), t->arg);

	if (r < 0) {
		t->error = r;
		return NL_STOP;
	}
	return NL_OK;
}

/* send msg (consumed) and read the answer: a dump, a reply or an ack */
static int transact(struct ibh_nl *n, struct nl_msg *msg,
		    int (*parse)(struct nlmsghdr *nlh, void *arg), void *arg)
{
	struct transaction t = { .parse = parse, .arg = arg };
	struct nl_cb *cb;
	int r;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &t);
	if (parse)
		nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &t);
	r = nl_send_auto(n->sk, msg);
	nlmsg_free(msg);
	if (r >= 0)
		r = nl_recvmsgs(n->sk, cb);
	nl_cb_put(cb);
	if (t.error)
		return t.error;
	return nle_to_errno(r);
}

static struct nl_msg *new_msg(int type, int flags, const void *hdr, size_t len)
{
	struct nl_msg *msg = nlmsg_alloc_simple(type, flags);

	if (msg && nlmsg_append(msg, (void *)hdr, len, NLMSG_ALIGNTO) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* a growing array of fixed-size records, filled by the dump parsers */
struct vec {
	void *items;
	size_t n, cap, size;
};

static void *vec_push(struct vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		void *items = realloc(v->items, cap * v->size);

		if (!items)
			return NULL;
		v->items = items;
		v->cap = cap;
	}
	memset((char *)v->items + v->n * v->size, 0, v->size);
	return (char *)v->items + v->n++ * v->size;
}

/*
 * A dump that raced with a change carries NLM_F_DUMP_INTR and may be
 * inconsistent: start it again rather than act on a torn view.
 */
static int dump(struct ibh_nl *n, struct nl_msg *(*build)(const void *arg), const void *barg,
		int (*parse)(struct nlmsghdr *nlh, void *arg), void *parg, struct vec *v)
{
	int r = -EINTR;

	for (int i = 0; i < DUMP_TRIES && r == -EINTR; i++) {
		struct nl_msg *msg = build(barg);

		if (!msg)
			return -ENOMEM;
		v->n = 0;
		r = transact(n, msg, parse, parg);
	}
	return r;
}

/* hand the records of a finished dump to the caller, or drop them on error */
static int vec_take(struct vec *v, int r, void *ret, size_t *n_ret)
{
	if (r < 0) {
		free(v->items);
		return r;
	}
	*(void **)ret = v->items;
	*n_ret = v->n;
	return 0;
}

static void ip_from_attr(struct ibh_ip *ip, uint8_t family, uint8_t len, const struct nlattr *a)
{
	size_t bytes = family == AF_INET ? 4 : 16;

	memset(ip, 0, sizeof(*ip));
	ip->family = family;
	ip->len = len;
	if (a && (size_t)nla_len(a) >= bytes)
		memcpy(ip->a, nla_data(a), bytes);
}

static int parse_link(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[IFLA_MAX + 1];
	struct ifinfomsg *ifi = nlmsg_data(nlh);
	struct ibh_link *l;
	struct vec *v = arg;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    nlmsg_parse(nlh, sizeof(*ifi), tb, IFLA_MAX, NULL) < 0 || !tb[IFLA_IFNAME])
		return 0;
	l = vec_push(v);
	if (!l)
		return -ENOMEM;
	l->ifindex = ifi->ifi_index;
	l->type = ifi->ifi_type;
	l->up = ifi->ifi_flags & IFF_UP;
	nla_strlcpy(l->name, tb[IFLA_IFNAME], sizeof(l->name));
	return 0;
}

int netlink_get_link(struct ibh_nl *n, const char *name, struct ibh_link *ret)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct vec v = { .size = sizeof(struct ibh_link) };
	struct nl_msg *msg;
	int r;

	if (strlen(name) >= IF_NAMESIZE)
		return -ENODEV;
	msg = new_msg(RTM_GETLINK, NLM_F_REQUEST, &ifi, sizeof(ifi));
	if (!msg || nla_put_string(msg, IFLA_IFNAME, name) < 0 ||
	    nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	r = transact(n, msg, parse_link, &v);
	if (r == 0 && v.n == 0)
		r = -ENODEV;
	if (r == 0)
		*ret = *(struct ibh_link *)v.items;
	free(v.items);
	return r;
}

static struct nl_msg *build_link_dump(const void *arg)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_msg *msg = new_msg(RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, &ifi, sizeof(ifi));

	if (msg && nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int netlink_dump_links(struct ibh_nl *n, struct ibh_link **ret, size_t *n_ret)
{
	struct vec v = { .size = sizeof(struct ibh_link) };

	return vec_take(&v, dump(n, build_link_dump, NULL, parse_link, &v, &v), ret, n_ret);
}

struct addr_filter {
	int ifindex;
	struct vec *v;
};

static int parse_addr(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[IFA_MAX + 1];
	struct ifaddrmsg *ifa = nlmsg_data(nlh);
	struct addr_filter *f = arg;
	struct ibh_addr_entry *e;
	struct nlattr *local;
	uint32_t flags;

	if (nlh->nlmsg_type != RTM_NEWADDR || nlmsg_parse(nlh, sizeof(*ifa), tb, IFA_MAX, NULL) < 0)
		return 0;
	if ((ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6) ||
	    (f->ifindex && (int)ifa->ifa_index != f->ifindex))
		return 0;
	flags = tb[IFA_FLAGS] ? nla_get_u32(tb[IFA_FLAGS]) : ifa->ifa_flags;
	if (flags & IFA_F_DADFAILED)
		return 0;
	local = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if (!local)
		return 0;
	e = vec_push(f->v);
	if (!e)
		return -ENOMEM;
	e->ifindex = (int)ifa->ifa_index;
	ip_from_attr(&e->ip, ifa->ifa_family, ifa->ifa_prefixlen, local);
	/* link-local IPv6 addresses share one prefix on every link: never routed by source */
	if (e->ip.family == AF_INET6 && e->ip.a[0] == 0xfe && (e->ip.a[1] & 0xc0) == 0x80)
		f->v->n--;
	return 0;
}

static struct nl_msg *build_addr_dump(const void *arg)
{
	const int *ifindex = arg;
	struct ifaddrmsg ifa = { .ifa_family = AF_UNSPEC, .ifa_index = (uint32_t)*ifindex };

	return new_msg(RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, &ifa, sizeof(ifa));
}

int netlink_dump_addrs(struct ibh_nl *n, int ifindex, struct ibh_addr_entry **ret, size_t *n_ret)
{
	struct vec v = { .size = sizeof(struct ibh_addr_entry) };
	struct addr_filter f = { .ifindex = ifindex, .v = &v };

	return vec_take(&v, dump(n, build_addr_dump, &ifindex, parse_addr, &f, &v), ret, n_ret);
}

struct rule_dump {
	struct vec v;
	bool protocol;
};

static int parse_rule(struct nlmsghdr *nlh, void *arg)
{
	static const int selectors[] = {
		FRA_IIFNAME,
		FRA_OIFNAME,
		FRA_FWMARK,
		FRA_FWMASK,
		FRA_L3MDEV,
		FRA_UID_RANGE,
		FRA_IP_PROTO,
		FRA_SPORT_RANGE,
		FRA_DPORT_RANGE,
		FRA_TUN_ID,
		FRA_SUPPRESS_PREFIXLEN,
		FRA_SUPPRESS_IFGROUP,
		FRA_GOTO,
		FRA_FLOW,
	};
	struct nlattr *tb[FRA_MAX + 1];
	struct fib_rule_hdr *frh = nlmsg_data(nlh);
	struct rule_dump *d = arg;
	struct ibh_rule *rule;

	if (nlh->nlmsg_type != RTM_NEWRULE || nlmsg_parse(nlh, sizeof(*frh), tb, FRA_MAX, NULL) < 0)
		return 0;
	if (frh->family != AF_INET && frh->family != AF_INET6)
		return 0;
	rule = vec_push(&d->v);
	if (!rule)
		return -ENOMEM;
	ip_from_attr(&rule->src, frh->family, frh->src_len, tb[FRA_SRC]);
	rule->table = tb[FRA_TABLE] ? nla_get_u32(tb[FRA_TABLE]) : frh->table;
	rule->priority = tb[FRA_PRIORITY] ? nla_get_u32(tb[FRA_PRIORITY]) : 0;
	if (tb[FRA_PROTOCOL]) {
		rule->protocol = nla_get_u8(tb[FRA_PROTOCOL]);
		d->protocol = true;
	}
	rule->plain = frh->action == FR_ACT_TO_TBL && frh->dst_len == 0 && frh->tos == 0 &&
		      !(frh->flags & FIB_RULE_INVERT);
	for (size_t i = 0; i < sizeof(selectors) / sizeof(selectors[0]); i++)
		if (tb[selectors[i]] && selectors[i] <= FRA_MAX) {
			/* the kernel reports "no mark" as mark 0 on some versions */
			if (selectors[i] == FRA_FWMARK && nla_get_u32(tb[FRA_FWMARK]) == 0)
				continue;
			if (selectors[i] == FRA_FWMASK)
				continue;
			if (selectors[i] == FRA_SUPPRESS_PREFIXLEN &&
			    nla_get_u32(tb[FRA_SUPPRESS_PREFIXLEN]) == UINT32_MAX)
				continue;
			if (selectors[i] == FRA_SUPPRESS_IFGROUP &&
			    nla_get_u32(tb[FRA_SUPPRESS_IFGROUP]) == UINT32_MAX)
				continue;
			rule->plain = false;
		}
	return 0;
}

static struct nl_msg *build_rule_dump(const void *arg)
{
	struct fib_rule_hdr frh = { .family = AF_UNSPEC };

	return new_msg(RTM_GETRULE, NLM_F_REQUEST | NLM_F_DUMP, &frh, sizeof(frh));
}

int netlink_dump_rules(struct ibh_nl *n, struct ibh_rule **ret, size_t *n_ret, bool *ret_protocol)
{
	struct rule_dump d = { .v = { .size = sizeof(struct ibh_rule) } };
	int r = vec_take(&d.v, dump(n, build_rule_dump, NULL, parse_rule, &d, &d.v), ret, n_ret);

	if (r == 0)
		*ret_protocol = d.protocol;
	return r;
}

struct table_dump {
	uint32_t table;
	int oif;
	struct vec v;
};

static int parse_route(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[RTA_MAX + 1];
	struct rtmsg *rtm = nlmsg_data(nlh);
	struct table_dump *d = arg;
	struct ibh_route *route;
	uint32_t table;
	int oif;

	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    nlmsg_parse(nlh, sizeof(*rtm), tb, RTA_MAX, NULL) < 0)
		return 0;
	if ((rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    (rtm->rtm_flags & RTM_F_CLONED))
		return 0;
	/* without strict checking (< 4.20) the kernel sent everything */
	table = tb[RTA_TABLE] ? nla_get_u32(tb[RTA_TABLE]) : rtm->rtm_table;
	oif = tb[RTA_OIF] ? (int)nla_get_u32(tb[RTA_OIF]) : 0;
	if (table != d->table || (d->oif && oif != d->oif))
		return 0;
	route = vec_push(&d->v);
	if (!route)
		return -ENOMEM;
	ip_from_attr(&route->dst, rtm->rtm_family, rtm->rtm_dst_len, tb[RTA_DST]);
	if (tb[RTA_PREFSRC])
		ip_from_attr(&route->src, rtm->rtm_family, rtm->rtm_family == AF_INET ? 32 : 128,
			     tb[RTA_PREFSRC]);
	route->oif = oif;
	route->table = table;
	route->metric = tb[RTA_PRIORITY] ? nla_get_u32(tb[RTA_PRIORITY]) : 0;
	route->protocol = rtm->rtm_protocol;
	route->scope = rtm->rtm_scope;
	route->type = rtm->rtm_type;
	route->gateway = tb[RTA_GATEWAY] || tb[RTA_VIA] || tb[RTA_MULTIPATH];
	return 0;
}

static struct nl_msg *build_table_dump(const void *arg)
{
	const struct table_dump *d = arg;
	struct rtmsg rtm = {
		.rtm_family = AF_UNSPEC,
		.rtm_table = d->table < 256 ? (uint8_t)d->table : RT_TABLE_UNSPEC,
	};
	struct nl_msg *msg = new_msg(RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, &rtm, sizeof(rtm));

	if (msg && (nla_put_u32(msg, RTA_TABLE, d->table) < 0 ||
		    (d->oif && nla_put_u32(msg, RTA_OIF, (uint32_t)d->oif) < 0))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int netlink_dump_table(struct ibh_nl *n, uint32_t table, int oif, struct ibh_route **ret,
		       size_t *n_ret)
{
	struct table_dump d = { .table = table,
				.oif = oif,
				.v = { .size = sizeof(struct ibh_route) } };
	int r = dump(n, build_table_dump, &d, parse_route, &d, &d.v);

	/* a table that does not exist yet is an empty one */
	return vec_take(&d.v, r == -ENOENT ? 0 : r, ret, n_ret);
}

static int put_ip(struct nl_msg *msg, int type, const struct ibh_ip *ip)
{
	return nla_put(msg, type, ip->family == AF_INET ? 4 : 16, ip->a);
}

/*
 * The few messages ib-hook writes are built here with libnl-3's message API
 * rather than libnl-route-3's objects: loading libnl-route-3 costs every run,
 * even the ones with nothing to do, a quarter of a millisecond in its
 * constructors, and before libnl 3.5 it could not tag a rule's protocol.
 */
static int route_request(struct ibh_nl *n, const struct ibh_route *r, bool add)
{
	struct rtmsg rtm = {
		.rtm_family = r->dst.family,
		.rtm_dst_len = r->dst.len,
		.rtm_table = r->table < 256 ? (uint8_t)r->table : RT_TABLE_UNSPEC,
		.rtm_protocol = r->protocol,
		.rtm_scope = r->scope,
		.rtm_type = RTN_UNICAST,
	};
	int flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	struct nl_msg *msg = new_msg(add ? RTM_NEWROUTE : RTM_DELROUTE, flags, &rtm, sizeof(rtm));

	if (!msg || nla_put_u32(msg, RTA_TABLE, r->table) < 0 ||
	    put_ip(msg, RTA_DST, &r->dst) < 0 || nla_put_u32(msg, RTA_OIF, (uint32_t)r->oif) < 0 ||
	    (r->src.family && put_ip(msg, RTA_PREFSRC, &r->src) < 0) ||
	    (r->metric && nla_put_u32(msg, RTA_PRIORITY, r->metric) < 0)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return transact(n, msg, NULL, NULL);
}

int netlink_route_replace(struct ibh_nl *n, const struct ibh_route *r)
{
	int e = route_request(n, r, true);

	return e < 0 ? e : 1;
}

int netlink_route_del(struct ibh_nl *n, const struct ibh_route *r)
{
	int e = route_request(n, r, false);

	if (e == -ESRCH || e == -ENOENT)
		return 0;
	return e < 0 ? e : 1;
}

static int rule_request(struct ibh_nl *n, const struct ibh_rule *r, bool add)
{
	/* a rule has no default action: without one the kernel refuses it */
	struct fib_rule_hdr frh = {
		.family = r->src.family,
		.src_len = r->src.len,
		.table = r->table < 256 ? (uint8_t)r->table : RT_TABLE_UNSPEC,
		.action = FR_ACT_TO_TBL,
	};
	int flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	struct nl_msg *msg = new_msg(add ? RTM_NEWRULE : RTM_DELRULE, flags, &frh, sizeof(frh));

	/* protocol kernel: systemd-networkd >= 248 leaves such rules alone */
	if (!msg || nla_put_u32(msg, FRA_PRIORITY, r->priority) < 0 ||
	    nla_put_u32(msg, FRA_TABLE, r->table) < 0 || put_ip(msg, FRA_SRC, &r->src) < 0 ||
	    (add && nla_put_u8(msg, FRA_PROTOCOL, RTPROT_KERNEL) < 0)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return transact(n, msg, NULL, NULL);
}

int netlink_rule_add(struct ibh_nl *n, const struct ibh_rule *r)
{
	int e = rule_request(n, r, true);

	if (e == -EEXIST)
		return 0;
	return e < 0 ? e : 1;
}

int netlink_rule_del(struct ibh_nl *n, const struct ibh_rule *r)
{
	int e = rule_request(n, r, false);

	if (e == -ENOENT || e == -ESRCH)
		return 0;
	return e < 0 ? e : 1;
}

struct neigh {
	int family;
	struct ibh_ip dst;
};

struct neigh_dump {
	int ifindex;
	struct vec v;
};

static int parse_neigh(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[NDA_MAX + 1];
	struct ndmsg *ndm = nlmsg_data(nlh);
	struct neigh_dump *d = arg;
	struct neigh *e;

	if (nlh->nlmsg_type != RTM_NEWNEIGH ||
	    nlmsg_parse(nlh, sizeof(*ndm), tb, NDA_MAX, NULL) < 0)
		return 0;
	if (ndm->ndm_ifindex != d->ifindex || !tb[NDA_DST] ||
	    (ndm->ndm_family != AF_INET && ndm->ndm_family != AF_INET6) ||
	    (ndm->ndm_state & (NUD_PERMANENT | NUD_NOARP)) || (ndm->ndm_flags & NTF_PROXY))
		return 0;
	e = vec_push(&d->v);
	if (!e)
		return -ENOMEM;
	e->family = ndm->ndm_family;
	ip_from_attr(&e->dst, ndm->ndm_family, 0, tb[NDA_DST]);
	return 0;
}

static struct nl_msg *build_neigh_dump(const void *arg)
{
	const struct neigh_dump *d = arg;
	struct ndmsg ndm = { .ndm_family = AF_UNSPEC };
	struct nl_msg *msg = new_msg(RTM_GETNEIGH, NLM_F_REQUEST | NLM_F_DUMP, &ndm, sizeof(ndm));

	if (msg && nla_put_u32(msg, NDA_IFINDEX, (uint32_t)d->ifindex) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int netlink_neigh_flush(struct ibh_nl *n, int ifindex)
{
	struct neigh_dump d = { .ifindex = ifindex, .v = { .size = sizeof(struct neigh) } };
	int r, flushed = 0;

	r = dump(n, build_neigh_dump, &d, parse_neigh, &d, &d.v);
	if (r < 0)
		goto cleanup;
	for (size_t i = 0; i < d.v.n; i++) {
		const struct neigh *e = (const struct neigh *)d.v.items + i;
		struct ndmsg ndm = { .ndm_family = (uint8_t)e->family, .ndm_ifindex = ifindex };
		struct nl_msg *msg =
			new_msg(RTM_DELNEIGH, NLM_F_REQUEST | NLM_F_ACK, &ndm, sizeof(ndm));

		if (!msg || nla_put(msg, NDA_DST, e->family == AF_INET ? 4 : 16, e->dst.a) < 0) {
			nlmsg_free(msg);
			r = -ENOMEM;
			goto cleanup;
		}
		r = transact(n, msg, NULL, NULL);
		if (r == -ENOENT || r == -ESRCH)
			r = 0;
		if (r < 0)
			goto cleanup;
		flushed = 1;
	}
	r = flushed;
cleanup:
	free(d.v.items);
	return r;
}
