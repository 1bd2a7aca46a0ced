// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Observe and change routing over rtnetlink with libnl-3. Dumps are parsed
 * here from the raw attributes rather than through libnl-route-3's caches:
 * the caches would read whole tables and, before libnl 3.5, drop the rule
 * protocol.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "array.h"
#include "attr.h"
#include "kernel-abi.h"
#include "main-index.h"
#include "netlink.h"
#include "route.h"
#include "rule.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif
#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

#define DUMP_TRIES 5

struct ibh_nl {
	struct nl_sock *sk; /* first: close_handle() */
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

/*
 * A connected rtnetlink socket in *ret (NULL on error). The kernel never
 * builds a dump message or a notification over 32 KiB: a buffer that size
 * needs no peek (one recvmsg per message instead of two).
 */
static int new_socket(struct nl_sock **ret)
{
	struct nl_sock *sk = nl_socket_alloc();
	int r;

	*ret = NULL;
	if (!sk)
		return -ENOMEM;
	nl_socket_disable_msg_peek(sk);
	nl_socket_set_msg_buf_size(sk, 32768);
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0) {
		nl_socket_free(sk);
		return nle_to_errno(r);
	}
	*ret = sk;
	return 0;
}

/* a handle whose first member is its socket (struct ibh_nl, struct ibh_monitor) */
static void close_handle(void *handle)
{
	if (handle)
		nl_socket_free(*(struct nl_sock **)handle);
	free(handle);
}

void netlink_close(struct ibh_nl *n)
{
	close_handle(n);
}

int netlink_open(struct ibh_nl **ret)
{
	struct ibh_nl *n = calloc(1, sizeof(*n));
	int one = 1, r = n ? new_socket(&n->sk) : -ENOMEM;

	if (r < 0) {
		free(n);
		return r;
	}
	/* writes ask for their ack themselves; a get must not leave one queued */
	nl_socket_disable_auto_ack(n->sk);
	/* requests are small enough for 1 KiB messages instead of a zeroed page each */
	nlmsg_set_default_size(1024);
	/* lets the kernel filter dumps by table and device; older kernels dump all */
	(void)setsockopt(nl_socket_get_fd(n->sk), SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one,
			 sizeof(one));
	*ret = n;
	return 0;
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

/*
 * A dump that the kernel could not even start (a missing or wrong attribute,
 * an unknown device) ends in NLMSG_DONE carrying the error, which libnl
 * takes for an empty dump: it must fail instead.
 */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct transaction *t = arg;
	int error;

	if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(error))) {
		memcpy(&error, nlmsg_data(nlh), sizeof(error));
		if (error < 0)
			t->error = error;
	}
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
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &t);
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
	if (array_grow(&v->items, &v->cap, v->n, v->size, 8) < 0)
		return NULL;
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
	if (tb[IFLA_ADDRESS] && nla_len(tb[IFLA_ADDRESS]) <= IBH_HW_MAX) {
		l->hw_len = (uint8_t)nla_len(tb[IFLA_ADDRESS]);
		memcpy(l->hw, nla_data(tb[IFLA_ADDRESS]), l->hw_len);
	}
	if (tb[IFLA_BROADCAST] && nla_len(tb[IFLA_BROADCAST]) <= IBH_HW_MAX) {
		l->broadcast_len = (uint8_t)nla_len(tb[IFLA_BROADCAST]);
		memcpy(l->broadcast, nla_data(tb[IFLA_BROADCAST]), l->broadcast_len);
	}
	return 0;
}

