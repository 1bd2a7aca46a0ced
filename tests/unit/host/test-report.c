// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every JSON document is valid UTF-8 whatever bytes a name holds (issue 20,
 * item 9): Linux allows any byte but '/', ':', blanks and NUL in a link
 * name. Valid UTF-8 is written as it is; a byte that is not part of valid
 * UTF-8 is written as \udcXX (U+DC80 + byte - 0x80, Python's
 * "surrogateescape"), which no valid UTF-8 text ever gives, so the bytes
 * come back exactly.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <net/if_arp.h>

#include "config.h"
#include "config.h"
#include "model.h"
#include "plan.h"
#include "report.h"

/* a --status document written to memory */
struct doc {
	char *buf;
	size_t size;
	FILE *f;
	struct ibh_report *r;
};

static struct ibh_report *doc_open(struct doc *d, bool json)
{
	*d = (struct doc){};
	d->f = open_memstream(&d->buf, &d->size);
	assert_non_null(d->f);
	assert_int_equal(report_new(d->f, json, true, &d->r), 0);
	return d->r;
}

/* the document's text, to free; *ret_ok: the status's exit is 0 */
static char *doc_close(struct doc *d, bool *ret_ok)
{
	bool ok = report_end(d->r, "/run/ib-hook/netns-c1", false, "/etc/ib-hook.conf", "");

	if (ret_ok)
		*ret_ok = ok;
	report_free(d->r);
	assert_int_equal(fclose(d->f), 0);
	return d->buf;
}

/* the JSON document of --status --iface NAME for a NAME that is not managed */
static char *unmanaged_json(const char *name)
{
	struct doc d;

	report_unmanaged(doc_open(&d, true), name, "not managed");
	return doc_close(&d, NULL);
}

/* the "name" member, as the document has it */
static void expect_name(const char *name, const char *json_text)
{
	char *doc = unmanaged_json(name), want[128];

	snprintf(want, sizeof(want), "{\"name\":\"%s\",\"verdict\":\"unmanaged\"", json_text);
	if (!strstr(doc, want))
		fail_msg("%s\nholds no %s", doc, want);
	free(doc);
}

static void test_names(void **state)
{
	(void)state;
	expect_name("ib0", "ib0");
	/* valid UTF-8, two, three and four bytes: as it is */
	expect_name("ib\xc3\xbf", "ib\xc3\xbf");
	expect_name("ib\xe2\x82\xac", "ib\xe2\x82\xac");
	expect_name("ib\xf0\x9f\x90\xa7", "ib\xf0\x9f\x90\xa7");
	/* JSON's own escapes */
	expect_name("ib\"\\\x01\x7f", "ib\\\"\\\\\\u0001\x7f");
	/* a byte that is no UTF-8: never the same text as U+00FF above */
	expect_name("ib\xff", "ib\\udcff");
	expect_name("\x80ib", "\\udc80ib");
	/* truncated sequences: each byte on its own */
	expect_name("ib\xc3", "ib\\udcc3");
	expect_name("ib\xe2\x82", "ib\\udce2\\udc82");
	expect_name("ib\xf0\x9f\x90", "ib\\udcf0\\udc9f\\udc90");
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	expect_name("\xc0\xaf", "\\udcc0\\udcaf");
	expect_name("\xe0\x80\xaf", "\\udce0\\udc80\\udcaf");
	expect_name("\xf0\x80\x80\xaf", "\\udcf0\\udc80\\udc80\\udcaf");
	expect_name("\xed\xa0\x80", "\\udced\\udca0\\udc80");
	expect_name("\xf4\x90\x80\x80", "\\udcf4\\udc90\\udc80\\udc80");
	expect_name("\xf5\x80", "\\udcf5\\udc80");
	/* a valid sequence after an invalid byte is still itself */
	expect_name("\xff\xc3\xbf", "\\udcff\xc3\xbf");
}

/* --status of o under c, as text or JSON; *ret_v its verdict */
static char *status_of(const struct ibh_config *c, const struct ibh_observed *o, bool json,
		       enum ibh_verdict *ret_v, bool *ret_ok)
{
	struct ibh_plan p = {};
	struct doc d;

	*ret_v = report_status(doc_open(&d, json), c, o, &p);
	return doc_close(&d, ret_ok);
}

