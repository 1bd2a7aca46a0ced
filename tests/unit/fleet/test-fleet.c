// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet view's join (SPEC 10) as a pure function of the documents: one
 * cause per failing pair, placed at the right host and port; a pair that
 * works is never called broken; the order in which ARP answers came does not
 * matter; same-host pairs are local, or judged by ARP where their host sets
 * AcceptLocal; a RoCE port without a GID for an address fails its pairs; what
 * RDMA CM answered decides only where no IP-level cause does; what no host
 * said is unknown; and bad documents are refused with the byte where they
 * went wrong.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fleet.h"
#include "render.h"
#include "json.h"
#include "sample.h"

/* hosts a and b with ports ib0 and ib1, 10.0.H.P/16, MAC 02:00:00:00:0H:0P (a=1, b=2) */
#define PORT(h, p, extra)                                                                          \
	"{\"interface\":\"ib" #p "\",\"up\":true,\"hwaddr\":\"02:00:00:00:0" #h ":0" #p            \
	"\",\"addresses\":[\"10.0." #h "." #p "/16\"],\"routed\":true,\"arp_ignore\":2,"           \
	"\"arp_filter\":0,\"rp_filter\":0,\"accept_local\":0,\"rdma\":null" extra "}"
#define INVENTORY(ra0, ra1, rb0, rb1)                                                              \
	"{\"version\":1,\"host\":\"a\",\"ports\":[" PORT(1, 0, ra0) "," PORT(                      \
		1, 1, ra1) "]}\n"                                                                  \
			   "{\"version\":1,\"host\":\"b\",\"ports\":[" PORT(2, 0, rb0) "," PORT(   \
				   2, 1, rb1) "]}\n"
#define GOOD INVENTORY("", "", "", "")

/*
 * one probe line: from port (host h) to host H port P, route dev and table
 * (dev NULL: no route), arp answers
 */
static char *probe(int h, int p, int H, int P, const char *dev, int table, const char *arp)
{
	static char buf[8][512];
	static int n;
	char *b = buf[n++ % 8], route[64] = "null,\"route_table\":null";

	if (dev)
		snprintf(route, sizeof(route), "\"%s\",\"route_table\":%d", dev, table);
	snprintf(b, 512,
		 "{\"interface\":\"ib%d\",\"address\":\"10.0.%d.%d\",\"peer_host\":\"%s\","
		 "\"peer_interface\":\"ib%d\",\"peer\":\"10.0.%d.%d\",\"route_dev\":%s,"
		 "\"arp\":%s}",
		 p, h, p, H == 1 ? "a" : "b", P, H, P, route, arp);
	return b;
}

/* line with RDMA CM's answer (a JSON object) added */
static char *with_cm(const char *line, const char *cm)
{
	static char buf[8][640];
	static int n;
	char *b = buf[n++ % 8];

	snprintf(b, 640, "%.*s,\"rdma_cm\":%s}", (int)strlen(line) - 1, line, cm);
	return b;
}

/* answers() gives every good line RDMA CM's answer: its source port's device (rxe_HP) */
static bool cm_everywhere;

/* the answers of host h: every pair ok but the ones in odd ("h p H P" -> its line) */
static char *answers(int h, const char *odd_key, const char *odd_line)
{
	char *out = calloc(1, 8192);
	int H = h == 1 ? 2 : 1;

	assert_non_null(out);
	snprintf(out, 8192, "{\"version\":1,\"host\":\"%s\",\"probes\":[", h == 1 ? "a" : "b");
	for (int p = 0; p < 2; p++)
		for (int P = 0; P < 2; P++) {
			char key[32], arp[64], dev[8];

			snprintf(key, sizeof(key), "%d %d %d %d", h, p, H, P);
			snprintf(arp, sizeof(arp), "[\"02:00:00:00:0%d:0%d\"]", H, P);
			snprintf(dev, sizeof(dev), "ib%d", p);
			strcat(out, p + P ? "," : "");
			if (odd_key && strcmp(key, odd_key) == 0)
				strcat(out, odd_line);
			else if (cm_everywhere) {
				const char *line = probe(h, p, H, P, dev, 1000 + p, arp);

				/* not with_cm: its buffers hold odd_line */
				snprintf(out + strlen(out), 8192 - strlen(out),
					 "%.*s,\"rdma_cm\":{\"device\":\"rxe_%d%d\",\"port\":1}}",
					 (int)strlen(line) - 1, line, h, p);
			} else
				strcat(out, probe(h, p, H, P, dev, 1000 + p, arp));
		}
	strcat(out, "]}\n");
	return out;
}

/* the inventory, a's answers with a_line for a_key, b's with b_line for b_key */
static void load_odd(struct fleet *f, const char *inventory, const char *a_key, const char *a_line,
		     const char *b_key, const char *b_line)
{
	char *a = answers(1, a_key, a_line), *b = answers(2, b_key, b_line);
	size_t at = 0;

	memset(f, 0, sizeof(*f));
	assert_int_equal(fleet_read(f, inventory, fleet_add_inventory, &at), 0);
	assert_int_equal(fleet_read(f, a, fleet_add_probes, &at), 0);
	assert_int_equal(fleet_read(f, b, fleet_add_probes, &at), 0);
	free(a);
	free(b);
}

/* the inventory, and every answer good but odd_line for odd_key */
static void load(struct fleet *f, const char *inventory, const char *odd_key, const char *odd_line)
{
	load_odd(f, inventory, odd_key, odd_line, odd_key, odd_line);
}

static size_t port(const struct fleet *f, const char *host, const char *ifname)
{
	size_t i;

	assert_int_equal(fleet_port_find(f, host, ifname, &i), 0);
	return i;
}

/* the port named "host:ifname" */
static size_t named(const struct fleet *f, const char *name)
{
	char host[32];
	const char *colon = strchr(name, ':');

	assert_non_null(colon);
	snprintf(host, sizeof(host), "%.*s", (int)(colon - name), name);
	return port(f, host, colon + 1);
}

/* the verdict of one pair and the port its cause lies at */
static void expect_cell(const struct fleet *f, const char *from, const char *to,
			enum fleet_cause want, const char *at)
{
	struct fleet_cell c;

	fleet_judge(f, named(f, from), named(f, to), &c);
	assert_string_equal(fleet_cause_word(c.cause), fleet_cause_word(want));
	if (want != FLEET_OK)
		assert_int_equal(c.at, named(f, at));
}

/* every pair's verdict: from -> to (and back -> from) as want at at, every other one ok or local */
static void expect_pairs(const struct fleet *f, const char *from, const char *to, bool back,
			 enum fleet_cause want, const char *at)
{
	for (size_t i = 0; i < f->n_ports; i++)
		for (size_t j = 0; j < f->n_ports; j++) {
			struct fleet_cell c;
			char name[96], where[96];

			if (i == j)
				continue;
			fleet_judge(f, i, j, &c);
			snprintf(name, sizeof(name), "%s:%s", f->ports[i].host, f->ports[i].ifname);
			snprintf(where, sizeof(where), "%s:%s", f->ports[j].host,
				 f->ports[j].ifname);
			if (from && ((strcmp(name, from) == 0 && strcmp(where, to) == 0) ||
				     (back && strcmp(name, to) == 0 && strcmp(where, from) == 0))) {
				snprintf(where, sizeof(where), "%s:%s", f->ports[c.at].host,
					 f->ports[c.at].ifname);
				assert_string_equal(fleet_cause_word(c.cause),
						    fleet_cause_word(want));
				assert_string_equal(where, at);
				assert_true(c.why[0]);
			} else
				assert_string_equal(fleet_cause_word(c.cause),
						    strcmp(f->ports[i].host, f->ports[j].host) == 0
							    ? "local"
							    : "ok");
		}
}

