/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hookenv.h"
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

/* [Gateways]: a gateway T(X) gets a default through, for a port main routes nothing through */
struct ibh_gateway_entry {
	char ifname[IF_NAMESIZE];
	bool peer;	     /* the other address of a /31 or /127, or a peer address */
	struct ibh_ip gw[2]; /* addresses, at most one of each family */
	size_t n_gw;
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
	bool hooks[IBH_HOOK_MAX];
	/* [IPoIB], for InfiniBand links: IBH_IPOIB_KEEP and 0 leave them alone */
	enum ibh_ipoib_mode ipoib_mode;
	uint32_t ipoib_mtu;
	/* [Tables] entries before this index come from an earlier file: a later one may override */
	size_t n_tables_earlier;
	/* GatewayRoutes=: T(X) copies main's routes through X (routed rails) */
	bool gateway_routes;
	struct ibh_gateway_entry gateways[IBH_MAX_TABLES];
	size_t n_gateways;
	size_t n_gateways_earlier;
	/* [Fleet]: step 2 of the fleet view (--check --fleet) */
	uint32_t fleet_probers;	 /* FleetProbers=: hosts asking each address */
	uint32_t fleet_arp_rate; /* FleetArpRate=: ARP requests per second per broadcast domain */
};

struct ibh_config_error {
	char path[4096];   /* the file, when loading files */
	unsigned int line; /* 0: not about one line */
	char key[64];
	char message[160];
};

void config_defaults(struct ibh_config *c);
/* one file's text over the defaults */
int config_parse(struct ibh_config *c, const char *text, size_t size, struct ibh_config_error *err);
/*
 * One Key=Value of section over c, as a line of a file gives it, but for a
 * key the file's syntax cannot hold (an interface named "rail#1" or "r=1");
 * c is unchanged on error
 */
int config_parse_entry(struct ibh_config *c, const char *section, const char *key,
		       const char *value, struct ibh_config_error *err);
/* one more file's text over c, as a drop-in: later values win; c is unchanged on error */
int config_parse_over(struct ibh_config *c, const char *text, size_t size,
		      struct ibh_config_error *err);
/*
 * The defaults, then path (which may be missing when dropin_dir is given),
 * then the files *.conf of dropin_dir in lexical order; dropin_dir NULL: path alone and it
 * must exist (--config). The names of the files read go to files, one per
 * line ("" when none). c is unchanged on error.
 */
int config_load_all(struct ibh_config *c, const char *path, const char *dropin_dir,
		    struct ibh_config_error *err, char *files, size_t files_size);

/* "FILE:LINE: message" or "FILE: message" of a failed config_load_all() that returned r */
/* room for the names of the files config_load_all() read, one per line */
#define IBH_CONFIG_FILES_SIZE 2048

void config_error_format(const struct ibh_config_error *err, int r, char *buf, size_t size);

/* [Gateways] entry of ifname, or NULL */
const struct ibh_gateway_entry *config_gateway_of(const struct ibh_config *c, const char *ifname);
/* [Tables] entry of ifname, or 0 */
uint32_t config_table_of(const struct ibh_config *c, const char *ifname);
/*
 * A hash of the configuration as loaded (config_defaults() zeroes it whole,
 * so equal configurations hash alike): the watcher publishes its own, and a
 * hook run leaves the copies of main's routes to a watcher only when it
 * runs with the same configuration
 */
uint64_t config_fingerprint(const struct ibh_config *c);
bool config_table_is_listed(const struct ibh_config *c, uint32_t table);
/* T(X); 0 when it falls on a reserved table or overflows */
uint32_t config_table(const struct ibh_config *c, const char *ifname, int ifindex);
bool table_is_reserved(uint64_t table);
