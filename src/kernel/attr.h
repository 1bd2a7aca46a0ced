/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Netlink messages as bytes, with the kernel's own headers (no libnl): what
 * rule.c and route.c need to parse the objects the kernel reports and to
 * build their requests, so that each object's netlink form sits with its
 * fields. netlink.c carries the bytes.
 */
#pragma once

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ip.h"

/* a request: a message header, the family header and a few attributes */
struct ibh_msg {
	uint32_t buf[256]; /* aligned for the headers; a multipath route with metrics fits */
	bool overflow;
};

/* the message, as netlink.c sends it */
struct nlmsghdr *msg_nlh(struct ibh_msg *m);

void msg_init(struct ibh_msg *m, uint16_t type, uint16_t flags, const void *hdr, size_t len);
/* a request to add (NLM_F_CREATE and add_flags) or delete an object, hdr its family header */
void msg_request(struct ibh_msg *m, uint16_t type, bool add, uint16_t add_flags, const void *hdr,
		 size_t len);
/* the 8-bit table of a family header: the table, or 0 when only the attribute can hold it */
uint8_t msg_table8(uint32_t table);
void msg_put(struct ibh_msg *m, uint16_t type, const void *data, size_t len);
void msg_put_u32(struct ibh_msg *m, uint16_t type, uint32_t v);
void msg_put_u8(struct ibh_msg *m, uint16_t type, uint8_t v);
/* the address's 4 or 16 bytes */
void msg_put_ip(struct ibh_msg *m, uint16_t type, const struct ibh_ip *ip);
/*
 * A nest (RTA_METRICS) or a header with attributes after it (struct
 * rtnexthop): begin puts hdr and says where it starts, end writes the bytes
 * since then into its first 16 bits, where both keep their length
 */
size_t msg_begin(struct ibh_msg *m, const void *hdr, size_t len);
void msg_end(struct ibh_msg *m, size_t at);
size_t msg_nest_begin(struct ibh_msg *m, uint16_t type);

/* the family header of a message that holds one of hdrlen bytes, or NULL */
const void *msg_header(const struct nlmsghdr *nlh, size_t hdrlen);
/* the attributes after a family header of hdrlen bytes: the first, and the next */
const struct nlattr *attr_first(const struct nlmsghdr *nlh, size_t hdrlen, int *rem);
const struct nlattr *attr_next(const struct nlattr *a, int *rem);
#define attr_for_each(a, nlh, hdrlen, rem)                                                         \
	for ((a) = attr_first((nlh), (hdrlen), &(rem)); (a); (a) = attr_next((a), &(rem)))
/*
 * tb[type] for each attribute up to max (the last of a type wins); -EINVAL
 * when one is shorter than minlen[type] says (minlen may be NULL)
 */
int attr_parse(const struct nlmsghdr *nlh, size_t hdrlen, const struct nlattr **tb, int max,
	       const uint8_t *minlen);
int attr_type(const struct nlattr *a);
int attr_len(const struct nlattr *a);
const void *attr_data(const struct nlattr *a);
uint32_t attr_u32(const struct nlattr *a);
uint8_t attr_u8(const struct nlattr *a);
/* the address of family in a (family 0 bytes when a is NULL or short), with len */
void attr_ip(struct ibh_ip *ip, uint8_t family, uint8_t len, const struct nlattr *a);