/* one link, by name (name) or index: -ENODEV when there is none */
static int get_link(struct ibh_nl *n, const char *name, int ifindex, struct ibh_link *ret)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	struct vec v = { .size = sizeof(struct ibh_link) };
	struct nl_msg *msg = new_msg(RTM_GETLINK, NLM_F_REQUEST, &ifi, sizeof(ifi));
	int r;

	if (!msg || (name && nla_put_string(msg, IFLA_IFNAME, name) < 0) ||
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

int netlink_get_link(struct ibh_nl *n, const char *name, struct ibh_link *ret)
{
	if (strlen(name) >= IF_NAMESIZE)
		return -ENODEV;
	return get_link(n, name, 0, ret);
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

/* IFA_RT_PRIORITY (4.18): an enum, so older headers cannot be asked with #ifdef */
#define ADDR_RT_PRIORITY 9

static int parse_addr(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[(IFA_MAX > ADDR_RT_PRIORITY ? IFA_MAX : ADDR_RT_PRIORITY) + 1];
	struct ifaddrmsg *ifa = nlmsg_data(nlh);
	struct addr_filter *f = arg;
	struct ibh_addr_entry *e;
	struct nlattr *local;
	uint32_t flags;

	if (nlh->nlmsg_type != RTM_NEWADDR ||
	    nlmsg_parse(nlh, sizeof(*ifa), tb, (int)(sizeof(tb) / sizeof(tb[0])) - 1, NULL) < 0)
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
	attr_ip(&e->addr.ip, ifa->ifa_family, ifa->ifa_prefixlen, local);
	e->addr.noprefixroute = flags & IFA_F_NOPREFIXROUTE;
	if (tb[IFA_CACHEINFO] && nla_len(tb[IFA_CACHEINFO]) >= (int)sizeof(struct ifa_cacheinfo))
		e->addr.created = ((struct ifa_cacheinfo *)nla_data(tb[IFA_CACHEINFO]))->cstamp;
	if (tb[ADDR_RT_PRIORITY] && nla_len(tb[ADDR_RT_PRIORITY]) >= (int)sizeof(uint32_t))
		e->addr.metric = nla_get_u32(tb[ADDR_RT_PRIORITY]);
	/* `ip addr add A peer P/len`: the kernel routes P/len, and so does ib-hook */
	if (tb[IFA_LOCAL] && tb[IFA_ADDRESS] &&
	    nla_len(tb[IFA_LOCAL]) == nla_len(tb[IFA_ADDRESS]) &&
	    memcmp(nla_data(tb[IFA_LOCAL]), nla_data(tb[IFA_ADDRESS]),
		   (size_t)nla_len(tb[IFA_LOCAL])) != 0)
		attr_ip(&e->addr.peer, ifa->ifa_family, ifa->ifa_prefixlen, tb[IFA_ADDRESS]);
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
	struct rule_dump *d = arg;
	struct ibh_rule rule, *slot;
	bool protocol = false;

	if (rule_from_msg(nlh, &rule, &protocol) < 0)
		return 0;
	slot = vec_push(&d->v);
	if (!slot)
		return -ENOMEM;
	*slot = rule;
	d->protocol |= protocol;
	return 0;
}

/* a message as received: its header's length within size, else -EINVAL */
static int checked_msg(const void *buf, size_t size, struct nlmsghdr **ret)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

	if (size < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > size)
		return -EINVAL;
	*ret = nlh;
	return 0;
}

int netlink_parse_rule(const void *buf, size_t size, struct ibh_rule *ret, bool *ret_protocol)
{
	struct rule_dump d = { .v = { .size = sizeof(struct ibh_rule) } };
	struct nlmsghdr *nlh;
	int r = checked_msg(buf, size, &nlh);

	if (r == 0)
		r = parse_rule(nlh, &d);
	if (r == 0 && d.v.n == 0)
		r = -ENOENT;
	if (r == 0) {
		*ret = *(struct ibh_rule *)d.v.items;
		*ret_protocol = d.protocol;
	}
	free(d.v.items);
	return r;
}

static struct nl_msg *build_rule_dump(const void *arg)
{
	struct fib_rule_hdr frh = { .family = AF_UNSPEC };

	return new_msg(RTM_GETRULE, NLM_F_REQUEST | NLM_F_DUMP, &frh, sizeof(frh));
}

/* every message of a dump received as one buffer, through a dump parser (unit tests) */
static int parse_each(const void *buf, size_t size, int (*parse)(struct nlmsghdr *, void *),
		      void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	int rem = (int)size, r = 0;

	if (size > INT32_MAX)
		return -EINVAL;
	for (; r == 0 && nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem))
		r = parse(nlh, arg);
	return r == 0 && rem != 0 ? -EINVAL : r;
}

static int rules_taken(struct rule_dump *d, int r, struct ibh_rule **ret, size_t *n_ret,
		       bool *ret_protocol)
{
	r = vec_take(&d->v, r, ret, n_ret);
	if (r < 0)
		return r;
	*ret_protocol = d->protocol;
	for (size_t i = 0; !d->protocol && i < *n_ret; i++)
		rule_protocol_unreported(&(*ret)[i]);
	return 0;
}

int netlink_dump_rules(struct ibh_nl *n, struct ibh_rule **ret, size_t *n_ret, bool *ret_protocol)
{
	struct rule_dump d = { .v = { .size = sizeof(struct ibh_rule) } };

	return rules_taken(&d, dump(n, build_rule_dump, NULL, parse_rule, &d, &d.v), ret, n_ret,
			   ret_protocol);
}

int netlink_parse_rules(const void *buf, size_t size, struct ibh_rule **ret, size_t *n_ret,
			bool *ret_protocol)
{
	struct rule_dump d = { .v = { .size = sizeof(struct ibh_rule) } };

	return rules_taken(&d, parse_each(buf, size, parse_rule, &d), ret, n_ret, ret_protocol);
}

struct table_dump {
	uint32_t table;
	int oif;
	struct vec v;
};

