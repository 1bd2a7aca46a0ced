// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Step 2 at scale (SPEC 10.1), its pure parts: the prober choice (each
 * address asked by exactly k hosts with a port in its prefix, never by its
 * own, the same whoever computes it, spread evenly; the fleet's requests on
 * a domain paced at the rate) and the routes by class (for random peers,
 * prefixes and results, every peer's class by the longest match is its own
 * result: the exactness the join relies on).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "classes.h"
#include "fleet.h"
#include "sample.h"

/* H hosts x P ports, host h port p at 10.(s).h.p/16 where s = p % subnets (rails: one per port) */
static void make_fleet(struct fleet *f, size_t hosts, size_t ports, size_t subnets)
{
	*f = (struct fleet){};
	f->ports = calloc(hosts * ports, sizeof(*f->ports));
	assert_non_null(f->ports);
	f->n_ports = f->cap_ports = hosts * ports;
	for (size_t h = 0; h < hosts; h++)
		for (size_t p = 0; p < ports; p++) {
			struct fleet_port *x = &f->ports[h * ports + p];

			snprintf(x->host, sizeof(x->host), "node%zu", h + 1);
			snprintf(x->ifname, sizeof(x->ifname), "ib%zu", p);
			x->up = true;
			x->addrs = calloc(1, sizeof(*x->addrs));
			assert_non_null(x->addrs);
			x->n_addrs = 1;
			x->addrs[0].ip = (struct ibh_ip){ .family = AF_INET,
							  .len = 16,
							  .a = { 10, (uint8_t)(p % subnets),
								 (uint8_t)(h / 250 + 1),
								 (uint8_t)(h % 250 + 1) } };
			/* the fourth byte carries the port where the host does not */
			x->addrs[0].ip.a[2] = (uint8_t)(x->addrs[0].ip.a[2] * 16 + p);
		}
}

static void free_fleet(struct fleet *f)
{
	for (size_t i = 0; i < f->n_ports; i++)
		free(f->ports[i].addrs);
	free(f->ports);
}

/* every address asked by exactly k hosts, none its own, each with a port in its prefix */
static void check_choice(size_t hosts, size_t ports, size_t subnets, unsigned int k)
{
	struct fleet f;
	struct sample s;
	size_t *asked, most = 0;

	make_fleet(&f, hosts, ports, subnets);
	assert_int_equal(sample_init(&s, &f), 0);
	assert_int_equal(s.n_hosts, hosts);
	asked = calloc(hosts, sizeof(*asked));
	assert_non_null(asked);
	for (size_t i = 0; i < f.n_ports; i++) {
		size_t who[SAMPLE_PROBERS_MAX], again[SAMPLE_PROBERS_MAX], n, port, addr;

		n = sample_probers(&s, i, &f.ports[i].addrs[0].ip, k, who);
		assert_int_equal(n, k);
		/* the same answer the second time (another host computes the same) */
		assert_int_equal(sample_probers(&s, i, &f.ports[i].addrs[0].ip, k, again), n);
		assert_memory_equal(who, again, n * sizeof(*who));
		for (size_t x = 0; x < n; x++) {
			assert_int_not_equal(who[x], s.host_of[i]);
			for (size_t y = 0; y < x; y++)
				assert_int_not_equal(who[x], who[y]);
			assert_int_equal(
				sample_source(&s, who[x], &f.ports[i].addrs[0].ip, &port, &addr),
				0);
			assert_true(ip_in_prefix(&f.ports[port].addrs[addr].ip,
						 &f.ports[i].addrs[0].ip));
			asked[who[x]]++;
		}
	}
	/* spread: no host asks more than three times its fair share (k * ports, about) */
	for (size_t h = 0; h < hosts; h++)
		most = asked[h] > most ? asked[h] : most;
	assert_true(most <= 3 * (k * ports + 2));
	free(asked);
	sample_free(&s);
	free_fleet(&f);
}

static void choice_one_subnet(void **state)
{
	(void)state;
	check_choice(64, 8, 1, 1);
	check_choice(64, 8, 1, 3);
	check_choice(2, 1, 1, 1);
}

static void choice_rails(void **state)
{
	(void)state;
	/* eight rails: an address is asked only from its rail */
	check_choice(128, 8, 8, 1);
	check_choice(32, 4, 4, 2);
}

