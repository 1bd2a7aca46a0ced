/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define IBH_MAX_GLOBS	 32
#define IBH_MAX_GLOB_LEN 64
#define IBH_MAX_TABLES	 64

enum ibh_main_route {
	IBH_MAIN_KEEP,
	IBH_MAIN_DELETE,
};

struct ibh_table_entry {
	char ifname[IF_NAMESIZE];
	uint32_t table;
};

struct ibh_config {
	char globs[IBH_MAX_GLOBS][IBH_MAX_GLOB_LEN];
	size_t n_globs;
	uint32_t table_base;
	uint32_t priority;
	enum ibh_main_route main_route;
	bool ipv6;
	struct ibh_table_entry tables[IBH_MAX_TABLES];
	size_t n_tables;
	int sysctl[IBH_SYSCTL_MAX]; /* a value or IBH_SYSCTL_KEEP */
};

struct ibh_config_error {
	unsigned int line; /* 0: not about one line */
	char key[64];
	char message[160];
};

void config_defaults(struct ibh_config *c);
int config_parse(struct ibh_config *c, const char *text, size_t size, struct ibh_config_error *err);
int config_load(struct ibh_config *c, const char *path, bool missing_ok,
		struct ibh_config_error *err);

/* [Tables] entry of ifname, or 0 */
uint32_t config_table_of(const struct ibh_config *c, const char *ifname);
bool config_table_is_listed(const struct ibh_config *c, uint32_t table);
/* T(X); 0 when it falls on a reserved table or overflows */
uint32_t config_table(const struct ibh_config *c, const char *ifname, int ifindex);
bool table_is_reserved(uint64_t table);
const char *sysctl_name(enum ibh_sysctl key);