/* a value the configuration sets that could not be read is never ok (issue 29) */
static void test_unread(void **state)
{
	struct ibh_config c;
	struct ibh_observed o = {
		.link = { .name = "ib0", .ifindex = 4, .type = ARPHRD_INFINIBAND, .up = true },
		.table = 1004
	};
	enum ibh_verdict v;
	bool ok;
	char *out;

	(void)state;
	config_defaults(&c);
	for (int k = 0; k < IBH_SYSCTL_MAX; k++)
		o.sysctl[k] = o.sysctl_all[k] = IBH_SYSCTL_UNKNOWN;
	c.ipoib_mode = IBH_IPOIB_CONNECTED;
	o.mtu = 2044;
	out = status_of(&c, &o, false, &v, &ok);
	assert_int_equal(v, IBH_VERDICT_UNKNOWN);
	assert_false(ok);
	assert_true(report_verdict_fails(v));
	assert_non_null(strstr(out, "  verdict: unknown: the IPoIB mode of ib0 could not be read "
				    "(wanted connected)\n"));
	assert_non_null(strstr(out, "1 managed: 0 ok, 0 drift, 0 down, 0 refused, 1 unknown;"));
	free(out);
	out = status_of(&c, &o, true, &v, &ok);
	assert_non_null(strstr(out, "\"verdict\":\"unknown\",\"reason\":\"the IPoIB mode of ib0"));
	assert_non_null(strstr(out, "\"unknown\":1,"));
	free(out);
	/* the MTU too */
	c.ipoib_mode = IBH_IPOIB_KEEP;
	c.ipoib_mtu = 4092;
	o.mtu = 0;
	free(status_of(&c, &o, false, &v, &ok));
	assert_int_equal(v, IBH_VERDICT_UNKNOWN);
	/* read, and as wanted: ok */
	o.mtu = 4092;
	free(status_of(&c, &o, false, &v, &ok));
	assert_int_equal(v, IBH_VERDICT_OK);
	assert_true(ok);
	/* conf/all unreadable: the value in use is unknown, and the status says so */
	o.addrs = &(
		struct ibh_addr){ .ip = { .family = AF_INET, .len = 16, .a = { 172, 16, 34, 1 } } };
	o.n_addrs = 1;
	o.sysctl[IBH_SYSCTL_ARP_IGNORE] = 2;
	out = status_of(&c, &o, false, &v, &ok);
	assert_non_null(strstr(out,
			       "  warning: net.ipv4.conf.all.arp_ignore could not be read: the "
			       "value the kernel uses is unknown\n"));
	free(out);
}

/* NULL when doc is one well-formed JSON value (nesting, strings), else what is wrong */
static const char *json_malformed(const char *doc)
{
	char stack[64];
	size_t depth = 0;
	bool in_string = false, seen = false;

	for (const char *s = doc; *s; s++) {
		if (in_string) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '"')
				in_string = false;
			continue;
		}
		if (*s == '"') {
			in_string = true;
		} else if (*s == '{' || *s == '[') {
			if (depth == 0 && seen)
				return "a second value after the document";
			if (depth == sizeof(stack))
				return "nested too deep";
			stack[depth++] = *s == '{' ? '}' : ']';
			seen = true;
		} else if (*s == '}' || *s == ']') {
			if (depth == 0 || stack[--depth] != *s)
				return "a bracket closes what it did not open";
		}
	}
	if (in_string)
		return "an unterminated string";
	return depth || !seen ? "an unclosed object or array" : NULL;
}

/* --status --json of one up link with an address, and, if rdma_dev, its RDMA port */
static char *status_json(const char *rdma_dev)
{
	struct ibh_addr addr = { .ip = { .family = AF_INET, .len = 16 } };
	struct ibh_gid gid = { .index = 3, .type = IBH_GID_ROCE_V2, .entries = 4, .global = 2 };
	struct ibh_observed o = { .link = { .name = "ib0", .ifindex = 3, .up = true },
				  .table = 1003,
				  .addrs = &addr,
				  .n_addrs = 1 };
	struct ibh_plan p = {};
	struct ibh_config c;
	struct ibh_report *r;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	assert_int_equal(inet_pton(AF_INET, "172.16.34.1", addr.ip.a), 1);
	config_defaults(&c);
	if (rdma_dev) {
		snprintf(o.rdma.dev, sizeof(o.rdma.dev), "%s", rdma_dev);
		o.rdma.port = 1;
		o.rdma.ifindex = 3;
		snprintf(o.rdma_link_layer, sizeof(o.rdma_link_layer), "Ethernet");
		o.gids = &gid;
	}
	assert_int_equal(report_new(f, true, true, &r), 0);
	report_status(r, &c, &o, &p);
	report_end(r, "/run/ib-hook/netns-c1", true, "/etc/ib-hook.conf", "");
	report_free(r);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* issue 32: the document is well-formed with and without an RDMA port */
static void test_status_json_well_formed(void **state)
{
	const char *rdma[] = { NULL, "mlx5_0" };

	(void)state;
	for (size_t i = 0; i < sizeof(rdma) / sizeof(rdma[0]); i++) {
		char *doc = status_json(rdma[i]);
		const char *why = json_malformed(doc);

		if (why)
			fail_msg("%s\n(RDMA port: %s): %s", doc, rdma[i] ? rdma[i] : "none", why);
		if (rdma[i] && !strstr(doc, "\"rdma\":{\"device\":\"mlx5_0\",\"port\":1,"
					    "\"link_layer\":\"Ethernet\"}"))
			fail_msg("%s\nholds no rdma object", doc);
		if (rdma[i] && !strstr(doc, "\"main_route\":\"absent\",\"gid\":{\"index\":3,"
					    "\"type\":\"RoCE v2\"}}"))
			fail_msg("%s\nholds no gid", doc);
		if (!rdma[i] && strstr(doc, "\"gid\""))
			fail_msg("%s\nholds a gid without an RDMA port", doc);
		free(doc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_unread),
		cmocka_unit_test(test_status_json_well_formed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