/* every pair's verdict; the one from -> to as want at at, every other one ok or local */
static void expect_only(const struct fleet *f, const char *from, const char *to,
			enum fleet_cause want, const char *at)
{
	expect_pairs(f, from, to, false, want, at);
}

static void all_ok(void **state)
{
	struct fleet f;

	(void)state;
	load(&f, GOOD, NULL, NULL);
	expect_only(&f, NULL, NULL, FLEET_OK, NULL);
	fleet_free(&f);
}

/* b's ib1 answers for ib0's address too: the cause is at ib1, whichever answer came first */
static void flux_at_the_port_that_answered(void **state)
{
	const char *orders[] = { "[\"02:00:00:00:02:00\",\"02:00:00:00:02:01\"]",
				 "[\"02:00:00:00:02:01\",\"02:00:00:00:02:00\"]",
				 "[\"02:00:00:00:02:01\"]" };

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		struct fleet f;

		load(&f, GOOD, "1 0 2 0", probe(1, 0, 2, 0, "ib0", 1000, orders[k]));
		expect_only(&f, "a:ib0", "b:ib0", FLEET_ARP_FLUX, "b:ib1");
		fleet_free(&f);
	}
}

/*
 * a's ib1 sends to b's ib0 elsewhere, or has no route: the pair fails, and so
 * does the one b's ib0 answers; the cause comes from what a reports of its rules
 */
static void route_faults_at_the_source(void **state)
{
	static const struct {
		const char *inventory, *dev; /* dev NULL: no route */
		int table;
		enum fleet_cause want;
	} cases[] = {
		/* a rule of ib-hook's table sends it elsewhere */
		{ GOOD, "ib0", 1000, FLEET_WRONG_PORT },
		/* the rule is there, its table has no way to the peer (a rail without a gateway) */
		{ GOOD, NULL, 0, FLEET_NO_ROUTE },
		/* the rule is gone while the other port has one (drift): main sends it elsewhere, */
		{ INVENTORY("", ",\"routed\":false", "", ""), "ib0", 254, FLEET_NO_RULE },
		/* ... or, under MainRoute=delete, nowhere */
		{ INVENTORY("", ",\"routed\":false", "", ""), NULL, 0, FLEET_NO_RULE },
		/* no port of the host has one: ib-hook was never applied there */
		{ INVENTORY(",\"routed\":false", ",\"routed\":false", "", ""), "ib0", 254,
		  FLEET_NOT_APPLIED },
		{ INVENTORY(",\"routed\":false", ",\"routed\":false", "", ""), NULL, 0,
		  FLEET_NOT_APPLIED },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct fleet f;

		load(&f, cases[k].inventory, "1 1 2 0",
		     probe(1, 1, 2, 0, cases[k].dev, cases[k].table, "[\"02:00:00:00:02:00\"]"));
		expect_pairs(&f, "a:ib1", "b:ib0", true, cases[k].want, "a:ib1");
		fleet_free(&f);
	}
}

/* both ways wrong: the request's route, met first, is the one cause of each pair */
static void one_cause_when_both_ways_fail(void **state)
{
	struct fleet f;

	(void)state;
	load_odd(&f, INVENTORY(",\"routed\":false", "", ",\"routed\":false", ""), "1 0 2 0",
		 probe(1, 0, 2, 0, "ib1", 254, "[\"02:00:00:00:02:00\"]"), "2 0 1 0",
		 probe(2, 0, 1, 0, "ib1", 254, "[\"02:00:00:00:01:00\"]"));
	expect_cell(&f, "a:ib0", "b:ib0", FLEET_NO_RULE, "a:ib0");
	expect_cell(&f, "b:ib0", "a:ib0", FLEET_NO_RULE, "b:ib0");
	fleet_free(&f);
}

/* b's ib0 drops what comes from a's ib0, as its way back leaves through ib1 */
static void rp_filter_at_the_port_that_drops(void **state)
{
	struct fleet f;

	(void)state;
	load(&f, INVENTORY("", "", ",\"rp_filter\":1,\"routed\":false", ""), "2 0 1 0",
	     probe(2, 0, 1, 0, "ib1", 254, "[\"02:00:00:00:01:00\"]"));
	/* dropped on arrival: before the reply's way back counts */
	expect_cell(&f, "a:ib0", "b:ib0", FLEET_RP_FILTER, "b:ib0");
	expect_cell(&f, "b:ib0", "a:ib0", FLEET_NO_RULE, "b:ib0");
	fleet_free(&f);
	/* loose mode (2) lets it in; the reply still leaves through ib1 */
	load(&f, INVENTORY("", "", ",\"rp_filter\":2,\"routed\":false", ""), "2 0 1 0",
	     probe(2, 0, 1, 0, "ib1", 254, "[\"02:00:00:00:01:00\"]"));
	expect_pairs(&f, "b:ib0", "a:ib0", true, FLEET_NO_RULE, "b:ib0");
	fleet_free(&f);
}

static void down_and_unanswered(void **state)
{
	struct fleet f;

	(void)state;
	load(&f, INVENTORY("", "", "", ",\"up\":false"), NULL, NULL);
	expect_cell(&f, "a:ib1", "b:ib1", FLEET_PORT_DOWN, "b:ib1");
	expect_cell(&f, "b:ib1", "a:ib0", FLEET_PORT_DOWN, "b:ib1");
	fleet_free(&f);
	load(&f, GOOD, "1 0 2 1", probe(1, 0, 2, 1, "ib0", 1000, "[]"));
	expect_only(&f, "a:ib0", "b:ib1", FLEET_NO_ANSWER, "b:ib1");
	fleet_free(&f);
	/* not asked (off link, or IPv6): the route alone decides */
	load(&f, GOOD, "1 0 2 1", probe(1, 0, 2, 1, "ib0", 1000, "null"));
	expect_only(&f, NULL, NULL, FLEET_OK, NULL);
	fleet_free(&f);
}

/* a host that sent no answers: its pairs are unknown, the pairs into it judged by the others */
static void silent_host(void **state)
{
	struct fleet f = {};
	char *a = answers(1, NULL, NULL);
	size_t at = 0;
	char *buf = NULL;
	size_t size = 0;
	FILE *out;

	(void)state;
	assert_int_equal(fleet_read(&f, GOOD, fleet_add_inventory, &at), 0);
	assert_int_equal(fleet_read(&f, a, fleet_add_probes, &at), 0);
	expect_cell(&f, "b:ib0", "a:ib0", FLEET_UNKNOWN, "b:ib0");
	expect_cell(&f, "a:ib0", "b:ib0", FLEET_OK, NULL);
	out = open_memstream(&buf, &size);
	assert_int_equal(fleet_print(&f, FLEET_TEXT, out), 1);
	fclose(out);
	assert_non_null(strstr(buf, "12 pairs: 4 ok, 0 not ok, 4 local (not judged), 4 unknown; ARP probed for 4, derived for 0\n"));
	free(buf);
	free(a);
	fleet_free(&f);
}