/* a down port asks nothing; a host alone in its prefix is asked by nobody */
static void choice_down_and_alone(void **state)
{
	struct fleet f;
	struct sample s;
	size_t who[SAMPLE_PROBERS_MAX];

	(void)state;
	make_fleet(&f, 3, 1, 1);
	f.ports[1].up = f.ports[2].up = false;
	assert_int_equal(sample_init(&s, &f), 0);
	/* host 1's address: only hosts 2 and 3 could ask it, and their ports are down */
	assert_int_equal(sample_probers(&s, 0, &f.ports[0].addrs[0].ip, 1, who), 0);
	/* host 2's: host 1 */
	assert_int_equal(sample_probers(&s, 1, &f.ports[1].addrs[0].ip, 3, who), 1);
	assert_int_equal(who[0], 0);
	sample_free(&s);
	free_fleet(&f);
}

/* the fleet's requests on a domain at the rate: slots 1000/rate ms apart, each asked once */
static void plan_paced(void **state)
{
	struct fleet f;
	struct sample s;
	size_t total = 0;
	unsigned int window = 0, slots[64 * 8] = { 0 };
	size_t n_slots = 0;

	(void)state;
	make_fleet(&f, 64, 8, 1);
	assert_int_equal(sample_init(&s, &f), 0);
	for (size_t h = 0; h < s.n_hosts; h++) {
		struct sample_request *req;
		size_t n;
		unsigned int w;

		assert_int_equal(sample_plan(&s, h, 1, 1000, &req, &n, &w), 0);
		for (size_t i = 0; i < n; i++) {
			assert_int_not_equal(req[i].from, SIZE_MAX);
			assert_string_equal(f.ports[req[i].from].host,
					    f.ports[s.hosts[h].first].host);
			assert_true(req[i].at_ms < 64 * 8);
			slots[n_slots++] = req[i].at_ms;
		}
		total += n;
		window = w > window ? w : window;
		free(req);
	}
	assert_int_equal(total, 64 * 8);
	/* 512 requests at 1000/s: 512 ms, each in its own millisecond */
	assert_int_equal(window, 512);
	for (size_t i = 0; i < n_slots; i++)
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(slots[i], slots[j]);
	sample_free(&s);
	free_fleet(&f);
}

static struct ibh_ip v4(uint32_t x, uint8_t len)
{
	return (struct ibh_ip){ .family = AF_INET,
				.len = len,
				.a = { (uint8_t)(x >> 24), (uint8_t)(x >> 16), (uint8_t)(x >> 8),
				       (uint8_t)x } };
}