static int parse_route(struct nlmsghdr *nlh, void *arg)
{
	struct rtmsg *rtm = nlmsg_data(nlh);
	struct table_dump *d = arg;
	struct ibh_route rt, *route;

	if (nlh->nlmsg_type != RTM_NEWROUTE || !nlmsg_valid_hdr(nlh, sizeof(*rtm)))
		return 0;
	if ((rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    (rtm->rtm_flags & RTM_F_CLONED) || route_from_msg(nlh, &rt) < 0)
		return 0;
	/* without strict checking (< 4.20) the kernel sent everything */
	if (rt.table != d->table || (d->oif && !route_through(&rt, d->oif)))
		return 0;
	route = vec_push(&d->v);
	if (!route)
		return -ENOMEM;
	*route = rt;
	return 0;
}

int netlink_parse_route(const void *buf, size_t size, struct ibh_route *ret)
{
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	int r = checked_msg(buf, size, &nlh);

	if (r < 0)
		return r;
	if (nlh->nlmsg_type != RTM_NEWROUTE || !nlmsg_valid_hdr(nlh, sizeof(*rtm)))
		return -ENOENT;
	rtm = nlmsg_data(nlh);
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return -ENOENT;
	return route_from_msg(nlh, ret);
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

int netlink_parse_table(const void *buf, size_t size, uint32_t table, int oif,
			struct ibh_route **ret, size_t *n_ret)
{
	struct table_dump d = { .table = table,
				.oif = oif,
				.v = { .size = sizeof(struct ibh_route) } };

	return vec_take(&d.v, parse_each(buf, size, parse_route, &d), ret, n_ret);
}

static int put_ip(struct nl_msg *msg, int type, const struct ibh_ip *ip)
{
	return nla_put(msg, type, ip->family == AF_INET ? 4 : 16, ip->a);
}

/* a request that rule.c or route.c built, and the kernel's answer */
static int request(struct ibh_nl *n, struct ibh_msg *m)
{
	struct nl_msg *msg;

	if (m->overflow)
		return -ENOMEM;
	msg = nlmsg_convert(msg_nlh(m));
	if (!msg)
		return -ENOMEM;
	return transact(n, msg, NULL, NULL);
}

/* 1: changed; on delete 0: absent already (the kernel says ENOENT or ESRCH) */
static int change(struct ibh_nl *n, struct ibh_msg *m, bool add)
{
	int e = request(n, m);

	if (!add && (e == -ENOENT || e == -ESRCH))
		return 0;
	return e < 0 ? e : 1;
}

static int route_change(struct ibh_nl *n, const struct ibh_route *r, bool add)
{
	struct ibh_msg m;

	route_to_msg(&m, r, add);
	return change(n, &m, add);
}

static int rule_change(struct ibh_nl *n, const struct ibh_rule *r, bool add)
{
	struct ibh_msg m;

	rule_to_msg(&m, r, add);
	return change(n, &m, add);
}

int netlink_route_add(struct ibh_nl *n, const struct ibh_route *r)
{
	return route_change(n, r, true);
}

int netlink_route_del(struct ibh_nl *n, const struct ibh_route *r)
{
	return route_change(n, r, false);
}

int netlink_rule_add(struct ibh_nl *n, const struct ibh_rule *r)
{
	return rule_change(n, r, true);
}

int netlink_rule_del(struct ibh_nl *n, const struct ibh_rule *r)
{
	return rule_change(n, r, false);
}

struct fib_match {
	struct ibh_route route;
	bool found;
};

static int parse_fib_match(struct nlmsghdr *nlh, void *arg)
{
	struct fib_match *m = arg;

	if (nlh->nlmsg_type == RTM_NEWROUTE && nlmsg_valid_hdr(nlh, sizeof(struct rtmsg)) &&
	    route_from_msg(nlh, &m->route) == 0)
		m->found = true;
	return 0;
}

int netlink_fib_match(struct ibh_nl *n, const struct ibh_ip *dst, int oif, struct ibh_route *ret)
{
	struct rtmsg rtm = {
		.rtm_family = dst->family,
		.rtm_dst_len = dst->family == AF_INET ? 32 : 128,
		/*
		 * IPv4 says "main" whatever table matched unless asked for the
		 * lookup's table; IPv6 always says it, and refuses the flag
		 */
		.rtm_flags = RTM_F_FIB_MATCH | (dst->family == AF_INET ? RTM_F_LOOKUP_TABLE : 0),
	};
	struct fib_match m = {};
	struct nl_msg *msg = new_msg(RTM_GETROUTE, NLM_F_REQUEST, &rtm, sizeof(rtm));
	int r;

	if (!msg || put_ip(msg, RTA_DST, dst) < 0 || nla_put_u32(msg, RTA_OIF, (uint32_t)oif) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	r = transact(n, msg, parse_fib_match, &m);
	if (r == -ENETUNREACH || r == -EHOSTUNREACH || r == -ESRCH || r == -ENOENT ||
	    (r == 0 && !m.found))
		return -ENOENT;
	if (r < 0)
		return r;
	*ret = m.route;
	return 0;
}

/*
 * The route the kernel picks for traffic from src to dst, rules included:
 * `ip route get DST from SRC`, which is also what RDMA CM asks (its
 * rdma_resolve_addr with a source address). Needs no privilege.
 */
int netlink_route_get(struct ibh_nl *n, const struct ibh_ip *dst, const struct ibh_ip *src,
		      struct ibh_route *ret)
{
	struct rtmsg rtm = {
		.rtm_family = dst->family,
		.rtm_dst_len = dst->family == AF_INET ? 32 : 128,
		.rtm_src_len = dst->family == AF_INET ? 32 : 128,
		/* the table the lookup went through, as `ip route get` says it (netlink_fib_match) */
		.rtm_flags = dst->family == AF_INET ? RTM_F_LOOKUP_TABLE : 0,
	};
	struct fib_match m = {};
	struct nl_msg *msg = new_msg(RTM_GETROUTE, NLM_F_REQUEST, &rtm, sizeof(rtm));
	int r;

	if (!msg || put_ip(msg, RTA_DST, dst) < 0 || put_ip(msg, RTA_SRC, src) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	r = transact(n, msg, parse_fib_match, &m);
	if (r == 0 && !m.found)
		return -ENOENT;
	if (r < 0)
		return r;
	*ret = m.route;
	return 0;
}

static int parse_bound(struct nlmsghdr *nlh, void *arg)
{
	struct fib_match *m = arg;

	if (nlh->nlmsg_type == RTM_NEWROUTE && nlmsg_valid_hdr(nlh, sizeof(struct rtmsg)) &&
	    route_from_msg(nlh, &m->route) == 0) {
		/* a route made for the lookup, not the table's: the kernel ignored FIB_MATCH (< 4.13) */
		if (((const struct rtmsg *)nlmsg_data(nlh))->rtm_flags & RTM_F_CLONED)
			return -EOPNOTSUPP;
		m->found = true;
	}
	return 0;
}

int netlink_route_get_bound(struct ibh_nl *n, const struct ibh_ip *dst, const struct ibh_ip *src,
			    int oif, struct ibh_route *ret)
{
	struct rtmsg rtm = {
		.rtm_family = dst->family,
		.rtm_dst_len = dst->family == AF_INET ? 32 : 128,
		.rtm_src_len = dst->family == AF_INET ? 32 : 128,
		/*
		 * the table's entry: without FIB_MATCH an IPv4 lookup bound to a
		 * device that no route goes through gets a link route made up for it
		 */
		.rtm_flags = RTM_F_FIB_MATCH | (dst->family == AF_INET ? RTM_F_LOOKUP_TABLE : 0),
	};
	struct fib_match m = {};
	struct nl_msg *msg = new_msg(RTM_GETROUTE, NLM_F_REQUEST, &rtm, sizeof(rtm));
	int r;

	if (!msg || put_ip(msg, RTA_DST, dst) < 0 || put_ip(msg, RTA_SRC, src) < 0 ||
	    nla_put_u32(msg, RTA_OIF, (uint32_t)oif) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	r = transact(n, msg, parse_bound, &m);
	if (r == -ENETUNREACH || r == -EHOSTUNREACH || r == -ESRCH || r == -ENOENT ||
	    r == -EACCES || (r == 0 && !m.found))
		return -ENOENT;
	if (r < 0)
		return r;
	*ret = m.route;
	return 0;
}

int netlink_get_link_by_index(struct ibh_nl *n, int ifindex, struct ibh_link *ret)
{
	if (ifindex <= 0)
		return -ENODEV;
	return get_link(n, NULL, ifindex, ret);
}

int netlink_netns_cookie(struct ibh_nl *n, uint64_t *ret)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);

	if (getsockopt(nl_socket_get_fd(n->sk), SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) < 0)
		return -errno;
	if (len != sizeof(cookie))
		return -ENOPROTOOPT;
	*ret = cookie;
	return 0;
}

int netlink_netns_inode(uint64_t *ret_dev, uint64_t *ret_ino)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st) < 0)
		return -errno;
	*ret_dev = st.st_dev;
	*ret_ino = st.st_ino;
	return 0;
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
	attr_ip(&e->dst, ndm->ndm_family, 0, tb[NDA_DST]);
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

/* every neighbour entry of both families, permanent ones included (the fleet view reads them) */
static int parse_neigh_all(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[NDA_MAX + 1];
	struct ndmsg *ndm = nlmsg_data(nlh);
	struct ibh_neigh *e;

	if (nlh->nlmsg_type != RTM_NEWNEIGH ||
	    nlmsg_parse(nlh, sizeof(*ndm), tb, NDA_MAX, NULL) < 0 || !tb[NDA_DST] ||
	    (ndm->ndm_family != AF_INET && ndm->ndm_family != AF_INET6) ||
	    (ndm->ndm_flags & NTF_PROXY))
		return 0;
	e = vec_push(arg);
	if (!e)
		return -ENOMEM;
	memset(e, 0, sizeof(*e));
	e->ifindex = ndm->ndm_ifindex;
	e->state = ndm->ndm_state;
	attr_ip(&e->dst, ndm->ndm_family, 0, tb[NDA_DST]);
	e->dst.len = (uint8_t)(ndm->ndm_family == AF_INET ? 32 : 128);
	if (tb[NDA_LLADDR] && nla_len(tb[NDA_LLADDR]) <= (int)sizeof(e->lladdr)) {
		e->lladdr_len = (uint8_t)nla_len(tb[NDA_LLADDR]);
		memcpy(e->lladdr, nla_data(tb[NDA_LLADDR]), e->lladdr_len);
	}
	return 0;
}

static struct nl_msg *build_neigh_dump_all(const void *arg)
{
	struct ndmsg ndm = { .ndm_family = AF_UNSPEC };

	(void)arg;
	return new_msg(RTM_GETNEIGH, NLM_F_REQUEST | NLM_F_DUMP, &ndm, sizeof(ndm));
}

int netlink_neigh_dump(struct ibh_nl *n, struct ibh_neigh **ret, size_t *n_ret)
{
	struct vec v = { .size = sizeof(struct ibh_neigh) };

	return vec_take(&v, dump(n, build_neigh_dump_all, NULL, parse_neigh_all, &v, &v), ret,
			n_ret);
}

int netlink_neigh_del(struct ibh_nl *n, int ifindex, const struct ibh_ip *dst)
{
	struct ndmsg ndm = { .ndm_family = dst->family, .ndm_ifindex = ifindex };
	struct nl_msg *msg = new_msg(RTM_DELNEIGH, NLM_F_REQUEST | NLM_F_ACK, &ndm, sizeof(ndm));
	int r;

	if (!msg || nla_put(msg, NDA_DST, dst->family == AF_INET ? 4 : 16, dst->a) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	r = transact(n, msg, NULL, NULL);
	return r == -ENOENT || r == -ESRCH ? 0 : r < 0 ? r : 1;
}

/*
 * The watcher's monitor: one socket subscribed to link, address, rule and
 * route notifications. It only says which links to look at again; the
 * engine then reads the state as a hook run would (level-triggered).
 */
struct ibh_monitor {
	struct nl_sock *sk; /* first: close_handle() */
	uint32_t own_port;
	struct ibh_events *ev;
};

static void mark(struct ibh_events *ev, int ifindex)
{
	/* too many links to name: look at every one */
	if (ifindex > 0 && !index_array_add(ev->ifindex, &ev->n,
					    sizeof(ev->ifindex) / sizeof(ev->ifindex[0]), ifindex))
		ev->all = true;
}

/*
 * A route of main concerns the managed links it leaves through: their
 * copies, and the lookups a link's run makes through its own device (its
 * prefix route under MainRoute=delete, a gateway's reach); and the managed
 * links whose prefixes hold its gateway through another port, which copy it
 * through themselves (section 9). So do the routes of main it replaces or
 * deletes, which the notification does not name (a replace names only the
 * new route's devices, an IPv6 blackhole `dev lo`), whose copies must go:
 * asked of the index before it follows. A route without a device concerns
 * every managed link (a lookup may now end in it). Any other route through
 * devices ib-hook does not manage (a BGP host's uplink) concerns nobody: no
 * pass, no read of main.
 */
static void mark_main(struct ibh_events *ev, const struct ibh_route *rt)
{
	const struct index_set *managed = &ev->main->managed;

	if (rt->oif <= 0 && !rt->n_hops) {
		ev->tables_changed = true;
		return;
	}
	for (size_t i = 0; i < managed->n; i++)
		if (main_index_concerns(ev->main, rt, managed->items[i]))
			mark(ev, managed->items[i]);
}

/* the local address of an RTM_NEWADDR or RTM_DELADDR message */
static int addr_from_msg(struct nlmsghdr *nlh, struct ibh_ip *ret)
{
	struct nlattr *tb[IFA_MAX + 1], *local;
	struct ifaddrmsg *ifa = nlmsg_data(nlh);

	if (nlmsg_parse(nlh, sizeof(*ifa), tb, IFA_MAX, NULL) < 0 ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return -EINVAL;
	local = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if (!local)
		return -EINVAL;
	attr_ip(ret, ifa->ifa_family, ifa->ifa_family == AF_INET ? 32 : 128, local);
	return 0;
}

/* a notification of a route (not a cached clone): *ret is it */
static bool route_event(struct nlmsghdr *nlh, struct ibh_route *ret)
{
	return (nlh->nlmsg_type == RTM_NEWROUTE || nlh->nlmsg_type == RTM_DELROUTE) &&
	       nlmsg_valid_hdr(nlh, sizeof(struct rtmsg)) && route_from_msg(nlh, ret) == 0 &&
	       !(((struct rtmsg *)nlmsg_data(nlh))->rtm_flags & RTM_F_CLONED);
}

/*
 * The watcher's index of main's routes follows every notification, also
 * those of ib-hook's own changes; where the kernel changes main without one,
 * the link is read again. rt: the notification's route of main, if it is one
 */
static void follow_main(struct ibh_main_index *x, struct nlmsghdr *nlh, const struct ibh_route *rt)
{
	struct ifinfomsg *ifi;
	struct ibh_ip a;

	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		if (!nlmsg_valid_hdr(nlh, sizeof(struct ifinfomsg)))
			break;
		ifi = nlmsg_data(nlh);
		if (nlh->nlmsg_type == RTM_DELLINK)
			main_index_forget(x, ifi->ifi_index);
		else if (!(ifi->ifi_flags & IFF_UP))
			main_index_link_down(x, ifi->ifi_index);
		break;
	case RTM_DELADDR:
		if (nlmsg_valid_hdr(nlh, sizeof(struct ifaddrmsg)) && addr_from_msg(nlh, &a) == 0)
			main_index_addr_gone(
				x, (int)((struct ifaddrmsg *)nlmsg_data(nlh))->ifa_index, &a);
		break;
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		if (rt)
			(void)main_index_note(x, rt, nlh->nlmsg_type == RTM_NEWROUTE,
					      nlh->nlmsg_flags & NLM_F_REPLACE);
		break;
	}
}

static int on_event(struct nl_msg *msg, void *arg)
{
	struct ibh_monitor *m = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct ibh_events *ev = m->ev;
	struct ibh_route rt;
	bool route = route_event(nlh, &rt), of_main = route && rt.table == RT_TABLE_MAIN;
	/* the kernel stamps notifications caused by a request with its sender's port */
	bool own = m->own_port && nlh->nlmsg_pid == m->own_port;

	/* before the index follows: it still holds the route this one replaces or deletes */
	if (ev->main && of_main && !own)
		mark_main(ev, &rt);
	if (ev->main)
		follow_main(ev->main, nlh, of_main ? &rt : NULL);
	if (own) {
		ev->own++;
		return NL_OK;
	}
	ev->events++;
	switch (nlh->nlmsg_type) {
	/*
	 * An address on two managed links has one owner; when it leaves the
	 * owner (the address goes, the link is renamed out of the match or
	 * deleted), the other link takes it with no event of its own: a link
	 * event or an address that goes looks at every managed link (found by
	 * ownership-watch)
	 */
	case RTM_NEWLINK:
	case RTM_DELLINK:
		if (nlmsg_valid_hdr(nlh, sizeof(struct ifinfomsg)))
			mark(ev, ((struct ifinfomsg *)nlmsg_data(nlh))->ifi_index);
		ev->tables_changed = true;
		break;
	case RTM_NEWADDR:
	case RTM_DELADDR:
		if (nlmsg_valid_hdr(nlh, sizeof(struct ifaddrmsg)))
			mark(ev, (int)((struct ifaddrmsg *)nlmsg_data(nlh))->ifa_index);
		if (nlh->nlmsg_type == RTM_DELADDR)
			ev->tables_changed = true;
		break;
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		/* the kernel's own, for local addresses: the address event says it */
		if (!route || rt.table == RT_TABLE_LOCAL)
			break;
		/*
		 * main's was marked above (without an index of main, every link
		 * looks); a route in another table names its device, not the
		 * link whose table it is: one through another device in T(X)
		 * comes and goes without an event of X's. The table names the
		 * link (watch.c); too many tables, every link
		 */
		if (of_main ? !ev->main
			    : !index_array_add((int *)ev->tables, &ev->n_tables,
					       sizeof(ev->tables) / sizeof(ev->tables[0]),
					       (int)rt.table))
			ev->tables_changed = true;
		break;
	case RTM_NEWRULE:
	case RTM_DELRULE:
		/* a rule names a table, not a link: look at every managed link */
		ev->tables_changed = true;
		break;
	}
	return NL_OK;
}

int netlink_monitor_open(int rcvbuf, struct ibh_monitor **ret)
{
	struct ibh_monitor *m = calloc(1, sizeof(*m));
	int r = m ? new_socket(&m->sk) : -ENOMEM;

	if (r < 0) {
		free(m);
		return r;
	}
	/* notifications carry sequence number 0 */
	nl_socket_disable_seq_check(m->sk);
	nl_socket_modify_cb(m->sk, NL_CB_VALID, NL_CB_CUSTOM, on_event, m);
	r = nl_socket_add_memberships(m->sk, RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR,
				      RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE, RTNLGRP_IPV4_RULE,
				      RTNLGRP_IPV6_RULE, 0);
	if (r >= 0)
		r = nl_socket_set_nonblocking(m->sk);
	if (r >= 0 && rcvbuf > 0) {
		/* force past rmem_max where allowed (CAP_NET_ADMIN); tests ask for a tiny one */
		if (setsockopt(nl_socket_get_fd(m->sk), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
			       sizeof(rcvbuf)) < 0)
			(void)setsockopt(nl_socket_get_fd(m->sk), SOL_SOCKET, SO_RCVBUF, &rcvbuf,
					 sizeof(rcvbuf));
	}
	if (r < 0) {
		netlink_monitor_close(m);
		return nle_to_errno(r);
	}
	*ret = m;
	return 0;
}

void netlink_monitor_close(struct ibh_monitor *m)
{
	close_handle(m);
}

int netlink_monitor_fd(const struct ibh_monitor *m)
{
	return nl_socket_get_fd(m->sk);
}

int netlink_monitor_read(struct ibh_monitor *m, uint32_t own_port, struct ibh_events *ev)
{
	int r;

	m->own_port = own_port;
	m->ev = ev;
	/*
	 * Until the socket is empty, not one datagram (nl_recvmsgs() returns 0
	 * after each): once it overflowed, the kernel drops every notification
	 * without saying ENOBUFS again until a read finds the queue empty. A
	 * pass started with a datagram still queued lost, unsaid, whatever
	 * changed during it (issue 41: a storm's last addresses, never applied).
	 */
	for (;;) {
		r = nl_recvmsgs_default(m->sk);
		/* libnl reports ENOBUFS (events were lost) as NLE_NOMEM: read everything again */
		if (r == -NLE_NOMEM) {
			ev->all = true;
			ev->overrun = true;
			if (ev->main)
				main_index_forget_all(ev->main);
			continue;
		}
		if (r == -NLE_AGAIN || (r < 0 && errno == EAGAIN))
			return 0;
		if (r < 0)
			return nle_to_errno(r);
	}
}

uint32_t netlink_port(const struct ibh_nl *n)
{
	return nl_socket_get_local_port(n->sk);
}

/*
 * RDMA ports, from the kernel's RDMA netlink (NETLINK_RDMA, the interface of
 * `rdma link`): every provider (mlx5, rxe, siw, ...) reports each port's
 * netdev here, whether or not sysfs links the two. Its own socket, as it is
 * another netlink protocol; opened only when a caller needs it.
 */

/* message types: client NLDEV, commands GET and PORT_GET (kernel-abi.h) */
#define RDMA_DEV_DUMP  RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET)
#define RDMA_PORT_DUMP RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET)

/* nla_parse() quietly drops an attribute that runs past the message */
static bool rdma_attrs_whole(struct nlmsghdr *nlh)
{
	struct nlattr *a = nlmsg_attrdata(nlh, 0);
	int rem = nlmsg_attrlen(nlh, 0);

	while (nla_ok(a, rem))
		a = nla_next(a, &rem);
	return rem == 0;
}

/* the index of every RDMA device (uint32_t) */
static int parse_rdma_dev(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_DEV_INDEX + 1];
	struct vec *v = arg;
	uint32_t *index;

	if (nlh->nlmsg_type != RDMA_DEV_DUMP)
		return 0;
	/* NLDEV messages have no family header: the attributes follow nlmsghdr */
	if (!rdma_attrs_whole(nlh) ||
	    nlmsg_parse(nlh, 0, tb, RDMA_NLDEV_ATTR_DEV_INDEX, NULL) < 0 ||
	    !tb[RDMA_NLDEV_ATTR_DEV_INDEX] || nla_len(tb[RDMA_NLDEV_ATTR_DEV_INDEX]) < 4)
		return -EBADMSG;
	index = vec_push(v);
	if (!index)
		return -ENOMEM;
	*index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	return 0;
}

static int parse_rdma_port(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_NDEV_NAME + 1];
	struct ibh_rdma_port *p;
	struct vec *v = arg;
	int64_t ifindex;

	if (nlh->nlmsg_type != RDMA_PORT_DUMP)
		return 0;
	if (!rdma_attrs_whole(nlh) || nlmsg_parse(nlh, 0, tb, RDMA_NLDEV_ATTR_NDEV_NAME, NULL) < 0)
		return -EBADMSG;
	if (!tb[RDMA_NLDEV_ATTR_DEV_NAME] || !tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return 0;
	if ((tb[RDMA_NLDEV_ATTR_NDEV_INDEX] && nla_len(tb[RDMA_NLDEV_ATTR_NDEV_INDEX]) < 4) ||
	    nla_len(tb[RDMA_NLDEV_ATTR_PORT_INDEX]) < 4 ||
	    (tb[RDMA_NLDEV_ATTR_DEV_INDEX] && nla_len(tb[RDMA_NLDEV_ATTR_DEV_INDEX]) < 4))
		return -EBADMSG;
	/*
	 * No NDEV_*: the netdev is in another namespace, the port has none (an
	 * InfiniBand port), or the kernel (before 4.18) does not say. Kept with
	 * ifindex 0, which no link has, so that the caller knows it was not told.
	 */
	ifindex = 0;
	if (tb[RDMA_NLDEV_ATTR_NDEV_INDEX]) {
		ifindex = nla_get_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX]);
		if (ifindex <= 0 || ifindex > INT32_MAX)
			return -EBADMSG;
	}
	p = vec_push(v);
	if (!p)
		return -ENOMEM;
	p->ifindex = (int)ifindex;
	p->port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		p->dev_index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	/* nla_strlcpy copes with a missing terminator and truncates */
	nla_strlcpy(p->dev, tb[RDMA_NLDEV_ATTR_DEV_NAME], sizeof(p->dev));
	if (tb[RDMA_NLDEV_ATTR_NDEV_NAME])
		nla_strlcpy(p->ndev, tb[RDMA_NLDEV_ATTR_NDEV_NAME], sizeof(p->ndev));
	if (p->dev[0] == '\0') {
		v->n--;
		return -EBADMSG;
	}
	return 0;
}