/*
 * b's configuration sets AcceptLocal: the pairs between its two ports are
 * judged by the ARP answer from the other port (a's stay local); a port that
 * does not answer its host's own address drops it (accept_local=0 here)
 */
static void same_host_where_accept_local(void **state)
{
	static const char *const right = "[\"02:00:00:00:02:01\"]";
	const struct {
		const char *arp; /* what answered b:ib0's request for b:ib1 (NULL: not asked) */
		enum fleet_cause want;
		const char *at;
	} cases[] = {
		{ right, FLEET_OK, NULL },
		{ "[]", FLEET_LOCAL_DROPPED, "b:ib1" },
		{ "[\"02:00:00:00:02:00\",\"02:00:00:00:02:01\"]", FLEET_ARP_FLUX, "b:ib0" },
		{ NULL, FLEET_LOCAL, "b:ib0" },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct fleet f = {};
		char *a = answers(1, NULL, NULL), *b = answers(2, NULL, NULL);
		size_t at = 0;

		b = realloc(b, strlen(b) + 1024);
		assert_non_null(b);
		if (cases[k].arp) {
			b[strlen(b) - 3] = '\0'; /* "]}\n" */
			strcat(b, ",");
			strcat(b, probe(2, 0, 2, 1, "lo", 255, cases[k].arp));
			strcat(b, ",");
			strcat(b, probe(2, 1, 2, 0, "lo", 255, "[\"02:00:00:00:02:00\"]"));
			strcat(b, "]}\n");
		}
		assert_int_equal(fleet_read(&f,
					    INVENTORY("", "", ",\"local_delivery\":true",
						      ",\"local_delivery\":true"),
					    fleet_add_inventory, &at),
				 0);
		assert_int_equal(fleet_read(&f, a, fleet_add_probes, &at), 0);
		assert_int_equal(fleet_read(&f, b, fleet_add_probes, &at), 0);
		expect_cell(&f, "b:ib0", "b:ib1", cases[k].want, cases[k].at);
		expect_cell(&f, "b:ib1", "b:ib0", cases[k].arp ? FLEET_OK : FLEET_LOCAL, "b:ib1");
		expect_cell(&f, "a:ib0", "a:ib1", FLEET_LOCAL, "a:ib0");
		expect_cell(&f, "a:ib0", "b:ib1", FLEET_OK, NULL);
		free(a);
		free(b);
		fleet_free(&f);
	}
}

/* RoCE ports as soft-RoCE shows them; GIDS: the "gids" member */
#define ROCE(dev, gids)                                                                            \
	",\"rdma\":{\"device\":\"" dev "\",\"port\":1,\"state\":\"ACTIVE\","                       \
	"\"link_layer\":\"Ethernet\",\"gids\":[" gids "]}"

/*
 * b's ports are RoCE, and ib1 holds no GID for its address: every pair from
 * and into it fails there, whatever its route and ARP say; ib0 holds its own
 */
static void no_gid_at_the_port_without_one(void **state)
{
	struct fleet f;

	(void)state;
	load(&f,
	     INVENTORY(
		     "", "",
		     ROCE("rxe0", "{\"address\":\"10.0.2.0/16\",\"index\":1,\"type\":\"RoCE v2\"}"),
		     ROCE("rxe1", "")),
	     NULL, NULL);
	expect_cell(&f, "a:ib0", "b:ib1", FLEET_NO_GID, "b:ib1");
	expect_cell(&f, "a:ib1", "b:ib1", FLEET_NO_GID, "b:ib1");
	expect_cell(&f, "b:ib1", "a:ib0", FLEET_NO_GID, "b:ib1");
	expect_cell(&f, "b:ib1", "a:ib1", FLEET_NO_GID, "b:ib1");
	expect_cell(&f, "a:ib0", "b:ib0", FLEET_OK, NULL);
	expect_cell(&f, "b:ib0", "a:ib1", FLEET_OK, NULL);
	fleet_free(&f);
	/* a GID for an address the port does not have: not an inventory */
	memset(&f, 0, sizeof(f));
	assert_int_equal(
		fleet_read(&f, INVENTORY("", "", "", ROCE("rxe1", "{\"address\":\"10.0.9.9/16\"}")),
			   fleet_add_inventory, &(size_t){ 0 }),
		-EINVAL);
	fleet_free(&f);
}

/* every port RoCE, with its GID: rxe_HP for host H port P */
#define ROCE_GOOD                                                                                  \
	INVENTORY(ROCE("rxe_10", "{\"address\":\"10.0.1.0/16\"}"),                                 \
		  ROCE("rxe_11", "{\"address\":\"10.0.1.1/16\"}"),                                 \
		  ROCE("rxe_20", "{\"address\":\"10.0.2.0/16\"}"),                                 \
		  ROCE("rxe_21", "{\"address\":\"10.0.2.1/16\"}"))

/*
 * RDMA CM's answer at the source port, once every IP-level cause is ruled out:
 * it does not resolve (unresolved), or resolves through another port's device
 * (wrong-port as RDMA CM sees it); an answer on the right device is ok
 */
static void cm_at_the_source(void **state)
{
	char good[512];
	struct fleet f;

	(void)state;
	/* a copy: probe()'s buffers are reused */
	snprintf(good, sizeof(good), "%s",
		 probe(1, 1, 2, 0, "ib1", 1001, "[\"02:00:00:00:02:00\"]"));
	cm_everywhere = true;
	load(&f, ROCE_GOOD, NULL, NULL);
	expect_only(&f, NULL, NULL, FLEET_OK, NULL);
	fleet_free(&f);
	load(&f, ROCE_GOOD, "1 1 2 0",
	     with_cm(good, "{\"error\":\"Connection timed out; address: event 1, status -110\"}"));
	expect_only(&f, "a:ib1", "b:ib0", FLEET_UNRESOLVED, "a:ib1");
	fleet_free(&f);
	load(&f, ROCE_GOOD, "1 1 2 0", with_cm(good, "{\"device\":\"rxe_10\",\"port\":1}"));
	expect_only(&f, "a:ib1", "b:ib0", FLEET_WRONG_PORT, "a:ib1");
	fleet_free(&f);
	/* the right device, another port of it */
	load(&f, ROCE_GOOD, "1 1 2 0", with_cm(good, "{\"device\":\"rxe_11\",\"port\":2}"));
	expect_only(&f, "a:ib1", "b:ib0", FLEET_WRONG_PORT, "a:ib1");
	fleet_free(&f);
	/* a port without an RDMA device whose address RDMA CM resolved on one */
	cm_everywhere = false;
	load(&f, GOOD, "1 1 2 0", with_cm(good, "{\"device\":\"rxe_10\",\"port\":1}"));
	expect_only(&f, "a:ib1", "b:ib0", FLEET_WRONG_PORT, "a:ib1");
	fleet_free(&f);
}