/* random peers in random prefixes with results by prefix, and exceptions: exact every time */
static void classes_exact(void **state)
{
	(void)state;
	srand(39);
	for (int round = 0; round < 300; round++) {
		size_t n = 1 + (size_t)rand() % 400, n_pfx = (size_t)rand() % 12, n_items, rest;
		size_t n_results = 1 + (size_t)rand() % 5;
		struct ibh_ip *peers = calloc(n, sizeof(*peers)), pfx[12];
		size_t *result = calloc(n, sizeof(*result)), pfx_result[12];
		struct class_item *items;

		assert_non_null(peers);
		assert_non_null(result);
		for (size_t i = 0; i < n_pfx; i++) {
			pfx[i] = v4(0x0a000000u | ((uint32_t)rand() & 0x00ffffffu),
				    (uint8_t)(8 + rand() % 23));
			pfx_result[i] = (size_t)rand() % n_results;
		}
		for (size_t i = 0; i < n; i++) {
			bool again;

			do {
				/* in one of the prefixes, mostly, or anywhere in 10/8 */
				uint32_t x = 0x0a000000u | ((uint32_t)rand() & 0x00ffffffu);

				if (n_pfx && rand() % 4) {
					const struct ibh_ip *p = &pfx[(size_t)rand() % n_pfx];
					uint32_t net = (uint32_t)p->a[0] << 24 |
						       (uint32_t)p->a[1] << 16 |
						       (uint32_t)p->a[2] << 8 | p->a[3];
					uint32_t mask = p->len ? ~0u << (32 - p->len) : 0;

					x = (net & mask) | (x & ~mask);
				}
				peers[i] = v4(x, 32);
				again = false;
				for (size_t j = 0; j < i && !again; j++)
					again = ip_same_address(&peers[j], &peers[i]);
			} while (again);
			/* the result of its most specific prefix, or random: an exception */
			result[i] = (size_t)rand() % n_results;
			for (int best = -1, k = 0; k < (int)n_pfx; k++)
				if (pfx[k].len > best && ip_in_prefix(&pfx[k], &peers[i]) &&
				    rand() % 10) {
					best = pfx[k].len;
					result[i] = pfx_result[k];
				}
		}
		assert_int_equal(
			classes_build(peers, result, n, pfx, n_pfx, &items, &n_items, &rest), 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(classes_lookup(items, n_items, rest, &peers[i]),
					 result[i]);
		/* never more items than peers: at worst each its own */
		assert_true(n_items <= n + n_pfx);
		free(items);
		free(peers);
		free(result);
	}
}

/* a healthy host: one class, no item (the rest says it all) */
static void classes_healthy(void **state)
{
	struct ibh_ip peers[100], pfx = v4(0x0a0a0000u, 16);
	size_t result[100] = { 0 }, n_items, rest;
	struct class_item *items;

	(void)state;
	for (size_t i = 0; i < 100; i++)
		peers[i] = v4(0x0a0a0000u + (uint32_t)i + 1, 32);
	assert_int_equal(classes_build(peers, result, 100, &pfx, 1, &items, &n_items, &rest), 0);
	assert_int_equal(n_items, 0);
	assert_int_equal(rest, 0);
	free(items);
	/* one peer elsewhere: its address alone */
	result[42] = 1;
	assert_int_equal(classes_build(peers, result, 100, &pfx, 1, &items, &n_items, &rest), 0);
	assert_int_equal(n_items, 1);
	assert_int_equal(items[0].pfx.len, 32);
	assert_int_equal(items[0].result, 1);
	free(items);
}

/*
 * The class key: lookups that differ only in route_bound are two classes,
 * and the classes built on those keys still give every peer its own
 */
static void classes_bound_key(void **state)
{
	struct class_result *res = NULL, x = { .route = true, .dev = "ib1", .table = 254 };
	struct ibh_ip peers[64], pfx = v4(0x0a0a0000u, 16);
	size_t n_res = 0, cap = 0, result[64], n_items, rest;
	struct class_item *items;

	(void)state;
	for (size_t i = 0; i < 64; i++) {
		/* the same route from the source; bound to its port, found for some peers only */
		x.bound = i % 5 == 0   ? ROUTE_BOUND_NO
			  : i % 7 == 0 ? ROUTE_BOUND_UNKNOWN
				       : ROUTE_BOUND_YES;
		peers[i] = v4(0x0a0a0000u + (uint32_t)i + 1, 32);
		result[i] = classes_result_id(&res, &n_res, &cap, &x);
		assert_int_not_equal(result[i], SIZE_MAX);
	}
	assert_int_equal(n_res, 3);
	assert_int_not_equal(result[5], result[1]);
	assert_int_not_equal(result[7], result[1]);
	assert_int_not_equal(result[5], result[7]);
	for (size_t i = 0; i < 64; i++)
		assert_int_equal(res[result[i]].bound, i % 5 == 0   ? ROUTE_BOUND_NO
						       : i % 7 == 0 ? ROUTE_BOUND_UNKNOWN
								    : ROUTE_BOUND_YES);
	/* the same key again: the same class */
	x.bound = ROUTE_BOUND_NO;
	assert_int_equal(classes_result_id(&res, &n_res, &cap, &x), result[5]);
	assert_int_equal(n_res, 3);
	assert_int_equal(classes_build(peers, result, 64, &pfx, 1, &items, &n_items, &rest), 0);
	for (size_t i = 0; i < 64; i++)
		assert_int_equal(classes_lookup(items, n_items, rest, &peers[i]), result[i]);
	free(items);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(choice_one_subnet),	 cmocka_unit_test(choice_rails),
		cmocka_unit_test(choice_down_and_alone), cmocka_unit_test(plan_paced),
		cmocka_unit_test(classes_exact),	 cmocka_unit_test(classes_healthy),
		cmocka_unit_test(classes_bound_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
