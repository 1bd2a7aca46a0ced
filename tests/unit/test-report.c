// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every JSON document is valid UTF-8 whatever bytes a name holds (issue 20,
 * item 9): Linux allows any byte but '/', ':', blanks and NUL in a link
 * name. Valid UTF-8 is written as it is; a byte that is not part of valid
 * UTF-8 is written as \udcXX (U+DC80 + byte - 0x80, Python's
 * "surrogateescape"), which no valid UTF-8 text ever gives, so the bytes
 * come back exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report.h"

/* the JSON document of --status --iface NAME for a NAME that is not managed */
static char *unmanaged_json(const char *name)
{
	struct ibh_report *r;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	assert_int_equal(report_new(f, true, true, &r), 0);
	report_unmanaged(r, name, "not managed");
	report_end(r, "/run/ib-hook/netns-c1", false, "/etc/ib-hook.conf", "");
	report_free(r);
	assert_int_equal(fclose(f), 0);
	return buf;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