/* one cause per pair: an IP-level cause explains RDMA CM's failure, and is the one named */
static void ip_causes_before_cm(void **state)
{
	const char *fail = "{\"error\":\"No route to host\"}";
	struct fleet_cell c;
	struct fleet f;

	(void)state;
	cm_everywhere = true;
	/* the route from a's ib1 leaves through ib0 */
	load(&f, ROCE_GOOD, "1 1 2 0",
	     with_cm(probe(1, 1, 2, 0, "ib0", 1001, "[\"02:00:00:00:02:00\"]"), fail));
	expect_cell(&f, "a:ib1", "b:ib0", FLEET_WRONG_PORT, "a:ib1");
	fleet_judge(&f, named(&f, "a:ib1"), named(&f, "b:ib0"), &c);
	assert_non_null(strstr(c.why, "the route from 10.0.1.1 to 10.0.2.0 leaves a through ib0"));
	fleet_free(&f);
	/* b's ib1 answers ARP for ib0's address */
	load(&f, ROCE_GOOD, "1 1 2 0",
	     with_cm(probe(1, 1, 2, 0, "ib1", 1001, "[\"02:00:00:00:02:01\"]"), fail));
	expect_only(&f, "a:ib1", "b:ib0", FLEET_ARP_FLUX, "b:ib1");
	fleet_free(&f);
	/* nothing answered ARP */
	load(&f, ROCE_GOOD, "1 1 2 0", with_cm(probe(1, 1, 2, 0, "ib1", 1001, "[]"), fail));
	expect_only(&f, "a:ib1", "b:ib0", FLEET_NO_ANSWER, "b:ib0");
	fleet_free(&f);
	/* b's ib0 holds no GID for its address */
	load(&f,
	     INVENTORY(ROCE("rxe_10", "{\"address\":\"10.0.1.0/16\"}"),
		       ROCE("rxe_11", "{\"address\":\"10.0.1.1/16\"}"), ROCE("rxe_20", ""),
		       ROCE("rxe_21", "{\"address\":\"10.0.2.1/16\"}")),
	     "1 1 2 0", with_cm(probe(1, 1, 2, 0, "ib1", 1001, "[\"02:00:00:00:02:00\"]"), fail));
	expect_cell(&f, "a:ib1", "b:ib0", FLEET_NO_GID, "b:ib0");
	fleet_free(&f);
	cm_everywhere = false;
}

static void page_and_json(void **state)
{
	struct fleet f;
	char *buf = NULL, *p;
	size_t size = 0, cells = 0;
	FILE *out;
	struct json *j;
	const char *end;

	(void)state;
	load(&f, GOOD, "1 0 2 0", probe(1, 0, 2, 0, "ib0", 1000, "[\"02:00:00:00:02:01\"]"));
	out = open_memstream(&buf, &size);
	assert_int_equal(fleet_print(&f, FLEET_HTML, out), 1);
	fclose(out);
	for (p = buf; (p = strstr(p, "<td class=\"cell ")); p++)
		cells++;
	assert_int_equal(cells, 12);
	assert_non_null(strstr(
		buf, "<td class=\"cell arp-flux\" title=\"a ib0 -> b ib0: arp-flux at b ib1: "));
	assert_null(strstr(buf, "<script"));
	/* a port and itself is struck through and says so; no swatch is white or black */
	assert_non_null(strstr(buf, "<td class=\"self\" title=\"a ib0: the same port, no pair\">"));
	assert_null(strstr(buf, "background:#fff}"));
	assert_null(strstr(buf, "background:#ffffff}"));
	assert_null(strstr(buf, "background:#000"));
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &size);
	assert_int_equal(fleet_print(&f, FLEET_JSON, out), 1);
	fclose(out);
	assert_int_equal(json_parse(buf, &end, NULL, &j), 0);
	assert_int_equal(json_get(j, "pairs")->n_items, 12);
	assert_int_equal(json_get_number(json_get(j, "summary"), "not_ok", -1), 1);
	assert_string_equal(
		json_get_string(json_get(json_get(j, "causes")->items[0], "at"), "interface"),
		"ib1");
	json_free(j);
	free(buf);
	fleet_free(&f);
}

static void bad_documents(void **state)
{
	struct fleet f = {};
	char doc[1024];
	struct json *j;
	const char *end;
	size_t at = 0;

	(void)state;
	assert_int_equal(fleet_read(&f, "{\"version\":1,\"host\":\"a\",\"ports\":[}",
				    fleet_add_inventory, &at),
			 -EINVAL);
	assert_int_equal(at, 33);
	fleet_free(&f);
	assert_int_equal(fleet_read(&f, GOOD GOOD, fleet_add_inventory, &at), -EEXIST);
	fleet_free(&f);
	assert_int_equal(fleet_read(&f, "{\"version\":2,\"host\":\"a\",\"ports\":[]}",
				    fleet_add_inventory, &at),
			 -EINVAL);
	fleet_free(&f);
	/* a port without its hardware address: nobody could tell its ARP answers */
	assert_int_equal(fleet_read(&f,
				    "{\"version\":1,\"host\":\"a\",\"ports\":[{\"interface\":"
				    "\"ib0\",\"hwaddr\":\"\",\"addresses\":[]}]}",
				    fleet_add_inventory, &at),
			 -EINVAL);
	fleet_free(&f);
	/* a probe naming a port no inventory has */
	assert_int_equal(fleet_read(&f, GOOD, fleet_add_inventory, &at), 0);
	assert_int_equal(
		fleet_read(&f,
			   "{\"version\":1,\"host\":\"a\",\"probes\":[{\"interface\":\"ib7\"}]}",
			   fleet_add_probes, &at),
		-EINVAL);
	fleet_free(&f);
	/* RDMA CM's answer that is neither a device nor an error */
	assert_int_equal(fleet_read(&f, GOOD, fleet_add_inventory, &at), 0);
	snprintf(doc, sizeof(doc), "{\"version\":1,\"host\":\"a\",\"probes\":[%s]}",
		 with_cm(probe(1, 0, 2, 0, "ib0", 1000, "[]"), "{}"));
	assert_int_equal(fleet_read(&f, doc, fleet_add_probes, &at), -EINVAL);
	fleet_free(&f);
	/* nesting is bounded; a byte that is not UTF-8 comes back from \udcXX */
	assert_int_equal(json_parse("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]"
				    "]]]]]]]]]]]]]]",
				    &end, NULL, &j),
			 -EINVAL);
	assert_int_equal(json_parse("\"ib\\udcff\\u00e9\\ud83d\\ude00\"", &end, NULL, &j), 0);
	assert_string_equal(j->s, "ib\xff\xc3\xa9\xf0\x9f\x98\x80");
	json_free(j);
	assert_int_equal(json_parse("  ", &end, NULL, &j), -ENODATA);
}

/* ---- issue 38: the fleet view's holes (items 1-4, 8, 12) ---- */

/* text printed by fleet_print in format: its return in *ret */
static char *printed(const struct fleet *f, enum fleet_format format, int *ret)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	assert_non_null(out);
	*ret = fleet_print(f, format, out);
	fclose(out);
	return buf;
}