/* the first item a dump parser takes from one message (unit tests, fuzzing) */
static int parse_first(const void *buf, size_t size, int (*parse)(struct nlmsghdr *, void *),
		       size_t item, void *ret)
{
	struct vec v = { .size = item };
	struct nlmsghdr *nlh;
	int r = checked_msg(buf, size, &nlh);

	if (r == 0)
		r = parse(nlh, &v);
	if (r == 0 && v.n == 0)
		r = -ENOENT;
	if (r == 0)
		memcpy(ret, v.items, item);
	free(v.items);
	return r;
}

int netlink_parse_rdma_port(const void *buf, size_t size, struct ibh_rdma_port *ret)
{
	return parse_first(buf, size, parse_rdma_port, sizeof(*ret), ret);
}

int netlink_parse_rdma_dev(const void *buf, size_t size, uint32_t *ret_index)
{
	return parse_first(buf, size, parse_rdma_dev, sizeof(*ret_index), ret_index);
}

static struct nl_msg *build_rdma_dev_dump(const void *arg)
{
	return nlmsg_alloc_simple(RDMA_DEV_DUMP, NLM_F_REQUEST | NLM_F_DUMP);
}

/* the kernel dumps the ports of one device only: it refuses a dump without DEV_INDEX */
static struct nl_msg *build_rdma_port_dump(const void *arg)
{
	struct nl_msg *msg = nlmsg_alloc_simple(RDMA_PORT_DUMP, NLM_F_REQUEST | NLM_F_DUMP);

