// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "attr.h"

struct nlmsghdr *msg_nlh(struct ibh_msg *m)
{
	return (struct nlmsghdr *)m->buf;
}

void msg_init(struct ibh_msg *m, uint16_t type, uint16_t flags, const void *hdr, size_t len)
{
	struct nlmsghdr *nlh = msg_nlh(m);

	memset(m, 0, sizeof(*m));
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	memcpy(NLMSG_DATA(nlh), hdr, len);
	nlh->nlmsg_len = NLMSG_ALIGN(NLMSG_LENGTH(len));
}

void msg_request(struct ibh_msg *m, uint16_t type, bool add, uint16_t add_flags, const void *hdr,
		 size_t len)
{
	msg_init(m, type, NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | add_flags : 0), hdr,
		 len);
}

uint8_t msg_table8(uint32_t table)
{
	return table < 256 ? (uint8_t)table : 0;
}

void msg_put(struct ibh_msg *m, uint16_t type, const void *data, size_t len)
{
	struct nlmsghdr *nlh = msg_nlh(m);
	size_t at = nlh->nlmsg_len, total = NLA_ALIGN(NLA_HDRLEN + len);
	struct nlattr a = { .nla_type = type, .nla_len = (uint16_t)(NLA_HDRLEN + len) };
	char *bytes = (char *)m->buf;

	if (at + total > sizeof(m->buf)) {
		m->overflow = true;
		return;
	}
	memcpy(bytes + at, &a, sizeof(a));
	memcpy(bytes + at + NLA_HDRLEN, data, len);
	nlh->nlmsg_len = (uint32_t)(at + total);
}

void msg_put_u32(struct ibh_msg *m, uint16_t type, uint32_t v)
{
	msg_put(m, type, &v, sizeof(v));
}

void msg_put_u8(struct ibh_msg *m, uint16_t type, uint8_t v)
{
	msg_put(m, type, &v, sizeof(v));
}

void msg_put_ip(struct ibh_msg *m, uint16_t type, const struct ibh_ip *ip)
{
	msg_put(m, type, ip->a, ip_bits(ip->family) / 8);
}

size_t msg_begin(struct ibh_msg *m, const void *hdr, size_t len)
{
	struct nlmsghdr *nlh = msg_nlh(m);
	size_t at = nlh->nlmsg_len;

	if (at + NLA_ALIGN(len) > sizeof(m->buf)) {
		m->overflow = true;
		return 0;
	}
	memcpy((char *)m->buf + at, hdr, len);
	nlh->nlmsg_len = (uint32_t)(at + NLA_ALIGN(len));
	return at;
}

void msg_end(struct ibh_msg *m, size_t at)
{
	uint16_t len = (uint16_t)(msg_nlh(m)->nlmsg_len - at);

	if (!m->overflow)
		memcpy((char *)m->buf + at, &len, sizeof(len));
}

size_t msg_nest_begin(struct ibh_msg *m, uint16_t type)
{
	struct nlattr a = { .nla_type = type, .nla_len = NLA_HDRLEN };

	return msg_begin(m, &a, sizeof(a));
}

const void *msg_header(const struct nlmsghdr *nlh, size_t hdrlen)
{
	if (nlh->nlmsg_len < NLMSG_LENGTH(hdrlen))
		return NULL;
	return NLMSG_DATA(nlh);
}

static bool attr_ok(const struct nlattr *a, int rem)
{
	return rem >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= rem;
}

const struct nlattr *attr_first(const struct nlmsghdr *nlh, size_t hdrlen, int *rem)
{
	const struct nlattr *a =
		(const struct nlattr *)((const char *)NLMSG_DATA(nlh) + NLMSG_ALIGN(hdrlen));

	*rem = (int)nlh->nlmsg_len - (int)NLMSG_SPACE(hdrlen);
	return attr_ok(a, *rem) ? a : NULL;
}

const struct nlattr *attr_next(const struct nlattr *a, int *rem)
{
	int total = NLA_ALIGN(a->nla_len);

	*rem -= total;
	a = (const struct nlattr *)((const char *)a + total);
	return attr_ok(a, *rem) ? a : NULL;
}

int attr_parse(const struct nlmsghdr *nlh, size_t hdrlen, const struct nlattr **tb, int max,
	       const uint8_t *minlen)
{
	const struct nlattr *a;
	int rem;

	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	attr_for_each(a, nlh, hdrlen, rem)
	{
		int type = attr_type(a);

		if (type == 0 || type > max)
			continue;
		if (minlen && attr_len(a) < minlen[type])
			return -EINVAL;
		tb[type] = a;
	}
	return 0;
}

int attr_type(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

int attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

const void *attr_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

uint32_t attr_u32(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, attr_data(a), sizeof(v));
	return v;
}

uint8_t attr_u8(const struct nlattr *a)
{
	return *(const uint8_t *)attr_data(a);
}

void attr_ip(struct ibh_ip *ip, uint8_t family, uint8_t len, const struct nlattr *a)
{
	size_t bytes = family == AF_INET ? 4 : 16;

	memset(ip, 0, sizeof(*ip));
	ip->family = family;
	ip->len = len;
	if (a && (size_t)attr_len(a) >= bytes)
		memcpy(ip->a, attr_data(a), bytes);
}