/* a probe line between explicit addresses: route dev (NULL: none), table, via, arp */
static char *probe_line(int p, const char *src, const char *peer_host, int P, const char *dst,
			const char *dev, int table, const char *arp)
{
	static char buf[16][512];
	static int n;
	char *b = buf[n++ % 16], route[96] = "null,\"route_table\":null";

	if (dev)
		snprintf(route, sizeof(route), "\"%s\",\"route_table\":%d,\"route_via\":null", dev,
			 table);
	snprintf(b, 512,
		 "{\"interface\":\"ib%d\",\"address\":\"%s\",\"peer_host\":\"%s\","
		 "\"peer_interface\":\"ib%d\",\"peer\":\"%s\",\"route_dev\":%s,\"arp\":%s}",
		 p, src, peer_host, P, dst, route, arp);
	return b;
}

/* item 3: a port with more addresses than the reader once kept (8) is read whole */
static void nine_addresses(void **state)
{
	struct fleet f = {};
	char doc[2048] = "{\"version\":1,\"host\":\"a\",\"ports\":[{\"interface\":\"ib0\","
			 "\"up\":true,\"hwaddr\":\"02:00:00:00:01:00\",\"addresses\":[";
	size_t at = 0;

	(void)state;
	for (int i = 1; i <= 9; i++)
		snprintf(doc + strlen(doc), sizeof(doc) - strlen(doc), "%s\"10.0.1.%d/16\"",
			 i > 1 ? "," : "", i);
	strcat(doc, "],\"routed\":true,\"rdma\":null}]}\n");
	assert_int_equal(fleet_read(&f, doc, fleet_add_inventory, &at), 0);
	assert_int_equal(f.n_ports, 1);
	assert_int_equal(f.ports[0].n_addrs, 9);
	fleet_free(&f);
}

/* item 4: a host name of HOST_NAME_MAX (64) bytes, which gethostname gives and --inventory writes */
static void longest_host_name(void **state)
{
	struct fleet f = {};
	char name[65], doc[1024], answer[256];
	size_t at = 0, i;

	(void)state;
	memset(name, 'n', 64);
	name[64] = '\0';
	snprintf(doc, sizeof(doc),
		 "{\"version\":1,\"host\":\"%s\",\"ports\":[" PORT(1, 0, "") "]}\n", name);
	snprintf(answer, sizeof(answer), "{\"version\":1,\"host\":\"%s\",\"probes\":[]}\n", name);
	assert_int_equal(fleet_read(&f, doc, fleet_add_inventory, &at), 0);
	assert_int_equal(fleet_port_find(&f, name, "ib0", &i), 0);
	/* and its answers */
	assert_int_equal(fleet_read(&f, answer, fleet_add_probes, &at), 0);
	fleet_free(&f);
}

/*
 * item 2: a's ib0 has a second address, 10.9.0.1/16, in a subnet no other
 * port has. From it the peers are reached only through main's prefix route
 * (through ib1, no gateway), and b has no route to it at all: those pairs of
 * addresses cannot talk; the port pairs are judged by 10.0.1.0 and are ok.
 */
static void second_subnet(void **state)
{
	static const char inventory[] =
		"{\"version\":1,\"host\":\"a\",\"ports\":[{\"interface\":\"ib0\",\"up\":true,"
		"\"hwaddr\":\"02:00:00:00:01:00\",\"addresses\":[\"10.0.1.0/16\",\"10.9.0.1/16\"],"
		"\"routed\":true,\"arp_ignore\":2,\"arp_filter\":0,\"rp_filter\":0,"
		"\"accept_local\":0,\"rdma\":null}," PORT(
			1, 1, "") "]}\n"
				  "{\"version\":1,\"host\":\"b\",\"ports\":[" PORT(
					  2, 0, "") "," PORT(2, 1, "") "]}\n";
	char a[8192] = "{\"version\":1,\"host\":\"a\",\"probes\":[",
	     b[8192] = "{\"version\":1,\"host\":\"b\",\"probes\":[";
	struct fleet f = {};
	size_t at = 0;

	(void)state;
	for (int p = 0; p < 2; p++)
		for (int P = 0; P < 2; P++) {
			char src[32], dst[32], dev[8], arp[32];

			snprintf(dev, sizeof(dev), "ib%d", p);
			snprintf(src, sizeof(src), "10.0.1.%d", p);
			snprintf(dst, sizeof(dst), "10.0.2.%d", P);
			snprintf(arp, sizeof(arp), "[\"02:00:00:00:02:0%d\"]", P);
			strcat(a, p + P ? "," : "");
			strcat(a, probe_line(p, src, "b", P, dst, dev, 1000 + p, arp));
			if (p == 0) {
				strcat(a, ",");
				strcat(a,
				       probe_line(0, "10.9.0.1", "b", P, dst, "ib1", 254, "null"));
			}
			/* b's way to a: the same, and no route at all to 10.9.0.1 */
			snprintf(dev, sizeof(dev), "ib%d", P);
			snprintf(arp, sizeof(arp), "[\"02:00:00:00:01:0%d\"]", p);
			strcat(b, p + P ? "," : "");
			strcat(b, probe_line(P, dst, "a", p, src, dev, 1000 + P, arp));
			if (p == 0) {
				strcat(b, ",");
				strcat(b, probe_line(P, dst, "a", 0, "10.9.0.1", NULL, 0, "null"));
			}
		}
	strcat(a, "]}\n");
	strcat(b, "]}\n");
	assert_int_equal(fleet_read(&f, inventory, fleet_add_inventory, &at), 0);
	assert_int_equal(fleet_read(&f, a, fleet_add_probes, &at), 0);
	assert_int_equal(fleet_read(&f, b, fleet_add_probes, &at), 0);
	expect_only(&f, NULL, NULL, FLEET_OK, NULL);
	fleet_free(&f);
	/* a route that does leave through the wrong port is still found from the address that can talk */
	memset(&f, 0, sizeof(f));
	{
		char *bad = strstr(a, "\"route_dev\":\"ib0\",\"route_table\":1000");

		assert_non_null(bad);
		memcpy(bad, "\"route_dev\":\"ib1\",\"route_table\":254 ", 36);
	}
	assert_int_equal(fleet_read(&f, inventory, fleet_add_inventory, &at), 0);
	assert_int_equal(fleet_read(&f, a, fleet_add_probes, &at), 0);
	assert_int_equal(fleet_read(&f, b, fleet_add_probes, &at), 0);
	/* both ways: b's replies to 10.0.1.0 are answered along that route too */
	expect_pairs(&f, "a:ib0", "b:ib0", true, FLEET_WRONG_PORT, "a:ib0");
	fleet_free(&f);
}

/*
 * item 1: a's answers say the inventory lists 10.0.1.1 on a's ib1, which does
 * not hold it now: every pair of a:ib1 is stale there, in every output
 */
