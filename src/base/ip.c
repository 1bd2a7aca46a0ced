// SPDX-License-Identifier: GPL-2.0-or-later
#include <arpa/inet.h>
#include <net/if.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ip.h"

unsigned int ip_bits(uint8_t family)
{
	return family == AF_INET ? 32 : 128;
}

void ip_prefix(struct ibh_ip *ret, const struct ibh_ip *a)
{
	unsigned int bytes = ip_bits(a->family) / 8;

	*ret = *a;
	for (unsigned int i = 0; i < bytes; i++) {
		unsigned int first = i * 8;

		if (first >= a->len)
			ret->a[i] = 0;
		else if (first + 8 > a->len)
			ret->a[i] &= (uint8_t)(0xff << (8 - (a->len - first)));
	}
	for (unsigned int i = bytes; i < sizeof(ret->a); i++)
		ret->a[i] = 0;
}

int ip_compare(const struct ibh_ip *a, const struct ibh_ip *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return memcmp(a->a, b->a, ip_bits(a->family) / 8);
}

uint32_t ip_hash(const struct ibh_ip *a, uint32_t h)
{
	/* FNV-1a */
	h = (h ^ a->family) * 16777619u;
	h = (h ^ a->len) * 16777619u;
	for (unsigned int i = 0; i < ip_bits(a->family) / 8; i++)
		h = (h ^ a->a[i]) * 16777619u;
	return h;
}

bool ip_same_address(const struct ibh_ip *a, const struct ibh_ip *b)
{
	return a->family == b->family && memcmp(a->a, b->a, ip_bits(a->family) / 8) == 0;
}

bool ip_equal(const struct ibh_ip *a, const struct ibh_ip *b)
{
	return ip_same_address(a, b) && a->len == b->len;
}

bool ip_in_prefix(const struct ibh_ip *a, const struct ibh_ip *addr)
{
	size_t bytes = a->len / 8;
	unsigned int bits = a->len % 8;

	/* the bytes the prefix covers whole, then the bits of the next (the fleet join's hot path) */
	if (a->family != addr->family)
		return false;
	for (size_t i = 0; i < bytes; i++)
		if (a->a[i] != addr->a[i])
			return false;
	return !bits || ((a->a[bytes] ^ addr->a[bytes]) & (0xff00u >> bits) & 0xff) == 0;
}

const char *ip_to_string(const struct ibh_ip *a, char *buf, size_t size, bool with_len)
{
	char tmp[INET6_ADDRSTRLEN];

	if (!inet_ntop(a->family, a->a, tmp, sizeof(tmp)))
		snprintf(tmp, sizeof(tmp), "?");
	if (with_len)
		snprintf(buf, size, "%s/%u", tmp, a->len);
	else
		snprintf(buf, size, "%s", tmp);
	return buf;
}

const char *ip_to_string_short(const struct ibh_ip *a, char *buf, size_t size)
{
	return ip_to_string(a, buf, size, a->len != ip_bits(a->family));
}

bool ifname_valid(const char *s)
{
	size_t n = strnlen(s, IF_NAMESIZE);

	if (n == 0 || n >= IF_NAMESIZE || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	/*
	 * As the kernel's dev_valid_name(): any byte but '/', ':' and what its
	 * isspace() calls blank (lib/ctype.c: \t \n \v \f \r, ' ' and 0xa0).
	 * Control bytes, DEL and bytes that are not UTF-8 are names like any other.
	 */
	for (; *s; s++) {
		unsigned char b = (unsigned char)*s;

		if (b == '/' || b == ':' || b == ' ' || (b >= '\t' && b <= '\r') || b == 0xa0)
			return false;
	}
	return true;
}

const char *ip_to_record(const struct ibh_ip *a, char *buf, size_t size, bool with_len)
{
	if (!a->family)
		return "-";
	return ip_to_string(a, buf, size, with_len);
}

int ip_from_record(const char *s, struct ibh_ip *ret, bool with_len)
{
	char tmp[64], *slash;
	unsigned long len;

	memset(ret, 0, sizeof(*ret));
	if (strcmp(s, "-") == 0)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s", s);
	slash = strchr(tmp, '/');
	if (!!slash != with_len)
		return -EINVAL;
	if (slash)
		*slash++ = '\0';
	ret->family = strchr(tmp, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(ret->family, tmp, ret->a) != 1)
		return -EINVAL;
	len = ip_bits(ret->family);
	if (slash) {
		char *end;
		unsigned long l = strtoul(slash, &end, 10);

		if (*end || !*slash || l > len)
			return -EINVAL;
		len = l;
	}
	ret->len = (uint8_t)len;
	return 0;
}

const char *hw_to_string(const uint8_t *hw, size_t len, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < len && o + 3 < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%02x", i ? ":" : "", hw[i]);
	return buf;
}

int hw_from_string(const char *s, uint8_t *hw, size_t size)
{
	size_t n = 0;

	while (*s && n < size) {
		unsigned int v;
		int used;

		if (sscanf(s, "%2x%n", &v, &used) != 1 || used != 2)
			return -EINVAL;
		hw[n++] = (uint8_t)v;
		s += 2;
		if (*s == ':')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return *s || n == 0 ? -EINVAL : (int)n;
}