	if (msg && nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, *(const uint32_t *)arg) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* the ports of every device, as `rdma link` asks: devices first, then each one's ports */
static int rdma_ports(struct ibh_nl *n, struct vec *v)
{
	struct vec devs = { .size = sizeof(uint32_t) };
	int r = dump(n, build_rdma_dev_dump, NULL, parse_rdma_dev, &devs, &devs);

	for (size_t i = 0; r == 0 && i < devs.n; i++) {
		struct vec ports = { .size = sizeof(struct ibh_rdma_port) };

		r = dump(n, build_rdma_port_dump, (uint32_t *)devs.items + i, parse_rdma_port,
			 &ports, &ports);
		/* a device deleted since the first dump is unknown now: it has no port */
		if (r == -EINVAL || r == -ENODEV)
			r = 0;
		for (size_t j = 0; r == 0 && j < ports.n; j++) {
			struct ibh_rdma_port *p = vec_push(v);

			if (!p)
				r = -ENOMEM;
			else
				*p = ((struct ibh_rdma_port *)ports.items)[j];
		}
		free(ports.items);
	}
	free(devs.items);
	return r;
}

int netlink_rdma_ports(struct ibh_rdma_port **ret, size_t *n_ret)
{
	struct vec v = { .size = sizeof(struct ibh_rdma_port) };
	struct ibh_nl n;
	int r;

	n.sk = nl_socket_alloc();
	if (!n.sk)
		return -ENOMEM;
	nl_socket_disable_auto_ack(n.sk);
	nl_socket_disable_msg_peek(n.sk);
	nl_socket_set_msg_buf_size(n.sk, 32768);
	r = nl_connect(n.sk, NETLINK_RDMA);
	if (r < 0) {
		nl_socket_free(n.sk);
		/* no ib_core: the kernel knows no such netlink protocol */
		if (r == -NLE_PROTO_MISMATCH || r == -NLE_AF_NOSUPPORT || errno == EPROTONOSUPPORT)
			return -EPROTONOSUPPORT;
		return nle_to_errno(r);
	}
	r = vec_take(&v, rdma_ports(&n, &v), ret, n_ret);
	nl_socket_free(n.sk);
	return r;
}