static void stale_inventory(void **state)
{
	static const char stale[] =
		"\"stale\":[{\"host\":\"a\",\"interface\":\"ib1\",\"address\":\"10.0.1.1/16\"}],";
	char *a = answers(1, NULL, NULL), *b = answers(2, NULL, NULL), *with, *buf;
	struct fleet f = {};
	struct json *j;
	const char *end;
	size_t at = 0;
	int r;

	(void)state;
	with = calloc(1, strlen(a) + sizeof(stale));
	assert_non_null(with);
	/* {"version":1,"host":"a", then the list */
	memcpy(with, a, strlen("{\"version\":1,\"host\":\"a\","));
	strcat(with, stale);
	strcat(with, a + strlen("{\"version\":1,\"host\":\"a\","));
	assert_int_equal(fleet_read(&f, GOOD, fleet_add_inventory, &at), 0);
	assert_int_equal(fleet_read(&f, with, fleet_add_probes, &at), 0);
	assert_int_equal(fleet_read(&f, b, fleet_add_probes, &at), 0);
	for (size_t i = 0; i < f.n_ports; i++)
		for (size_t k = 0; k < f.n_ports; k++) {
			struct fleet_cell c;
			bool local = strcmp(f.ports[i].host, f.ports[k].host) == 0;
			bool touches = i == named(&f, "a:ib1") || k == named(&f, "a:ib1");

			if (i == k)
				continue;
			fleet_judge(&f, i, k, &c);
			assert_string_equal(fleet_cause_word(c.cause), local	 ? "local"
								       : touches ? "stale"
										 : "ok");
			if (!local && touches)
				assert_int_equal(c.at, named(&f, "a:ib1"));
		}
	buf = printed(&f, FLEET_TEXT, &r);
	assert_int_equal(r, 1);
	assert_non_null(strstr(buf, "stale at a ib1 (4 pairs)"));
	assert_non_null(strstr(buf, "the inventory is stale"));
	free(buf);
	buf = printed(&f, FLEET_JSON, &r);
	assert_int_equal(json_parse(buf, &end, NULL, &j), 0);
	assert_false(json_get_bool(j, "ok", true));
	assert_string_equal(json_get_string(json_get(j, "causes")->items[0], "cause"), "stale");
	json_free(j);
	free(buf);
	buf = printed(&f, FLEET_HTML, &r);
	assert_non_null(strstr(buf, "<td class=\"cell stale\""));
	free(buf);
	fleet_free(&f);
	free(with);
	free(a);
	free(b);
}

/* item 8: nothing seen is not ok: no port, a host without one, no pair between two hosts */
static void nothing_seen(void **state)
{
	static const char *const inventories[] = {
		"",
		"{\"version\":1,\"host\":\"a\",\"ports\":[]}\n",
		GOOD "{\"version\":1,\"host\":\"c\",\"ports\":[]}\n",
		"{\"version\":1,\"host\":\"a\",\"ports\":[" PORT(1, 0, "") "," PORT(1, 1,
										    "") "]}\n",
	};
	static const char *const reasons[] = {
		"the inventory lists no port",
		"the inventory lists no port",
		"c lists no port",
		"no pair between two hosts",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(inventories) / sizeof(inventories[0]); i++) {
		struct fleet f = {};
		char *a = answers(1, NULL, NULL), *b = answers(2, NULL, NULL), *buf;
		const char *end;
		struct json *j;
		size_t at = 0;
		int r;

		assert_int_equal(fleet_read(&f, inventories[i], fleet_add_inventory, &at), 0);
		if (i == 2) {
			assert_int_equal(fleet_read(&f, a, fleet_add_probes, &at), 0);
			assert_int_equal(fleet_read(&f, b, fleet_add_probes, &at), 0);
		}
		buf = printed(&f, FLEET_TEXT, &r);
		assert_int_equal(r, 1);
		assert_non_null(strstr(buf, "not ok: "));
		assert_non_null(strstr(buf, reasons[i]));
		free(buf);
		buf = printed(&f, FLEET_JSON, &r);
		assert_int_equal(r, 1);
		assert_int_equal(json_parse(buf, &end, NULL, &j), 0);
		assert_false(json_get_bool(j, "ok", true));
		assert_non_null(strstr(json_get_string(j, "reason"), reasons[i]));
		json_free(j);
		free(buf);
		buf = printed(&f, FLEET_HTML, &r);
		assert_int_equal(r, 1);
		assert_non_null(strstr(buf, reasons[i]));
		free(buf);
		free(a);
		free(b);
		fleet_free(&f);
	}
}

/*
 * item 12: host and interface names with markup: the page escapes them
 * wherever it writes them (no element of theirs, no attribute cut short),
 * the JSON gives them back as they are
 */
static void names_with_markup(void **state)
{
	/* in JSON: host a<b>&"x' and interface i<&"'0 (15 bytes at most) */
	static const char inventory[] =
		"{\"version\":1,\"host\":\"a<b>&\\\"x'\",\"ports\":[{\"interface\":\"i<&\\\"'0\","
		"\"up\":true,\"hwaddr\":\"02:00:00:00:01:00\",\"addresses\":[\"10.0.1.0/16\"],"
		"\"routed\":true,\"rdma\":null}]}\n"
		"{\"version\":1,\"host\":\"b\",\"ports\":[" PORT(2, 0, "") "]}\n";
	struct fleet f = {};
	char *buf, *p;
	struct json *j;
	const char *end;
	size_t at = 0, cells = 0, tags = 0;
	int r;

	(void)state;
	assert_int_equal(fleet_read(&f, inventory, fleet_add_inventory, &at), 0);
	buf = printed(&f, FLEET_HTML, &r);
	assert_int_equal(r, 1);
	assert_null(strstr(buf, "<b>"));
	assert_null(strstr(buf, "i<&"));
	assert_non_null(strstr(buf, "a&lt;b&gt;&amp;&quot;x&#39;"));
	assert_non_null(strstr(buf, "i&lt;&amp;&quot;&#39;0"));
	/* every '<' opens a tag of the page's own, every '"' in a cell's title is escaped */
	for (p = buf; (p = strchr(p, '<')); p++) {
		assert_true(p[1] == '/' || p[1] == '!' || (p[1] >= 'a' && p[1] <= 'z'));
		tags++;
	}
	assert_true(tags > 10);
	for (p = buf; (p = strstr(p, "<td class=\"cell ")); p++) {
		const char *title = strstr(p, "title=\"") + 7, *close = strstr(title, "\"></td>");

		assert_non_null(close);
		assert_null(memchr(title, '"', (size_t)(close - title)));
		cells++;
	}
	assert_int_equal(cells, 2);
	free(buf);
	buf = printed(&f, FLEET_JSON, &r);
	assert_int_equal(json_parse(buf, &end, NULL, &j), 0);
	assert_string_equal(
		json_get_string(json_get(json_get(j, "pairs")->items[0], "from"), "host"),
		"a<b>&\"x'");
	assert_string_equal(
		json_get_string(json_get(json_get(j, "pairs")->items[0], "from"), "interface"),
		"i<&\"'0");
	json_free(j);
	free(buf);
	fleet_free(&f);
}
/* ---- end of issue 38 ---- */

/* ---- issue 47 ---- */

/*
 * Three hosts h1..h3 with ports ib0 and ib1 in 172.16.0.0/16 (172.16.H.P+1, MAC
 * 02:00:00:00:0H:0P, as tests/fleet/holes.sh), answers version 2 as step 2 writes them: each address
 * asked by the k hosts sample.c chooses. flux: a host whose ports answer ARP
 * for each other's address (arp_ignore=0); rp: a host whose ports have
 * rp_filter=1. A host's answer whose name is silent is left out; neigh: a
 * "neigh" member for the answer of host neigh_host.
 */
