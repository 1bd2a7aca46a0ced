/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lowest floor: addresses and prefixes (and hardware addresses) as values. Every other file may
 * include this one; it includes no file of ib-hook's.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An address or prefix: family AF_INET or AF_INET6, len in bits. */
struct ibh_ip {
	uint8_t family;
	uint8_t len;
	uint8_t a[16];
};

#define IPV6_LINK_LOCAL(a) ((a)[0] == 0xfe && ((a)[1] & 0xc0) == 0x80)

/* 32 or 128: the bits of an address of family */
unsigned int ip_bits(uint8_t family);
/* a with the bits past its length cleared */
void ip_prefix(struct ibh_ip *ret, const struct ibh_ip *a);
bool ip_equal(const struct ibh_ip *a, const struct ibh_ip *b);
/* an order of prefixes that agrees with ip_equal (0 exactly when equal), for sorting */
int ip_compare(const struct ibh_ip *a, const struct ibh_ip *b);
/* h mixed with what ip_equal compares: equal prefixes hash alike */
uint32_t ip_hash(const struct ibh_ip *a, uint32_t h);
/* the same address, whatever the prefix lengths */
bool ip_same_address(const struct ibh_ip *a, const struct ibh_ip *b);
/* addr is in the prefix of a (an address with its prefix length) */
bool ip_in_prefix(const struct ibh_ip *a, const struct ibh_ip *addr);
const char *ip_to_string(const struct ibh_ip *a, char *buf, size_t size, bool with_len);
/* as `ip` prints it: the length only when it is not a whole address */
const char *ip_to_string_short(const struct ibh_ip *a, char *buf, size_t size);
/*
 * A name the kernel could give a link (dev_valid_name): 1 to 15 bytes, not
 * "." or "..", no '/', ':' or blank (the kernel's isspace()); any other byte
 */
bool ifname_valid(const char *s);
/* a hardware address as `ip link` writes it, "aa:bb:..."; and back: its length, or -EINVAL */
const char *hw_to_string(const uint8_t *hw, size_t len, char *buf, size_t size);
int hw_from_string(const char *s, uint8_t *hw, size_t size);
/* "A/LEN" (with_len) or "A", or "-" for family 0; and back (-EINVAL) */
const char *ip_to_record(const struct ibh_ip *a, char *buf, size_t size, bool with_len);
int ip_from_record(const char *s, struct ibh_ip *ret, bool with_len);