#define PORT3(h, p, a, ai, rp)                                                                     \
	"{\"interface\":\"ib" #p "\",\"up\":true,\"hwaddr\":\"02:00:00:00:0" #h ":0" #p            \
	"\",\"addresses\":[\"172.16." #h "." #a "/16\"],\"routed\":true,\"arp_ignore\":" ai        \
	",\"arp_filter\":0,\"rp_filter\":" rp ",\"accept_local\":0,\"rdma\":null}"
#define HOST3(h, ai, rp)                                                                           \
	"{\"version\":1,\"host\":\"h" #h                                                           \
	"\",\"ports\":[" PORT3(h, 0, 1, ai, rp) "," PORT3(h, 1, 2, ai, rp) "]}\n"
#define FLUX_H2 HOST3(1, "1", "0") HOST3(2, "0", "0") HOST3(3, "1", "0")
#define RP_H3	HOST3(1, "1", "0") HOST3(2, "1", "0") HOST3(3, "1", "1")
#define NO_RP	HOST3(1, "1", "0") HOST3(2, "1", "0") HOST3(3, "1", "0")

static void v2_fleet(struct fleet *f, const char *inventory, unsigned int k, const char *silent,
		     const char *neigh_host, const char *neigh)
{
	struct fleet inv = {};
	struct sample s;
	size_t at = 0;

	assert_int_equal(fleet_read(&inv, inventory, fleet_add_inventory, &at), 0);
	assert_int_equal(sample_init(&s, &inv), 0);
	memset(f, 0, sizeof(*f));
	assert_int_equal(fleet_read(f, inventory, fleet_add_inventory, &at), 0);
	for (size_t h = 0; h < s.n_hosts; h++) {
		const char *host = inv.ports[s.hosts[h].first].host;
		char *doc = calloc(1, 16384), addr[64];
		bool first = true;

		assert_non_null(doc);
		snprintf(doc, 16384,
			 "{\"version\":2,\"host\":\"%s\",\"rdma_cm\":\"not asked\",\"stale\":[],"
			 "\"probing\":{\"probers\":%u,\"rate\":2000,\"window_ms\":1,\"requests\":0,"
			 "\"retries\":0,\"answered\":0},\"sources\":[",
			 host, k);
		for (size_t i = s.hosts[h].first; i < s.hosts[h].first + s.hosts[h].n; i++)
			snprintf(doc + strlen(doc), 16384 - strlen(doc),
				 "%s{\"interface\":\"%s\",\"address\":\"%s\",\"classes\":"
				 "[{\"peers\":\"rest\",\"route_dev\":\"%s\",\"route_table\":%zu,"
				 "\"route_via\":null,\"route_bound\":true}]}",
				 i == s.hosts[h].first ? "" : ",", inv.ports[i].ifname,
				 ip_to_string(&inv.ports[i].addrs[0].ip, addr, sizeof(addr), false),
				 inv.ports[i].ifname, 1000 + i - s.hosts[h].first);
		strcat(doc, "],\"arp\":[");
		for (size_t j = 0; j < inv.n_ports; j++) {
			const struct ibh_ip *dst = &inv.ports[j].addrs[0].ip;
			size_t who[SAMPLE_PROBERS_MAX], n = sample_probers(&s, j, dst, k, who),
							from, a;
			char d[64], src[64];

			for (size_t w = 0; w < n; w++) {
				if (who[w] != h)
					continue;
				assert_int_equal(sample_source(&s, h, dst, &from, &a), 0);
				ip_to_string(dst, d, sizeof(d), false);
				snprintf(doc + strlen(doc), 16384 - strlen(doc),
					 "%s{\"interface\":\"%s\",\"address\":\"%s\","
					 "\"peer\":\"%s\",\"answers\":[\"%s\"",
					 first ? "" : ",", inv.ports[from].ifname,
					 ip_to_string(&inv.ports[from].addrs[a].ip, src,
						      sizeof(src), false),
					 d, inv.ports[j].hwaddr);
				/* a host with ARP flux: its other port answers too */
				if (inv.ports[j].arp_ignore == 0)
					for (size_t o = inv.ports[j].host_first;
					     o < inv.ports[j].host_first + inv.ports[j].host_n; o++)
						if (o != j)
							snprintf(doc + strlen(doc),
								 16384 - strlen(doc), ",\"%s\"",
								 inv.ports[o].hwaddr);
				strcat(doc, "]}");
				first = false;
			}
		}
		snprintf(doc + strlen(doc), 16384 - strlen(doc),
			 "],\"rdma_cm_probes\":[],\"neigh\":[%s]}\n",
			 neigh_host && strcmp(neigh_host, host) == 0 ? neigh : "");
		if (!silent || strcmp(silent, host) != 0)
			assert_int_equal(fleet_read(f, doc, fleet_add_probes, &at), 0);
		free(doc);
	}
	sample_free(&s);
	fleet_free(&inv);
}

/* the verdict of every pair between two hosts in one string: "FROM>TO=cause@AT " each */
static void verdicts(const struct fleet *f, char *buf, size_t size)
{
	*buf = '\0';
	for (size_t i = 0; i < f->n_ports; i++)
		for (size_t j = 0; j < f->n_ports; j++) {
			struct fleet_cell c;

			if (f->ports[i].host_index == f->ports[j].host_index)
				continue;
			fleet_judge(f, i, j, &c);
			snprintf(buf + strlen(buf), size - strlen(buf), "%s:%s>%s:%s=%s@%s:%s ",
				 f->ports[i].host, f->ports[i].ifname, f->ports[j].host,
				 f->ports[j].ifname, fleet_cause_word(c.cause), f->ports[c.at].host,
				 f->ports[c.at].ifname);
		}
}

/*
 * Item 2: FleetProbers=1 and ARP flux on h2, h1's answer left out. Every
 * address h1 alone was to ask is a hole: its pairs from h2 and h3 are unknown,
 * never ok, naming h1; the pairs from h1 are unknown (its own); every other
 * pair as with h1's answer; the summary names the hole. FleetProbers=2 closes
 * it: each address of 3 hosts is then asked by both others.
 */
static void prober_silent(void **state)
{
	struct fleet all, f;
	struct sample s;
	char want[4096], got[4096], *buf = NULL;
	size_t size = 0, holes = 0, into_h2 = 0;
	FILE *out;

	(void)state;
	v2_fleet(&all, FLUX_H2, 1, NULL, NULL, NULL);
	v2_fleet(&f, FLUX_H2, 1, "h1", NULL, NULL);
	assert_int_equal(sample_init(&s, &f), 0);
	for (size_t i = 0; i < f.n_ports; i++)
		for (size_t j = 0; j < f.n_ports; j++) {
			struct fleet_cell c, w;
			size_t who;

			if (f.ports[i].host_index == f.ports[j].host_index)
				continue;
			fleet_judge(&f, i, j, &c);
			fleet_judge(&all, i, j, &w);
			if (strcmp(f.ports[i].host, "h1") == 0) {
				assert_int_equal(c.cause, FLEET_UNKNOWN);
				assert_int_equal(c.missing, 1);
				assert_false(c.not_probed);
				continue;
			}
			/* h1 alone was to ask the address: sample.c's choice, as on the hosts */
			if (strcmp(f.ports[j].host, "h1") != 0 &&
			    sample_probers(&s, j, &f.ports[j].addrs[0].ip, 1, &who) == 1 &&
			    strcmp(f.ports[s.hosts[who].first].host, "h1") == 0) {
				assert_int_equal(c.cause, FLEET_UNKNOWN);
				assert_int_equal(c.at, j);
				assert_true(c.not_probed);
				assert_string_equal(f.ports[c.missing - 1].host, "h1");
				assert_non_null(strstr(c.why, "not probed: h1 sent no answers"));
				holes++;
				into_h2 += strcmp(f.ports[j].host, "h2") == 0;
				continue;
			}
			assert_int_equal(c.cause, w.cause);
			assert_int_equal(c.at, w.at);
		}
	sample_free(&s);
	/* the choice of these names and addresses: h1 alone asks both of h2's */
	assert_int_equal(into_h2, 4);
	assert_true(holes >= 4);
	out = open_memstream(&buf, &size);
	assert_int_equal(fleet_print(&f, FLEET_TEXT, out), 1);
	fclose(out);
	printf("%s", buf);
	assert_non_null(strstr(buf, "missing answers: h1 sent none: 8 pairs from it unknown, "));
	snprintf(want, sizeof(want), "%zu pairs it was to probe (ARP) unknown\n", holes);
	assert_non_null(strstr(buf, want));
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &size);
	assert_int_equal(fleet_print(&f, FLEET_JSON, out), 1);
	fclose(out);
	snprintf(want, sizeof(want),
		 "\"missing\":[{\"host\":\"h1\",\"unknown_from\":8,\"not_probed\":%zu}]", holes);
	assert_non_null(strstr(buf, want));
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &size);
	assert_int_equal(fleet_print(&f, FLEET_HTML, out), 1);
	fclose(out);
	assert_non_null(strstr(buf, "<p class=\"hole\">missing answers: h1 sent none: 8 pairs"));
	free(buf);
	fleet_free(&f);
	/* a second prober: h3 asks every address h1 does; nothing unknown but h1's own */
	v2_fleet(&f, FLUX_H2, 2, "h1", NULL, NULL);
	verdicts(&f, got, sizeof(got));
	verdicts(&all, want, sizeof(want));
	for (char *g = got, *w = want; *g;) {
		char *ge = strchr(g, ' '), *we = strchr(w, ' ');

		*ge = *we = '\0';
		if (strncmp(g, "h1:", 3) == 0)
			assert_non_null(strstr(g, "=unknown@h1:"));
		else
			assert_string_equal(g, w);
		g = ge + 1;
		w = we + 1;
	}
	fleet_free(&f);
	fleet_free(&all);
}

/*
 * Item 3: h1 holds 172.16.3.1 (h3 ib0) on both its ports as h3 ib1's hardware
 * address, and h3's ports have rp_filter=1. The pairs into h3 ib0 from h1
 * resolve through the entry (neigh-stale at h1, as before); the pairs from h3
 * ib0 to h1 have their replies sent to h3 ib1, whose strict reverse-path
 * check drops them (h3's way back to h1 leaves through ib0): neigh-stale at
 * the entry's holder too, saying so. Without rp_filter=1 those replies are
 * taken: only the pairs into h3 ib0 fail.
 */
static void reply_through_neigh(void **state)
{
	static const char *const neigh =
		"{\"interface\":\"ib0\",\"peer\":\"172.16.3.1\",\"lladdr\":\"02:00:00:00:03:01\","
		"\"state\":\"permanent\"},{\"interface\":\"ib1\",\"peer\":\"172.16.3.1\","
		"\"lladdr\":\"02:00:00:00:03:01\",\"state\":\"stale\"}";
	static const char *const into =
		"h1:ib0>h3:ib0=neigh-stale@h1:ib0 h1:ib1>h3:ib0=neigh-stale@h1:ib1 ";
	static const char *const from =
		"h3:ib0>h1:ib0=neigh-stale@h1:ib0 h3:ib0>h1:ib1=neigh-stale@h1:ib1 ";
	struct fleet f;
	struct fleet_cell c;
	char got[4096];

	(void)state;
	for (int rp = 0; rp < 2; rp++) {
		char *buf = NULL;
		size_t size = 0;
		FILE *out;

		v2_fleet(&f, rp ? RP_H3 : NO_RP, 1, NULL, "h1", neigh);
		verdicts(&f, got, sizeof(got));
		for (char *g = strtok(got, " "); g; g = strtok(NULL, " ")) {
			char pair[128];

			snprintf(pair, sizeof(pair), "%s ", g);
			if (strstr(into, pair) || (rp && strstr(from, pair)))
				continue;
			/* every other pair ok */
			assert_non_null(strstr(pair, "=ok@"));
		}
		verdicts(&f, got, sizeof(got));
		assert_non_null(strstr(got, "h1:ib0>h3:ib0=neigh-stale@h1:ib0 "));
		assert_non_null(strstr(got, "h1:ib1>h3:ib0=neigh-stale@h1:ib1 "));
		assert_true(!rp || strstr(got, "h3:ib0>h1:ib0=neigh-stale@h1:ib0 "));
		assert_true(!rp || strstr(got, "h3:ib0>h1:ib1=neigh-stale@h1:ib1 "));
		assert_true(rp || strstr(got, "h3:ib0>h1:ib0=ok@"));
		if (rp) {
			fleet_judge(&f, named(&f, "h3:ib0"), named(&f, "h1:ib1"), &c);
			assert_string_equal(
				c.why,
				"ib1 of h1 holds 172.16.3.1 as 02:00:00:00:03:01 (stale) in its "
				"neighbour table: the reply from 172.16.1.2 goes to ib1 of h3, "
				"where rp_filter=1 drops it (the way back from 172.16.3.1 leaves "
				"through ib0)");
		}
		/* the matrix's count, its fast path included */
		out = open_memstream(&buf, &size);
		assert_int_equal(fleet_print(&f, FLEET_TEXT, out), 1);
		fclose(out);
		assert_non_null(strstr(buf, rp ? "30 pairs: 20 ok, 4 not ok, 6 local"
					       : "30 pairs: 22 ok, 2 not ok, 6 local"));
		free(buf);
		fleet_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_ok),
		cmocka_unit_test(flux_at_the_port_that_answered),
		cmocka_unit_test(route_faults_at_the_source),
		cmocka_unit_test(one_cause_when_both_ways_fail),
		cmocka_unit_test(rp_filter_at_the_port_that_drops),
		cmocka_unit_test(down_and_unanswered),
		cmocka_unit_test(silent_host),
		cmocka_unit_test(same_host_where_accept_local),
		cmocka_unit_test(no_gid_at_the_port_without_one),
		cmocka_unit_test(cm_at_the_source),
		cmocka_unit_test(ip_causes_before_cm),
		cmocka_unit_test(page_and_json),
		cmocka_unit_test(bad_documents),
		/* issue 38 */
		cmocka_unit_test(nine_addresses),
		cmocka_unit_test(longest_host_name),
		cmocka_unit_test(second_subnet),
		cmocka_unit_test(stale_inventory),
		cmocka_unit_test(nothing_seen),
		cmocka_unit_test(names_with_markup),
		/* issue 47 */
		cmocka_unit_test(prober_silent),
		cmocka_unit_test(reply_through_neigh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
